// Pictures of the stages a model of blocks adds: a stage's tensors as heatmaps (the residual
// stream, logits, and GPT-2's LayerNorms and MLP), and the next-token prediction.
import { h, live, renew, setText, setAttr } from '../../dom.js';
import { attributionPanel, shownPosition } from './attribution.js';
import { t } from '../../i18n.js';
import { matrixTensor } from '../parts/matrix.js';
import { liveView, frameOf } from '../parts/structure.js';
import { STRINGS } from '../../strings.js';
import { readsIds, ownVocabulary, UNK } from '../../modelFacts.js';
import { visibleToken } from '../../format.js';

// The base names (no layers.{i}. prefix) of a stage's tensors in this result, in trace order.
const tensorsOf = (result, stageId) => Object.keys(result.tensors).filter((n) => !n.startsWith('layers.') && result.tensors[n].stage === stageId);

// What a tensor's columns are, from its shape in the core's table ((1, T, vocab), (1, T, d_model) or
// (1, T, readouts?, vocab)), not from its width: the trained model's d_model and vocabulary are both 64.
function axisFor(result, name) {
  if (result.tensors[name].shape.length === 4) return 'columnsReadouts';
  const spec = result.stages.flatMap((s) => s.tensors).find((x) => x.name === name);
  const last = spec ? spec.shape.replace(/[()\s]/g, '').split(',').pop() : '';
  return { vocab: 'columnsVocab', d_model: 'columnsD' }[last] || 'columnsN';
}

// A view for one stage: each of its (1, T, width) tensors as a heatmap, tokens on the rows.
// A vocabulary's column is read by its id and its token (the logits map: 列 3 “，”), not as a bare number
export function stageTensorsView(stageId) {
  return (state, actions) => {
    const { result, lang } = state;
    const cards = tensorsOf(result, stageId).map((name) => {
      const axisKey = axisFor(result, name);
      // (a vocabulary of the model's own: its ids' texts do not hang on the text run, which changes
      // under this view; the induction model's ids name the text's tokens in order of first appearance)
      const named = axisKey === 'columnsVocab' && ownVocabulary(result.config) ? idNamer(result, actions) : null;
      const column = named ? (c) => `${c} “${named(c)}”` : null;
      return matrixTensor(state, name, { axisKey, column, caption: STRINGS[`cap.${name}`] ? undefined : '' });
    });
    return liveView(h('div', { class: 'stack' }, cards, h('p', { class: 'hint' }, t(lang, 'hover'))), state, cards, frameOf);
  };
}

// The text an id had in this run (first occurrence), else its vocabulary entry (a model opened
// with its tokenizer: result.vocabText), else #id: the trained model's ids only mean "the n-th
// different token". A vocabulary of the model's own names its ids first: its id 0 is <unk>, whatever
// word it stood for in this text, and a traditional character typed reads as the simplified one.
export function namer(result) {
  const text = new Map();
  result.ids.forEach((id, i) => text.has(id) || text.set(id, result.tokens[i]));
  const known = result.vocabText || {};
  if (ownVocabulary(result.config)) return (id) => visibleToken(known[id] || text.get(id) || `#${id}`);
  return (id) => visibleToken(text.has(id) ? text.get(id) : known[id] || `#${id}`);
}

// Any id by its text: the model's vocabulary's (the core's tokenText, for ids the run did not meet:
// a generation's candidates, a circuit's), else as namer names it.
export function idNamer(result, actions) {
  const name = namer(result);
  return (id) => visibleToken(actions.tokenText(id)) || name(id);
}

// A recall model's K readouts at every position (probs (1, T, K, V)): each one's first choice and its
// probability, ✓ where it is the token k places back. Live like the next-token table below.
export function recallPredictView(state) {
  const { lang } = state;
  const built = frameOf(state);
  const K = state.result.config.readouts;
  const body = h('tbody', {});
  const rows = [];
  const summary = h('p', { class: 'predict-summary' });
  const view = h('div', { class: 'stack predict' },
    h('table', { class: 'predict-table recall-table' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t(lang, 'predict.position')), h('th', { scope: 'col' }, t(lang, 'predict.token')),
        Array.from({ length: K }, (_, k) => h('th', { scope: 'col' }, t(lang, 'predict.readout', { k: k + 1 }))))),
      body),
    summary);
  function fill(s) {
    const { result } = s;
    if (result.config.readouts !== K) return false;
    const V = result.config.vocabSize;
    const T = result.ids.length;
    const p = result.tensors.probs.data;
    const name = namer(result);
    while (rows.length > T) rows.pop().tr.remove();
    while (rows.length < T) {
      const cells = Array.from({ length: K }, () => h('td', { class: 'readout' }));
      const token = h('th', { scope: 'row' });
      const tr = h('tr', { 'data-position': String(rows.length) }, h('td', { class: 'num' }, String(rows.length)), token, cells);
      body.append(tr);
      rows.push({ tr, token, cells });
    }
    let right = 0;
    let counted = 0;
    for (let i = 0; i < T; i++) {
      setText(rows[i].token, visibleToken(result.tokens[i]));
      for (let k = 1; k <= K; k++) {
        const cell = rows[i].cells[k - 1];
        const id = result.candidates[i * K + k - 1][0];
        const want = i >= k ? result.ids[i - k] : null;
        const ok = want !== null && id === want;
        right += ok;
        counted += want !== null;
        cell.classList.toggle('right', ok);
        setAttr(cell, 'data-id', String(id));
        setText(cell, `${name(id)} ${p[(i * K + k - 1) * V + id].toFixed(2)}${ok ? ' ✓' : ''}`);
      }
    }
    setAttr(summary, 'data-right', String(right));
    setText(summary, t(lang, 'predict.rightRecall', { k: right, n: counted }));
    return true;
  }
  fill(state);
  return live(view, (s) => frameOf(s) === built && fill(s));
}

