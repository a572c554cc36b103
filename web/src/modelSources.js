// Where a demo's model comes from besides what the core builds itself: a file the learner opens
// (picker or drop), model="….safetensors" and weights="…" fetched from their URLs. Each ends as a
// store change and a run request; while bytes are on their way the runner waits (pending).
import { fetchBytes } from './fetchBytes.js';
import { messageOf } from './messages.js';
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
  }

  // True while a model= or weights= download, or a trained model's script, has not arrived: a run now
  // would show the wrong model.
  get pending() {
    const w = this._store.state.weights;
    return this._modelPending || Boolean(w && !w.bytes && !w.failed) || this._loadShipped();
  }

  // A trained model of its own name (model="recall"): its script is loaded when it is first shown,
  // and the run asked for again once it has come (or failed, which the run then says). True meanwhile.
  _loadShipped() {
    const kind = MODEL_KINDS[this._store.state.settings.model];
    const engine = this._engine();
    if (!kind || !kind.shipped || !engine || engine.hasShipped(kind.shipped)) return false;
    if (!this._shippedLoading) {
      this._shippedLoading = trainedBytes(kind.shipped).then((bytes) => {
        this._shippedLoading = null;
        engine.addShipped(kind.shipped, bytes);
        this._request(null);
      });
    }
    return true;
  }

  // The weights of random mode for a run, or null for the core's own random weights.
  weightsFor() {
    const w = this._store.state.weights;
    return w && w.bytes ? { key: w.url, bytes: w.bytes, layout: w.layout, layer: w.layer } : null;
  }

  // Opens a model from a File (or Blob with a name): a whole model (gpt2, attn-only) becomes the
  // model shown; a single attention layer (pytorch, llama) becomes the weights of random mode.
  // Read with the File API a tensor at a time (engine.openFile), so it works from file:// too and
  // never holds the whole file; store.opening shows the progress. A newer file, cancelOpen() or a
  // bad file leaves the model shown as it was (a bad one says why). Several files at once: the
  // .safetensors one and GPT-2's tokenizer files beside it (tokenizerFiles.js), so a GPT-2 model reads
  // text. Resolves to {name, layout, kind, tokenizer}; rejects with the message, or an AbortError
  // when cancelled.
  async openFile(fileOrFiles) {
    const list = fileOrFiles.length === undefined ? [fileOrFiles] : [...fileOrFiles]; // one Blob-like, or a FileList / array
    const { model: file, tokenizer: tokenizerFiles, missing } = sortFiles(list);
    const store = this._store;
    if (!file || missing) {
      const message = !file
        ? `${list.map((f) => f.name).join(', ')}: open the model's .safetensors file together with these`
        : `${file.name}: the tokenizer needs ${missing} too`;
      store.set({ errors: { ...store.state.errors, model: message } });
      throw new Error(message);
    }
    const name = file.name || 'model.safetensors';
    const engine = this._engine();
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
      opened = await engine.openFile(name, file, store.state.settings, { signal: controller.signal, onProgress, tokenizerFiles });
      if (opened.kind === 'weights') {
        store.set({ weights: { url: name, layout: opened.layout, layer: 0, bytes: opened.bytes, file: true } });
        store.set({ settings: { ...store.state.settings, model: 'random', file: null }, errors: {} });
      } else {
        store.set({ settings: { ...store.state.settings, model: 'file', file: name, layer: null, switchedOff: [] }, errors: {} });
      }
    } catch (e) {
      if (e && e.name === 'AbortError') throw e;
      const message = `${name}: ${(e && e.message) || e}`;
      store.set({ errors: { ...store.state.errors, model: message } });
      throw new Error(message);
    } finally {
      if (this._opening === controller) {
        this._opening = null;
        store.set({ opening: null });
      }
    }
    this._request('model');
    return { name, layout: opened.layout, kind: opened.kind, tokenizer: Boolean(opened.tokenizer) };
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
    const store = this._store;
    const got = await fetchBytes(url, store.state.lang);
    this._modelPending = false;
    if (got.bytes) {
      try {
        await this.openFile(new File([got.bytes], url.split('?')[0].split('/').pop()));
        store.set({ settings: { ...store.state.settings, modelUrl: url } });
        return;
      } catch {
        // openFile has said why
      }
    } else store.set({ status: 'idle', errors: { ...store.state.errors, model: got.failure } });
    this._failReady(new Error(messageOf(store.state.errors.model)));
  }

  // weights="…": the weights of random mode, fetched; a newer weights attribute wins.
  async fetchWeights(spec) {
    const store = this._store;
    store.set({ status: 'loading-weights' });
    const got = await fetchBytes(spec.url, store.state.lang);
    const current = store.state.weights;
    if (!current || current.url !== spec.url) return; // replaced meanwhile
    if (got.failure) {
      store.set({ weights: { ...current, failed: true }, status: 'idle', errors: { weights: got.failure } });
      return;
    }
    store.set({ weights: { ...current, bytes: got.bytes } });
    this._request(null);
  }
}
