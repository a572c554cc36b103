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

// fn()'s result, awaited only when it is a promise (onnxruntime's run), so a synchronous call is timed
// without a microtask turn.
async function call(fn) {
  const r = fn();
  return r && typeof r.then === 'function' ? await r : r;
}

// Runs fn() `warmup` + `runs` times and resolves to the first (cold) time, the timed runs and the first
// call's result (for checking). fn may return a promise: it is awaited inside the timed span.
// slow = {ms, decide(ms, plan)}: when the first call takes longer than slow.ms, the second call is
// timed as the first run and decide(its time, plan) may shrink the plan (for cells where one run takes
// seconds; the first call is then the only warm-up).
async function timeCalls(fn, { warmup, runs }, slow) {
  let t0 = performance.now();
  const first = await call(fn);
  const firstMs = performance.now() - t0;
  let p = { warmup, runs, reduced: false };
  const times = [];
  if (slow && firstMs > slow.ms) {
    t0 = performance.now();
    await call(fn);
    times.push(performance.now() - t0);
    p = slow.decide(Math.min(firstMs, times[0]), p);
  }
  let warm = 1;
  if (times.length && !p.reduced) {
    times.length = 0; // not shrunk after all: that call was the second warm-up
    warm = 2;
  }
  for (let i = warm; i < p.warmup; ++i) await call(fn);
  while (times.length < p.runs) {
    t0 = performance.now();
    await call(fn);
    times.push(performance.now() - t0);
  }
  return { firstMs, first, times, plan: p };
}

// Interleaved rounds: each round calls every fns[name]() once, the order reversed every other round, so
// a slow minute of a shared machine falls on all of them alike. `warmup` rounds are not kept.
// Resolves to {name: {times (ms), cpu (process CPU ms ÷ wall ms of each call)}}.
async function timeRounds(fns, { warmup, rounds }) {
  const names = Object.keys(fns);
  const out = Object.fromEntries(names.map((n) => [n, { times: [], cpu: [] }]));
  for (let r = 0; r < warmup + rounds; ++r) {
    for (const n of r % 2 ? [...names].reverse() : names) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await call(fns[n]);
      const ms = performance.now() - t0;
      const c = process.cpuUsage(c0);
      if (r >= warmup) {
        out[n].times.push(ms);
        out[n].cpu.push((c.user + c.system) / 1000 / ms);
      }
    }
  }
  return out;
}

module.exports = { median, summary, maxRelError, timeCalls, timeRounds };
