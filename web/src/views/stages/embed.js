// Stage 2 picture: token_embedding + position_encoding = x, stacked with the operators between them.
import { h } from '../../dom.js';
import { matrixTensor } from '../parts/matrix.js';
import { liveView, frameOf } from '../parts/structure.js';

export function embedView(state) {
  const cards = ['token_embedding', 'position_encoding', 'x'].map((name) => matrixTensor(state, name));
  const op = (sign) => h('div', { class: 'op', 'aria-hidden': 'true' }, sign);
  return liveView(h('div', { class: 'stack' }, cards[0], op('+'), cards[1], op('='), cards[2]), state, cards, frameOf);
}