// The five likeliest next tokens at every position, with their probabilities; ✓ where the first
// choice is the token that really follows; under them, why the first choice at the picked position
// (attribution.js: the position's number picks it). Live: a later result of the same model and language
// (another text, a head switched off) is written into the rows already there, a row added or
// removed only for a token more or less (a new table of T rows cost 8 ms of layout at T = 32).
export function predictView(state, actions) {
  const { lang } = state;
  const built = frameOf(state);
  const name = (id) => namer(current.result)(id);
  const current = { result: state.result };
  const why = state.result.attributions ? attributionPanel(state, name) : null;
  const body = h('tbody', {});
  const rows = [];
  const summary = h('p', { class: 'predict-summary' });
  const off = h('p', { class: 'hint', 'data-switched-off': '' });
  const hashNote = h('p', { class: 'hint', 'data-hash-ids': '' });
  const view = h('div', { class: 'stack predict' },
    h('table', { class: 'predict-table' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t(lang, 'predict.position')), h('th', { scope: 'col' }, t(lang, 'predict.token')),
        h('th', { scope: 'col' }, t(lang, 'predict.next')), h('th', { scope: 'col' }, '✓'))),
      body),
    summary,
    why,
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
    // The position's number picks it for the attribution below.
    const pick = why
      ? h('button', { type: 'button', class: 'pick', 'aria-label': t(lang, 'predict.pick', { i }), onclick: () => actions.pickPosition(i) }, String(i))
      : String(i);
    const tr = h('tr', { 'data-position': String(i) }, h('td', { class: 'num' }, pick), token, h('td', { class: 'candidates' }, cands.map((c) => c.el)), mark);
    return { tr, token, mark, cands, pick };
  };
  function fill(s) {
    const { result } = s;
    current.result = result;
    if (why && !renew(why, s)) return false;
    const picked = why ? shownPosition(s) : -1;
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
    // A next token that is <unk> is not scored (as the held-out accuracy, and `mha predict`): guessing
    // "a word I do not know" is not reading language.
    const vocabulary = ownVocabulary(result.config);
    let right = 0;
    let unscored = 0;
    for (let i = 0; i < T; i++) {
      const p = probs.data.subarray(i * V, (i + 1) * V);
      const top = result.candidates[i];
      const next = i + 1 < T ? result.ids[i + 1] : null;
      const unknown = vocabulary && next === UNK;
      const ok = next !== null && !unknown && top[0] === next;
      right += ok;
      unscored += unknown;
      const row = rows[i];
      if (row.tr.hasAttribute('class') !== ok) {
        if (ok) row.tr.className = 'right';
        else row.tr.removeAttribute('class'); // as a row made without it
      }
      if (why) setAttr(row.pick, 'aria-pressed', String(i === picked));
      setText(row.token, visibleToken(result.tokens[i]));
      setText(row.mark, ok ? '✓' : unknown ? '–' : '');
      setAttr(row.mark, 'aria-label', ok ? '✓' : unknown ? t(lang, 'predict.unscored') : '');
      if (unknown) setAttr(row.mark, 'title', t(lang, 'predict.unscored'));
      else if (row.mark.hasAttribute('title')) row.mark.removeAttribute('title'); // as a row made without it
      top.forEach((id, r) => {
        const c = row.cands[r];
        const isNext = id === next && !unknown; // an <unk> that follows is not marked as the answer either
        if (c.el.classList.contains('is-next') !== isNext) c.el.classList.toggle('is-next', isNext);
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
    const scored = T - 1 - unscored;
    setText(summary, T < 2 ? t(lang, 'predict.none') : !scored ? t(lang, 'predict.noneKnown', { m: unscored })
      : unscored ? t(lang, 'predict.rightKnown', { k: right, n: scored, m: unscored }) : t(lang, 'predict.right', { k: right, n: T - 1 }));
    // A candidate named by its id only (#22): say what that means, with the first one as the example.
    const nameless = result.candidates.flat().find((id) => name(id).startsWith('#'));
    if (nameless !== undefined) {
      setText(hashNote, t(lang, readsIds(result.config) ? 'predict.hashIdsNoTokenizer' : 'predict.hashIds', { id: nameless }));
      if (hashNote.parentNode !== view) summary.after(hashNote);
    } else if (hashNote.parentNode) hashNote.remove();
    const switchedOff = result.config.model !== 'single' ? s.settings.switchedOff : [];
    if (switchedOff.length) {
      setText(off, t(lang, 'predict.off', { list: switchedOff.map(([l, hd]) => `${l}.${hd}`).join(', ') }));
      if (off.parentNode !== view) view.insertBefore(off, why); // under the summary (why: null appends)
    } else if (off.parentNode) off.remove();
    return true;
  }
  fill(state);
  return live(view, (s) => frameOf(s) === built && Boolean(s.result.attributions) === Boolean(why) && fill(s));
}
