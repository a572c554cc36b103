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

function toF16(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  const data = bytes.subarray(8 + n);
  const out = {};
  const parts = [];
  let offset = 0;
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') {
      out[name] = entry;
      continue;
    }
    const [b, e] = entry.data_offsets;
    let raw = data.subarray(b, e);
    let dtype = entry.dtype;
    if (dtype === 'F32') {
      const floats = new Float32Array(new Uint8Array(raw).buffer); // a copy: a Buffer's slice() is a view
      const halves = new Uint16Array(floats.length);
      for (let i = 0; i < floats.length; i++) halves[i] = toHalf(floats[i]);
      raw = new Uint8Array(halves.buffer);
      dtype = 'F16';
    }
    out[name] = { dtype, shape: entry.shape, data_offsets: [offset, offset + raw.length] };
    parts.push(raw);
    offset += raw.length;
  }
  let text = JSON.stringify(out);
  text += ' '.repeat((8 - ((8 + Buffer.byteLength(text)) % 8)) % 8);
  const head = Buffer.from(text);
  const result = new Uint8Array(8 + head.length + offset);
  new DataView(result.buffer).setBigUint64(0, BigInt(head.length), true);
  result.set(head, 8);
  let at = 8 + head.length;
  for (const p of parts) {
    result.set(p, at);
    at += p.length;
  }
  return result;
}

module.exports = { toF16, toHalf };
