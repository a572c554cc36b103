// A heatmap as one canvas: one pixel per cell drawn off the page and scaled on, the causal hatch,
// gaps and head-band separators over it, buffers kept across a token more or less.
import { h } from '../../dom.js';
import { lutOf, lutIndex, fillRow, MASKED_LIGHT, MASKED_DARK } from './colors.js';
import { observeCanvas } from './canvasRegistry.js';
import { bandBar, mapLabel, rowHeightOf, rowLabelColumn, tipsOn } from './heatmapFrame.js';
import { keysOn } from './mapKeys.js';

export function canvasMap(o) {
  const rowHeight = rowHeightOf(o);
  const canvas = h('canvas', { class: 'hm-canvas', role: 'img', 'aria-label': mapLabel(o) });
  if (o.square) canvas.style.aspectRatio = aspectOf(o);
  else canvas.style.height = `${o.rows * rowHeight}px`;

  o.canvas = canvas;
  observeCanvas(canvas, (W, H) => paint(canvas, o, W, H));

  tipsOn(canvas, o, (x, y, rect) => {
    const c = Math.floor((x / rect.width) * o.cols);
    const r = Math.floor((y / rect.height) * o.rows);
    return r < 0 || c < 0 || r >= o.rows || c >= o.cols ? null : [r, c];
  });
  // The ring as fractions of the plot, which is the canvas's box: right whatever T and the width.
  const [ring, readout] = keysOn(canvas, o, (el, r, c) => {
    el.style.left = `${(100 * c) / o.cols}%`;
    el.style.top = `${(100 * r) / o.rows}%`;
    el.style.width = `${100 / o.cols}%`;
    el.style.height = `${100 / o.rows}%`;
  });

  return h(
    'div',
    { class: 'hm hm-canvas-wrap' },
    o.bands ? h('div', { class: 'hm-row' }, o.rowLabels ? h('div', { class: 'hm-rowlabels hm-spacer' }, o.rowLabels.map(() => null)) : null, bandBar(o)) : null,
    h('div', { class: 'hm-row' }, rowLabelColumn(o, rowHeight), h('div', { class: 'hm-plot' }, canvas, ring)),
    readout,
  );
}

// A square map's box, in lowest terms: T × T is 1 / 1 for every T, so another T writes the same
// style (11 / 11 then 12 / 12 is a style change, and a layout of the map and all around it).
export function aspectOf(o) {
  const gcd = (a, b) => (b ? gcd(b, a % b) : a);
  const g = gcd(o.cols, o.rows) || 1;
  return `${o.cols / g} / ${o.rows / g}`;
}

