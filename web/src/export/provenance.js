// What made a figure or an exported file, said on it: the input, the model (its file, or its kind
// and seed when drawn from a seed: a seed means nothing for loaded weights), the layer shown, the sizes.
import { t } from '../i18n.js';
import { hasBlocks, isLoaded } from '../modelFacts.js';
import { models as TRAINED_MODELS } from '../../../models/trained-models.json';
import { MODEL_KINDS } from '../attributes.js';

// The file the model shown came from: the one a learner opened or fetched, the weights of random
// mode, or the trained model this project ships; null for seeded weights.
function fileOf(state) {
  const s = state.result.settings || state.settings;
  if (!isLoaded(state.result.config)) return null;
  if (s.model === 'file') return s.file;
  const shipped = MODEL_KINDS[s.model] && MODEL_KINDS[s.model].shipped;
  if (shipped) return TRAINED_MODELS.find((m) => m.id === shipped).source.split('/').pop();
  return state.weights ? state.weights.url : null;
}

// -> {input, model, layer (null for one attention layer), seed (null for loaded weights)}: short texts.
export function provenance(state) {
  const { result, lang } = state;
  const c = result.config;
  const file = fileOf(state);
  const seeded = !isLoaded(c);
  return {
    input: result.text === null ? `ids ${result.ids.join(' ')}` : `“${result.text}”`,
    model: seeded ? t(lang, hasBlocks(c) ? 'provenance.randomBlocks' : 'provenance.random', { seed: c.seed }) : `${file || ''} (${c.layout})`.trim(),
    layer: hasBlocks(c) ? t(lang, 'provenance.layer', { l: result.layer, n: c.layers }) : null,
    seed: seeded ? c.seed : null,
  };
}

// The footer line of an exported figure.
export function footerText(state) {
  const c = state.result.config;
  const p = provenance(state);
  return [p.input, p.model, p.layer, `d_model ${c.dModel}`, `heads ${c.heads}`, `kv_heads ${c.kvHeads}`, c.causal ? 'causal' : null, t(state.lang, 'appTitle')]
    .filter(Boolean)
    .join(' · ');
}
