// The GPT-2-small-shaped workload of npm run bench:model and bench:generate: the ids every engine
// runs (mha_bench and bench_pytorch.py use the same formula), and what one decoding step reads.
'use strict';

const fs = require('node:fs');

// T ids, the same in every engine.
function benchIds(T, vocab) {
  const ids = new Int32Array(T);
  for (let t = 0; t < T; ++t) ids[t] = (t * 7919 + 13) % vocab;
  return ids;
}

// The bytes of weights one decoding step reads, from the safetensors file's header: every tensor
// once (wte as the tied unembedding; its one embedding row is among them), and of wpe one row only.
function decodeStepBytes(file) {
  const fd = fs.openSync(file, 'r');
  try {
    const size = Buffer.alloc(8);
    fs.readSync(fd, size, 0, 8, 0);
    const header = Buffer.alloc(Number(size.readBigUInt64LE()));
    fs.readSync(fd, header, 0, header.length, 8);
    let bytes = 0;
    for (const [name, t] of Object.entries(JSON.parse(header.toString('utf8')))) {
      if (name === '__metadata__') continue;
      const [begin, end] = t.data_offsets;
      bytes += name.endsWith('wpe.weight') ? (end - begin) / t.shape[0] : end - begin;
    }
    return bytes;
  } finally {
    fs.closeSync(fd);
  }
}

module.exports = { benchIds, decodeStepBytes };