// Pixels are written as 32-bit words (little-endian RGBA: every browser's byte order), one per cell.
const rgba = (r, g, b) => ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
// Between cells wide enough to show it: the panel's colour (widget.css --panel), read once per
// colour scheme, so a dark page has dark gaps.
const DARK = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;
const gapColors = {};
function gapColor(canvas) {
  const scheme = DARK && DARK.matches ? 'dark' : 'light';
  return (gapColors[scheme] ??= getComputedStyle(canvas).getPropertyValue('--panel').trim() || '#fff');
}
const BAND_COLOR = 'rgb(40, 44, 56)'; // between head bands
const HATCH_DARK = rgba(...MASKED_DARK);
const HATCH_LIGHT = rgba(...MASKED_LIGHT);
const luts32 = new WeakMap();
export function lut32Of(scale) {
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
export function sharedCanvas(name, w, h) {
  let canvas = shared[name];
  if (!canvas || canvas.width < w || canvas.height < h) {
    canvas = shared[name] = scratch(Math.max(w, canvas ? canvas.width : 0), Math.max(h, canvas ? canvas.height : 0));
  }
  return canvas;
}

// One ImageData per size, reused: every paint writes all its pixels, and putImageData copies them
// out, so a change's maps allocate no pixel buffers (a minor collection falling into a change cost it
// 1–2 ms). Few sizes occur at once (T × T, T × d_model, …); a new model's sizes replace the old.
const images = new Map();
function imageData(ctx, w, h) {
  const key = `${w}x${h}`;
  let img = images.get(key);
  if (!img) {
    if (images.size >= 32) images.clear();
    images.set(key, (img = ctx.createImageData(w, h)));
  }
  return img;
}

// A map is drawn at one pixel per cell (ImageData on the shared 'cells' canvas off the page), then
// scaled onto the canvas by drawImage without smoothing; the hatch, the gaps between cells wide
// enough to show them and the head bands' separators are rectangles over it. All of it native:
// a loop over the canvas's pixels ran interpreted on the one or two calls a change makes
// (0.3-0.4 ms for a 118 px head tile).
let hatchTile = null; // 8 × 8 pixels of the hatch, repeated from the canvas's corner
export function hatchPattern(ctx) {
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
export const rowsHeld = (rows) => Math.ceil(rows / ROWS_STEP) * ROWS_STEP;
const bufferHeight = (o, H) => (o.square ? H : Math.round((H * rowsHeld(o.rows)) / o.rows));

// Shows the top H pixels of a buffer HB high (the left W of one WB wide), as the whole box.
export function showTop(canvas, W, H, WB, HB) {
  const box = HB > H || WB > W ? `inset(0px ${WB - W}px ${HB - H}px 0px)` : '';
  if (canvas.style.objectViewBox !== box) canvas.style.objectViewBox = box;
}

// A box whose width moves by a pixel or two when the page is laid out again for another T (the
// tiles share a row with the token labels, whose font follows the row height) keeps its buffer
// too, its left W pixels shown: within this fraction of the width a buffer only grows.
const WIDTH_SLACK = 0.03;
const keepsWidth = (canvas, W) => ROWS_STEP > 1 && canvas.width > 0 && Math.abs(canvas.width - W) <= W * WIDTH_SLACK;

// For each of W pixels, the column of `cols` under its centre; kept for the last width asked.
let picks = null;
export function pickedColumns(cols, W) {
  if (!picks || picks.cols !== cols || picks.at.length !== W) {
    const at = new Int32Array(W);
    for (let x = 0; x < W; x++) at[x] = Math.min(cols - 1, Math.floor(((x + 0.5) * cols) / W));
    picks = { cols, at };
  }
  return picks.at;
}
let gatheredRow = new Float32Array(0);
const gathered = (W) => (gatheredRow.length >= W ? gatheredRow : (gatheredRow = new Float32Array(W)));

function paint(canvas, o, W, H) {
  // Where only the top is shown, a buffer of about this width never shrinks: deleting a token and
  // typing it again keeps one buffer instead of crossing a ROWS_STEP line (or a pixel of width) twice.
  const kept = keepsWidth(canvas, W);
  const WB = kept ? Math.max(canvas.width, W) : W;
  const HB = kept ? Math.max(canvas.height, bufferHeight(o, H)) : bufferHeight(o, H);
  if (canvas.width !== WB) canvas.width = WB;
  if (canvas.height !== HB) canvas.height = HB;
  const { rows, cols } = o;
  // A map with more columns than its canvas has pixels (a vocabulary of thousands) is drawn from the
  // columns the scaling would show, the one under each pixel's centre, not all of them: colouring a
  // cell costs ~20 ns here, and the Tang model's logits are 48 × 3,003 cells on ~1,100 pixels.
  const picked = !o.masked && cols > W ? pickedColumns(cols, W) : null;
  const across = picked ? W : cols;
  const cells = sharedCanvas('cells', across, rows);
  const small = cells.getContext('2d');
  const img = imageData(small, across, rows);
  const px = new Uint32Array(img.data.buffer);
  const lut = lut32Of(o.scale);
  const runs = []; // row, first, last of each run of masked cells, flat
  for (let r = 0; r < rows; r++) {
    const base = o.offset + r * o.rowStride;
    if (picked) {
      const row = gathered(W);
      for (let x = 0; x < W; x++) row[x] = o.data[base + picked[x] * o.colStride];
      fillRow(px, r * W, row, 0, 1, W, o.scale, lut);
      continue;
    }
    if (!o.masked) {
      fillRow(px, r * cols, o.data, base, o.colStride, cols, o.scale, lut);
      continue;
    }
    let first = -1;
    for (let c = 0; c <= cols; c++) {
      const masked = c < cols && o.masked(r, c);
      if (masked && first < 0) first = c;
      if (!masked && first >= 0) {
        runs.push(r, first, c);
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
  ctx.drawImage(cells, 0, 0, across, rows, 0, 0, W, H);
  const colW = W / cols;
  const rowH = H / rows;
  // A cell's first pixel column (row: y0), where drawImage's nearest-pixel scaling starts it.
  const x0 = (c) => Math.max(0, Math.ceil(c * colW - 0.5));
  const y0 = (r) => Math.max(0, Math.ceil(r * rowH - 0.5));
  if (runs.length) {
    ctx.fillStyle = hatchPattern(ctx);
    for (let i = 0; i < runs.length; i += 3) {
      const r = runs[i], first = runs[i + 1], end = runs[i + 2];
      ctx.fillRect(x0(first), y0(r), x0(end) - x0(first), y0(r + 1) - y0(r));
    }
  }
  ctx.fillStyle = gapColor(canvas);
  if (colW >= 8) for (let c = 1; c < cols; c++) if (!(o.bands && c % o.bands.size === 0)) ctx.fillRect(x0(c), 0, 1, H);
  if (rowH >= 8) for (let r = 1; r < rows; r++) ctx.fillRect(0, y0(r), W, 1);
  if (o.bands) {
    const bandW = Math.max(2, Math.round(W / 600));
    ctx.fillStyle = BAND_COLOR;
    for (let c = o.bands.size; c < cols; c += o.bands.size) ctx.fillRect(x0(c), 0, Math.min(bandW, x0(c + 1) - x0(c)), H);
  }
}
