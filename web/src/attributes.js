import { escapeHtml } from './format.js';
import { pageMessage } from './messages.js';
import catalog from './catalog.js';
import { OPENING_TEXTS, OPENING_LAYERS, TRAINED_TEXT } from './openingTexts.js';
import { models as TRAINED_MODELS } from '../../models/trained-models.json';

// The settings of one demo as attributes: <mha-demo text="…" d-model="512" heads="8" …>.
// The same names are the page's permalink and the iframe form's query parameters, so one
// parse() serves the element, index.html and embed.html.
// The kinds of model a demo shows, in the order of the model menu. Without a model attribute a demo
// opens on the real-text model of its language (opensFor; openingModel), unless it sets sizes or
// weights (embeds written before the trained models existed keep what they showed). parse() itself
// reads a missing model as 'trained': the element writes the opening model into its attribute first.
//   sized: the learner sets d_model, heads, kv_heads and the seed; causalChoice: and the mask
//   shipped: the id of a model this project trained (models/trained-models.json)
//   recipe: the recipe "Train it yourself" offers with it (catalog.recipes; none: the induction
//     model's); before anything trains, the panel shows how that recipe's shipped model formed, where
//     npm run train recorded it (recorded())
//   opensFor: a demo without a model attribute opens on this model when its language is this one
//   layer: the layer it opens on (without a view-layer attribute), that of its clearest typed heads on
//   its own text (openingTexts.js)
//   inWorker: its forward takes longer than a frame, so its runs go to the demo's worker (runner.js):
//     4 blocks at d_model 128 and a vocabulary of 3,003 or 4,001 took 15–47 ms on the main thread
//     for T ≤ 64 (npm run bench:page -- --model tang|brown), over the page's 16 ms a change
export const MODEL_KINDS = {
  // 4 layers, 4 heads, one token per Chinese character (models/tang.safetensors)
  tang: { sized: false, shipped: 'tang', layer: OPENING_LAYERS.tang, opensFor: 'zh', recipe: 'tang', inWorker: true },
  // 4 layers, 4 heads, the Brown corpus's lower-cased words (models/brown.safetensors)
  brown: { sized: false, shipped: 'brown', layer: OPENING_LAYERS.brown, opensFor: 'en', recipe: 'brown', inWorker: true },
  trained: { sized: false, shipped: 'induction', recipe: 'induction' }, // the 2-layer model of induction heads (models/induction.safetensors)
  recall: { sized: false, shipped: 'recall', recipe: 'recall' }, // one layer, 4 heads, the recall task (models/recall.safetensors)
  random: { sized: true, causalChoice: true }, // one attention layer of seeded weights: the shapes lesson
  blocks: { sized: true, layers: 2 }, // GPT-2-style blocks of seeded weights: LayerNorm, MLP, residuals
  file: { sized: false }, // a whole model the learner opened, or model="….safetensors"
};
// Whether npm run train recorded how the shipped model `id` formed (models/trained-models.json `history`).
export const hasHistory = (id) => TRAINED_MODELS.some((m) => m.id === id && m.history);
// The same of the model of kind `model`: the training panel is shown with it.
export const recorded = (model) => Boolean(MODEL_KINDS[model] && MODEL_KINDS[model].shipped && hasHistory(MODEL_KINDS[model].shipped));
// Whether the heads table shows the importance of the model's heads on the text shown: a gradient pass
// of a shipped model, whose file a worker loads (element.js _analyse).
export const hasImportance = (model) => Boolean(MODEL_KINDS[model] && MODEL_KINDS[model].shipped);
export const MODELS = Object.keys(MODEL_KINDS); // or a URL ending in .safetensors
export const isSized = (model) => MODEL_KINDS[model].sized;
// The model a demo opens on when its attributes name none and set no sizes (null: parse's own default).
export function openingModel(get, lang) {
  if (get('model') !== null || SIZE_ATTRS.some((a) => get(a) !== null)) return null;
  return MODELS.find((m) => MODEL_KINDS[m].opensFor === lang) || null;
}
// "Turn on the causal mask" is said only where there is a control to turn it on.
export const causalControl = (state) => state.controls === 'full' && Boolean(MODEL_KINDS[state.settings.model].causalChoice);
export const SIZE_ATTRS = ['d-model', 'heads', 'kv-heads', 'weights'];
// The core's defaults (config.h, through catalog.js); the text is the page's own.
export const DEFAULTS = { text: '我是秦始皇', dModel: catalog.defaults.dModel, heads: catalog.defaults.heads, kvHeads: null, causal: catalog.defaults.causal, seed: catalog.defaults.seed };
// The trained model reads only which tokens repeat: a sentence said twice shows its induction heads.
export const TRAINED_DEFAULTS = { text: TRAINED_TEXT, stage: 'attend' };
// The texts the models of real text open on (openingTexts.js: the build reads them too).
export { OPENING_TEXTS };
// The text a model opens on: its own, the trained models', or the sized ones'.
export const defaultText = (model) => OPENING_TEXTS[model] || (isSized(model) ? DEFAULTS.text : TRAINED_DEFAULTS.text);
export const CONTROLS = ['full', 'minimal', 'none'];
// The layouts weights= may be in: the core's (layouts.h kLayouts, through the catalog).
export const LAYOUTS = catalog.layouts.map((l) => l.name);
export const SHOWS = ['weights', 'scores', 'raw'];

