// The settings bar: text, examples, d_model, heads, kv_heads, causal, seed, language.
// Writes settings into the store, asks the runner to run, and shows each error next to its control.
import { h, setText } from '../dom.js';
import { t } from '../i18n.js';
import { localMessage } from '../messages.js';

export const EXAMPLES = [
  '我是秦始皇',
  "The animal didn't cross the street because it was too tired.",
  '我们用 attention 看每个 token',
];

const NUMBER_FIELDS = [
  { key: 'dModel', id: 'd-model', label: 'dModel', min: 1, max: 4096, list: [4, 8, 16, 32, 64, 128, 256, 512, 768, 1024] },
  { key: 'heads', id: 'heads', label: 'heads', min: 1, max: 256, list: [1, 2, 4, 8, 12, 16, 32] },
  { key: 'kvHeads', id: 'kv-heads', label: 'kvHeads', min: 1, max: 256, list: [1, 2, 4, 8] },
  { key: 'seed', id: 'seed', label: 'seed', min: 0, max: 9007199254740991, list: null },
];

function toNumber(raw) {
  const s = String(raw).trim();
  return s === '' ? NaN : Number(s);
}

export function mountControls(root, store, runner) {
  const labels = {};
  const errors = {};
  const inputs = {};

  function errorSlot(key, id) {
    const el = h('span', { class: 'field-error', id: `${id}-error`, role: 'alert', 'aria-live': 'assertive' });
    el.hidden = true;
    errors[key] = el;
    return el;
  }

  function update(key, value) {
    const settings = { ...store.state.settings, [key]: value };
    store.set({ settings });
    runner.request(key);
  }

  // Text and examples.
  const text = h('input', { id: 'text', type: 'text', class: 'text-input', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'text-error', value: store.state.settings.text });
  inputs.text = text;
  const onText = () => {
    if (text.value !== store.state.settings.text) update('text', text.value);
  };
  text.addEventListener('input', onText);
  text.addEventListener('change', onText);
  labels.text = h('span', { class: 'field-label' });
  const textField = h('label', { class: 'field field-text' }, labels.text, text, errorSlot('text', 'text'));

  labels.examples = h('span', { class: 'examples-label' });
  const exampleButtons = EXAMPLES.map((ex, i) =>
    h('button', { type: 'button', class: 'example', 'data-example': String(i), title: ex, onclick: () => {
      text.value = ex;
      onText();
    } }, ex),
  );
  const examples = h('div', { class: 'examples' }, labels.examples, exampleButtons);

  // Numbers.
  const numberFields = NUMBER_FIELDS.map((f) => {
    const input = h('input', {
      id: f.id, type: 'number', inputmode: 'numeric', min: f.min, max: f.max, step: 1,
      list: f.list ? `${f.id}-list` : null, 'aria-describedby': `${f.id}-error`,
      value: String(store.state.settings[f.key]),
    });
    inputs[f.key] = input;
    const onChange = () => {
      const v = toNumber(input.value);
      if (!Object.is(v, store.state.settings[f.key])) update(f.key, v);
    };
    input.addEventListener('input', onChange);
    input.addEventListener('change', onChange);
    labels[f.key] = h('span', { class: 'field-label' });
    return h(
      'label',
      { class: `field field-num field-${f.id}` },
      labels[f.key],
      input,
      f.list ? h('datalist', { id: `${f.id}-list` }, f.list.map((v) => h('option', { value: String(v) }))) : null,
      errorSlot(f.key, f.id),
    );
  });

  const causal = h('input', { id: 'causal', type: 'checkbox', checked: store.state.settings.causal, 'aria-describedby': 'causal-error' });
  inputs.causal = causal;
  causal.addEventListener('change', () => update('causal', causal.checked));
  labels.causal = h('span', { class: 'field-label' });
  const causalField = h('label', { class: 'field field-check' }, causal, labels.causal, errorSlot('causal', 'causal'));

  const lang = h('button', { id: 'lang', type: 'button', class: 'lang', onclick: () => store.set({ lang: store.state.lang === 'en' ? 'zh' : 'en' }) });

  root.append(
    h('div', { class: 'controls-row' }, textField, examples),
    h('div', { class: 'controls-row' }, numberFields, causalField, lang),
  );

  // On every result (its errors object is new each time): writes only what changed.
  function render(state) {
    const { lang: L } = state;
    setText(labels.text, t(L, 'text'));
    setText(labels.examples, t(L, 'examples'));
    for (const f of NUMBER_FIELDS) setText(labels[f.key], t(L, f.label));
    setText(labels.causal, t(L, 'causal'));
    setText(lang, t(L, 'langButton'));
    lang.setAttribute('aria-label', t(L, 'langButtonLabel'));
    lang.setAttribute('lang', L === 'en' ? 'zh' : 'en');
    for (const [key, el] of Object.entries(errors)) {
      const message = state.errors[key];
      setText(el, message ? localMessage(message, L) : '');
      if (el.hidden !== !message) el.hidden = !message;
      inputs[key].setAttribute('aria-invalid', message ? 'true' : 'false');
      el.closest('.field').classList.toggle('has-error', Boolean(message));
    }
  }
  // Settings can also change from outside (an attribute, a permalink): show them in the inputs.
  function syncInputs(settings) {
    if (text.value !== settings.text) text.value = settings.text;
    for (const f of NUMBER_FIELDS) {
      const input = inputs[f.key];
      if (!Object.is(toNumber(input.value), settings[f.key])) input.value = String(settings[f.key]);
    }
    causal.checked = settings.causal;
  }
  render(store.state);
  store.subscribe((state, changed) => {
    if (changed.has('lang') || changed.has('errors')) render(state);
    if (changed.has('settings')) syncInputs(state.settings);
  });
}
