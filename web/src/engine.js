// The only module that talks to the WebAssembly core (web/mha.js). Each demo has one Engine: one
// model for its settings (random, the trained model, or loaded weights) and one tiny model for the
// worked example. Every trace is turned into plain copied arrays at once (the trace is deleted
// before returning).
import { MODEL_KINDS, parseIdList, SAMPLE_IDS } from './attributes.js';
import { ownVocabulary } from './modelFacts.js';
import { pageMessage } from './messages.js';
import { readHeader, readModel } from './modelReader.mjs';
import { topIds } from './format.js';
import catalog from './catalog.js';

export const WORKED = { text: '我爱猫', dModel: 4, heads: 2, kvHeads: 2, seed: 3 };
// Candidates each generated step shows: enough to see where top-k and top-p cut.
const GENERATE_CANDIDATES = 8;
// Random blocks number a text's tokens by first appearance: up to this many − 1 different tokens
// (the start token aside), so the text's own limit is always reached first.
const RANDOM_BLOCKS_VOCAB = catalog.limits.textTokens + 1;

// The model key (Engine.modelKey) of the shipped model `id`: its scores are known by it before it is loaded here.
const shippedKey = (id) => `shipped:${id}`;

// A run as plain data. In a model of blocks the shown layer's tensors also appear under their
// single-layer names (layers.1.weights as weights), so one attention view serves every layer.
//   stages: [{id, family, tensors: [{name, shape, formula}]}] this model walks (config.stages, from
//           the core's stage table: loaded Llama weights add rope)
//   heads:  the core's head analysis, {layers: [{heads: [{…metrics, label}], similarity}]}
//   candidates: a model that predicts: the five likeliest next ids at every position, best first
//   attributions: a model that predicts: at every position, the logit of its first choice split into
//           what wrote it (trace.attributions(): {positions, tokens, logits, parts, values})
function snapshot(trace, config, text, layer, table) {
  const tensors = {};
  const prefix = `layers.${layer}.`;
  const drawn = new Set(table.tensors.filter((t) => !t.forBackward).map((t) => t.name));
  for (const name of trace.names()) {
    if (!drawn.has(name.replace(/^layers\.\d+\./, ''))) continue; // LayerNorm's statistics and the like: not drawn
    // Each head's write is made when read, and is the largest tensor of a layer (heads × T × d_model):
    // the shown layer's only (the attributions read every layer's in the core).
    if (name.endsWith('.head_write') && !name.startsWith(prefix)) continue;
    const tensor = { stage: trace.stage(name), shape: Array.from(trace.shape(name)), data: trace.data(name) };
    tensors[name] = tensor;
    if (name.startsWith(prefix)) tensors[name.slice(prefix.length)] = tensor;
  }
  const family = Object.fromEntries(table.stages.map((s) => [s.id, s.family]));
  const tensorsOf = {};
  for (const { name, stage, shape, formula, forBackward } of table.tensors) {
    if (!forBackward) (tensorsOf[stage] = tensorsOf[stage] || []).push({ name, shape, formula });
  }
  return {
    text,
    tokens: Array.from(trace.tokens()),
    ids: Array.from(trace.ids()),
    config: { ...config },
    layer,
    stages: config.stages.map((id) => ({ id, family: family[id], tensors: tensorsOf[id] || [] })),
    heads: trace.headAnalysis(),
    tensors,
    candidates: tensors.probs ? candidatesOf(tensors.probs) : null,
    // a recall model's K readouts name the tokens before a position: no next token to attribute
    attributions: tensors.probs && config.readouts === 1 ? trace.attributions() : null,
  };
}

// Once per run, here: a GPT-2 row is 50,257 probabilities. One list per row of probs: per position,
// or per position and readout (a recall model's (1, T, K, V): row i·K + k − 1).
function candidatesOf(probs) {
  const V = probs.shape[probs.shape.length - 1];
  return Array.from({ length: probs.data.length / V }, (_, i) => topIds(probs.data.subarray(i * V, (i + 1) * V), 5));
}

// For a model opened with its tokenizer, or with a vocabulary of its own (a Model's tokenText): the
// text of each id among the five likeliest at every position, so the prediction can name tokens that
// are not in the sentence. {id: text}.
function predictedTexts(result, tokenizer) {
  const out = {};
  for (const row of result.candidates || []) for (const id of row) out[id] = tokenizer.tokenText(id);
  return out;
}

