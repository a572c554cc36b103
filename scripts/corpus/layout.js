// How a corpus's units (poems, Brown files) become text files and token streams: one place, so
// the file layout and the stream the vocabulary and the bigram baseline count cannot drift apart.
// The C++ tokenizer reads the files back into the same stream.
//   text:   a unit's lines one per line, tokens joined by `joiner` ('' for characters, ' ' for
//           words); units separated by exactly one empty line; the file ends with one newline.
//   stream: a unit's tokens in order, the newline token between its lines when the corpus has
//           one (Tang; for Brown a line break is plain whitespace), then <eos>; so the empty line
//           between units, and the end of the file, are each one <eos>.
'use strict';

const EOS = '<eos>';
const NEWLINE = '\n';

// One unit's text without its final newline; field: 'lines', or 'tags' for Brown's tag files.
function unitText(unit, joiner, field = 'lines') {
  return unit[field].map((l) => l.join(joiner)).join('\n');
}

function unitsText(units, joiner, field = 'lines') {
  return units.length ? units.map((u) => unitText(u, joiner, field)).join('\n\n') + '\n' : '';
}

// The longest prefix of whole units whose text is at most maxBytes (UTF-8): a shipped excerpt.
function unitsPrefix(units, joiner, maxBytes) {
  let bytes = 0;
  let n = 0;
  for (; n < units.length; n++) {
    const add = Buffer.byteLength(unitText(units[n], joiner)) + (n === 0 ? 1 : 2);
    if (bytes + add > maxBytes) break;
    bytes += add;
  }
  return units.slice(0, n);
}

// Whole units taken at even steps through all of them, as many as fit in maxBytes (UTF-8): a slice
// that samples every part of a split kept in order of its kinds (Brown's files: press first).
function unitsSpread(units, joiner, maxBytes) {
  const size = (u) => Buffer.byteLength(unitText(u, joiner)) + 2;
  const step = Math.max(1, units.reduce((a, u) => a + size(u), 0) / maxBytes);
  const picked = [];
  let bytes = -1; // the first unit has no empty line before it
  for (let i = 0; Math.floor(i * step) < units.length; i++) {
    const unit = units[Math.floor(i * step)];
    if (bytes + size(unit) > maxBytes) break;
    bytes += size(unit);
    picked.push(unit);
  }
  return picked;
}

// Calls emit(token) for every token of the stream, in order.
function unitsStream(units, newlineToken, emit) {
  for (const unit of units) {
    unit.lines.forEach((line, i) => {
      if (i > 0 && newlineToken) emit(NEWLINE);
      for (const token of line) emit(token);
    });
    emit(EOS);
  }
}

module.exports = { unitsText, unitsPrefix, unitsSpread, unitsStream, EOS, NEWLINE };
