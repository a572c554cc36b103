#!/usr/bin/env node
// npm run bench: one multi-head self-attention forward pass (float32, batch 1, one thread, the
// attention weights (1, heads, T, T) materialised, bias on every projection), timed in one Node
// process for
//   ours      our C++ core as WebAssembly (web/build/mha-core.js through web/mha.js)
//   tfjs      TensorFlow.js ops on tfjs-backend-wasm, one thread, W stored transposed so the
//             projections run on XNNPACK (see scripts/bench/tfjs.js)
//   tfjs-tB   the same with tf.matMul(x, W, false, true): the backend's scalar matMul loop
//   ort       onnxruntime-web's wasm backend, one thread, SIMD, on the graph torch.onnx exports from
//             nn.MultiheadAttention with these weights (scripts/bench/ort.js; needs python3-torch once
//             per graph, and bench/node_modules: bash scripts/setup.sh bench)
//   js        plain JavaScript loops on Float32Array (scripts/bench/plainjs.js)
// at S (T 8, d 64, 4 heads), M (T 128, d 768, 12 heads), L (T 512, d 768, 12 heads), with and
// without the causal mask. All five run the same random weights (non-zero biases), loaded into our
// module as safetensors and read back with model.weight(); outputs are checked against ours.
//
//   node scripts/bench.js [--quick] [--sizes S,M,L] [--impls ours,tfjs,tfjs-tB,ort,js] [--runs N] [--warmup N] [--cold]
'use strict';

const path = require('node:path');
const { describeMachine, loadAverage } = require('./bench/machine.js');
const { randomWeights, randomInput, pytorchTensors } = require('./bench/weights.js');

// The page's safetensors writer (an ES module), loaded once in main().
let tensorsSafetensors;
const pytorchSafetensors = (w, d) => tensorsSafetensors(pytorchTensors(w, d));
const { summary, maxRelError, timeCalls } = require('./bench/stats.js');
const { PlainAttention } = require('./bench/plainjs.js');
const { table } = require('./bench/table.js');
const { loadOurs, oursHeapBytes, heapBytesOf, heapMethod, OurAttention, ROOT } = require('./bench/ours.js');
const { loadTfjs, tfjsInfo, tfjsHeapBytes, TfjsAttention } = require('./bench/tfjs.js');
const { loadOrt, ortInfo, torchMissing, mhaGraph, OrtAttention } = require('./bench/ort.js');

const { SIZES } = require('./bench/sizes.js');
const IMPLS = ['ours', 'tfjs', 'tfjs-tB', 'ort', 'js'];
// The seeds of the timed cells' weights and input (and of the pre-warm: one ONNX graph per cell).
const WEIGHT_SEED = 1;
const INPUT_SEED = 2;
const TOLERANCE = 1e-4;
// At L, a cell whose warm-up runs take longer than this gets fewer runs (said under the table):
// plain JS takes seconds per run there, and 25 of them at each mask would take minutes.
const SLOW_RUN_MS = 2000;
const SLOW_CELL_BUDGET_MS = 25_000;
const SLOW_MIN_RUNS = 3;

function usage(code) {
  console.log(`usage: node scripts/bench.js [options]
  --quick            2 warm-ups + 7 runs per cell; no plain JS and no tfjs-tB at L
  --sizes S,M,L      which sizes (default all three)
  --impls LIST       any of ${IMPLS.join(',')} (default all; tfjs-tB only at S and M unless listed)
  --runs N           timed runs per cell (default 20)
  --warmup N         warm-up runs per cell (default 5)
  --cold             skip the untimed pre-warm at S (see V8's Liftoff -> TurboFan tier-up in the S rows)`);
  process.exit(code);
}

function parseArgs(argv) {
  const o = { quick: false, cold: false, sizes: Object.keys(SIZES), impls: null, runs: null, warmup: null };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (v === undefined) usage(2);
      return v;
    };
    if (a === '--quick') o.quick = true;
    else if (a === '--cold') o.cold = true;
    else if (a.startsWith('--sizes')) o.sizes = value().toUpperCase().split(',').filter(Boolean);
    else if (a.startsWith('--impls')) o.impls = value().split(',').filter(Boolean);
    else if (a.startsWith('--runs')) o.runs = Number(value());
    else if (a.startsWith('--warmup')) o.warmup = Number(value());
    else if (a === '--help' || a === '-h') usage(0);
    else {
      console.error(`bench: unknown argument ${a}`);
      usage(2);
    }
  }
  for (const s of o.sizes) if (!SIZES[s]) { console.error(`bench: unknown size ${s} (S, M or L)`); usage(2); }
  for (const s of o.impls || []) if (!IMPLS.includes(s)) { console.error(`bench: unknown implementation ${s}`); usage(2); }
  o.warmup = o.warmup ?? (o.quick ? 2 : 5);
  o.runs = o.runs ?? (o.quick ? 7 : 20);
  if (!(o.warmup >= 1 && o.runs >= 1)) usage(2);
  return o;
}

