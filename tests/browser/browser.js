// Shared browser launch for the page tests and scripts/screenshot.js.
// Always Debian's Chromium: playwright-core never downloads a browser.
'use strict';

const { chromium } = require('playwright-core');

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function launchBrowser() {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

// The frame a request belongs to, or null (a worker's own requests may have none).
function frameOf(req) {
  try {
    return req.frame();
  } catch {
    return null;
  }
}

// Records into `problems` every console error or warning, page error, failed request and HTTP
// error of `page`, except those isExpected(text) says a test provoked on purpose (a console line is
// given with its source's URL, a failed request as `url error`, an HTTP error as `HTTP status: url`).
function watchPage(page, problems, isExpected = () => false) {
  page.on('console', (msg) => {
    if (msg.type() !== 'error' && msg.type() !== 'warning') return;
    const loc = msg.location();
    // with where it came from: Chromium's "Failed to load resource" names its URL only there
    const line = `${msg.text()}${loc && loc.url ? ` (${loc.url}:${loc.lineNumber})` : ''}`;
    if (!isExpected(line)) problems.push(`console.${msg.type()}: ${line}`);
  });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.stack || err.message}`));
  // A load still under way when the test opens the next URL is cancelled by that navigation
  // (net::ERR_ABORTED): the page did nothing wrong. Each request remembers how many top-level
  // navigations had started when it did; only an abort that one started since then is forgiven.
  let navigations = 0;
  const startedAfter = new WeakMap();
  page.on('request', (req) => {
    if (req.isNavigationRequest() && frameOf(req) === page.mainFrame()) navigations += 1;
    startedAfter.set(req, navigations);
  });
  page.on('requestfailed', (req) => {
    const error = req.failure()?.errorText;
    const cancelled = error === 'net::ERR_ABORTED' && startedAfter.has(req) && startedAfter.get(req) < navigations;
    const text = `${req.url()} ${error}`;
    if (!cancelled && !isExpected(text)) problems.push(`request failed: ${text}`);
  });
  page.on('response', (res) => {
    const text = `HTTP ${res.status()}: ${res.url()}`;
    if (res.status() >= 400 && !isExpected(text)) problems.push(text);
  });
}

// Twice in CI (perf.test.js, then fit.test.js's article) a test's page.evaluate awaiting a frame
// (requestAnimationFrame, el.ready) never settled and the test ran out its whole timeout saying
// nothing; no such stall could be made here in thousands of tries under load. So each page.evaluate still pending after STALL_LOOK_MS is
// looked at: does the main thread answer, does a timer fire, does a frame come, is the page visible?
// What is seen is printed (the test's output keeps it). Where the page answers and its timers fire
// but no frame comes for FRAME_WAIT_MS, the browser has stopped drawing a page that asked it to (no
// page code can do that: a busy main thread answers nothing): it is brought to the front and a
// screenshot taken (which asks Chromium for a frame; untried on a real stall, none could be made), and the test goes on awaiting what it awaited.
// A page that is busy, or waits for something else, is left to fail its test, now with what was seen.
const STALL_LOOK_MS = 15_000;
const FRAME_WAIT_MS = 3_000;
function watchFrames(page) {
  const evaluate = page.evaluate.bind(page);
  const bounded = (ms, promise) =>
    Promise.race([promise.catch((e) => ({ error: String((e && e.message) || e).split('\n')[0] })), new Promise((r) => setTimeout(() => r(null), ms).unref())]);
  const look = () =>
    bounded(
      FRAME_WAIT_MS + 2_000,
      evaluate(
        (ms) =>
          new Promise((resolve) => {
            let timer = false;
            setTimeout(() => (timer = true), 0);
            const seen = (frame) => resolve({ frame, timer, visibility: document.visibilityState, focus: document.hasFocus() });
            requestAnimationFrame(() => seen(true));
            setTimeout(() => seen(false), ms);
          }),
        FRAME_WAIT_MS,
      ),
    );
  page.evaluate = (fn, arg) => {
    const pending = evaluate(fn, arg);
    let settled = false;
    pending.then(() => (settled = true), () => (settled = true));
    (async () => {
      const began = Date.now();
      while (true) {
        await new Promise((r) => setTimeout(r, STALL_LOOK_MS).unref()); // never keeps the file's process alive
        if (settled || page.isClosed()) return;
        const seen = await look();
        if (seen && seen.frame) continue; // a long wait, drawn all along (a training run)
        const what = seen ? JSON.stringify(seen) : 'no answer: the main thread is busy';
        console.log(`# a page.evaluate pending for ${Math.round((Date.now() - began) / 1000)} s (${page.url()}): ${what}`);
        if (!seen || seen.error || !seen.timer) continue;
        await page.bringToFront().catch(() => {});
        await page.screenshot({ timeout: 10_000 }).catch(() => {});
        const after = await look();
        console.log(`# no frame came: brought to the front and screenshot taken; then ${after ? JSON.stringify(after) : 'no answer'}`);
      }
    })();
    return pending;
  };
}

