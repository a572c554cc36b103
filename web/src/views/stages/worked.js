// The worked example: a tiny model (d_model 4, 2 heads, 3 tokens) whose head 0 is printed in full,
// with one score and one softmax row spelled out so a learner can check them by hand. A causal
// toggle is drawn into the same DOM (live()).
import { h, live } from '../../dom.js';
import { heatmap, updateHeatmap } from '../parts/heatmap.js';
import { maxAbs } from '../parts/colors.js';
import { cellNum } from '../../format.js';
import { t } from '../../i18n.js';
import { WORKED } from '../../engine.js';

const HEAD = 0;

// Rows of head HEAD of a (1, H, T, d) tensor.
function headRows(tensor) {
  const [, , T, d] = tensor.shape;
  const rows = [];
  for (let r = 0; r < T; r++) rows.push(Array.from(tensor.data.subarray((HEAD * T + r) * d, (HEAD * T + r + 1) * d)));
  return rows;
}

// One of head HEAD's matrices as a numbered grid; returns the block and its heatmap node.
function grid(name, tensor, tokens, colLabels, opts) {
  const [, , T, d] = tensor.shape;
  const map = heatmap({
    tensor: name,
    data: tensor.data,
    offset: HEAD * T * d,
    rows: T,
    cols: d,
    index: (r, c) => [0, HEAD, r, c],
    rowLabels: tokens,
    colLabels,
    lang: opts.lang,
    strongest: name === 'weights',
    scale: opts.scale,
    masked: opts.masked,
    numbers: true,
    rowSums: opts.rowSums,
    sumLabel: 'Σ',
  });
  return { map, node: h('div', { class: 'worked-grid', 'data-worked': name }, h('div', { class: 'worked-name', html: opts.title }), map) };
}

// The lines print numbers as the grids do, so a learner redoes them with the numbers on screen.
const f = cellNum;
const paren = (v) => (v < 0 ? `(${f(v)})` : f(v));

// Everything the example shows for one worked run: the grids' data and the spelled-out lines.
function content(state) {
  const { worked, lang } = state;
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

  // The row spelled out: row 0 sees every key without a mask; with it, row 0 sees only itself (a
  // softmax of one number, always [1, 0, 0]), so the last row, which sees them all, is shown.
  const r = config.causal ? T - 1 : 0;
  // One score: query r against another key (key 1, or key 0 under the mask).
  const kj = config.causal ? 0 : 1;
  const terms = q[r].map((qv, i) => `${paren(qv)}·${paren(k[kj][i])}`).join(' + ');
  const dot = `score<sub>${r},${kj}</sub> = (q<sub>${r}</sub> · k<sub>${kj}</sub>) / √d<sub>head</sub> = (${terms}) / √${dh} = <strong>${f(scores[r][kj])}</strong>`;

  // Softmax of row r.
  const row = scores[r];
  const finite = row.filter((s) => Number.isFinite(s));
  const mx = Math.max(...finite);
  const exps = row.map((s) => (Number.isFinite(s) ? Math.exp(s - mx) : 0));
  const total = exps.reduce((a, b) => a + b, 0);
  const expLine = row
    .map((s, j) => (Number.isFinite(s) ? `e<sup>${f(s)} − ${paren(mx)}</sup> = ${f(exps[j])}` : `${t(lang, 'worked.maskedTerm')}`))
    .join('; ');
  const wLine = weights[r].map((w, j) => `w<sub>${r},${j}</sub> = ${f(exps[j])} / ${f(total)} = <strong>${f(w)}</strong>`).join('; ');
  const sumLine = `Σ<sub>j</sub> w<sub>${r},j</sub> = ${weights[r].map(f).join(' + ')} = ${f(weights[r].reduce((a, b) => a + b, 0))}`;

  const outLine = out[r]
    .map((o, i) => `${weights[r].map((w, j) => `${f(w)}·${paren(v[j][i])}`).join(' + ')} = <strong>${f(o)}</strong>`)
    .join('<br>');

  const diverging = (tensor) => ({ kind: 'diverging', max: maxAbs(tensor.data) });
  return {
    grids: {
      q_heads: { tensor: tensors.q_heads, scale: diverging(tensors.q_heads) },
      k_heads: { tensor: tensors.k_heads, scale: diverging(tensors.k_heads) },
      v_heads: { tensor: tensors.v_heads, scale: diverging(tensors.v_heads) },
      scores: { tensor: tensors.scores, scale: diverging(tensors.scores), masked },
      weights: { tensor: tensors.weights, scale: { kind: 'sequential', max: 1 }, masked, rowSums: (i) => `Σ = ${f(weights[i].reduce((a, b) => a + b, 0))}` },
      head_out: { tensor: tensors.head_out, scale: diverging(tensors.head_out) },
    },
    // [element key, property, value]
    texts: [
      ['intro', 'innerHTML', t(lang, 'worked.intro', { T, text: WORKED.text, seed: config.seed, causal: config.causal ? t(lang, 'worked.causal') : '' })],
      ['dotTitle', 'textContent', t(lang, 'worked.dot', { q: r, k: kj })],
      ['softmaxTitle', 'textContent', t(lang, 'worked.softmax', { r })],
      ['outTitle', 'innerHTML', t(lang, 'worked.out', { r })],
      ['dot', 'innerHTML', dot],
      ['exp', 'innerHTML', expLine],
      ['w', 'innerHTML', wLine],
      ['sum', 'innerHTML', sumLine],
      ['out', 'innerHTML', outLine],
    ],
  };
}

