// A corpus task's text for a test, as the module's Trainer takes it and `mha train --corpus-dir` reads
// it ({corpus}.vocab.json, .train.txt, .heldout.txt): the shipped vocabulary and held-out excerpt of
// models/corpus (CI has no corpus: npm run corpus is the training scripts'), the excerpt cut at a line
// into a part to train on and a part held out.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const CORPUS = path.join(__dirname, '..', '..', 'models', 'corpus');

function corpusText(corpus, { train = 8000, heldout = 4000 } = {}) {
  const excerpt = fs.readFileSync(path.join(CORPUS, `${corpus}.heldout.txt`), 'utf8');
  const cut = (from, chars) => excerpt.indexOf('\n', from + chars) + 1;
  const split = cut(0, train);
  return {
    vocabulary: fs.readFileSync(path.join(CORPUS, `${corpus}.vocab.json`), 'utf8'),
    train: excerpt.slice(0, split),
    heldout: excerpt.slice(split, cut(split, heldout)),
  };
}

// The same text as files in `dir`, for `mha train --corpus CORPUS --corpus-dir DIR`.
function writeCorpus(dir, corpus, text) {
  fs.writeFileSync(path.join(dir, `${corpus}.vocab.json`), text.vocabulary);
  fs.writeFileSync(path.join(dir, `${corpus}.train.txt`), text.train);
  fs.writeFileSync(path.join(dir, `${corpus}.heldout.txt`), text.heldout);
}

module.exports = { corpusText, writeCorpus };
