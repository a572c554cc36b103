// Stage 7 picture: y after W_O, next to the concatenation it came from (bands gone: heads mixed).
import { h } from '../dom.js';
import { matrixTensor } from './matrix.js';
import { t } from '../i18n.js';

export function outputView(state) {
  return h('div', { class: 'stack' }, matrixTensor(state, 'y'), h('p', { class: 'hint' }, t(state.lang, 'hover')));
}
