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
      while (P.state.result === before) {
        if (Object.keys(P.state.errors || {}).length || P.state.fatal) {
          throw new Error(`the page reported an error: ${JSON.stringify(P.state.errors)} ${P.state.fatal || ''}`);
        }
        if (performance.now() - t0 > 30000) throw new Error('no new result within 30 s');
        await tick();
      }
      const tState = performance.now();
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
      out.push({ core: P.state.lastMs, state: tState - t0, frame1: r1 - t0, paint: tPaint - t0, busy: tState - t0 + (tPaint - r1), total: tEnd - t0, idle: tIdle - t0, warm: i < warmup });
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

module.exports = { installHelpers, measureChanges };
