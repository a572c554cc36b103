// A tensor view as a printable figure: one layout (a list of rects and texts) drawn two ways,
// as an SVG string and onto a canvas at PNG_SCALE × the CSS pixel size.
// spec: {name, shape, caption, note, panels: [{label, color, rows, cols, value(r,c), masked(r,c),
//        rowNotes(r)}], rowLabels, colLabels, square, numbers, scale, bands: {size, count, label(i), color(i)},
//        maskedLabel, footer}
import { lutOf, lutIndex, inkFor, headHex, MASKED_LIGHT } from '../views/parts/colors.js';
import { num, cellNum, shapeText } from '../format.js';

export const PNG_SCALE = 4; // 4 × 96 CSS dpi = 384 dpi
const FONT = 'system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", "Noto Sans SC", "PingFang SC", "Microsoft YaHei", sans-serif';
const MONO = 'ui-monospace, Menlo, Consolas, "Liberation Mono", "Noto Sans Mono CJK SC", monospace';
const INK = '#1d2330';
const MUTED = '#5d6575';
const PAD = 18;
const GAP = 14;
const CONTENT_W = 960;

let measureCtx = null;
function measure(text, size, font = FONT, weight = 400) {
  if (!measureCtx) measureCtx = document.createElement('canvas').getContext('2d');
  measureCtx.font = `${weight} ${size}px ${font}`;
  return measureCtx.measureText(text).width;
}

const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));
const rgb = (c) => `#${[0, 1, 2].map((i) => c[i].toString(16).padStart(2, '0')).join('')}`;

function cellFill(v, scale) {
  const lut = lutOf(scale);
  const k = lutIndex(v, scale) * 3;
  return rgb([lut[k], lut[k + 1], lut[k + 2]]);
}