// Which implementations run in a cell.
function implsFor(size, opts) {
  if (opts.impls) return IMPLS.filter((i) => opts.impls.includes(i));
  return IMPLS.filter((i) => {
    if (i === 'tfjs-tB' && size === 'L') return false; // 2+ s per run on the scalar path: opt in with --impls
    if (i === 'js' && size === 'L' && opts.quick) return false;
    if (i === 'ort' && opts.skipOrt) return false; // said at the top, with why
    return true;
  });
}

const gflop = ({ T, dModel: d }) => (8 * T * d * d + 4 * T * T * d) / 1e9;
const MiB = (bytes) => (Number.isFinite(bytes) ? (bytes / 2 ** 20).toFixed(0) : '-');

function fmtMs(ms) {
  if (ms >= 1000) return ms.toFixed(0);
  if (ms >= 100) return ms.toFixed(1);
  if (ms >= 1) return ms.toFixed(2);
  return ms.toFixed(3);
}

function fmtRatio(r) {
  if (!Number.isFinite(r)) return '-';
  return r >= 10 ? r.toFixed(1) : r.toFixed(2);
}

// Fresh module instance, one model, one run: how much WebAssembly memory a page needs for this size.
async function freshHeapBytes(bytes, cfg, x) {
  const opts = {};
  const mha = await require(path.join(ROOT, 'web', 'mha.js'))(opts);
  const model = new mha.Model({ dModel: cfg.dModel, heads: cfg.heads, kvHeads: cfg.heads, causal: cfg.causal, seed: 1 });
  model.loadWeights(bytes, 'pytorch', 0);
  model.runInput(x, cfg.T).delete();
  model.delete();
  return heapBytesOf(mha, opts);
}

async function build(impl, w, bytes, cfg) {
  switch (impl) {
    case 'ort': return OrtAttention.create(mhaGraph(`s${WEIGHT_SEED}`, bytes, cfg, console.log), cfg);
    case 'ours': return new OurAttention(bytes, cfg);
    case 'tfjs': return new TfjsAttention(w, { ...cfg, transposeB: false });
    case 'tfjs-tB': return new TfjsAttention(w, { ...cfg, transposeB: true });
    case 'js': return new PlainAttention(w, cfg);
    default: throw new Error(impl);
  }
}

// The weights as our module holds them (after loading the safetensors), for everyone else.
function weightsFromOurs(ours) {
  const w = {};
  for (const n of ['w_q', 'b_q', 'w_k', 'b_k', 'w_v', 'b_v', 'w_o', 'b_o']) w[n] = ours.weight(n).data;
  return w;
}

// V8 starts WebAssembly functions on its Liftoff baseline compiler and JS in the interpreter, and
// tiers them up only after enough calls: without this, the S rows (the first ones timed) would
// measure the baseline code. Each implementation runs S, both masks, for at least PREWARM_MS and
// PREWARM_CALLS calls each (at most PREWARM_MAX_MS), untimed. On a busy machine the optimising
// compilers (background threads) can take a while to get a core.
const PREWARM_MS = 150;
const PREWARM_CALLS = 100;
const PREWARM_MAX_MS = 3000;
async function prewarm(impls) {
  const calls = [];
  for (const impl of impls) {
    let n = 0;
    for (const causal of [false, true]) {
      const cfg = { ...SIZES.S, causal };
      const bytes = pytorchSafetensors(randomWeights(cfg.dModel, WEIGHT_SEED), cfg.dModel);
      const x = randomInput(cfg.T, cfg.dModel, INPUT_SEED);
      const ours = new OurAttention(bytes, cfg);
      const m = impl === 'ours' ? ours : await build(impl, weightsFromOurs(ours), bytes, cfg);
      const t0 = performance.now();
      for (let i = 0; ; ++i) {
        const t = performance.now() - t0;
        if ((t >= PREWARM_MS && i >= PREWARM_CALLS) || t >= PREWARM_MAX_MS) break;
        await m.forward(x, cfg.T);
        ++n;
      }
      if (m !== ours && m.delete) await m.delete();
      ours.delete();
    }
    calls.push(`${impl} ${n} calls`);
  }
  return calls.join(', ');
}

