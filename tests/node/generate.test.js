// Generation in WebAssembly against `mha generate` natively: the same ids, the same p at every step
// (greedy and seeded sampling, with and without the KV cache), the same text; a generator's checks
// and lifetime; the KV cache's size and the published models the page's calculator reads.
// Needs web/build/mha-core.js and build/native/mha.
'use strict';
const { test, before } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const createMha = require('../../web/mha.js');

const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'build/native/mha');
const trainedPath = path.join(root, 'models/induction.safetensors');
const tinyGpt2Path = path.join(root, 'tests/reference/data/tiny_gpt2.model.safetensors');
let mha;

before(async () => {
  mha = await createMha();
});

function nativeGenerate(model, prompt, o) {
  const args = ['generate', '--model', model, typeof prompt === 'string' ? '--text' : '--ids', typeof prompt === 'string' ? prompt : prompt.join(','),
    '--tokens', String(o.tokens), '--temperature', String(o.temperature || 0), '--top-k', String(o.topK || 0),
    '--top-p', String(o.topP === undefined ? 1 : o.topP), '--seed', String(o.seed || 1), '--json', ...(o.cache === false ? ['--no-cache'] : [])];
  return JSON.parse(execFileSync(cli, args, { encoding: 'utf8' }));
}

const cases = [
  { model: trainedPath, prompt: '我是秦始皇，我是', o: { tokens: 6 } },
  { model: trainedPath, prompt: 'a b c d a b', o: { tokens: 10, temperature: 1.3, topK: 8, topP: 0.95, seed: 5 } },
  { model: tinyGpt2Path, prompt: [5, 9, 23, 5], o: { tokens: 12, temperature: 0.9, seed: 77 } },
  { model: tinyGpt2Path, prompt: [5, 9, 23, 5], o: { tokens: 12, temperature: 0.9, seed: 77, cache: false } },
];

for (const { model: file, prompt, o } of cases) {
  test(`natively and in WebAssembly, the same generation: ${path.basename(file)}, ${JSON.stringify(o)}`, () => {
    const model = new mha.Model().loadModel(fs.readFileSync(file));
    try {
      const wasm = model.generate(prompt, o);
      const native = nativeGenerate(file, prompt, o);
      assert.deepEqual(Array.from(wasm.ids), native.ids);
      assert.deepEqual(Array.from(wasm.new), native.new);
      assert.equal(wasm.steps.length, o.tokens);
      wasm.steps.forEach((step, i) => {
        const other = native.steps[i];
        assert.equal(step.p, other.p, `step ${i}: p, the same float`);
        assert.deepEqual([step.id, step.token, step.sampled, step.kept], [other.id, other.token, other.sampled, other.kept]);
        assert.deepEqual(step.top, other.top);
      });
      if (typeof prompt === 'string') assert.equal(wasm.text, native.text);
      assert.deepEqual(wasm.cache, native.cache);
    } finally {
      model.delete();
    }
  });
}

test('a generator steps one token at a time, says how big its cache is, and is refused what its model cannot do', () => {
  const model = new mha.Model().loadModel(fs.readFileSync(trainedPath));
  const config = model.config;
  const g = model.generator('a b c d e a b', { tokens: 3 });
  assert.equal(g.promptLength, 8); // <s> and 7 tokens
  const texts = [g.step().text, g.step().text, g.step().text];
  assert.deepEqual(texts, ['a b c d e a b c', 'a b c d e a b c d', 'a b c d e a b c d e']);
  assert.equal(g.done, true);
  // The last id drawn is not run yet: the cache holds the prompt and the first two new tokens.
  assert.deepEqual(g.cache, { tokens: 10, bytes: mha.kvCacheBytes({ layers: config.layers, kvHeads: config.kvHeads, dHead: config.dHead, tokens: 10 }) });
  assert.throws(() => g.step(), (e) => e instanceof mha.MhaError && /made its 3 tokens/.test(e.message));
  g.delete();
  assert.equal(model.generator([1, 2], { tokens: 2, cache: false }).cache, null);

  const tooLong = (() => {
    try {
      model.generator(Array.from({ length: 50 }, (_, i) => i + 1), { tokens: 12 });
    } catch (e) {
      return e;
    }
    return null;
  })();
  assert.ok(tooLong instanceof mha.MhaError);
  assert.equal(tooLong.message, '50 tokens of text and 12 new ones make 62, but the model has only 61 positions');
  assert.equal(tooLong.code, 'generate_past_positions');
  assert.equal(tooLong.field, 'tokens');
  assert.throws(() => model.generate('a b', { tokens: 2, temperature: 'hot' }), (e) => e.code === 'not_a_number' && e.field === 'temperature');
  assert.throws(() => model.generate('a b', { tokens: 2, temperature: 1, topK: 65 }), (e) => e.code === 'out_of_range' && e.field === 'top_k');

  const stale = model.generator('a b', { tokens: 2 });
  model.loadModel(fs.readFileSync(trainedPath)); // the model is replaced: its generators stop
  assert.throws(() => stale.step(), /changed or deleted since this generator was made/);
  stale.delete();
  const orphan = model.generator('a b', { tokens: 2 });
  model.delete();
  assert.throws(() => orphan.step(), /changed or deleted/);
  orphan.delete();
  const single = new mha.Model({ dModel: 8, heads: 2 });
  assert.throws(() => single.generate('a b', { tokens: 1 }), /no logits/);
  single.delete();
});

test('the KV cache size is 2 × layers × kv_heads × d_head × bytes × tokens; the published models the calculator reads', () => {
  assert.equal(mha.kvCacheBytes({ layers: 32, kvHeads: 8, dHead: 128, bytesPerValue: 2, tokens: 8192 }), 2 ** 30); // Llama 3 8B, 8K tokens, 16 bits
  assert.equal(mha.kvCacheBytes({ layers: 80, kvHeads: 8, dHead: 128, bytesPerValue: 2, tokens: 131072 }), 40 * 2 ** 30); // Llama 3 70B at 128K
  const published = Object.fromEntries(mha.catalog.kvCache.published.map((m) => [m.id, m]));
  assert.deepEqual(Object.keys(published), ['gpt2', 'llama-3-8b', 'llama-3-70b', 'mistral-7b']);
  assert.deepEqual([published['llama-3-8b'].heads, published['llama-3-8b'].kvHeads], [32, 8]); // seed article 002
  for (const m of Object.values(published)) assert.equal(m.heads % m.kvHeads, 0, m.name);
  assert.deepEqual(mha.catalog.generate.defaults, { tokens: 8, temperature: 0, topK: 0, topP: 1, seed: 1, top: 5, cache: true });
});

test('the page names a loop by the longest run a continuation writes twice apart, one with a letter or character in it', async () => {
  const { repeatedSpan } = await import('../../web/src/generation.js');
  assert.deepEqual(repeatedSpan([...'一声一声声。\n一声一声']), [...'一声一声']);
  assert.deepEqual(repeatedSpan('the man was a man who had been in the house , and he had been'.split(' ')), ['had', 'been']);
  assert.equal(repeatedSpan([...'，。\n，。']), null, 'marks alone are no loop');
  assert.equal(repeatedSpan([...'春风又绿江南岸']), null);
  assert.equal(repeatedSpan([...'啊啊啊']), null, 'a run that overlaps itself is not written twice');
  assert.deepEqual(repeatedSpan([...'啊啊啊啊']), [...'啊啊']);
});
