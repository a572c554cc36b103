// One demo's run worker (web/src/worker.js in a blob: URL, made by core.js), started on the first
// run it is given. At most one job runs in it; a newer request replaces a waiting one (whose promise
// resolves to null: superseded), so a learner who keeps typing never queues a backlog of stale runs.
//   run(settings, source) -> Promise<{result, ms} | null>, rejects with
//     {mhaError: {message, phase}}   the core refused the settings, text or weights
//     {unavailable: message}         no worker here (blocked by a CSP, failed to start): run it yourself
//     {fatal: message}               anything else
// source: null, random mode's weights {key, bytes, layout, layer}, or a shipped model's file
// {shipped: id, bytes}. Bytes are copied to the worker once: the worker keeps one weights file
// and every shipped model it was given.
export function createWorkerClient(makeURL) {
  let worker = null;
  let broken = null; // why the worker cannot be used
  let nextId = 1;
  let running = null; // {id, resolve, reject}
  let waiting = null; // {settings, source, resolve, reject}
  let sentWeightsKey = null;
  let sentShipped = new Set();

  function fail(reason) {
    broken = reason;
    const jobs = [running, waiting].filter(Boolean);
    running = waiting = null;
    if (worker) worker.terminate();
    worker = null;
    for (const j of jobs) j.reject({ unavailable: reason });
  }

  function start() {
    try {
      worker = new Worker(makeURL());
    } catch (e) {
      fail(String((e && e.message) || e));
      return false;
    }
    sentWeightsKey = null;
    sentShipped = new Set();
    worker.onmessage = (ev) => {
      const msg = ev.data;
      const job = running;
      if (!job || msg.id !== job.id) return;
      running = null;
      if (msg.result) job.resolve({ result: msg.result, ms: msg.ms });
      else if (msg.error) job.reject({ mhaError: msg.error });
      else job.reject({ fatal: msg.fatal });
      pump();
    };
    worker.onerror = (ev) => {
      ev.preventDefault();
      fail((ev && ev.message) || 'the worker failed to start');
    };
    return true;
  }

  function pump() {
    if (running || !waiting) return;
    const job = waiting;
    waiting = null;
    if (!worker && !start()) return;
    const id = nextId++;
    running = { id, resolve: job.resolve, reject: job.reject };
    let w = null;
    if (job.source) {
      const { bytes, ...source } = job.source;
      w = source;
      if (source.shipped ? !sentShipped.has(source.shipped) : sentWeightsKey !== source.key) {
        w.bytes = bytes; // copied into the worker once per file
        if (source.shipped) sentShipped.add(source.shipped);
        else sentWeightsKey = source.key;
      }
    }
    worker.postMessage({ id, settings: job.settings, weights: w });
  }

  return {
    get available() {
      return !broken;
    },
    run(settings, source) {
      if (broken) return Promise.reject({ unavailable: broken });
      return new Promise((resolve, reject) => {
        if (waiting) waiting.resolve(null);
        waiting = { settings: { ...settings }, source, resolve, reject };
        pump();
      });
    },
    // Stops the worker (the demo left the page); the next run starts a new one.
    stop() {
      const jobs = [running, waiting].filter(Boolean);
      running = waiting = null;
      if (worker) worker.terminate();
      worker = null;
      for (const j of jobs) j.resolve(null);
    },
  };
}
