// What the views' DOM is built from besides the numbers: the language, the tokens and the model's
// configuration without the seed and the causal flag. Two states with the same structure differ
// only in values (new weights, the mask), which every view can show in place (live() in dom.js).
import { live, renew } from '../../dom.js';
import { later, watchLazy } from './lazy.js';

const cache = new WeakMap(); // result -> {lang -> key}

export function structureOf(state) {
  const { result, lang } = state;
  let byLang = cache.get(result);
  if (!byLang) cache.set(result, (byLang = {}));
  if (!byLang[lang]) byLang[lang] = JSON.stringify([lang, result.tokens, result.ids, modelOf(result)]);
  return byLang[lang];
}

// The structure without the tokens: what a view whose pictures follow another T in place (a map's
// rows and labels, the card's shape) is built from.
const frames = new WeakMap(); // result -> {lang -> key}
export function frameOf(state) {
  const { result, lang } = state;
  let byLang = frames.get(result);
  if (!byLang) frames.set(result, (byLang = {}));
  if (!byLang[lang]) byLang[lang] = JSON.stringify([lang, modelOf(result)]);
  return byLang[lang];
}

// The model's configuration without the seed and the causal flag.
export function modelOf(result) {
  return { ...result.config, seed: null, causal: null };
}

// A view made of live cards (and texts drawn from keyOf(state) alone) is live too: keyOf is
// structureOf, or frameOf for a view whose cards follow another T themselves (matrixTensor). A card
// scrolled out of view follows a moment after the others (lazy.js).
export function liveView(node, state, cards = [], keyOf = structureOf) {
  const built = keyOf(state);
  for (const card of cards) watchLazy(card);
  return live(node, (s) => keyOf(s) === built && cards.every((card) => later(card, () => card.isConnected && renew(card, s)) || renew(card, s)));
}
