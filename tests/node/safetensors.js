// Reads safetensors for the tests: {header, metadata, tensors: {name: {dtype, shape, data}}}.
// F32 data comes back as Float32Array, I32 as Int32Array, I64 as BigInt64Array.
'use strict';
const fs = require('node:fs');

const ARRAYS = { F32: Float32Array, I32: Int32Array, I64: BigInt64Array };

function parseSafetensors(bytes) {
  const headerLength = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8'));
  const dataStart = 8 + headerLength;
  const tensors = {};
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const Array = ARRAYS[entry.dtype];
    if (!Array) throw new Error(`tensor '${name}' has dtype ${entry.dtype}, which the tests do not read`);
    const [begin, end] = entry.data_offsets;
    const raw = bytes.buffer.slice(bytes.byteOffset + dataStart + begin, bytes.byteOffset + dataStart + end);
    tensors[name] = { dtype: entry.dtype, shape: entry.shape, data: new Array(raw) };
  }
  return { header, metadata: header.__metadata__ || {}, tensors };
}

function readSafetensors(path) {
  return parseSafetensors(fs.readFileSync(path));
}

module.exports = { parseSafetensors, readSafetensors };
