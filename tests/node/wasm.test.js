// The WebAssembly module against the native core: same seed -> the same bits, every tensor, plus
// PyTorch's reference traces, the error paths, copies that survive memory growth, and proof that
// the shipped .wasm really runs SIMD128 code. Needs web/build/mha-core.js and build/native/mha.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const createMha = require('../../web/mha.js');
const { parseSafetensors, readSafetensors } = require('./safetensors.js');
const { corpusText, writeCorpus } = require('./corpusText.js');

const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'build/native/mha');
const referenceDir = path.join(root, 'tests/reference/data');
let mha;
let tmp;

before(async () => {
  mha = await createMha();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mha-node-'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function nativeTrace(args) {
  const out = path.join(tmp, `trace-${Math.random().toString(36).slice(2)}.safetensors`);
  execFileSync(cli, ['trace', ...args, '--out', out]);
  return readSafetensors(out);
}

function assertBitIdentical(actual, expected, what) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  const a = new Uint32Array(actual.buffer, actual.byteOffset, actual.length);
  const e = new Uint32Array(expected.buffer, expected.byteOffset, expected.length);
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== e[i]) assert.fail(`${what}[${i}]: wasm ${actual[i]} != native ${expected[i]}`);
  }
}

// The error fn throws; a test failure when it throws none.
function caught(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  assert.fail('expected an MhaError');
}

const configs = [
  { text: '我是秦始皇', dModel: 512, heads: 8, kvHeads: 8, causal: false, seed: 1 },
  { text: "The animal didn't cross the street because it was too tired.", dModel: 64, heads: 4, kvHeads: 2, causal: true, seed: 7 },
  { text: 'GPT-3很强, 对吧? 😀', dModel: 36, heads: 4, kvHeads: 1, causal: false, seed: 123456789 },
];

for (const c of configs) {
  test(`same seed, same bits natively and in WASM: d_model ${c.dModel}, heads ${c.heads}, kv ${c.kvHeads}, causal ${c.causal}`, () => {
    const native = nativeTrace(['--text', c.text, '--d-model', `${c.dModel}`, '--heads', `${c.heads}`,
      '--kv-heads', `${c.kvHeads}`, '--seed', `${c.seed}`, ...(c.causal ? ['--causal'] : [])]);
    const { text, ...options } = c; // the text is the run's, not the model's
    const model = new mha.Model(options);
    const trace = model.runText(c.text);
    try {
      assert.deepEqual(trace.tokens(), JSON.parse(native.metadata.tokens));
      assert.deepEqual(Array.from(trace.ids()), Array.from(native.tensors.ids.data, Number));
      const names = trace.names();
      assert.deepEqual(names, ['token_embedding', 'position_encoding', 'x', 'q', 'k', 'v', 'q_heads', 'k_heads',
        'v_heads', 'raw_scores', 'scores', 'weights', 'head_out', 'concat', 'y', 'head_write']);
      for (const name of names) {
        assert.deepEqual(trace.shape(name), native.tensors[name].shape, `${name} shape`);
        assertBitIdentical(trace.data(name), native.tensors[name].data, name);
      }
      for (const name of ['w_q', 'b_q', 'w_k', 'b_k', 'w_v', 'b_v', 'w_o', 'b_o']) {
        assertBitIdentical(model.weight(name).data, native.tensors[name].data, name);
      }
    } finally {
      trace.delete();
      model.delete();
    }
  });
}

const models = [
  { model: 'attn-only', layers: 2, dModel: 32, heads: 4, vocabSize: 40, maxPositions: 16, seed: 5, ids: [0, 7, 9, 7, 9, 3] },
  { model: 'gpt2', layers: 3, dModel: 24, heads: 3, vocabSize: 50, maxPositions: 12, seed: 9, ids: [1, 2, 49, 2, 1] },
];

for (const c of models) {
  test(`a ${c.model} model of ${c.layers} layers: the same bits natively and in WASM, with a head switched off`, () => {
    const native = nativeTrace(['--preset', c.model, '--layers', `${c.layers}`, '--d-model', `${c.dModel}`, '--heads',
      `${c.heads}`, '--vocab-size', `${c.vocabSize}`, '--max-positions', `${c.maxPositions}`, '--seed', `${c.seed}`,
      '--ids', c.ids.join(','), '--ablate', '1.2']);
    const { ids, ...options } = c; // the ids are the run's, not the model's
    const model = new mha.Model(options);
    const trace = model.runIds(ids, { switchedOff: [[1, 2]] });
    try {
      const names = trace.names();
      assert.ok(names.includes('layers.1.raw_scores') && names.includes('logits') && names.includes('probs'));
      assert.equal(trace.layer('layers.1.q'), 1);
      assert.equal(trace.layer('logits'), -1);
      assert.deepEqual([...names].sort(), Object.keys(native.tensors).filter((n) => n !== 'ids').sort());
      for (const name of names) assertBitIdentical(trace.data(name), native.tensors[name].data, name);
      const headOut = trace.data('layers.1.head_out');
      const perHead = headOut.length / c.heads;
      assert.ok(headOut.subarray(2 * perHead, 3 * perHead).every((v) => v === 0), 'the switched-off head writes zeros');
    } finally {
      trace.delete();
      model.delete();
    }
  });
}

