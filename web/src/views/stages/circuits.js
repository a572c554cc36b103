// The part 'circuits' (parts.js): how the model's heads connect, from its weights and two runs
// (cpp/core/analysis/circuits.h, patching.h; the module's Model.circuits and Model.patch). Three
// tables, each with a caption made from its own numbers:
//   composition  every head A of a layer into every head B of a later one, in the mode chosen (Q, K
//                or V: what B's queries, keys or values read of what A writes), against the score
//                two random heads give;
//   copying      each head's OV circuit: +1 when it raises the logit of the token it attends to;
//   patching     the text with one token changed: the corrupted run with one head's output (or one
//                row of the residual stream) from the clean run, and how much of the clean answer
//                (m = logit[answer] − logit[wrong] at the last position) each brings back.
// state.circuits: {mode, position, replacement, forIds}: the mode shown and the token changed (null:
// the default below), for the ids they were picked on.
import { h, takesFocus } from '../../dom.js';
import { t, sentenceGap } from '../../i18n.js';
import { localMessage, storedError } from '../../messages.js';
import { tokenLabels, visibleToken } from '../../format.js';
import { idNamer } from './model.js';
import { colorOf, inkOn } from '../parts/colors.js';

export const css = `
.circuits table{border-collapse:collapse;font:12px/1.2 ui-monospace,monospace;margin:.3rem 0}
.circuits th,.circuits td{padding:3px 5px;text-align:right;border:1px solid var(--line,#ddd)}
.circuits th{font-weight:600;white-space:nowrap}
.circuits td.none{background:repeating-linear-gradient(45deg,transparent 0 3px,rgba(128,128,128,.15) 3px 6px)}
.circuits .circ-scroll{overflow-x:auto;max-width:100%}
.circuits .circ-modes{margin:.3rem 0}
.circuits .circ-tokens{display:flex;flex-wrap:wrap;gap:3px;margin:.3rem 0}
.circuits .circ-tokens button{min-width:2em;padding:3px 6px;font-weight:400}
.circuits .circ-tokens button[aria-pressed=true]{outline:2px solid #b5000b;font-weight:700}
.circuits td.circ-top{outline:2px solid #b5000b;outline-offset:-2px}
`;

// Multiply-adds (runs × T × layers × d_model², roughly) below which the patches run as the view is
// drawn: the induction model's 34 runs are 3.3 M, a Tang poem's 274 are 1,150 M.
const PATCH_AT_ONCE = 50e6;
// layers × heads × d_model² below which the composition and copying scores are computed as the view
// is drawn: the induction model's is 33 K (25 ms). Above it a shipped model's come from its analyses
// worker (the models of real text: 262 K, 0.5 s in Chromium), another model's as the view is drawn up
// to SCORES_AT_ONCE and when asked past it (random blocks at d_model 512: 4.2 M).
const SCORES_HERE = 100e3;
const SCORES_AT_ONCE = 300e3;
// distinct tokens × d_model × vocabulary below which a head's QK and OV tables are drawn with the view.
const HEAD_AT_ONCE = 2e6;
// A composition stands out at this multiple of what two random heads give.
const STANDS_OUT = 1.5;
const fixed = (v, d = 2) => (v >= 0 ? '+' : '−') + Math.abs(v).toFixed(d);
const headName = (l, hd) => `${l}.${hd}`;
const percent = (v) => `${Math.round(v * 100)}%`;

// A cell coloured on the page's diverging scale (red for positive, as every signed table here), its
// ink whichever contrasts more (colors.js).
function cell(v, scale, text, top = false, title = null) {
  const rgb = colorOf(v, { kind: 'diverging', max: scale || 1 });
  return h('td', { class: top ? 'circ-top' : '', title, style: { background: `rgb(${rgb})`, color: inkOn(...rgb) } }, text);
}

function table(caption, cols, rows) {
  // A wide table scrolls in its box, which the keyboard reaches too (a region named as its table).
  return h('div', { class: 'circ-scroll', tabindex: '0', role: 'region', 'aria-label': caption }, h('table', { 'aria-label': caption },
    h('tr', {}, h('td', {}), ...cols.map((c) => h('th', { scope: 'col' }, c))),
    ...rows.map(([label, cells]) => h('tr', {}, h('th', { scope: 'row' }, label), ...cells))));
}

