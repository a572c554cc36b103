// Stage 1 picture: the tokens as chips with position above and id beneath, and T.
import { h } from '../../dom.js';
import { t } from '../../i18n.js';
import { liveView } from '../parts/structure.js';

export function tokenizeView(state) {
  const { result, lang } = state;
  const view = h(
    'div',
    { class: 'tokenize' },
    h(
      'ol',
      { class: 'chips', 'aria-label': 'tokens' },
      result.tokens.map((tok, i) =>
        h(
          'li',
          { class: 'chip' },
          h('span', { class: 'chip-pos' }, `${t(lang, 'position')} ${i}`),
          h('span', { class: 'chip-tok' }, tok),
          h('span', { class: 'chip-id' }, `${t(lang, 'id')} ${result.ids[i]}`),
        ),
      ),
    ),
    h('p', { class: 'big-t' }, t(lang, 'T', { T: result.tokens.length })),
  );
  return liveView(view, state); // drawn from the tokens alone
}