// The check before any timing: at S, both masks, y and the attention weights of tfjs (both ways)
// and plain JS against our module. onnxruntime runs its graphs' own weights: it is checked in each
// cell, y and the attention weights, on the first call.
async function checkS(impls) {
  const cfgBase = SIZES.S;
  const worst = {};
  for (const causal of [false, true]) {
    const cfg = { ...cfgBase, causal };
    const bytes = pytorchSafetensors(randomWeights(cfg.dModel, 11), cfg.dModel);
    const x = randomInput(cfg.T, cfg.dModel, 12);
    const ours = new OurAttention(bytes, cfg);
    const w = weightsFromOurs(ours);
    const ref = ours.forward(x, cfg.T, true);
    ours.delete();
    for (const impl of impls.filter((i) => i !== 'ours' && i !== 'ort')) {
      const m = await build(impl, w, bytes, cfg);
      const out = m.forward(x, cfg.T, true);
      if (m.delete) m.delete();
      const err = Math.max(maxRelError(out.y, ref.y), maxRelError(out.weights, ref.weights));
      worst[impl] = Math.max(worst[impl] ?? 0, err);
    }
  }
  const parts = Object.entries(worst).map(([k, v]) => `${k} ${v.toExponential(1)}`);
  const bad = Object.entries(worst).filter(([, v]) => !(v <= TOLERANCE));
  if (bad.length) {
    console.log(`check FAILED at S (y and attention weights vs ours, max |Δ|/max|ours|, tolerance ${TOLERANCE}): ${parts.join(', ')}`);
    process.exit(1);
  }
  console.log(`check ok  S, causal and not: y and attention weights vs ours, max |Δ|/max|ours| ${parts.join(', ') || '(nothing to compare)'} (≤ ${TOLERANCE})`);
}