// Which token to change and into what, unless the learner chose: the token after the latest earlier
// copy of the last token (where an induction head finds its answer), else the one before the last;
// into the first token of the vocabulary the text does not hold (a special one skipped).
function candidates(ids, tokenText, vocab) {
  const held = new Set(ids);
  const out = [];
  for (let id = 0; id < vocab && out.length < 12; ++id) {
    const text = tokenText(id);
    if (!held.has(id) && !/^<.*>$|^\s*$/.test(text || 'x')) out.push(id);
  }
  return out;
}
function defaultPosition(ids) {
  const T = ids.length;
  for (let j = T - 2; j >= 1; --j) if (ids[j - 1] === ids[T - 1]) return j;
  return Math.max(0, T - 2);
}

function compositionPart(lang, scores, mode, config, actions) {
  const { layers: L, heads: H } = config;
  const of = scores.composition.filter((c) => c.mode === mode);
  const at = new Map(of.map((c) => [`${c.from}|${c.to}`, c.score]));
  const top = of.reduce((a, b) => (b.score > a.score ? b : a), of[0]);
  const others = scores.composition.filter((c) => c.mode !== mode).reduce((m, c) => Math.max(m, c.score), 0);
  const baseline = scores.baseline[mode];
  // Coloured against the baseline: white where two random heads would be, red above, blue below.
  const scale = Math.max(...of.map((c) => Math.abs(c.score - baseline)));
  const writers = [];
  for (let a = 0; a < L - 1; ++a) for (let i = 0; i < H; ++i) writers.push([a, i]);
  const readers = [];
  for (let b = 1; b < L; ++b) for (let j = 0; j < H; ++j) readers.push([b, j]);
  const rows = writers.map(([a, i]) => [headName(a, i), readers.map(([b, j]) => {
    if (b <= a) return h('td', { class: 'none' });
    const v = at.get(`${a},${i}|${b},${j}`);
    return cell(v - baseline, scale, v.toFixed(2), v === top.score, t(lang, 'circ.compTimes', { r: (v / baseline).toFixed(1) }));
  })]);
  const ratio = top.score / baseline;
  const says = ratio >= STANDS_OUT
    ? t(lang, 'circ.compTop', { mode, a: headName(...top.from), b: headName(...top.to), v: top.score.toFixed(2), r: ratio.toFixed(1), base: baseline.toFixed(2) }) +
      (top.score > others ? `${sentenceGap(lang)}${t(lang, 'circ.compAbove', { mode, o: others.toFixed(2) })}` : '')
    : t(lang, 'circ.compFlat', { mode, v: top.score.toFixed(2), base: baseline.toFixed(2), times: STANDS_OUT });
  const modes = h('div', { class: 'segmented circ-modes', role: 'group', 'aria-label': t(lang, 'circ.modes') },
    ...['Q', 'K', 'V'].map((m) => h('button', { type: 'button', class: 'seg', 'data-circ-mode': m, 'aria-pressed': String(m === mode), onclick: () => actions.setCircuits({ mode: m }) }, t(lang, `circ.mode${m}`))));
  return [h('h4', takesFocus, t(lang, 'circ.compTitle')), h('p', { class: 'hint', html: t(lang, 'circ.compIntro', { base: baseline.toFixed(2) }) }), modes,
    table(t(lang, 'circ.compTitle'), readers.map(([b, j]) => headName(b, j)), rows),
    h('p', { class: 'hint', 'data-circ': 'composition-scale' }, t(lang, 'circ.compScale', { base: baseline.toFixed(2) })),
    h('p', { class: 'caption', 'data-circ': 'composition' }, says)];
}

