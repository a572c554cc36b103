// A small heatmap with its numbers printed: labels and row sums in a CSS grid around one canvas of
// numbered cells.
import { h, setText, setAttr } from '../../dom.js';
import { cellNum } from '../../format.js';
import { lutIndex, inkFor } from './colors.js';
import { observeCanvas } from './canvasRegistry.js';
import { mapLabel, resizeChildren, setStyle, tipsOn } from './heatmapFrame.js';
import { keysOn } from './mapKeys.js';
import { hatchPattern, lut32Of, rowsHeld, sharedCanvas, showTop } from './mapCanvas.js';

// A grid with numbers (the enlarged head, the worked example): token labels, column labels and row
// sums are DOM in a CSS grid, the cells one canvas over their grid area, with their numbers drawn
// into it. Numbers as DOM text cost a layout of every cell on each new result (T = 14: ~9 ms);
// drawn, a new result is only a repaint. The canvas's aria-label reads the numbers row by row.
const CELL_H = 26; // CSS px: 12px monospace numbers with their padding
const CELL_GAP = 2;
const CELL_RADIUS = 3;
const MASKED_INK = '#555';

export function numberGrid(o) {
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
  // The ring is one more item of the grid, in the cell's grid area, over the canvas.
  const [ring, readout] = keysOn(canvas, o, (el, r, c) => {
    setStyle(el, 'gridRow', String(o.gridTop + r));
    setStyle(el, 'gridColumn', String(o.gridLeft + c));
  });
  o.grid.append(ring);
  fillNumbers(o);
  // It scrolls sideways in a narrow column; the canvas is focusable, so a keyboard scrolls it too.
  return h('div', { class: 'hm hm-numbers' }, o.grid, readout);
}

// A numbers grid's template and labels for its rows, columns and labels (built, or another T): a
// label is added or removed only for a row or column more or less, a kept one rewritten where it
// changed. The labels and sums are placed on the grid, so the order they are made in is the order
// a grid built at once has: column labels, the sums' head, then a row label and sum per row.
export function regrid(o) {
  const hasSums = typeof o.rowSums === 'function';
  const top = o.colLabels ? 2 : 1; // the grid row of the first data row
  const left = o.rowLabels ? 2 : 1; // the grid column of the first data column
  const { grid, canvas } = o;
  o.gridTop = top;
  o.gridLeft = left;
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
export function fillNumbers(o) {
  const rows = [];
  for (let r = 0; r < o.rows; r++) {
    const cells = [];
    for (let c = 0; c < o.cols; c++) cells.push(cellText(o, r, c));
    const sum = o.sums[r];
    if (sum) setText(sum.el, o.rowSums(r));
    rows.push(`${o.rowLabels ? `${o.rowLabels[r]}: ` : ''}${cells.join(', ')}${sum ? ` (${sum.el.textContent})` : ''}`);
  }
  o.canvas.setAttribute('aria-label', `${mapLabel(o)}: ${rows.join('; ')}`);
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