const TITLES = {
  q_heads: 'Q<sub>0</sub>',
  k_heads: 'K<sub>0</sub>',
  v_heads: 'V<sub>0</sub>',
  scores: 'scores<sub>0</sub> = Q<sub>0</sub>K<sub>0</sub><sup>T</sup> / √2',
  weights: 'weights<sub>0</sub> = softmax(scores<sub>0</sub>)',
  head_out: 'head_out<sub>0</sub> = weights<sub>0</sub> · V<sub>0</sub>',
};

// The worked run's structure: a causal toggle keeps it, and is drawn in place.
const structureKey = (state) => JSON.stringify([state.lang, state.worked.tokens, state.worked.config.dHead]);

export function workedView(state) {
  const { worked, lang } = state;
  if (!worked) return null;
  const built = structureKey(state);
  const { tokens, config } = worked;
  const dims = Array.from({ length: config.dHead }, (_, i) => `d${i}`);
  const c = content(state);
  const grids = Object.entries(c.grids).map(([name, g]) =>
    grid(name, g.tensor, tokens, name === 'scores' || name === 'weights' ? tokens : dims, { ...g, title: TITLES[name], lang }));
  const p = (cls) => h('p', { class: cls });
  const el = { intro: p('worked-intro'), dotTitle: p('worked-step-title'), dot: p('math'), softmaxTitle: p('worked-step-title'), exp: p('math'), w: p('math'), sum: p('math'), outTitle: p('worked-step-title'), out: p('math') };
  const written = new Map();
  const write = (texts) => {
    for (const [key, prop, value] of texts) {
      if (written.get(key) === value) continue;
      el[key][prop] = value;
      written.set(key, value);
    }
  };
  write(c.texts);
  const view = h(
    'details',
    { class: 'worked', open: state.controls === 'full' },
    h('summary', {}, t(lang, 'worked.title')),
    el.intro,
    h('div', { class: 'worked-grids' }, grids.map((g) => g.node)),
    h('div', { class: 'worked-steps' },
      el.dotTitle,
      el.dot,
      el.softmaxTitle,
      el.exp,
      el.w,
      el.sum,
      el.outTitle,
      el.out,
      h('p', { class: 'hint' }, t(lang, 'worked.note')),
    ),
  );
  return live(view, (s) => {
    if (!s.worked || structureKey(s) !== built) return false;
    const next = content(s);
    Object.values(next.grids).forEach((g, i) => updateHeatmap(grids[i].map, { data: g.tensor.data, scale: g.scale, masked: g.masked, rowSums: g.rowSums }));
    write(next.texts);
    return true;
  });
}
