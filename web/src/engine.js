// The only module that talks to the WebAssembly core (web/mha.js). Each demo has one Engine: one
// model for its settings (and weights, when it has some) and one tiny model for the worked example.
// Every trace is turned into plain copied arrays at once (the trace is deleted before returning).
export const WORKED = { text: '我爱猫', dModel: 4, heads: 2, kvHeads: 2, seed: 3 };

function snapshot(trace, config, text) {
  const tensors = {};
  for (const name of trace.names()) {
    tensors[name] = { stage: trace.stage(name), shape: Array.from(trace.shape(name)), data: trace.data(name) };
  }
  return { text, tokens: Array.from(trace.tokens()), ids: Array.from(trace.ids()), config: { ...config }, tensors };
}

export class Engine {
  constructor(mha) {
    this.mha = mha;
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
    const options = { dModel: settings.dModel, heads: settings.heads, kvHeads: settings.kvHeads, causal: settings.causal, seed: settings.seed };
    const key = JSON.stringify([options, weights && [weights.key, weights.layout, weights.layer]]);
    if (key !== this.modelKey) {
      this.modelKey = null;
      // With weights, d_model only has to divide by heads until the file replaces it.
      const base = weights ? { ...options, dModel: options.heads } : options;
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
    let trace;
    try {
      trace = this.model.runText(settings.text);
    } catch (e) {
      if (this.isMhaError(e)) e.phase = 'text';
      throw e;
    }
    try {
      return snapshot(trace, this.model.config, settings.text);
    } finally {
      trace.delete();
    }
  }

  // The worked example's tiny model, run on its fixed text.
  runWorked(causal) {
    const options = { dModel: WORKED.dModel, heads: WORKED.heads, kvHeads: WORKED.kvHeads, seed: WORKED.seed, causal };
    if (!this.tiny) this.tiny = new this.mha.Model(options);
    else this.tiny.configure(options);
    const trace = this.tiny.runText(WORKED.text);
    try {
      return snapshot(trace, this.tiny.config, WORKED.text);
    } finally {
      trace.delete();
    }
  }
}
