// A labelled heatmap of one 2-D slice of a tensor: a <canvas> painted pixel by pixel (ImageData) at
// device-pixel resolution, or for small slices with printed numbers a grid of labels around one
// canvas of numbered cells. updateHeatmap() gives a drawn heatmap new values in place (a new seed,
// the causal mask): its canvas is repainted, no node is added, so nothing is laid out again.
import { h, setText } from '../../dom.js';
import { num, cellNum } from '../../format.js';
import { lutOf, lutIndex, inkFor, gradientCss, MASKED_LIGHT, MASKED_DARK, headColor } from './colors.js';
import { observeCanvas, repaint, repaintResized } from './canvasRegistry.js';
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

// patch: any of {data, offset, scale, masked, rowSums, index, describe}, and {rows, cols, rowStride,
// rowLabels, colLabels} for another T: the canvas is resized and the labels rewritten where they
// changed, a label added or removed only for a row or column more or less. The kind stays.
export function updateHeatmap(node, patch) {
  const o = drawn.get(node);
  const resized = ['rows', 'cols'].some((k) => k in patch && patch[k] !== o[k]);
  const relabelled = ['rowLabels', 'colLabels'].some((k) => k in patch && patch[k] !== o[k]);
  Object.assign(o, patch);
  if ('cols' in patch && !('rowStride' in patch)) o.rowStride = o.cols * o.colStride;
  if (resized || relabelled) {
    if (o.numbered) regrid(o);
    else {
      if (o.square) o.canvas.style.aspectRatio = `${o.cols} / ${o.rows}`; // unchanged for T × T: no new layout
      else o.canvas.style.height = `${o.rows * rowHeightOf(o)}px`;
      if (o.rowLabelCol) fillRowLabels(o.rowLabelCol, o.rowLabelEls, o.rowLabels, rowHeightOf(o), { titled: true });
      o.canvas.setAttribute('aria-label', mapLabel(o));
    }
  }
  if (o.numbered) fillNumbers(o);
  if (resized) repaintResized(o.canvas); // drawn once, at the size the new rows give it
  else repaint(o.canvas);
}

const rowHeightOf = (o) => o.rowHeight || rowHeightFor(o.rows);

// Grows the element list to n with make(i), each inserted into parent before `before` (or last),
// or shrinks it, removing the extra ones from the page.
function resizeChildren(list, n, make, parent, before = null) {
  while (list.length > n) list.pop().remove();
  while (list.length < n) {
    const el = make(list.length);
    parent.insertBefore(el, before);
    list.push(el);
  }
  return list;
}

// Sets a style property only when it differs (the same value written again is still a change).
function setStyle(el, prop, value) {
  if (el.style[prop] !== value) el.style[prop] = value;
}

