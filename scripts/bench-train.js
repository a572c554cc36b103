// npm run bench:train: training the shipped model's recipe (scripts/train.sh), natively (the `mha`
// CLI) and in WebAssembly (web/mha.js in Node): steps per second, and the phase change, the first
// step where the layer-1 induction score (mean over L = 4 … 30 of the best head's score on fresh
// sequences, checked every 50 steps) passes 0.7. Medians over seeds; the checks are not timed.
'use strict';

const { execFileSync } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');
const fs = require('node:fs');
const { median } = require('./bench/stats.js');
const { table } = require('./bench/table.js');
const { cpuModel, loadAverage } = require('./bench/machine.js');
const { loadOurs, ROOT } = require('./bench/ours.js');

const SEEDS = [1, 2, 3];
const CHECK_EVERY = 50;
const MAX_STEPS = 3000;
const RECIPE = { dModel: 64, heads: 4, layers: 2, vocabSize: 64, batch: 16, lr: 0.003, initStd: 0.1 };

function native(seed) {
  const out = path.join(os.tmpdir(), `mha-bench-train-${process.pid}.safetensors`);
  const text = execFileSync(path.join(ROOT, 'build/native/mha'), ['train', '--layers', '2', '--heads', '4', '--d-model', '64',
    '--vocab', '64', '--batch', '16', '--lr', '0.003', '--init-std', '0.1', '--steps', String(MAX_STEPS), '--seed', String(seed),
    '--phase-every', String(CHECK_EVERY), '--eval-sequences', '1', '--out', out], { encoding: 'utf8' });
  for (const f of [out, out.replace(/\.safetensors$/, '.loss.csv')]) fs.rmSync(f, { force: true });
  const rate = Number(/\(([\d.]+) steps\/s\)/.exec(text)[1]);
  const phase = /step (\d+), ([\d.]+) s/.exec(text);
  return { rate, phaseStep: phase ? Number(phase[1]) : null, phaseSeconds: phase ? Number(phase[2]) : null };
}

async function wasm(mha, seed) {
  const trainer = new mha.Trainer({ ...RECIPE, seed });
  let busy = 0;
  let phaseStep = null;
  let phaseSeconds = null;
  try {
    while (trainer.stepsDone < MAX_STEPS) {
      const t0 = process.hrtime.bigint();
      trainer.step(CHECK_EVERY);
      busy += Number(process.hrtime.bigint() - t0) / 1e9;
      if (phaseStep === null && trainer.inductionScore(1) >= 0.7) {
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

(async () => {
  const mha = await loadOurs();
  const rows = [];
  for (const [name, run] of [['native (SSE4.1, mha train)', native], ['WebAssembly (SIMD128, Node)', (s) => wasm(mha, s)]]) {
    const runs = [];
    for (const seed of SEEDS) runs.push(await run(seed));
    const reached = runs.filter((r) => r.phaseStep !== null);
    rows.push({
      engine: name,
      rate: median(runs.map((r) => r.rate)).toFixed(0),
      phase: reached.length ? String(median(reached.map((r) => r.phaseStep))) : 'not reached',
      seconds: reached.length ? median(reached.map((r) => r.phaseSeconds)).toFixed(1) : '—',
      seeds: runs.map((r) => (r.phaseStep === null ? '—' : r.phaseStep)).join(' / '),
    });
  }
  console.log(`Training the induction model: attn-only, 2 layers, 4 heads, d_model 64, vocabulary 64, batch 16, AdamW lr 3e-3;`);
  console.log(`seeds ${SEEDS.join(', ')}, medians. ${cpuModel()}, Node ${process.version}, load ${loadAverage()}.\n`);
  console.log(table(rows, [
    { key: 'engine', title: 'engine', left: true },
    { key: 'rate', title: 'steps/s' },
    { key: 'phase', title: 'phase change (step)' },
    { key: 'seconds', title: 'time to it (s)' },
    { key: 'seeds', title: 'per seed' },
  ]));
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