// Every option of a seeded model, from the core's defaults up: what the last model left behind (the
// trained model's vocabulary of 64, its 61 positions) must not decide the weights, or a link would
// open with other numbers than the page it was copied from.
const seededOptions = (options) => ({ ...catalog.defaults, ...options });
// One attention layer of random weights for these settings.
const singleOptions = (s) => seededOptions({ model: 'single', layers: 1, dModel: s.dModel, heads: s.heads, kvHeads: s.kvHeads, causal: s.causal, seed: s.seed });

export class Engine {
  // shipped: {id: bytes or the Error saying why they are missing} of the models this project trained
  // (models/trained-models.json), as they arrive (addShipped).
  constructor(mha, shipped = {}) {
    this.mha = mha;
    this.shipped = { ...shipped };
    this.file = null; // {name, layout, model}: a whole model the learner opened, built once (openFile)
    this.model = null;
    this.tiny = null;
    this.modelKey = null; // what this.model was last built from
  }

  isMhaError(e) {
    return e instanceof this.mha.MhaError;
  }

  // weights: null or {key, bytes, layout, layer}; the file decides d_model (and kv_heads for Llama).
  // Throws MhaError from configure() as {phase: 'config'}, from loadWeights() as {phase: 'weights'}
  // and from runText() as {phase: 'text'}.
  run(settings, weights = null) {
    if (MODEL_KINDS[settings.model] && MODEL_KINDS[settings.model].shipped) return this._runShipped(settings, MODEL_KINDS[settings.model].shipped);
    if (settings.model === 'file') return this._runFile(settings);
    if (settings.model === 'blocks') return this._runRandomBlocks(settings);
    const options = singleOptions(settings);
    const key = JSON.stringify([options, weights && [weights.key, weights.layout, weights.layer]]);
    if (key !== this.modelKey) {
      this.modelKey = null;
      // With weights, d_model only has to divide by heads until the file replaces it, and kv_heads
      // is the file's (a Llama file's K may be narrower: grouped-query).
      const base = weights ? { ...options, dModel: options.heads, kvHeads: 0 } : options;
      let phase = 'config';
      try {
        if (!this.model) this.model = new this.mha.Model(base);
        // Loaded weights refuse a new d_model: start again from seeded ones (and load the file again).
        else if (weights || !this.model.isSeeded) this.model.useRandomWeights(base);
        else this.model.configure(base);
        phase = 'weights';
        if (weights) this.model.loadWeights(weights.bytes, weights.layout, weights.layer);
      } catch (e) {
        if (this.isMhaError(e)) e.phase = phase;
        throw e;
      }
      this.modelKey = key;
    }
    return this._snapshot(settings, 0);
  }

  hasShipped(id) {
    return id in this.shipped;
  }

  addShipped(id, bytesOrError) {
    this.shipped[id] = bytesOrError;
  }

  _runShipped(settings, id) {
    this._useShipped(id);
    return this._runBlocks(settings);
  }

  // A shipped model's bytes, or an MhaError (phase 'model') saying why they did not come.
  _shippedBytes(id) {
    const bytes = this.shipped[id];
    if (bytes instanceof Uint8Array) return bytes;
    throw Object.assign(new this.mha.MhaError((bytes && bytes.message) || 'this build has no trained model'), { phase: 'model' });
  }

  _useShipped(id) {
    const key = shippedKey(id);
    if (this.modelKey === key) return;
    const bytes = this._shippedBytes(id);
    if (!this.model) this.model = new this.mha.Model({ dModel: 8, heads: 1 });
    this.model.loadModel(bytes);
    this.modelKey = key;
  }

  // The ids a model without a tokenizer reads: the learner's, or SAMPLE_IDS until there are some.
  _ids(settings) {
    const parsed = parseIdList(settings.ids === null || settings.ids === undefined ? SAMPLE_IDS : settings.ids);
    if (parsed.error) throw Object.assign(new this.mha.MhaError(parsed.error.key), { page: parsed.error });
    return parsed.ids;
  }

  // GPT-2-style blocks of seeded weights (LayerNorm, attention, MLP): every stage of a block, on any
  // text. The tokens are numbered by first appearance, so the vocabulary only bounds how many differ.
  _runRandomBlocks(settings) {
    this._useRandomBlocks(settings);
    return this._runBlocks(settings);
  }

