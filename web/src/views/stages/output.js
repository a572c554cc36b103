// The output picture: y after W_O, next to the concatenation it came from (bands gone: heads mixed).
import { h } from '../../dom.js';
import { matrixTensor } from '../parts/matrix.js';
import { t } from '../../i18n.js';
import { liveView, frameOf } from '../parts/structure.js';

export function outputView(state) {
  const card = matrixTensor(state, 'y', { caption: state.result.config.biases ? undefined : t(state.lang, 'cap.y.noBias') });
  return liveView(h('div', { class: 'stack' }, card, h('p', { class: 'hint' }, t(state.lang, 'hover'))), state, [card], frameOf);
}