async function main() {
  ({ tensorsSafetensors } = await import('../web/src/export/safetensors.mjs'));
  const opts = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const wanted = new Set(opts.sizes.flatMap((s) => implsFor(s, opts)));
  await loadOurs();
  if (wanted.has('tfjs') || wanted.has('tfjs-tB')) await loadTfjs();
  let ortSkipped = '';
  if (wanted.has('ort')) {
    try {
      const why = torchMissing();
      if (why) throw new Error(why);
      loadOrt();
    } catch (e) {
      if (opts.impls) throw e; // asked for by name: no quiet fallback
      ortSkipped = e.message;
      wanted.delete('ort');
      opts.skipOrt = true;
    }
  }

  for (const line of describeMachine(ROOT)) console.log(line);
  if (wanted.has('tfjs') || wanted.has('tfjs-tB')) {
    const t = await tfjsInfo();
    console.log(`tfjs      @tensorflow/tfjs-core ${t.version} + tfjs-backend-wasm (${t.backend}, ${t.binary}, ${t.threads} thread) from node_modules`);
  }
  if (wanted.has('ort')) console.log(`ort       ${ortInfo()}; graphs from torch.onnx (opset 14) in build/onnx/`);
  if (ortSkipped) console.log(`ort       skipped: ${ortSkipped}`);
  console.log(`workload  one MHA forward, float32, batch 1, single thread, bias on every projection, weights (1, heads, T, T) kept; GFLOP = (8·T·d² + 4·T²·d)/1e9, also for causal`);
  if (!opts.cold) {
    const ms = await prewarm([...wanted]);
    console.log(`pre-warm  untimed, S causal and not, ≥ ${PREWARM_MS} ms and ≥ ${PREWARM_CALLS} calls each: ${ms}; so V8 has tiered the wasm (Liftoff → TurboFan) and the JS up; --cold skips it`);
  }
  console.log(`runs      median of ${opts.runs} after ${opts.warmup} warm-up runs${opts.quick ? ' (--quick)' : ''}; 1st = the first (cold) call of the cell; ×ours = median / ours' median`);
  await checkS([...wanted]);
  console.log('');

  const rows = [];
  const notes = [];
  let failed = false;
  for (const size of opts.sizes) {
    const impls = implsFor(size, opts);
    for (const causal of [false, true]) {
      const cfg = { ...SIZES[size], causal };
      const flops = gflop(cfg);
      const bytes = pytorchSafetensors(randomWeights(cfg.dModel, WEIGHT_SEED), cfg.dModel);
      const x = randomInput(cfg.T, cfg.dModel, INPUT_SEED);
      const ours = new OurAttention(bytes, cfg);
      const w = weightsFromOurs(ours);
      let ref = null;
      let oursMedian = NaN;
      for (const impl of impls) {
        const m = impl === 'ours' ? ours : await build(impl, w, bytes, cfg);
        // Only at L (plain JS; tfjs-tB when asked for): fewer runs when one takes seconds.
        const slow = size !== 'L' ? null : {
          ms: SLOW_RUN_MS,
          decide: (ms, p) => {
            if (ms <= SLOW_RUN_MS) return p;
            const runs = Math.max(SLOW_MIN_RUNS, Math.min(p.runs, Math.floor(SLOW_CELL_BUDGET_MS / ms) - 1));
            return { warmup: 1, runs, reduced: runs < p.runs || p.warmup > 1, runMs: ms };
          },
        };
        const r = await timeCalls(() => m.forward(x, cfg.T, impl === 'ort'), { warmup: opts.warmup, runs: opts.runs }, slow);
        const s = summary(r.times);
        if (impl === 'ours') {
          ref = ours.forward(x, cfg.T, true);
          oursMedian = s.median;
        }
        let err = '';
        if (impl !== 'ours' && ref) {
          let e = maxRelError(r.first.y, ref.y);
          if (impl === 'ort') e = Math.max(e, maxRelError(r.first.weights, ref.weights)); // its own graph's weights
          err = e.toExponential(1);
          if (!(e <= TOLERANCE)) {
            err += ' MISMATCH';
            failed = true;
          }
        }
        let heap = '';
        if (impl === 'ours') heap = MiB(await freshHeapBytes(bytes, cfg, x));
        else if (impl.startsWith('tfjs')) heap = `${MiB(tfjsHeapBytes())}†`;
        const mark = r.plan.reduced ? '*' : '';
        if (r.plan.reduced) notes.push(`* ${impl} at ${size}${causal ? ' causal' : ''}: a run took ${(r.plan.runMs / 1000).toFixed(1)} s (> ${SLOW_RUN_MS / 1000} s), so ${r.plan.warmup} warm-up + ${r.plan.runs} runs instead of ${opts.warmup} + ${opts.runs}`);
        rows.push({
          group: `${size}${causal}`,
          size: size,
          T: cfg.T,
          d: cfg.dModel,
          h: cfg.heads,
          mask: causal ? 'causal' : 'none',
          impl,
          runs: `${r.plan.warmup}+${r.plan.runs}${mark}`,
          first: fmtMs(r.firstMs),
          median: fmtMs(s.median),
          min: fmtMs(s.min),
          max: fmtMs(s.max),
          gflops: (flops / (s.median / 1000)).toFixed(2),
          ratio: impl === 'ours' ? '1' : fmtRatio(s.median / oursMedian),
          oursOver: impl === 'ort' ? fmtRatio(oursMedian / s.median) : '',
          err,
          heap,
        });
        if (impl !== 'ours' && m.delete) await m.delete();
      }
      ours.delete();
    }
  }

  console.log(table(rows, [
    { key: 'size', title: 'size', left: true },
    { key: 'T', title: 'T' },
    { key: 'd', title: 'd' },
    { key: 'h', title: 'heads' },
    { key: 'mask', title: 'mask', left: true },
    { key: 'impl', title: 'impl', left: true },
    { key: 'runs', title: 'runs' },
    { key: 'first', title: '1st ms' },
    { key: 'median', title: 'median ms' },
    { key: 'min', title: 'min ms' },
    { key: 'max', title: 'max ms' },
    { key: 'gflops', title: 'GFLOP/s' },
    { key: 'ratio', title: '×ours' },
    { key: 'oursOver', title: 'ours÷ort' },
    { key: 'heap', title: 'heap MiB' },
    { key: 'err', title: 'y err', left: true },
  ]));
  console.log('');
  for (const n of notes) console.log(n);
  console.log(`heap MiB  ours: WebAssembly memory (${heapMethod()}) of a fresh module instance after loading the weights and one run at that size (memory only grows: the peak);`);
  if (wanted.has('tfjs') || wanted.has('tfjs-tB')) console.log("          † tfjs: the backend's whole wasm heap at the end of the cell (one instance for the whole run: the peak so far).");
  console.log(`          The instance of ours that ran every cell holds ${MiB(oursHeapBytes())} MiB at the end.`);
  console.log(`y err     max |y − y_ours| / max |y_ours| of the cell's first call (tolerance ${TOLERANCE}); for ort also the attention weights'.`);
  if (wanted.has('ort')) console.log('ours÷ort  ours\' median / onnxruntime-web\'s: the issue asks for ≤ 0.25 at S and ≤ 0.7 at M and L.');
  const skipped = [];
  for (const size of opts.sizes) {
    const off = IMPLS.filter((i) => !implsFor(size, opts).includes(i) && !(i === 'ort' && opts.skipOrt));
    if (off.length) skipped.push(`${off.join(', ')} at ${size}`);
  }
  if (skipped.length) {
    const why = opts.impls ? '--impls' : `${opts.quick ? '--quick; ' : ''}tfjs-tB takes 2+ s a run at L: --impls ours,tfjs-tB --sizes L adds it`;
    console.log(`skipped   ${skipped.join('; ')} (${why})`);
  }
  console.log(`done      in ${((performance.now() - started) / 1000).toFixed(0)} s · load avg now ${loadAverage()} · peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
  if (failed) {
    console.log('bench: an implementation disagrees with ours (MISMATCH above)');
    process.exitCode = 1;
  }
}

main().catch((e) => {
  console.error(`bench: ${(e && e.stack) || e}`);
  process.exit(1);
});
