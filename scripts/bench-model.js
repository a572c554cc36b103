#!/usr/bin/env node
// npm run bench:model: a whole GPT-2-small-shaped model (12 pre-LN blocks, d_model 768, 12 heads,
// vocab 50257, GELU tanh, unembedding tied to wte; random weights), T 128 ids to the logits, float32,
// batch 1, one thread:
//   WebAssembly  ours (web/build/mha-core.js, Model.loadModel of build/onnx/gpt2-small.safetensors)
//                against onnxruntime-web (build/onnx/gpt2-small.onnx), in this Node process, interleaved
//                rounds, after checking that the logits agree
//   native       ours (build/fast/mha_bench, model/gpt2-small, -march=native -mno-avx512f: AVX2+FMA) against PyTorch
//                (cpp/bench/bench_pytorch.py --model, OPENBLAS_NUM_THREADS=1), alternating processes
// Both files come from cpp/bench/export_onnx.py gpt2 (needs python3-torch), run when they are missing.
//
//   node scripts/bench-model.js [--rounds N] [--warmup N] [--native-rounds N] [--no-wasm] [--no-native]
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { describeMachine, loadAverage } = require('./bench/machine.js');
const { summary, maxRelError, timeRounds, median } = require('./bench/stats.js');
const { table } = require('./bench/table.js');
const { loadOurs, ROOT } = require('./bench/ours.js');
const { loadOrt, ortInfo, torchMissing, gpt2Graph, createSession, ONNX_DIR } = require('./bench/ort.js');
const { benchIds } = require('./bench/gpt2.js');

const T = 128;
const HEADS = 12;
const TOLERANCE = 1e-4; // max |Δlogits| / max |logits|
const NATIVE_BENCH = path.join(ROOT, 'build', 'fast', 'mha_bench');

function usage(code) {
  console.log(`usage: node scripts/bench-model.js [options]
  --rounds N         timed interleaved rounds in WebAssembly (default 5)
  --warmup N         untimed rounds first (default 1)
  --native-rounds N  native rounds, each one mha_bench and one PyTorch process (default 2)
  --no-wasm          skip the WebAssembly part
  --no-native        skip the native part`);
  process.exit(code);
}

function parseArgs(argv) {
  const o = { rounds: 5, warmup: 1, nativeRounds: 2, wasm: true, native: true };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const num = () => Number(a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i]);
    if (a.startsWith('--rounds')) o.rounds = num();
    else if (a.startsWith('--warmup')) o.warmup = num();
    else if (a.startsWith('--native-rounds')) o.nativeRounds = num();
    else if (a === '--no-wasm') o.wasm = false;
    else if (a === '--no-native') o.native = false;
    else if (a === '--help' || a === '-h') usage(0);
    else {
      console.error(`bench-model: unknown argument ${a}`);
      usage(2);
    }
  }
  if (!(o.rounds >= 1 && o.warmup >= 0 && o.nativeRounds >= 1)) usage(2);
  return o;
}

const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
const row = (engine, impl, times, cpu, oursMedian, note = '') => {
  const s = summary(times);
  return {
    group: engine,
    engine,
    impl,
    runs: String(s.n),
    median: fmt(s.median),
    min: fmt(s.min),
    max: fmt(s.max),
    cpu: cpu.length ? median(cpu).toFixed(2) : '',
    ratio: oursMedian ? (oursMedian / s.median).toFixed(2) : '',
    note,
  };
};

async function wasmPart(files, opts, rows) {
  const mha = await loadOurs();
  const ort = loadOrt();
  console.log(`ort       ${ortInfo()}`);
  // A tiny model first: loadModel replaces it, and the full-size random weights are never drawn.
  const model = new mha.Model({ model: 'gpt2', layers: 1, dModel: 64, heads: 4, vocabSize: 64, maxPositions: 16 });
  model.loadModel(new Uint8Array(fs.readFileSync(files.safetensors)), { layout: 'gpt2', heads: HEADS });
  const c = model.config;
  console.log(`ours      Model.loadModel(${path.relative(ROOT, files.safetensors)}): ${c.layers} layers, d_model ${c.dModel}, ${c.heads} heads, vocab ${c.vocabSize}; heap ${(mha.memoryBytes() / 2 ** 20).toFixed(0)} MiB`);
  const session = await createSession(files.onnx);
  const ids = benchIds(T, c.vocabSize);
  const feeds = { ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, T]) };
  const runOurs = () => {
    const trace = model.runIds(ids);
    try {
      return trace.data('logits');
    } finally {
      trace.delete();
    }
  };
  const runOrt = async () => (await session.run(feeds)).logits.data;

  const err = maxRelError(await runOrt(), runOurs());
  const ok = err <= TOLERANCE;
  console.log(`check ${ok ? 'ok ' : 'FAILED'} logits (1, ${T}, ${c.vocabSize}): max |ort − ours| / max |ours| ${err.toExponential(1)} (≤ ${TOLERANCE})`);
  if (!ok) {
    console.log(`bench-model: the two disagree; remove build/onnx/gpt2-small.* to export both files again`);
    process.exit(1);
  }
  const r = await timeRounds({ ours: runOurs, ort: runOrt }, opts);
  const oursMedian = median(r.ours.times);
  rows.push(row('WebAssembly', 'ours', r.ours.times, r.ours.cpu, 0, 'logits and probs; every stage kept in the trace'));
  rows.push(row('WebAssembly', 'onnxruntime-web', r.ort.times, r.ort.cpu, oursMedian, 'logits'));
  model.delete();
  await session.release();
}

