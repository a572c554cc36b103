// The settings bar: the model (trained or random), text, examples, d_model, heads, kv_heads, causal,
// seed (random weights only), the layer shown (a model of several layers), language.
// Writes settings into the store, asks the runner to run, and shows each error next to its control.
import { h, setText, setAttr } from '../../dom.js';
import { t } from '../../i18n.js';
import { grouped } from '../../format.js';
import { localMessage } from '../../messages.js';
import { MODELS, MODEL_KINDS, isSized, DEFAULTS, SAMPLE_IDS, OPENING_TEXTS, defaultText } from '../../attributes.js';
import { mountOpening } from './opening.js';
import catalog from '../../catalog.js';

// An example is its text in every language, or the key of a sentence in strings.js (example.*) that
// each language says its own way.
export const EXAMPLES = [
  '我是秦始皇',
  'example.animal',
  '我们用 attention 看每个 token', // Chinese and English in one text: how the tokenizer cuts each
];
// The trained model predicts what repeats: each example says something twice.
export const TRAINED_EXAMPLES = [
  '我是秦始皇，我是秦始皇',
  'example.cat',
  '床前明月光 疑是地上霜 床前明月光 疑是地上霜',
];
// The recall model has 16 positions: texts of at most 15 tokens after the start token.
export const RECALL_EXAMPLES = ['我是秦始皇，我是秦始皇', '床前明月光 疑是地上霜', 'example.count'];
// The models of real text read at most 64 tokens: besides the text each opens on, for Tang's a poem
// in traditional characters (which it reads as simplified), for Brown's a sentence of words it does
// not know (<unk>).
export const REAL_TEXT_EXAMPLES = {
  tang: [OPENING_TEXTS.tang, '床前明月光，疑是地上霜。舉頭望明月，低頭思故鄉。'],
  brown: [OPENING_TEXTS.brown, 'The robot uploaded a selfie to the internet.'],
};
const examplesOf = (model, lang) => (isSized(model) ? EXAMPLES : REAL_TEXT_EXAMPLES[model] || (model === 'recall' ? RECALL_EXAMPLES : TRAINED_EXAMPLES))
  .map((ex) => (ex.startsWith('example.') ? t(lang, ex) : ex));

const NUMBER_FIELDS = [
  { key: 'dModel', id: 'd-model', label: 'dModel', min: 1, max: catalog.limits.dModel, list: [4, 8, 16, 32, 64, 128, 256, 512, 768, 1024] },
  { key: 'heads', id: 'heads', label: 'heads', min: 1, max: catalog.limits.heads, list: [1, 2, 4, 8, 12, 16, 32] },
  { key: 'kvHeads', id: 'kv-heads', label: 'kvHeads', min: 1, max: catalog.limits.heads, list: [1, 2, 4, 8] },
  { key: 'seed', id: 'seed', label: 'seed', min: 0, max: 9007199254740991, list: null },
];

function toNumber(raw) {
  const s = String(raw).trim();
  return s === '' ? NaN : Number(s);
}

// What a weights file decides, not the learner.
const FILE_SETS = ['dModel', 'kvHeads'];

// One attention layer's weights that are loaded and shown, as {url, layout, layer} for the note; else null.
function loadedWeights(state) {
  const w = state.weights;
  const shown = state.settings.model === 'random' && w && w.bytes && state.result && state.result.config.model === 'single';
  return shown ? { url: w.url, layout: w.layout, layer: w.layer } : null;
}

