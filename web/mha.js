// The JavaScript face of the attention core: createMha() -> {Model, Trainer, Gpt2Tokenizer, MhaError, …}.
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

  // The core's error: its one-line English message and, for errors about a setting or the text,
  // field ('d_model', 'heads', 'kv_heads', 'seed', 'text', …), code (a stable id such as
  // 'd_model_not_divisible') and params (the numbers in the message), for placing and translating it.
  class MhaError extends Error {
    constructor(message, info = null) {
      super(message);
      this.name = 'MhaError';
      this.field = (info && info.field) || null;
      this.code = (info && info.code) || null;
      this.params = (info && info.params) || {};
    }
  }

  async function createMha(moduleOptions = {}) {
    const createMhaCore = loadCore();
    if (typeof createMhaCore !== 'function') {
      throw new MhaError('mha-core.js is not loaded: include build/mha-core.js before mha.js');
    }
    const core = await createMhaCore(moduleOptions);
    // The core's one table of stages and tensors (cpp/core/model/stages.h): {stages: [{id, family, perLayer}],
    // tensors: [{name, stage, shape, formula}], stagesOf: {single: [ids…], 'attn-only': […], gpt2: […]}}.
    // What the core declares, once (cpp/core/catalog.h): {limits, defaults, ropeBase, presets,
    // recipes: {induction, inductionSmall, recall}, sweepHeads, phaseChangeScore, phaseChangeEvery, headMetrics: [{id, fraction, abbreviation, gradient}],
    // importance: {samples, seed, maxSamples},
    // labelRules: [{label, metric, atLeast}], errorCodes: [{code, english}], stageTable, generate, kvCache,
    // options: {model, trainer, generate, attribute, taskSamples, patch}: every option each takes, [{key, type, min?,
    // max?, choices?, task?, default?, help}] (cpp/core/options.h)}.
    // The module carries errorCodes' sentences once, in its error table, not again in the catalog's text.
    const catalog = Object.freeze({ ...JSON.parse(core.catalog()), errorCodes: core.errorCodes() });
    const { stageTable } = catalog;
    // The stages of one attention layer, in walk order.
    const STAGES = stageTable.stagesOf.single;

    // A raw handle's last error as an MhaError: every raw method returns its failure value ("" for a
    // message, or null) and keeps what went wrong (cpp/bindings/handles.h).
    const failed = (raw) => {
      throw new MhaError(raw.lastError(), raw.lastErrorInfo());
    };
    const failedIfNull = (raw, value) => (value === null ? failed(raw) : value);
    // mha-page-core.js, the page's module, has no gradients (cpp/bindings/bindings.cpp MHA_PAGE_MODULE).
    const gradients = (what) => {
      if (!core.RawTrainer) throw new MhaError(`${what} needs gradients, which this module (mha-page-core.js, the page's) leaves out: use mha-core.js`);
    };
    const checked = (raw, error) => {
      if (error) failed(raw);
    };
    // config.json as text for the core ('' = none): its text or its bytes; anything else goes to the
    // core as it is, which names it.
    const configText = (config) => {
      if (config instanceof ArrayBuffer) config = new Uint8Array(config);
      return config instanceof Uint8Array ? new TextDecoder().decode(config) : config;
    };

    class Trace {
      constructor(raw) {
        this._raw = raw;
      }
      tokens() { return failedIfNull(this._raw, this._raw.tokens()); }
      ids() { return failedIfNull(this._raw, this._raw.ids()); }
      names() { return failedIfNull(this._raw, this._raw.names()); }
      // The block a tensor belongs to (layers.{i}.*), or -1 for model-level tensors.
      layer(name) { return this._need(name, this._raw.layer(name)); }
      config() { return failedIfNull(this._raw, this._raw.config()); }
      // What each head does, measured in the core (cpp/core/analysis/head_metrics.h): {layers: [{heads: [{entropy,
      // self, previous_token, first_token, locality, distance, distance_normalised, induction,
      // duplicate_token, label}], similarity: [[…]]}]}, null where a metric has no row to stand on.
      headAnalysis() {
        const text = failedIfNull(this._raw, this._raw.headAnalysis());
        return text ? JSON.parse(text) : null;
      }
      // The logit of `token` at `position` split into what wrote it into the residual stream
      // (cpp/core/analysis/attribution.h): {position, token, logit, parts: [{kind: 'embedding' | 'head' |
      // 'mlp' | 'bias', layer?, head?, value}]}, the parts summing to the logit. By default the last
      // position and its first choice. A model that predicts (attn-only, gpt2) only.
      attribute(options = {}) {
        const { positions, tokens, logits, parts, values } = this._attributions(this._raw.attribute(options));
        return {
          position: positions[0], token: tokens[0], logit: logits[0],
          parts: parts.map((part, j) => ({ ...part, value: values[j] })),
        };
      }
      // Every position's first choice split the same way, as arrays (one call for a whole text):
      // {positions: T, tokens: Int32Array, logits: Float64Array, parts: [{kind, layer?, head?}] (the same
      // at every position), values: Float64Array of T × parts.length, position by position}.
      attributions() {
        const raw = this._attributions(this._raw.attributions());
        return { ...raw, positions: raw.positions.length };
      }
      _attributions(raw) {
        if (raw === null) throw new MhaError(this._raw.lastError(), this._raw.lastErrorInfo());
        return raw;
      }
      stage(name) { return this._need(name, this._raw.stage(name)); }
      shape(name) { return this._need(name, this._raw.shape(name)); }
      // The tensor's values as a new Float32Array, or copied into `into` (a Float32Array of exactly
      // that many values, returned): a caller reading every run saves allocating one each time.
      data(name, into) {
        if (into === undefined) return this._need(name, this._raw.data(name));
        const view = this._need(name, this._raw.view(name));
        if (!(into instanceof Float32Array) || into.length !== view.length) {
          throw new MhaError(`data('${name}', into): into must be a Float32Array of ${view.length} values`);
        }
        into.set(view);
        return into;
      }
      has(name) { return this._raw.stage(name) !== null; }
      // Names of the tensors of one stage, in order: trace.tensorsOf('attend') -> ['scores', 'weights', 'head_out'].
      tensorsOf(stage) { return this.names().filter((n) => this._raw.stage(n) === stage); }
      delete() {
        if (this._raw) this._raw.delete();
        this._raw = null;
      }
      _need(name, value) {
        if (value === null && this._raw.lastError()) failed(this._raw);
        if (value === null) throw new MhaError(`the trace has no tensor named '${name}'`);
        return value;
      }
    }

    class Model {
      // options: catalog.options.model ({model: 'single' | 'attn-only' | 'gpt2', layers, dModel, heads, kvHeads,
      // causal, seed, vocabSize, maxPositions, readouts}); missing keys take catalog.defaults (a single
      // layer, d_model 512, 8 heads). A key it does not take is an MhaError naming it, in every method
      // that takes options.
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
      // Loaded or trained weights are kept: a setting their shapes forbid is an error.
      configure(options) {
        checked(this._raw, this._raw.configure(options));
        return this;
      }
      // Drops loaded weights for seeded random ones of the given settings.
      useRandomWeights(options = {}) {
        checked(this._raw, this._raw.useRandomWeights(options));
        return this;
      }
      // A whole model from safetensors bytes. layout: 'gpt2' | 'attn-only', or undefined to guess from
      // the tensor names; heads: undefined to take config.json's n_head (config: its text or bytes), the
      // file's __metadata__, or d_model / 64 for gpt2 (config.headsFrom says which); name: the file's,
      // which errors about it then say.
      loadModel(bytes, { layout = '', heads = 0, name = '', config = '' } = {}) {
        checked(this._raw, this._raw.loadModel(bytes, layout, heads, name, configText(config)));
        return this;
      }
      // The weights as a safetensors file (Uint8Array), in the layout they would be loaded from.
      modelFile() { return failedIfNull(this._raw, this._raw.modelFile()); }
      // The tokenizer runText goes through: a Gpt2Tokenizer, for a GPT-2 model (which has none of its
      // own). The model keeps it after tokenizer.delete(); loadModel starts it without one again.
      setTokenizer(tokenizer) {
        if (!(tokenizer instanceof Gpt2Tokenizer) || !tokenizer._raw) throw new MhaError('setTokenizer takes a Gpt2Tokenizer');
        checked(this._raw, this._raw.setTokenizer(tokenizer._raw));
        return this;
      }
      get isSeeded() { return this._raw.isSeeded(); }

      // One attention layer from safetensors bytes; name: the file's, which errors about it then say.
      loadWeights(bytes, layout = 'pytorch', layer = 0, { name = '' } = {}) {
        checked(this._raw, this._raw.loadWeights(bytes, layout, layer, name));
        return this;
      }
      // switchedOff: [[layer, head], …] heads whose head_out is zeroed before the concat.
      runText(text, options = {}) {
        return this._trace(this._raw.runText(text, options));
      }
      // Token ids taken as given (Int32Array or number[]).
      runIds(ids, options = {}) {
        return this._trace(this._raw.runIds(ids, options));
      }
      // x: Float32Array (or number[]) of T × d_model values, row by row. into: a Trace of this
      // model's to refill in place and return (its storage reused: nothing is allocated for the same T).
      runInput(x, T, { into } = {}) {
        if (into === undefined) return this._trace(this._raw.runInput(x, T));
        if (!(into instanceof Trace) || !into._raw) throw new MhaError('into must be a Trace that has not been deleted');
        checked(this._raw, this._raw.refillInput(into._raw, x, T));
        return into;
      }
      // Each head's importance (Michel et al. 2019, cpp/core/analysis/importance.h): |∂L/∂ξ| of the gate on
      // its output at ξ = 1, L the mean next-token cross-entropy, over `input` (a text or ids) or, given
      // {samples}, averaged over that many fresh sequences of the model's task (from {seed}):
      // {layers: [{heads: [{importance, importance_normalised}]}]}.
      headImportance(input, options = {}) {
        gradients('Model.headImportance');
        return failedIfNull(this._raw, this._raw.headImportance(input === undefined ? null : input, options));
      }
      // The pruning curve (cpp/core/analysis/pruning.h): heads removed one at a time, least important
      // first, on {samples} sequences of the model's task (catalog.importance's defaults):
      // {steps: [{removed: [[layer, head], …], loss, accuracy}]}, the first with none removed.
      prune(options = {}) {
        gradients('Model.prune');
        return failedIfNull(this._raw, this._raw.prune(options));
      }
      // Circuits from the weights (cpp/core/analysis/circuits.h): {copying: [{layer, head, score}],
      // composition: [{mode: 'Q' | 'K' | 'V', from: [layer, head], to: [layer, head], score}], baseline:
      // {Q, K, V}}, what `mha circuits --json` prints. A model of at least two layers of blocks.
      circuits() {
        return failedIfNull(this._raw, this._raw.circuits());
      }
      // One head's QK and OV tables over the tokens of `input` (a text or ids): {layer, head, tokens,
      // qk_positional, qk_token, ov, ov_top}, the head of `mha circuits --head L.H --json`.
      headCircuit(input, layer, head) {
        return failedIfNull(this._raw, this._raw.headCircuit(input, layer, head));
      }
      // Activation patching (cpp/core/analysis/patching.h): {clean, corrupt} texts or ids of the same
      // length, {answer, wrong} ids (default: each run's first choice) -> {answer, wrong, m_clean,
      // m_corrupt, heads: [{layer, head, recovery}], residual: [{layer, position, recovery}]}, what
      // `mha patch --json` prints.
      patch(options) {
        return failedIfNull(this._raw, this._raw.patch(options));
      }
      get config() { return failedIfNull(this._raw, this._raw.config()); }
      // The text of an id in the model's own vocabulary ('<unk>' for id 0 of a 'chars' or 'words'
      // tokenizer); '' where its tokenizer has no texts of ids (first-appearance, hashed) or it has none.
      tokenText(id) { return failedIfNull(this._raw, this._raw.tokenText(id)); }
      // A generation from `prompt` (a text, through the model's tokenizer, or ids), stepped by you:
      // options {tokens, temperature, topK, topP, seed, cache, top, switchedOff}, missing keys from
      // catalog.generate.defaults (greedy, with the KV cache). Checked at once: a prompt plus tokens past
      // the model's positions is an MhaError before anything runs. It stops working once this model is
      // changed or deleted.
      generator(prompt, options = {}) {
        if (typeof prompt !== 'string' && !(prompt instanceof Int32Array) && !Array.isArray(prompt)) {
          throw new MhaError('prompt must be a text or token ids');
        }
        if (options === null || typeof options !== 'object') throw new MhaError('options must be an object such as {tokens: 8}');
        return new Generator(failedIfNull(this._raw, this._raw.generator(prompt, options)));
      }
      // The same, all its steps at once: {ids, new, text, steps, cache: {tokens, bytes} | null}.
      generate(prompt, options = {}) {
        const generator = this.generator(prompt, options);
        try {
          const steps = [];
          while (!generator.done) steps.push(generator.step());
          const ids = generator.ids;
          return { ids, new: ids.slice(generator.promptLength), text: generator.text, steps, cache: generator.cache };
        } finally {
          generator.delete();
        }
      }
      // A weight as {shape, data}: w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o (y = x·Wᵀ + b).
      weight(name) {
        const w = this._raw.weight(name);
        if (w === null && this._raw.lastError()) failed(this._raw);
        if (w === null) throw new MhaError(`no weight named '${name}'; expected w_q, b_q, w_k, b_k, w_v, b_v, w_o or b_o`);
        return w;
      }
      delete() {
        if (this._raw) this._raw.delete();
        this._raw = null;
      }
      _trace(raw) { return new Trace(failedIfNull(this._raw, raw)); }
    }

    // One generation (cpp/core/model/generate.h): the prompt runs once, then each step() runs its one
    // new token against the KV cache of the earlier ones (or, with {cache: false}, the whole sequence
    // again), draws the next id and appends it.
    class Generator {
      constructor(raw) {
        this._raw = raw;
      }
      // {id, token, p, sampled, kept, top: [[id, p], …], before: [p, …], text}: the id drawn, its text,
      // its probability in the distribution it was drawn from (greedy: the model's softmax; sampled: after
      // temperature, top-k and top-p, renormalised), how many ids that distribution kept, the likeliest
      // ids with their probability in it (0 where top-k or top-p cut them) and before the cut, and the
      // text so far (the prompt's text with each new token joined as the tokenizer reads it back).
      step() {
        const n = this._raw.step(); // [id, p, sampled, kept, then id, p, p before the cut for each candidate]
        if (n === null) throw new MhaError(this._raw.lastError(), this._raw.lastErrorInfo());
        const top = [];
        const before = [];
        for (let i = 4; i < n.length; i += 3) top.push([n[i], n[i + 1]]), before.push(n[i + 2]);
        return { id: n[0], token: this._raw.token(), p: n[1], sampled: n[2] === 1, kept: n[3], top, before, text: this._raw.text() };
      }
      get done() { return this._raw.done(); }
      get ids() { return this._raw.ids(); } // Int32Array: the prompt, then every new id
      get tokens() { return this._raw.tokens(); } // the text of each id: the prompt's tokens, then each step's token
      get promptLength() { return this._raw.promptLength(); }
      get text() { return this._raw.text(); }
      // What the KV cache holds: {tokens, bytes} (float32), or null without it.
      get cache() {
        return this._raw.usesCache() ? { tokens: this._raw.cacheLength(), bytes: this._raw.cacheBytes() } : null;
      }
      delete() {
        if (this._raw) this._raw.delete();
        this._raw = null;
      }
    }

    // A whole model read a tensor at a time (cpp/core/io/model_builder.h), for files too large to hold:
    // web/src/modelReader.mjs drives it from a Blob. header: at least the file's first 8 + N bytes;
    // fileSize: the whole file's; layout: 'gpt2' | 'attn-only' | '' (guessed); heads: 0 = config.json's
    // (config: its text or bytes), the file's, or d_model / 64 for gpt2; name: the file's, which errors
    // about it then say. The header is checked at once (a missing or misshapen tensor is an MhaError here).
    class ModelBuilder {
      constructor(header, fileSize, { layout = '', heads = 0, name = '', config = '' } = {}) {
        this._raw = new core.RawModelBuilder();
        try {
          checked(this._raw, this._raw.begin(header, fileSize, layout, heads, name, configText(config)));
        } catch (e) {
          this.delete();
          throw e;
        }
      }
      // [{name, dtype, begin, end}]: the tensors to read, in file order, as byte offsets in the file.
      get needed() { return failedIfNull(this._raw, this._raw.needed()); }
      // The model's settings as they will be: {model, layers, dModel, heads, vocabSize, …}.
      get config() { return this._raw.config(); }
      // The next bytes (Uint8Array) of tensor `name`; a tensor may come in pieces, in order.
      add(name, bytes) {
        checked(this._raw, this._raw.add(name, bytes));
        return this;
      }
      // The built Model (yours to delete), once every needed tensor has come.
      finish() {
        const model = new Model({ dModel: 8, heads: 1 });
        const error = this._raw.finish(model._raw);
        if (error) {
          model.delete();
          failed(this._raw);
        }
        return model;
      }
      delete() {
        if (this._raw) this._raw.delete();
        this._raw = null;
      }
    }

    // GPT-2's byte-level BPE tokenizer (cpp/core/text/bpe_tokenizer.h) from its files' bytes (Uint8Array or
    // ArrayBuffer): new Gpt2Tokenizer(encoderJson, vocabBpe) (or vocab.json and merges.txt), or
    // new Gpt2Tokenizer(tokenizerJson) for Hugging Face's single file. names: for error messages.
    class Gpt2Tokenizer {
      constructor(vocabOrTokenizerJson, merges, { vocabName = 'encoder.json', mergesName = 'vocab.bpe' } = {}) {
        this._raw = new core.RawTokenizer();
        const error = merges === undefined
          ? this._raw.loadTokenizerJson(vocabOrTokenizerJson, 'tokenizer.json')
          : this._raw.loadVocabAndMerges(vocabOrTokenizerJson, vocabName, merges, mergesName);
        if (error) {
          const info = this._raw.lastErrorInfo();
          this._raw.delete();
          this._raw = null;
          throw new MhaError(error, info);
        }
      }
      // {tokens: string[], ids: Int32Array}; a token holding part of a character shows its bytes as <0xE6>.
      encode(text) { return failedIfNull(this._raw, this._raw.encode(text)); }
      get vocabSize() { return this._raw.vocabSize(); }
      // The text of one id, as encode() shows tokens ('' outside the vocabulary): names a predicted token.
      tokenText(id) { return failedIfNull(this._raw, this._raw.tokenText(id)); }
      delete() {
        if (this._raw) this._raw.delete();
        this._raw = null;
      }
    }

    // A training run, the same bits as `mha train`: the induction task ([start, s1 … sL, s1 … sL]), the
    // recall task (the K ids before each position) or the corpus task (the next token of real text).
    // options: catalog.options.trainer ({task: 'induction' | 'recall' | 'corpus', model, layers, heads,
    // kvHeads, dModel, vocabSize, seed, batch, lr, beta1, beta2, eps, weightDecay, initStd, steps, warmup,
    // finalLr, minLength, maxLength (induction), recall, length (recall), corpus, window (corpus)});
    // missing keys take the task's recipe (catalog.recipes.induction: 2 layers, 4 heads, d_model 64;
    // catalog.recipes.recall: 1 layer, K = 4; the corpus task: `mha train --task corpus`'s). A key it
    // does not take is an MhaError naming it. text: the corpus task's, {vocabulary, train, heldout?},
    // the texts of the files npm run corpus writes ({corpus}.vocab.json, .train.txt, .heldout.txt).
    class Trainer {
      constructor(options = {}, text = undefined) {
        gradients('a Trainer');
        this._raw = new core.RawTrainer();
        const error = this._raw.start(options, text);
        if (error) {
          const info = this._raw.lastErrorInfo();
          this._raw.delete();
          throw new MhaError(error, info);
        }
      }
      // Runs `count` steps; returns their losses (Float32Array).
      step(count = 1) { return failedIfNull(this._raw, this._raw.step(count)); }
      get stepsDone() { return this._raw.stepsDone(); }
      // The mean over L of the best last-layer head's induction score on `sequences` fresh sequences
      // per L, the same ones as `mha train --phase-every` checks (the phase change: it reaches
      // catalog.phaseChangeScore).
      inductionScore(sequences = 1) { return failedIfNull(this._raw, this._raw.inductionScore(sequences)); }
      // The recall task: the current weights on the fresh sequences `mha sweep` scores on (or the
      // first `sequences` of them), {loss, accuracy: [per readout k = 1 … K], meanAccuracy, stripe:
      // [per head: [per k: mean weight on i − k]]}.
      recallScores(sequences = 0) { return failedIfNull(this._raw, this._raw.recallScores(sequences)); }
      // The corpus task: the current weights on the held-out text's first `windows` windows of T + 1
      // tokens (0: all), {loss, accuracy, targets, windows}, as `mha train` reports them.
      heldoutScores(windows = 0) { return failedIfNull(this._raw, this._raw.heldoutScores(windows)); }
      // The corpus task: every head measured on those windows with the corpus's vocabulary, the mean of
      // their analyses (as Trace.headAnalysis gives one run's; `mha heads --heldout` the CLI's).
      heldoutHeads(windows = 0) { return JSON.parse(failedIfNull(this._raw, this._raw.heldoutHeads(windows))); }
      // The model it trains: {model, layers, dModel, heads, dHead, readouts, parameters, …}.
      get config() { return this._raw.config(); }
      // The weights now, as safetensors bytes (the layout of the shipped models; the corpus task's
      // carries its vocabulary, so the file reads text).
      modelFile() { return failedIfNull(this._raw, this._raw.modelFile()); }
      // A run of the current weights on ids, as a Trace (head maps and metrics while it trains).
      runIds(ids) { return new Trace(failedIfNull(this._raw, this._raw.runIds(ids))); }
      delete() {
        if (this._raw) this._raw.delete();
        this._raw = null;
      }
    }

    // WebAssembly memory held by the module, in bytes. It only grows, so this is also the peak.
    const memoryBytes = () => core.memoryBytes();

    // The layout a safetensors file's tensor names imply: 'gpt2', 'attn-only', 'llama' or 'pytorch'.
    // bytes: the whole file, or its first 8 + N bytes with fileSize the whole file's; name: the file's.
    const guessLayout = (bytes, fileSize = -1, { name = '' } = {}) => {
      const out = core.guessLayout(bytes, fileSize, name);
      if (out.error !== undefined) throw new MhaError(out.error, out.info || null);
      return out.layout;
    };

    // The bytes a KV cache takes (cpp/core/model/kv_cache.h): 2 × layers × kvHeads × dHead × bytesPerValue × tokens.
    const kvCacheBytes = ({ layers, kvHeads, dHead, bytesPerValue = 4, tokens }) => core.kvCacheBytes(layers, kvHeads, dHead, bytesPerValue, tokens);

    return { Model, ModelBuilder, Trainer, Gpt2Tokenizer, Generator, MhaError, STAGES, stageTable, catalog, guessLayout, memoryBytes, kvCacheBytes };
  }

  createMha.MhaError = MhaError;
  return createMha;
});
