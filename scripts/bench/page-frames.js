// In-page code for scripts/bench-page.js: the main thread's frame rate for a while, on an idle page
// or while the demo trains in its worker. Handed to page.evaluate, so self-contained.
//   recordFrames({ms, train}) -> {intervals (ms between rAF frame times), lateness (ms each rAF
//     callback ran after its frame time), longTasks: [{start, ms}] | null (no 'longtask' entries in
//     this browser), progress: [{t, step, rate}] (trainprogress events, t from the start; rate: the
//     worker's own steps/s), ms (recorded)}
// With train, the panel's own Start button is clicked, frames are recorded for `ms` from the click,
// then its Pause button, and the result waits for the trainend event. The trained steps stay (Start
// resumes; the caller resets if it wants to start over).
'use strict';

function recordFrames({ ms, train }) {
  const demo = window.mhaPage.demo;
  const button = (name) => {
    const b = demo.shadowRoot.querySelector(`[data-train="${name}"]`);
    if (!b) throw new Error(`no [data-train="${name}"] button: the training panel is not on this page`);
    return b;
  };
  const progress = [];
  const onProgress = (ev) => progress.push({ t: performance.now(), step: ev.detail.step, rate: ev.detail.stepsPerSecond });
  let longTasks = null;
  let observer = null;
  if (typeof PerformanceObserver === 'function' && (PerformanceObserver.supportedEntryTypes || []).includes('longtask')) {
    longTasks = [];
    observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) longTasks.push({ start: e.startTime, ms: e.duration });
    });
    observer.observe({ type: 'longtask' });
  }
  return (async () => {
    demo.addEventListener('trainprogress', onProgress);
    const stamps = [];
    const lateness = [];
    let t0;
    try {
      await new Promise((r) => requestAnimationFrame(() => r())); // start on a frame boundary
      t0 = performance.now();
      if (train) button('start').click();
      await new Promise((resolve) => {
        const tick = (ts) => {
          stamps.push(ts);
          lateness.push(performance.now() - ts);
          if (performance.now() - t0 < ms) requestAnimationFrame(tick);
          else resolve();
        };
        requestAnimationFrame(tick);
      });
      if (train) {
        const ended = new Promise((r) => demo.addEventListener('trainend', r, { once: true }));
        button('pause').click();
        await Promise.race([ended, new Promise((r) => setTimeout(r, 10000))]);
      }
    } finally {
      demo.removeEventListener('trainprogress', onProgress);
      if (observer) {
        for (const e of observer.takeRecords()) longTasks.push({ start: e.startTime, ms: e.duration });
        observer.disconnect();
      }
    }
    const intervals = [];
    for (let i = 1; i < stamps.length; ++i) intervals.push(stamps[i] - stamps[i - 1]);
    const inWindow = progress.filter((p) => p.t - t0 <= ms);
    return {
      intervals,
      lateness,
      longTasks: longTasks && longTasks.filter((x) => x.start >= t0 && x.start - t0 <= ms),
      progress: inWindow.map((p) => ({ ...p, t: p.t - t0 })),
      ms: stamps.length ? stamps[stamps.length - 1] - stamps[0] : 0,
    };
  })();
}

module.exports = { recordFrames };
