// Circuits and activation patching through the WebAssembly module: model.circuits(),
// model.headCircuit() and model.patch() give the numbers the native CLI prints (mha circuits --json,
// mha patch --json), on the shipped induction model and the GPT-2 reference model, and bad requests
// are MhaErrors with their codes.
// Needs web/build/mha-core.js and build/native/mha.
'use strict';
const { test, before } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const createMha = require('../../web/mha.js');
const native = require('./native.js');

const { root, runCli } = native;
const shipped = path.join(root, 'models/induction.safetensors');
const reference = path.join(root, 'tests/reference/data/tiny_gpt2.model.safetensors');
const CLEAN = [0, 5, 9, 23, 7, 5, 9, 23];
const CORRUPT = [0, 5, 9, 23, 11, 5, 9, 23];
let mha;

before(async () => {
  mha = await createMha();
});

const withModel = (file, body) => native.withModel(mha, file, body);
const refuses = (fn, code) => native.refuses(mha, fn, code);

// The same keys and the same numbers; the native build and WebAssembly sum in the same order, and
// JSON prints doubles exactly, so they agree to the last bits but for libm's log, sin, cos in the baseline.
function same(ours, native, where = 'result') {
  if (typeof native === 'number') {
    assert.ok(Math.abs(ours - native) <= 1e-12 * Math.max(1, Math.abs(native)), `${where}: ${ours} vs ${native}`);
    return;
  }
  if (Array.isArray(native)) {
    assert.ok(Array.isArray(ours), `${where} is not an array`);
    assert.equal(ours.length, native.length, `${where}.length`);
    native.forEach((v, i) => same(ours[i], v, `${where}[${i}]`));
    return;
  }
  if (native && typeof native === 'object') {
    assert.deepEqual(Object.keys(ours).sort(), Object.keys(native).sort(), `${where}'s keys`);
    for (const key of Object.keys(native)) same(ours[key], native[key], `${where}.${key}`);
    return;
  }
  assert.equal(ours, native, where);
}

test("model.circuits() and headCircuit() are mha circuits --json's, on the induction model and GPT-2's reference", () => {
  for (const [file, head] of [[shipped, [1, 2]], [reference, [1, 1]]]) {
    const native = runCli(['circuits', '--model', file, '--ids', CLEAN.join(','), '--head', head.join('.'), '--json']);
    withModel(file, (model) => {
      const { head: nativeHead, ...scores } = native;
      same(model.circuits(), scores, 'circuits');
      same(model.headCircuit(CLEAN, head[0], head[1]), nativeHead, 'head');
    });
  }
});

test("model.patch() is mha patch --json's, from ids and from texts, with and without answer and wrong", () => {
  withModel(shipped, (model) => {
    const native = runCli(['patch', '--model', shipped, '--clean-ids', CLEAN.join(','), '--corrupt-ids', CORRUPT.join(','), '--json']);
    const ours = model.patch({ clean: CLEAN, corrupt: Int32Array.from(CORRUPT) });
    same(ours, native, 'patch');
    assert.deepEqual([ours.answer, ours.wrong], [7, 11]);
    const induction = ours.heads.filter((h) => h.layer === 1).reduce((sum, h) => sum + h.recovery, 0);
    assert.ok(induction >= 0.9, `layer 1's heads recover ${induction}`);

    const texts = runCli(['patch', '--model', shipped, '--clean', 'a b c d e a b c', '--corrupt', 'a b c d e a b d', '--answer', '4', '--wrong', '2', '--json']);
    same(model.patch({ clean: 'a b c d e a b c', corrupt: 'a b c d e a b d', answer: 4, wrong: 2 }), texts, 'patch of texts');
  });
  withModel(reference, (model) => {
    const clean = [3, 17, 40, 8, 3, 17, 40, 8, 3, 17], corrupt = [3, 17, 51, 8, 3, 17, 40, 8, 3, 17];
    const native = runCli(['patch', '--model', reference, '--clean-ids', clean.join(','), '--corrupt-ids', corrupt.join(','), '--json']);
    same(model.patch({ clean, corrupt }), native, 'patch of tiny_gpt2');
  });
});

test('bad requests are MhaErrors with their codes', () => {
  withModel(shipped, (model) => {
    refuses(() => model.patch({ clean: CLEAN, corrupt: [0, 5] }), 'patch_lengths_differ');
    refuses(() => model.patch({ clean: CLEAN, corrupt: CORRUPT, answer: 64 }), 'patch_token_outside_vocabulary');
    refuses(() => model.patch({ clean: CLEAN }), 'not_text_or_ids');
    refuses(() => model.patch({ clean: CLEAN, corrupt: CORRUPT, answr: 7 }), 'unknown_option_near');
    refuses(() => model.headCircuit(CLEAN, 2, 0), 'no_such_head');
  });
  const one = new mha.Model({ model: 'attn-only', layers: 1, dModel: 8, heads: 2, vocabSize: 8, maxPositions: 8 });
  try {
    refuses(() => one.circuits(), 'composition_needs_two_layers');
  } finally {
    one.delete();
  }
  const single = new mha.Model({ dModel: 8, heads: 2 });
  try {
    refuses(() => single.circuits(), 'needs_blocks');
    refuses(() => single.patch({ clean: [1, 2], corrupt: [1, 3] }), 'needs_blocks');
  } finally {
    single.delete();
  }
});