  _useRandomBlocks(settings) {
    const options = seededOptions({ model: 'gpt2', layers: MODEL_KINDS.blocks.layers, vocabSize: RANDOM_BLOCKS_VOCAB, dModel: settings.dModel, heads: settings.heads, kvHeads: settings.kvHeads, causal: true, seed: settings.seed });
    const key = `blocks:${JSON.stringify(options)}`;
    if (key === this.modelKey) return;
    this.modelKey = null;
    try {
      if (!this.model) this.model = new this.mha.Model(options);
      else this.model.useRandomWeights(options);
    } catch (e) {
      if (this.isMhaError(e)) e.phase = 'config';
      throw e;
    }
    this.modelKey = key;
  }

  // An MhaError carrying one of the page's own sentences (messages.js pageMessage), for a phase.
  _pageError(key, params, phase) {
    const e = new this.mha.MhaError(key);
    return Object.assign(e, { page: pageMessage(key, params), phase });
  }

  // A whole model the learner opened (openFile): built once and kept beside this.model. heads: the
  // learner's, or null for the ones it was opened with (the caller's, config.json's, the file's or
  // d_model / 64).
  _runFile(settings) {
    if (!this.file) throw this._pageError('reopenFile', { name: settings.file || 'model.safetensors' }, 'model');
    const { model } = this.file;
    const heads = settings.heads === null || settings.heads === undefined ? this.file.heads : settings.heads;
    if (heads !== model.config.heads) {
      try {
        model.configure({ heads });
      } catch (e) {
        if (this.isMhaError(e)) e.phase = 'config';
        throw e;
      }
    }
    return this._runBlocks(settings, model, this.file.tokenizer);
  }

  // Tokenizer files alone can join the model shown when it is a GPT-2 file that reads ids only.
  canTakeTokenizer(settings) {
    return settings.model === 'file' && Boolean(this.file) && this.file.layout === 'gpt2' && !this.file.tokenizer;
  }

  // GPT-2's tokenizer (tokenizerFiles.js's {json} | {vocab, merges}) for the file model shown.
  async addTokenizer(tokenizerFiles) {
    const tokenizer = await this._tokenizerFrom(tokenizerFiles);
    try {
      this.file.model.setTokenizer(tokenizer);
    } catch (e) {
      tokenizer.delete();
      throw e;
    }
    this.file.tokenizer = tokenizer;
  }

  // A File (or any Blob with a name) as a model, checked before anything changes: a whole model
  // (gpt2, attn-only) is built here tensor by tensor (modelReader.mjs: progress, cancel) and
  // replaces the opened one; one attention layer (pytorch, llama) is read whole and tried with
  // these settings, then goes the way of weights from a URL. Throws MhaError (or an AbortError)
  // and leaves every model as it was. -> {layout, kind: 'model' | 'weights', config, bytes?}.
  // tokenizerFiles: null or {json} | {vocab, merges} (Files, tokenizerFiles.js): GPT-2's tokenizer,
  // given to the model so that it reads text. configFile: null or Hugging Face's config.json (a File),
  // which says the model's heads; settings.heads, when a model= URL's demo sets them, come first.
  async openFile(name, blob, settings, { signal = null, onProgress, tokenizerFiles = null, configFile = null } = {}) {
    const header = await readHeader(blob);
    const layout = this.mha.guessLayout(header, blob.size, { name });
    const oneLayer = !catalog.layouts.find((l) => l.name === layout).wholeModel;
    if (tokenizerFiles && oneLayer) throw this._pageError('tokenizerWithLayer', { name, layout });
    if (oneLayer) {
      const bytes = new Uint8Array(await blob.arrayBuffer());
      if (signal && signal.aborted) throw Object.assign(new Error('opening the file was cancelled'), { name: 'AbortError' });
      const probe = new this.mha.Model({ ...singleOptions(settings), dModel: settings.heads, kvHeads: 0 }); // the file sets both
      try {
        probe.loadWeights(bytes, layout, 0, { name });
        return { layout, kind: 'weights', config: probe.config, bytes };
      } finally {
        probe.delete();
      }
    }
    const tokenizer = tokenizerFiles ? await this._tokenizerFrom(tokenizerFiles) : null;
    const config = configFile ? await configFile.text() : '';
    const asked = settings.model === 'file' && Number.isInteger(settings.heads) ? settings.heads : 0;
    let model;
    try {
      model = await readModel(this.mha, blob, { name, layout, header, signal, onProgress, config, heads: asked });
      if (tokenizer) model.setTokenizer(tokenizer);
    } catch (e) {
      if (model) model.delete();
      if (tokenizer) tokenizer.delete();
      throw e;
    }
    if (this.file) {
      this.file.model.delete();
      if (this.file.tokenizer) this.file.tokenizer.delete();
    }
    this.file = { name, layout, model, tokenizer, heads: model.config.heads };
    return { layout, kind: 'model', config: model.config, tokenizer: Boolean(tokenizer) };
  }