// One head's circuits over the text (Model.headCircuit): its positional QK (W_pos W_QK W_posᵀ: which
// key position each query position prefers, whatever the tokens), its QK by token (the same through
// the token table: which of the text's tokens each token prefers, wherever they are) and its OV table (the tokens of
// the vocabulary each of the text's tokens raises most when the head attends to it).
function headPart(lang, state, actions, [l, hd], heads) {
  const { result } = state;
  const ids = Array.from(result.ids);
  const picker = h('label', {}, `${t(lang, 'circ.headPick')} `, h('select', { 'data-circ-head': '', onchange: (ev) => actions.setCircuits({ head: ev.target.value.split('.').map(Number) }) },
    ...heads.map(([a, b]) => h('option', { value: `${a}.${b}`, selected: a === l && b === hd }, headName(a, b)))));
  const intro = [h('h4', takesFocus, t(lang, 'circ.headTitle', { head: headName(l, hd) })), h('p', { class: 'hint', html: t(lang, 'circ.headIntro') }), picker];
  // Its OV table reads the whole vocabulary for each of the text's tokens: at once on a small model
  // (the induction model: 7 tokens × 64 × 64), when asked on a model of real text (a poem: 50 tokens ×
  // 128 × 3,003, 60 ms), so typing is not held up by it.
  const { dModel: d, vocabSize: V } = result.config;
  const asked = `${ids.join()}|${l}.${hd}`;
  if (new Set(ids).size * d * V > HEAD_AT_ONCE && state.circuits.headShown !== asked) {
    return [...intro, h('button', { type: 'button', class: 'gen-btn', 'data-circ': 'head-run', onclick: () => actions.setCircuits({ headShown: asked }) }, t(lang, 'circ.headRun', { head: headName(l, hd) }))];
  }
  let c;
  try {
    c = actions.headCircuit(ids, l, hd);
  } catch (e) {
    return [h('p', { class: 'banner', role: 'alert' }, localMessage(storedError(e), lang))];
  }
  const qk = c.qk_positional;
  const T = qk.length;
  // Each query's preferred key among those it may see (j ≤ i), as an offset i − j: the most common.
  const offsets = new Map();
  for (let i = 1; i < T; ++i) {
    let best = 0;
    for (let j = 1; j <= i; ++j) if (qk[i][j] > qk[i][best]) best = j;
    offsets.set(i - best, (offsets.get(i - best) || 0) + 1);
  }
  const [offset, count] = [...offsets].reduce((a, b) => (b[1] > a[1] ? b : a), [0, 0]);
  const scale = Math.max(...qk.flatMap((row, i) => row.slice(0, i + 1).map(Math.abs)));
  const named = idNamer(result, actions);
  const copies = c.tokens.filter((id, k) => c.ov_top[k][0][0] === id).length;
  const labels = tokenLabels(result.tokens);
  // By token (W_E W_QK W_Eᵀ over the text's distinct tokens, positions aside): how many prefer a key
  // of their own token (what a duplicate-token head does), and the strongest pair.
  const byToken = c.qk_token;
  const tokenScale = Math.max(...byToken.flat().map(Math.abs));
  const preferred = byToken.map((row) => row.indexOf(Math.max(...row)));
  const same = preferred.filter((k, q) => k === q).length;
  const strongest = byToken.flatMap((row, q) => row.map((v, k) => [v, q, k])).reduce((a, b) => (b[0] > a[0] ? b : a));
  const tokenNames = c.tokens.map(named);
  return [...intro,
    table(t(lang, 'circ.qkTitle'), labels,
      qk.map((row, i) => [labels[i], row.map((v, j) => (j > i ? h('td', { class: 'none' }) : cell(v, scale, v.toFixed(1))))])),
    h('p', { class: 'caption', 'data-circ': 'qk' }, t(lang, 'circ.qkSay', { head: headName(l, hd), k: offset, n: count, T: T - 1 })),
    table(t(lang, 'circ.qkTokenTitle'), tokenNames,
      byToken.map((row, q) => [tokenNames[q], row.map((v, k) => cell(v, tokenScale, v.toFixed(1), k === preferred[q]))])),
    h('p', { class: 'caption', 'data-circ': 'qk-token' }, t(lang, 'circ.qkTokenSay', {
      head: headName(l, hd), n: same, of: c.tokens.length, q: tokenNames[strongest[1]], k: tokenNames[strongest[2]], v: strongest[0].toFixed(1),
    })),
    table(t(lang, 'circ.ovTitle'), [t(lang, 'circ.raises')], c.tokens.map((id, k) => [named(id), [h('td', { style: { textAlign: 'left' } },
      c.ov_top[k].map(([to, v]) => `${named(to)} ${fixed(v, 1)}`).join('  '))]])),
    h('p', { class: 'caption', 'data-circ': 'ov' }, t(lang, 'circ.ovSay', { head: headName(l, hd), n: copies, of: c.tokens.length }))];
}

