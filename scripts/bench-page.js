#!/usr/bin/env node
// npm run bench:page: how long the page takes from a control change to the recomputed, redrawn
// attend stage, in headless Chromium (Debian's /usr/bin/chromium through playwright-core).
//
// Opens web/index.html from disk, waits for window.mhaPage.ready, goes to the attend stage, and
// for the teaching sizes (d_model 512 with 8 heads at T = 5 and T = 32; d_model 64 with 4 heads at
// T = 14, and T = 17 whose text change crosses the 16 ↔ 17 line where the enlarged head stops
// printing numbers and rows get shorter) changes the seed (new weights: everything recomputed),
// the causal box and the text (its last character deleted and typed again: T − 1 and back, so the
// attend stage changes size and every measured T stays within the teaching sizes, T ≤ 32),
// 5 warm-up and 20 measured changes each. Every change starts from an idle page (requestIdleCallback) in a task
// of its own, as a user's click would, and is timed in the page with performance.now():
//   core      state.lastMs: the page's own timing of the WebAssembly run and the copy of its tensors
//   state     dispatching the change event -> the page's state holds the new result (the views
//             subscribed to the store have drawn the attend stage by then)
//   1st rAF   -> the first requestAnimationFrame callback after the state update
//   painted   -> a task posted from that callback runs, i.e. just after that frame was rendered
//             (a finer, unofficial "painted" mark)
//   2nd rAF   -> the end of the second requestAnimationFrame callback after the state changed: the
//             frame with the new picture has been produced. Quantised by the frame interval.
//   busy      state + (painted − 1st rAF): the main thread's work for the change without the wait
//             for the next frame to start (0-16.7 ms, however fast the page is): the number to
//             hold against the 16 ms budget
//   idle      -> requestIdleCallback: the page also finished drawing the hidden stages
//
//   node scripts/bench-page.js [--changes N] [--warmup N] [--url URL] [--show]
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { cpuModel, loadAverage } = require('./bench/machine.js');
const { median } = require('./bench/stats.js');
const { table } = require('./bench/table.js');

const ROOT = path.join(__dirname, '..');
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const WAIT_MS = 30_000;

// T is checked against the page's own tokenizer before measuring.
const CASES = [
  { dModel: 512, heads: 8, T: 5, text: '我是秦始皇' },
  { dModel: 512, heads: 8, T: 17, text: '天地玄黄宇宙洪荒日月盈昃辰宿列张寒' },
  { dModel: 512, heads: 8, T: 32, text: '天地玄黄宇宙洪荒日月盈昃辰宿列张寒来暑往秋收冬藏闰余成岁律吕调阳' },
  { dModel: 64, heads: 4, T: 14, text: "The animal didn't cross the street because it was too tired." },
];
const CHANGES = ['seed', 'causal', 'text'];

function parseArgs(argv) {
  const o = { changes: 20, warmup: 5, url: pathToFileURL(path.join(ROOT, 'web', 'index.html')).href, show: false };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--changes') o.changes = Number(argv[++i]);
    else if (a === '--warmup') o.warmup = Number(argv[++i]);
    else if (a === '--url') o.url = argv[++i];
    else if (a === '--show') o.show = true; // print every change's times
    else {
      console.log('usage: node scripts/bench-page.js [--changes N] [--warmup N] [--url URL] [--show]');
      process.exit(a === '--help' || a === '-h' ? 0 : 2);
    }
  }
  if (!(o.changes >= 1 && o.warmup >= 0)) {
    console.error('bench-page: --changes must be ≥ 1 and --warmup ≥ 0');
    process.exit(2);
  }
  return o;
}

function fileInfo(rel) {
  try {
    const st = fs.statSync(path.join(ROOT, rel));
    return `${rel} ${(st.size / 1024).toFixed(0)} KiB ${st.mtime.toISOString().replace(/\.\d+Z$/, 'Z')}`;
  } catch {
    return `${rel} missing`;
  }
}

// ---------- code that runs in the page ----------

