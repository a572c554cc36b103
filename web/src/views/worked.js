// The worked example: a tiny model (d_model 4, 2 heads, 3 tokens) whose head 0 is printed in full,
// with one score and one softmax row spelled out so a learner can check them by hand.
import { h } from '../dom.js';
import { heatmap } from './heatmap.js';
import { maxAbs } from './colors.js';
import { num } from '../format.js';
import { t } from '../i18n.js';
import { WORKED } from '../engine.js';

const HEAD = 0;

// Rows of head HEAD of a (1, H, T, d) tensor.
function headRows(tensor) {
  const [, , T, d] = tensor.shape;
  const rows = [];
  for (let r = 0; r < T; r++) rows.push(Array.from(tensor.data.subarray((HEAD * T + r) * d, (HEAD * T + r + 1) * d)));
  return rows;
}

function grid(name, tensor, tokens, colLabels, opts = {}) {
  const [, , T, d] = tensor.shape;
  return h(
    'div',
    { class: 'worked-grid', 'data-worked': name },
    h('div', { class: 'worked-name', html: opts.title || name }),
    heatmap({
      tensor: name,
      data: tensor.data,
      offset: HEAD * T * d,
      rows: T,
      cols: d,
      index: (r, c) => [0, HEAD, r, c],
      rowLabels: tokens,
      colLabels,
      scale: opts.scale || { kind: 'diverging', max: maxAbs(tensor.data) },
      masked: opts.masked,
      numbers: true,
      rowSums: opts.rowSums,
      sumLabel: 'Σ',
    }),
  );
}

const f = (v) => num(v, 3);
const paren = (v) => (v < 0 ? `(${f(v)})` : f(v));

export function workedView(state) {
  const { worked, lang } = state;
  if (!worked) return null;
  const { tensors, tokens, config } = worked;
  const T = tokens.length;
  const dh = config.dHead;
  const q = headRows(tensors.q_heads);
  const k = headRows(tensors.k_heads);
  const v = headRows(tensors.v_heads);
  const scores = headRows(tensors.scores);
  const weights = headRows(tensors.weights);
  const out = headRows(tensors.head_out);
  const masked = config.causal ? (r, c) => c > r : null;
  const dims = Array.from({ length: dh }, (_, i) => `d${i}`);

  // One score: query 0 against key 1 (or key 0 when the mask hides key 1 from query 0).
  const kj = config.causal ? 0 : 1;
  const terms = q[0].map((qv, i) => `${paren(qv)}·${paren(k[kj][i])}`).join(' + ');
  const dot = `score<sub>0,${kj}</sub> = (q<sub>0</sub> · k<sub>${kj}</sub>) / √d<sub>head</sub> = (${terms}) / √${dh} = <strong>${f(scores[0][kj])}</strong>`;

  // Softmax of row 0.
  const row = scores[0];
  const finite = row.filter((s) => Number.isFinite(s));
  const mx = Math.max(...finite);
  const exps = row.map((s) => (Number.isFinite(s) ? Math.exp(s - mx) : 0));
  const total = exps.reduce((a, b) => a + b, 0);
  const expLine = row
    .map((s, j) => (Number.isFinite(s) ? `e<sup>${f(s)} − ${f(mx)}</sup> = ${f(exps[j])}` : `${t(lang, 'worked.maskedTerm')}`))
    .join('; ');
  const wLine = weights[0].map((w, j) => `w<sub>0,${j}</sub> = ${f(exps[j])} / ${f(total)} = <strong>${f(w)}</strong>`).join('; ');
  const sumLine = `Σ<sub>j</sub> w<sub>0,j</sub> = ${weights[0].map(f).join(' + ')} = ${weights[0].reduce((a, b) => a + b, 0).toFixed(3)}`;

  const outLine = out[0]
    .map((o, i) => `${weights[0].map((w, j) => `${f(w)}·${paren(v[j][i])}`).join(' + ')} = <strong>${f(o)}</strong>`)
    .join('<br>');

  const sums = (r) => `Σ = ${weights[r].reduce((a, b) => a + b, 0).toFixed(3)}`;
  return h(
    'details',
    { class: 'worked', open: state.controls === 'full' },
    h('summary', {}, t(lang, 'worked.title')),
    h('p', { class: 'worked-intro', html: t(lang, 'worked.intro', { T, text: WORKED.text, seed: config.seed, causal: config.causal ? t(lang, 'worked.causal') : '' }) }),
    h(
      'div',
      { class: 'worked-grids' },
      grid('q_heads', tensors.q_heads, tokens, dims, { title: 'Q<sub>0</sub>' }),
      grid('k_heads', tensors.k_heads, tokens, dims, { title: 'K<sub>0</sub>' }),
      grid('v_heads', tensors.v_heads, tokens, dims, { title: 'V<sub>0</sub>' }),
      grid('scores', tensors.scores, tokens, tokens, { title: 'scores<sub>0</sub> = Q<sub>0</sub>K<sub>0</sub><sup>T</sup> / √2', masked }),
      grid('weights', tensors.weights, tokens, tokens, { title: 'weights<sub>0</sub> = softmax(scores<sub>0</sub>)', scale: { kind: 'sequential', max: 1 }, masked, rowSums: sums }),
      grid('head_out', tensors.head_out, tokens, dims, { title: 'head_out<sub>0</sub> = weights<sub>0</sub> · V<sub>0</sub>' }),
    ),
    h('div', { class: 'worked-steps' },
      h('p', { class: 'worked-step-title' }, t(lang, 'worked.dot', { k: kj })),
      h('p', { class: 'math', html: dot }),
      h('p', { class: 'worked-step-title' }, t(lang, 'worked.softmax')),
      h('p', { class: 'math', html: expLine }),
      h('p', { class: 'math', html: wLine }),
      h('p', { class: 'math', html: sumLine }),
      h('p', { class: 'worked-step-title', html: t(lang, 'worked.out') }),
      h('p', { class: 'math', html: outLine }),
      h('p', { class: 'hint' }, t(lang, 'worked.note')),
    ),
  );
}