function copyingPart(lang, scores, config) {
  const rows = scores.copying.reduce((acc, c) => {
    (acc[c.layer] = acc[c.layer] || []).push(c);
    return acc;
  }, []);
  const copying = scores.copying.filter((c) => c.score >= 0.9).map((c) => headName(c.layer, c.head));
  return [h('h4', {}, t(lang, 'circ.copyTitle')), h('p', { class: 'hint', html: t(lang, 'circ.copyIntro') }),
    table(t(lang, 'circ.copyTitle'), Array.from({ length: config.heads }, (_, j) => t(lang, 'circ.head', { h: j })),
      rows.map((row, l) => [t(lang, 'circ.layer', { l }), row.map((c) => cell(c.score, 1, fixed(c.score)))])),
    h('p', { class: 'caption', 'data-circ': 'copying' }, copying.length ? t(lang, 'circ.copyHeads', { heads: copying.join(', ') }) : t(lang, 'circ.copyNone'))];
}

function patchingPart(lang, state, actions) {
  const { result } = state;
  const ids = Array.from(result.ids);
  const config = result.config;
  const chosen = state.circuits.forIds === ids.join() ? state.circuits : {};
  const position = chosen.position ?? defaultPosition(ids);
  const options = candidates(ids, actions.tokenText, config.vocabSize);
  // (a text that holds every id of the vocabulary: the next id)
  const replacement = chosen.replacement ?? options[0] ?? (ids[position] + 1) % config.vocabSize;
  const named = idNamer(result, actions);
  const pick = (patch) => actions.setCircuits({ position, replacement, ...patch, forIds: ids.join() });
  const tokens = h('div', { class: 'circ-tokens', role: 'group', 'aria-label': t(lang, 'circ.pick') },
    ...result.tokens.slice(0, -1).map((tok, i) => h('button', { type: 'button', class: 'gen-btn', 'data-circ-position': i, 'aria-pressed': String(i === position), title: `${i}`, onclick: () => pick({ position: i }) }, visibleToken(tok))));
  const select = h('select', { 'data-circ-replacement': '', onchange: (ev) => pick({ replacement: Number(ev.target.value) }) },
    ...options.map((id) => h('option', { value: id, selected: id === replacement }, named(id))));
  const out = [h('h4', takesFocus, t(lang, 'circ.patchTitle')), h('p', { class: 'hint', html: t(lang, 'circ.patchIntro') }), tokens,
    h('label', {}, `${t(lang, 'circ.into', { token: visibleToken(result.tokens[position]) })} `, select)];
  const corrupt = ids.slice();
  corrupt[position] = replacement;
  // 2 + L·H + L·T runs of the model: at once while they take a few milliseconds (the induction model:
  // 34 runs of 12 tokens), else when asked and off the main thread (a model of real text on a poem:
  // 274 runs of 64 tokens, about a second and a half), saying that it runs until it is done.
  const { layers: L, heads: H, dModel: d } = config;
  const runs = 2 + L * H + L * ids.length;
  const asked = `${state.settings.model}|${ids.join()}|${position}|${replacement}`;
  const failed = (e) => [...out, h('p', { class: 'banner', role: 'alert', 'data-circ': 'patch-error' }, localMessage(e, lang))];
  let r;
  if (runs * ids.length * L * d * d > PATCH_AT_ONCE) {
    if (state.circuits.ran !== asked) {
      return [...out, h('button', { type: 'button', class: 'gen-btn', 'data-circ': 'run', onclick: () => actions.setCircuits({ ran: asked }) }, t(lang, 'circ.run', { n: runs }))];
    }
    const done = state.circuits.patched;
    if (!done || done.asked !== asked) {
      actions.patchInBackground(asked, ids, corrupt);
      return [...out, h('p', { class: 'hint', role: 'status', 'data-circ': 'patching' }, t(lang, 'circ.patching', { n: runs }))];
    }
    if (done.error) return failed(done.error);
    r = done.result;
  } else {
    try {
      r = actions.patch(ids, corrupt);
    } catch (e) {
      return failed(storedError(e));
    }
  }
  const heads = Array.from({ length: L }, (_, l) => r.heads.filter((x) => x.layer === l));
  const best = r.heads.reduce((a, b) => (b.recovery > a.recovery ? b : a));
  const layerSum = heads.map((row) => row.reduce((s, x) => s + x.recovery, 0));
  const bestLayer = layerSum.indexOf(Math.max(...layerSum));
  const residual = Array.from({ length: L }, (_, l) => r.residual.filter((x) => x.layer === l));
  const T = ids.length;
  const last = residual[L - 1];
  const carrier = last.reduce((a, b) => (b.recovery > a.recovery ? b : a));
  out.push(
    h('p', { 'data-circ': 'metric' }, t(lang, 'circ.metric', { answer: named(r.answer), wrong: named(r.wrong), clean: fixed(r.m_clean), corrupt: fixed(r.m_corrupt) })),
    table(t(lang, 'circ.headsTitle'), Array.from({ length: H }, (_, j) => t(lang, 'circ.head', { h: j })),
      heads.map((row, l) => [t(lang, 'circ.layer', { l }), row.map((x) => cell(x.recovery, 1, percent(x.recovery), x === best))])),
    h('p', { class: 'caption', 'data-circ': 'heads' }, t(lang, 'circ.headsSay', { head: headName(best.layer, best.head), v: percent(best.recovery), l: bestLayer, sum: percent(layerSum[bestLayer]) })),
    table(t(lang, 'circ.residualTitle'), tokenLabels(result.tokens),
      residual.map((row, l) => [t(lang, 'circ.entering', { l }), row.map((x) => cell(x.recovery, 1, percent(x.recovery)))])),
    h('p', { class: 'caption', 'data-circ': 'residual' }, t(lang, carrier.position === T - 1 ? 'circ.residualLast' : 'circ.residualSay', { p: carrier.position, token: visibleToken(result.tokens[carrier.position]), l: L - 1, v: percent(carrier.recovery) })));
  return out;
}

