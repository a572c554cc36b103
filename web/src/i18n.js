// Looks up a UI string in the current language and fills {placeholders}.
import { STRINGS } from './strings.js';

export function defaultLang() {
  const nav = (typeof navigator !== 'undefined' && navigator.language) || 'en';
  return nav.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

export function t(lang, key, vars = {}) {
  const entry = STRINGS[key];
  if (!entry) return key;
  const template = entry[lang] ?? entry.en;
  return template.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
}