test('a model file round-trips through the module, and loaded weights refuse settings that do not fit them', () => {
  const random = new mha.Model({ model: 'attn-only', layers: 2, dModel: 16, heads: 4, vocabSize: 20, maxPositions: 8 });
  const bytes = random.modelFile();
  const loaded = new mha.Model();
  loaded.loadModel(bytes);
  assert.equal(loaded.config.model, 'attn-only');
  assert.equal(loaded.config.heads, 4);
  assert.equal(loaded.isSeeded, false);
  const a = random.runIds([0, 1, 2]);
  const b = loaded.runIds([0, 1, 2]);
  assertBitIdentical(b.data('logits'), a.data('logits'), 'logits');
  assert.throws(() => loaded.configure({ dModel: 32 }), /d_model is 16: the loaded weights fix it/);
  assert.throws(() => loaded.runIds([0, 20]), /outside the vocabulary \[0, 20\)/);
  assert.throws(() => loaded.runIds([0], { switchedOff: [[2, 0]] }), /no head 2\.0/);
  assert.throws(() => loaded.loadModel(new Uint8Array([1, 2, 3])), mha.MhaError);
  assert.equal(loaded.runIds([0, 1]).shape('logits')[2], 20, 'a failed load leaves the model as it was');
  loaded.useRandomWeights({ model: 'single', layers: 1, dModel: 8, heads: 2 });
  assert.equal(loaded.isSeeded, true);
  for (const x of [a, b, random, loaded]) x.delete();
});

test('the stage table comes from the core, and every tensor of a run is in it', () => {
  const { stages, tensors, stagesOf } = mha.stageTable;
  assert.deepEqual(mha.STAGES, stagesOf.single);  // each preset's walk is pinned once, in test_transformer.cpp
  assert.ok(stagesOf.gpt2.includes('mlp') && stagesOf.gpt2.includes('ln_f'));
  const model = new mha.Model({ model: 'gpt2', layers: 2, dModel: 8, heads: 2, vocabSize: 9, maxPositions: 4 });
  const trace = model.runIds([1, 2]);
  const known = new Set(tensors.map((t) => t.name));
  for (const name of trace.names()) {
    assert.ok(known.has(name.replace(/^layers\.\d+\./, '')), name);
    assert.ok(stagesOf.gpt2.includes(trace.stage(name)), name);
  }
  assert.ok(stages.every((s) => typeof s.family === 'string' && typeof s.perLayer === 'boolean'));
  trace.delete();
  model.delete();
});

test('loaded weights match PyTorch in WASM too (every layout)', () => {
  const cases = ['pytorch_mha', 'pytorch_causal', 'pytorch_large', 'gpt2_layer1', 'llama_gqa', 'llama_mqa_layer0'];
  for (const name of cases) {
    const expected = readSafetensors(path.join(referenceDir, `${name}.expected.safetensors`));
    const input = readSafetensors(path.join(referenceDir, `${name}.input.safetensors`));
    const meta = expected.metadata;
    const model = new mha.Model({ dModel: Number(meta.d_model), heads: Number(meta.heads), causal: meta.causal === 'true' });
    model.loadWeights(fs.readFileSync(path.join(referenceDir, `${name}.weights.safetensors`)), meta.layout, Number(meta.layer));
    assert.equal(model.config.dModel, Number(meta.d_model), `${name} d_model`);
    assert.equal(model.config.kvHeads, Number(meta.kv_heads), `${name} kv_heads`);
    const T = Number(meta.seq);
    const trace = model.runInput(input.tensors.x.data, T);
    assert.equal(trace.has('q_rot'), meta.layout === 'llama', `${name}: rope stage`);
    for (const tensor of Object.keys(expected.tensors)) { // every one, with q_rot and k_rot for llama
      const actual = trace.data(tensor);
      const reference = expected.tensors[tensor].data;
      let maxError = 0;
      let maxMagnitude = 0;
      for (let i = 0; i < reference.length; i++) {
        if (!Number.isFinite(reference[i])) {
          assert.equal(actual[i], reference[i], `${name}.${tensor}[${i}] mask`);
          continue;
        }
        maxError = Math.max(maxError, Math.abs(actual[i] - reference[i]));
        maxMagnitude = Math.max(maxMagnitude, Math.abs(reference[i]));
      }
      assert.ok(maxError <= 1e-5 * maxMagnitude, `${name}.${tensor}: relative error ${maxError / maxMagnitude}`);
    }
    trace.delete();
    model.delete();
  }
});

