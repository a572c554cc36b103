// Stage 5 picture: every head's T × T map side by side (weights or scores), the causal mask
// hatched, one head enlarged with numbers and row sums, then head_out and the worked example.
import { h } from '../dom.js';
import { heatmap, legend } from './heatmap.js';
import { tensorCard } from './tensorCard.js';
import { headTiles } from './tiles.js';
import { maxAbs, headColor } from './colors.js';
import { workedView } from './worked.js';
import { t } from '../i18n.js';
import { tokenLabels } from './matrix.js';
import { exportButtons, figureBase, plainText } from './exportButtons.js';

const DOM_LIMIT = 400; // cells; larger maps are drawn on canvas
const NUMBERS_T = 16; // print numbers in the enlarged head up to this many tokens

function scaleFor(mode, tensor) {
  // Weights use 0 … their largest value, so the pattern of an untrained model is still visible.
  return mode === 'weights' ? { kind: 'sequential', max: maxAbs(tensor.data) || 1 } : { kind: 'diverging', max: maxAbs(tensor.data) };
}

function modeToggle(state, actions) {
  const { lang, attendMode } = state;
  const button = (mode, key) =>
    h('button', { type: 'button', class: 'seg', 'aria-pressed': String(attendMode === mode), 'data-attend-mode': mode, onclick: () => actions.setAttendMode(mode) }, t(lang, key));
  return h('div', { class: 'segmented', role: 'group' }, button('weights', 'attend.showWeights'), button('scores', 'attend.showScores'));
}

function headGrid(state, actions, name, tensor, scale, masked) {
  const { result, lang, head: selected } = state;
  const [, H, T] = tensor.shape;
  const tiles = [];
  for (let hd = 0; hd < H; hd++) {
    const map = heatmap({
      tensor: name,
      data: tensor.data,
      offset: hd * T * T,
      rows: T,
      cols: T,
      index: (r, c) => [0, hd, r, c],
      describe: (r, c) => t(lang, 'attend.queryKey', { q: `${r} “${result.tokens[r]}”`, k: `${c} “${result.tokens[c]}”` }),
      scale,
      masked,
      maskedNote: t(lang, 'maskedNote'),
      square: true,
      dom: T * T <= DOM_LIMIT,
    });
    tiles.push(
      h(
        'button',
        {
          type: 'button',
          class: `head-tile${hd === selected ? ' selected' : ''}`,
          'data-head': String(hd),
          'aria-pressed': String(hd === selected),
          style: { '--head': headColor(hd) },
          onclick: () => actions.selectHead(hd),
        },
        h('span', { class: 'tile-head' }, t(lang, 'head', { h: hd })),
        map,
      ),
    );
  }
  return tensorCard({
    name,
    shape: tensor.shape,
    caption: t(lang, `cap.${name}`),
    axis: t(lang, 'attend.gridHint'),
    body: h('div', { class: 'head-grid' }, tiles),
    legend: legend(scale, { maskedLabel: masked ? t(lang, 'maskedLegend') : null }),
    figure: {
      lang,
      state,
      note: t(lang, 'attend.figureNote'),
      make: () => ({
        panels: Array.from({ length: H }, (_, hd) => ({
          label: t(lang, 'head', { h: hd }),
          color: headColor(hd),
          rows: T,
          cols: T,
          value: (r, c) => tensor.data[(hd * T + r) * T + c],
          masked,
        })),
        colLabels: result.tokens,
        square: true,
        scale,
        maskedLabel: masked ? t(lang, 'maskedLegend') : null,
      }),
    },
  });
}

