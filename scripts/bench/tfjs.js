// Multi-head self-attention with TensorFlow.js ops on the WebAssembly backend, single thread.
'use strict';

const path = require('node:path');

let tf = null;
let wasmBackend = null;

// Loads tfjs-core + tfjs-backend-wasm, with the .wasm binaries from node_modules (nothing fetched).
async function loadTfjs() {
  if (tf) return tf;
  tf = require('@tensorflow/tfjs-core');
  wasmBackend = require('@tensorflow/tfjs-backend-wasm');
  const dist = path.join(path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist') + path.sep;
  wasmBackend.setWasmPaths(dist);
  wasmBackend.setThreadsCount(1);
  // tfjs never uses threads in Node (WASM_HAS_MULTITHREAD_SUPPORT is false there); be explicit anyway.
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  if (!(await tf.setBackend('wasm'))) throw new Error('tfjs: the wasm backend did not initialise');
  await tf.ready();
  return tf;
}

async function tfjsInfo() {
  await loadTfjs();
  const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
  return {
    version: tf.version_core,
    backend: tf.getBackend(),
    binary: simd ? 'tfjs-backend-wasm-simd.wasm' : 'tfjs-backend-wasm.wasm',
    threads: wasmBackend.getThreadsCount(),
  };
}

// Bytes of the wasm backend's heap (WebAssembly memory only grows, so this is its peak so far).
function tfjsHeapBytes() {
  const b = tf.backend();
  return b && b.wasm && b.wasm.HEAPU8 ? b.wasm.HEAPU8.buffer.byteLength : NaN;
}

// Two ways to write the projections, same math:
//   transposeB: true   W kept as [d_out, d_in] (PyTorch's layout), tf.matMul(x, W, false, true).
//                      tfjs-backend-wasm 4.x sends any transposed matMul to its scalar
//                      "slow_batch_matmul" loop, not to XNNPACK.
//   transposeB: false  W transposed once when the model is built ([d_in, d_out], the layout of
//                      tf.layers.dense kernels), tf.matMul(x, Wt): a 2-D, untransposed product,
//                      which the backend runs as an XNNPACK fully-connected operator (cached per
//                      weight tensor). The default, and what the comparison uses.
// The attention products (heads batched: Q·Kᵀ and P·V) take the slow path in both.
class TfjsAttention {
  constructor(w, { dModel, heads, causal, transposeB = false }) {
    this.d = dModel;
    this.heads = heads;
    this.causal = causal;
    this.transposeB = transposeB;
    this.p = {};
    for (const p of ['q', 'k', 'v', 'o']) {
      const W = tf.tensor2d(w[`w_${p}`], [dModel, dModel]);
      this.p[`w_${p}`] = transposeB ? W : tf.transpose(W);
      if (!transposeB) W.dispose();
      this.p[`b_${p}`] = tf.tensor1d(w[`b_${p}`]);
    }
    for (const t of Object.values(this.p)) t.dataSync(); // uploaded before any timing
    this.masks = new Map(); // T -> additive causal mask (T, T), built on first use and kept
  }

  // 0 on and below the diagonal, -1e9 above it (softmax turns those into exactly 0), kept like a
  // model's registered buffer rather than rebuilt by several small ops in every call.
  mask(T) {
    let m = this.masks.get(T);
    if (!m) {
      m = tf.tidy(() => tf.mul(tf.sub(tf.linalg.bandPart(tf.ones([T, T]), -1, 0), 1), 1e9));
      this.masks.set(T, m);
    }
    return m;
  }

  // Returns {y, weights} as Float32Arrays when withWeights, else {y}.
  forward(x, T, withWeights = false) {
    const { d, heads, causal, p, transposeB } = this;
    const D = d / heads;
    const scale = 1 / Math.sqrt(D);
    if (causal) this.mask(T); // outside tidy, so it is kept
    const out = tf.tidy(() => {
      const xt = tf.tensor2d(x, [T, d]);
      const lin = (a, name) => tf.add(tf.matMul(a, p[`w_${name}`], false, transposeB), p[`b_${name}`]);
      const split = (t) => tf.transpose(tf.reshape(t, [T, heads, D]), [1, 0, 2]); // (heads, T, D)
      const q = split(lin(xt, 'q'));
      const k = split(lin(xt, 'k'));
      const v = split(lin(xt, 'v'));
      let scores = tf.mul(tf.matMul(q, k, false, true), scale); // (heads, T, T)
      if (causal) scores = tf.add(scores, this.mask(T)); // j > i pushed to -1e9
      const weights = tf.softmax(scores); // over the last axis
      const headOut = tf.matMul(weights, v); // (heads, T, D)
      const concat = tf.reshape(tf.transpose(headOut, [1, 0, 2]), [T, d]);
      const y = lin(concat, 'o');
      return withWeights ? { y, weights } : { y };
    });
    const result = { y: out.y.dataSync() };
    if (withWeights) result.weights = out.weights.dataSync();
    for (const t of Object.values(out)) t.dispose();
    return result;
  }

  delete() {
    for (const t of Object.values(this.p)) t.dispose();
    for (const t of this.masks.values()) t.dispose();
  }
}

module.exports = { loadTfjs, tfjsInfo, tfjsHeapBytes, TfjsAttention };
