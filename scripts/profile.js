#!/usr/bin/env node
// npm run profile -- [S|M|L|train|tang|decode] [--seconds N]: where a workload's time goes in WebAssembly.
// Builds the module with function names (CMake preset wasm-profile, written to
// build/wasm-profile/web/build so the page's web/build is left alone), runs the workload in this
// Node process under V8's sampling profiler (node:inspector) and prints the functions with the most
// self time; the profile (for decode, its first generation's) is written beside it as a .cpuprofile
// (Chrome DevTools opens it).
//   S, M, L  one single-layer forward at npm run bench's sizes, as it times them (a refilled trace,
//            y copied into one array)
//   train    steps of the shipped model's recipe (mha.Trainer)
//   tang     steps of the page's Tang recipe (catalog.recipes.tang) on the corpus slice the page trains on
//   decode   decoding steps of npm run bench:generate's GPT-2-small-shaped model (build/onnx/gpt2-small.safetensors,
//            run npm run bench:generate once to export it), one new token with the KV cache a call; each
//            generation's prompt runs with the profiler stopped, so only steps at past 32 … 95 are counted
'use strict';

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const inspector = require('node:inspector');
const path = require('node:path');
const { SIZES } = require('./bench/sizes.js');
const { benchIds } = require('./bench/gpt2.js');

const ROOT = path.join(__dirname, '..');
const OUT = path.join(ROOT, 'build', 'wasm-profile');
const TOP = 25;

function parseArgs(argv) {
  const o = { workload: 'S', seconds: 3 };
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '--seconds') o.seconds = Number(argv[++i]);
    else if (SIZES[argv[i].toUpperCase()] || ['train', 'tang', 'decode'].includes(argv[i])) o.workload = SIZES[argv[i].toUpperCase()] ? argv[i].toUpperCase() : argv[i];
    else {
      console.log('usage: node scripts/profile.js [S|M|L|train|tang|decode] [--seconds N]');
      process.exit(argv[i] === '--help' || argv[i] === '-h' ? 0 : 2);
    }
  }
  if (!(o.seconds > 0)) process.exit(2);
  return o;
}

function build() {
  const env = { ...process.env, NODE_PATH: '/usr/share/nodejs' }; // Emscripten 3.1.6's optimizer finds acorn there
  execFileSync('cmake', ['--preset', 'wasm-profile'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('cmake', ['--build', '--preset', 'wasm-profile', '-j', '2'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  fs.copyFileSync(path.join(ROOT, 'web', 'mha.js'), path.join(OUT, 'web', 'mha.js')); // it loads ./build/mha-core.js
}

// The workload: run() once per call; a workload with a prepare() needs it (unprofiled) whenever
// ready() is false.
function workload(mha, name, trainerOptions) {
  if (name === 'train') {
    const trainer = new mha.Trainer({ seed: 1 });
    return { run: () => trainer.step(10) };
  }
  if (name === 'tang') {
    const corpus = (file) => fs.readFileSync(path.join(ROOT, 'models', 'corpus', file), 'utf8');
    const text = { vocabulary: corpus('tang.vocab.json'), train: corpus('tang.slice.txt'), heldout: corpus('tang.heldout.txt') };
    const trainer = new mha.Trainer(trainerOptions(mha.catalog, mha.catalog.recipes.tang), text);
    return { run: () => trainer.step(5) };
  }
  if (name === 'decode') {
    const model = new mha.Model({ model: 'gpt2', layers: 1, dModel: 64, heads: 4, vocabSize: 64, maxPositions: 16 });
    model.loadModel(fs.readFileSync(path.join(ROOT, 'build', 'onnx', 'gpt2-small.safetensors')), { layout: 'gpt2', heads: 12 });
    const prompt = benchIds(32, model.config.vocabSize);
    let generator = null;
    return {
      ready: () => generator && !generator.done,
      prepare: () => {
        if (generator) generator.delete();
        generator = model.generator(prompt, { tokens: 64 });
        generator.step(); // the prompt and the first id: a prefill, not a step
      },
      run: () => generator.step(),
    };
  }
  const { T, dModel, heads } = SIZES[name];
  const model = new mha.Model({ dModel, heads, kvHeads: heads, causal: false, seed: 1 });
  const x = new Float32Array(T * dModel).map((_, i) => Math.sin(i));
  const y = new Float32Array(T * dModel);
  const trace = model.runInput(x, T);
  return { run: () => model.runInput(x, T, { into: trace }).data('y', y) };
}

function post(session, method, params = {}) {
  return new Promise((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));
}

// Self time per function name (ms), added into `ms`.
function addSelfTimes(profile, ms) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  profile.samples.forEach((id, i) => {
    const n = byId.get(id);
    const name = n.callFrame.functionName || `(${n.callFrame.url.split('/').pop() || 'anonymous'})`;
    ms.set(name, (ms.get(name) || 0) + (profile.timeDeltas[i] || 0));
  });
}

// In percent of all samples, largest first.
function shares(ms) {
  const total = [...ms.values()].reduce((a, b) => a + b, 0);
  return [...ms].sort((a, b) => b[1] - a[1]).map(([name, t]) => ({ name, share: (100 * t) / total }));
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  build();
  const mha = await require(path.join(OUT, 'web', 'mha.js'))();
  const { trainerOptions } = await import(path.join(ROOT, 'web', 'src', 'trainerOptions.js'));
  const w = workload(mha, opts.workload, trainerOptions);
  const ready = () => !w.ready || w.ready();
  const warmUntil = Date.now() + 500; // past V8's Liftoff baseline code: TurboFan's is profiled
  while (Date.now() < warmUntil) {
    if (!ready()) w.prepare();
    w.run();
  }

  const session = new inspector.Session();
  session.connect();
  await post(session, 'Profiler.enable');
  await post(session, 'Profiler.setSamplingInterval', { interval: 100 });
  const ms = new Map();
  let calls = 0;
  let seconds = 0;
  let profile = null; // the first segment's, written out
  while (seconds < opts.seconds) {
    if (!ready()) w.prepare();
    await post(session, 'Profiler.start');
    const t0 = process.hrtime.bigint();
    const end = Date.now() + (opts.seconds - seconds) * 1000;
    while (Date.now() < end && ready()) w.run(), ++calls;
    seconds += Number(process.hrtime.bigint() - t0) / 1e9;
    const segment = (await post(session, 'Profiler.stop')).profile;
    addSelfTimes(segment, ms);
    profile = profile || segment;
  }
  session.disconnect();

  const file = path.join(OUT, `${opts.workload}.cpuprofile`);
  fs.writeFileSync(file, JSON.stringify(profile));
  console.log(`workload  ${opts.workload}: ${calls} calls in ${seconds.toFixed(1)} s, ${((seconds / calls) * 1e3).toPrecision(3)} ms a call (profiled, so a little slower than npm run bench)`);
  console.log(`profile   ${path.relative(ROOT, file)} (open in Chrome DevTools, Performance panel)`);
  console.log('self %  function');
  for (const { name, share } of shares(ms).slice(0, TOP)) console.log(`${share.toFixed(1).padStart(6)}  ${name.length > 110 ? `${name.slice(0, 107)}…` : name}`);
}

main().catch((e) => {
  console.error(`profile: ${(e && e.message) || e}`);
  process.exit(1);
});
