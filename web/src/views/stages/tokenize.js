// Stage 1 picture: the tokens as chips with position above and id beneath, and T. A model of its
// own vocabulary (chars, words) writes a token it does not know <unk> (id 0), with the text it stood for.
import { h } from '../../dom.js';
import { t } from '../../i18n.js';
import { liveView } from '../parts/structure.js';
import { ownVocabulary } from '../../modelFacts.js';

const UNK = 0; // vocab_tokenizer.h's kUnk

function chipToken(lang, tok, unknown) {
  if (!unknown) return h('span', { class: 'chip-tok' }, tok);
  return [h('span', { class: 'chip-tok chip-unk' }, '<unk>'), h('span', { class: 'chip-typed' }, t(lang, 'tokenize.unkFor', { token: tok }))];
}

export function tokenizeView(state) {
  const { result, lang } = state;
  const vocabulary = ownVocabulary(result.config);
  const view = h(
    'div',
    { class: 'tokenize' },
    h(
      'ol',
      { class: 'chips', 'aria-label': 'tokens' },
      result.tokens.map((tok, i) =>
        h(
          'li',
          { class: 'chip', 'data-unk': vocabulary && result.ids[i] === UNK ? '' : null },
          h('span', { class: 'chip-pos' }, `${t(lang, 'position')} ${i}`),
          chipToken(lang, tok, vocabulary && result.ids[i] === UNK),
          h('span', { class: 'chip-id' }, `${t(lang, 'id')} ${result.ids[i]}`),
        ),
      ),
    ),
    h('p', { class: 'big-t' }, t(lang, 'T', { T: result.tokens.length })),
  );
  return liveView(view, state); // drawn from the tokens alone
}