// attribute name -> settings key (the numbers and text the core runs on). ids: what a model without
// a tokenizer reads (a GPT-2 checkpoint opened without its tokenizer files).
export const SETTING_ATTRS = {
  model: 'model', text: 'text', ids: 'ids', 'd-model': 'dModel', heads: 'heads', 'kv-heads': 'kvHeads', causal: 'causal', seed: 'seed',
  ablate: 'switchedOff', 'view-layer': 'layer', file: 'file',
};
export const ATTR_OF = Object.fromEntries(Object.entries(SETTING_ATTRS).map(([a, k]) => [k, a]));
// what the element shows and how: not a reason to run the core again
export const VIEW_ATTRS = ['stage', 'head', 'lang', 'show', 'controls'];
export const WEIGHT_ATTRS = ['weights', 'layout', 'layer'];
// Generation (the predict stage): generate="N" says the text is continued by N tokens drawn with
// these settings (a link draws them again: the same seed, the same continuation). attribute -> key.
export const SAMPLING_ATTRS = { temperature: 'temperature', 'top-k': 'topK', 'top-p': 'topP', 'sample-seed': 'seed' };
export const SAMPLING_DEFAULTS = catalog.generate.defaults;
export const ALL_ATTRS = [...Object.keys(SETTING_ATTRS), ...VIEW_ATTRS, ...WEIGHT_ATTRS, 'generate', ...Object.keys(SAMPLING_ATTRS)];
// the attributes a permalink or an embed snippet carries, in this order
export const PERMALINK_ATTRS = ['model', 'file', 'weights', 'layout', 'layer', 'text', 'ids', 'd-model', 'heads', 'kv-heads', 'causal', 'seed', 'view-layer', 'ablate', 'generate', 'temperature', 'top-k', 'top-p', 'sample-seed', 'stage', 'head', 'show', 'lang'];

const WHOLE = /^\s*-?\d+\s*$/;

function whole(attribute, raw, min) {
  if (!WHOLE.test(raw)) return { error: `${attribute} must be a whole number, got '${raw}'` };
  const n = Number(raw);
  if (min !== undefined && n < min) return { error: `${attribute} must be ${min} or more, got ${n}` };
  return { value: n };
}

function oneOf(attribute, raw, list) {
  const v = String(raw).trim().toLowerCase();
  if (list.includes(v)) return { value: v };
  return { error: `${attribute} must be one of ${list.join(', ')}; got '${raw}'` };
}

export function parseLang(raw) {
  const v = String(raw || '').trim().toLowerCase();
  if (v.startsWith('zh')) return 'zh';
  if (v.startsWith('en')) return 'en';
  return null;
}

// causal is a boolean attribute: present means on, except causal="false" / "0" / "off" (and the
// same words in a query string).
export function parseBool(raw) {
  if (raw === null || raw === undefined) return false;
  return !/^\s*(false|0|off|no)\s*$/i.test(raw);
}

