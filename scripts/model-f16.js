// A safetensors file with every F32 tensor stored as F16 (round to nearest even), the rest as it
// was. The page bundles the trained model this way: half the bytes, and the core reads F16 exactly
// (tests/test_train.cpp checks the rounded model still meets every threshold).
'use strict';

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

function toHalf(value) {
  f32[0] = value;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // inf, NaN
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // too large: inf
  if (e <= 0) {
    if (e < -10) return sign; // too small: ±0
    mant |= 0x800000; // subnormal half: shift in the hidden bit
    const shift = 14 - e;
    let half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1), mid = 1 << (shift - 1);
    if (rest > mid || (rest === mid && (half & 1))) half += 1;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (half & 1))) half += 1; // may carry into the exponent: still right
  return sign | half;
}

// Resolves to the new file's bytes (web/src/export/safetensors.mjs writes it).
async function toF16(bytes) {
  const { tensorsSafetensors } = await import('../web/src/export/safetensors.mjs');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  const data = bytes.subarray(8 + n);
  const tensors = {};
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [b, e] = entry.data_offsets;
    let raw = new Uint8Array(data.subarray(b, e)); // a copy: a Buffer's slice() is a view
    let dtype = entry.dtype;
    if (dtype === 'F32') {
      const floats = new Float32Array(raw.buffer);
      const halves = new Uint16Array(floats.length);
      for (let i = 0; i < floats.length; i++) halves[i] = toHalf(floats[i]);
      raw = new Uint8Array(halves.buffer);
      dtype = 'F16';
    }
    tensors[name] = { shape: entry.shape, dtype, raw };
  }
  return tensorsSafetensors(tensors, header.__metadata__ || {});
}

module.exports = { toF16, toHalf };