function headDetail(state, name, tensor, scale, masked) {
  const { result, lang, attendMode } = state;
  const [, H, T] = tensor.shape;
  const hd = Math.min(state.head, H - 1);
  const off = hd * T * T;
  const labels = tokenLabels(result.tokens);
  const numbers = T <= NUMBERS_T;
  const rowSums =
    attendMode === 'weights'
      ? (r) => {
          let s = 0;
          for (let c = 0; c < T; c++) s += tensor.data[off + r * T + c];
          return `Σ = ${s.toFixed(3)}`;
        }
      : (r) => {
          let m = -Infinity;
          for (let c = 0; c < T; c++) m = Math.max(m, tensor.data[off + r * T + c]);
          return `max ${m.toFixed(3)}`;
        };
  const map = heatmap({
    tensor: name,
    data: tensor.data,
    offset: off,
    rows: T,
    cols: T,
    index: (r, c) => [0, hd, r, c],
    describe: (r, c) => t(lang, 'attend.queryKey', { q: `${r} “${result.tokens[r]}”`, k: `${c} “${result.tokens[c]}”` }),
    rowLabels: labels,
    colLabels: numbers ? result.tokens : null,
    scale,
    masked,
    maskedNote: t(lang, 'maskedNote'),
    dom: numbers,
    numbers,
    rowSums: numbers ? rowSums : undefined,
    sumLabel: attendMode === 'weights' ? t(lang, 'attend.rowSum') : t(lang, 'attend.rowMax'),
  });
  return h(
    'div',
    { class: 'head-detail', 'data-selected-head': String(hd), style: { '--head': headColor(hd) } },
    h(
      'h3',
      { class: 'sub-title' },
      t(lang, 'attend.detail', { h: hd }),
      h('span', { class: 'shape' }, `(${T} × ${T})`),
      exportButtons(lang, `${name} · ${t(lang, 'head', { h: hd })}`, () => ({
        ...figureBase(state),
        name,
        file: `${name}-head${hd}`,
        shape: tensor.shape,
        caption: plainText(t(lang, `cap.${name}`)),
        note: `${t(lang, 'head', { h: hd })} · (${T} × ${T}) · ${t(lang, 'attend.figureNote')}`,
        panels: [{
          label: t(lang, 'head', { h: hd }),
          color: headColor(hd),
          rows: T,
          cols: T,
          value: (r, c) => tensor.data[off + r * T + c],
          masked,
          rowNotes: numbers ? rowSums : undefined,
        }],
        colLabels: result.tokens,
        square: true,
        numbers,
        scale,
        maskedLabel: masked ? t(lang, 'maskedLegend') : null,
      })),
    ),
    map,
  );
}

// The attend picture as parts, each with what it is drawn from: on a change only the parts whose
// inputs changed are rebuilt and the others stay in the DOM untouched (no new style, layout or
// paint for them): a new result keeps the toggle and the worked example, a click on a head keeps
// head_out and the worked example.
export function attendParts(state, actions) {
  const { result, lang, attendMode } = state;
  const name = attendMode === 'scores' ? 'scores' : 'weights';
  const causal = result.config.causal;
  const picture = () => {
    const tensor = result.tensors[name];
    const scale = scaleFor(attendMode, tensor);
    const masked = causal ? (r, c) => c > r : null;
    return { tensor, scale, masked };
  };
  return [
    { key: [lang, attendMode, causal], make: () => h('div', { class: 'attend-bar' }, modeToggle(state, actions), h('p', { class: 'mask-note' }, t(lang, causal ? 'attend.maskOn' : 'attend.maskOff'))) },
    { key: [result, lang, attendMode, state.head], make: () => { const p = picture(); return headGrid(state, actions, name, p.tensor, p.scale, p.masked); } },
    { key: [result, lang, attendMode, state.head], make: () => { const p = picture(); return headDetail(state, name, p.tensor, p.scale, p.masked); } },
    { key: [result, lang], make: () => headTiles(state, 'head_out', { caption: t(lang, 'cap.head_out') }) },
    { key: [state.worked, lang], make: () => workedView(state) },
  ];
}

export function attendView(state, actions) {
  return h('div', { class: 'stack' }, attendParts(state, actions).map((p) => p.make()));
}