// Registers the hooks every page test file needs: the built files must exist, one server and one
// browser for the file, a fresh 1280×900 en-US context and watched page per test. Returns the
// live state ({server, page, problems, assertNoProblems()}); read it in a beforeEach.
function usePageSuite({ files, wait, contextOptions = {}, isExpected }) {
  const { before, after, beforeEach, afterEach } = require('node:test');
  const assert = require('node:assert/strict');
  const fs = require('node:fs');
  const path = require('node:path');
  const { startServer } = require('../../scripts/serve.js');
  const root = path.join(__dirname, '..', '..');
  const suite = { server: null, browser: null, context: null, page: null, problems: [] };

  before(async () => {
    for (const file of files) {
      assert.ok(fs.existsSync(path.join(root, file)), `${file} is missing (npm run build:wasm && npm run build:web)`);
    }
    suite.server = await startServer(0);
    suite.browser = await launchBrowser();
  });
  after(async () => {
    if (suite.browser) await suite.browser.close();
    if (suite.server) await suite.server.close();
  });
  beforeEach(async () => {
    suite.problems = [];
    suite.context = await suite.browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', ...contextOptions });
    suite.page = await suite.context.newPage();
    suite.page.setDefaultTimeout(wait);
    watchFrames(suite.page);
    watchPage(suite.page, suite.problems, isExpected);
  });
  afterEach(async () => {
    if (suite.context) await suite.context.close();
    suite.context = null;
  });
  // Called at the end of every test body, so a console error fails the test it happened in.
  suite.assertNoProblems = () =>
    assert.deepEqual(suite.problems, [], `console errors/warnings or page errors:\n${suite.problems.join('\n')}`);
  return suite;
}

// The canvases matching `selector` in one stage of the <mha-demo> matched by `demo`, as the reader
// sees them: each scrolled into view first (canvases far from the viewport are drawn when they come
// near) and copied, so the page's own canvases are never read back. Per canvas: its size and a hash
// of its pixels, and with T the "row,col" of its cells drawn with the causal hatch (a T × T map; a
// numbered cell is sampled near its top-left corner, away from its number).
function readCanvases(page, { demo = 'mha-demo', stage, selector = 'canvas', T = 0 }) {
  return page.evaluate(async ([sel, stage, selector, T]) => {
    const section = document.querySelector(sel).shadowRoot.querySelector(`section[data-stage="${stage}"]`);
    const hatch = (d, i) => (d[i] === 195 && d[i + 1] === 195 && d[i + 2] === 204) || (d[i] === 230 && d[i + 1] === 230 && d[i + 2] === 234);
    const out = [];
    for (const canvas of section.querySelectorAll(selector)) {
      canvas.scrollIntoView({ block: 'center' });
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      await new Promise((r) => setTimeout(r, 0)); // the intersection callback's task: drawn
      if (!canvas.width || !canvas.height) {
        out.push({ size: 'unpainted', hash: 0, hatched: [] });
        continue;
      }
      // A map may keep a buffer larger than it shows (rows for a few more tokens, a pixel or two of
      // width): the picture is its top left part, object-view-box: inset(0 right bottom 0), shown
      // one to one. Only that part is read.
      const inset = (canvas.style.objectViewBox.match(/-?[\d.]+px/g) || []).map(parseFloat);
      const [w, h] = [canvas.width - (inset[1] || 0), canvas.height - (inset[2] || 0)];
      const copy = document.createElement('canvas');
      copy.width = w;
      copy.height = h;
      const ctx = copy.getContext('2d', { willReadFrequently: true });
      ctx.drawImage(canvas, 0, 0, w, h, 0, 0, w, h);
      const data = ctx.getImageData(0, 0, w, h).data;
      let hash = 0;
      for (let i = 0; i < data.length; i++) hash = (hash * 31 + data[i]) | 0;
      const hatched = [];
      const numbered = canvas.classList.contains('hm-cells');
      const box = canvas.getBoundingClientRect();
      const gap = numbered ? 2 * (w / box.width) : 0; // 2 CSS px
      for (let r = 0; r < T; r++) {
        for (let c = 0; c < T; c++) {
          const x = Math.floor(c * ((w + gap) / T) + (numbered ? 5 : (w + gap) / T / 2));
          const y = Math.floor(r * ((h + gap) / T) + (numbered ? 5 : (h + gap) / T / 2));
          if (hatch(data, (y * w + x) * 4)) hatched.push(`${r},${c}`);
        }
      }
      out.push({ size: `${w}×${h}`, hash, hatched });
    }
    window.scrollTo(0, 0);
    return out;
  }, [demo, stage, selector, T]);
}

