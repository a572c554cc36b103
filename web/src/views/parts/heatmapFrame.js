// What is around a heatmap's cells: the token labels, the head bands, the tooltip, and the small
// DOM helpers both kinds of map (mapCanvas.js, numberGrid.js) use to change them in place.
import { h, setText } from '../../dom.js';
import { num } from '../../format.js';
import { headColor } from './colors.js';
import { showTip, hideTip } from './tooltip.js';

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

export function setAttr(el, name, value) {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

export const mapLabel = (o) => `${o.tensor} heatmap, ${o.rows} × ${o.cols}`;

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