test('llama weights: RoPE gives the same bits natively and in WASM over 300 positions, and leaves with the weights', () => {
  const weights = path.join(referenceDir, 'llama_mqa_layer0.weights.safetensors');
  const text = '我是秦始皇，统一六国，书同文，车同轨。'.repeat(16);
  const native = nativeTrace(['--weights', weights, '--layout', 'llama', '--heads', '6', '--seed', '5', '--text', text]);
  assert.equal(native.metadata.rope_theta, '500000.0');
  const model = new mha.Model({ heads: 6, dModel: 6, seed: 5 });
  model.loadWeights(fs.readFileSync(weights), 'llama', 0);
  assert.equal(model.config.ropeBase, 500000);
  // a single layer's stages, and rope where the table has it
  const { stages: all, stagesOf } = mha.stageTable;
  assert.deepEqual(model.config.stages, all.map((s) => s.id).filter((id) => stagesOf.single.includes(id) || id === 'rope'));
  const trace = model.runText(text);
  assert.ok(trace.shape('q_rot')[2] >= 300, 'a long text');
  assert.equal(trace.stage('k_rot'), 'rope');
  for (const name of trace.names()) assertBitIdentical(trace.data(name), native.tensors[name].data, name);
  trace.delete();
  // A change of heads the pairs allow keeps RoPE; an odd d_head is refused; random weights have none.
  model.configure({ heads: 12, kvHeads: 2, causal: true });
  assert.equal(model.config.ropeBase, 500000);
  assert.throws(() => model.configure({ heads: 8 }), (e) => e instanceof mha.MhaError && /d_head must be even/.test(e.message));
  model.useRandomWeights({ heads: 6, dModel: 24 });
  assert.equal(model.config.ropeBase, 0);
  assert.ok(!model.config.stages.includes('rope'));
  model.delete();
});

test('errors arrive as MhaError with the CLI message, and the model stays usable', () => {
  const model = new mha.Model({ dModel: 16, heads: 2, seed: 3 });
  const before = model.runText('still works');
  const y = before.data('y');
  before.delete();

  const cliMessage = (args) => {
    try {
      execFileSync(cli, ['shapes', ...args], { stdio: 'pipe' });
    } catch (e) {
      return e.stderr.toString().trim().replace(/^mha: error: /, '');
    }
    assert.fail(`mha shapes ${args.join(' ')} should have failed`);
  };

  assert.throws(() => model.configure({ dModel: 10, heads: 4 }),
    (e) => e instanceof mha.MhaError && e.message === cliMessage(['--text', 'x', '--d-model', '10', '--heads', '4']));
  assert.throws(() => model.configure({ heads: 8, kvHeads: 3, dModel: 16 }),
    (e) => e.message === cliMessage(['--text', 'x', '--d-model', '16', '--heads', '8', '--kv-heads', '3']));
  assert.throws(() => model.runText(''), (e) => e.message === cliMessage(['--text', '', '--d-model', '16', '--heads', '2']));
  assert.throws(() => model.runText('x'.repeat(5000)), /maximum is 4096/);
  assert.throws(() => model.runText(42), /text must be a string/);
  assert.throws(() => model.loadWeights(new Uint8Array([1, 2, 3])), /too short/);
  assert.throws(() => model.loadWeights(fs.readFileSync(path.join(referenceDir, 'gpt2_layer1.weights.safetensors')), 'bert'),
    /unknown weight layout 'bert'/);
  const truncated = fs.readFileSync(path.join(referenceDir, 'llama_gqa.weights.safetensors')).subarray(0, 5000);
  assert.throws(() => model.loadWeights(truncated, 'llama'), /truncated/);
  assert.throws(() => model.runInput(new Float32Array([1, NaN, 3, 4]), 1), /expected T × d_model/);
  assert.throws(() => model.runInput(new Float32Array(16).fill(NaN), 1), /NaN/);
  assert.throws(() => model.configure({ dModel: '64' }), /dModel must be a number/);
  assert.throws(() => model.configure({ heads: 2.5 }), /whole number/);
  assert.throws(() => new mha.Model({ heads: 0 }), /heads must be between 1/);

  assert.deepEqual(model.config, { dModel: 16, heads: 2, kvHeads: 2, dHead: 8, causal: false, seed: 3, vocabSize: 8000,
    model: 'single', layers: 1, maxPositions: 1024, readouts: 1, parameters: 4 * (16 * 16 + 16), layerNorm: false, mlp: false, ropeBase: 0,
    stages: mha.stageTable.stagesOf.single,
    weights: 'seeded', layout: '', task: '', tokenizer: 'hashed', tokenTable: 'scaled', positions: 'sinusoidal', biases: true, headsFrom: 'given' });
  const after = model.runText('still works');
  assert.deepEqual(after.data('y'), y);
  after.delete();
  model.delete();
});

test('arrays handed out stay valid after WebAssembly memory grows', () => {
  const small = new mha.Model({ dModel: 8, heads: 2 });
  const trace = small.runText('keep me');
  const weights = trace.data('weights');
  const copy = Float32Array.from(weights);
  const big = new mha.Model({ dModel: 2048, heads: 16 });  // weights alone need 64 MB: the heap must grow
  const bigTrace = big.runText('grow the heap '.repeat(20));
  assert.deepEqual(weights, copy);
  assert.equal(weights.length, copy.length);
  assert.deepEqual(trace.data('weights'), copy);
  bigTrace.delete();
  big.delete();
  trace.delete();
  small.delete();
});

