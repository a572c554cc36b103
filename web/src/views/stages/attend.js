// The attend picture: every head's T × T map side by side (weights or scores), the causal mask
// hatched, one head enlarged with numbers and row sums, then head_out and the worked example.
// Every part is live: a new seed, the causal mask or another head selected is drawn into the DOM
// already there (canvases repainted, numbers rewritten), with no node added and so no new layout.
import { h, live, setText } from '../../dom.js';
import { heatmap, legend, updateHeatmap, updateLegend } from '../parts/heatmap.js';
import { tensorCard, setCardShape } from '../parts/tensorCard.js';
import { headTiles } from '../parts/tiles.js';
import { maxAbs, headColor, headHex } from '../parts/colors.js';
import { workedView } from './worked.js';
import { t } from '../../i18n.js';
import { tokenLabels, tokenName, visibleToken } from '../../format.js';
import { exportButtons, relabelExport, figureBase, plainText } from '../parts/exportButtons.js';
import { structureOf, modelOf } from '../parts/structure.js';
import { headsPanel } from './heads.js';
import { pruningPanel } from './pruning.js';
import { fromPart } from '../parts/fromPart.js';
import { hasBlocks, recalls } from '../../modelFacts.js';

// How the heads connect (circuits.js): its sections, drawn by the widget's part 'circuits' when it has come.
const circuitsView = Object.fromEntries(['scoresPanel', 'headPanel', 'patchPanel'].map((name) => [name, fromPart('circuits', (part, state, actions) => part[name](state, actions))]));
import { causalControl } from '../../attributes.js';
import { heldoutOf } from '../../heldout.js';

const NUMBERS_T = 16; // print numbers in the enlarged head up to this many tokens

function scaleFor(mode, tensor) {
  // Weights use 0 … their largest value, so the pattern of an untrained model is still visible.
  return mode === 'weights' ? { kind: 'sequential', max: maxAbs(tensor.data) || 1 } : { kind: 'diverging', max: maxAbs(tensor.data) };
}

// What the maps of the current state show: the tensor, its colour scale and the mask.
function picture(state) {
  // Three steps: the raw scores (every entry, the future too), the mask applied, the softmax.
  const name = { raw: 'raw_scores', scores: 'scores' }[state.attendMode] || 'weights';
  const tensor = state.result.tensors[name];
  const masked = state.result.config.causal && name !== 'raw_scores' ? (r, c) => c > r : null;
  return { name, tensor, scale: scaleFor(state.attendMode, tensor), masked };
}

// The DOM of a part is drawn from the structure and the weights-or-scores choice.
const structureKey = (state) => `${structureOf(state)}|${state.attendMode}`;

// The sentence under the buttons says whether the mask is on. Both sentences are in the bar, in one
// grid cell, the other one invisible: the bar is as high as the longer one either way, so turning
// the mask on or off moves nothing below it (a move by a fraction of a pixel changes the head maps'
// device-pixel size, and a canvas given a new size costs a new buffer and a redraw in the frame).
function attendBar(state, actions) {
  const { lang, attendMode } = state;
  const button = (mode, key) =>
    h('button', { type: 'button', class: 'seg', 'aria-pressed': String(attendMode === mode), 'data-attend-mode': mode, onclick: () => actions.setAttendMode(mode) }, t(lang, key));
  const on = h('span', {}, t(lang, 'attend.maskOn'));
  const off = h('span', {}, t(lang, causalControl(state) ? 'attend.maskOff' : 'attend.maskOffNoControl'));
  const show = (causal) => {
    for (const [el, shown] of [[on, causal], [off, !causal]]) {
      if (shown) el.removeAttribute('aria-hidden');
      else el.setAttribute('aria-hidden', 'true');
    }
  };
  show(state.result.config.causal);
  const note = h('p', { class: 'mask-note' }, on, off);
  const bar = h('div', { class: 'attend-bar' }, h('div', { class: 'segmented', role: 'group' }, button('raw', 'attend.showRaw'), button('scores', 'attend.showScores'), button('weights', 'attend.showWeights')), note);
  return live(bar, (s) => {
    if (s.lang !== lang || s.attendMode !== attendMode) return false;
    show(s.result.config.causal);
    return true;
  });
}

