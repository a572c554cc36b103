// Opening a model the way the page does (web/src/modelReader.mjs over a Blob): a GPT-2-small-sized
// file made here in a temp dir is read header first, then only the tensors the model needs (not
// Hugging Face's attn.bias masks), and the model runs 32 tokens through all 12 layers. Needs
// web/build/mha-core.js.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const createMha = require('../../web/mha.js');
const { GPT2_SMALL, writeGpt2File, hfConfig } = require('../../scripts/gpt2-file.js');

let mha;
let reader;
let tmp;

before(async () => {
  mha = await createMha();
  reader = await import('../../web/src/modelReader.mjs');
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mha-open-'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

// The blob, counting every byte read through it, by arrayBuffer() or by a stream (streams: false
// gives a blob without them, as some browsers' are).
function counting(blob, { streams = true } = {}) {
  const count = { bytes: 0, reads: 0, streamed: 0 };
  const wrap = (b) => {
    const out = {
      size: b.size,
      slice: (begin, end) => wrap(b.slice(begin, end)),
      arrayBuffer: async () => {
        const buffer = await b.arrayBuffer();
        count.bytes += buffer.byteLength;
        count.reads += 1;
        return buffer;
      },
    };
    if (streams) {
      out.stream = () => {
        count.bytes += b.size; // a reader reads its slice whole
        count.streamed += b.size;
        return b.stream();
      };
    }
    return out;
  };
  return { blob: wrap(blob), count };
}

test('a GPT-2-small-sized file: only the header and the needed tensors are read, and 32 tokens run', async () => {
  const file = path.join(tmp, 'gpt2-small.safetensors');
  const made = writeGpt2File(file, GPT2_SMALL);
  try {
    const { blob, count } = counting(await fs.openAsBlob(file));
    const progress = [];
    const model = await reader.readModel(mha, blob, { onProgress: (read, total) => progress.push([read, total]) });
    try {
      const masks = Object.entries(made.tensors).filter(([name]) => name.endsWith('.attn.bias'));
      assert.equal(masks.length, 12);
      const maskBytes = masks.reduce((sum, [, t]) => sum + (t.end - t.begin), 0);
      assert.equal(count.bytes, made.size - maskBytes, 'read: the header and every tensor but the masks');
      assert.equal(count.streamed, count.bytes - made.headerBytes, 'the tensors through byte streams, into one buffer');
      assert.ok(count.bytes < made.size);
      const [read, total] = progress.at(-1);
      assert.equal(read, count.bytes);
      assert.equal(total, count.bytes);
      assert.ok(progress.every(([r], i) => i === 0 || r > progress[i - 1][0]), 'progress only grows');

      const c = model.config;
      assert.deepEqual([c.model, c.layers, c.dModel, c.heads, c.vocabSize], ['gpt2', 12, 768, 12, 50257]);
      const ids = Array.from({ length: 32 }, (_, i) => (i * 1571) % 50257);
      const trace = model.runIds(ids);
      try {
        assert.deepEqual(Array.from(trace.shape('logits')), [1, 32, 50257]);
        assert.ok(trace.names().includes('layers.11.y'));
        assert.ok(trace.data('logits').every(Number.isFinite));
      } finally {
        trace.delete();
      }
    } finally {
      model.delete();
    }
  } finally {
    fs.rmSync(file, { force: true });
  }
});

test('a bad file is one MhaError before any tensor is read; a cancelled read stops between pieces', async () => {
  const file = path.join(tmp, 'small.safetensors');
  const sizes = { layers: 2, dModel: 16, vocab: 40, positions: 8, heads: 5 }; // 5 does not divide 16
  const made = writeGpt2File(file, sizes);
  const { blob, count } = counting(await fs.openAsBlob(file));
  await assert.rejects(reader.readModel(mha, blob), (e) => e instanceof mha.MhaError && /not divisible by heads 5/.test(e.message));
  assert.equal(count.bytes, made.headerBytes, 'only the header was read');

  const controller = new AbortController();
  const aborted = reader.readModel(mha, blob, { heads: 4, signal: controller.signal, onProgress: () => controller.abort() });
  await assert.rejects(aborted, (e) => e.name === 'AbortError');

  const truncated = new Blob([fs.readFileSync(file).subarray(0, made.size - 4)]);
  await assert.rejects(reader.readModel(mha, truncated, { heads: 4 }), /is the file truncated\?/);
  const model = await reader.readModel(mha, await fs.openAsBlob(file), { heads: 4 });
  assert.equal(model.config.layers, 2);
  model.delete();
});

test('a blob without byte streams is read with arrayBuffer(), a piece at a time, into the same model', async () => {
  const file = path.join(tmp, 'pieces.safetensors');
  // wte of 20001 × 64 floats: 5.1 MB, two pieces (reader.PIECE_BYTES is 4 MB), the second one short.
  const made = writeGpt2File(file, { layers: 1, dModel: 64, vocab: 20001, positions: 8, heads: 4 });
  assert.ok(20001 * 64 * 4 > reader.PIECE_BYTES && 20001 * 64 * 4 < 2 * reader.PIECE_BYTES);
  const ids = [0, 5, 9, 23, 5, 9];
  const logits = async (blob) => {
    const model = await reader.readModel(mha, blob);
    const trace = model.runIds(ids);
    try {
      return Array.from(trace.data('logits'));
    } finally {
      trace.delete();
      model.delete();
    }
  };
  const streamed = counting(await fs.openAsBlob(file));
  const plain = counting(await fs.openAsBlob(file), { streams: false });
  assert.deepEqual(await logits(plain.blob), await logits(streamed.blob));
  assert.equal(plain.count.streamed, 0);
  assert.equal(plain.count.bytes, streamed.count.bytes);
  assert.ok(streamed.count.streamed > 0);
  assert.ok(plain.count.bytes < made.size);
});

test('a Hugging Face checkpoint (only {format: pt} in its header) opens: d_model / 64 heads, or config.json\'s n_head', async () => {
  const file = path.join(tmp, 'hf.safetensors');
  const sizes = { layers: 2, dModel: 128, vocab: 50, positions: 16, heads: 4 };
  writeGpt2File(file, sizes, 1, { format: 'pt' });
  const open = async (options) => {
    const model = await reader.readModel(mha, await fs.openAsBlob(file), options);
    try {
      return [model.config.heads, model.config.headsFrom];
    } finally {
      model.delete();
    }
  };
  assert.deepEqual(await open(), [128 / mha.catalog.gpt2DHead, 'gpt2-d-head'], 'every GPT-2 size has d_head 64');
  assert.deepEqual(await open({ config: hfConfig(sizes) }), [4, 'config.json']);
  assert.deepEqual(await open({ config: new TextEncoder().encode(hfConfig(sizes)) }), [4, 'config.json'], 'its bytes too');
  assert.deepEqual(await open({ heads: 8, config: hfConfig(sizes) }), [8, 'given']);
  await assert.rejects(open({ config: hfConfig({ ...sizes, layers: 12 }) }), /n_layer 12 but the file has 2:/);
  const loaded = new mha.Model().loadModel(fs.readFileSync(file), { config: hfConfig(sizes) });
  assert.deepEqual([loaded.config.heads, loaded.config.headsFrom, loaded.config.tokenizer, loaded.config.weights], [4, 'config.json', '', 'loaded']);
  loaded.delete();
});
