// The page's module, web/build/mha-page-core.js (the widget's: CMakeLists.txt, bindings.cpp
// MHA_PAGE_MODULE), against the whole one, mha-core.js: what it keeps runs to the same bits, and
// what takes gradients is refused naming the module to use rather than missing as `undefined`.
'use strict';
const { test, before } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const createMha = require('../../web/mha.js');

const WEB = path.join(__dirname, '..', '..', 'web');
let page;
let whole;

// web/mha.js over the page's core: its CommonJS branch asks require() for the core, given it here.
function pageCreateMha() {
  const mod = { exports: {} };
  // eslint-disable-next-line no-new-func
  new Function('module', 'exports', 'require', fs.readFileSync(path.join(WEB, 'mha.js'), 'utf8'))(
    mod, mod.exports, () => require(path.join(WEB, 'build', 'mha-page-core.js')));
  return mod.exports;
}

before(async () => {
  page = await pageCreateMha()();
  whole = await createMha();
});

test('the page\'s module runs a model of blocks to the same bits as the whole one', () => {
  const options = { model: 'gpt2', layers: 2, dModel: 32, heads: 4, vocabSize: 50, maxPositions: 16, seed: 7 };
  const [a, b] = [page, whole].map((mha) => new mha.Model(options).runIds([1, 5, 9, 23, 7, 5, 9]));
  for (const name of a.names()) assert.deepEqual(a.data(name), b.data(name), name);
  assert.ok(a.names().length > 10);
});

test('what takes gradients is refused by the page\'s module, naming the one that has it', () => {
  const model = new page.Model({ model: 'gpt2', layers: 1, dModel: 16, heads: 2, vocabSize: 20, maxPositions: 8 });
  for (const call of [() => new page.Trainer({}), () => model.prune(), () => model.headImportance([1, 2, 3])]) {
    assert.throws(call, (e) => e instanceof page.MhaError && /needs gradients.*mha-core\.js/.test(e.message));
  }
  const trainer = new whole.Trainer({ task: 'recall', steps: 2 });
  assert.equal(trainer.step(1).length, 1);
});

test('the page\'s wasm is at least 20 KB smaller gzipped than the whole one (the backward pass, AdamW, the tasks)', () => {
  const zlib = require('node:zlib');
  const wasmGz = (file) => {
    const found = /data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/.exec(fs.readFileSync(path.join(WEB, 'build', file), 'utf8'));
    return zlib.gzipSync(Buffer.from(found[1], 'base64'), { level: 9 }).length;
  };
  const [p, w] = [wasmGz('mha-page-core.js'), wasmGz('mha-core.js')];
  console.log(`# wasm gzipped: page ${(p / 1024).toFixed(1)} KB, whole ${(w / 1024).toFixed(1)} KB`);
  assert.ok(w - p >= 20 * 1024, `${w - p} bytes`);
});
