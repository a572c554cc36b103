// Colour scales as 256-entry lookup tables: diverging (blue – white – red) for signed values,
// sequential (white – teal) for attention weights in [0, 1]. Also the per-head band colours.
function lerp(a, b, t) {
  return a + (b - a) * t;
}

function buildLut(stops) {
  const lut = new Uint8ClampedArray(256 * 3);
  for (let i = 0; i < 256; i++) {
    const t = i / 255;
    let k = 0;
    while (k < stops.length - 2 && t > stops[k + 1][0]) k++;
    const [t0, c0] = stops[k];
    const [t1, c1] = stops[k + 1];
    const u = (t - t0) / (t1 - t0);
    for (let j = 0; j < 3; j++) lut[i * 3 + j] = Math.round(lerp(c0[j], c1[j], u));
  }
  return lut;
}

const DIVERGING = buildLut([
  [0, [33, 80, 155]],
  [0.25, [110, 160, 210]],
  [0.5, [247, 247, 245]],
  [0.75, [226, 130, 100]],
  [1, [165, 30, 40]],
]);
const SEQUENTIAL = buildLut([
  [0, [250, 250, 248]],
  [0.35, [160, 212, 200]],
  [0.7, [40, 140, 135]],
  [1, [10, 70, 80]],
]);

export const MASKED_LIGHT = [230, 230, 234]; // #e6e6ea, the legend swatch's stripes (widget.css)
export const MASKED_DARK = [195, 195, 204]; // #c3c3cc

// scale: {kind: 'diverging', max} or {kind: 'sequential', max}. A NaN has no index (NaN): no colour.
const sequentialIndex = (t) => Math.max(0, Math.min(255, Math.round(t * 255)));
const divergingIndex = (t) => Math.max(0, Math.min(255, Math.round((t + 1) * 127.5)));
export function lutIndex(v, scale) {
  const t = scale.max > 0 ? v / scale.max : 0;
  return scale.kind === 'sequential' ? sequentialIndex(t) : divergingIndex(t);
}

// lutIndex's colours of n values, data[base + c·stride] for c < n, written as lut's words into
// px[at + c]: a map's row in one call with the scale's kind decided once (a call of lutIndex for
// each cell cost 3.5 ms of the Tang model's logits map, 48 × 3,003 cells, at every change).
export function fillRow(px, at, data, base, stride, n, scale, lut) {
  const max = scale.max;
  if (!(max > 0)) {
    px.fill(lut[lutIndex(0, scale)], at, at + n); // no scale: every value at t = 0, as lutIndex
    return;
  }
  if (scale.kind === 'sequential') {
    for (let c = 0; c < n; c++) px[at + c] = lut[sequentialIndex(data[base + c * stride] / max)];
  } else {
    for (let c = 0; c < n; c++) px[at + c] = lut[divergingIndex(data[base + c * stride] / max)];
  }
}

export function lutOf(scale) {
  return scale.kind === 'sequential' ? SEQUENTIAL : DIVERGING;
}

// WCAG 2 relative luminance of an sRGB colour.
const linear = (c) => ((c /= 255) <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
const luminance = (r, g, b) => 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);

// Text colour readable on a background: white or black, whichever has the greater WCAG contrast
// ratio against it — never under 4.58:1, the ratio where the two are equal. (A luma cut-off with the
// page's #1d2330 left some mid reds and teals at 2.9:1; even the better of those two inks reaches
// only 4.0:1 on some colours.)
export function inkOn(r, g, b) {
  const L = luminance(r, g, b);
  return (1 + 0.05) / (L + 0.05) >= (L + 0.05) / 0.05 ? '#fff' : '#000';
}

// A value's cell colour on a scale, as [r, g, b].
export function colorOf(v, scale) {
  const lut = lutOf(scale);
  const i = lutIndex(v, scale) * 3;
  return [lut[i], lut[i + 1], lut[i + 2]];
}

// Text colour readable on top of a cell colour.
export function inkFor(v, scale) {
  return inkOn(...colorOf(v, scale));
}

export function gradientCss(scale) {
  const lut = lutOf(scale);
  const stops = [];
  for (let i = 0; i <= 8; i++) {
    const k = Math.round((i / 8) * 255) * 3;
    stops.push(`rgb(${lut[k]}, ${lut[k + 1]}, ${lut[k + 2]}) ${(i / 8) * 100}%`);
  }
  return `linear-gradient(to right, ${stops.join(', ')})`;
}

// Maximum |value| over the finite entries of data[from, to).
export function maxAbs(data, from = 0, to = data.length) {
  let m = 0;
  for (let i = from; i < to; i++) {
    const a = Math.abs(data[i]);
    if (a > m && a !== Infinity) m = a;
  }
  return m;
}

// The heads' colours, for text on the panel and as bands behind --on-accent text: on white (light)
// and on the dark panel (dark, widget.css). Chosen by search so that every pair stays apart, CIEDE2000
// ≥ 10, for normal vision and under simulated protanopia, deuteranopia and tritanopia (Machado 2009),
// each at ≥ 4.7:1 against its panel (tests/browser/colors.test.js measures both).
export const HEAD_COLORS = ['#0338fc', '#b5000b', '#0a6f39', '#7c355a', '#137bac', '#e6004a', '#0c4c9a', '#ba4d6f'];
const HEAD_COLORS_DARK = ['#868dfe', '#f66d09', '#78a269', '#ca8398', '#3ee2c9', '#edca01', '#e3b9fa', '#afd48f'];

// On the page: a custom property, so the head follows the colour scheme.
export function headColor(h) {
  return `var(--head-${h % HEAD_COLORS.length})`;
}

// In an exported figure (always light): the colour itself.
export function headHex(h) {
  return HEAD_COLORS[h % HEAD_COLORS.length];
}

// The custom properties headColor names, for the shadow root's stylesheet.
export function headColorCss() {
  const props = (list) => list.map((c, i) => `--head-${i}: ${c};`).join(' ');
  return `:host { ${props(HEAD_COLORS)} }\n@media (prefers-color-scheme: dark) { :host { ${props(HEAD_COLORS_DARK)} } }\n`;
}
