// What is around a heatmap's cells: the token labels, the head bands, the tooltip, and the small
// DOM helpers both kinds of map (mapCanvas.js, numberGrid.js) use to change them in place.
import { h, setText } from '../../dom.js';
import { num } from '../../format.js';
import { headColor } from './colors.js';
import { showTip, hideTip } from './tooltip.js';
import { t } from '../../i18n.js';

export const rowHeightOf = (o) => o.rowHeight || rowHeightFor(o.rows);

// Grows the element list to n with make(i), each inserted into parent before `before` (or last),
// or shrinks it, removing the extra ones from the page.
export function resizeChildren(list, n, make, parent, before = null) {
  while (list.length > n) list.pop().remove();
  while (list.length < n) {
    const el = make(list.length);
    parent.insertBefore(el, before);
    list.push(el);
  }
  return list;
}

// Sets a style property only when it differs (the same value written again is still a change).
export function setStyle(el, prop, value) {
  if (el.style[prop] !== value) el.style[prop] = value;
}


// How a row or column is named to a listener: its label, else its index.
const rowName = (o, r) => (o.rowName ? o.rowName(r) : o.rowLabels ? o.rowLabels[r] : String(r));
const colName = (o, c) => (o.colName ? o.colName(c) : o.colLabels ? o.colLabels[c] : String(c));
const STRONGEST_ROWS = 8; // a description read aloud stays short

// The map's accessible name: what it is and its shape, and for attention weights (o.strongest) the
// column each of the first rows looks at most, the picture's story in words.
export function mapLabel(o) {
  const name = o.title ? `${o.title}, ${o.tensor}` : o.tensor;
  const parts = [t(o.lang, 'map.label', { name, rows: o.rows, cols: o.cols })];
  if (o.strongest) {
    const top = [];
    for (let r = 0; r < Math.min(o.rows, STRONGEST_ROWS); r++) {
      let best = -1;
      for (let c = 0; c < o.cols; c++) if (!(o.masked && o.masked(r, c)) && (best < 0 || o.value(r, c) > o.value(r, best))) best = c;
      if (best >= 0) top.push(`${rowName(o, r)}→${colName(o, best)} ${num(o.value(r, best), 2)}`);
    }
    const more = o.rows > STRONGEST_ROWS ? t(o.lang, 'map.more', { n: o.rows - STRONGEST_ROWS }) : '';
    parts.push(t(o.lang, 'map.strongest', { list: top.join(', ') + more }));
  }
  parts.push(t(o.lang, 'map.keys'));
  return parts.join('; ');
}

// What the keyboard cursor says of a cell (mapKeys.js).
export function cellReadout(o, r, c) {
  const value = o.masked && o.masked(r, c) ? t(o.lang, 'masked') : num(o.value(r, c));
  return t(o.lang, 'map.cell', { row: rowName(o, r), col: colName(o, c), value });
}

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
export function tipsOn(canvas, o, cellAt) {
  canvas.addEventListener('mousemove', (ev) => {
    const rect = canvas.getBoundingClientRect();
    const cell = cellAt(ev.clientX - rect.left, ev.clientY - rect.top, rect);
    if (cell) showTip(tipLines(o, cell[0], cell[1]), ev.clientX, ev.clientY, canvas);
    else hideTip();
  });
  canvas.addEventListener('mouseleave', hideTip);
}

// The token labels left of a map, one a row, rowHeight CSS px each, as one block of text
// (fillLabelBlock); the pointer over a label shows it whole (the column cuts long ones short).
export function rowLabelColumn(o, rowHeight) {
  if (!o.rowLabels) return null;
  const block = (o.rowLabelBlock = labelBlock(o.rowLabels, rowHeight));
  block.addEventListener('mousemove', (ev) => {
    const r = Math.floor((ev.clientY - block.getBoundingClientRect().top) / rowHeightOf(o));
    if (r >= 0 && r < o.rowLabels.length) showTip([o.rowLabels[r]], ev.clientX, ev.clientY, block);
    else hideTip();
  });
  block.addEventListener('mouseleave', hideTip);
  return h('div', { class: 'hm-rowlabels', 'aria-hidden': 'true' }, block);
}

// Token labels as one block of text, a line a row, rowHeight CSS px each: one element where a label
// a row made T of them, which Chromium laid out and shaped again on every text change (the split
// stage's three cards and the maps of the other stages: 3 × 64 at T 64 each). The columns are
// aria-hidden: a map's rows are read aloud from its cells (mapKeys.js).
// A label's own line break is drawn as ↵ (visibleToken's sign for one) so that it cannot start a
// row of its own, and a tab as a space, as the labels' white-space collapsed it before.
export function fillLabelBlock(el, labels, rowHeight) {
  const px = `${rowHeight}px`;
  setStyle(el, 'height', `${rowHeight * labels.length}px`);
  setStyle(el, 'lineHeight', px);
  setStyle(el, 'fontSize', `${Math.min(13, Math.max(8, rowHeight - 4))}px`);
  setText(el, rowHeight >= 9 ? labels.map((l) => l.replace(/\r\n?|\n/g, '↵').replace(/\t/g, ' ')).join('\n') : '');
  return el;
}

// A new label block (fillLabelBlock), for a map's own column or the tiles' shared one.
export const labelBlock = (labels, rowHeight) => fillLabelBlock(h('div', { class: 'hm-rowlabel-block' }), labels, rowHeight);

export function bandBar(o) {
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