// openFile(File): the element's; the picker and drag-and-drop both go through it. cancelOpen():
// stops a file still opening.
export function mountControls(root, store, runner, openFile = () => {}, cancelOpen = () => {}) {
  const labels = {};
  const errors = {};
  const inputs = {};

  function errorSlot(key, id) {
    const el = h('span', { class: 'field-error', id: `${id}-error`, role: 'alert', 'aria-live': 'assertive' });
    el.hidden = true;
    errors[key] = el;
    return el;
  }

  // kv_heads follows heads (ordinary multi-head attention, the same parameter count for any number
  // of heads) until the learner sets it apart on purpose: grouped-query attention.
  let kvChosen = store.state.settings.kvHeads !== store.state.settings.heads;
  function update(key, value) {
    const settings = { ...store.state.settings, [key]: value };
    if (key === 'kvHeads') kvChosen = value !== settings.heads;
    if (key === 'heads' && !kvChosen && Number.isInteger(value) && value > 0) settings.kvHeads = value;
    // From a file's own heads (null) to sizes of one's own: the defaults.
    if (key === 'model' && isSized(value) && !Number.isInteger(settings.heads)) Object.assign(settings, { heads: DEFAULTS.heads, kvHeads: DEFAULTS.heads });
    // To or from a model that opens on its own text (the models of real text): that text, unless the
    // learner has typed one; the layer it opens on, and no heads switched off (they were the other
    // model's).
    const before = store.state.settings.model;
    if (key === 'model' && value !== before && (OPENING_TEXTS[value] || OPENING_TEXTS[before])) {
      if (settings.text === defaultText(before)) settings.text = defaultText(value);
      Object.assign(settings, { layer: null, switchedOff: [] });
    }
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
  const exampleButtons = (list) =>
    list.map((ex, i) =>
      h('button', { type: 'button', class: 'example', 'data-example': String(i), title: ex, onclick: () => {
        text.value = ex;
        onText();
      } }, ex),
    );
  let examplesFor = examplesOf(store.state.settings.model, store.state.lang); // the trained model's examples repeat themselves
  const examples = h('div', { class: 'examples' }, labels.examples, exampleButtons(examplesFor));

  // Token ids, for a model without a tokenizer (a GPT-2 checkpoint opened without its files): in the
  // text's place, with why beside it.
  const ids = h('input', { id: 'ids', type: 'text', class: 'text-input', inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'ids-note ids-error' });
  inputs.ids = ids;
  const onIds = () => {
    if (ids.value !== (store.state.settings.ids ?? SAMPLE_IDS)) update('ids', ids.value);
  };
  ids.addEventListener('input', onIds);
  ids.addEventListener('change', onIds);
  labels.ids = h('span', { class: 'field-label' });
  const idsNote = h('span', { class: 'field-note', id: 'ids-note' });
  const idsField = h('label', { class: 'field field-text field-ids' }, labels.ids, ids, idsNote, errorSlot('ids', 'ids'));
  idsField.hidden = true;

  // Numbers.
  const kvNote = h('span', { class: 'field-note', 'data-kv-note': '' });
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
      f.key === 'kvHeads' ? kvNote : null,
      errorSlot(f.key, f.id),
    );
  });
  // Says when kv_heads no longer follows heads: grouped-query (or multi-query) attention.
  function renderKvNote(state) {
    const { heads, kvHeads } = state.settings;
    const isGrouped = Number.isInteger(heads) && Number.isInteger(kvHeads) && kvHeads > 0 && kvHeads < heads && heads % kvHeads === 0;
    if (kvNote.hidden !== !isGrouped) kvNote.hidden = !isGrouped;
    if (isGrouped) setText(kvNote, t(state.lang, kvHeads === 1 ? 'kvNoteMqa' : 'kvNoteGqa', { g: heads / kvHeads }));
  }

  const causal = h('input', { id: 'causal', type: 'checkbox', checked: store.state.settings.causal, 'aria-describedby': 'causal-error' });
  inputs.causal = causal;
  causal.addEventListener('change', () => update('causal', causal.checked));
  labels.causal = h('span', { class: 'field-label' });
  const causalField = h('label', { class: 'field field-check' }, causal, labels.causal, errorSlot('causal', 'causal'));

  const lang = h('button', { id: 'lang', type: 'button', class: 'lang', onclick: () => store.set({ lang: store.state.lang === 'en' ? 'zh' : 'en' }) });

  // The model, and for a model of several layers the layer whose attention is shown.
  const modelSelect = h('select', { id: 'model' }, MODELS.map((m) => h('option', { value: m })));
  // The visible button opens it; the input itself stays out of the tab order.
  const picker = h('input', { type: 'file', id: 'model-file', accept: '.safetensors,.json,.bpe,.txt', multiple: true, class: 'visually-hidden', tabindex: '-1' });
  picker.addEventListener('change', () => {
    if (picker.files.length) openFile([...picker.files]);
    picker.value = '';
  });
  const pick = h('button', { type: 'button', class: 'open-file', 'aria-describedby': 'open-file-hint', onclick: () => picker.click() });
  // Said before the learner picks: a Hugging Face checkpoint is its files picked together.
  const pickHint = h('span', { class: 'field-note open-file-hint', id: 'open-file-hint' });
  modelSelect.value = store.state.settings.model;
  modelSelect.addEventListener('change', () => update('model', modelSelect.value));
  labels.model = h('span', { class: 'field-label' });
  const fileOption = modelSelect.querySelector('option[value="file"]');
  const modelField = h('div', { class: 'field field-model' }, h('label', { for: 'model' }, labels.model), h('div', { class: 'model-row' }, modelSelect, pick, picker), pickHint, mountOpening(store, cancelOpen));
  const layerSelect = h('select', { id: 'view-layer', 'aria-describedby': 'view-layer-error' });
  layerSelect.addEventListener('change', () => update('layer', Number(layerSelect.value)));
  labels.layer = h('span', { class: 'field-label' });
  const layerField = h('label', { class: 'field field-layer' }, labels.layer, layerSelect, errorSlot('layer', 'view-layer'));
  inputs.layer = layerSelect;
  const trainedNote = h('p', { class: 'trained-note' });

  root.append(
    // The examples under the text box, in its column: the box keeps the row's width for a sentence,
    // and the examples take the height the model's hint takes beside them.
    h('div', { class: 'controls-row' }, modelField, h('div', { class: 'text-column' }, textField, idsField, examples)),
    h('div', { class: 'controls-row' }, numberFields, causalField, layerField, trainedNote, lang),
  );

  // Which fields apply: sizes for random weights; the layer for a model of several layers.
  function renderModel(state) {
    const kind = MODEL_KINDS[state.settings.model];
    const trained = !kind.sized;
    if (examplesFor.join('\n') !== examplesOf(state.settings.model, state.lang).join('\n')) {
      examplesFor = examplesOf(state.settings.model, state.lang);
      examples.replaceChildren(labels.examples, ...exampleButtons(examplesFor));
    }
    if (fileOption.hidden !== (state.settings.model !== 'file')) fileOption.hidden = state.settings.model !== 'file';
    setText(pick, t(state.lang, 'openFile'));
    setAttr(picker, 'aria-label', t(state.lang, 'openFile'));
    setText(pickHint, t(state.lang, 'openFileHint'));
    // A model opened from a file has its sizes; its heads alone are the learner's to change.
    const fileModel = state.settings.model === 'file' && Boolean(state.result) && state.result.config.model !== 'single';
    NUMBER_FIELDS.forEach((f, i) => {
      const hide = trained && !(fileModel && f.key === 'heads');
      if (numberFields[i].hidden !== hide) numberFields[i].hidden = hide;
    });
    if (fileModel && !Number.isInteger(state.settings.heads) && inputs.heads.value !== String(state.result.config.heads)) inputs.heads.value = String(state.result.config.heads);
    // No tokenizer: ids in the text's place.
    const onIdsNow = Boolean(state.result) && state.result.config.tokenizer === '';
    if (idsField.hidden !== !onIdsNow) {
      idsField.hidden = !onIdsNow;
      textField.hidden = onIdsNow;
      examples.hidden = onIdsNow;
    }
    if (onIdsNow) {
      if (ids.getRootNode().activeElement !== ids && ids.value !== (state.settings.ids ?? SAMPLE_IDS)) ids.value = state.settings.ids ?? SAMPLE_IDS;
      setText(labels.ids, t(state.lang, 'tokenIds'));
      setText(idsNote, t(state.lang, 'idsNote', { name: state.settings.file || '', last: state.result.config.vocabSize - 1 }));
    }
    if (causalField.hidden !== !kind.causalChoice) causalField.hidden = !kind.causalChoice;
    const config = state.result && state.result.config;
    const layers = config && config.model !== 'single' ? config.layers : 1;
    if (layerField.hidden !== layers < 2) layerField.hidden = layers < 2;
    if (layerSelect.options.length !== layers) layerSelect.replaceChildren(...Array.from({ length: layers }, (_, l) => h('option', { value: String(l) })));
    [...layerSelect.options].forEach((o, l) => setText(o, t(state.lang, 'layerOption', { l })));
    if (state.result && layers > 1 && layerSelect.value !== String(state.result.layer)) layerSelect.value = String(state.result.layer);
    const weights = loadedWeights(state);
    // What a file holds is named on the status line (status.js); the note says what else to know.
    const noNote = !(config && config.model !== 'single');
    if (trainedNote.hidden !== noNote) trainedNote.hidden = noNote;
    const noteKey = { file: 'fileNote', blocks: 'blocksNote', recall: 'recallNote' }[state.settings.model] || 'trainedNote';
    const vars = { layers: config && config.layers, h: config && config.heads, d: config && config.dModel, v: config && grouped(config.vocabSize, state.lang), dh: config && config.dHead, k: config && config.readouts };
    // A file's note starts with where its heads came from (said, or d_model / 64 for GPT-2).
    const heads = noteKey === 'fileNote' && config && config.headsFrom ? `${t(state.lang, `headsFrom.${config.headsFrom}`, vars)} ` : '';
    if (!trainedNote.hidden) setText(trainedNote, heads + t(state.lang, noteKey, vars));
    // The file sets d_model and kv_heads: the fields show the file's, and cannot be typed into until
    // it is gone.
    for (const key of FILE_SETS) {
      const input = inputs[key];
      if (input.readOnly !== Boolean(weights)) input.readOnly = Boolean(weights);
      if (weights && input.value !== String(config[key])) input.value = String(config[key]);
    }
    if (modelSelect.value !== state.settings.model) modelSelect.value = state.settings.model;
    [...modelSelect.options].forEach((o) => setText(o, t(state.lang, { tang: 'modelTang', brown: 'modelBrown', trained: 'modelTrained', recall: 'modelRecall', random: 'modelRandom', blocks: 'modelBlocks', file: 'modelFile' }[o.value], { name: state.settings.file || '' })));
  }

  // On every result (its errors object is new each time): writes only what changed.
  function render(state) {
    const { lang: L } = state;
    setText(labels.text, t(L, 'text'));
    setText(labels.examples, t(L, 'examples'));
    for (const f of NUMBER_FIELDS) setText(labels[f.key], t(L, f.label));
    setText(labels.causal, t(L, 'causal'));
    setText(labels.model, t(L, 'model'));
    setText(labels.layer, t(L, 'layer'));
    setText(lang, t(L, 'langButton'));
    setAttr(lang, 'aria-label', t(L, 'langButtonLabel'));
    setAttr(lang, 'lang', L === 'en' ? 'zh' : 'en');
    for (const [key, el] of Object.entries(errors)) {
      const message = state.errors[key];
      setText(el, message ? localMessage(message, L) : '');
      if (el.hidden !== !message) el.hidden = !message;
      setAttr(inputs[key], 'aria-invalid', message ? 'true' : 'false');
      el.closest('.field').classList.toggle('has-error', Boolean(message));
    }
  }
  // Settings can also change from outside (an attribute, a permalink): show them in the inputs.
  function syncInputs(settings) {
    if (Number.isInteger(settings.heads) && Number.isInteger(settings.kvHeads) && settings.kvHeads !== settings.heads) kvChosen = true;
    if (text.value !== settings.text) text.value = settings.text;
    for (const f of NUMBER_FIELDS) {
      const input = inputs[f.key];
      if (FILE_SETS.includes(f.key) && loadedWeights(store.state)) continue; // renderModel shows the file's
      if (settings[f.key] === null) continue; // a file's own: renderModel shows the model's
      if (!Object.is(toNumber(input.value), settings[f.key])) input.value = String(settings[f.key]);
    }
    causal.checked = settings.causal;
  }
  render(store.state);
  renderModel(store.state);
  renderKvNote(store.state);
  store.subscribe((state, changed) => {
    if (changed.has('lang') || changed.has('errors')) render(state);
    if (changed.has('settings')) syncInputs(state.settings);
    if (changed.has('lang') || changed.has('settings') || changed.has('result')) renderModel(state);
    if (changed.has('lang') || changed.has('settings')) renderKvNote(state);
  });
}