export function layoutFigure(spec) {
  const items = [];
  const text = (x, y, s, o = {}) => items.push({ t: 'text', x, y, s: String(s), size: 12, fill: INK, anchor: 'start', weight: 400, font: FONT, ...o });
  const rect = (x, y, w, h, fill) => items.push({ t: 'rect', x, y, w, h, fill });
  const panels = spec.panels;
  const n = panels.length;
  const { rows, cols } = panels[0];
  const perRow = n === 1 ? 1 : Math.min(n, n <= 8 ? 4 : 8);
  const labelSize = 12;
  const labelW = spec.rowLabels ? Math.ceil(Math.max(...spec.rowLabels.map((l) => measure(l, labelSize)))) + 10 : 0;
  const notesW = panels.some((p) => p.rowNotes) ? Math.ceil(Math.max(...panels.flatMap((p) => (p.rowNotes ? Array.from({ length: rows }, (_, r) => measure(p.rowNotes(r), 11, MONO)) : [0])))) + 12 : 0;
  const cw = clamp((CONTENT_W - labelW - notesW - GAP * (perRow - 1)) / perRow / cols, 1, 48);
  const ch = spec.square ? cw : rows <= 32 ? clamp(cw, 20, 40) : Math.max(3, 560 / rows);
  const panelW = cols * cw;
  const colLabelH = spec.colLabels && cw >= 9 ? 18 : 0;
  const titleH = panels.some((p) => p.label) ? 20 : 0;
  const bandH = spec.bands ? 16 : 0;
  const panelH = titleH + bandH + colLabelH + rows * ch;

  let y = PAD;
  text(PAD, y + 16, spec.name, { size: 17, weight: 700, font: MONO });
  const nameW = measure(spec.name, 17, MONO, 700);
  const shape = shapeText(spec.shape);
  text(PAD + nameW + 12, y + 16, shape, { size: 15, weight: 600, font: MONO });
  let widest = PAD + nameW + 12 + measure(shape, 15, MONO, 600);
  y += 26;
  for (const line of [spec.caption, spec.note].filter(Boolean)) {
    text(PAD, y + 13, line, { size: 13, fill: MUTED });
    widest = Math.max(widest, PAD + measure(line, 13));
    y += 20;
  }
  y += 8;

  const gridX = PAD + labelW;
  for (let p = 0; p < n; p++) {
    const panel = panels[p];
    const col = p % perRow;
    const row = Math.floor(p / perRow);
    const px = gridX + col * (panelW + notesW + GAP);
    let py = y + row * (panelH + GAP);
    if (panel.label) {
      const color = panel.color || INK;
      text(px, py + 13, panel.label, { size: 13, weight: 700, fill: color });
      rect(px, py + 16, panelW, 2.5, color);
      py += titleH;
    }
    if (spec.bands) {
      const { size, count, label, color } = spec.bands;
      for (let i = 0; i < count; i++) {
        const bx = px + i * size * cw;
        rect(bx + 0.5, py, size * cw - 1, bandH - 3, headHex(color ? color(i) : i));
        const s = label ? label(i) : String(i);
        if (measure(s, 10, MONO) < size * cw - 2) text(bx + (size * cw) / 2, py + 10, s, { size: 10, fill: '#fff', anchor: 'middle', font: MONO });
      }
      py += bandH;
    }
    if (colLabelH) {
      // Tokens where they fit, else their positions (the row labels say which token each is).
      const fits = spec.colLabels.every((l) => measure(l, 11) <= cw - 2);
      const maxChars = Math.max(1, Math.floor(cw / 7));
      spec.colLabels.forEach((l, c) => {
        const s = !fits && cw < 28 ? String(c) : [...l].length > maxChars ? `${[...l].slice(0, maxChars - 1).join('')}…` : l;
        text(px + (c + 0.5) * cw, py + 12, s, { size: 11, fill: MUTED, anchor: 'middle' });
      });
      py += colLabelH;
    }
    if (col === 0 && spec.rowLabels) {
      spec.rowLabels.forEach((l, r) => {
        if (ch >= 9) text(gridX - 8, py + (r + 0.5) * ch + 4, l, { size: labelSize, anchor: 'end' });
      });
    }
    const gap = cw >= 8 && ch >= 8 ? 1 : 0;
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const x = px + c * cw;
        const yy = py + r * ch;
        if (panel.masked && panel.masked(r, c)) {
          items.push({ t: 'hatch', x, y: yy, w: cw - gap, h: ch - gap });
          continue;
        }
        const v = panel.value(r, c);
        rect(x, yy, cw - gap, ch - gap, cellFill(v, spec.scale));
        if (spec.numbers && cw >= 30 && ch >= 16) text(x + cw / 2, yy + ch / 2 + 4, cellNum(v), { size: 11, anchor: 'middle', fill: inkFor(v, spec.scale), font: MONO });
      }
      if (panel.rowNotes) text(px + panelW + 8, py + (r + 0.5) * ch + 4, panel.rowNotes(r), { size: 11, fill: MUTED, font: MONO });
    }
  }
  const panelRows = Math.ceil(n / perRow);
  y += panelRows * panelH + (panelRows - 1) * GAP + 14;
  widest = Math.max(widest, gridX + Math.min(n, perRow) * (panelW + notesW + GAP) - GAP);

  // Legend: the colour scale with its ends, and the masked swatch.
  const lo = spec.scale.kind === 'sequential' ? 0 : -spec.scale.max;
  const loText = num(lo, 2);
  let lx = PAD;
  text(lx, y + 10, loText, { size: 11, fill: MUTED, font: MONO });
  lx += measure(loText, 11, MONO) + 6;
  items.push({ t: 'gradient', x: lx, y: y + 1, w: 160, h: 10, stops: gradientStops(spec.scale) });
  lx += 166;
  const hiText = num(spec.scale.max, 2);
  text(lx, y + 10, hiText, { size: 11, fill: MUTED, font: MONO });
  lx += measure(hiText, 11, MONO);
  if (spec.maskedLabel) {
    lx += 16;
    items.push({ t: 'hatch', x: lx, y: y + 1, w: 16, h: 10 });
    text(lx + 22, y + 10, spec.maskedLabel, { size: 11, fill: MUTED });
    lx += 22 + measure(spec.maskedLabel, 11);
  }
  widest = Math.max(widest, lx);
  y += 24;
  if (spec.footer) {
    text(PAD, y + 10, spec.footer, { size: 11, fill: MUTED });
    widest = Math.max(widest, PAD + measure(spec.footer, 11));
    y += 18;
  }
  return { width: Math.ceil(widest + PAD), height: Math.ceil(y + PAD - 6), items };
}

