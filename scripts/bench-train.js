// npm run bench:train: training the shipped model's recipe (scripts/train.sh), ours and its peers.
//   Like for like (scripts/bench/train-cases.js): every engine trains the same model from the same
//   initial weights on batches of one shape, the repeat length L fixed at 4, 17 (the task's mean)
//   and 30; steps per second, medians of interleaved rounds. Ours in WebAssembly (web/mha.js in
//   Node) against tfjs-backend-wasm (its autodiff and Adam, one thread, this process); ours natively
//   (`mha train` built three ways: SSE4.1, which gives WebAssembly's bits; AVX2 without FMA, which
//   sums in the same order, the native build where the machine runs AVX2; native-fast: -march=native without AVX-512, i.e. AVX2+FMA here) against PyTorch (autograd, torch.optim.Adam, one thread,
//   cpp/bench/train_pytorch.py).
//   The task: ours only, on the real task (L drawn per batch from 4 … 30): steps per second and the
//   phase change, the first step where the layer-1 induction score (mean over L = 4 … 30 of the
//   best head's score on fresh sequences, checked every 50 steps) passes 0.7. Medians over seeds;
//   the checks are not timed.
'use strict';

const os = require('node:os');
const path = require('node:path');
const fs = require('node:fs');
const { median } = require('./bench/stats.js');
const { table } = require('./bench/table.js');
const { cpuModel, loadAverage } = require('./bench/machine.js');
const { loadOurs, ROOT } = require('./bench/ours.js');
const cases = require('./bench/train-cases.js');
const { parseSafetensors } = require('../tests/node/safetensors.js');

const SEEDS = [1, 2, 3];
const CATALOG = require('../web/build/catalog.json');
const CHECK_EVERY = CATALOG.phaseChangeEvery; // the page's schedule of checks too (training.js)
const MAX_STEPS = CATALOG.recipes.induction.steps;
const LENGTHS = [4, 17, 30];
const STEPS = { 4: 150, 17: 60, 30: 40 }; // timed steps per round, after WARMUP
const WARMUP = 5;
const ROUNDS = 3;
const NATIVE = [
  { key: 'sse', name: 'native: ours (SSE4.1)', binary: path.join(ROOT, 'build/sse41/mha') },
  { key: 'avx2', name: 'native: ours (the native build: AVX2, no FMA, where the machine has it)', binary: path.join(ROOT, 'build/native/mha') },
  { key: 'fast', name: 'native: ours (AVX2+FMA, native-fast)', binary: path.join(ROOT, 'build/fast/mha') },
];

// ---- the task: ours only, with the phase change

function nativeTask(binary, seed) {
  const text = cases.mhaTrain(binary, ['--steps', String(MAX_STEPS), '--seed', String(seed), '--phase-every', String(CHECK_EVERY)]);
  const rate = Number(/\(([\d.]+) steps\/s\)/.exec(text)[1]);
  const phase = /step (\d+), ([\d.]+) s/.exec(text);
  return { rate, phaseStep: phase ? Number(phase[1]) : null, phaseSeconds: phase ? Number(phase[2]) : null };
}

async function wasmTask(mha, seed) {
  const trainer = new mha.Trainer({ ...cases.RECIPE, seed });
  let busy = 0;
  let phaseStep = null;
  let phaseSeconds = null;
  try {
    while (trainer.stepsDone < MAX_STEPS) {
      const t0 = process.hrtime.bigint();
      trainer.step(CHECK_EVERY);
      busy += Number(process.hrtime.bigint() - t0) / 1e9;
      if (phaseStep === null && trainer.inductionScore(1) >= mha.catalog.phaseChangeScore) {
        phaseStep = trainer.stepsDone;
        phaseSeconds = busy;
        if (trainer.stepsDone >= 1000) break; // enough steps for the rate
      }
    }
    return { rate: trainer.stepsDone / busy, phaseStep, phaseSeconds };
  } finally {
    trainer.delete();
  }
}

