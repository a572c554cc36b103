// Deterministic random weights and inputs for the benchmark, and a tiny safetensors writer so the
// same weights (with non-zero biases, unlike the core's Xavier init) can be loaded into our module.
'use strict';

// mulberry32: a small seeded generator; quality is irrelevant here, reproducibility is not.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function uniform(n, bound, next) {
  const out = new Float32Array(n);
  for (let i = 0; i < n; ++i) out[i] = (next() * 2 - 1) * bound;
  return out;
}

// Weights as nn.MultiheadAttention stores them: W [d_out, d_in], y = x·Wᵀ + b.
function randomWeights(d, seed) {
  const next = rng(seed);
  const xavier = Math.sqrt(6 / (d + d));
  const w = {};
  for (const p of ['q', 'k', 'v', 'o']) {
    w[`w_${p}`] = uniform(d * d, xavier, next);
    w[`b_${p}`] = uniform(d, 0.1, next);
  }
  return w;
}

function randomInput(T, d, seed) {
  return uniform(T * d, 1, rng(seed ^ 0x9e3779b9));
}

// PyTorch layout (in_proj_weight = [W_q; W_k; W_v], out_proj.*), F32, as safetensors bytes.
function pytorchSafetensors(w, d) {
  const inW = new Float32Array(3 * d * d);
  inW.set(w.w_q, 0);
  inW.set(w.w_k, d * d);
  inW.set(w.w_v, 2 * d * d);
  const inB = new Float32Array(3 * d);
  inB.set(w.b_q, 0);
  inB.set(w.b_k, d);
  inB.set(w.b_v, 2 * d);
  const tensors = [
    ['in_proj_weight', [3 * d, d], inW],
    ['in_proj_bias', [3 * d], inB],
    ['out_proj.weight', [d, d], w.w_o],
    ['out_proj.bias', [d], w.b_o],
  ];
  const header = {};
  let offset = 0;
  for (const [name, shape, data] of tensors) {
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + data.byteLength] };
    offset += data.byteLength;
  }
  let json = JSON.stringify(header);
  while ((8 + json.length) % 8 !== 0) json += ' ';
  const headerBytes = Buffer.from(json, 'utf8');
  const out = Buffer.alloc(8 + headerBytes.length + offset);
  out.writeBigUInt64LE(BigInt(headerBytes.length), 0);
  headerBytes.copy(out, 8);
  let at = 8 + headerBytes.length;
  for (const [, , data] of tensors) {
    Buffer.from(data.buffer, data.byteOffset, data.byteLength).copy(out, at);
    at += data.byteLength;
  }
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}

module.exports = { randomWeights, randomInput, pytorchSafetensors };
