// Number and shape formatting shared by the views.
export const shapeText = (shape) => `(${shape.join(', ')})`;
export const shapeAttr = (shape) => shape.join(',');

export function num(v, digits = 4) {
  if (v === -Infinity) return '−∞';
  if (v === Infinity) return '∞';
  if (Number.isNaN(v)) return 'NaN';
  const s = v.toFixed(digits);
  return s.startsWith('-') ? `−${s.slice(1)}` : s;
}

// Short form for numbers printed inside cells.
export function cellNum(v) {
  if (!Number.isFinite(v)) return num(v);
  const a = Math.abs(v);
  return num(v, a >= 10 ? 1 : 2);
}

export function grouped(n, lang) {
  return n.toLocaleString(lang === 'zh' ? 'zh-CN' : 'en-US');
}