// Waits for window.mhaPage (the page's test/automation hook) and its ready promise.
async function pageReady(page) {
  try {
    await page.waitForFunction(() => window.mhaPage && window.mhaPage.ready, null, { timeout: WAIT_MS });
  } catch {
    const hints = await page.evaluate(() => Object.keys(window).filter((k) => /mha|page|app|store/i.test(k))).catch(() => []);
    throw new Error(`window.mhaPage did not appear within ${WAIT_MS / 1000} s (globals that look related: ${hints.join(', ') || 'none'})`);
  }
  await page.evaluate(async () => {
    await window.mhaPage.ready;
  });
}

// Installs window.__mhaBench.control(id): the page's controls sit in the document or, since the
// page became one <mha-demo>, in that element's shadow root.
function installHelpers() {
  window.__mhaBench = {
    control(id) {
      const roots = [document];
      const demo = window.mhaPage && window.mhaPage.demo;
      if (demo && demo.shadowRoot) roots.push(demo.shadowRoot);
      for (const el of document.querySelectorAll('*')) if (el.shadowRoot && !roots.includes(el.shadowRoot)) roots.push(el.shadowRoot);
      for (const r of roots) {
        const found = r.querySelector(`#${id}`);
        if (found) return found;
      }
      return null;
    },
  };
}

