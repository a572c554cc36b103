// The box of messages that have no control to sit beside: bad attributes, a file or URL that could
// not be opened, heads to switch off that do not exist — and, outside the full controls, every error.
import { h, clear } from '../../dom.js';
import { t } from '../../i18n.js';
import { localMessage } from '../../messages.js';
import { ATTR_OF } from '../../attributes.js';

// Errors of these settings keys have no control of their own, even with the full controls.
const WITHOUT_CONTROL = ['weights', 'switchedOff', 'model'];

export function renderProblems(box, state) {
  const L = state.lang;
  const list = [...state.attrErrors];
  for (const [key, error] of Object.entries(state.errors)) {
    if (state.controls !== 'full' || WITHOUT_CONTROL.includes(key)) list.push({ attribute: ATTR_OF[key] || key, message: error });
  }
  if (box.hidden !== (list.length === 0)) box.hidden = list.length === 0; // on every result: written only when it changes
  if (box.hidden) {
    if (box.firstChild) clear(box);
    return;
  }
  box.replaceChildren(
    h('p', { class: 'attr-errors-title' }, t(L, 'attrError')),
    h('ul', {}, list.map((e) => h('li', { 'data-attribute': e.attribute }, h('code', {}, e.attribute), ' ', localMessage(e.message, L)))),
    state.result ? h('p', { class: 'attr-errors-note' }, t(L, 'staleBox')) : null,
  );
}
