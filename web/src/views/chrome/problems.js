// The box of messages that have no control to sit beside: bad attributes, a file or URL that could
// not be opened, heads to switch off that do not exist — and, outside the full controls, every error.
import { h, clear } from '../../dom.js';
import { t } from '../../i18n.js';
import { localMessage } from '../../messages.js';
import { ATTR_OF } from '../../attributes.js';

// Errors of these settings keys have no control of their own, even with the full controls.
const WITHOUT_CONTROL = ['weights', 'switchedOff', 'model'];

// Whether a settings key's error is shown next to its control (and highlights it).
export const atControl = (state, key) => state.controls === 'full' && !WITHOUT_CONTROL.includes(key);

export function renderProblems(box, state) {
  const L = state.lang;
  const list = [...state.attrErrors];
  for (const [key, error] of Object.entries(state.errors)) {
    if (!atControl(state, key)) list.push({ attribute: ATTR_OF[key] || key, message: error });
  }
  const gone = state.unavailable;
  if (gone) list.push({ attribute: gone.attribute, message: gone.message });
  if (box.hidden !== (list.length === 0)) box.hidden = list.length === 0; // on every result: written only when it changes
  if (box.hidden) {
    if (box.firstChild) clear(box);
    return;
  }
  // What the pictures show meanwhile: the last valid settings, or what a missing source falls back to.
  const note = gone && gone.instead ? `unavailable.${gone.instead}` : state.result && list.length > (gone ? 1 : 0) ? 'staleBox' : null;
  box.replaceChildren(...[
    h('p', { class: 'attr-errors-title' }, t(L, 'attrError')),
    h('ul', {}, list.map((e) => h('li', { 'data-attribute': e.attribute }, h('code', {}, t(L, `attr.${e.attribute}`, {}, e.attribute)), ' ', localMessage(e.message, L)))),
    note && state.result ? h('p', { class: 'attr-errors-note' }, t(L, note)) : null,
  ].filter(Boolean));
}