// The head maps are drawn from the model and the language alone: another text (T, tokens) is drawn
// into the same canvases too, so typing does not build eight new ones.
const gridKey = (state) => JSON.stringify([state.lang, state.attendMode, modelOf(state.result)]);

function headGrid(state, actions) {
  const { lang } = state;
  const built = gridKey(state);
  const cur = { ...picture(state), state };
  const { name } = cur;
  const H = cur.tensor.shape[1];
  const T = () => cur.tensor.shape[2];
  const tokens = () => cur.state.result.tokens.map(visibleToken); // as drawn: a line break ↵
  const maskedLabel = () => (cur.masked ? t(lang, 'maskedLegend') : null);
  const tiles = [];
  const maps = [];
  // Grouped-query attention: the query heads that share a K/V head sit side by side, under one bar in
  // that K/V head's colour (the split stage's colours), named in each tile.
  const { heads, kvHeads } = state.result.config;
  const group = heads / kvHeads;
  for (let hd = 0; hd < H; hd++) {
    // A canvas per head: T·T cells as DOM nodes made every change a large layout.
    const map = heatmap({
      tensor: name,
      data: cur.tensor.data,
      offset: hd * T() * T(),
      rows: T(),
      cols: T(),
      index: (r, c) => [0, hd, r, c],
      describe: (r, c) => t(lang, 'attend.queryKey', { q: `${r} “${tokens()[r]}”`, k: `${c} “${tokens()[c]}”` }),
      scale: cur.scale,
      masked: cur.masked,
      maskedNote: t(lang, 'maskedNote'),
      square: true,
      lang,
      title: t(lang, 'head', { h: hd }),
      rowName: (r) => tokenName(tokens(), r),
      colName: (c) => tokenName(tokens(), c),
      strongest: name === 'weights',
    });
    maps.push(map);
    // The tile is not a button: a button may not hold the map, which takes the keyboard itself.
    // Its title is the button; a click anywhere on the tile selects the head too.
    const pick = h('button', { type: 'button', class: 'tile-head', 'aria-pressed': 'false' }, t(lang, 'head', { h: hd }));
    const g = Math.floor(hd / group);
    tiles.push(h('div', {
      class: `head-tile${group > 1 ? ' kv-grouped' : ''}`,
      'data-head': String(hd),
      'data-kv-group': group > 1 ? String(g) : null,
      style: { '--head': headColor(hd), '--kv': headColor(g * group) },
      onclick: (e) => {
        actions.selectHead(hd);
        // the enlarged map is under the heads table: show it (the tile's caption promises it)
        const section = e.currentTarget.closest('section');
        requestAnimationFrame(() => {
          const detail = section && section.querySelector('.head-detail');
          if (detail) scrollIntoSight(detail);
        });
      },
    }, pick, group > 1 ? h('span', { class: 'tile-kv' }, t(lang, 'kvHead', { g })) : null, map));
  }
  let selected = -1;
  const select = (hd) => {
    if (hd === selected) return;
    for (const i of [selected, hd]) {
      if (!tiles[i]) continue;
      tiles[i].classList.toggle('selected', i === hd);
      tiles[i].firstChild.setAttribute('aria-pressed', String(i === hd));
    }
    selected = hd;
  };
  select(state.head);
  const key = legend(cur.scale, { maskedLabel: maskedLabel() });
  const figure = {
    lang,
    state,
    note: t(lang, 'attend.figureNote'),
    make: () => ({
      panels: Array.from({ length: H }, (_, hd) => ({
        label: t(lang, 'head', { h: hd }),
        color: headHex(hd),
        rows: T(),
        cols: T(),
        value: (r, c) => cur.tensor.data[(hd * T() + r) * T() + c],
        masked: cur.masked,
      })),
      colLabels: tokens(),
      square: true,
      scale: cur.scale,
      maskedLabel: maskedLabel(),
    }),
  };
  const card = tensorCard({
    name,
    shape: cur.tensor.shape,
    caption: t(lang, `cap.${name}`),
    axis: t(lang, 'attend.gridHint'),
    body: h('div', { class: 'head-grid' }, tiles),
    legend: key,
    figure,
  });
  return live(card, (s) => {
    if (gridKey(s) !== built) return false;
    Object.assign(cur, picture(s), { state: s });
    figure.state = s;
    const n = T();
    maps.forEach((map, hd) => updateHeatmap(map, { data: cur.tensor.data, offset: hd * n * n, rows: n, cols: n, rowStride: n, scale: cur.scale, masked: cur.masked }));
    setCardShape(card, cur.tensor.shape);
    updateLegend(key, cur.scale, { maskedLabel: maskedLabel() });
    select(s.head);
    return true;
  });
}

