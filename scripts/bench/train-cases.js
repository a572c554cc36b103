// The training benchmark's like-for-like cases: every engine trains the same model (the shipped
// recipe with the repeat length fixed at L, so T = 2L + 1 and the position table has T rows) from the
// same initial weights (our trainer's, for seed 1), on batches of the recipe's size of that one shape,
// with its Adam. Each call runs `warmup` + `steps` steps from the initial weights and returns
// {rate: timed steps/s, loss: the last step's loss}; how the steps are timed is in each runner.
//   native   build/<dir>/mha train --min-length L --max-length L (the CLI times all its steps)
//   wasm     mha.Trainer in this process (web/mha.js)
//   tfjs     TfjsTrainer (tfjs-train.js) on batches drawn here before timing
//   pytorch  cpp/bench/train_pytorch.py, one process for all L of a round
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { ROOT } = require('./ours.js');
const { rng } = require('./weights.js'); // the peers' batches need only the task's shape, not our stream's tokens

// The shipped recipe, as the core declares it (cpp/core/catalog.cpp, written by the bundle's build).
const { recipes } = require('../../web/build/catalog.json');
const { dModel, heads, layers, vocabSize, batch, lr, initStd, beta1, beta2, eps } = recipes.induction;
const RECIPE = { dModel, heads, layers, vocabSize, batch, lr, initStd };
const ADAM = { lr, beta1, beta2, eps };
const SEED = 1;
const PYTHON = '/usr/bin/python3';

function recipeAt(L) {
  return { ...RECIPE, seed: SEED, minLength: L, maxLength: L };
}

// B sequences [0, s1 … sL, s1 … sL], s uniform in 1 … vocab−1, and their next-token targets (−1 last).
function inductionBatch(next, B, L, vocab) {
  const T = 2 * L + 1;
  const ids = new Int32Array(B * T);
  const targets = new Int32Array(B * T);
  for (let b = 0; b < B; ++b) {
    const row = b * T;
    for (let i = 1; i <= L; ++i) ids[row + i] = ids[row + i + L] = 1 + Math.floor(next() * (vocab - 1));
    for (let t = 0; t < T; ++t) targets[row + t] = t + 1 < T ? ids[row + t + 1] : -1;
  }
  return { ids, targets, B, T };
}

// Our trainer's initial weights at L (a model file) and a check batch, with our loss on it.
function makeCase(mha, L) {
  const trainer = new mha.Trainer(recipeAt(L));
  try {
    const weights = trainer.modelFile();
    const check = inductionBatch(rng(1000 + L), RECIPE.batch, L, RECIPE.vocabSize);
    let total = 0;
    let counted = 0;
    for (let b = 0; b < check.B; ++b) {
      const trace = trainer.runIds(Array.from(check.ids.subarray(b * check.T, (b + 1) * check.T)));
      const probs = trace.data('probs'); // (1, T, vocab)
      trace.delete();
      for (let t = 0; t < check.T; ++t) {
        const target = check.targets[b * check.T + t];
        if (target >= 0) total -= Math.log(probs[t * RECIPE.vocabSize + target]), ++counted;
      }
    }
    return { L, weights, check, oursLoss: total / counted };
  } finally {
    trainer.delete();
  }
}

// `mha train` with the recipe and `args` (seed, steps, …); its output. The model file is thrown away.
function mhaTrain(binary, args) {
  const out = path.join(os.tmpdir(), `mha-bench-train-${process.pid}.safetensors`);
  try {
    return execFileSync(binary, ['train', '--layers', '2', '--heads', '4', '--d-model', '64', '--vocab', '64',
      '--batch', '16', '--lr', '0.003', '--init-std', '0.1', '--eval-sequences', '1', ...args, '--out', out], { encoding: 'utf8' });
  } finally {
    for (const f of [out, out.replace(/\.safetensors$/, '.loss.csv')]) fs.rmSync(f, { force: true });
  }
}

function native(binary, L, warmup, steps) {
  const text = mhaTrain(binary, ['--seed', String(SEED), '--min-length', String(L), '--max-length', String(L),
    '--steps', String(warmup + steps)]);
  const m = /trained \d+ steps in [\d.]+ s \(([\d.]+) steps\/s\), final loss ([\d.]+)/.exec(text);
  return { rate: Number(m[1]), loss: Number(m[2]) };
}

function wasm(mha, L, warmup, steps) {
  const trainer = new mha.Trainer(recipeAt(L));
  try {
    trainer.step(warmup);
    const t0 = performance.now();
    const losses = trainer.step(steps);
    return { rate: steps / ((performance.now() - t0) / 1000), loss: losses[steps - 1] };
  } finally {
    trainer.delete();
  }
}

// c: a makeCase() with its weights parsed (c.tensors). Also returns checkLoss: the loss on c.check
// before any step.
async function tfjs(loadTfjsTrainer, c, warmup, steps) {
  const trainer = await loadTfjsTrainer(c.tensors, { heads: RECIPE.heads, ...ADAM });
  try {
    const checkLoss = trainer.loss(c.check.ids, c.check.targets, c.check.B, c.check.T);
    const next = rng(c.L);
    const batches = Array.from({ length: warmup + steps }, () => inductionBatch(next, RECIPE.batch, c.L, RECIPE.vocabSize));
    const step = (b) => trainer.step(b.ids, b.targets, b.B, b.T);
    batches.slice(0, warmup).forEach(step);
    const t0 = performance.now();
    let loss = NaN;
    for (const b of batches.slice(warmup)) loss = step(b);
    return { rate: steps / ((performance.now() - t0) / 1000), loss, checkLoss };
  } finally {
    trainer.delete();
  }
}

// cases: [{L, weights (bytes), check, steps}] -> {torch, blas, byL: {L: {rate, loss, cpu, checkLoss}}}.
// Throws with the script's own message (e.g. no torch) when it fails.
function pytorch(cases, warmup) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mha-bench-train-'));
  try {
    const spec = { heads: RECIPE.heads, batch: RECIPE.batch, ...ADAM, warmup, cases: [] };
    for (const c of cases) {
      const weights = path.join(dir, `L${c.L}.safetensors`);
      fs.writeFileSync(weights, c.weights);
      spec.cases.push({ L: c.L, steps: c.steps, weights, check: { ids: Array.from(c.check.ids), targets: Array.from(c.check.targets) } });
    }
    fs.writeFileSync(path.join(dir, 'spec.json'), JSON.stringify(spec));
    let text;
    try {
      text = execFileSync(PYTHON, [path.join(ROOT, 'cpp', 'bench', 'train_pytorch.py'), path.join(dir, 'spec.json')],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      throw new Error(String(e.stderr || e.message).trim().split('\n').pop());
    }
    const out = JSON.parse(text);
    const byL = {};
    for (const c of out.cases) byL[c.L] = { rate: c.rate, loss: c.losses[c.losses.length - 1], cpu: c.cpu, checkLoss: c.check_loss };
    return { torch: out.torch, blas: out.blas, byL };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { RECIPE, ADAM, SEED, mhaTrain, makeCase, native, wasm, tfjs, pytorch };