  async _tokenizerFrom({ json, vocab, merges }) {
    const bytes = async (file) => new Uint8Array(await file.arrayBuffer());
    if (json) return new this.mha.Gpt2Tokenizer(await bytes(json));
    return new this.mha.Gpt2Tokenizer(await bytes(vocab), await bytes(merges), { vocabName: vocab.name, mergesName: merges.name });
  }

  _runBlocks(settings, model = this.model, tokenizer = null) {
    const layers = model.config.layers;
    // Unset: the layer the model kind opens on (attributes.js), else the last.
    const kind = MODEL_KINDS[settings.model];
    const opening = kind && kind.layer !== undefined && kind.layer < layers ? kind.layer : layers - 1;
    const layer = settings.layer === null || settings.layer === undefined ? opening : settings.layer;
    if (layer >= layers) {
      const e = new this.mha.MhaError(`layer ${layer} does not exist: the model has ${layers} layers, 0 to ${layers - 1}`);
      e.phase = 'layer';
      throw e;
    }
    return this._snapshot(settings, layer, model, tokenizer);
  }

  // A model without a tokenizer (a GPT-2 checkpoint opened without its files) reads settings.ids
  // (SAMPLE_IDS until the learner gives some); every other model reads settings.text.
  // settings.sequence: a generation's {text, ids, tokens} (generation.js), run as the ids it drew while
  // the text is still its own: read back, a text need not give the same ids (a first-appearance
  // model's new id is '#id'; BPE may merge generated tokens otherwise).
  _snapshot(settings, layer, model = this.model, tokenizer = null) {
    const config = model.config;
    const onIds = config.tokenizer === '';
    const sequence = settings.sequence && settings.sequence.text === settings.text ? settings.sequence : null;
    let trace;
    try {
      if (sequence) trace = model.runIds(sequence.ids, { switchedOff: settings.switchedOff });
      else if (!onIds) trace = model.runText(settings.text, { switchedOff: settings.switchedOff });
      else trace = model.runIds(this._ids(settings), { switchedOff: settings.switchedOff });
    } catch (e) {
      if (this.isMhaError(e)) e.phase = e.field === 'switched_off' ? 'switchedOff' : onIds ? 'ids' : 'text';
      throw e;
    }
    try {
      const result = snapshot(trace, config, onIds ? null : settings.text, layer, this.mha.stageTable);
      if (sequence) result.tokens = [...sequence.tokens];
      if (tokenizer) result.vocabText = predictedTexts(result, tokenizer);
      else if (ownVocabulary(config)) result.vocabText = predictedTexts(result, model);
      return result;
    } finally {
      trace.delete();
    }
  }

  // A gradient pass of the shipped model `id` (analyses.js) where no worker can run it: the induction
  // model's pruning curve ({prune: true}) or a model's heads' importance on ids ({importance: ids}).
  // mha: a module with gradients (the page's own has none: sharedModule.js wholeModule).
  analyseShipped(id, { prune, importance }, mha = this.mha) {
    if (!this.analysed || this.analysed.id !== id) {
      if (this.analysed) this.analysed.model.delete();
      this.analysed = { id, model: new mha.Model().loadModel(this._shippedBytes(id)) };
    }
    return prune ? this.analysed.model.prune() : this.analysed.model.headImportance(importance);
  }

