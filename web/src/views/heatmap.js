// A labelled heatmap of one 2-D slice of a tensor: a <canvas> painted pixel by pixel (ImageData) at
// device-pixel resolution, or for small slices with printed numbers a grid of labels around one
// canvas of numbered cells. updateHeatmap() gives a drawn heatmap new values in place (a new seed,
// the causal mask): its canvas is repainted, no node is added, so nothing is laid out again.
import { h, setText } from '../dom.js';
import { num, cellNum } from '../format.js';
import { lutOf, lutIndex, inkFor, gradientCss, MASKED_LIGHT, MASKED_DARK, headColor } from './colors.js';
import { observeCanvas, repaint } from './canvasRegistry.js';
import { showTip, hideTip } from './tooltip.js';

const drawn = new WeakMap(); // heatmap node -> its options, which updateHeatmap() changes

// opts: {tensor, data, rows, cols, offset, rowStride, colStride, index(r,c) -> number[],
//        rowLabels, colLabels, scale, masked(r,c), numbers, bands {size, count}, rowHeight,
//        square, rowSums(r) -> string (numbers only), describe(r,c) -> string, sumLabel}
export function heatmap(opts) {
  const o = { offset: 0, colStride: 1, ...opts };
  if (o.rowStride === undefined) o.rowStride = o.cols * o.colStride;
  o.value = (r, c) => o.data[o.offset + r * o.rowStride + c * o.colStride];
  const node = o.numbers ? numberGrid(o) : canvasMap(o);
  drawn.set(node, o);
  return node;
}

// patch: any of {data, offset, scale, masked, rowSums, index, describe}; the rows, columns, labels
// and kind (canvas or grid) stay what they were.
export function updateHeatmap(node, patch) {
  const o = drawn.get(node);
  Object.assign(o, patch);
  if (o.numbered) fillNumbers(o);
  repaint(o.canvas);
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

  o.canvas = canvas;
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
  const cellFrom = new Int32Array(o.cols).fill(W); // each cell's pixels without its edge: [from, to)
  const cellTo = new Int32Array(o.cols);
  const colW = W / o.cols;
  const rowH = H / o.rows;
  for (let x = 0; x < W; x++) {
    const c = Math.min(o.cols - 1, Math.floor(x / colW));
    colOf[x] = c;
    const startsCell = c > 0 && Math.floor((x - 1) / colW) !== c;
    if (o.bands && c % o.bands.size === 0 && c > 0 && x - Math.ceil(c * colW) < Math.max(2, Math.round(W / 600))) colEdge[x] = 2;
    else if (startsCell && colW >= 8) colEdge[x] = 1;
    else {
      if (x < cellFrom[c]) cellFrom[c] = x;
      cellTo[c] = x + 1;
    }
  }
  const cell = new Uint32Array(o.cols); // colour of each cell of the current row; 0 = masked
  const line = new Uint32Array(W);
  const gapLine = new Uint32Array(W); // between rows: white, except the band separators
  for (let x = 0; x < W; x++) gapLine[x] = colEdge[x] === 2 ? BAND : WHITE;
  let lineRow = -1;
  let hatched = false;
  let hatch = null;
  const phases = new Array(8).fill(null);
  const phaseRow = new Int32Array(8).fill(-1); // the data row each phase line was made for
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
    if (rowH < 8) {
      for (let x = 0; x < W; x++) {
        const v = line[x];
        px[at + x] = v !== 0 ? v : ((x - y) & 7) < 3 ? HATCH_DARK : HATCH_LIGHT;
      }
      continue;
    }
    // A tall masked row: the hatch repeats every 8 pixel rows, so the data row needs 8 lines (its
    // cells, the masked ones from the hatch line of that phase), copied down its pixel rows.
    const k = y & 7;
    if (!hatch) hatch = hatchLines(W);
    if (phaseRow[k] !== r) {
      const pl = phases[k] || (phases[k] = new Uint32Array(W));
      pl.set(line);
      for (let c = 0; c < o.cols; c++) if (cell[c] === 0 && cellTo[c] > cellFrom[c]) pl.set(hatch[k].subarray(cellFrom[c], cellTo[c]), cellFrom[c]);
      phaseRow[k] = r;
    }
    px.set(phases[k], at);
  }
  ctx.putImageData(img, 0, 0);
}