// Sets the controls (as a user would: value + change event) for one case and waits until the page
// shows a good result for exactly that configuration.
async function configure(page, c) {
  const result = await page.evaluate(async (c) => {
    const P = window.mhaPage;
    const set = (id, value) => {
      const el = window.__mhaBench.control(id);
      if (!el) throw new Error(`no control #${id}`);
      if (el.type === 'checkbox') el.checked = value;
      else el.value = String(value);
      el.dispatchEvent(new Event('input', { bubbles: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
    };
    const settle = async () => {
      const t0 = performance.now();
      while (P.state.status !== 'idle' && performance.now() - t0 < 30000) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => requestIdleCallback(r, { timeout: 1000 }));
    };
    // kv_heads 1 divides any heads; heads before d_model so every step is a valid configuration.
    set('kv-heads', 1);
    await settle();
    set('heads', c.heads);
    await settle();
    set('d-model', c.dModel);
    await settle();
    set('kv-heads', c.heads);
    await settle();
    set('causal', false);
    await settle();
    set('seed', 1);
    await settle();
    set('text', c.text);
    await settle();
    const s = P.state;
    return {
      errors: s.errors,
      fatal: s.fatal,
      config: s.result && s.result.config,
      T: s.result && s.result.tokens.length,
      stage: s.stage,
    };
  }, c);
  const cfg = result.config || {};
  const problems = [];
  if (result.fatal) problems.push(`fatal: ${result.fatal}`);
  if (result.errors && Object.keys(result.errors).length) problems.push(`errors: ${JSON.stringify(result.errors)}`);
  if (cfg.dModel !== c.dModel || cfg.heads !== c.heads) problems.push(`config is ${JSON.stringify(cfg)}`);
  if (result.T !== c.T) problems.push(`the text has ${result.T} tokens, not ${c.T}`);
  if (problems.length) throw new Error(`could not set d_model ${c.dModel}, heads ${c.heads}, T ${c.T}: ${problems.join('; ')}`);
  return result;
}

// warmup + n changes of one control, each from an idle page; times in ms from dispatching 'change'.
function measureInPage({ kind, warmup, n }) {
  const P = window.mhaPage;
  const el = window.__mhaBench.control(kind);
  if (!el) throw new Error(`no control #${kind}`);
  const idle = () => new Promise((r) => requestIdleCallback(() => r(), { timeout: 1000 }));
  const task = () => new Promise((r) => setTimeout(r, 0));
  const raf = () => new Promise((r) => requestAnimationFrame(() => r(performance.now())));
  const tick = () => new Promise((r) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => r();
    ch.port2.postMessage(0);
  });
  const text = el.value;
  const shorter = [...text].slice(0, -1).join(''); // one token fewer: the last character
  return (async () => {
    const out = [];
    for (let i = 0; i < warmup + n; ++i) {
      await idle(); // (the previous change's hidden stages are drawn by now: see tIdle)
      await task();
      const before = P.state.result;
      if (kind === 'causal') el.checked = !el.checked;
      else if (kind === 'text') el.value = el.value === text ? shorter : text;
      else el.value = String(Number(el.value) === 1 ? 2 : 1);
      const t0 = performance.now();
      el.dispatchEvent(new Event('change', { bubbles: true }));
      while (P.state.result === before) {
        if (Object.keys(P.state.errors || {}).length || P.state.fatal) {
          throw new Error(`the page reported an error: ${JSON.stringify(P.state.errors)} ${P.state.fatal || ''}`);
        }
        if (performance.now() - t0 > 30000) throw new Error('no new result within 30 s');
        await tick();
      }
      const tState = performance.now();
      let painted;
      const paintedAt = new Promise((r) => { painted = r; });
      const r1 = await new Promise((r) => requestAnimationFrame(() => {
        setTimeout(() => painted(performance.now()), 0); // runs after this frame is rendered
        r(performance.now());
      }));
      await raf();
      const tEnd = performance.now(); // the end of the 2nd rAF callback after the state update
      const tPaint = await paintedAt;
      await new Promise((r) => requestIdleCallback(() => r(), { timeout: 5000 }));
      const tIdle = performance.now(); // the page has nothing left to do (hidden stages drawn too)
      out.push({ core: P.state.lastMs, state: tState - t0, frame1: r1 - t0, paint: tPaint - t0, busy: tState - t0 + (tPaint - r1), total: tEnd - t0, idle: tIdle - t0, warm: i < warmup });
    }
    // The interval between animation frames while idle, to read the 2nd-rAF numbers against.
    const frames = [];
    let last = await raf();
    for (let i = 0; i < 20; ++i) {
      const t = await raf();
      frames.push(t - last);
      last = t;
    }
    frames.sort((a, b) => a - b);
    return { runs: out, frameMs: frames[frames.length >> 1] };
  })();
}

// ---------- main ----------

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  let chromium;
  try {
    ({ chromium } = require('playwright-core'));
  } catch {
    console.error('bench-page: playwright-core is missing: npm ci');
    process.exit(1);
  }
  if (!fs.existsSync(CHROMIUM)) {
    console.error(`bench-page: ${CHROMIUM} is missing: apt-get install chromium (scripts/setup.sh test does it)`);
    process.exit(1);
  }
  for (const f of ['web/index.html', 'web/build/mha-core.js', 'web/build/app.js']) {
    if (!fs.existsSync(path.join(ROOT, f))) {
      console.error(`bench-page: ${f} is missing (npm run build:wasm / npm run build:web)`);
      process.exit(1);
    }
  }

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  const problems = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1, locale: 'en-US' });
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));

    console.log(`machine   ${cpuModel()} · ${os.cpus().length} logical CPUs · load avg ${loadAverage()}`);
    console.log(`browser   Chromium ${browser.version()} headless (${CHROMIUM}, playwright-core ${require('playwright-core/package.json').version}) · viewport 1280×900 @1x · node ${process.version}`);
    console.log(`page      ${opts.url}`);
    console.log(`          ${fileInfo('web/build/mha-core.js')} · ${fileInfo('web/build/app.js')}`);

    const tLoad = Date.now();
    await page.goto(opts.url);
    await pageReady(page);
    const loadMs = Date.now() - tLoad;
    await page.evaluate(installHelpers);
    await page.evaluate(() => window.mhaPage.goTo('attend'));
    await page.waitForFunction(() => window.mhaPage.state.stage === 'attend');
    const where = await page.evaluate(() => {
      const demo = window.mhaPage.demo || document.querySelector('mha-demo');
      const root = demo && demo.shadowRoot && demo.shadowRoot.querySelector('#seed') ? demo.shadowRoot : document;
      const s = root.querySelector('section[data-stage="attend"]') || root.querySelector('[data-stage="attend"]');
      return { root: root === document ? 'the document' : `<${demo.localName}>'s shadow root`, attend: s ? !s.hidden : null };
    });
    const attendVisible = where.attend;
    console.log(`          ready in ${loadMs} ms (goto → mhaPage.ready); controls in ${where.root}; stage ${await page.evaluate(() => window.mhaPage.state.stage)}${attendVisible === null ? ' (no [data-stage="attend"] section found)' : attendVisible ? '' : ' (attend section hidden!)'}`);
    console.log(`changes   ${opts.warmup} warm-up + ${opts.changes} measured per row; seed: 1 ↔ 2 (new weights, all recomputed); causal: the box toggled; text: the last character deleted and typed again (T − 1 ↔ T)`);
    console.log('');

    const rows = [];
    let frameMs = NaN;
    for (const c of CASES) {
      await configure(page, c);
      await page.evaluate(() => window.mhaPage.goTo('attend'));
      for (const kind of CHANGES) {
        const r = await page.evaluate(measureInPage, { kind, warmup: opts.warmup, n: opts.changes });
        frameMs = r.frameMs;
        const runs = r.runs.filter((x) => !x.warm);
        const col = (k) => runs.map((x) => x[k]);
        if (opts.show) {
          for (const x of r.runs) console.log(`  d${c.dModel} h${c.heads} T${c.T} ${kind}${x.warm ? ' (warm-up)' : ''}: core ${x.core.toFixed(2)} state ${x.state.toFixed(2)} 1st rAF ${x.frame1.toFixed(2)} painted ${x.paint.toFixed(2)} busy ${x.busy.toFixed(2)} 2nd rAF ${x.total.toFixed(2)} idle ${x.idle.toFixed(2)}`);
        }
        const f = (v) => v.toFixed(1);
        rows.push({
          d: c.dModel,
          h: c.heads,
          T: c.T,
          kind,
          n: runs.length,
          core: f(median(col('core'))),
          coreMax: f(Math.max(...col('core'))),
          state: f(median(col('state'))),
          frame1: f(median(col('frame1'))),
          paint: f(median(col('paint'))),
          busy: f(median(col('busy'))),
          busyMax: f(Math.max(...col('busy'))),
          idle: f(median(col('idle'))),
          total: f(median(col('total'))),
          totalMax: f(Math.max(...col('total'))),
        });
      }
    }
    console.log(table(rows, [
      { key: 'd', title: 'd_model' },
      { key: 'h', title: 'heads' },
      { key: 'T', title: 'T' },
      { key: 'kind', title: 'change', left: true },
      { key: 'n', title: 'n' },
      { key: 'core', title: 'core (lastMs) med' },
      { key: 'coreMax', title: 'max' },
      { key: 'state', title: 'change→state med' },
      { key: 'frame1', title: '→1st rAF med' },
      { key: 'paint', title: '→painted med' },
      { key: 'busy', title: 'busy med' },
      { key: 'busyMax', title: 'max' },
      { key: 'total', title: '→2nd rAF med' },
      { key: 'totalMax', title: 'max' },
      { key: 'idle', title: '→idle med' },
    ]));
    console.log('');
    console.log('all times in ms, from dispatching the change event, medians over the measured changes:');
    console.log('  core          state.lastMs, the page\'s own timing: the WebAssembly run + copying its tensors out');
    console.log('  change→state  the synchronous part: core + store + drawing the attend stage (DOM, canvases)');
    console.log('  →1st rAF      the first requestAnimationFrame callback after the state update (the frame starts)');
    console.log('  →painted      a task posted from that callback runs: that frame has been rendered');
    console.log('  busy          change→state + (→painted − →1st rAF): the main thread\'s work for the change, without');
    console.log('                the wait for the frame to start; the figure to hold against 16 ms (max: worst change)');
    console.log('  →2nd rAF      the end of the second rAF callback after the state update: the new frame is out (max: worst change)');
    console.log('  →idle         requestIdleCallback fires: the hidden stages, drawn one task each after a change, are done too');
    console.log(`frames come every ${frameMs.toFixed(1)} ms here (idle median), so the rAF columns wait for vsync too.`);
    console.log(`done      load avg now ${loadAverage()}${problems.length ? ` · ${problems.length} console error(s)/warning(s):` : ' · no console errors'}`);
    for (const p of problems.slice(0, 10)) console.log(`          ${p}`);
    await context.close();
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error(`bench-page: ${(e && e.message) || e}`);
  process.exit(1);
});
