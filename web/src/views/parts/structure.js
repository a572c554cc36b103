// What the views' DOM is built from besides the numbers: the language, the tokens and the model's
// configuration without the seed and the causal flag. Two states with the same structure differ
// only in values (new weights, the mask), which every view can show in place (live() in dom.js).
import { live, renew } from '../../dom.js';

const cache = new WeakMap(); // result -> {lang -> key}

export function structureOf(state) {
  const { result, lang } = state;
  let byLang = cache.get(result);
  if (!byLang) cache.set(result, (byLang = {}));
  if (!byLang[lang]) byLang[lang] = JSON.stringify([lang, result.tokens, result.ids, modelOf(result)]);
  return byLang[lang];
}

// The model's configuration without the seed and the causal flag.
export function modelOf(result) {
  return { ...result.config, seed: null, causal: null };
}

// A view made of live cards (and texts drawn from the structure alone) is live too.
export function liveView(node, state, cards = []) {
  const built = structureOf(state);
  return live(node, (s) => structureOf(s) === built && cards.every((card) => renew(card, s)));
}
