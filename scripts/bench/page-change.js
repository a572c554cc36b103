// In-page code for scripts/bench-page.js: finding the demo's controls and timing control changes.
// Each function is handed to page.evaluate, so it is self-contained (it runs in the page, not here).
'use strict';

// Installs window.__mhaBench.control(id): the page's controls sit in the document or, since the
// page became one <mha-demo>, in that element's shadow root.
function installHelpers() {
  window.__mhaBench = {
    control(id) {
      const roots = [document];
      const demo = window.mhaPage && window.mhaPage.demo;
      if (demo && demo.shadowRoot) roots.push(demo.shadowRoot);
      for (const el of document.querySelectorAll('*')) if (el.shadowRoot && !roots.includes(el.shadowRoot)) roots.push(el.shadowRoot);
      for (const r of roots) {
        const found = r.querySelector(`#${id}`);
        if (found) return found;
      }
      return null;
    },
  };
}

// Installed before the page's scripts run (page.addInitScript): every Worker the page makes notes
// when a message of it starts to be handled (window.__mhaWorkerAnswered), its listener added before
// the page sets onmessage, so it runs first. A change whose result came from the worker waited on it
// meanwhile: that wait is not the main thread's work. window.__mhaWorkerMessage() resolves in the
// task after the next worker message has been handled: waiting for it, rather than polling, leaves the
// main thread's trace to the page's own work (page-cpu.js).
function installWorkerClock() {
  const PageWorker = window.Worker;
  const waiting = [];
  window.__mhaWorkerAnswered = -Infinity;
  window.__mhaWorkerMessage = () => new Promise((r) => waiting.push(r));
  window.Worker = class extends PageWorker {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', () => {
        window.__mhaWorkerAnswered = performance.now();
        for (const r of waiting.splice(0)) setTimeout(r, 0);
      });
    }
  };
}

// warmup + n changes of one control (#seed, #causal or #text), each from an idle page; times in ms
// from dispatching 'change' (the columns are explained in bench-page.js); each change is also marked
// (performance.mark mha-bench:change … mha-bench:painted) for a trace to find it (page-cpu.js). A text change deletes the
// last character and types it again, so T alternates between T − 1 and T (both reported: tShort, tLong).
function measureChanges({ kind, warmup, n }) {
  const P = window.mhaPage;
  const el = window.__mhaBench.control(kind);
  if (!el) throw new Error(`no control #${kind}`);
  const idle = () => new Promise((r) => requestIdleCallback(() => r(), { timeout: 1000 }));
  const task = () => new Promise((r) => setTimeout(r, 0));
  const raf = () => new Promise((r) => requestAnimationFrame(() => r(performance.now())));
  const tick = () => new Promise((r) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => r();
    ch.port2.postMessage(0);
  });
  const text = el.value;
  const shorter = [...text].slice(0, -1).join(''); // one token fewer: the last character
  const Ts = new Set();
  return (async () => {
    const out = [];
    for (let i = 0; i < warmup + n; ++i) {
      await idle(); // (the previous change's hidden stages are drawn by now: see tIdle)
      await task();
      const before = P.state.result;
      if (kind === 'causal') el.checked = !el.checked;
      else if (kind === 'text') el.value = el.value === text ? shorter : text;
      else el.value = String(Number(el.value) === 1 ? 2 : 1);
      performance.mark('mha-bench:change');
      const t0 = performance.now();
      el.dispatchEvent(new Event('change', { bubbles: true }));
      const tDispatched = performance.now();
      while (P.state.result === before) {
        if (Object.keys(P.state.errors || {}).length || P.state.fatal) {
          throw new Error(`the page reported an error: ${JSON.stringify(P.state.errors)} ${P.state.fatal || ''}`);
        }
        if (performance.now() - t0 > 30000) throw new Error('no new result within 30 s');
        await (window.__mhaWorkerMessage ? Promise.race([window.__mhaWorkerMessage(), new Promise((r) => setTimeout(r, 1000))]) : tick());
      }
      const tState = performance.now();
      // From the worker: the main thread worked while the change was dispatched and once the answer came.
      const answered = window.__mhaWorkerAnswered || -Infinity;
      const worker = answered > tDispatched ? answered - tDispatched : 0;
      Ts.add(P.state.result.tokens.length);
      let painted;
      const paintedAt = new Promise((r) => { painted = r; });
      const r1 = await new Promise((r) => requestAnimationFrame(() => {
        setTimeout(() => { // runs after this frame is rendered
          painted(performance.now());
          performance.mark('mha-bench:painted');
        }, 0);
        r(performance.now());
      }));
      await raf();
      const tEnd = performance.now(); // the end of the 2nd rAF callback after the state update
      const tPaint = await paintedAt;
      await new Promise((r) => requestIdleCallback(() => r(), { timeout: 5000 }));
      const tIdle = performance.now(); // the page has nothing left to do (hidden stages drawn too)
      out.push({ core: P.state.lastMs, state: tState - t0, frame1: r1 - t0, paint: tPaint - t0, worker, busy: tState - t0 - worker + (tPaint - r1), total: tEnd - t0, idle: tIdle - t0, warm: i < warmup });
    }
    if (P.state.result.text !== text) { // leave the text as it was found
      el.value = text;
      el.dispatchEvent(new Event('change', { bubbles: true }));
      await idle();
    }
    // The interval between animation frames while idle, to read the 2nd-rAF numbers against.
    const frames = [];
    let last = await raf();
    for (let i = 0; i < 20; ++i) {
      const t = await raf();
      frames.push(t - last);
      last = t;
    }
    frames.sort((a, b) => a - b);
    const sortedT = [...Ts].sort((a, b) => a - b);
    return { runs: out, frameMs: frames[frames.length >> 1], tShort: sortedT[0], tLong: sortedT[sortedT.length - 1] };
  })();
}

module.exports = { installHelpers, installWorkerClock, measureChanges };
