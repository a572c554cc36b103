// Pictures of the stages a model of blocks adds: a stage's tensors as heatmaps (the residual
// stream, logits, and GPT-2's LayerNorms and MLP), and the next-token prediction.
import { h, live, setText, setAttr } from '../../dom.js';
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
export function namer(result) {
  const text = new Map();
  result.ids.forEach((id, i) => text.has(id) || text.set(id, result.tokens[i]));
  const known = result.vocabText || {};
  return (id) => (text.has(id) ? text.get(id) : known[id] || `#${id}`);
}

// The five likeliest next tokens at every position, with their probabilities; ✓ where the first
// choice is the token that really follows. Live: a later result of the same model and language
// (another text, a head switched off) is written into the rows already there, a row added or
// removed only for a token more or less (a new table of T rows cost 8 ms of layout at T = 32).
export function predictView(state) {
  const { lang } = state;
  const built = frameOf(state);
  const body = h('tbody', {});
  const rows = [];
  const summary = h('p', { class: 'predict-summary' });
  const off = h('p', { class: 'hint', 'data-switched-off': '' });
  const view = h('div', { class: 'stack predict' },
    h('table', { class: 'predict-table' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t(lang, 'predict.position')), h('th', { scope: 'col' }, t(lang, 'predict.token')),
        h('th', { scope: 'col' }, t(lang, 'predict.next')), h('th', { scope: 'col' }, '✓'))),
      body),
    summary,
  );
  const newRow = (i, n) => {
    const cands = Array.from({ length: n }, (_, r) => {
      const tok = h('span', { class: 'cand-token' });
      const bar = h('span', { class: 'cand-bar' });
      const p = h('span', { class: 'cand-p' });
      return { el: h('span', { class: 'candidate', 'data-rank': String(r) }, tok, bar, p), tok, bar, p, shown: null };
    });
    const token = h('th', { scope: 'row' });
    const mark = h('td', { class: 'mark' });
    const tr = h('tr', { 'data-position': String(i) }, h('td', { class: 'num' }, String(i)), token, h('td', { class: 'candidates' }, cands.map((c) => c.el)), mark);
    return { tr, token, mark, cands };
  };
  function fill(s) {
    const { result } = s;
    const probs = result.tensors.probs;
    const [, T, V] = probs.shape;
    const n = result.candidates.length ? result.candidates[0].length : 0;
    if (rows.length && rows[0].cands.length !== n) return false;
    const name = namer(result);
    while (rows.length > T) rows.pop().tr.remove();
    while (rows.length < T) {
      const row = newRow(rows.length, n);
      body.append(row.tr);
      rows.push(row);
    }
    let right = 0;
    for (let i = 0; i < T; i++) {
      const p = probs.data.subarray(i * V, (i + 1) * V);
      const top = result.candidates[i];
      const next = i + 1 < T ? result.ids[i + 1] : null;
      const ok = next !== null && top[0] === next;
      right += ok;
      const row = rows[i];
      if (row.tr.hasAttribute('class') !== ok) {
        if (ok) row.tr.className = 'right';
        else row.tr.removeAttribute('class'); // as a row made without it
      }
      setText(row.token, result.tokens[i]);
      setText(row.mark, ok ? '✓' : '');
      setAttr(row.mark, 'aria-label', ok ? '✓' : '');
      top.forEach((id, r) => {
        const c = row.cands[r];
        if (c.el.classList.contains('is-next') !== (id === next)) c.el.classList.toggle('is-next', id === next);
        setAttr(c.el, 'data-id', String(id));
        setText(c.tok, name(id));
        const shown = p[id].toFixed(4);
        if (c.shown !== shown) {
          c.bar.style.setProperty('--p', shown);
          c.shown = shown;
        }
        setText(c.p, p[id].toFixed(2));
      });
    }
    setAttr(summary, 'data-right', String(right));
    setText(summary, t(lang, 'predict.right', { k: right, n: T - 1 }));
    const switchedOff = result.config.model !== 'single' ? s.settings.switchedOff : [];
    if (switchedOff.length) {
      setText(off, t(lang, 'predict.off', { list: switchedOff.map(([l, hd]) => `${l}.${hd}`).join(', ') }));
      if (off.parentNode !== view) view.append(off);
    } else if (off.parentNode) off.remove();
    return true;
  }
  fill(state);
  return live(view, (s) => frameOf(s) === built && fill(s));
}
