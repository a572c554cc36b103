// The trained model's pruning curve (Model.prune: catalog.importance.samples sequences of its task, a
// backward pass each and one run per head removed: a few hundred ms), computed once per demo off the
// main thread, in a Web Worker of its own (worker.js, message {prune: {bytes}}), else on the main thread
// after the next frame. Resolves to {steps} or rejects with the reason.
export function computePruning(makeWorker, bytes, onMainThread) {
  const fallback = () =>
    new Promise((resolve, reject) => requestAnimationFrame(() => setTimeout(() => {
      try {
        resolve(onMainThread());
      } catch (e) {
        reject(e);
      }
    }, 0)));
  if (!makeWorker) return fallback();
  let worker;
  try {
    worker = makeWorker();
  } catch (e) {
    return fallback();
  }
  return new Promise((resolve, reject) => {
    worker.onmessage = (ev) => {
      worker.terminate();
      if (ev.data.curve) resolve(ev.data.curve);
      else reject(new Error(ev.data.fatal || (ev.data.error && ev.data.error.message) || 'the pruning curve failed'));
    };
    worker.onerror = (ev) => {
      ev.preventDefault();
      worker.terminate();
      fallback().then(resolve, reject);
    };
    worker.postMessage({ prune: { bytes } });
  });
}
