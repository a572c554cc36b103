// Writes a GPT-2-shaped safetensors file (Hugging Face's names, "transformer." prefix, attn.bias
// mask buffers the model never reads) of small random values, streamed to disk so even GPT-2
// small's ~500 MB never sits in memory. For tests/node/open.test.js and scripts/bench-open.js.
'use strict';
const fs = require('node:fs');

const GPT2_SMALL = { layers: 12, dModel: 768, vocab: 50257, positions: 1024, heads: 12 };

// [name, shape] in the order Hugging Face writes them; masks: [1, 1, positions, positions] F32 each.
function gpt2Tensors({ layers, dModel: d, vocab, positions }) {
  const out = [['transformer.wte.weight', [vocab, d]], ['transformer.wpe.weight', [positions, d]]];
  for (let i = 0; i < layers; i++) {
    const h = `transformer.h.${i}.`;
    out.push(
      [`${h}ln_1.weight`, [d]], [`${h}ln_1.bias`, [d]],
      [`${h}attn.bias`, [1, 1, positions, positions]],
      [`${h}attn.c_attn.weight`, [d, 3 * d]], [`${h}attn.c_attn.bias`, [3 * d]],
      [`${h}attn.c_proj.weight`, [d, d]], [`${h}attn.c_proj.bias`, [d]],
      [`${h}ln_2.weight`, [d]], [`${h}ln_2.bias`, [d]],
      [`${h}mlp.c_fc.weight`, [d, 4 * d]], [`${h}mlp.c_fc.bias`, [4 * d]],
      [`${h}mlp.c_proj.weight`, [4 * d, d]], [`${h}mlp.c_proj.bias`, [d]],
    );
  }
  out.push(['transformer.ln_f.weight', [d]], ['transformer.ln_f.bias', [d]]);
  return out;
}

// Writes the file; returns {size, headerBytes, tensors: {name: {shape, begin, end}}} (offsets in the file).
// metadata: the header's __metadata__; Hugging Face's checkpoints hold only {format: 'pt'} (no heads).
function writeGpt2File(path, sizes = GPT2_SMALL, seed = 1, metadata = { heads: String(sizes.heads) }) {
  const tensors = gpt2Tensors(sizes);
  const header = { __metadata__: metadata };
  let offset = 0;
  for (const [name, shape] of tensors) {
    const bytes = 4 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  while ((8 + json.length) % 8 !== 0) json += ' ';
  const headerBytes = 8 + json.length;

  // One block of random values in [-0.02, 0.02), written again and again (a fresh value per float
  // would make writing the file the slow part of the test).
  const block = new Float32Array(1 << 18);
  let s = seed >>> 0;
  for (let i = 0; i < block.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    block[i] = (s / 2 ** 32 - 0.5) * 0.04;
  }
  const blockBytes = Buffer.from(block.buffer);
  const fd = fs.openSync(path, 'w');
  try {
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(json.length));
    fs.writeSync(fd, len);
    fs.writeSync(fd, json);
    for (let left = offset; left > 0; left -= blockBytes.length) fs.writeSync(fd, blockBytes, 0, Math.min(left, blockBytes.length));
  } finally {
    fs.closeSync(fd);
  }
  const where = {};
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    where[name] = { shape: entry.shape, begin: headerBytes + entry.data_offsets[0], end: headerBytes + entry.data_offsets[1] };
  }
  return { size: headerBytes + offset, headerBytes, tensors: where };
}

// Hugging Face's config.json for those sizes (the keys the core reads, and one it ignores).
const hfConfig = ({ layers, dModel, vocab, positions, heads }) =>
  JSON.stringify({ model_type: 'gpt2', n_head: heads, n_layer: layers, n_embd: dModel, n_positions: positions, vocab_size: vocab });

module.exports = { GPT2_SMALL, writeGpt2File, hfConfig };