// The view in three sections, each drawn again only when what it shows changes (attend.js keys
// them): the scores (composition and copying), one head's circuits, and the patching.
const section = (name, ...children) => h('section', { class: 'circuits', 'data-circuits': name }, h('style', {}, css), ...children);

// The scores at once for a small model (the induction model 25 ms), from the analyses worker for a
// shipped one (a model of real text: coming: true until they are here), when asked for another large
// one (random blocks at d_model 512: 3.8 s); null until asked.
function scoresOf(state, actions, compute) {
  const { layers: L, heads: H, dModel: d } = state.result.config;
  const model = [state.settings.model, state.settings.file, state.settings.seed, L, H, d].join();
  const cost = L * H * d * d;
  if (cost > SCORES_HERE) {
    const scores = actions.circuitsInWorker(compute);
    if (scores !== undefined) return { scores, model, coming: scores === null };
  }
  const now = cost <= SCORES_AT_ONCE || state.circuits.scored === model;
  return { scores: actions.circuits(compute && now), model };
}

export function scoresPanel(state, actions) {
  const { lang, result } = state;
  const panel = section('scores', h('h3', {}, t(lang, 'circ.title')));
  try {
    const { scores, model, coming } = scoresOf(state, actions, true);
    if (scores) panel.append(...compositionPart(lang, scores, state.circuits.mode, result.config, actions), ...copyingPart(lang, scores, result.config));
    else if (coming) panel.append(h('p', { class: 'hint', 'data-circ': 'scoring' }, t(lang, 'circ.scoring')));
    else panel.append(h('button', { type: 'button', class: 'gen-btn', 'data-circ': 'score', onclick: () => actions.setCircuits({ scored: model }) }, t(lang, 'circ.score')));
  } catch (e) {
    panel.append(h('p', { class: 'banner', role: 'note', 'data-circ': 'scores-error' }, localMessage(storedError(e), lang)));
  }
  return panel;
}

// The head shown in full: the learner's, else the strongest composition's writer (on the induction
// model the previous-token head, whose QK is the i − 1 stripe). Nothing until the scores are here.
export function headPanel(state, actions) {
  let scores = null;
  try {
    scores = scoresOf(state, actions, false).scores;
  } catch (e) {
    // said by the scores' section
  }
  if (!scores) return section('head');
  const top = scores.composition.filter((x) => x.mode === state.circuits.mode).reduce((a, b) => (b.score > a.score ? b : a));
  const heads = scores.copying.map((x) => [x.layer, x.head]);
  return section('head', ...headPart(state.lang, state, actions, state.circuits.head || top.from, heads));
}

export const patchPanel = (state, actions) => section('patch', ...patchingPart(state.lang, state, actions));