// get(name) -> string | null. Returns {settings, view, weights, errors: [{attribute, message}]}.
// A bad attribute leaves its default in place and adds an error; the core reports the rest
// (heads that do not divide d_model, empty text, …) when it runs.
export function parse(get) {
  const errors = [];
  const take = (attribute, result, fallback) => {
    if (result.error) {
      errors.push({ attribute, message: result.error });
      return fallback;
    }
    return result.value;
  };
  const num = (attribute, fallback, min) => {
    const raw = get(attribute);
    return raw === null ? fallback : take(attribute, whole(attribute, raw, min), fallback);
  };
  const text = get('text');
  const rawModel = get('model');
  // model="…/x.safetensors": a whole model fetched from that URL (opened like a file).
  const modelUrl = rawModel && /\.safetensors(\?.*)?$/i.test(rawModel.trim()) ? rawModel.trim() : null;
  // A file decides its own sizes; heads alone may be set (null: the file's).
  const fromFile = modelUrl !== null || (rawModel !== null && rawModel.trim().toLowerCase() === 'file');
  const sized = SIZE_ATTRS.some((a) => get(a) !== null) && !fromFile;
  const heads = num('heads', fromFile ? null : DEFAULTS.heads);
  const model = rawModel === null || rawModel === '' ? (sized ? 'random' : 'trained')
    : modelUrl ? 'file' : take('model', oneOf('model', rawModel, MODELS), sized ? 'random' : 'trained');
  const trained = !isSized(model);
  const switchedOff = parseHeadList(get('ablate'), errors);
  const settings = {
    model,
    file: modelUrl ? modelUrl.split('?')[0].split('/').pop() : get('file'),
    modelUrl,
    layer: get('view-layer') === null ? null : num('view-layer', null, 0),
    switchedOff,
    text: text === null ? defaultText(model) : text,
    ids: get('ids'),
    dModel: num('d-model', DEFAULTS.dModel),
    heads,
    kvHeads: fromFile ? null : num('kv-heads', heads),
    causal: parseBool(get('causal')),
    seed: num('seed', DEFAULTS.seed),
  };

  const pick = (attribute, list, fallback) => {
    const raw = get(attribute);
    return raw === null || raw === '' ? fallback : take(attribute, oneOf(attribute, raw, list), fallback);
  };
  // Which stages exist depends on the model (the core's table, once it has run): checked then.
  const rawStage = get('stage');
  const stage = rawStage === null || rawStage === '' ? (trained ? TRAINED_DEFAULTS.stage : 'tokenize') : String(rawStage).trim().toLowerCase();
  const rawLang = get('lang');
  let lang = null;
  if (rawLang !== null && rawLang !== '') {
    lang = parseLang(rawLang);
    if (!lang) errors.push({ attribute: 'lang', message: `lang must be en or zh; got '${rawLang}'` });
  }
  const view = {
    stage,
    head: num('head', 0, 0),
    lang,
    show: pick('show', SHOWS, 'weights'),
    controls: pick('controls', CONTROLS, 'full'),
  };

  const url = get('weights');
  const weights = url
    ? { url, layout: pick('layout', LAYOUTS, 'pytorch'), layer: num('layer', 0, 0) }
    : null;
  // The sampling settings' ranges are the core's to check, when it draws.
  const real = (attribute, fallback) => {
    const raw = get(attribute);
    if (raw === null || String(raw).trim() === '') return fallback;
    const n = Number(raw);
    return Number.isFinite(n) ? n : take(attribute, { error: `${attribute} must be a number, got '${raw}'` }, fallback);
  };
  const sampling = {
    temperature: real('temperature', SAMPLING_DEFAULTS.temperature),
    topK: num('top-k', SAMPLING_DEFAULTS.topK, 0),
    topP: real('top-p', SAMPLING_DEFAULTS.topP),
    seed: num('sample-seed', SAMPLING_DEFAULTS.seed, 0),
  };
  return { settings, view, weights, sampling, generate: num('generate', 0, 0), errors };
}

// "1.0,1.3" -> [[1, 0], [1, 3]]: heads switched off, layer.head. Whether they exist is the core's to say.
export function parseHeadList(raw, errors) {
  if (raw === null || String(raw).trim() === '') return [];
  const out = [];
  for (const part of String(raw).split(',')) {
    const m = /^\s*(\d+)\.(\d+)\s*$/.exec(part);
    if (!m) {
      errors.push({ attribute: 'ablate', message: `ablate takes layer.head pairs separated by commas, e.g. 1.0,1.3; got '${raw}'` });
      return [];
    }
    out.push([Number(m[1]), Number(m[2])]);
  }
  return out;
}
export const headListText = (pairs) => pairs.map(([l, hd]) => `${l}.${hd}`).join(',');