async function task(run) {
  const runs = [];
  for (const seed of SEEDS) runs.push(await run(seed));
  const reached = runs.filter((r) => r.phaseStep !== null);
  return {
    task: median(runs.map((r) => r.rate)).toFixed(0),
    phase: reached.length ? String(median(reached.map((r) => r.phaseStep))) : 'not reached',
    seconds: reached.length ? median(reached.map((r) => r.phaseSeconds)).toFixed(1) : '—',
    seeds: runs.map((r) => (r.phaseStep === null ? '—' : r.phaseStep)).join(' / '),
  };
}

// ---- like for like, at fixed L

// engines: {key: {run(round) -> {L: {rate, loss}}}}; rounds interleaved, the order reversed every
// other round. An engine that throws in its first round is left out, with the reason.
async function timeEngines(engines) {
  const rates = {};
  const losses = {};
  const skipped = {};
  const keys = Object.keys(engines);
  for (let r = 0; r < ROUNDS; ++r) {
    for (const key of r % 2 ? [...keys].reverse() : keys) {
      if (skipped[key]) continue;
      let byL;
      try {
        byL = await engines[key](r);
      } catch (e) {
        if (r > 0) throw e;
        skipped[key] = e.message;
        continue;
      }
      for (const L of LENGTHS) {
        ((rates[key] ??= {})[L] ??= []).push(byL[L].rate);
        if (r === 0) (losses[key] ??= {})[L] = byL[L].loss;
      }
    }
  }
  return { rates, losses, skipped };
}

async function likeForLike(mha) {
  const made = LENGTHS.map((L) => {
    const c = cases.makeCase(mha, L);
    return { ...c, tensors: parseSafetensors(Buffer.from(c.weights)).tensors, steps: STEPS[L] };
  });
  const checks = { ours: made.map((c) => c.oursLoss) };
  let tfjsTrainer = null;
  let torchInfo = null;
  const engines = {};
  for (const n of NATIVE) {
    engines[n.key] = async () => {
      if (!fs.existsSync(n.binary)) throw new Error(`${path.relative(ROOT, n.binary)} is missing (npm run bench:train builds it)`);
      const out = {};
      for (const c of made) out[c.L] = cases.native(n.binary, c.L, WARMUP, c.steps);
      return out;
    };
  }
  engines.torch = async (round) => {
    const out = cases.pytorch(made, WARMUP);
    if (round === 0) {
      torchInfo = out;
      checks.torch = made.map((c) => out.byL[c.L].checkLoss);
    }
    return out.byL;
  };
  engines.wasm = async () => {
    const out = {};
    for (const c of made) out[c.L] = cases.wasm(mha, c.L, WARMUP, c.steps);
    return out;
  };
  engines.tfjs = async (round) => {
    tfjsTrainer ??= require('./bench/tfjs-train.js').loadTfjsTrainer;
    const out = {};
    for (const c of made) out[c.L] = await cases.tfjs(tfjsTrainer, c, WARMUP, c.steps);
    if (round === 0) checks.tfjs = made.map((c) => out[c.L].checkLoss);
    return out;
  };
  const timed = await timeEngines(engines);
  return { ...timed, checks, torchInfo };
}

// ---- output

function ratios(rates, ours, peer) {
  if (!rates[ours] || !rates[peer]) return '—';
  return LENGTHS.map((L) => `${(median(rates[ours][L]) / median(rates[peer][L])).toFixed(2)}×`).join(' · ');
}

function checkLines(checks, losses) {
  const lines = [];
  const names = { ours: 'ours', tfjs: 'tfjs', torch: 'PyTorch' };
  let worst = 0;
  for (const k of Object.keys(checks)) {
    for (let i = 0; i < LENGTHS.length; ++i) worst = Math.max(worst, Math.abs(checks[k][i] - checks.ours[i]));
  }
  lines.push(`Check, same weights and batch, the loss before any step (ln 64 = ${Math.log(64).toFixed(3)}): ` +
    LENGTHS.map((L, i) => `L=${L} ` + Object.keys(checks).map((k) => `${names[k]} ${checks[k][i].toFixed(6)}`).join(', ')).join('; ') +
    `; largest difference from ours ${worst.toExponential(1)}.`);
  const after = Object.entries(losses).map(([k, byL]) => `${k} ${LENGTHS.map((L) => byL[L].toFixed(2)).join('/')}`);
  lines.push(`Loss at the last step of round 1 (L = ${LENGTHS.join('/')}; ${LENGTHS.map((L) => WARMUP + STEPS[L]).join('/')} steps, one batch each): ${after.join(', ')}.`);
  if (worst > 1e-4) throw new Error(`${lines[0]}\nthe engines do not compute the same loss: the comparison is void`);
  return lines;
}

