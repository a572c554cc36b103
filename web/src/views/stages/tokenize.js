// Stage 1 picture: the tokens as chips with position above and id beneath, and T. A model of its
// own vocabulary (chars, words) writes a token it does not know <unk> (id 0), with the text it stood for.
// Live: another text is written into the chips already there, a chip added or removed only for a
// token more or less (48 new chips cost 5 ms of layout at every keystroke: their text shaped again).
import { h, live, setText } from '../../dom.js';
import { t } from '../../i18n.js';
import { frameOf } from '../parts/structure.js';
import { visibleToken } from '../../format.js';
import { ownVocabulary, UNK } from '../../modelFacts.js';

function chipToken(lang, tok, unknown) {
  if (!unknown) return h('span', { class: 'chip-tok' }, visibleToken(tok));
  return [h('span', { class: 'chip-tok chip-unk' }, '<unk>'), h('span', { class: 'chip-typed' }, t(lang, 'tokenize.unkFor', { token: tok }))];
}

function chip(lang, i, tok, id, unknown) {
  const li = h(
    'li',
    { class: 'chip', 'data-unk': unknown ? '' : null },
    h('span', { class: 'chip-pos' }, `${t(lang, 'position')} ${i}`),
    chipToken(lang, tok, unknown),
    h('span', { class: 'chip-id' }, `${t(lang, 'id')} ${id}`),
  );
  return { li, unknown, tok: li.querySelector('.chip-tok'), typed: li.querySelector('.chip-typed'), id: li.querySelector('.chip-id') };
}

export function tokenizeView(state) {
  const { lang } = state;
  const built = frameOf(state);
  const list = h('ol', { class: 'chips', 'aria-label': 'tokens' });
  const big = h('p', { class: 'big-t' });
  const chips = [];
  function fill({ result }) {
    const vocabulary = ownVocabulary(result.config);
    const T = result.tokens.length;
    while (chips.length > T) chips.pop().li.remove();
    for (let i = 0; i < T; i++) {
      const tok = result.tokens[i];
      const unknown = Boolean(vocabulary) && result.ids[i] === UNK;
      const old = chips[i];
      if (!old || old.unknown !== unknown) {
        const made = chip(lang, i, tok, result.ids[i], unknown);
        if (old) old.li.replaceWith(made.li);
        else list.append(made.li);
        chips[i] = made;
        continue;
      }
      if (unknown) setText(old.typed, t(lang, 'tokenize.unkFor', { token: tok }));
      else setText(old.tok, visibleToken(tok));
      setText(old.id, `${t(lang, 'id')} ${result.ids[i]}`);
    }
    setText(big, t(lang, 'T', { T }));
    return true;
  }
  fill(state);
  return live(h('div', { class: 'tokenize' }, list, big), (s) => frameOf(s) === built && fill(s));
}
