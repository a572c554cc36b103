// While a model file opens (store.opening, modelSources.js): a <progress> of the bytes read out of
// the bytes the model needs, the same as text, and a Cancel button that keeps the model shown.
import { h, setText } from '../../dom.js';
import { t } from '../../i18n.js';

const mb = (bytes) => (bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0);

export function mountOpening(store, cancel) {
  const bar = h('progress', { class: 'opening-bar', max: '1', value: '0' });
  const text = h('span', { class: 'opening-text' });
  const button = h('button', { type: 'button', class: 'opening-cancel', onclick: () => cancel() });
  const root = h('div', { class: 'opening', role: 'status', 'aria-live': 'polite' }, bar, text, button);
  root.hidden = true;

  function render(state) {
    const o = state.opening;
    if (root.hidden !== !o) root.hidden = !o;
    setText(button, t(state.lang, 'cancel'));
    if (!o) return;
    bar.max = o.total || 1;
    bar.value = o.read;
    const label = t(state.lang, 'opening', { name: o.name, read: mb(o.read), total: mb(o.total) });
    bar.setAttribute('aria-label', label);
    setText(text, label);
  }
  render(store.state);
  store.subscribe((state, changed) => {
    if (changed.has('opening') || changed.has('lang')) render(state);
  });
  return root;
}