// What a model without a tokenizer reads until it is given ids: a sample, 0 … 7.
export const SAMPLE_IDS = '0 1 2 3 4 5 6 7';
// "15496 995" or "15496, 995" -> {ids: [15496, 995]}, or {error} (a page message). Whether they are
// in the vocabulary is the core's to say.
export function parseIdList(raw) {
  const parts = String(raw).trim().split(/[\s,]+/).filter(Boolean);
  if (!parts.length) return { error: pageMessage('idsEmpty') };
  const bad = parts.find((p) => !/^\d{1,9}$/.test(p));
  if (bad !== undefined) return { error: pageMessage('idsNotWhole', { part: bad }) };
  return { ids: parts.map(Number) };
}

// Attribute values for a state: only what differs from the defaults, in PERMALINK_ATTRS order.
// settings.text is what the core runs; with generate > 0 it is the text the continuation started from.
export function toAttributes({ settings, weights = null, stage, head, show, lang, sampling = SAMPLING_DEFAULTS, generate = 0 }) {
  const out = [];
  const push = (name, value) => out.push([name, value]);
  const trained = !isSized(settings.model);
  if (settings.model !== 'random') push('model', settings.modelUrl || settings.model);
  if (settings.model === 'file' && settings.file && !settings.modelUrl) push('file', settings.file);
  if (weights && weights.url) {
    push('weights', weights.url);
    if (weights.layout !== 'pytorch') push('layout', weights.layout);
    if (weights.layer) push('layer', String(weights.layer));
  }
  push('text', settings.text);
  if (settings.ids !== null && settings.ids !== undefined) push('ids', settings.ids);
  if (settings.model === 'file' && Number.isInteger(settings.heads)) push('heads', String(settings.heads));
  if (!trained) {
    if (!weights) push('d-model', String(settings.dModel)); // a weights file sets d_model (and kv_heads)
    push('heads', String(settings.heads));
    if (!weights && settings.kvHeads !== settings.heads) push('kv-heads', String(settings.kvHeads));
    if (settings.causal && MODEL_KINDS[settings.model].causalChoice) push('causal', '');
    if (settings.seed !== DEFAULTS.seed) push('seed', String(settings.seed));
  }
  if (settings.model !== 'random' && settings.layer !== null && settings.layer !== undefined) push('view-layer', String(settings.layer));
  if (settings.switchedOff && settings.switchedOff.length) push('ablate', headListText(settings.switchedOff));
  if (generate) push('generate', String(generate));
  for (const [attribute, key] of Object.entries(SAMPLING_ATTRS)) if (sampling[key] !== SAMPLING_DEFAULTS[key]) push(attribute, String(sampling[key]));
  if (stage && stage !== (trained ? TRAINED_DEFAULTS.stage : 'tokenize')) push('stage', stage);
  if (head) push('head', String(head));
  if (show && show !== 'weights') push('show', show);
  if (lang) push('lang', lang);
  return out;
}

export function toQuery(pairs) {
  const q = new URLSearchParams();
  for (const [name, value] of pairs) q.set(name, name === 'causal' && value === '' ? '1' : value);
  return q.toString().replace(/\+/g, '%20');
}

// Query parameters the element understands, as [name, value] pairs (unknown ones are ignored).
export function fromQuery(search) {
  const q = new URLSearchParams(search);
  const out = [];
  for (const name of ALL_ATTRS) if (q.has(name)) out.push([name, q.get(name)]);
  return out;
}


export function elementSnippet(pairs, scriptSrc, controls = 'minimal') {
  const attrs = pairs.map(([n, v]) => (n === 'causal' && v === '' ? ' causal' : ` ${n}="${escapeHtml(v)}"`)).join('');
  return `<script src="${escapeHtml(scriptSrc)}"></script>\n<mha-demo${attrs} controls="${controls}"></mha-demo>`;
}

export function iframeSnippet(pairs, embedUrl, title = 'Multi-head attention demo') {
  const q = toQuery(pairs);
  return `<iframe src="${escapeHtml(`${embedUrl}?${q}`)}" title="${escapeHtml(title)}" width="100%" height="720" style="border:0;max-width:100%" loading="lazy"></iframe>`;
}
