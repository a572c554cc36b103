// A labelled heatmap of one 2-D slice of a tensor: a <canvas> painted pixel by pixel (ImageData) at
// device-pixel resolution, or for small slices with printed numbers a grid of labels around one
// canvas of numbered cells. updateHeatmap() gives a drawn heatmap new values in place (a new seed,
// the causal mask): its canvas is repainted, no node is added, so nothing is laid out again.
// The parts: heatmapFrame.js (labels, bands, tooltip), mapCanvas.js, numberGrid.js, legend.js.
import { setAttr } from '../../dom.js';
import { repaint, repaintResized } from './canvasRegistry.js';
import { fillLabelBlock, mapLabel, rowHeightOf, setStyle } from './heatmapFrame.js';
import { aspectOf, canvasMap } from './mapCanvas.js';
import { fillNumbers, numberGrid, regrid } from './numberGrid.js';
export { legend, updateLegend } from './legend.js';
export { fillLabelBlock, labelBlock, rowHeightFor } from './heatmapFrame.js';

const drawn = new WeakMap(); // heatmap node -> its options, which updateHeatmap() changes

// opts: {tensor, data, rows, cols, offset, rowStride, colStride, index(r,c) -> number[],
//        rowLabels, colLabels, scale, masked(r,c), numbers, bands {size, count}, rowHeight,
//        square, rowSums(r) -> string (numbers only), describe(r,c) -> string, sumLabel,
//        lang, title (its name read aloud, before the tensor's), rowName(r) / colName(c) (a row
//        or column read aloud; the labels or the index by default), strongest (attention weights:
//        the label names each row's largest entry)}
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
  const aspect = o.square && !o.numbered ? aspectOf(o) : null;
  Object.assign(o, patch);
  // A square map keeps its box for any T × T: its canvas is drawn now, at the size it has.
  const boxChanged = resized && !(aspect && aspect === aspectOf(o));
  if ('cols' in patch && !('rowStride' in patch)) o.rowStride = o.cols * o.colStride;
  if (resized || relabelled) {
    if (o.numbered) regrid(o);
    else {
      if (o.square) setStyle(o.canvas, 'aspectRatio', aspectOf(o)); // unchanged for T × T: no new layout
      else o.canvas.style.height = `${o.rows * rowHeightOf(o)}px`;
      if (o.rowLabelBlock) fillLabelBlock(o.rowLabelBlock, o.rowLabels, rowHeightOf(o));
    }
  }
  if (o.numbered) fillNumbers(o);
  else setAttr(o.canvas, 'aria-label', mapLabel(o)); // its summary follows the values
  if (boxChanged) repaintResized(o.canvas); // drawn once, at the size the new rows give it
  else repaint(o.canvas);
}
