// Multi-head self-attention in plain JavaScript: Float32Array and loops, no WebAssembly, no SIMD.
// A straightforward implementation, as one would write it by hand:
//   - the projections y = x·Wᵀ + b use W transposed once when the model is built (W stored
//     [d_in, d_out]) so the inner loop runs i-k-j, contiguous over j;
//   - scores are one dot product per (i, j), the causal mask skips j > i (those weights are 0);
//   - softmax subtracts the row max; the weights (heads, T, T) are materialised;
//   - P·V runs i-j-d; the heads are written straight into the concatenated (T, d) layout.
'use strict';

function transpose(w, rows, cols) {
  const t = new Float32Array(rows * cols);
  for (let r = 0; r < rows; ++r) for (let c = 0; c < cols; ++c) t[c * rows + r] = w[r * cols + c];
  return t;
}

// out[T, dOut] = x[T, dIn] · wt[dIn, dOut] + b, i-k-j.
function linear(x, wt, b, T, dIn, dOut) {
  const out = new Float32Array(T * dOut);
  for (let i = 0; i < T; ++i) {
    const row = i * dOut;
    for (let j = 0; j < dOut; ++j) out[row + j] = b[j];
    for (let k = 0; k < dIn; ++k) {
      const a = x[i * dIn + k];
      const wrow = k * dOut;
      for (let j = 0; j < dOut; ++j) out[row + j] += a * wt[wrow + j];
    }
  }
  return out;
}

class PlainAttention {
  // w: {w_q, b_q, ..., w_o, b_o}, each W [d, d] as y = x·Wᵀ + b.
  constructor(w, { dModel, heads, causal }) {
    this.d = dModel;
    this.heads = heads;
    this.causal = causal;
    this.wt = {};
    for (const p of ['q', 'k', 'v', 'o']) this.wt[p] = transpose(w[`w_${p}`], dModel, dModel);
    this.b = { q: w.b_q, k: w.b_k, v: w.b_v, o: w.b_o };
  }

  // x: Float32Array (T × d). Returns {y (T × d), weights (heads × T × T)}.
  forward(x, T) {
    const { d, heads, causal } = this;
    const D = (d / heads) | 0;
    const q = linear(x, this.wt.q, this.b.q, T, d, d);
    const k = linear(x, this.wt.k, this.b.k, T, d, d);
    const v = linear(x, this.wt.v, this.b.v, T, d, d);
    const weights = new Float32Array(heads * T * T);
    const concat = new Float32Array(T * d);
    for (let h = 0; h < heads; ++h) attendHead(q, k, v, weights, concat, h, T, d, D, causal);
    const y = linear(concat, this.wt.o, this.b.o, T, d, d);
    return { y, weights };
  }
}

// One head: scores, softmax into weights (h, T, T), and P·V into the head's columns of concat.
function attendHead(q, k, v, weights, concat, h, T, d, D, causal) {
  const scale = 1 / Math.sqrt(D);
  const off = h * D;
  for (let i = 0; i < T; ++i) {
    const n = causal ? i + 1 : T;
    const prow = (h * T + i) * T;
    const qi = i * d + off;
    let max = -Infinity;
    for (let j = 0; j < n; ++j) {
      const kj = j * d + off;
      let s = 0;
      for (let e = 0; e < D; ++e) s += q[qi + e] * k[kj + e];
      s *= scale;
      weights[prow + j] = s;
      if (s > max) max = s;
    }
    let sum = 0;
    for (let j = 0; j < n; ++j) {
      const e = Math.exp(weights[prow + j] - max);
      weights[prow + j] = e;
      sum += e;
    }
    const inv = 1 / sum;
    for (let j = 0; j < n; ++j) weights[prow + j] *= inv;
    // masked entries (j > i) stay 0
    const orow = i * d + off;
    for (let j = 0; j < n; ++j) {
      const p = weights[prow + j];
      const vj = j * d + off;
      for (let e = 0; e < D; ++e) concat[orow + e] += p * v[vj + e];
    }
  }
}

module.exports = { PlainAttention };
