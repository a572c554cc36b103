// What each head contributes, through the WebAssembly module: each head's write, the logit split
// into its parts, head importance, the pruning curve and the head types of real text give what the
// CLI gives natively, the trace keeps what it needs after its model is deleted, and bad requests are
// MhaErrors with their codes.
// Needs web/build/mha-core.js and build/native/mha.
'use strict';
const { test, before } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const createMha = require('../../web/mha.js');
const native = require('./native.js');

const { root, runCli } = native;
const shipped = path.join(root, 'models/induction.safetensors');
const reference = path.join(root, 'tests/reference/data/tiny_gpt2.model.safetensors');
const IDS = [0, 5, 9, 23, 41, 7, 5, 9, 23, 41, 7];
let mha;

before(async () => {
  mha = await createMha();
});

const close = (a, b, tolerance, what) => assert.ok(Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

const withModel = (file, body) => native.withModel(mha, file, body);
const refuses = (fn, code, params) => native.refuses(mha, fn, code, params);

test('the logit split in WASM is the CLI\'s (mha attribute --json), its parts summing to the logit', () => {
  for (const [file, position, token] of [[shipped, -1, -1], [shipped, 7, 4], [reference, 2, 17]]) {
    const args = ['attribute', '--model', file, '--ids', IDS.join(','), '--json'];
    if (position >= 0) args.push('--position', `${position}`, '--token', `${token}`);
    const native = runCli(args);
    withModel(file, (model) => {
      const trace = model.runIds(IDS);
      try {
        const ours = trace.attribute(position >= 0 ? { position, token } : {});
        assert.equal(ours.position, native.position);
        assert.equal(ours.token, native.token);
        assert.equal(ours.logit, native.logit);
        assert.deepEqual(ours.parts.map((p) => [p.kind, p.layer, p.head]), native.parts.map((p) => [p.kind, p.layer, p.head]));
        ours.parts.forEach((p, i) => close(p.value, native.parts[i].value, 1e-12, `part ${i}`));
        close(ours.parts.reduce((s, p) => s + p.value, 0), ours.logit, 1e-5, 'the parts\' sum');
        // every position at once, as arrays: the same numbers as one position at a time
        const all = trace.attributions();
        assert.equal(all.positions, IDS.length);
        for (const i of [0, 4, IDS.length - 1]) {
          const one = trace.attribute({ position: i });
          assert.equal(all.tokens[i], one.token);
          assert.equal(all.logits[i], one.logit);
          assert.deepEqual(all.parts.map((p) => [p.kind, p.layer, p.head]), one.parts.map((p) => [p.kind, p.layer, p.head]));
          one.parts.forEach((p, j) => assert.equal(all.values[i * all.parts.length + j], p.value));
        }
      } finally {
        trace.delete();
      }
    });
  }
});

test('each head\'s write, read after its model is deleted, sums with b_O to y', () => {
  const model = new mha.Model();
  model.loadModel(fs.readFileSync(shipped));
  const trace = model.runIds(IDS);
  model.delete(); // the trace keeps the weights its head writes are made from
  try {
    const writes = trace.data('layers.1.head_write');
    const y = trace.data('layers.1.y');
    const [, H, T, d] = trace.shape('layers.1.head_write');
    assert.deepEqual([H, T, d], [4, IDS.length, 64]);
    const bias = new Float64Array(d); // b_O: y minus the heads' writes, the same in every row
    for (let i = 0; i < T * d; i++) {
      let sum = 0;
      for (let h = 0; h < H; h++) sum += writes[h * T * d + i];
      const b = y[i] - sum;
      if (i < d) bias[i] = b;
      else close(b, bias[i % d], 1e-5, `row ${Math.floor(i / d)}`);
    }
    assert.ok(trace.attribute().parts.length === 10); // the embedding, 8 heads, the biases
  } finally {
    trace.delete();
  }
});

// The models of real text read their own vocabulary: the module's analysis measures their typed heads
// (it once left them null, the trace not knowing the tokenizer), as the CLI does, after the model is gone.
test('the head types of real text in WASM are the CLI\'s (mha heads --json), read after the model is deleted', () => {
  for (const [corpus, text] of [['tang', '床前明月光，疑是地上霜。举头望明月，低头思故乡。'], ['brown', 'The man saw the dog, and the dog ran to the house.']]) {
    const file = path.join(root, 'models', `${corpus}.safetensors`);
    const native = runCli(['heads', '--model', file, '--text', text, '--json']);
    const model = new mha.Model();
    model.loadModel(fs.readFileSync(file));
    const trace = model.runText(text);
    model.delete(); // the trace keeps the tokenizer of its run
    try {
      const ours = trace.headAnalysis();
      assert.deepEqual(ours.layers.map((l) => l.heads.map((h) => h.label)), native.layers.map((l) => l.heads.map((h) => h.label)), corpus);
      const typed = corpus === 'tang' ? 'parallel_line' : 'noun_article';
      ours.layers.forEach((layer, l) => layer.heads.forEach((h, hd) => {
        const theirs = native.layers[l].heads[hd];
        assert.notEqual(h[typed], null, `${corpus} ${l}.${hd}: ${typed} is measured`);
        for (const key of [typed, `${typed}_chance`, 'rare_word', 'previous_token_chance']) close(h[key], theirs[key], 1e-9, `${corpus} ${l}.${hd} ${key}`);
      }));
    } finally {
      trace.delete();
    }
  }
});

test('head importance and the pruning curve in WASM are the CLI\'s, on the same sequences of the task', () => {
  const native = runCli(['heads', '--model', shipped, '--ids', IDS.join(','), '--importance', '--samples', '16', '--json']);
  const curve = runCli(['prune', '--model', shipped, '--samples', '16', '--seed', '5', '--json']);
  const onText = runCli(['heads', '--model', shipped, '--ids', IDS.join(','), '--importance', '--json']);
  withModel(shipped, (model) => {
    const ours = model.headImportance(null, { samples: 16 });
    assert.equal(mha.catalog.importance.seed, 1);
    ours.layers.forEach((layer, l) => layer.heads.forEach((h, hd) => {
      close(h.importance, native.layers[l].heads[hd].importance, 1e-12, `importance ${l}.${hd}`);
      close(h.importance_normalised, native.layers[l].heads[hd].importance_normalised, 1e-12, `normalised ${l}.${hd}`);
    }));
    const text = model.headImportance(IDS);
    text.layers.forEach((layer, l) => layer.heads.forEach((h, hd) => close(h.importance, onText.layers[l].heads[hd].importance, 1e-12, `${l}.${hd}`)));
    const pruned = model.prune({ samples: 16, seed: 5 });
    pruned.importance.layers.forEach((layer, l) => layer.heads.forEach((h, hd) => {
      close(h.importance, curve.importance.layers[l].heads[hd].importance, 1e-12, `pruning's importance ${l}.${hd}`);
      close(h.importance_normalised, curve.importance.layers[l].heads[hd].importance_normalised, 1e-12, `pruning's normalised ${l}.${hd}`);
    }));
    assert.equal(pruned.steps.length, 9);
    pruned.steps.forEach((s, i) => {
      assert.deepEqual(s.removed, curve.steps[i].removed);
      assert.equal(s.accuracy, curve.steps[i].accuracy);
      close(s.loss, curve.steps[i].loss, 1e-6, `loss after ${i} removed`); // the loss's log may differ in its last bit
    });
    assert.deepEqual(model.prune().steps.map((s) => s.removed), runCli(['prune', '--model', shipped, '--json']).steps.map((s) => s.removed));
  });
});

test('bad requests are MhaErrors with their codes, and leave the model and the trace usable', () => {
  withModel(shipped, (model) => {
    const trace = model.runIds([0, 1, 2]);
    try {
      refuses(() => trace.attribute({ position: 3 }), 'position_outside_text', { position: '3', last: '2' });
      assert.throws(() => trace.attribute({ position: 3 }), (e) => e.field === 'position');
      refuses(() => trace.attribute({ token: 64 }), 'token_outside_vocabulary');
      refuses(() => trace.attribute({ position: 1.5 }), 'not_whole');
      refuses(() => model.prune({ samples: 0 }), 'out_of_range');
      assert.throws(() => model.prune({ samples: 0 }), (e) => e.params.max === String(mha.catalog.importance.maxSamples));
      assert.throws(() => model.headImportance(), /give a text, ids, or \{samples\}/);
      assert.equal(trace.attribute({ position: 1 }).position, 1);
    } finally {
      trace.delete();
    }
  });
  const single = new mha.Model({ dModel: 8, heads: 2 });
  const trace = single.runText('a b');
  try {
    refuses(() => trace.attribute(), 'needs_blocks');
    refuses(() => single.prune(), 'needs_blocks');
    refuses(() => single.headImportance('a b'), 'needs_blocks');
  } finally {
    trace.delete();
    single.delete();
  }
  // A model of real text has no task to draw fresh sequences from: refused (its importance on a text
  // still measures), never the induction task's ids over its vocabulary (a loss of 12, accuracy 0).
  withModel(path.join(root, 'models/brown.safetensors'), (model) => {
    refuses(() => model.prune(), 'samples_of_real_text');
    refuses(() => model.headImportance(null, { samples: 4 }), 'samples_of_real_text');
    assert.equal(model.headImportance('The old man saw a dog near the river.').layers.length, 4);
  });
});

// The pruning curves the page draws for the models of real text (models/NAME.prune.json, which npm run
// train writes with `mha prune --json`): the shape of a curve of held-out text (that the English one is
// its model's: tests/test_corpus_models.cpp, a fifth of the time of measuring it again here).
test('a model of real text\'s pruning curve in models/: every head removed once, next-token figures, README\'s claims', () => {
  const whole = (id) => JSON.parse(fs.readFileSync(path.join(root, `models/${id}.prune.json`), 'utf8'));
  const file = (id) => whole(id).steps;
  for (const id of ['tang', 'brown']) {
    const steps = file(id);
    assert.equal(steps.length, 17, id);
    // removed least important first, by the importances the file carries (the heads table shows them)
    const importance = whole(id).importance.layers.map((layer) => layer.heads.map((x) => x.importance));
    assert.deepEqual(importance.map((layer) => layer.length), [4, 4, 4, 4], id);
    const inOrder = steps.at(-1).removed.map(([l, h]) => importance[l][h]);
    assert.deepEqual(inOrder, [...inOrder].sort((a, b) => a - b), `${id}: removed in ascending importance`);
    const removed = steps.at(-1).removed.map(([l, h]) => `${l}.${h}`);
    assert.equal(new Set(removed).size, 16, `${id}: every head removed once`);
    steps.forEach((s, k) => assert.deepEqual(s.removed, steps.at(-1).removed.slice(0, k), `${id}, step ${k}: one head more`));
    assert.ok(steps[0].accuracy > 0.1 && steps[0].loss < 5.5 && steps.at(-1).loss > steps[0].loss, `${id}: next-token figures of held-out text`);
  }
  // README's words: the poems' model keeps its accuracy through 12 heads removed and loses over half
  // of it with the last four (Michel's shape); the English model declines evenly, no head's removal
  // costing it more than 0.02, and ends within 0.04 of where it began (0.158 → 0.130).
  const tang = file('tang');
  assert.ok(tang[12].accuracy >= tang[0].accuracy - 0.03 && tang[16].accuracy < tang[0].accuracy / 2, tang.map((s) => s.accuracy.toFixed(3)).join(' '));
  // and those last four are layer 0's, among them the heads the table names previous character and
  // parallel line on held-out text (the build's mha heads --heldout)
  const lastFour = tang[16].removed.slice(12);
  assert.deepEqual(lastFour.map(([l, h]) => `${l}.${h}`).sort(), ['0.0', '0.1', '0.2', '0.3']);
  const heldout = JSON.parse(fs.readFileSync(path.join(root, 'web/build/heldout-heads.json'), 'utf8')).tang;
  const types = lastFour.map(([l, h]) => heldout[l][h].type);
  for (const type of ['previous_token', 'parallel_line']) assert.ok(types.includes(type), `the last four heads pruned are ${types.join(', ')}`);
  const brown = file('brown');
  const accuracies = brown.map((s) => s.accuracy.toFixed(3)).join(' ');
  brown.slice(1).forEach((s, k) => assert.ok(s.accuracy >= brown[k].accuracy - 0.02, `the English model, head ${k + 1} removed: ${accuracies}`));
  assert.ok(brown[16].accuracy >= brown[0].accuracy - 0.04 && brown[16].accuracy < brown[0].accuracy, accuracies);
});