// The hatched cells of the attend stage's weights canvases: each head's tile, then the enlarged head.
async function hatchedWeightCells(page, demo, T) {
  const canvases = await readCanvases(page, { demo, stage: 'attend', selector: '[data-tensor="weights"] canvas, .head-detail canvas', T });
  return canvases.map((c) => c.hatched);
}

// "row,col" of the cells above the diagonal of a T × T map: what the causal mask hides.
function upperCells(T) {
  const out = [];
  for (let r = 0; r < T; r++) for (let c = r + 1; c < T; c++) out.push(`${r},${c}`);
  return out;
}

// Until the heads table of the first demo shows every head's importance: it comes from the analyses
// worker after the result, and a part out of view takes it after the frame (sections.js).
function importanceShown(page, timeout) {
  return page.waitForFunction(() => [...document.querySelector('mha-demo').shadowRoot.querySelectorAll('.heads-table td[data-metric="importance"] .metric-value')]
    .every((e) => /\d/.test(e.textContent)), null, { timeout });
}

// A screenshot of the part of the page `selector` matches, whole, as a reader scrolled to it sees it.
// It is brought into view and drawn first, since a part with content-visibility: auto (widget.css) is
// a placeholder box until it comes near the viewport; then scrolled to just under what sticks to the
// top of the viewport (index.html's controls and the stage strip: ~280 px at 1280 px wide), the
// viewport made tall enough to hold it whole there for the shot.
async function shotOf(page, selector, file) {
  const part = page.locator(selector);
  await part.scrollIntoViewIfNeeded();
  const place = () => part.evaluate(async (el) => {
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const roots = [document, ...[...document.querySelectorAll('mha-demo')].map((d) => d.shadowRoot).filter(Boolean)];
    let stuck = 0; // the bottom of the sticky parts at the top of the viewport
    for (const root of roots) {
      for (const e of root.querySelectorAll('*')) {
        const box = e.getBoundingClientRect();
        if (box.top <= 1 && box.bottom > 0 && getComputedStyle(e).position === 'sticky') stuck = Math.max(stuck, box.bottom);
      }
    }
    const box = el.getBoundingClientRect();
    return { stuck, top: box.top, height: box.height };
  });
  const first = await place();
  const viewport = page.viewportSize();
  const need = Math.ceil(first.stuck + first.height + 16);
  if (need > viewport.height) await page.setViewportSize({ width: viewport.width, height: need });
  const now = await place();
  await page.evaluate((dy) => window.scrollBy(0, dy), now.top - now.stuck - 8);
  await part.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await part.screenshot({ path: file });
  await page.setViewportSize(viewport);
}

// Opens index.html (or embed.html) at `url` and waits for its demo's first picture (window.mhaPage.ready).
async function openPage(page, url, timeout) {
  await page.goto(url);
  await page.waitForFunction(() => window.mhaPage && window.mhaPage.ready, null, { timeout });
  await page.evaluate(async () => {
    await window.mhaPage.ready;
  });
}

// The core's stage table (web/mha.js in Node): what a test expects the page to walk, never a list of its own.
let table = null;
async function stageTable() {
  if (!table) table = (await require('../../web/mha.js')()).stageTable;
  return table;
}

// Waits until the demo's training panel holds n snapshots (a recorded history's, or a run's).
function trainingSnapshots(page, n, timeout) {
  return page.waitForFunction((k) => document.querySelector('mha-demo').training?.snapshots.length === k, n, { timeout });
}

// Moves the training panel's slider to snapshot `index`, as dragging it does.
function scrubTraining(page, index) {
  return page.evaluate((i) => {
    const scrub = document.querySelector('mha-demo').shadowRoot.querySelector('[data-train="scrub"]');
    scrub.value = String(i);
    scrub.dispatchEvent(new Event('input'));
  }, index);
}

// `promise`, or an error naming `what` if it has not settled within `ms`: a page.evaluate that
// awaits a frame which never comes would otherwise cost the test's whole timeout and say nothing.
function within(ms, what, promise) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

module.exports = { launchBrowser, within, watchPage, usePageSuite, readCanvases, hatchedWeightCells, upperCells, importanceShown, openPage, shotOf, stageTable, trainingSnapshots, scrubTraining, CHROMIUM, ARGS };
