// Timing helpers: a run plan, the runs themselves, and summary statistics.
'use strict';

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function summary(xs) {
  return { n: xs.length, median: median(xs), min: Math.min(...xs), max: Math.max(...xs) };
}

// Largest |a − b| over the largest |b|: the error relative to the reference tensor's scale
// (element-wise relative error is meaningless for entries near 0, e.g. masked attention weights).
function maxRelError(a, b) {
  if (a.length !== b.length) return Infinity;
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < b.length; ++i) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= diff)) diff = d; // NaN propagates
    const m = Math.abs(b[i]);
    if (m > scale) scale = m;
  }
  return scale > 0 ? diff / scale : diff;
}

// Runs fn() `warmup` + `runs` times and returns the first (cold) time, the timed runs and the first
// call's result (for checking). slow = {ms, decide(ms, plan)}: when the first call takes longer than
// slow.ms, the second call is timed as the first run and decide(its time, plan) may shrink the plan
// (for cells where one run takes seconds; the first call is then the only warm-up).
function timeCalls(fn, { warmup, runs }, slow) {
  let t0 = performance.now();
  const first = fn();
  const firstMs = performance.now() - t0;
  let p = { warmup, runs, reduced: false };
  const times = [];
  if (slow && firstMs > slow.ms) {
    t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
    p = slow.decide(Math.min(firstMs, times[0]), p);
  }
  let warm = 1;
  if (times.length && !p.reduced) {
    times.length = 0; // not shrunk after all: that call was the second warm-up
    warm = 2;
  }
  for (let i = warm; i < p.warmup; ++i) fn();
  while (times.length < p.runs) {
    t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return { firstMs, first, times, plan: p };
}

module.exports = { median, summary, maxRelError, timeCalls };
