// A Web Worker whose script may not be here yet (the whole core, the part 'gradients', comes when the
// first worker that trains or takes gradients starts): it answers as a Worker at once, holds the
// messages posted until the script's URL resolves, then passes them on. If the URL rejects, onerror
// hears why, with the rejection's message, as it would from a worker whose script failed.
export function lazyWorker(url) {
  let worker = null;
  let ended = false;
  const waiting = [];
  const face = {
    onmessage: null,
    onerror: null,
    postMessage(message, transfer = []) {
      if (worker) worker.postMessage(message, transfer);
      else waiting.push([message, transfer]);
    },
    terminate() {
      ended = true;
      if (worker) worker.terminate();
    },
  };
  url.then((u) => {
    if (ended) return;
    worker = new Worker(u);
    worker.onmessage = (ev) => face.onmessage && face.onmessage(ev);
    worker.onerror = (ev) => face.onerror && face.onerror(ev);
    for (const [message, transfer] of waiting.splice(0)) worker.postMessage(message, transfer);
  }).catch((e) => {
    if (!ended && face.onerror) face.onerror({ message: String((e && e.message) || e), preventDefault() {} });
  });
  return face;
}