// Scrolls the least that shows `el` whole (its start, when it is taller than the view), clear of the
// demo's part that sticks to the top (its scroll margins: widget.css); smoothly unless the reader
// asked for less motion.
function scrollIntoSight(el) {
  const still = typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
  el.scrollIntoView({ block: 'nearest', behavior: still ? 'auto' : 'smooth' });
}

// The enlarged head is drawn from the model, the language, the weights-or-scores choice and whether
// it prints numbers: another text (T, tokens) within that is drawn into the same grid, relabelled.
const detailKey = (state) => JSON.stringify([gridKey(state), state.result.tokens.length <= NUMBERS_T]);

function headDetail(state) {
  const { lang, attendMode } = state;
  const built = detailKey(state);
  const cur = picture(state);
  const { name } = cur;
  const H = cur.tensor.shape[1];
  const T = () => cur.tensor.shape[2];
  const tokens = () => cur.state.result.tokens.map(visibleToken); // as drawn: a line break ↵
  cur.hd = Math.min(state.head, H - 1);
  cur.state = state;
  const numbers = T() <= NUMBERS_T;
  const at = (r, c) => cur.tensor.data[(cur.hd * T() + r) * T() + c];
  const rowSums =
    attendMode === 'weights'
      ? (r) => {
          let s = 0;
          for (let c = 0; c < T(); c++) s += at(r, c);
          return `Σ = ${s.toFixed(3)}`;
        }
      : (r) => {
          let m = -Infinity;
          for (let c = 0; c < T(); c++) m = Math.max(m, at(r, c));
          return `max ${m.toFixed(3)}`;
        };
  const map = heatmap({
    tensor: name,
    data: cur.tensor.data,
    offset: cur.hd * T() * T(),
    rows: T(),
    cols: T(),
    index: (r, c) => [0, cur.hd, r, c],
    describe: (r, c) => t(lang, 'attend.queryKey', { q: `${r} “${tokens()[r]}”`, k: `${c} “${tokens()[c]}”` }),
    rowLabels: tokenLabels(tokens()),
    colLabels: numbers ? tokens() : null,
    lang,
    title: t(lang, 'head', { h: cur.hd }),
    rowName: (r) => tokenName(tokens(), r),
    colName: (c) => tokenName(tokens(), c),
    strongest: name === 'weights',
    scale: cur.scale,
    masked: cur.masked,
    maskedNote: t(lang, 'maskedNote'),
    numbers,
    rowSums: numbers ? rowSums : undefined,
    sumLabel: attendMode === 'weights' ? t(lang, 'attend.rowSum') : t(lang, 'attend.rowMax'),
  });
  const exportName = () => `${name} · ${t(lang, 'head', { h: cur.hd })}`;
  const exports = exportButtons(lang, exportName(), () => ({
    ...figureBase(cur.state),
    name,
    file: `${name}-head${cur.hd}`,
    shape: cur.tensor.shape,
    caption: plainText(t(lang, `cap.${name}`)),
    note: `${t(lang, 'head', { h: cur.hd })} · (${T()} × ${T()}) · ${t(lang, 'attend.figureNote')}`,
    panels: [{
      label: t(lang, 'head', { h: cur.hd }),
      color: headHex(cur.hd),
      rows: T(),
      cols: T(),
      value: at,
      masked: cur.masked,
      rowNotes: numbers ? rowSums : undefined,
    }],
    colLabels: tokens(),
    square: true,
    numbers,
    scale: cur.scale,
    maskedLabel: cur.masked ? t(lang, 'maskedLegend') : null,
  }));
  const title = document.createTextNode(t(lang, 'attend.detail', { h: cur.hd }));
  const shape = h('span', { class: 'shape' }, `(${T()} × ${T()})`);
  const detail = h(
    'div',
    { class: 'head-detail', 'data-selected-head': String(cur.hd), style: { '--head': headColor(cur.hd) } },
    h('h3', { class: 'sub-title' }, title, shape, exports),
    map,
  );
  let shown = tokens().join('\n'); // the tokens the labels show
  return live(detail, (s) => {
    if (detailKey(s) !== built) return false;
    const hd = Math.min(s.head, H - 1);
    Object.assign(cur, picture(s), { state: s });
    if (hd !== cur.hd) {
      cur.hd = hd;
      title.data = t(lang, 'attend.detail', { h: hd });
      detail.dataset.selectedHead = String(hd);
      detail.style.setProperty('--head', headColor(hd));
      relabelExport(exports, lang, exportName());
    }
    const n = T();
    const patch = { data: cur.tensor.data, offset: hd * n * n, scale: cur.scale, masked: cur.masked, title: t(lang, 'head', { h: hd }) };
    if (tokens().join('\n') !== shown) {
      shown = tokens().join('\n');
      setText(shape, `(${n} × ${n})`);
      Object.assign(patch, { rows: n, cols: n, rowStride: n, rowLabels: tokenLabels(tokens()), colLabels: numbers ? tokens() : null });
    }
    updateHeatmap(map, patch);
    return true;
  });
}

