#!/usr/bin/env node
// A/B: this checkout's WebAssembly core against another checkout's, interleaved in one Node process,
// so a refactor can show it costs nothing (or what it costs) even on a machine whose speed wanders.
//   node scripts/bench-ab.js /path/to/other/checkout [--rounds 7] [--only TEXT]
// The other checkout needs its own build (web/build/mha-core.js beside its web/mha.js). Times, per
// round and per side: one attention layer at S, M and L (runInput into one trace), GPT-2 small's
// forward at T 128 (random weights), a decoding step of npm run bench:generate's model (when
// build/onnx/gpt2-small.safetensors is there: run npm run bench:generate once; prompt 32, 64 new,
// greedy, the prompt's run every 64 steps included) and 20 training steps of the shipped recipe.
// Prints medians and the ratio this ÷ other (< 1: this is faster), with the load average. Separate
// runs of npm run bench:generate moved a decoding step by 3–4 ms within minutes on this machine;
// interleaved here they move together, but the module loaded first (this checkout's) read 3–5 %
// slower on a decoding step even when both sides were the same build, so run it from each side and
// take both ratios. --only keeps the workloads whose name contains TEXT
// (--only decode: the decoding step alone, so more rounds fit in the same minutes).
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { SIZES } = require('./bench/sizes.js');
const { benchIds } = require('./bench/gpt2.js');

const args = process.argv.slice(2);
const other = args[0];
if (!other) {
  console.error('usage: node scripts/bench-ab.js OTHER_CHECKOUT [--rounds N] [--only TEXT]');
  process.exit(2);
}
const rounds = args.includes('--rounds') ? Number(args[args.indexOf('--rounds') + 1]) : 7;
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : '';

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

// ms per call of fn, over enough calls to take ~target ms.
function time(fn, target = 300) {
  fn();
  let n = 1;
  for (;;) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (ms > target || n > 1e6) return ms / n;
    n *= 2;
  }
}

// The workloads, on one module.
function workloads(mha) {
  const out = {};
  for (const [name, { T, dModel, heads }] of Object.entries(SIZES)) {
    const model = new mha.Model({ dModel, heads, kvHeads: heads, seed: 1 });
    const x = new Float32Array(T * dModel).map((_, i) => Math.sin(i));
    const trace = model.runInput(x, T);
    out[`layer ${name}`] = () => model.runInput(x, T, { into: trace });
  }
  const gpt2 = new mha.Model({ model: 'gpt2', layers: 12, dModel: 768, heads: 12, vocabSize: 50257, maxPositions: 1024, seed: 1 });
  const ids = Array.from({ length: 128 }, (_, t) => (t * 7919 + 13) % 50257);
  out['gpt2-small T128'] = () => gpt2.runIds(ids).delete();
  const file = path.join(__dirname, '..', 'build', 'onnx', 'gpt2-small.safetensors');
  if (fs.existsSync(file)) {
    const model = new mha.Model({ model: 'gpt2', layers: 1, dModel: 64, heads: 4, vocabSize: 64, maxPositions: 16 });
    model.loadModel(fs.readFileSync(file), { layout: 'gpt2', heads: 12 });
    const prompt = benchIds(32, model.config.vocabSize);
    let generator = null;
    out['gpt2-small decode step'] = () => {
      if (!generator || generator.done) {
        if (generator) generator.delete();
        generator = model.generator(prompt, { tokens: 64 });
      }
      generator.step();
    };
  }
  const trainer = new mha.Trainer({ seed: 1, minLength: 17, maxLength: 17 });
  out['train 20 steps L17'] = () => trainer.step(20);
  return out;
}

async function main() {
  const here = await require(path.join(__dirname, '..', 'web', 'mha.js'))();
  const there = await require(path.resolve(other, 'web', 'mha.js'))();
  const sides = { this: workloads(here), other: workloads(there) };
  const results = {};
  const load = os.loadavg()[0].toFixed(1);
  for (let r = 0; r < rounds; r++) {
    for (const name of Object.keys(sides.this).filter((n) => n.includes(only))) {
      const order = r % 2 ? ['other', 'this'] : ['this', 'other'];
      for (const side of order) {
        const target = name.startsWith('layer S') ? 200 : 600;
        ((results[name] = results[name] || { this: [], other: [] })[side]).push(time(sides[side][name], target));
      }
    }
  }
  console.log(`A/B, WebAssembly in Node ${process.version}: this checkout against ${other}; ${rounds} interleaved rounds; load average ${load} at the start, ${os.loadavg()[0].toFixed(1)} at the end.`);
  console.log('workload               this (ms)   other (ms)   this ÷ other');
  for (const [name, r] of Object.entries(results)) {
    const a = median(r.this), b = median(r.other);
    console.log(`${name.padEnd(22)} ${a.toFixed(3).padStart(10)} ${b.toFixed(3).padStart(12)} ${(a / b).toFixed(3).padStart(14)}`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