(async () => {
  const loadAtStart = loadAverage();
  const mha = await loadOurs();
  const peers = await likeForLike(mha);
  const rows = [];
  const rate = (key, L) => (peers.rates[key] ? median(peers.rates[key][L]).toFixed(0) : '—');
  const row = (key, engine, extra = {}) => {
    if (!peers.rates[key]) return;
    const r = { engine, ...extra };
    for (const L of LENGTHS) r[`L${L}`] = rate(key, L);
    rows.push(r);
  };
  row('wasm', 'WebAssembly: ours (SIMD128, Node)', { ratio: ratios(peers.rates, 'wasm', 'tfjs'), target: '≥ 3×', group: 'w', ...(await task((s) => wasmTask(mha, s))) });
  row('tfjs', 'WebAssembly: tfjs-backend-wasm', { group: 'w' });
  for (const n of NATIVE) {
    if (peers.rates[n.key]) row(n.key, n.name, { ratio: ratios(peers.rates, n.key, 'torch'), target: '≥ 1×', group: 'n', ...(await task((s) => nativeTask(n.binary, s))) });
  }
  if (peers.torchInfo) row('torch', `native: PyTorch ${peers.torchInfo.torch.replace(/a0$/, '')}`, { group: 'n' });

  const r = mha.catalog.recipes.induction;
  console.log(`Training the induction model: ${r.model}, ${r.layers} layers, ${r.heads} heads, d_model ${r.dModel}, vocabulary ${r.vocabSize}, batch ${r.batch}, Adam lr ${r.lr}.`);
  console.log(`${cpuModel()}, ${os.cpus().length} cores, Node ${process.version}, load average ${loadAtStart} at the start, ${loadAverage()} at the end.`);
  console.log(`Steps/s at fixed L: every engine from our initial weights (seed 1), batches of 16 × (2L + 1) tokens, ${WARMUP} warm-up steps`);
  console.log(`then ${LENGTHS.map((L) => STEPS[L]).join('/')} timed (the native CLI times the warm-up too), medians of ${ROUNDS} interleaved rounds;`);
  console.log(`the task: ours on L drawn per batch from 4 … 30, seeds ${SEEDS.join(', ')}, medians; the phase change is checked every ${CHECK_EVERY} steps, untimed.`);
  if (peers.rates.tfjs) {
    const t = await require('./bench/tfjs.js').tfjsInfo();
    console.log(`tfjs: ${t.version}, ${t.backend} backend, ${t.binary}, ${t.threads} thread; its autodiff (optimizer.minimize) and tf.train.adam.`);
  }
  if (peers.torchInfo) {
    const cpu = LENGTHS.map((L) => peers.torchInfo.byL[L].cpu.toFixed(2)).join('/');
    console.log(`PyTorch: one thread (CPU time ÷ wall time ${cpu} in round 1), ${peers.torchInfo.blas}.`);
  }
  for (const [k, why] of Object.entries(peers.skipped)) console.log(`${k}: left out: ${why}`);
  for (const line of checkLines(peers.checks, peers.losses)) console.log(line);
  console.log('');
  console.log(table(rows, [
    { key: 'engine', title: 'engine', left: true },
    ...LENGTHS.map((L) => ({ key: `L${L}`, title: `L=${L}` })),
    { key: 'ratio', title: `÷ peer (L ${LENGTHS.join(' · ')})` },
    { key: 'target', title: 'target' },
    { key: 'task', title: 'task steps/s' },
    { key: 'phase', title: 'phase change (step)' },
    { key: 'seconds', title: 'time to it (s)' },
    { key: 'seeds', title: 'per seed' },
  ]));
})().catch((e) => {
  console.error(e && e.stack ? e.stack.split('\n').slice(0, 6).join('\n') : e);
  process.exit(1);
});
