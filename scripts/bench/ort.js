// onnxruntime-web (the wasm backend: one thread, SIMD, no proxy worker) from bench/node_modules, and the
// ONNX graphs it runs, exported from PyTorch by cpp/bench/export_onnx.py into build/onnx/ when missing.
// A benchmark-only peer: bench/package.json, installed by `bash scripts/setup.sh bench` (npm ci --prefix
// bench), so npm test never downloads it.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..', '..');
const ONNX_DIR = path.join(ROOT, 'build', 'onnx');
const EXPORTER = path.join(ROOT, 'cpp', 'bench', 'export_onnx.py');
const PYTHON = '/usr/bin/python3';

let ort = null;

function loadOrt() {
  if (ort) return ort;
  const dir = path.join(ROOT, 'bench', 'node_modules', 'onnxruntime-web');
  if (!fs.existsSync(dir)) throw new Error('onnxruntime-web is missing: bash scripts/setup.sh bench (npm ci --prefix bench)');
  ort = require(dir);
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true; // 1.30 ships SIMD builds only; kept for older versions
  ort.env.wasm.proxy = false;
  return ort;
}

function ortInfo() {
  const o = loadOrt();
  const version = JSON.parse(fs.readFileSync(path.join(ROOT, 'bench', 'node_modules', 'onnxruntime-web', 'package.json'), 'utf8')).version;
  return `onnxruntime-web ${version} (wasm backend, ${o.env.wasm.numThreads} thread, SIMD, proxy ${o.env.wasm.proxy ? 'on' : 'off'}, graph optimisation 'all') from bench/node_modules`;
}

// Can the exporter run? The message to print when it cannot.
function torchMissing() {
  try {
    execFileSync(PYTHON, ['-c', 'import torch'], { stdio: 'ignore' });
    return '';
  } catch {
    return `the ONNX graphs are exported with PyTorch, and ${PYTHON} cannot import torch: sudo apt-get install python3-torch`;
  }
}

// Runs the exporter unless `outputs` all exist; returns the first output's path.
function exportOnce(outputs, args, say) {
  if (outputs.every((f) => fs.existsSync(f))) return outputs[0];
  const why = torchMissing();
  if (why) throw new Error(why);
  fs.mkdirSync(ONNX_DIR, { recursive: true });
  say(`export    ${path.relative(ROOT, outputs[0])} with torch.onnx (${PYTHON} ${path.relative(ROOT, EXPORTER)} ${args[0]}) …`);
  execFileSync(PYTHON, [EXPORTER, ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
  return outputs[0];
}

// The single layer: build/onnx/mha-<key>.onnx holds the weights of `bytes` (PyTorch-layout safetensors).
// `key` must name the weights (their seed): a cached graph is reused for the same key.
function mhaGraph(key, bytes, { T, heads, causal }, say) {
  const base = path.join(ONNX_DIR, `mha-${key}-T${T}-h${heads}${causal ? '-causal' : ''}`);
  const weights = `${base}.safetensors`;
  if (!fs.existsSync(`${base}.onnx`)) {
    fs.mkdirSync(ONNX_DIR, { recursive: true });
    fs.writeFileSync(weights, bytes);
  }
  return exportOnce([`${base}.onnx`], ['mha', '--weights', weights, '--heads', String(heads), '--T', String(T), ...(causal ? ['--causal'] : []), '--out', `${base}.onnx`], say);
}

// The GPT-2-small-shaped model: {onnx, safetensors} paths.
function gpt2Graph(say) {
  const onnx = path.join(ONNX_DIR, 'gpt2-small.onnx');
  const safetensors = path.join(ONNX_DIR, 'gpt2-small.safetensors');
  exportOnce([onnx, safetensors], ['gpt2', '--out-dir', ONNX_DIR], say);
  return { onnx, safetensors };
}

// The same model's weights as a graph with past key/values (npm run bench:generate): the path of
// build/onnx/gpt2-small-past.onnx, exported from `safetensors` when missing.
function gpt2PastGraph(safetensors, say) {
  const onnx = path.join(ONNX_DIR, 'gpt2-small-past.onnx');
  return exportOnce([onnx], ['gpt2-past', '--weights', safetensors, '--out', onnx], say);
}

async function createSession(file) {
  return loadOrt().InferenceSession.create(file, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
}

// The single layer in onnxruntime-web: forward returns a Promise of {y, weights?} (ORT's run is async).
class OrtAttention {
  static async create(file, { dModel, heads }) {
    const m = new OrtAttention();
    m.session = await createSession(file);
    m.dModel = dModel;
    m.heads = heads;
    return m;
  }

  // Both outputs are fetched every call, as the module keeps the weights too.
  async forward(x, T, withWeights = false) {
    const out = await this.session.run({ x: new ort.Tensor('float32', x, [1, T, this.dModel]) });
    const r = { y: out.y.data };
    if (withWeights) r.weights = out.weights.data;
    return r;
  }

  async delete() {
    await this.session.release();
  }
}

module.exports = { loadOrt, ortInfo, torchMissing, mhaGraph, gpt2Graph, gpt2PastGraph, createSession, OrtAttention, ONNX_DIR };
