// The JavaScript face of the attention core: createMha() -> {Model, MhaError}.
// Hides the raw Embind handles: failed calls throw MhaError with the core's own message, and every
// array handed out is a copy that stays valid when WebAssembly memory grows.
// Loads as a classic <script> after build/mha-core.js (so the page works from file://) or via require() in Node.
(function (root, factory) {
  if (typeof module === 'object' && module.exports) {
    module.exports = factory(() => require('./build/mha-core.js'));
  } else {
    root.createMha = factory(() => root.createMhaCore);
  }
})(typeof self !== 'undefined' ? self : this, function (loadCore) {
  'use strict';

  class MhaError extends Error {
    constructor(message) {
      super(message);
      this.name = 'MhaError';
    }
  }

  const STAGES = ['tokenize', 'embed', 'project', 'split', 'attend', 'concat', 'output'];

  async function createMha(moduleOptions = {}) {
    const createMhaCore = loadCore();
    if (typeof createMhaCore !== 'function') {
      throw new MhaError('mha-core.js is not loaded: include build/mha-core.js before mha.js');
    }
    const core = await createMhaCore(moduleOptions);

    class Trace {
      constructor(raw) {
        this._raw = raw;
      }
      tokens() { return this._raw.tokens(); }
      ids() { return this._raw.ids(); }
      names() { return this._raw.names(); }
      config() { return this._raw.config(); }
      stage(name) { return this._need(name, this._raw.stage(name)); }
      shape(name) { return this._need(name, this._raw.shape(name)); }
      data(name) { return this._need(name, this._raw.data(name)); }
      has(name) { return this._raw.stage(name) !== null; }
      // Names of the tensors of one stage, in order: trace.tensorsOf('attend') -> ['scores', 'weights', 'head_out'].
      tensorsOf(stage) { return this.names().filter((n) => this._raw.stage(n) === stage); }
      delete() {
        if (this._raw) this._raw.delete();
        this._raw = null;
      }
      _need(name, value) {
        if (value === null) throw new MhaError(`the trace has no tensor named '${name}'`);
        return value;
      }
    }

    class Model {
      // options: {dModel, heads, kvHeads, causal, seed, vocabSize}; missing keys take the defaults.
      constructor(options = {}) {
        this._raw = new core.RawModel();
        try {
          this.configure(options);
        } catch (e) {
          this._raw.delete();
          throw e;
        }
      }
      // Changes settings in place; on error the model keeps its previous settings and weights.
      configure(options) {
        this._check(this._raw.configure(options));
        return this;
      }
      loadWeights(bytes, layout = 'pytorch', layer = 0) {
        if (typeof layout !== 'string') throw new MhaError('layout must be "pytorch", "llama" or "gpt2"');
        if (!Number.isInteger(layer) || layer < 0) throw new MhaError('layer must be a whole number, 0 or more');
        this._check(this._raw.loadWeights(bytes, layout, layer));
        return this;
      }
      runText(text) {
        if (typeof text !== 'string') throw new MhaError('text must be a string');
        return this._trace(this._raw.runText(text));
      }
      // x: Float32Array (or number[]) of T × d_model values, row by row.
      runInput(x, T) {
        if (!Number.isInteger(T)) throw new MhaError('T must be a whole number');
        return this._trace(this._raw.runInput(x, T));
      }
      get config() { return this._raw.config(); }
      // A weight as {shape, data}: w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o (y = x·Wᵀ + b).
      weight(name) {
        const w = this._raw.weight(name);
        if (w === null) throw new MhaError(`no weight named '${name}'; expected w_q, b_q, w_k, b_k, w_v, b_v, w_o or b_o`);
        return w;
      }
      delete() {
        if (this._raw) this._raw.delete();
        this._raw = null;
      }
      _trace(raw) {
        if (!raw) throw new MhaError(this._raw.lastError());
        return new Trace(raw);
      }
      _check(error) {
        if (error) throw new MhaError(error);
      }
    }

    // WebAssembly memory held by the module, in bytes. It only grows, so this is also the peak.
    const memoryBytes = () => core.memoryBytes();

    return { Model, MhaError, STAGES, memoryBytes };
  }

  createMha.MhaError = MhaError;
  return createMha;
});