  // A generation from the text on the model shown (the core's Generator, with its KV cache): `tokens`
  // new ones drawn with sampling {temperature, topK, topP, seed}, the heads switched off staying off.
  generator(settings, { temperature, topK, topP, seed }, tokens) {
    const model = this._modelShown(settings);
    const prompt = model.config.tokenizer === '' ? this._ids(settings) : settings.text;
    return model.generator(prompt, { tokens, temperature, topK, topP, seed, top: GENERATE_CANDIDATES, switchedOff: settings.switchedOff });
  }

  // The model settings show, made this engine's current one (its runs may have been the worker's).
  _modelShown(settings) {
    const kind = MODEL_KINDS[settings.model];
    if (kind && kind.shipped) this._useShipped(kind.shipped);
    else if (settings.model === 'blocks') this._useRandomBlocks(settings);
    return settings.model === 'file' ? this.file.model : this.model;
  }

  // Circuits from the weights of the model shown (the core's Model.circuits), once for each model;
  // an MhaError (a model of one layer) is thrown each time it is asked. compute false: null unless
  // they are already here (a shipped model's are known without loading it here: its runs may be the
  // worker's, and its scores the analyses worker's, kept with keepCircuits).
  circuits(settings, compute = true) {
    const key = this._circuitsKey(settings);
    const heads = this._fileHeads(settings);
    if (!this._circuits || this._circuits.key !== key || this._circuits.heads !== heads) {
      if (!compute) return null;
      let value;
      try {
        value = { scores: this._modelShown(settings).circuits() };
      } catch (e) {
        if (!this.isMhaError(e)) throw e;
        value = { error: e };
      }
      this._circuits = { key, heads, value };
    }
    if (this._circuits.value.error) throw this._circuits.value.error;
    return this._circuits.value.scores;
  }

  // Scores computed elsewhere for the model settings show: {scores} or {error}.
  keepCircuits(settings, value) {
    this._circuits = { key: this._circuitsKey(settings), heads: this._fileHeads(settings), value };
  }

  // Which model's scores: a shipped model's by its id, an opened file's by the file (and its heads,
  // which may change: _fileHeads), any other by the settings that made it.
  _circuitsKey(settings) {
    const kind = MODEL_KINDS[settings.model];
    if (kind && kind.shipped) return shippedKey(kind.shipped);
    if (settings.model === 'file') return this.file;
    this._modelShown(settings);
    return this.modelKey;
  }

  _fileHeads(settings) {
    return settings.model === 'file' && this.file ? this.file.model.config.heads : null;
  }

  // The file of the shipped model settings show (a worker loads it to patch it), else null.
  shownShippedBytes(settings) {
    const kind = MODEL_KINDS[settings.model];
    const bytes = kind && kind.shipped ? this.shipped[kind.shipped] : null;
    return bytes instanceof Uint8Array ? bytes : null;
  }

  // Activation patching on the model shown (Model.patch): clean and corrupted ids of one length.
  patch(settings, clean, corrupt) {
    return this._modelShown(settings).patch({ clean, corrupt });
  }

  // One head's QK and OV tables over ids (Model.headCircuit), kept for the last model, text and head
  // asked: the view redraws on every patch clicked, and a poem's OV table reads the whole vocabulary.
  headCircuit(settings, ids, layer, head) {
    const model = this._modelShown(settings);
    const key = settings.model === 'file' ? this.file : this.modelKey;
    const asked = `${model.config.heads}|${ids.join()}|${layer}.${head}`;
    if (!this._headCircuit || this._headCircuit.key !== key || this._headCircuit.asked !== asked) {
      this._headCircuit = { key, asked, value: model.headCircuit(ids, layer, head) };
    }
    return this._headCircuit.value;
  }

  // The text of id in the model shown's vocabulary ('' where it has none).
  tokenText(settings, id) {
    return this._modelShown(settings).tokenText(id);
  }

  // The worked example's tiny model, run on its fixed text.
  runWorked(causal) {
    const options = { dModel: WORKED.dModel, heads: WORKED.heads, kvHeads: WORKED.kvHeads, seed: WORKED.seed, causal };
    if (!this.tiny) this.tiny = new this.mha.Model(options);
    else this.tiny.configure(options);
    const trace = this.tiny.runText(WORKED.text);
    try {
      return snapshot(trace, this.tiny.config, WORKED.text, 0, this.mha.stageTable);
    } finally {
      trace.delete();
    }
  }
}