test('a trace stays as it was while later runs recycle deleted ones', () => {
  const model = new mha.Model({ dModel: 32, heads: 4 });
  const first = model.runText('first sentence');
  const firstY = first.data('y');
  const second = model.runText('second one, longer');
  second.delete();  // goes back to the model's pool
  const third = model.runText('third');
  assert.deepEqual(first.data('y'), firstY, 'a live trace is never refilled');
  assert.deepEqual(first.tokens(), ['first', 'sentence']);
  assert.deepEqual(third.tokens(), ['third']);
  const freshModel = new mha.Model({ dModel: 32, heads: 4 });
  const fresh = freshModel.runText('third');
  assert.deepEqual(third.data('y'), fresh.data('y'), 'a recycled trace holds exactly the new run');
  model.delete();  // traces outlive their model
  assert.deepEqual(first.data('y'), firstY);
  first.delete();
  third.delete();
  fresh.delete();
  freshModel.delete();
});

test('1,000 re-runs do not grow WebAssembly memory', () => {
  const model = new mha.Model({ dModel: 64, heads: 4, kvHeads: 2, causal: true });
  const x = new Float32Array(8 * 64).map((_, i) => Math.sin(i));
  for (let i = 0; i < 20; i++) model.runInput(x, 8).delete();  // settle the allocator
  const before = mha.memoryBytes();
  for (let i = 0; i < 1000; i++) {
    const trace = i % 2 ? model.runInput(x, 8) : model.runText('我是秦始皇 and friends');
    trace.delete();
  }
  assert.equal(mha.memoryBytes(), before);
  model.delete();
});

test('runInput(x, T, {into}) refills a trace in place and data(name, into) copies into a given array', () => {
  const model = new mha.Model({ dModel: 64, heads: 4, kvHeads: 2, causal: true, seed: 5 });
  const x1 = new Float32Array(8 * 64).map((_, i) => Math.sin(i));
  const x2 = new Float32Array(5 * 64).map((_, i) => Math.cos(i));
  const trace = model.runInput(x1, 8);
  for (const [x, T] of [[x2, 5], [x1, 8]]) {
    const fresh = model.runInput(x, T);
    assert.equal(model.runInput(x, T, { into: trace }), trace);
    assert.deepEqual(trace.names(), fresh.names());
    for (const name of fresh.names()) {
      assert.deepEqual(trace.shape(name), fresh.shape(name), name);
      assertBitIdentical(trace.data(name), fresh.data(name), name);
    }
    const y = new Float32Array(T * 64);
    assert.equal(trace.data('y', y), y);
    assertBitIdentical(y, fresh.data('y'), 'y copied into');
    fresh.delete();
  }
  assert.throws(() => trace.data('y', new Float32Array(3)), /into must be a Float32Array of 512 values/);
  assert.throws(() => trace.data('nope', new Float32Array(3)), /no tensor named 'nope'/);
  assert.throws(() => model.runInput(x1, 8, { into: {} }), /into must be a Trace/);
  assert.throws(() => model.runInput(x1, 7, { into: trace }), /expected T × d_model = 7 × 64/);
  trace.delete();
  assert.throws(() => model.runInput(x1, 8, { into: trace }), /into must be a Trace/);
  const before = mha.memoryBytes();
  const again = model.runInput(x1, 8);
  for (let i = 0; i < 500; i++) model.runInput(x1, 8, { into: again });
  assert.equal(mha.memoryBytes(), before, 'refilling allocates nothing new');
  again.delete();
  model.delete();
});

test('memory of deleted traces is reused at a larger size too', () => {
  const model = new mha.Model({ dModel: 256, heads: 4 });
  const x = new Float32Array(64 * 256).fill(0.5);
  model.runInput(x, 64).delete();
  const before = mha.memoryBytes();
  for (let i = 0; i < 200; i++) model.runInput(x, 64).delete();
  assert.equal(mha.memoryBytes(), before, 'deleted traces are reused');
  model.delete();
});

test('the shipped .wasm runs SIMD128 code (no silent scalar fall-back)', () => {
  const js = fs.readFileSync(path.join(root, 'web/build/mha-core.js'), 'utf8');
  const match = js.match(/data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/);
  assert.ok(match, 'mha-core.js has no inlined wasm');
  const wasmPath = path.join(tmp, 'mha-core.wasm');
  fs.writeFileSync(wasmPath, Buffer.from(match[1], 'base64'));
  const text = execFileSync('wasm-dis', ['--enable-simd', '--enable-exception-handling', wasmPath],
    { maxBuffer: 256 * 1024 * 1024 }).toString();
  const count = (re) => (text.match(re) || []).length;
  assert.ok(count(/\bf32x4\.mul\b/g) >= 10, `f32x4.mul appears ${count(/\bf32x4\.mul\b/g)} times`);
  assert.ok(count(/\bf32x4\.add\b/g) >= 10, 'f32x4.add');
  assert.ok(count(/\bv128\.load\b/g) >= 10, 'v128.load');
});

