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

// Thousands separators, as en-US and zh-CN both write whole numbers (1,050,624). By hand: the first
// toLocaleString() of a page loads ICU's number data, tens of ms in the middle of a redraw.
export function grouped(n, lang) { // eslint-disable-line no-unused-vars
  if (!Number.isInteger(n)) return String(n);
  const s = String(Math.abs(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return n < 0 ? `-${s}` : s;
}

// Row labels of a tensor: each token with its position, "0 我".
export function tokenLabels(tokens) {
  return tokens.map((tok, i) => `${i} ${visibleToken(tok)}`);
}

// A token as it is read aloud (a heatmap's cell, its description): the token, then its position.
export const tokenName = (tokens, i) => `${visibleToken(tokens[i])} (${i})`;
// A token named on its own (a prediction, an answer): a line break — the poems' token between lines —
// as ↵ and a space as ␣, never an empty cell.
export const visibleToken = (s) => (s === '\n' ? '↵' : s === ' ' ? '␣' : s);

// Text to put inside HTML (or an attribute value) as it is.
export const escapeHtml = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

// The k largest entries' indices of one row of probabilities, largest first (ties: the lower index):
// one pass with a small sorted list, so a GPT-2 row of 50,257 is not sorted whole.
export function topIds(p, k) {
  const top = [];
  for (let i = 0; i < p.length; i++) {
    if (top.length === k && p[i] <= p[top[k - 1]]) continue;
    let at = top.length === k ? k - 1 : top.length;
    while (at > 0 && p[top[at - 1]] < p[i]) at--;
    top.splice(at, 0, i);
    if (top.length > k) top.pop();
  }
  return top;
}
