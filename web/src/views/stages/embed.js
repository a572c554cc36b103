// Stage 2 picture: token_embedding + position_encoding = x, stacked with the operators between them.
// The captions say what the model's embedding is: seeded rows × √d_model and sinusoids (a single
// layer), or rows of a token and a position table, learned or random (modelFacts.js).
import { h } from '../../dom.js';
import { t } from '../../i18n.js';
import { matrixTensor } from '../parts/matrix.js';
import { liveView, frameOf } from '../parts/structure.js';
import { scaledEmbedding, tableKind } from '../../modelFacts.js';

export function embedView(state) {
  const { config } = state.result;
  const caption = (name) => (scaledEmbedding(config) || name === 'x' ? undefined : t(state.lang, `cap.${name}.${tableKind(config)}`));
  const cards = ['token_embedding', 'position_encoding', 'x'].map((name) => matrixTensor(state, name, { caption: caption(name) }));
  const op = (sign) => h('div', { class: 'op', 'aria-hidden': 'true' }, sign);
  return liveView(h('div', { class: 'stack' }, cards[0], op('+'), cards[1], op('='), cards[2]), state, cards, frameOf);
}
