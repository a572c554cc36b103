// What is around a heatmap's cells: the token labels, the head bands, the tooltip, and the small
// DOM helpers both kinds of map (mapCanvas.js, numberGrid.js) use to change them in place.
import { h, setText, setAttr } from '../../dom.js';
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

// The token labels left of a map, one a row, rowHeight CSS px each; relabelled in place (fillRowLabels).
export function rowLabelColumn(o, rowHeight) {
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
