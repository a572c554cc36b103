// Models dropped on the demo, from a server and from file://: each layout shows the shapes its
// tensors imply, and a GPT-2-shaped file is read a tensor at a time, never its unused masks.
'use strict';

const { test, before, after, beforeEach } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const { usePageSuite } = require('./browser.js');
const { writeGpt2File } = require('../../scripts/gpt2-file.js');

const ROOT = path.join(__dirname, '..', '..');
const DATA = path.join(ROOT, 'tests', 'reference', 'data');
const WAIT = 15_000;

let server;
let page;
const suite = usePageSuite({
  files: ['web/index.html', 'web/build/app.js', 'web/build/mha-demo.js', 'web/build/mha-trained.js'],
  wait: WAIT,
});
beforeEach(() => {
  ({ server, page } = suite);
});

// [file, what the demo shows once it is dropped]. The GPT-2-layout model is one trained here (its file
// says it reads text by first appearance; a GPT-2 checkpoint's own tokenizer is model.test.js's).
const GPT2_FILE = path.join(os.tmpdir(), 'mha-drop-gpt2.safetensors');
const FILES = [
  [path.join(DATA, 'pytorch_mha.weights.safetensors'), { model: 'single', layout: 'pytorch', q: '1,5,24' }],
  [path.join(DATA, 'llama_gqa.weights.safetensors'), { model: 'single', layout: 'llama', rope: true }],
  [GPT2_FILE, { model: 'gpt2', layers: 2, mlp: true }],
  [path.join(DATA, 'tiny_attn_only.model.safetensors'), { model: 'attn-only', layers: 2, mlp: false }],
];
before(async () => {
  const mha = await require('../../web/mha.js')();
  const trainer = new mha.Trainer({ model: 'gpt2', layers: 2, dModel: 16, heads: 2, vocabSize: 20, maxLength: 6 });
  trainer.step(1);
  fs.writeFileSync(GPT2_FILE, trainer.modelFile());
  trainer.delete();
});
after(() => fs.rmSync(GPT2_FILE, { force: true }));

// Drops files on the demo as a browser does: a DataTransfer holding Files, on the demo's frame.
async function drop(files) {
  await page.evaluate(async (list) => {
    const transfer = new DataTransfer();
    for (const { name, base64 } of list) transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name));
    const frame = document.querySelector('mha-demo').shadowRoot.querySelector('.mha');
    frame.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, files.map((f) => ({ name: path.basename(f), base64: fs.readFileSync(f).toString('base64') })));
}

for (const [where, url] of [['a server', () => `${server.url}?model=random&text=${encodeURIComponent('我是秦始皇')}&heads=4`],
  ['file://', () => `${pathToFileURL(path.join(ROOT, 'web', 'index.html')).href}?model=random&text=${encodeURIComponent('我是秦始皇')}&heads=4`]]) {
  test(`from ${where}, a dropped pytorch, llama, gpt2 or attn-only file shows the shapes its tensors imply`, { timeout: 90_000 }, async () => {
    await page.goto(url());
    await page.evaluate(() => document.querySelector('mha-demo').ready);
    for (const [file, want] of FILES) {
      await drop([file]);
      await page.waitForFunction((m) => {
        const s = document.querySelector('mha-demo').state;
        return (s.result.config.model === m && s.status === 'idle' && !s.opening) || Object.keys(s.errors).length;
      }, want.model, { timeout: WAIT });
      const seen = await page.evaluate(() => {
        const demo = document.querySelector('mha-demo');
        const r = demo.state.result;
        const shapes = Object.fromEntries(Object.entries(r.tensors).map(([n, x]) => [n, x.shape.join(',')]));
        const strip = Object.fromEntries([...demo.shadowRoot.querySelectorAll('[data-stage-button]')].map((b) => [b.dataset.stageButton, b.querySelector('.pipe-shape').textContent]));
        return { config: r.config, stages: r.stages.map((s) => s.id), shapes, strip, status: demo.shadowRoot.querySelector('#status').textContent, errors: demo.state.errors };
      });
      const what = `${path.basename(file)} from ${where}`;
      assert.deepEqual(seen.errors, {}, what);
      const { dModel: d, heads: H, kvHeads: G } = seen.config;
      const T = seen.shapes.x.split(',')[1];
      assert.equal(seen.shapes.q, `1,${T},${d}`, `${what}: q is (1, T, d_model)`);
      assert.equal(seen.shapes.k, `1,${T},${G * (d / H)}`, `${what}: k is (1, T, kv_heads·d_head)`);
      assert.equal(seen.shapes.weights, `1,${H},${T},${T}`, `${what}: one T × T map per head`);
      assert.equal(seen.strip.attend, `(1, ${H}, ${T}, ${T})`, `${what}: the strip shows it`);
      if (want.q) assert.equal(seen.shapes.q, want.q, what);
      if (want.layers) assert.equal(seen.config.layers, want.layers, what);
      if (want.mlp !== undefined) assert.equal(seen.stages.includes('mlp'), want.mlp, `${what}: ${want.mlp ? 'has' : 'has no'} MLP`);
      assert.equal(seen.stages.includes('rope'), Boolean(want.rope), `${what}: rope only for Llama`);
      if (want.model !== 'single') assert.equal(seen.shapes.logits, `1,${T},${seen.config.vocabSize}`, `${what}: logits over its vocabulary`);
      assert.match(seen.status, want.layout ? new RegExp(want.layout) : new RegExp(want.model), `${what}: the status line names it: ${seen.status}`);
    }
    suite.assertNoProblems();
  });
}

test('a GPT-2-shaped file is read a tensor at a time: the bytes read are its header and the tensors the model needs, never the masks', { timeout: 60_000 }, async () => {
  const file = path.join(ROOT, 'web', 'build', 'test-gpt2-masks.safetensors');
  const made = writeGpt2File(file, { layers: 4, dModel: 64, vocab: 1000, positions: 128, heads: 4 });
  try {
    await page.goto(`${server.url}?model=trained`);
    await page.evaluate(() => document.querySelector('mha-demo').ready);
    const read = await page.evaluate(async () => {
      const real = await (await fetch('build/test-gpt2-masks.safetensors')).blob();
      const counted = { bytes: 0 };
      const blob = { name: 'counted.safetensors', size: real.size, slice: (a, b) => { const part = real.slice(a, b); counted.bytes += part.size; return part; } };
      await document.querySelector('mha-demo').openFile(blob);
      return { bytes: counted.bytes };
    });
    // The masks (h.N.attn.bias), not c_attn.bias.
    const masks = Object.entries(made.tensors).filter(([n]) => /\.h\.\d+\.attn\.bias$/.test(n)).reduce((sum, [, t]) => sum + (t.end - t.begin), 0);
    assert.ok(masks > 0);
    assert.equal(read.bytes, made.size - masks, `read ${read.bytes} of ${made.size} bytes: all but the ${masks} bytes of masks`);
    await page.waitForFunction(() => document.querySelector('mha-demo').state.settings.model === 'file', null, { timeout: WAIT });
  } finally {
    fs.rmSync(file, { force: true });
  }
  suite.problems.length = 0; // a GPT-2 file without its tokenizer asks for it: expected here
});
