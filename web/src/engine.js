// The only module that talks to the WebAssembly core (web/mha.js). It keeps one model for the page
// and one tiny model for the worked example, and turns each trace into plain copied arrays at once
// (the trace is deleted before returning).
export const WORKED = { text: '我爱猫', dModel: 4, heads: 2, kvHeads: 2, seed: 3 };

function snapshot(trace, config, text) {
  const tensors = {};
  for (const name of trace.names()) {
    tensors[name] = { stage: trace.stage(name), shape: Array.from(trace.shape(name)), data: trace.data(name) };
  }
  return { text, tokens: Array.from(trace.tokens()), ids: Array.from(trace.ids()), config: { ...config }, tensors };
}

function sameConfig(config, s) {
  return config.dModel === s.dModel && config.heads === s.heads && config.kvHeads === s.kvHeads &&
    config.causal === s.causal && config.seed === s.seed;
}

export class Engine {
  constructor(mha) {
    this.mha = mha;
    this.model = null;
    this.tiny = null;
  }

  static async load() {
    if (typeof window.createMha !== 'function') throw new Error('mha.js is not loaded');
    return new Engine(await window.createMha());
  }

  isMhaError(e) {
    return e instanceof this.mha.MhaError;
  }

  // Throws MhaError from configure() as {phase: 'config'} and from runText() as {phase: 'text'}.
  run(settings) {
    const options = { dModel: settings.dModel, heads: settings.heads, kvHeads: settings.kvHeads, causal: settings.causal, seed: settings.seed };
    try {
      if (!this.model) this.model = new this.mha.Model(options);
      else if (!sameConfig(this.model.config, options)) this.model.configure(options);
    } catch (e) {
      if (this.isMhaError(e)) e.phase = 'config';
      throw e;
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