function setAttr(el, name, value) {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

const mapLabel = (o) => `${o.tensor} heatmap, ${o.rows} × ${o.cols}`;

function tipLines(o, r, c) {
  const v = o.value(r, c);
  const lines = [`${o.tensor}[${o.index(r, c).join(', ')}] = ${num(v)}`];
  const extra = o.describe && o.describe(r, c);
  if (extra) lines.push(extra);
  if (o.masked && o.masked(r, c)) lines.push(o.maskedNote || 'masked');
  return lines;
}

// The value under the pointer as a tooltip; cellAt(x, y, box) -> [r, c] or null, x and y from the
// canvas's top left corner.
function tipsOn(canvas, o, cellAt) {
  canvas.addEventListener('mousemove', (ev) => {
    const rect = canvas.getBoundingClientRect();
    const cell = cellAt(ev.clientX - rect.left, ev.clientY - rect.top, rect);
    if (cell) showTip(tipLines(o, cell[0], cell[1]), ev.clientX, ev.clientY, canvas);
    else hideTip();
  });
  canvas.addEventListener('mouseleave', hideTip);
}

// The token labels left of a map, one a row, rowHeight CSS px each; relabelled in place (fillRowLabels).
function rowLabelColumn(o, rowHeight) {
  if (!o.rowLabels) return null;
  o.rowLabelCol = h('div', { class: 'hm-rowlabels', 'aria-hidden': 'true' });
  o.rowLabelEls = fillRowLabels(o.rowLabelCol, [], o.rowLabels, rowHeight, { titled: true });
  return o.rowLabelCol;
}

// The label elements els (children of col, the last ones) made one per label, rowHeight CSS px
// high; a kept one is rewritten only where it changed. Returns els.
export function fillRowLabels(col, els, labels, rowHeight, { titled = false } = {}) {
  resizeChildren(els, labels.length, () => h('div', { class: 'hm-rowlabel' }), col);
  const px = `${rowHeight}px`;
  const font = `${Math.min(13, Math.max(8, rowHeight - 4))}px`;
  els.forEach((el, i) => {
    setStyle(el, 'height', px);
    setStyle(el, 'lineHeight', px);
    setStyle(el, 'fontSize', font);
    if (titled) setAttr(el, 'title', labels[i]);
    setText(el, rowHeight >= 9 ? labels[i] : '');
  });
  return els;
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
  const rowHeight = rowHeightOf(o);
  const canvas = h('canvas', { class: 'hm-canvas', role: 'img', 'aria-label': mapLabel(o) });
  if (o.square) canvas.style.aspectRatio = `${o.cols} / ${o.rows}`;
  else canvas.style.height = `${o.rows * rowHeight}px`;

  o.canvas = canvas;
  observeCanvas(canvas, (W, H) => paint(canvas, o, W, H));

  tipsOn(canvas, o, (x, y, rect) => {
    const c = Math.floor((x / rect.width) * o.cols);
    const r = Math.floor((y / rect.height) * o.rows);
    return r < 0 || c < 0 || r >= o.rows || c >= o.cols ? null : [r, c];
  });

  return h(
    'div',
    { class: 'hm hm-canvas-wrap' },
    o.bands ? h('div', { class: 'hm-row' }, o.rowLabels ? h('div', { class: 'hm-rowlabels hm-spacer' }, o.rowLabels.map(() => null)) : null, bandBar(o)) : null,
    h('div', { class: 'hm-row' }, rowLabelColumn(o, rowHeight), h('div', { class: 'hm-plot' }, canvas)),
  );
}

// Pixels are written as 32-bit words (little-endian RGBA: every browser's byte order), one per cell.
const rgba = (r, g, b) => ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
const GAP_COLOR = '#fff'; // between cells wide enough to show it
const BAND_COLOR = 'rgb(40, 44, 56)'; // between head bands
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

// A canvas outside the page: drawing on it (text above all) never asks the page for its style.
function scratch(w, h) {
  const canvas = document.createElement('canvas');
  canvas.width = w;
  canvas.height = h;
  return canvas;
}

// Two such canvases shared by every heatmap, grown to the largest size asked (a new canvas and its
// context for each of the dozens of maps a stage draws cost more than drawing them): 'cells' for
// the one-pixel-per-cell images, 'surface' for a numbered grid. drawImage copies what they hold at
// the time of the call, so the next map can draw over them at once.
const shared = {};
function sharedCanvas(name, w, h) {
  let canvas = shared[name];
  if (!canvas || canvas.width < w || canvas.height < h) {
    canvas = shared[name] = scratch(Math.max(w, canvas ? canvas.width : 0), Math.max(h, canvas ? canvas.height : 0));
  }
  return canvas;
}

// A map is drawn at one pixel per cell (ImageData on the shared 'cells' canvas off the page), then
// scaled onto the canvas by drawImage without smoothing; the hatch, the gaps between cells wide
// enough to show them and the head bands' separators are rectangles over it. All of it native:
// a loop over the canvas's pixels ran interpreted on the one or two calls a change makes
// (0.3-0.4 ms for a 118 px head tile).
let hatchTile = null; // 8 × 8 pixels of the hatch, repeated from the canvas's corner
function hatchPattern(ctx) {
  if (!hatchTile) {
    hatchTile = scratch(8, 8);
    const tctx = hatchTile.getContext('2d');
    const img = tctx.createImageData(8, 8);
    const px = new Uint32Array(img.data.buffer);
    for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) px[y * 8 + x] = ((x - y) & 7) < 3 ? HATCH_DARK : HATCH_LIGHT;
    tctx.putImageData(img, 0, 0);
  }
  return ctx.createPattern(hatchTile, 'repeat');
}

