// The concat picture: the concatenation, with a coloured band over each head's columns.
import { h } from '../../dom.js';
import { matrixTensor } from '../parts/matrix.js';
import { t } from '../../i18n.js';
import { liveView, frameOf } from '../parts/structure.js';

export function concatView(state) {
  const { heads, dHead } = state.result.config;
  const card = matrixTensor(state, 'concat', { bands: { size: dHead, count: heads, label: (i) => `h${i}` } });
  return liveView(h('div', { class: 'stack' }, card, h('p', { class: 'hint' }, t(state.lang, 'hover'))), state, [card], frameOf);
}
