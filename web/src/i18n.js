// Looks up a UI string in the current language and fills {placeholders}.
import { STRINGS } from './strings.js';

export function defaultLang() {
  const nav = (typeof navigator !== 'undefined' && navigator.language) || 'en';
  return nav.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

// An entry may count: {plural: 'T', en: {one: '{T} token', other: '{T} tokens'}, zh: '…'} picks the
// form for vars.T by the language's plural rules. A key with no entry gives `fallback` (a name the
// core declares, which a language may translate), else the key.
// One Intl.PluralRules a language: making one costs about a millisecond, and the panels ask for plural
// forms at every render.
const pluralRules = new Map();
const pluralOf = (lang, n) => {
  if (!pluralRules.has(lang)) pluralRules.set(lang, new Intl.PluralRules(lang));
  return pluralRules.get(lang).select(n);
};

// What goes between two sentences drawn side by side: a space in English; nothing in Chinese, whose
// full stop is already full width (a space there reads as a gap: "…开关）， 它名字下…").
export const sentenceGap = (lang) => (lang === 'zh' ? '' : ' ');

export function t(lang, key, vars = {}, fallback = key) {
  const entry = STRINGS[key];
  if (!entry) return fallback;
  let template = entry[lang] ?? entry.en;
  if (typeof template === 'object') template = template[pluralOf(lang, vars[entry.plural])] ?? template.other;
  return template.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
}
