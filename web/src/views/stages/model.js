// Pictures of the stages a model of blocks adds: a stage's tensors as heatmaps (the residual
// stream, logits, and GPT-2's LayerNorms and MLP), and the next-token prediction.
import { h } from '../../dom.js';
import { t } from '../../i18n.js';
import { matrixTensor } from '../parts/matrix.js';
import { liveView, frameOf } from '../parts/structure.js';
import { STRINGS } from '../../strings.js';

// The base names (no layers.{i}. prefix) of a stage's tensors in this result, in trace order.
const tensorsOf = (result, stageId) => Object.keys(result.tensors).filter((n) => !n.startsWith('layers.') && result.tensors[n].stage === stageId);

function axisFor(result, width) {
  if (width === result.config.vocabSize) return 'columnsVocab';
  if (width === result.config.dModel) return 'columnsD';
  return 'columnsN';
}

// A view for one stage: each of its (1, T, width) tensors as a heatmap, tokens on the rows.
export function stageTensorsView(stageId) {
  return (state) => {
    const { result, lang } = state;
    const cards = tensorsOf(result, stageId).map((name) =>
      matrixTensor(state, name, { axisKey: axisFor(result, result.tensors[name].shape[2]), caption: STRINGS[`cap.${name}`] ? undefined : '' }),
    );
    return liveView(h('div', { class: 'stack' }, cards, h('p', { class: 'hint' }, t(lang, 'hover'))), state, cards, frameOf);
  };
}

// The text an id had in this run (first occurrence), else its vocabulary entry (a model opened
// with its tokenizer: result.vocabText), else #id: the trained model's ids only mean "the n-th
// different token".
function namer(result) {
  const text = new Map();
  result.ids.forEach((id, i) => text.has(id) || text.set(id, result.tokens[i]));
  const known = result.vocabText || {};
  return (id) => (text.has(id) ? text.get(id) : known[id] || `#${id}`);
}

// The five likeliest next tokens at every position, with their probabilities; ✓ where the first
// choice is the token that really follows.
export function predictView(state) {
  const { result, lang } = state;
  const probs = result.tensors.probs;
  const [, T, V] = probs.shape;
  const name = namer(result);
  let right = 0;
  const rows = [];
  for (let i = 0; i < T; i++) {
    const p = probs.data.subarray(i * V, (i + 1) * V);
    const top = result.candidates[i];
    const next = i + 1 < T ? result.ids[i + 1] : null;
    const ok = next !== null && top[0] === next;
    right += ok;
    rows.push(
      h('tr', { 'data-position': String(i), class: ok ? 'right' : null },
        h('td', { class: 'num' }, String(i)),
        h('th', { scope: 'row' }, result.tokens[i]),
        h('td', { class: 'candidates' },
          top.map((id, r) =>
            h('span', { class: `candidate${id === next ? ' is-next' : ''}`, 'data-rank': String(r), 'data-id': String(id) },
              h('span', { class: 'cand-token' }, name(id)),
              h('span', { class: 'cand-bar', style: { '--p': p[id].toFixed(4) } }),
              h('span', { class: 'cand-p' }, p[id].toFixed(2)),
            ),
          ),
        ),
        h('td', { class: 'mark', 'aria-label': ok ? '✓' : '' }, ok ? '✓' : ''),
      ),
    );
  }
  const off = result.config.model !== 'single' && state.settings.switchedOff.length
    ? h('p', { class: 'hint', 'data-switched-off': '' }, t(lang, 'predict.off', { list: state.settings.switchedOff.map(([l, hd]) => `${l}.${hd}`).join(', ') }))
    : null;
  const view = h('div', { class: 'stack predict' },
    h('table', { class: 'predict-table' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t(lang, 'predict.position')), h('th', { scope: 'col' }, t(lang, 'predict.token')),
        h('th', { scope: 'col' }, t(lang, 'predict.next')), h('th', { scope: 'col' }, '✓'))),
      h('tbody', {}, rows)),
    h('p', { class: 'predict-summary', 'data-right': String(right) }, t(lang, 'predict.right', { k: right, n: T - 1 })),
    off,
  );
  return view; // rebuilt on every result: T rows of a few spans
}