// A map whose height follows T (head_out's tiles, the enlarged head) keeps a buffer ROWS_STEP rows
// high at a time and shows its top H device pixels (object-view-box), so a token more or less is
// drawn into the same buffer: a canvas given a new size gets a new buffer, which costs ~1 ms in the
// next frame (software compositing). Where object-view-box is not supported the buffer is the box.
const ROWS_STEP = typeof CSS !== 'undefined' && CSS.supports && CSS.supports('object-view-box', 'inset(0px)') ? 4 : 1;
const rowsHeld = (rows) => Math.ceil(rows / ROWS_STEP) * ROWS_STEP;
const bufferHeight = (o, H) => (o.square ? H : Math.round((H * rowsHeld(o.rows)) / o.rows));

// Shows the top H pixels of a buffer HB high (the left W of one WB wide), as the whole box.
function showTop(canvas, W, H, WB, HB) {
  const box = HB > H || WB > W ? `inset(0px ${WB - W}px ${HB - H}px 0px)` : '';
  if (canvas.style.objectViewBox !== box) canvas.style.objectViewBox = box;
}

// A box whose width moves by a pixel or two when the page is laid out again for another T (the
// tiles share a row with the token labels, whose font follows the row height) keeps its buffer
// too, its left W pixels shown: within this fraction of the width a buffer only grows.
const WIDTH_SLACK = 0.03;
const keepsWidth = (canvas, W) => ROWS_STEP > 1 && canvas.width > 0 && Math.abs(canvas.width - W) <= W * WIDTH_SLACK;

function paint(canvas, o, W, H) {
  // Where only the top is shown, a buffer of about this width never shrinks: deleting a token and
  // typing it again keeps one buffer instead of crossing a ROWS_STEP line (or a pixel of width) twice.
  const kept = keepsWidth(canvas, W);
  const WB = kept ? Math.max(canvas.width, W) : W;
  const HB = kept ? Math.max(canvas.height, bufferHeight(o, H)) : bufferHeight(o, H);
  if (canvas.width !== WB) canvas.width = WB;
  if (canvas.height !== HB) canvas.height = HB;
  const { rows, cols } = o;
  const cells = sharedCanvas('cells', cols, rows);
  const small = cells.getContext('2d');
  const img = small.createImageData(cols, rows);
  const px = new Uint32Array(img.data.buffer);
  const lut = lut32Of(o.scale);
  const runs = []; // [row, first, last] of masked cells
  for (let r = 0; r < rows; r++) {
    const base = o.offset + r * o.rowStride;
    let first = -1;
    for (let c = 0; c <= cols; c++) {
      const masked = c < cols && o.masked && o.masked(r, c);
      if (masked && first < 0) first = c;
      if (!masked && first >= 0) {
        runs.push([r, first, c]);
        first = -1;
      }
      if (c < cols) px[r * cols + c] = masked ? HATCH_LIGHT : lut[lutIndex(o.data[base + c * o.colStride], o.scale)];
    }
  }
  small.putImageData(img, 0, 0);
  showTop(canvas, W, H, WB, HB);
  const ctx = canvas.getContext('2d');
  if (HB > H) ctx.clearRect(0, H, W, HB - H); // rows the previous T had
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(cells, 0, 0, cols, rows, 0, 0, W, H);
  const colW = W / cols;
  const rowH = H / rows;
  // A cell's first pixel column (row: y0), where drawImage's nearest-pixel scaling starts it.
  const x0 = (c) => Math.max(0, Math.ceil(c * colW - 0.5));
  const y0 = (r) => Math.max(0, Math.ceil(r * rowH - 0.5));
  if (runs.length) {
    ctx.fillStyle = hatchPattern(ctx);
    for (const [r, first, end] of runs) ctx.fillRect(x0(first), y0(r), x0(end) - x0(first), y0(r + 1) - y0(r));
  }
  ctx.fillStyle = GAP_COLOR;
  if (colW >= 8) for (let c = 1; c < cols; c++) if (!(o.bands && c % o.bands.size === 0)) ctx.fillRect(x0(c), 0, 1, H);
  if (rowH >= 8) for (let r = 1; r < rows; r++) ctx.fillRect(0, y0(r), W, 1);
  if (o.bands) {
    const bandW = Math.max(2, Math.round(W / 600));
    ctx.fillStyle = BAND_COLOR;
    for (let c = o.bands.size; c < cols; c += o.bands.size) ctx.fillRect(x0(c), 0, Math.min(bandW, x0(c + 1) - x0(c)), H);
  }
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
  const canvas = h('canvas', { class: 'hm-cells', role: 'img' });
  o.grid = h('div', { class: 'hm-grid' });
  o.canvas = canvas;
  o.numbered = true;
  o.colLabelEls = [];
  o.rowLabelEls = [];
  o.sums = [];
  regrid(o);
  o.grid.append(canvas);
  observeCanvas(canvas, (W, H, scale) => paintNumbers(canvas, o, W, H, scale));

  tipsOn(canvas, o, (x, y, rect) => { // null over a gap
    const pitchX = (rect.width + CELL_GAP) / o.cols;
    const pitchY = (rect.height + CELL_GAP) / o.rows;
    const c = Math.floor(x / pitchX);
    const r = Math.floor(y / pitchY);
    if (r < 0 || c < 0 || r >= o.rows || c >= o.cols || x - c * pitchX > pitchX - CELL_GAP || y - r * pitchY > pitchY - CELL_GAP) return null;
    return [r, c];
  });
  fillNumbers(o);
  return h('div', { class: 'hm hm-numbers' }, o.grid);
}

