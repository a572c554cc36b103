// Reads a safetensors file into {metadata, tensors: {name: {dtype, shape, data}}} for the tests.
// F32 data comes back as Float32Array, I64 as BigInt64Array.
'use strict';
const fs = require('node:fs');

function readSafetensors(path) {
  const bytes = fs.readFileSync(path);
  const headerLength = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8'));
  const dataStart = 8 + headerLength;
  const tensors = {};
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [begin, end] = entry.data_offsets;
    const raw = bytes.buffer.slice(bytes.byteOffset + dataStart + begin, bytes.byteOffset + dataStart + end);
    const data = entry.dtype === 'I64' ? new BigInt64Array(raw) : new Float32Array(raw);
    tensors[name] = { dtype: entry.dtype, shape: entry.shape, data };
  }
  return { metadata: header.__metadata__ || {}, tensors };
}

module.exports = { readSafetensors };
