// The body of the run Web Worker (after the core and web/mha.js, which define self.createMha).
// It owns its own model: the same settings and seed give bit-identical weights, and loaded weights
// and shipped models arrive as bytes once per file. Messages:
//   in   {id, settings, weights: null | {key, layout, layer, bytes?} | {shipped, bytes?}}   (bytes only when new to it)
//   out  {id, result, ms} | {id, error: {message, phase, field, code, params, page}} (MhaError) | {id, fatal: message}
// A message with a `train` field goes to the training loop instead (training.js), one with a `sweep`
// field to the head-count sweep (sweep.js); one with {analysis: {id, bytes?, prune | importance: ids
// | patch: {clean, corrupt} | circuits: true}} runs a gradient pass, an activation patching or the
// circuits' scores of the model whose bytes came (analyses.js): out {id, out} | {id, error, detail?: {code, field, params}} (a core error's).
import { Engine } from './engine.js';
import { trainingMessage } from './training.js';
import { sweepMessage } from './sweep.js';
import { inflateWasm } from './inflateWasm.js';

// The page evaluates this same script (core.js workerParts) for the Engine it runs small runs with:
// one copy of it in the widget. Only in a worker does it answer messages.
export { Engine };
if (typeof document === 'undefined') serve();

function serve() {
  // The blob that started this worker set self.mhaWasmGz (core.js).
  const ready = inflateWasm(self.mhaWasmGz).then((wasmBinary) => self.createMha({ wasmBinary }));
  let engine = null;
  let analysed = null; // the model of the {analysis} messages
  let weights = { key: null, bytes: null };

  self.onmessage = async (ev) => {
    const { id, settings, weights: w } = ev.data;
    let mha;
    try {
      mha = await ready;
    } catch (e) {
      self.postMessage({ id, fatal: String((e && e.message) || e) });
      return;
    }
    if (ev.data.train || ev.data.sweep) {
      (ev.data.train ? trainingMessage : sweepMessage)(mha, ev.data, (msg, transfer) => self.postMessage(msg, transfer || []));
      return;
    }
    if (ev.data.analysis) {
      const { id: job, bytes, prune, importance, patch, circuits } = ev.data.analysis;
      try {
        if (bytes) (analysed || (analysed = new mha.Model())).loadModel(bytes);
        self.postMessage({ id: job, out: prune ? analysed.prune() : patch ? analysed.patch(patch) : circuits ? analysed.circuits() : analysed.headImportance(importance) });
      } catch (e) {
        const detail = e && e.code ? { code: e.code, field: e.field, params: e.params } : undefined;
        self.postMessage({ id: job, error: String((e && e.message) || e), detail });
      }
      return;
    }
    if (!engine) engine = new Engine(mha);
    const shipped = w && w.shipped;
    if (shipped && w.bytes) engine.addShipped(shipped, w.bytes);
    else if (w && w.bytes) weights = { key: w.key, bytes: w.bytes };
    if (shipped ? !engine.hasShipped(shipped) : w && w.key !== weights.key) {
      self.postMessage({ id, fatal: 'the worker has not got the weights it was asked to use' });
      return;
    }
    const started = performance.now();
    try {
      const result = engine.run(settings, w && !shipped ? { key: w.key, layout: w.layout, layer: w.layer, bytes: weights.bytes } : null);
      const ms = performance.now() - started;
      const buffers = new Set();
      for (const t of Object.values(result.tensors)) buffers.add(t.data.buffer);
      self.postMessage({ id, result, ms }, [...buffers]);
    } catch (e) {
      if (engine.isMhaError(e)) self.postMessage({ id, error: { message: e.message, phase: e.phase, field: e.field, code: e.code, params: e.params, page: e.page } });
      else self.postMessage({ id, fatal: String((e && e.message) || e) });
    }
  };
}