// One mha_bench process: model/gpt2-small after an untimed forward, 3 repetitions of ≥ 2 s; each
// repetition's mean time per forward.
function nativeOurs(files) {
  const out = execFileSync(NATIVE_BENCH, ['--benchmark_filter=^model/', '--benchmark_repetitions=3',
    '--benchmark_format=json'], { env: { ...process.env, MHA_BENCH_MODEL: files.safetensors }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const runs = JSON.parse(out).benchmarks.filter((b) => b.run_type === 'iteration');
  const scale = { ns: 1e-6, us: 1e-3, ms: 1, s: 1e3 };
  return runs.map((b) => ({ ms: b.real_time * scale[b.time_unit], cpu: b.cpu_time / b.real_time }));
}

// One PyTorch process: 1 warm-up and 3 timed forwards; its median and CPU/wall.
function nativeTorch(files) {
  const out = execFileSync('/usr/bin/python3', [path.join(ROOT, 'cpp', 'bench', 'bench_pytorch.py'), '--model', files.safetensors, '--runs', '3', '--warmup', '1'], { encoding: 'utf8' });
  const m = /^model ([\d.]+) ms .*CPU\/wall ([\d.]+)/m.exec(out);
  if (!m) throw new Error(`bench_pytorch.py said: ${out}`);
  return { ms: Number(m[1]), cpu: Number(m[2]), torch: out.split('\n')[0] };
}

function nativePart(files, opts, rows) {
  if (!fs.existsSync(NATIVE_BENCH)) {
    console.log(`native    skipped: ${path.relative(ROOT, NATIVE_BENCH)} is missing (cmake --preset native-fast && cmake --build --preset native-fast --target mha_bench)`);
    return;
  }
  const ours = { times: [], cpu: [] };
  const torch = { times: [], cpu: [] };
  let torchLine = '';
  for (let r = 0; r < opts.nativeRounds; ++r) {
    const order = r % 2 ? ['torch', 'ours'] : ['ours', 'torch'];
    for (const who of order) {
      if (who === 'ours') {
        for (const x of nativeOurs(files)) ours.times.push(x.ms), ours.cpu.push(x.cpu);
      } else {
        const x = nativeTorch(files);
        torch.times.push(x.ms), torch.cpu.push(x.cpu);
        torchLine = x.torch;
      }
    }
  }
  console.log(`native    ours: ${path.relative(ROOT, NATIVE_BENCH)} model/gpt2-small (3 repetitions of ≥ 2 s a process, the mean forward of each); PyTorch: ${torchLine} (median of 3 a process), OPENBLAS_NUM_THREADS=1`);
  const oursMedian = median(ours.times);
  rows.push(row('native', 'ours', ours.times, ours.cpu, 0, 'logits and probs; every stage kept'));
  rows.push(row('native', 'PyTorch', torch.times, torch.cpu, oursMedian, `logits; ${torch.times.length} = median of each process`));
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const started = performance.now();
  for (const line of describeMachine(ROOT)) console.log(line);
  console.log(`workload  GPT-2-small-shaped model, 12 layers, d_model 768, 12 heads, vocab 50257, T ${T} ids to the logits; float32, batch 1, one thread; random weights`);
  const why = torchMissing();
  if (why) {
    if (!['gpt2-small.onnx', 'gpt2-small.safetensors'].every((f) => fs.existsSync(path.join(ONNX_DIR, f)))) {
      console.error(`bench-model: ${why}`);
      process.exit(1);
    }
    if (opts.native) console.log(`native    skipped: PyTorch is the native peer, and ${why}`);
    opts.native = false;
  }
  const files = gpt2Graph(console.log);
  console.log(`runs      WebAssembly: ${opts.warmup} warm-up + ${opts.rounds} rounds, ours and ort alternating (order reversed each round); native: ${opts.nativeRounds} rounds of one process each`);
  const rows = [];
  if (opts.wasm) await wasmPart(files, opts, rows);
  if (opts.native) nativePart(files, opts, rows);
  console.log('');
  console.log(table(rows, [
    { key: 'engine', title: 'engine', left: true },
    { key: 'impl', title: 'impl', left: true },
    { key: 'runs', title: 'runs' },
    { key: 'median', title: 'median ms' },
    { key: 'min', title: 'min ms' },
    { key: 'max', title: 'max ms' },
    { key: 'cpu', title: 'CPU/wall' },
    { key: 'ratio', title: 'ours÷it' },
    { key: 'note', title: 'computes', left: true },
  ]));
  console.log('');
  console.log('ours÷it   ours\' median / its median: the issue asks for < 1 against onnxruntime-web (WebAssembly) and PyTorch (native).');
  console.log('CPU/wall  the process\'s CPU time over the wall time of a run: well under 1 means the machine was busy and the run waited for a core.');
  console.log(`done      in ${((performance.now() - started) / 1000).toFixed(0)} s · load avg now ${loadAverage()} · peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
}

main().catch((e) => {
  console.error(`bench-model: ${(e && e.stack) || e}`);
  process.exit(1);
});