test('training in WASM gives the same bits as `mha train` natively: every loss and every weight', () => {
  const recipe = { dModel: 32, heads: 4, vocabSize: 20, seed: 3, batch: 4, maxLength: 6, lr: 0.01 };
  const out = path.join(tmp, 'trained.safetensors');
  execFileSync(cli, ['train', '--d-model', '32', '--heads', '4', '--vocab', '20', '--seed', '3', '--batch', '4',
    '--max-length', '6', '--lr', '0.01', '--steps', '25', '--eval-sequences', '1', '--out', out]);
  const native = readSafetensors(out);
  const nativeLosses = fs.readFileSync(out.replace(/\.safetensors$/, '.loss.csv'), 'utf8').trim().split('\n').slice(1)
    .map((line) => Number(line.split(',')[1]));
  const trainer = new mha.Trainer(recipe);
  try {
    const losses = Array.from(trainer.step(25));
    assert.equal(trainer.stepsDone, 25);
    // The CSV prints 6 significant digits.
    losses.forEach((l, i) => assert.ok(Math.abs(l - nativeLosses[i]) <= 1e-5 * Math.abs(l), `loss ${i + 1}: ${l} vs ${nativeLosses[i]}`));
    assert.ok(losses[24] < losses[0], 'the loss falls');
    const ours = parseSafetensors(Buffer.from(trainer.modelFile()));
    const names = Object.keys(native.tensors);
    assert.ok(names.length >= 9);
    for (const name of names) assertBitIdentical(ours.tensors[name].data, native.tensors[name].data, name);
    // A model trained in the page says how it was made, in the same words as `mha train`'s.
    for (const key of ['recipe', 'seed', 'steps', 'tokenizer', 'start_token', 'heads']) assert.equal(ours.metadata[key], native.metadata[key], key);
    assert.match(ours.metadata.recipe, /batch 4; 25 steps; AdamW lr 0\.01/);
    // …and opens again as a model that reads text (by first appearance, as the shipped one).
    const reopened = new mha.Model();
    reopened.loadModel(trainer.modelFile());
    const again = reopened.runText('a b a b');
    assert.deepEqual(Array.from(again.ids()), [0, 1, 2, 1, 2]);
    assert.equal(reopened.config.layers, 2);
    again.delete();
    reopened.delete();
    const score = trainer.inductionScore(1);
    assert.ok(score >= 0 && score <= 1);
    const trace = trainer.runIds([0, 1, 2, 1, 2]);
    assert.equal(trace.headAnalysis().layers.length, 2);
    trace.delete();
  } finally {
    trainer.delete();
  }
  assert.throws(() => new mha.Trainer({ model: 'single', layers: 1 }), /train an attn-only or gpt2 model/);
  assert.throws(() => new mha.Trainer({ batch: 0 }), /batch must be between 1 and 4096, got 0/);
});

