// Where a demo's model comes from besides what the core builds itself: a file the learner opens
// (picker or drop), model="….safetensors" and weights="…" fetched from their URLs. Each ends as a
// store change and a run request; while bytes are on their way the runner waits (pending).
//
// A source that cannot be had (a URL that fails, a file the page may not read again by itself, a bad
// file) is store.unavailable: said once, in the learner's language, while the picture stays the last
// one that worked, or, on a fresh page, falls back to what the demo shows without it (seeded
// weights of the same sizes; the trained model for a model). The attributes keep asking for it (so
// a reload tries again) until the learner changes a setting.
import { fetchBytes } from './fetchBytes.js';
import { messageOf, pageMessage, storedError } from './messages.js';
import { sortFiles } from './tokenizerFiles.js';
import { MODEL_KINDS } from './attributes.js';
import { trainedBytes } from './sharedModule.js';

export class ModelSources {
  // store: the demo's store. engine: () -> the Engine once the core has loaded, null before.
  // request: (changedKey) -> asks the runner for a run. failReady: (Error) -> rejects el.ready
  // if it is still pending.
  constructor(store, { engine, request, failReady }) {
    this._store = store;
    this._engine = engine;
    this._request = request;
    this._failReady = failReady;
    this.modelUrl = null; // the model= URL last fetched
    this._modelPending = false;
    this._opening = null; // the AbortController of the file being opened
    this._shown = null; // {settings, weights} of the last result: what a failure falls back to
  }

  // True while a model= or weights= download, or a trained model's script, has not arrived: a run now
  // would show the wrong model.
  get pending() {
    const w = this._store.state.weights;
    return this._modelPending || Boolean(w && !w.bytes) || this._loadShipped();
  }

  // A trained model of its own name (model="recall"): its script is loaded when it is first shown,
  // and the run asked for again once it has come. One that cannot come is unavailable like any other
  // source: the picture falls back (to the induction model, or for that one to seeded weights).
  _loadShipped() {
    const kind = MODEL_KINDS[this._store.state.settings.model];
    const engine = this._engine();
    if (!kind || !kind.shipped || !engine || engine.hasShipped(kind.shipped)) return false;
    if (!this._shippedLoading) {
      this._shippedLoading = trainedBytes(kind.shipped).then(
        (bytes) => {
          this._shippedLoading = null;
          engine.addShipped(kind.shipped, bytes);
          this._request(null);
        },
        (e) => {
          this._shippedLoading = null;
          const message = pageMessage('fileFailed', { name: `${kind.shipped}.safetensors` }, e && e.message !== undefined ? storedError(e) : String(e));
          this.fail('model', message, kind.shipped === 'induction' ? 'random' : 'trained');
        },
      );
    }
    return true;
  }

  // The weights of random mode for a run, or null for the core's own random weights.
  weightsFor() {
    const w = this._store.state.weights;
    return w && w.bytes ? { key: w.url, bytes: w.bytes, layout: w.layout, layer: w.layer } : null;
  }

  // What a worker run needs besides the settings: the shipped model's file (an MhaError's message
  // in place of it is the main thread's to say: null), or random mode's weights.
  workerSource(settings) {
    const kind = MODEL_KINDS[settings.model];
    if (!kind || !kind.shipped) return this.weightsFor();
    const bytes = this._engine().shownShippedBytes(settings);
    return bytes ? { shipped: kind.shipped, bytes } : null;
  }

  // A result is shown: what it was made from is what a later failure keeps.
  resultShown(state) {
    this._shown = { settings: state.settings, weights: state.weights };
  }

