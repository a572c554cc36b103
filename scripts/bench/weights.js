// Deterministic random weights and inputs for the benchmark, and their PyTorch-layout tensors so the
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

// The weights under PyTorch's nn.MultiheadAttention names (in_proj_weight = [W_q; W_k; W_v],
// out_proj.*), as the tensors tensorsSafetensors() (web/src/export/safetensors.mjs) writes.
function pytorchTensors(w, d) {
  const inW = new Float32Array(3 * d * d);
  inW.set(w.w_q, 0);
  inW.set(w.w_k, d * d);
  inW.set(w.w_v, 2 * d * d);
  const inB = new Float32Array(3 * d);
  inB.set(w.b_q, 0);
  inB.set(w.b_k, d);
  inB.set(w.b_v, 2 * d);
  return {
    in_proj_weight: { shape: [3 * d, d], data: inW },
    in_proj_bias: { shape: [3 * d], data: inB },
    'out_proj.weight': { shape: [d, d], data: w.w_o },
    'out_proj.bias': { shape: [d], data: w.b_o },
  };
}

module.exports = { rng, randomWeights, randomInput, pytorchTensors };
