// The page's languages besides English. The sources hold every language (strings.js, sentences.js);
// the widget's bundle carries English only and the rest beside it, in mha-{lang}.js, a classic script
// (it loads from file:// too) that scripts/build-web.sh writes and this adds once it has come:
//   self.mhaLanguages[lang] = {strings: {key: text}, names, unnamedFile, sentences}
// Outside the bundle (node tests, app.js) every language is already in the sources.
import { STRINGS } from './strings.js';
import { NAMES, UNNAMED_FILE, SENTENCES } from './sentences.js';

export const LANGUAGES = ['en', 'zh'];

// Whether the strings of `lang` are here: English always; another once its table is added.
export const hasLanguage = (lang) => lang === 'en' || Boolean(SENTENCES[lang]);

// (A key the widget does not hold yet is a part's (parts.js): kept for when the part comes.)
export function addLanguage(lang, table) {
  for (const [key, text] of Object.entries(table.strings)) (STRINGS[key] = STRINGS[key] || {})[lang] = text;
  NAMES[lang] = table.names;
  UNNAMED_FILE[lang] = table.unnamedFile;
  SENTENCES[lang] = table.sentences;
}

// A part's strings (parts.js), {key: {en: text}}, beside any other language's already added.
export function addStrings(table) {
  for (const [key, entry] of Object.entries(table)) STRINGS[key] = { ...entry, ...STRINGS[key] };
}

// The table of `lang` as mha-{lang}.js carries it, from the full sources (the build's side).
export function languageTable(lang) {
  const strings = {};
  for (const [key, entry] of Object.entries(STRINGS)) if (entry[lang] !== undefined) strings[key] = entry[lang];
  return { strings, names: NAMES[lang], unnamedFile: UNNAMED_FILE[lang], sentences: SENTENCES[lang] };
}