// The causal hatch as 8 lines of W pixels, one per phase of its 8-pixel period: stripes that run
// the way the legend swatch's do (x − y constant), 3 dark pixels in 8.
const hatches = new Map(); // W -> its 8 lines
function hatchLines(W) {
  let lines = hatches.get(W);
  if (!lines) {
    lines = Array.from({ length: 8 }, (_, k) => {
      const line = new Uint32Array(W);
      for (let x = 0; x < W; x++) line[x] = ((x - k) & 7) < 3 ? HATCH_DARK : HATCH_LIGHT;
      return line;
    });
    if (hatches.size > 64) hatches.clear();
    hatches.set(W, lines);
  }
  return lines;
}

// A grid with numbers (the enlarged head, the worked example): token labels, column labels and row
// sums are DOM in a CSS grid, the cells one canvas over their grid area, with their numbers drawn
// into it. Numbers as DOM text cost a layout of every cell on each new result (T = 14: ~9 ms);
// drawn, a new result is only a repaint. The canvas's aria-label reads the numbers row by row.
const CELL_H = 26; // CSS px: 12px monospace numbers with their padding
const CELL_GAP = 2;
const CELL_RADIUS = 3;
const MASKED_INK = '#555';

function numberGrid(o) {
  const hasSums = typeof o.rowSums === 'function';
  const top = o.colLabels ? 2 : 1; // the grid row of the first data row
  const left = o.rowLabels ? 2 : 1; // the grid column of the first data column
  const grid = h('div', {
    class: 'hm-grid',
    style: {
      gridTemplateColumns: `${o.rowLabels ? 'max-content ' : ''}repeat(${o.cols}, minmax(3.2em, 1fr))${hasSums ? ' max-content' : ''}`,
      gridTemplateRows: `${o.colLabels ? 'auto ' : ''}repeat(${o.rows}, ${CELL_H}px)`,
    },
  });
  const at = (el, row, col) => {
    el.style.gridRow = String(row);
    el.style.gridColumn = String(col);
    return el;
  };
  if (o.colLabels) {
    o.colLabels.forEach((t, c) => grid.append(at(h('div', { class: 'hm-collabel', title: t }, t), 1, left + c)));
    if (hasSums) grid.append(at(h('div', { class: 'hm-collabel hm-sumhead' }, o.sumLabel || 'Σ'), 1, left + o.cols));
  }
  o.sums = [];
  for (let r = 0; r < o.rows; r++) {
    if (o.rowLabels) grid.append(at(h('div', { class: 'hm-rowlabel', title: o.rowLabels[r] }, o.rowLabels[r]), top + r, 1));
    if (hasSums) {
      const sum = at(h('div', { class: 'hm-sum' }), top + r, left + o.cols);
      o.sums.push({ el: sum });
      grid.append(sum);
    }
  }
  const canvas = h('canvas', { class: 'hm-cells', role: 'img' });
  canvas.style.gridRow = `${top} / span ${o.rows}`;
  canvas.style.gridColumn = `${left} / span ${o.cols}`;
  grid.append(canvas);
  o.canvas = canvas;
  o.numbered = true;
  observeCanvas(canvas, (W, H, scale) => paintNumbers(canvas, o, W, H, scale));

  // The cell under the pointer, or null over a gap.
  const cellAt = (ev) => {
    const rect = canvas.getBoundingClientRect();
    const pitchX = (rect.width + CELL_GAP) / o.cols;
    const pitchY = (rect.height + CELL_GAP) / o.rows;
    const x = ev.clientX - rect.left;
    const y = ev.clientY - rect.top;
    const c = Math.floor(x / pitchX);
    const r = Math.floor(y / pitchY);
    if (r < 0 || c < 0 || r >= o.rows || c >= o.cols || x - c * pitchX > pitchX - CELL_GAP || y - r * pitchY > pitchY - CELL_GAP) return null;
    return [r, c];
  };
  canvas.addEventListener('mousemove', (ev) => {
    const cell = cellAt(ev);
    if (cell) showTip(tipLines(o, cell[0], cell[1]), ev.clientX, ev.clientY, canvas);
    else hideTip();
  });
  canvas.addEventListener('mouseleave', hideTip);
  fillNumbers(o);
  return h('div', { class: 'hm hm-numbers' }, grid);
}

