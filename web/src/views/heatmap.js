// A labelled heatmap of one 2-D slice of a tensor. Small slices with printed numbers are DOM grids;
// everything else is a <canvas> painted pixel by pixel (ImageData) at device-pixel resolution.
import { h } from '../dom.js';
import { num, cellNum } from '../format.js';
import { lutOf, lutIndex, cssColor, inkFor, gradientCss, MASKED_LIGHT, MASKED_DARK, headColor } from './colors.js';
import { observeCanvas } from './canvasRegistry.js';
import { showTip, hideTip } from './tooltip.js';

// opts: {tensor, data, rows, cols, offset, rowStride, colStride, index(r,c) -> number[],
//        rowLabels, colLabels, scale, masked(r,c), numbers, bands {size, count}, rowHeight,
//        square, rowSums(r) -> string, describe(r,c) -> string, sumLabel}
export function heatmap(opts) {
  const o = { offset: 0, colStride: 1, ...opts };
  if (o.rowStride === undefined) o.rowStride = o.cols * o.colStride;
  o.value = (r, c) => o.data[o.offset + r * o.rowStride + c * o.colStride];
  return o.dom || o.numbers ? domGrid(o) : canvasMap(o);
}

function tipLines(o, r, c) {
  const v = o.value(r, c);
  const lines = [`${o.tensor}[${o.index(r, c).join(', ')}] = ${num(v)}`];
  const extra = o.describe && o.describe(r, c);
  if (extra) lines.push(extra);
  if (o.masked && o.masked(r, c)) lines.push(o.maskedNote || 'masked');
  return lines;
}

function rowLabelColumn(o, rowHeight) {
  if (!o.rowLabels) return null;
  return h(
    'div',
    { class: 'hm-rowlabels', 'aria-hidden': 'true' },
    o.rowLabels.map((t, i) =>
      h('div', { class: 'hm-rowlabel', style: { height: `${rowHeight}px`, lineHeight: `${rowHeight}px`, fontSize: `${Math.min(13, Math.max(8, rowHeight - 4))}px` }, title: t }, rowHeight >= 9 ? t : ''),
    ),
  );
}

function bandBar(o) {
  if (!o.bands) return null;
  const { count, label } = o.bands;
  return h(
    'div',
    { class: 'hm-bands', 'aria-hidden': 'true' },
    Array.from({ length: count }, (_, i) =>
      h('div', { class: 'hm-band', style: { background: headColor(o.bands.color ? o.bands.color(i) : i) }, title: label ? label(i) : '' }, count <= 32 ? (label ? label(i) : String(i)) : ''),
    ),
  );
}

export function rowHeightFor(rows) {
  if (rows <= 16) return 22;
  if (rows <= 32) return 16;
  if (rows <= 64) return 10;
  return Math.max(2, Math.floor(640 / rows));
}

function canvasMap(o) {
  const rowHeight = o.rowHeight || rowHeightFor(o.rows);
  const canvas = h('canvas', { class: 'hm-canvas', role: 'img', 'aria-label': `${o.tensor} heatmap, ${o.rows} × ${o.cols}` });
  if (o.square) canvas.style.aspectRatio = `${o.cols} / ${o.rows}`;
  else canvas.style.height = `${o.rows * rowHeight}px`;

  observeCanvas(canvas, (W, H) => paint(canvas, o, W, H));

  const cellAt = (ev) => {
    const rect = canvas.getBoundingClientRect();
    const c = Math.floor(((ev.clientX - rect.left) / rect.width) * o.cols);
    const r = Math.floor(((ev.clientY - rect.top) / rect.height) * o.rows);
    if (r < 0 || c < 0 || r >= o.rows || c >= o.cols) return null;
    return [r, c];
  };
  canvas.addEventListener('mousemove', (ev) => {
    const cell = cellAt(ev);
    if (cell) showTip(tipLines(o, cell[0], cell[1]), ev.clientX, ev.clientY, canvas);
    else hideTip();
  });
  canvas.addEventListener('mouseleave', hideTip);

  return h(
    'div',
    { class: 'hm hm-canvas-wrap' },
    o.bands ? h('div', { class: 'hm-row' }, o.rowLabels ? h('div', { class: 'hm-rowlabels hm-spacer' }, o.rowLabels.map(() => null)) : null, bandBar(o)) : null,
    h('div', { class: 'hm-row' }, rowLabelColumn(o, rowHeight), h('div', { class: 'hm-plot' }, canvas)),
  );
}

// Pixels are written as 32-bit words (little-endian RGBA: every browser's byte order). Each data row
// is turned into one line of pixels once, then copied down the rows of pixels it covers.
const rgba = (r, g, b) => ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
const WHITE = rgba(255, 255, 255);
const BAND = rgba(40, 44, 56);
const HATCH_DARK = rgba(...MASKED_DARK);
const HATCH_LIGHT = rgba(...MASKED_LIGHT);
const luts32 = new WeakMap();
function lut32Of(scale) {
  const lut = lutOf(scale);
  let out = luts32.get(lut);
  if (!out) {
    out = new Uint32Array(256);
    for (let i = 0; i < 256; i++) out[i] = rgba(lut[3 * i], lut[3 * i + 1], lut[3 * i + 2]);
    luts32.set(lut, out);
  }
  return out;
}