test('the corpus task in WASM: the same bits as `mha train --task corpus` on the same text (its 500 most frequent characters), the file reads that text, and its held-out loss', () => {
  const text = corpusText('tang');
  const dir = fs.mkdtempSync(path.join(tmp, 'corpus-'));
  writeCorpus(dir, 'tang', text);
  const out = path.join(dir, 'tang-small.safetensors');
  execFileSync(cli, ['train', '--task', 'corpus', '--corpus', 'tang', '--corpus-dir', dir, '--layers', '1', '--d-model', '16', '--heads', '2',
    '--window', '16', '--batch', '4', '--steps', '12', '--warmup', '3', '--final-lr', '0.5', '--vocab', '500', '--excerpt', 'none', '--out', out]);
  const native = readSafetensors(out);
  const nativeLosses = fs.readFileSync(out.replace(/\.safetensors$/, '.loss.csv'), 'utf8').trim().split('\n').slice(1).map((line) => Number(line.split(',')[1]));
  const options = { task: 'corpus', corpus: 'tang', layers: 1, dModel: 16, heads: 2, window: 16, batch: 4, steps: 12, warmup: 3, finalLr: 0.5, vocabSize: 500 };
  const trainer = new mha.Trainer(options, text);
  try {
    assert.equal(trainer.config.vocabSize, 500, "the text's 500 most frequent tokens");
    const vocabulary = JSON.parse(native.metadata.vocabulary);
    assert.deepEqual(vocabulary.tokens, JSON.parse(text.vocabulary).tokens.slice(0, 500));
    assert.equal(vocabulary.most_frequent_of, 3003);
    assert.equal(trainer.config.maxPositions, 16);
    const losses = Array.from(trainer.step(12));
    losses.forEach((l, i) => assert.ok(Math.abs(l - nativeLosses[i]) <= 1e-5 * Math.abs(l), `loss ${i + 1}: ${l} vs ${nativeLosses[i]}`));
    const ours = parseSafetensors(Buffer.from(trainer.modelFile()));
    for (const name of Object.keys(native.tensors)) assertBitIdentical(ours.tensors[name].data, native.tensors[name].data, name);
    for (const key of ['task', 'corpus', 'window', 'recipe', 'seed', 'steps', 'tokenizer', 'vocabulary']) assert.equal(ours.metadata[key], native.metadata[key], key);
    // The held-out figures `mha train` writes into its file (4 decimals).
    const held = trainer.heldoutScores();
    assert.ok(Math.abs(held.loss - Number(native.metadata.heldout_loss)) <= 5e-5, `${held.loss} vs ${native.metadata.heldout_loss}`);
    assert.ok(Math.abs(held.accuracy - Number(native.metadata.heldout_accuracy)) <= 5e-5);
    assert.ok(held.windows > 0 && held.targets > 0 && held.targets <= held.windows * 16);
    assert.equal(trainer.heldoutScores(2).windows, 2);
    // Its heads on those windows, with the vocabulary's facts: what `mha heads --heldout` says of the
    // same file on the same text (the core's numbers, the CLI's JSON), label for label, measure for measure.
    const heldoutFile = path.join(dir, 'heldout.txt');
    fs.writeFileSync(heldoutFile, text.heldout);
    fs.writeFileSync(path.join(dir, 'now.safetensors'), trainer.modelFile());
    const cliHeads = JSON.parse(execFileSync(cli, ['heads', '--model', path.join(dir, 'now.safetensors'), '--heldout', heldoutFile, '--windows', '3', '--json'], { encoding: 'utf8', maxBuffer: 64 << 20 }));
    const ourHeads = trainer.heldoutHeads(3);
    assert.equal(ourHeads.layers.length, 1);
    ourHeads.layers.forEach((layer, l) => layer.heads.forEach((hd, h) => {
      const theirs = cliHeads.layers[l].heads[h];
      assert.equal(hd.label, theirs.label, `head ${l}.${h}`);
      assert.ok(hd.rare_word !== null && Math.abs(hd.rare_word - theirs.rare_word) <= 1e-9, `head ${l}.${h} rare_word ${hd.rare_word} vs ${theirs.rare_word}`);
      assert.ok(Math.abs(hd.previous_token - theirs.previous_token) <= 1e-9);
    }));
    assert.throws(() => trainer.heldoutHeads(-1), /windows/);
    // The file reads text with its own vocabulary: a poem's characters, not ids by first appearance;
    // 床, the 637th most frequent, is <unk> here.
    const reopened = new mha.Model().loadModel(trainer.modelFile());
    const trace = reopened.runText('床前明月光');
    assert.deepEqual(trace.tokens(), ['床', '前', '明', '月', '光']);
    const ids = Array.from(trace.ids());
    assert.equal(ids[0], 0);
    assert.ok(ids.slice(1).every((id) => id > 0 && id < 500), String(ids));
    trace.delete();
    reopened.delete();
  } finally {
    trainer.delete();
  }
  // The text is the corpus task's, and only its; the vocabulary is the text's.
  assert.throws(() => new mha.Trainer({ task: 'corpus' }), /the corpus task trains on text/);
  assert.throws(() => new mha.Trainer({}, text), /induction task takes no text/);
  assert.throws(() => new mha.Trainer({ task: 'corpus', vocabSize: 5000 }, text), /the tang vocabulary keeps 4 to 3003 of its tokens, not 5000/);
  const whole = new mha.Trainer({ task: 'corpus', layers: 1, dModel: 8, heads: 2, window: 8 }, text);
  assert.equal(whole.config.vocabSize, 3003, 'unless given, all of it');
  whole.delete();
  assert.throws(() => new mha.Trainer({ task: 'corpus', corpus: 'brown' }, text), /tang\.vocab\.json is the vocabulary of 'tang'|vocabulary of 'tang'/);
  assert.throws(() => new mha.Trainer({ task: 'corpus' }, { ...text, trian: text.train }), /trian is not an option of a Trainer's text/);
  assert.throws(() => new mha.Trainer({ task: 'corpus' }, { ...text, vocabulary: '{' }), /vocab\.json/);
  const induction = new mha.Trainer({ dModel: 8, heads: 2, vocabSize: 8 });
  try {
    assert.throws(() => induction.heldoutScores(), /held-out text is the corpus task's/);
  } finally {
    induction.delete();
  }
});

// Every corpus recipe of the page (catalog.recipes: the Tang poems', the English one), on the text the page ships.
// (The module loads in before(): the build's catalog.json, the same catalog, names them.)
// `mha train`'s flags that are not their row's key in kebab case (dModel: --d-model).
const CLI_FLAG = { model: '--preset', vocabSize: '--vocab' };
const PAGE_CATALOG = JSON.parse(fs.readFileSync(path.join(root, 'web', 'build', 'catalog.json'), 'utf8'));
for (const name of Object.keys(PAGE_CATALOG.recipes).filter((k) => PAGE_CATALOG.recipes[k].task === 'corpus')) {
  test(`the page's ${name} recipe (catalog.recipes.${name}, on the text the page ships) trains the same bits as \`mha train\` with its flags`, async () => {
    const { trainerOptions } = await import('../../web/src/trainerOptions.js');
    const recipe = mha.catalog.recipes[name];
    const { corpus } = recipe;
    const dir0 = path.join(root, 'models', 'corpus');
    const read = (what) => fs.readFileSync(path.join(dir0, `${corpus}.${what}`), 'utf8');
    const text = { vocabulary: read('vocab.json'), train: read('slice.txt'), heldout: read('heldout.txt') };
    const dir = fs.mkdtempSync(path.join(tmp, 'page-'));
    writeCorpus(dir, corpus, text);
    // 40 steps of the recipe's schedule (past the warm-up), stopped there: its snapshot of step 40
    const out = path.join(dir, 'page.safetensors');
    // Every option the page gives its Trainer, as `mha train`'s flag of the same row (options.h): a
    // key the command line lacks is refused by it, so a new option cannot be left out here unseen.
    const options = trainerOptions(mha.catalog, recipe);
    const flags = Object.entries(options).flatMap(([key, value]) => [CLI_FLAG[key] || `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, String(value)]);
    execFileSync(cli, ['train', ...flags, '--corpus-dir', dir, '--stop-at', '40', '--snapshot-every', '40', '--checkpoint-minutes', '0', '--excerpt', 'none', '--out', out]);
    const native = readSafetensors(path.join(dir, 'page.history', 'step-00040.safetensors'));
    const trainer = new mha.Trainer(options, text);
    try {
      assert.deepEqual([trainer.config.vocabSize, trainer.config.maxPositions, trainer.config.layers], [recipe.vocabSize, recipe.window, recipe.layers]);
      trainer.step(40);
      const ours = parseSafetensors(Buffer.from(trainer.modelFile()));
      for (const name of Object.keys(native.tensors)) assertBitIdentical(ours.tensors[name].data, native.tensors[name].data, name);
      assert.equal(ours.metadata.vocabulary, native.metadata.vocabulary);
    } finally {
      trainer.delete();
    }
  });
}

test('the recall task in WASM: the same bits as `mha train --task recall`, and the same scores as `mha sweep`', () => {
  // A smaller recall recipe: K = 3 readouts over 10 ids, d_model 16.
  const args = ['--recall', '3', '--length', '10', '--d-model', '16', '--vocab', '12', '--batch', '8', '--lr', '0.01'];
  const out = path.join(tmp, 'recall.safetensors');
  execFileSync(cli, ['train', '--task', 'recall', ...args, '--heads', '2', '--steps', '30', '--out', out]);
  const native = readSafetensors(out);
  assert.equal(native.metadata.task, 'recall');
  assert.equal(native.metadata.recall, '3');
  const options = { task: 'recall', recall: 3, length: 10, dModel: 16, vocabSize: 12, batch: 8, lr: 0.01 };
  const trainer = new mha.Trainer({ ...options, heads: 2 });
  try {
    assert.equal(trainer.config.readouts, 3);
    trainer.step(30);
    const ours = parseSafetensors(Buffer.from(trainer.modelFile()));
    for (const name of Object.keys(native.tensors)) assertBitIdentical(ours.tensors[name].data, native.tensors[name].data, name);
    assert.deepEqual(ours.tensors['lm_head.weight'].shape, [36, 16]);
    for (const key of ['task', 'recall', 'recipe', 'seed', 'steps']) assert.equal(ours.metadata[key], native.metadata[key], key);
    // The model reads back with its three readouts: probs (1, T, 3, vocab).
    const reopened = new mha.Model().loadModel(trainer.modelFile());
    const trace = reopened.runIds([1, 2, 3, 4, 5]);
    assert.deepEqual(Array.from(trace.shape('probs')), [1, 5, 3, 12]);
    trace.delete();
    reopened.delete();
  } finally {
    trainer.delete();
  }
  // mha sweep and the page's sweep (the module's Trainer and recallScores) give the same rows, digit for digit.
  const sweep = JSON.parse(execFileSync(cli, ['sweep', '--heads', '1,4', '--steps', '40', '--recall', '3', '--d-model', '16', '--json'], { encoding: 'utf8' }));
  for (const row of sweep) {
    const t = new mha.Trainer({ task: 'recall', heads: row.heads, recall: 3, dModel: 16 });
    try {
      t.step(40);
      const scores = t.recallScores();
      assert.deepEqual([scores.meanAccuracy, scores.accuracy, scores.loss], [row.accuracy, row.perReadout, row.loss], `heads ${row.heads}`);
      assert.equal(t.config.parameters, row.parameters);
      assert.equal(t.config.dHead, row.dHead);
    } finally {
      t.delete();
    }
  }
  assert.equal(sweep[0].parameters, sweep[1].parameters, 'the heads split d_model: the same parameters');
  assert.throws(() => new mha.Trainer({ task: 'copy' }), /task must be one of induction, recall, corpus, got 'copy'/);
  assert.throws(() => new mha.Trainer({ task: 'recall', model: 'gpt2' }), /attn-only/);
});

test('head analysis: the CLI (mha heads --json) and the module agree on every metric, with a head switched off', () => {
  const modelPath = path.join(root, 'models/induction.safetensors');
  const ids = [0, 5, 9, 23, 41, 7, 5, 9, 23, 41, 7];
  const cliJson = JSON.parse(execFileSync(cli, ['heads', '--model', modelPath, '--ids', ids.join(','), '--ablate', '0.3', '--json'], { encoding: 'utf8' }));
  const model = new mha.Model();
  model.loadModel(fs.readFileSync(modelPath));
  const trace = model.runIds(ids, { switchedOff: [[0, 3]] });
  try {
    const ours = trace.headAnalysis();
    assert.equal(ours.layers.length, 2);
    assert.deepEqual(ours, cliJson);
    const labels = ours.layers.map((l) => l.heads.map((h) => h.label));
    assert.ok(labels[1].includes('induction'), `layer 1: ${labels[1]}`);
    // The label thresholds come with the analysis, so the page shows them without a copy of its own.
    // The types of real text and induction ask for five times their chance too, the heads that keep to
    // one place twice theirs.
    assert.deepEqual(ours.labels.map((r) => [r.label, r.metric, r.at_least, r.times_chance]), [['previous_token', 'previous_token', 0.5, 2],
      ['induction', 'induction', 0.5, 5], ['parallel_line', 'parallel_line', 0.15, 5], ['noun_article', 'noun_article', 0.3, 5],
      ['verb_subject', 'verb_subject', 0.3, 5], ['noun_adjective', 'noun_adjective', 0.3, 5], ['rare_word', 'rare_word', 0.2, 5],
      ['self', 'self', 0.5, 2], ['first_token', 'first_token', 0.5, 2], ['positional', 'offset_weight', 0.25, 5], ['broad', 'entropy', 0.9, 0]]);
  } finally {
    trace.delete();
    model.delete();
  }
});

test('errors about a setting or the text carry their field, a stable code and the numbers in them', () => {
  const model = new mha.Model({ dModel: 16, heads: 2 });
  let e = caught(() => model.configure({ dModel: 10, heads: 4 }));
  assert.ok(e instanceof mha.MhaError);
  assert.deepEqual([e.field, e.code, e.params], ['heads', 'd_model_not_divisible', { d_model: '10', heads: '4' }]);
  e = caught(() => model.configure({ heads: 8, kvHeads: 3, dModel: 16 }));
  assert.deepEqual([e.field, e.code], ['kv_heads', 'heads_not_divisible']);
  e = caught(() => model.configure({ dModel: 2.5 }));
  assert.deepEqual([e.field, e.code], ['d_model', 'not_whole']);
  e = caught(() => model.runText(''));
  assert.deepEqual([e.field, e.code], ['text', 'text_empty']);
  e = caught(() => model.runText('x'.repeat(5000)));
  assert.deepEqual([e.field, e.code, e.params], ['text', 'text_too_long', { bytes: '5000', max: '4096' }]);
  // A file error has a code and the file in its params, and no setting to point at.
  e = caught(() => model.loadWeights(new Uint8Array([1, 2, 3])));
  assert.deepEqual([e.field, e.code, e.params], [null, 'safetensors_too_short', { file: 'the file', bytes: '3' }]);
  e = caught(() => model.loadWeights(new Uint8Array([1, 2, 3]), 'pytorch', 0, { name: 'mine.safetensors' }));
  assert.deepEqual([e.field, e.code, e.params.file], [null, 'safetensors_too_short', 'mine.safetensors']);
  assert.match(e.message, /^mine\.safetensors is 3 bytes/);
  model.delete();
});

test('the errors of ids, loaded weights and a missing tokenizer carry codes the page says in Chinese', async () => {
  const { localMessage } = await import('../../web/src/messages.js');
  const random = new mha.Model({ model: 'attn-only', layers: 2, dModel: 16, heads: 4, vocabSize: 20, maxPositions: 8 });
  const loaded = new mha.Model();
  loaded.loadModel(random.modelFile());
  const gpt2 = new mha.Model(); // a GPT-2 file: no tokenizer of its own (random weights read by first appearance)
  const randomGpt2 = new mha.Model({ model: 'gpt2', layers: 1, dModel: 8, heads: 2, vocabSize: 9, maxPositions: 4 });
  gpt2.loadModel(randomGpt2.modelFile());
  randomGpt2.delete();
  const cases = [
    [() => loaded.runIds([0, 20]), 'text', 'token_outside_vocabulary', { id: '20', position: '1', vocab: '20' }],
    [() => loaded.configure({ dModel: 32 }), 'd_model', 'fixed_by_weights', { value: '16' }],
    [() => loaded.configure({ model: 'gpt2' }), 'model', 'fixed_by_weights', { value: 'attn-only' }],
    [() => gpt2.runText('hi'), 'text', 'needs_tokenizer', { model: 'gpt2' }],
  ];
  try {
    for (const [fn, field, code, params] of cases) {
      const e = caught(fn);
      assert.ok(e instanceof mha.MhaError);
      assert.deepEqual([e.field, e.code, e.params], [field, code, params], e.message);
      const zh = localMessage(e, 'zh');
      assert.notEqual(zh, e.message, `${code} has a Chinese sentence`);
      assert.doesNotMatch(zh, /\{\w+\}/, `${code}: every placeholder filled`);
      assert.equal(localMessage(e, 'en'), e.message, 'English is the core\'s own message');
    }
  } finally {
    for (const x of [random, loaded, gpt2]) x.delete();
  }
});