  // Opens a model from a File (or Blob with a name): a whole model (gpt2, attn-only) becomes the
  // model shown; a single attention layer (pytorch, llama) becomes the weights of random mode.
  // Read with the File API a tensor at a time (engine.openFile), so it works from file:// too and
  // never holds the whole file; store.opening shows the progress. A newer file, cancelOpen() or a
  // bad file leaves the model shown as it was (a bad one says why). Several files at once: the
  // .safetensors one, GPT-2's tokenizer files and Hugging Face's config.json beside it
  // (tokenizerFiles.js), so a GPT-2 model reads text and has its heads; tokenizer files alone give
  // their tokenizer to the GPT-2 model shown. Resolves to {name, layout, kind, tokenizer}; rejects
  // with the message, or an AbortError when cancelled.
  // attribute: what a failure is said to be about ('model' for a fetched model= URL).
  async openFile(fileOrFiles, attribute = 'file') {
    const list = fileOrFiles.length === undefined ? [fileOrFiles] : [...fileOrFiles]; // one Blob-like, or a FileList / array
    const { model: file, tokenizer: tokenizerFiles, config, missing } = sortFiles(list);
    const engine = this._engine();
    if (!file && tokenizerFiles && !missing && engine && engine.canTakeTokenizer(this._store.state.settings)) return this._addTokenizer(tokenizerFiles);
    if (!file || missing) {
      const message = !file
        ? pageMessage('filesWithoutModel', { names: list.map((f) => f.name).join(', ') })
        : pageMessage('tokenizerNeeds', { name: file.name, missing });
      this.fail(attribute, message);
      throw new Error(messageOf(message));
    }
    const name = file.name || 'model.safetensors';
    const store = this._store;
    this.cancelOpen();
    const controller = new AbortController();
    this._opening = controller;
    const onProgress = (read, total) => {
      if (this._opening === controller) store.set({ opening: { name, read, total } });
    };
    let opened;
    try {
      if (!engine) throw new Error('the core is still loading');
      onProgress(0, file.size);
      opened = await engine.openFile(name, file, store.state.settings, { signal: controller.signal, onProgress, tokenizerFiles, configFile: config });
      if (opened.kind === 'weights') {
        store.set({ weights: { url: name, layout: opened.layout, layer: 0, bytes: opened.bytes, file: true } });
        store.set({ settings: { ...store.state.settings, model: 'random', file: null, modelUrl: null }, errors: {} });
      } else {
        // heads: null, the file's own (or config.json's, or d_model / 64) until the learner sets them.
        store.set({ settings: { ...store.state.settings, model: 'file', file: name, modelUrl: null, layer: null, switchedOff: [], heads: null, kvHeads: null, ids: null }, errors: {} });
      }
    } catch (e) {
      if (e && e.name === 'AbortError') throw e;
      const cause = e && e.message !== undefined ? storedError(e) : String(e);
      // the core's errors about a file name it already
      const message = cause && cause.params && cause.params.file === name ? cause : pageMessage('fileFailed', { name }, cause);
      this.fail(attribute, message);
      throw new Error(messageOf(message));
    } finally {
      if (this._opening === controller) {
        this._opening = null;
        store.set({ opening: null });
      }
    }
    this._request('model');
    return { name, layout: opened.layout, kind: opened.kind, tokenizer: Boolean(opened.tokenizer) };
  }

  // GPT-2's tokenizer files for the model shown, which had none: it reads text from now on.
  async _addTokenizer(tokenizerFiles) {
    const store = this._store;
    try {
      await this._engine().addTokenizer(tokenizerFiles);
    } catch (e) {
      const message = pageMessage('fileFailed', { name: Object.values(tokenizerFiles).map((f) => f.name).join(', ') }, storedError(e));
      this.fail('file', message);
      throw new Error(messageOf(message));
    }
    store.set({ settings: { ...store.state.settings } }); // a new settings object: the same model, run again
    this._request('model');
    const { name, layout } = this._engine().file;
    return { name, layout, kind: 'model', tokenizer: true };
  }

  // Stops a file that is still opening; the model shown stays.
  cancelOpen() {
    if (!this._opening) return;
    this._opening.abort();
    this._opening = null;
    this._store.set({ opening: null });
  }

  // model="…/x.safetensors": fetched once, then opened as a file would be.
  async fetchModel(url) {
    this.modelUrl = url;
    this._modelPending = true;
    const got = await fetchBytes(url);
    this._modelPending = false;
    if (got.failure) {
      this.fail('model', got.failure);
      return;
    }
    try {
      await this.openFile(new File([got.bytes], url.split('?')[0].split('/').pop()), 'model');
      this._store.set({ settings: { ...this._store.state.settings, modelUrl: url } });
    } catch {
      // openFile has said why
    }
  }

  // weights="…": the weights of random mode, fetched; a newer weights attribute wins.
  async fetchWeights(spec) {
    const store = this._store;
    store.set({ status: 'loading-weights' });
    const got = await fetchBytes(spec.url);
    const current = store.state.weights;
    if (!current || current.url !== spec.url) return; // replaced meanwhile
    if (got.failure) {
      this.fail('weights', got.failure);
      return;
    }
    store.set({ weights: { ...current, bytes: got.bytes } });
    this._request(null);
  }

  // A run refused the model itself (phase 'model': no file to show, no trained model in this build)
  // or the weights' bytes (phase 'weights'): the same as a source that could not be fetched.
  runFailed(e) {
    const w = this._store.state.weights;
    if (e.phase === 'weights') this.fail('weights', pageMessage('fileFailed', { name: w ? w.url : '' }, storedError(e)));
    else this.fail('model', storedError(e));
  }

  // attribute: 'model', 'weights' or 'file' (a file the learner opened); message: what it says. The
  // picture falls back (see the top of this file) and el.ready, if still pending, rejects.
  // fallback: the model a fresh page shows instead of one that cannot be had ('trained', or 'random'
  // when the trained model itself cannot come).
  fail(attribute, message, fallback = 'trained') {
    const store = this._store;
    const s = store.state;
    const shown = s.result ? this._shown : null;
    const patch = { status: 'idle' };
    let instead = shown ? 'kept' : null;
    if (attribute === 'weights') {
      patch.weights = shown ? shown.weights : null;
      if (!shown) instead = 'seeded';
    } else if (shown) {
      patch.settings = shown.settings;
    } else if (s.settings.model === 'file' || MODEL_KINDS[s.settings.model].shipped) {
      patch.settings = { ...s.settings, model: fallback, file: null, modelUrl: null };
      instead = fallback === 'trained' ? 'trained' : 'seeded';
    }
    patch.unavailable = { attribute, message, instead };
    store.set(patch);
    this._failReady(new Error(messageOf(message)));
    if (!s.result) this._request(null);
  }
}