function gradientStops(scale) {
  const lut = lutOf(scale);
  return Array.from({ length: 9 }, (_, i) => {
    const k = Math.round((i / 8) * 255) * 3;
    return { at: i / 8, color: rgb([lut[k], lut[k + 1], lut[k + 2]]) };
  });
}

const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const r2 = (v) => Math.round(v * 100) / 100;

export function figureSvg(fig) {
  const out = [];
  let gradients = 0;
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${fig.width}" height="${fig.height}" viewBox="0 0 ${fig.width} ${fig.height}">`);
  out.push(`<defs><pattern id="masked" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="${rgb(MASKED_LIGHT)}"/><rect width="2.5" height="6" fill="#c3c3cc"/></pattern></defs>`);
  out.push(`<rect width="${fig.width}" height="${fig.height}" fill="#fff"/>`);
  for (const it of fig.items) {
    if (it.t === 'rect') out.push(`<rect x="${r2(it.x)}" y="${r2(it.y)}" width="${r2(it.w)}" height="${r2(it.h)}" fill="${it.fill}"/>`);
    else if (it.t === 'hatch') out.push(`<rect x="${r2(it.x)}" y="${r2(it.y)}" width="${r2(it.w)}" height="${r2(it.h)}" fill="url(#masked)"/>`);
    else if (it.t === 'gradient') {
      const id = `scale${gradients++}`;
      out.push(`<defs><linearGradient id="${id}">${it.stops.map((s) => `<stop offset="${s.at}" stop-color="${s.color}"/>`).join('')}</linearGradient></defs>`);
      out.push(`<rect x="${r2(it.x)}" y="${r2(it.y)}" width="${it.w}" height="${it.h}" rx="2" fill="url(#${id})" stroke="#d9dde3"/>`);
    } else if (it.t === 'text') {
      const anchor = it.anchor === 'start' ? '' : ` text-anchor="${it.anchor}"`;
      const weight = it.weight === 400 ? '' : ` font-weight="${it.weight}"`;
      out.push(`<text x="${r2(it.x)}" y="${r2(it.y)}" font-family="${esc(it.font)}" font-size="${it.size}"${weight}${anchor} fill="${it.fill}">${esc(it.s)}</text>`);
    }
  }
  out.push('</svg>');
  return out.join('\n');
}

export function figureCanvas(fig, scale = PNG_SCALE) {
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(fig.width * scale);
  canvas.height = Math.round(fig.height * scale);
  const ctx = canvas.getContext('2d');
  ctx.scale(scale, scale);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, fig.width, fig.height);
  for (const it of fig.items) {
    if (it.t === 'rect') {
      ctx.fillStyle = it.fill;
      ctx.fillRect(it.x, it.y, it.w, it.h);
    } else if (it.t === 'hatch') {
      ctx.save();
      ctx.beginPath();
      ctx.rect(it.x, it.y, it.w, it.h);
      ctx.clip();
      ctx.fillStyle = rgb(MASKED_LIGHT);
      ctx.fillRect(it.x, it.y, it.w, it.h);
      ctx.strokeStyle = '#c3c3cc';
      ctx.lineWidth = 2.5;
      for (let d = -it.h; d < it.w + it.h; d += 6) {
        ctx.beginPath();
        ctx.moveTo(it.x + d, it.y + it.h);
        ctx.lineTo(it.x + d + it.h, it.y);
        ctx.stroke();
      }
      ctx.restore();
    } else if (it.t === 'gradient') {
      const g = ctx.createLinearGradient(it.x, 0, it.x + it.w, 0);
      for (const s of it.stops) g.addColorStop(s.at, s.color);
      ctx.fillStyle = g;
      ctx.fillRect(it.x, it.y, it.w, it.h);
      ctx.strokeStyle = '#d9dde3';
      ctx.lineWidth = 1;
      ctx.strokeRect(it.x, it.y, it.w, it.h);
    } else if (it.t === 'text') {
      ctx.font = `${it.weight} ${it.size}px ${it.font}`;
      ctx.fillStyle = it.fill;
      ctx.textAlign = it.anchor === 'middle' ? 'center' : it.anchor === 'end' ? 'right' : 'left';
      ctx.textBaseline = 'alphabetic';
      ctx.fillText(it.s, it.x, it.y);
    }
  }
  return canvas;
}
