// Our WebAssembly core (web/build/mha-core.js through web/mha.js), as the benchmark uses it.
'use strict';

const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');

let mha = null;
let moduleObject = null;

// WebAssembly memory: mha.memoryBytes() where web/mha.js has it; otherwise read from the Module
// object (Emscripten's MODULARIZE factory uses the options object we pass as its Module, and
// Emscripten 3.1.6 assigns Module.HEAPU8 on every memory growth).
async function loadOurs() {
  if (mha) return mha;
  moduleObject = {};
  mha = await require(path.join(ROOT, 'web', 'mha.js'))(moduleObject);
  return mha;
}

function heapBytesOf(instance, options) {
  if (instance && typeof instance.memoryBytes === 'function') return instance.memoryBytes();
  return options && options.HEAPU8 ? options.HEAPU8.buffer.byteLength : NaN;
}

function heapMethod() {
  return mha && typeof mha.memoryBytes === 'function' ? 'mha.memoryBytes()' : 'Module.HEAPU8.buffer.byteLength';
}

function oursHeapBytes() {
  return heapBytesOf(mha, moduleObject);
}

class OurAttention {
  // bytes: safetensors (pytorch layout) so all three implementations run the same weights.
  constructor(bytes, { dModel, heads, causal }) {
    this.model = new mha.Model({ dModel, heads, kvHeads: heads, causal, seed: 1 });
    this.model.loadWeights(bytes, 'pytorch', 0);
    const c = this.model.config;
    if (c.dModel !== dModel || c.heads !== heads || c.causal !== causal) {
      throw new Error(`our model config ${JSON.stringify(c)} is not the one asked for`);
    }
  }

  weight(name) {
    return this.model.weight(name);
  }

  // One forward pass (every stage tensor the module computes kept in the trace, the attention
  // weights included) refilling the trace of the last call, as a page redrawing on every change
  // would; y copied out to JS into a Float32Array reused from call to call. withWeights (the
  // checks): fresh copies of y and the weights.
  forward(x, T, withWeights = false) {
    this.trace = this.trace ? this.model.runInput(x, T, { into: this.trace }) : this.model.runInput(x, T);
    if (withWeights) return { y: this.trace.data('y'), weights: this.trace.data('weights') };
    if (!this.y || this.y.length !== x.length) this.y = new Float32Array(x.length);
    return { y: this.trace.data('y', this.y) };
  }

  delete() {
    if (this.trace) this.trace.delete();
    this.model.delete();
  }
}

module.exports = { loadOurs, oursHeapBytes, heapBytesOf, heapMethod, OurAttention, ROOT };