// A numbers grid's template and labels for its rows, columns and labels (built, or another T): a
// label is added or removed only for a row or column more or less, a kept one rewritten where it
// changed. The labels and sums are placed on the grid, so the order they are made in is the order
// a grid built at once has: column labels, the sums' head, then a row label and sum per row.
function regrid(o) {
  const hasSums = typeof o.rowSums === 'function';
  const top = o.colLabels ? 2 : 1; // the grid row of the first data row
  const left = o.rowLabels ? 2 : 1; // the grid column of the first data column
  const { grid, canvas } = o;
  setStyle(grid, 'gridTemplateColumns', `${o.rowLabels ? 'max-content ' : ''}repeat(${o.cols}, minmax(3.2em, 1fr))${hasSums ? ' max-content' : ''}`);
  setStyle(grid, 'gridTemplateRows', `${o.colLabels ? 'auto ' : ''}repeat(${o.rows}, ${CELL_H}px)`);
  const at = (el, row, col) => {
    setStyle(el, 'gridRow', String(row));
    setStyle(el, 'gridColumn', String(col));
    return el;
  };
  if (o.colLabels) {
    if (hasSums && !o.sumHead) o.sumHead = grid.appendChild(h('div', { class: 'hm-collabel hm-sumhead' }, o.sumLabel || 'Σ'));
    const next = o.sumHead || o.rowLabelEls[0] || o.sums[0]?.el || (canvas.parentNode === grid ? canvas : null);
    resizeChildren(o.colLabelEls, o.colLabels.length, () => h('div', { class: 'hm-collabel' }), grid, next);
    o.colLabelEls.forEach((el, c) => {
      setAttr(el, 'title', o.colLabels[c]);
      setText(el, o.colLabels[c]);
      at(el, 1, left + c);
    });
    if (o.sumHead) at(o.sumHead, 1, left + o.cols);
  }
  // One row's label and sum, in that order, before the canvas (or last while it is not there yet).
  const before = canvas.parentNode === grid ? canvas : null;
  while (o.rowLabelEls.length > (o.rowLabels ? o.rows : 0)) o.rowLabelEls.pop().remove();
  while (o.sums.length > (hasSums ? o.rows : 0)) o.sums.pop().el.remove();
  for (let r = 0; r < o.rows; r++) {
    if (o.rowLabels) {
      if (!o.rowLabelEls[r]) o.rowLabelEls.push(grid.insertBefore(h('div', { class: 'hm-rowlabel' }), before));
      const el = o.rowLabelEls[r];
      setAttr(el, 'title', o.rowLabels[r]);
      setText(el, o.rowLabels[r]);
      at(el, top + r, 1);
    }
    if (hasSums) {
      if (!o.sums[r]) o.sums.push({ el: grid.insertBefore(h('div', { class: 'hm-sum' }), before) });
      at(o.sums[r].el, top + r, left + o.cols);
    }
  }
  setStyle(canvas, 'gridRow', `${top} / span ${o.rows}`);
  setStyle(canvas, 'gridColumn', `${left} / span ${o.cols}`);
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
// Like a map, the cells are one pixel each scaled up (drawImage), then cut to rounded cells with
// gaps between them by one path of rounded rectangles (kept per size), the masked ones hatched by
// another; then the numbers. Drawn on a canvas off the page and copied over: fillText on a canvas
// in the page makes the page bring its style and layout up to date first (1-2 ms in the middle of
// a change, more than once when DOM writes come between two grids); off the page it needs neither.
let numbersFont = null;
function paintNumbers(canvas, o, W, H, dpr) {
  // Its buffer holds ROWS_STEP rows at a time too, its top shown (like a map's).
  const HB = Math.round(((H + CELL_GAP * dpr) * rowsHeld(o.rows)) / o.rows - CELL_GAP * dpr);
  if (canvas.width !== W) canvas.width = W;
  if (canvas.height !== HB) canvas.height = HB;
  showTop(canvas, W, H, W, HB);
  // The page's monospace stack, read once per page: reading a style after another canvas got its
  // size (drawn first in the same ResizeObserver callback) would lay the page out again.
  numbersFont ??= `12px ${getComputedStyle(canvas).fontFamily}`;
  const surface = sharedCanvas('surface', W, H);
  const { rows, cols } = o;
  const gap = CELL_GAP * dpr;
  const pitchX = (W + gap) / cols;
  const pitchY = (H + gap) / rows;
  const cellRect = (path, r, c) => {
    const x = Math.round(c * pitchX);
    const y = Math.round(r * pitchY);
    path.roundRect(x, y, Math.round((c + 1) * pitchX - gap) - x, Math.round((r + 1) * pitchY - gap) - y, CELL_RADIUS * dpr);
  };
  if (!o.cellPath || o.cellPath.size !== `${W}×${H} ${rows}×${cols}`) {
    const path = new Path2D();
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) cellRect(path, r, c);
    o.cellPath = { size: `${W}×${H} ${rows}×${cols}`, path };
  }
  const cells = sharedCanvas('cells', cols, rows);
  const small = cells.getContext('2d');
  const img = small.createImageData(cols, rows);
  const px = new Uint32Array(img.data.buffer);
  const lut = lut32Of(o.scale);
  let maskedPath = null;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      px[r * cols + c] = lut[lutIndex(o.value(r, c), o.scale)];
      if (o.masked && o.masked(r, c)) cellRect((maskedPath ||= new Path2D()), r, c);
    }
  }
  small.putImageData(img, 0, 0);

  const ctx = surface.getContext('2d');
  ctx.imageSmoothingEnabled = false; // the cells cover the surface; what is outside them is cut next
  ctx.drawImage(cells, 0, 0, cols, rows, 0, 0, cols * pitchX, rows * pitchY);
  ctx.globalCompositeOperation = 'destination-in'; // keep only what is inside a cell
  ctx.fill(o.cellPath.path);
  ctx.globalCompositeOperation = 'source-over';
  if (maskedPath) {
    ctx.fillStyle = hatchPattern(ctx);
    ctx.fill(maskedPath);
  }

  // The numbers, in the font the cells had as DOM (12px, the page's monospace stack).
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.font = numbersFont;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  let ink = null;
  for (let r = 0; r < rows; r++) {
    const cy = (r * pitchY + (pitchY - gap) / 2) / dpr;
    for (let c = 0; c < cols; c++) {
      const v = o.value(r, c);
      const want = o.masked && o.masked(r, c) ? MASKED_INK : inkFor(v, o.scale);
      if (want !== ink) ctx.fillStyle = ink = want;
      ctx.fillText(cellText(o, r, c), (c * pitchX + (pitchX - gap) / 2) / dpr, cy);
    }
  }
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  const shown = canvas.getContext('2d');
  shown.globalCompositeOperation = 'copy'; // the gaps and the rows below H cleared too, in one pass
  shown.drawImage(surface, 0, 0, W, H, 0, 0, W, H);
  shown.globalCompositeOperation = 'source-over';
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
