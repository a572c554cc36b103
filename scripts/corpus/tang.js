// The Tang poems of chinese-poetry (traditional script) → clean simplified poems, split into train
// and held-out by source file. A poem is a unit {lines}: its paragraphs (each normally a couplet),
// a line an array of characters. Also the fold table: traditional character → simplified token.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const OpenCC = require('opencc-js');

const PACKAGE = 'chinese-poetry';
const DIR = 'dist/quantangshi';
const FILE = /^poet\.tang\.(\d+)\.json$/;
const HELDOUT_EVERY = 10000;   // poet.tang.K.json with K a multiple of this is held out (0, 10000, …)

// OpenCC's t2s: the source is in OpenCC-standard traditional (啓, 爲, 綺), which is what "t" reads.
// "tw" would first turn Taiwan's forms into those: it reads 著 as Taiwan's 着 (1,407 places; t
// keeps 著, as classical editions do) and turns the variant 簷 into 檐 (532; t keeps 簷).
// Phrase-aware: 乾坤 stays, 乾 alone becomes 干.
const convert = OpenCC.Converter({ from: 't', to: 'cn' });

// ASCII and halfwidth forms of the kept punctuation → the fullwidth ones (none occur in 2.0.1;
// the map keeps the rule honest if a later version has them).
const PUNCT_FULLWIDTH = { ',': '，', '.': '。', '?': '？', '!': '！', ';': '；', ':': '：',
  '\uff61': '。', '\uff64': '、' };
const CLEAN_LINE = /^[\u4e00-\u9fff\u3400-\u4dbf，。？！；：、]+$/u;

const packageDir = path.dirname(require.resolve(`${PACKAGE}/package.json`));

// [{k, name}] sorted by K: the order poems are read and written in.
function tangFiles() {
  return fs.readdirSync(path.join(packageDir, DIR))
    .map((name) => ({ name, m: FILE.exec(name) }))
    .filter(({ m }) => m)
    .map(({ name, m }) => ({ k: Number(m[1]), name }))
    .sort((a, b) => a.k - b.k);
}

// → {train, heldout: [poem], stats, seen: Set of every raw character (the fold's candidates)}.
function tangRead() {
  const files = tangFiles();
  const out = { train: [], heldout: [], seen: new Set(),
    stats: { files: files.length, lastK: files[files.length - 1].k, heldoutFiles: [], poems: 0, kept: 0, dropped: 0,
      droppedAfterConversion: 0, punctMapped: 0, dropReasons: {} } };
  const { stats } = out;
  for (const { k, name } of files) {
    const heldout = k % HELDOUT_EVERY === 0;
    if (heldout) stats.heldoutFiles.push(name);
    const poems = JSON.parse(fs.readFileSync(path.join(packageDir, DIR, name), 'utf8'));
    for (const poem of poems) {
      stats.poems++;
      const raw = poem.paragraphs.map((p) => {
        for (const c of p) out.seen.add(c);
        return p.replace(/[,.?!;:\uff61\uff64]/g, (c) => (stats.punctMapped++, PUNCT_FULLWIDTH[c]));
      });
      // Whole-poem conversion (lines joined by \n, which OpenCC leaves alone) so phrases see
      // their context; a phrase never spans a line break.
      const lines = convert(raw.join('\n')).split('\n');
      const reason = tangDropReason(lines);
      if (reason) {
        stats.dropped++;
        stats.dropReasons[reason] = (stats.dropReasons[reason] || 0) + 1;
        if (raw.length > 0 && raw.every((l) => CLEAN_LINE.test(l))) stats.droppedAfterConversion++;
        continue;
      }
      stats.kept++;
      (heldout ? out.heldout : out.train).push({ lines: lines.map((l) => Array.from(l)) });
    }
  }
  return out;
}

// Why a converted poem is not clean, named by its first offending character (null: clean).
function tangDropReason(lines) {
  if (lines.length === 0 || (lines.length === 1 && lines[0] === '')) return 'no text';
  for (const l of lines) {
    if (l === '') return 'empty line';
    if (CLEAN_LINE.test(l)) continue;
    const c = Array.from(l).find((ch) => !CLEAN_LINE.test(ch));
    return `U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')} ${c}`;
  }
  return null;
}

// Traditional character → its simplified token, for the C++ tokenizer to fold a learner's input.
// Candidates: every key of opencc-js's character table (TSCharacters) and every character of the
// raw corpus. Each is converted alone; kept when it changes to one character that is a token and
// is not itself a token (乾 is: 乾坤 keeps it, so folding 乾 → 干 would lose a token).
// → {fold: {trad: simp} with keys in code-point order, stats}.
function tangFold(seen, tokens) {
  const isToken = new Set(tokens);
  const candidates = new Set(seen);
  for (const dict of OpenCC.Locale.to.cn.flat()) {
    const pairs = dict.split('|').map((e) => e.split(' '));
    if (!pairs.every(([from]) => Array.from(from).length === 1)) continue;   // the phrase table
    for (const [from] of pairs) candidates.add(from);
  }
  const fold = {};
  const stats = { candidates: candidates.size, folded: 0, selfToken: 0, outsideVocab: 0 };
  const byCodePoint = (a, b) => a.codePointAt(0) - b.codePointAt(0);
  for (const c of Array.from(candidates).sort(byCodePoint)) {
    const s = convert(c);
    if (s === c || Array.from(s).length !== 1) continue;
    if (isToken.has(c)) stats.selfToken++;
    else if (!isToken.has(s)) stats.outsideVocab++;
    else { fold[c] = s; stats.folded++; }
  }
  return { fold, stats };
}

module.exports = { tangRead, tangFold, HELDOUT_EVERY, PACKAGE, DIR };
