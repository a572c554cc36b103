// Stage 2 picture: token_embedding + position_encoding = x, stacked with the operators between them.
import { h } from '../dom.js';
import { matrixTensor } from './matrix.js';

export function embedView(state) {
  return h(
    'div',
    { class: 'stack' },
    matrixTensor(state, 'token_embedding'),
    h('div', { class: 'op', 'aria-hidden': 'true' }, '+'),
    matrixTensor(state, 'position_encoding'),
    h('div', { class: 'op', 'aria-hidden': 'true' }, '='),
    matrixTensor(state, 'x'),
  );
}