function paint(canvas, o, W, H) {
  if (canvas.width !== W) canvas.width = W;
  if (canvas.height !== H) canvas.height = H;
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(W, H);
  const px = new Uint32Array(img.data.buffer);
  const lut = lut32Of(o.scale);
  const colOf = new Int32Array(W);
  const colEdge = new Uint8Array(W); // 1: gap between cells, 2: band separator
  const colW = W / o.cols;
  const rowH = H / o.rows;
  for (let x = 0; x < W; x++) {
    const c = Math.min(o.cols - 1, Math.floor(x / colW));
    colOf[x] = c;
    const startsCell = c > 0 && Math.floor((x - 1) / colW) !== c;
    if (o.bands && c % o.bands.size === 0 && c > 0 && x - Math.ceil(c * colW) < Math.max(2, Math.round(W / 600))) colEdge[x] = 2;
    else if (startsCell && colW >= 8) colEdge[x] = 1;
  }
  const cell = new Uint32Array(o.cols); // colour of each cell of the current row; 0 = masked
  const line = new Uint32Array(W);
  const gapLine = new Uint32Array(W); // between rows: white, except the band separators
  for (let x = 0; x < W; x++) gapLine[x] = colEdge[x] === 2 ? BAND : WHITE;
  let lineRow = -1;
  let hatched = false;
  for (let y = 0; y < H; y++) {
    const r = Math.min(o.rows - 1, Math.floor(y / rowH));
    const at = y * W;
    if (r > 0 && rowH >= 8 && Math.floor((y - 1) / rowH) !== r) {
      px.set(gapLine, at);
      continue;
    }
    if (r !== lineRow) {
      lineRow = r;
      hatched = false;
      const base = o.offset + r * o.rowStride;
      for (let c = 0; c < o.cols; c++) {
        if (o.masked && o.masked(r, c)) {
          cell[c] = 0;
          hatched = true;
        } else cell[c] = lut[lutIndex(o.data[base + c * o.colStride], o.scale)];
      }
      for (let x = 0; x < W; x++) {
        const edge = colEdge[x];
        line[x] = edge === 2 ? BAND : edge === 1 ? WHITE : cell[colOf[x]];
      }
    }
    if (!hatched) {
      px.set(line, at);
      continue;
    }
    for (let x = 0; x < W; x++) {
      const v = line[x];
      px[at + x] = v !== 0 ? v : (x + y) % 8 < 3 ? HATCH_DARK : HATCH_LIGHT;
    }
  }
  ctx.putImageData(img, 0, 0);
}

function domGrid(o) {
  const hasSums = typeof o.rowSums === 'function';
  const labelCol = o.rowLabels ? 'max-content ' : '';
  const grid = h('div', {
    class: 'hm-grid',
    style: { gridTemplateColumns: `${labelCol}repeat(${o.cols}, minmax(${o.numbers ? '3.2em' : '0'}, 1fr))${hasSums ? ' max-content' : ''}` },
  });
  if (!o.numbers) grid.classList.add('hm-grid-plain');
  if (o.colLabels) {
    if (o.rowLabels) grid.append(h('div', { class: 'hm-corner' }));
    for (const t of o.colLabels) grid.append(h('div', { class: 'hm-collabel', title: t }, t));
    if (hasSums) grid.append(h('div', { class: 'hm-collabel hm-sumhead' }, o.sumLabel || 'Σ'));
  }
  for (let r = 0; r < o.rows; r++) {
    if (o.rowLabels) grid.append(h('div', { class: 'hm-rowlabel', title: o.rowLabels[r] }, o.rowLabels[r]));
    for (let c = 0; c < o.cols; c++) {
      const v = o.value(r, c);
      const masked = o.masked ? o.masked(r, c) : false;
      const cell = h(
        'div',
        {
          class: masked ? 'hm-cell masked' : 'hm-cell',
          'data-masked': masked ? 'true' : null,
          style: masked ? null : { background: cssColor(v, o.scale), color: inkFor(v, o.scale) },
        },
        o.numbers ? (masked && v === 0 ? '0' : cellNum(v)) : null,
      );
      cell.addEventListener('mousemove', (ev) => showTip(tipLines(o, r, c), ev.clientX, ev.clientY, cell));
      cell.addEventListener('mouseleave', hideTip);
      grid.append(cell);
    }
    if (hasSums) grid.append(h('div', { class: 'hm-sum' }, o.rowSums(r)));
  }
  return h('div', { class: 'hm hm-dom' }, grid);
}

// A small colour legend: the gradient with its end values, plus the masked swatch when relevant.
export function legend(scale, { maskedLabel } = {}) {
  const lo = scale.kind === 'sequential' ? 0 : -scale.max;
  return h(
    'div',
    { class: 'legend', 'aria-hidden': 'true' },
    h('span', { class: 'legend-num' }, num(lo, 2)),
    h('span', { class: 'legend-bar', style: { background: gradientCss(scale) } }),
    h('span', { class: 'legend-num' }, num(scale.max, 2)),
    maskedLabel ? h('span', { class: 'legend-masked' }, h('span', { class: 'swatch-masked' }), maskedLabel) : null,
  );
}
