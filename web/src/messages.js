// What the page says about a core error, and where. A core error about a setting, the text or a file comes
// as {message, field, code, params} (web/mha.js MhaError, cpp/core/base/error.h): its code picks the
// sentence and its params fill it, in either language, and its field picks the control it is shown
// next to. A message the page writes itself (a failed fetch, a file to open again) is {key, params},
// a sentence of strings.js; a plain string is shown as it is.
import { t } from './i18n.js';
import { NAMES, UNNAMED_FILE, SENTENCES } from './sentences.js';

export { SENTENCES };

// The page's own message: a sentence of strings.js by key; cause, a core error (or another message)
// that fills its {why} in the same language.
export const pageMessage = (key, params = {}, cause = null) => (cause === null ? { key, params } : { key, params, cause });
const paramsOf = (error, lang) => (error.cause ? { ...error.params, why: localMessage(error.cause, lang) } : error.params);

// In English (an `error` event's detail, el.ready's rejection).
export const messageOf = (error) => (typeof error === 'string' ? error : error.key ? t('en', error.key, paramsOf(error, 'en')) : error.message);

export function localMessage(error, lang) {
  if (typeof error !== 'string' && error.key) return t(lang, error.key, paramsOf(error, lang));
  if (typeof error === 'string' || !error.code) return messageOf(error);
  const sentence = (SENTENCES[lang] || {})[error.code];
  if (!sentence) return error.message;
  const vars = { ...error.params, name: (NAMES[lang] || {})[error.field] || error.params.name || error.field };
  if (vars.file === 'the file' && UNNAMED_FILE[lang]) vars.file = UNNAMED_FILE[lang];
  return sentence.replace(/\{(\w+)\}/g, (m, key) => (key in vars ? String(vars[key]) : m));
}

// The settings key whose control shows a core error; `changed` is the control the learner just
// touched (d_model 10 with heads 4 is d_model's fault when d_model was changed, heads' otherwise).
const KEY_OF_FIELD = { model: 'model', d_model: 'dModel', heads: 'heads', kv_heads: 'kvHeads', seed: 'seed', text: 'text', switched_off: 'switchedOff' };

export function fieldFor(error, phase, changed) {
  if (phase === 'layer' || phase === 'switchedOff' || phase === 'model' || phase === 'ids') return phase;
  if (error.code === 'd_model_not_divisible') return changed === 'dModel' ? 'dModel' : 'heads';
  if (error.code === 'heads_not_divisible' || error.code === 'kv_heads_range') return changed === 'heads' ? 'heads' : 'kvHeads';
  if (error.field && KEY_OF_FIELD[error.field]) return KEY_OF_FIELD[error.field];
  if (phase === 'text') return 'text';
  return changed && changed !== 'causal' ? changed : 'text';
}

// A core error as the store keeps it: the page's sentence, or with its code when it has one, else its message.
export const storedError = (e) => e.page || (e.code ? { message: e.message, field: e.field, code: e.code, params: e.params } : e.message);
