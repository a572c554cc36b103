// A corpus's vocabulary: the specials, then its most frequent train tokens; each token's train
// count; how much of the train text it covers; and the token stream as ids.
'use strict';
const { unitsStream, EOS, NEWLINE } = require('./layout.js');

const UNK = '<unk>';

// Tie-breaks for equal counts, so the order never depends on the order tokens were met.
const byCodePoint = (a, b) => a.codePointAt(0) - b.codePointAt(0);
const byString = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

// corpus: {newlineToken, size, tieBreak}. → {tokens, counts, coverage, distinct, total}:
// tokens = <unk>, <eos>, [\n], then the `size` most frequent tokens, by count then tieBreak;
// counts[i] = token i's count in the stream (<unk>: the tokens outside the vocabulary);
// coverage = the share of the stream's text tokens (not \n, not <eos>) that are in the vocabulary.
function vocabBuild(units, { newlineToken, size, tieBreak }) {
  const specials = newlineToken ? [UNK, EOS, NEWLINE] : [UNK, EOS];
  const seen = new Map();
  let eos = 0;
  let newlines = 0;
  let total = 0;
  unitsStream(units, newlineToken, (t) => {
    if (t === EOS) eos++;
    else if (t === NEWLINE && newlineToken) newlines++;
    else {
      if (specials.includes(t)) throw new Error(`a text token spells the special ${JSON.stringify(t)}`);
      seen.set(t, (seen.get(t) || 0) + 1);
      total++;
    }
  });
  const ranked = Array.from(seen).sort((a, b) => b[1] - a[1] || tieBreak(a[0], b[0])).slice(0, size);
  const covered = ranked.reduce((s, [, c]) => s + c, 0);
  const specialCounts = { [UNK]: total - covered, [EOS]: eos, [NEWLINE]: newlines };
  return {
    tokens: specials.concat(ranked.map(([t]) => t)),
    counts: specials.map((s) => specialCounts[s]).concat(ranked.map(([, c]) => c)),
    coverage: covered / total,
    distinct: seen.size,
    total,
  };
}

// The stream as ids into tokens (outside the vocabulary: <unk>, id 0).
function vocabIds(units, tokens, newlineToken) {
  const id = new Map(tokens.map((t, i) => [t, i]));
  const ids = [];
  unitsStream(units, newlineToken, (t) => ids.push(id.has(t) ? id.get(t) : 0));
  return Int32Array.from(ids);
}

// The vocabulary file: one key a line, each value compact (the token arrays are long).
function vocabJson(fields) {
  return `{\n${Object.entries(fields).map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(',\n')}\n}\n`;
}

module.exports = { vocabBuild, vocabIds, vocabJson, byCodePoint, byString, UNK };
