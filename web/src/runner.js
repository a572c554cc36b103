// Runs the core whenever a setting changes and puts the result (or the error, next to the control
// that caused it) into the store. Teaching sizes run at once on the main thread (a few ms). Two kinds
// of run go to the demo's Web Worker, so the page stays live: large ones (isLarge), said at once to be
// computing (status 'computing', with the time it started, for the progress display), and the runs of
// a model whose forward is longer than a frame but short (MODEL_KINDS' inWorker: the models of real
// text), said to be computing only if one is still running after SAY_COMPUTING_AFTER_MS, so that
// typing does not flash a progress badge at every key; the first picture of a demo is drawn at once
// on the main thread. Either way the last result stays on screen,
// and a result that arrives after the settings changed again is dropped (job ids). Without a worker
// (blocked by the page's CSP, say) a large run falls back to the main thread after painting
// "computing…", a short one runs there at once.
import { fieldFor, storedError } from './messages.js';
import { isSized, MODEL_KINDS } from './attributes.js';

// Seeded weights past this many take longer than the page's 100 ms to draw on the main thread (blocks
// at d_model 512: 6.3 M weights, ~160 ms in Chromium on a 2-core machine; one layer at d_model 512:
// 1 M, ~60 ms), so the worker draws them and the page says at once that it is working.
const MAIN_THREAD_WEIGHTS = 2 ** 21;
// Attention is 4·d² weights a layer, a GPT-2 block's MLP 8·d² more.
const seededWeights = (s) => {
  const layers = MODEL_KINDS[s.model].layers;
  return layers ? layers * 12 * s.dModel * s.dModel : 4 * s.dModel * s.dModel;
};

export function isLarge(s) {
  return isSized(s.model) && (s.dModel > 512 || seededWeights(s) > MAIN_THREAD_WEIGHTS || [...(s.text || '')].length > 64);
}

// A worker run of a model that is quick there shows nothing new for this long: the first run of a
// model of real text (its file copied to the worker and read) takes longer, and is said.
const SAY_COMPUTING_AFTER_MS = 250;
const runsInWorker = (s) => Boolean(MODEL_KINDS[s.model] && MODEL_KINDS[s.model].inWorker);

// engine: {run(settings), runWorked(causal), isMhaError(e), runAsync?(settings) -> Promise (see
// workerClient.js)}; ready() says whether it can run yet. sourceFailed(e): a run refused the model
// or the weights themselves (phase 'model' or 'weights'): modelSources.js says so and falls back.
export function createRunner(store, engine, ready = () => true, sourceFailed = null) {
  let job = 0; // the latest request; older async results are dropped
  let lastChanged = null;
  let useWorker = typeof engine.runAsync === 'function';
  let sent = 0; // the latest job given to the worker
  let settled = 0; // the latest job whose worker run has answered

  function fail(e) {
    if (!engine.isMhaError(e)) {
      store.set({ status: 'idle', fatal: String((e && e.message) || e) });
      return;
    }
    report(e);
  }

  // e: an MhaError with its phase, or the same as plain data from the worker.
  function report(e) {
    if (sourceFailed && (e.phase === 'model' || e.phase === 'weights')) {
      sourceFailed(e);
      return;
    }
    const key = e.phase === 'weights' ? 'weights' : fieldFor(e, e.phase, lastChanged);
    store.set({ errors: { [key]: storedError(e) }, status: 'idle', computingSince: null });
  }

  function apply(result, ms, settings) {
    result.settings = settings; // what it was made from
    const patch = { result, errors: {}, status: 'idle', computingSince: null, lastMs: ms, fatal: null };
    if (store.state.head >= result.config.heads) patch.head = 0;
    if (!store.state.worked || store.state.worked.config.causal !== settings.causal) {
      patch.worked = engine.runWorked(settings.causal);
    }
    store.set(patch);
  }

  function execute() {
    const { settings } = store.state;
    const started = performance.now();
    let result;
    try {
      result = engine.run(settings);
    } catch (e) {
      fail(e);
      return;
    }
    apply(result, performance.now() - started, settings);
  }

  function offMainThread(id) {
    const { settings } = store.state;
    sent = id;
    engine.runAsync(settings).then(
      (done) => {
        if (done && id === job) {
          settled = id;
          apply(done.result, done.ms, settings);
        }
      },
      (e) => {
        if (id !== job) return;
        settled = id;
        if (e && e.mhaError) report(e.mhaError);
        else if (e && e.unavailable !== undefined) {
          useWorker = false;
          onMainThreadLater(id);
        } else store.set({ status: 'idle', computingSince: null, fatal: String((e && (e.fatal || e.message)) || e) });
      },
    );
  }

  function sayComputingLater(id) {
    const started = performance.now();
    setTimeout(() => {
      if (id === job && settled !== id && store.state.status !== 'computing') store.set({ status: 'computing', computingSince: started });
    }, SAY_COMPUTING_AFTER_MS);
  }

  // The old way: paint "computing…" first, then run in a task of its own.
  function onMainThreadLater(id) {
    requestAnimationFrame(() =>
      setTimeout(() => {
        if (id === job) execute();
      }, 0),
    );
  }

  return {
    // The latest run went to the worker and has not answered (a worker stopped with it never will).
    get unanswered() {
      return sent === job && settled !== job;
    },
    // changed: the settings key the learner just edited (for placing the error message).
    request(changed) {
      if (changed) lastChanged = changed;
      // A setting changed: the learner has moved on from a source that could not be had. Weights
      // that could not be loaded are said for as long as their attribute asks for them in this mode.
      const gone = store.state.unavailable;
      if (changed && gone && (gone.attribute !== 'weights' || changed === 'model')) store.set({ unavailable: null });
      if (!ready()) return;
      const id = ++job;
      const { settings } = store.state;
      if (useWorker && runsInWorker(settings)) {
        if (store.state.result) {
          offMainThread(id);
          sayComputingLater(id);
          return;
        }
        // The first picture at once, here (the worker would first have to make its own core); the
        // same run in the worker meanwhile readies it, and the model, for the learner's next change.
        execute();
        engine.runAsync(settings).catch((e) => {
          if (e && e.unavailable !== undefined) useWorker = false;
        });
        return;
      }
      if (!isLarge(settings)) {
        execute();
        return;
      }
      if (store.state.status !== 'computing') store.set({ status: 'computing', computingSince: performance.now() });
      if (useWorker) offMainThread(id);
      else onMainThreadLater(id);
    },
  };
}
