// A heatmap's colour legend: the gradient with its end values, and the masked swatch when relevant.
import { h, setText } from '../../dom.js';
import { num } from '../../format.js';
import { gradientCss } from './colors.js';

// A small colour legend: the gradient with its end values, plus the masked swatch when relevant.
// updateLegend() changes the end values and the swatch in place.
export function legend(scale, { maskedLabel } = {}) {
  const node = h(
    'div',
    { class: 'legend', 'aria-hidden': 'true' },
    h('span', { class: 'legend-num' }),
    h('span', { class: 'legend-bar' }),
    h('span', { class: 'legend-num' }),
    h('span', { class: 'legend-masked' }, h('span', { class: 'swatch-masked' }), h('span', {}, '')),
  );
  updateLegend(node, scale, { maskedLabel });
  return node;
}

const legendKinds = new WeakMap(); // legend -> the scale kind its bar shows

export function updateLegend(node, scale, { maskedLabel } = {}) {
  const [lo, bar, hi, masked] = node.children;
  setText(lo, num(scale.kind === 'sequential' ? 0 : -scale.max, 2));
  setText(hi, num(scale.max, 2));
  if (legendKinds.get(node) !== scale.kind) {
    bar.style.background = gradientCss(scale);
    legendKinds.set(node, scale.kind);
  }
  if (masked.hidden !== !maskedLabel) masked.hidden = !maskedLabel;
  setText(masked.lastChild, maskedLabel || '');
}
