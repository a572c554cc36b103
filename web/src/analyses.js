// Passes over one model's weights, off the main thread: the trained model's pruning curve
// (Model.prune, once: a backward pass and nine runs for each of catalog.importance.samples sequences)
// and a shipped model's heads' importance on each text shown (Model.headImportance, a backward pass
// that the text change need not wait for: 0.7 ms for the induction model's sentence in Node, 24 and
// 30 ms for the English and Tang models' opening texts); a real-text model's activation patching (Model.patch: hundreds
// of runs, seconds) and its circuits' scores (Model.circuits: 0.5 s in Chromium). One Web Worker of
// their own (worker.js, messages {analysis: {id, bytes?, prune | importance: ids | patch: {clean,
// corrupt} | circuits: true}}) holds the model; where none can start, each runs on the
// main thread after the next frame. ask(...) -> Promise of the core's object, or a rejection with the
// reason (a core error's code, field and params on it, as messages.js storedError reads them).
export function createAnalyses(makeWorker, bytes, onMainThread) {
  let worker = null;
  let broken = !makeWorker;
  let sent = false; // the worker has the model's bytes
  let nextId = 1;
  const waiting = new Map(); // id -> {resolve, reject, message}

  const later = (message) =>
    new Promise((resolve, reject) => requestAnimationFrame(() => setTimeout(() => {
      try {
        resolve(onMainThread(message));
      } catch (e) {
        reject(e);
      }
    }, 0)));

  function fail() {
    broken = true;
    if (worker) worker.terminate();
    worker = null;
    for (const job of waiting.values()) later(job.message).then(job.resolve, job.reject);
    waiting.clear();
  }

  function start() {
    try {
      worker = makeWorker();
    } catch (e) {
      fail();
      return;
    }
    worker.onmessage = (ev) => {
      const { id, out, error, detail } = ev.data;
      const job = waiting.get(id);
      waiting.delete(id);
      if (job && out) job.resolve(out);
      else if (job) job.reject(Object.assign(new Error(error), detail));
    };
    worker.onerror = (ev) => {
      ev.preventDefault();
      fail();
    };
  }

  return {
    // message: {prune: true}, {importance: ids}, {patch: {clean, corrupt}} or {circuits: true}
    ask(message) {
      if (!broken && !worker) start();
      if (broken) return later(message);
      return new Promise((resolve, reject) => {
        const id = nextId++;
        waiting.set(id, { resolve, reject, message });
        worker.postMessage({ analysis: { id, ...message, bytes: sent ? undefined : bytes } });
        sent = true;
      });
    },
    stop() {
      if (worker) worker.terminate();
      worker = null;
      sent = false;
      waiting.clear();
    },
  };
}