const cellText = (o, r, c) => {
  const v = o.value(r, c);
  return o.masked && o.masked(r, c) && v === 0 ? '0' : cellNum(v);
};

// What is DOM in a numbers grid: the row sums (written when they change) and the canvas's label.
function fillNumbers(o) {
  const rows = [];
  for (let r = 0; r < o.rows; r++) {
    const cells = [];
    for (let c = 0; c < o.cols; c++) cells.push(cellText(o, r, c));
    const sum = o.sums[r];
    if (sum) setText(sum.el, o.rowSums(r));
    rows.push(`${o.rowLabels ? `${o.rowLabels[r]}: ` : ''}${cells.join(', ')}${sum ? ` (${sum.el.textContent})` : ''}`);
  }
  o.canvas.setAttribute('aria-label', `${o.tensor}, ${o.rows} × ${o.cols}: ${rows.join('; ')}`);
}

// Cells as pixels (ImageData, like paint(): fills by hand are cheaper than a path per cell),
// rounded corners and transparent gaps, then each number with fillText.
// Drawn on an OffscreenCanvas and copied over: fillText on a canvas in the page makes the page bring
// its style and layout up to date first (1-2 ms in the middle of a change, more than once when
// DOM writes come between two grids); off the page it needs neither.
function paintNumbers(canvas, o, W, H, dpr) {
  if (canvas.width !== W) canvas.width = W;
  if (canvas.height !== H) canvas.height = H;
  if (!o.font) o.font = `12px ${getComputedStyle(canvas).fontFamily}`; // read once, in the first paint
  const offscreen = typeof OffscreenCanvas === 'function';
  if (offscreen && (!o.surface || o.surface.width !== W || o.surface.height !== H)) o.surface = new OffscreenCanvas(W, H);
  const ctx = offscreen ? o.surface.getContext('2d') : canvas.getContext('2d');
  const gap = CELL_GAP * dpr;
  const rad = Math.round(CELL_RADIUS * dpr);
  // Per pixel column (and row): its cell, or -1 in a gap, and its distance to the cell's nearer
  // edge; per cell, its pixels [from, to).
  const spans = (n, size) => {
    const pitch = (size + gap) / n;
    const of = new Int32Array(size);
    const edge = new Int32Array(size);
    const from = new Int32Array(n);
    const to = new Int32Array(n);
    for (let k = 0; k < n; k++) {
      from[k] = Math.round(k * pitch);
      to[k] = Math.min(size, Math.round(k * pitch + pitch - gap));
    }
    of.fill(-1);
    for (let k = 0; k < n; k++) {
      for (let i = from[k]; i < to[k]; i++) {
        of[i] = k;
        edge[i] = Math.min(i - from[k], to[k] - 1 - i);
      }
    }
    return { of, edge, from, to, pitch };
  };
  const X = spans(o.cols, W);
  const Y = spans(o.rows, H);
  // The pixels cut off a cell's corner, per distance from the edges (dx, dy < rad).
  const cut = new Uint8Array(rad * rad);
  for (let dy = 0; dy < rad; dy++) {
    for (let dx = 0; dx < rad; dx++) {
      const ax = rad - dx - 0.5;
      const ay = rad - dy - 0.5;
      cut[dy * rad + dx] = ax * ax + ay * ay > rad * rad ? 1 : 0;
    }
  }
  const img = ctx.createImageData(W, H); // transparent: the gaps show the card behind
  const px = new Uint32Array(img.data.buffer);
  const lut32 = lut32Of(o.scale);
  const cell = new Uint32Array(o.cols);
  const masked = new Uint8Array(o.cols);
  // One line of pixels per data row (per phase of the hatch's 8-pixel period when a cell is
  // masked), copied down the row's pixel rows; only the rows at the corners are then cut.
  const lines = Array.from({ length: 8 }, () => new Uint32Array(W));
  const lineRow = new Int32Array(8).fill(-1);
  let row = -1;
  let anyMasked = false;
  let hatch = null;
  for (let y = 0; y < H; y++) {
    const r = Y.of[y];
    if (r < 0) continue;
    if (r !== row) {
      row = r;
      anyMasked = false;
      for (let c = 0; c < o.cols; c++) {
        masked[c] = o.masked && o.masked(r, c) ? 1 : 0;
        anyMasked = anyMasked || masked[c] === 1;
        cell[c] = lut32[lutIndex(o.value(r, c), o.scale)];
      }
      if (anyMasked && !hatch) hatch = hatchLines(W);
    }
    const k = anyMasked ? y & 7 : 0;
    const line = lines[k];
    if (lineRow[k] !== r) {
      lineRow[k] = r;
      for (let x = 0; x < W; x++) {
        const c = X.of[x];
        line[x] = c < 0 ? 0 : masked[c] ? hatch[k][x] : cell[c];
      }
    }
    const at = y * W;
    px.set(line, at);
    const dy = Y.edge[y];
    if (dy >= rad) continue;
    for (let c = 0; c < o.cols; c++) {
      for (let dx = 0; dx < rad; dx++) {
        if (!cut[dy * rad + dx]) continue;
        px[at + X.from[c] + dx] = 0;
        px[at + X.to[c] - 1 - dx] = 0;
      }
    }
  }
  ctx.putImageData(img, 0, 0);

  // The numbers, in the font the cells had as DOM (12px, the page's monospace stack).
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.font = o.font;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  let ink = null;
  for (let r = 0; r < o.rows; r++) {
    const cy = (r * Y.pitch + (Y.pitch - gap) / 2) / dpr;
    for (let c = 0; c < o.cols; c++) {
      const v = o.value(r, c);
      const want = o.masked && o.masked(r, c) ? MASKED_INK : inkFor(v, o.scale);
      if (want !== ink) ctx.fillStyle = ink = want;
      ctx.fillText(cellText(o, r, c), (c * X.pitch + (X.pitch - gap) / 2) / dpr, cy);
    }
  }
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  if (offscreen) {
    const shown = canvas.getContext('2d');
    shown.clearRect(0, 0, W, H);
    shown.drawImage(o.surface, 0, 0);
  }
}

// A small colour legend: the gradient with its end values, plus the masked swatch when relevant.
// updateLegend() changes the end values and the swatch in place.
export function legend(scale, { maskedLabel } = {}) {
  const node = h(
    'div',
    { class: 'legend', 'aria-hidden': 'true' },
    h('span', { class: 'legend-num' }),
    h('span', { class: 'legend-bar' }),
    h('span', { class: 'legend-num' }),
    h('span', { class: 'legend-masked' }, h('span', { class: 'swatch-masked' }), h('span', {}, '')),
  );
  updateLegend(node, scale, { maskedLabel });
  return node;
}

const legendKinds = new WeakMap(); // legend -> the scale kind its bar shows

export function updateLegend(node, scale, { maskedLabel } = {}) {
  const [lo, bar, hi, masked] = node.children;
  setText(lo, num(scale.kind === 'sequential' ? 0 : -scale.max, 2));
  setText(hi, num(scale.max, 2));
  if (legendKinds.get(node) !== scale.kind) {
    bar.style.background = gradientCss(scale);
    legendKinds.set(node, scale.kind);
  }
  if (masked.hidden !== !maskedLabel) masked.hidden = !maskedLabel;
  setText(masked.lastChild, maskedLabel || '');
}