// The attend picture as parts, each with what it is drawn from: on a change only the parts whose
// inputs changed are touched, and those show the new state in their own DOM where they can
// (a new result, another head); a new language or weights-or-scores choice rebuilds them. The parts
// under the maps are lazy: scrolled out of view, they follow just after the change (sections.js).
export function attendParts(state, actions) {
  const { result, lang, attendMode } = state;
  const trained = state.settings.model === 'trained';
  const heldout = heldoutOf(state.settings.model);
  const heldoutCurve = heldout && heldout.curve;
  const c = state.circuits;
  return [
    { key: [lang, attendMode, result.config.causal], make: () => attendBar(state, actions) },
    { key: [result, lang, attendMode, state.head], make: () => headGrid(state, actions) },
    { key: [result, lang, state.importance], make: () => headsPanel(state, actions), lazy: true },
    // the head a tile's click enlarged, under the table that names the heads (the tiles above it stay
    // in view while the table is read: pointing at a row marks them)
    { key: [result, lang, attendMode, state.head], make: () => headDetail(state), lazy: true },
    // the trained model's: its task is known, so what losing its heads costs is measured; a shipped
    // model of real text's, measured on its held-out text when it was trained (another model has
    // none: one key for all its states, so nothing is made again)
    trained
      ? { key: [state.pruning, result, lang], make: () => pruningPanel(state, actions), lazy: true }
      : heldoutCurve
        ? { key: [heldoutCurve, result, lang], make: () => pruningPanel(state, actions, heldoutCurve, heldout.types), lazy: true }
        : { key: [null], make: () => null },
    // a model with blocks that predicts the next token: how its heads connect (the part 'circuits'),
    // in three sections, each drawn again for what it shows (another token patched redraws only that)
    ...(hasBlocks(result.config) && !recalls(result.config)
      ? [
        { key: [result, lang, c.mode, c.scored, c.scoresCame], make: () => circuitsView.scoresPanel(state, actions), lazy: true },
        { key: [result, lang, c.mode, c.scored, c.scoresCame, c.head, c.headShown], make: () => circuitsView.headPanel(state, actions), lazy: true },
        { key: [result, lang, c.position, c.replacement, c.forIds, c.ran, c.patched], make: () => circuitsView.patchPanel(state, actions), lazy: true },
      ]
      : [{ key: [null], make: () => null }, { key: [null], make: () => null }, { key: [null], make: () => null }]),
    { key: [result, lang], make: () => headTiles(state, 'head_out', { caption: t(lang, 'cap.head_out') }), lazy: true },
    { key: [state.worked, lang], make: () => workedView(state) },
  ];
}

export function attendView(state, actions) {
  return h('div', { class: 'stack' }, attendParts(state, actions).map((p) => p.make()));
}
