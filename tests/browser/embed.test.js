// Browser tests of <mha-demo> as an author uses it: web/examples/article.html (two instances and an
// iframe) from a server and from file://, attribute changes and errors, the iframe form, the
// permalink and share dialog of index.html, and the figure / tensor exports.
//   node --test tests/browser/
// Needs web/build/mha-demo.js and web/build/app.js (npm run build:web).
'use strict';

const { test, beforeEach } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const { usePageSuite, hatchedWeightCells, upperCells } = require('./browser.js');
const { parseSafetensors } = require('../node/safetensors.js');

const ROOT = path.join(__dirname, '..', '..');
const ARTICLE = 'examples/article.html';
const EN_TEXT = "The animal didn't cross the street because it was too tired.";
const CJK = /[\u3400-\u9fff]/;
const TEST_TIMEOUT = 120_000;
const WAIT = 15_000;

let server;
let page;
let problems; // console errors/warnings and page errors of the current test
let expected; // console messages a test provokes on purpose (regexps)
const suite = usePageSuite({
  files: ['web/examples/article.html', 'web/embed.html', 'web/build/mha-demo.js', 'web/build/app.js'],
  wait: WAIT,
  contextOptions: { acceptDownloads: true },
  isExpected: (text) => expected.some((re) => re.test(text)),
});
beforeEach(() => {
  ({ server, page, problems } = suite);
  expected = [];
});
const assertNoProblems = () => suite.assertNoProblems();

// ---------- helpers ----------

async function openAndWait(url) {
  await page.goto(url);
  await page.waitForFunction(() => customElements.get('mha-demo'), null, { timeout: WAIT });
  await page.evaluate(() => Promise.all([...document.querySelectorAll('mha-demo')].map((d) => d.ready)));
}

// data-shape of [data-tensor=name] in a stage section of one demo (null when absent).
function shapeIn(demo, stage, name) {
  return page.evaluate(
    ([sel, st, n]) => {
      const els = document.querySelector(sel).shadowRoot.querySelectorAll(`section[data-stage="${st}"] [data-tensor="${n}"]`);
      return els.length === 1 ? els[0].dataset.shape : els.length === 0 ? null : `${els.length} views`;
    },
    [demo, stage, name],
  );
}

async function expectShape(demo, stage, name, shape) {
  await page
    .waitForFunction(
      ([sel, st, n, s]) => document.querySelector(sel)?.shadowRoot?.querySelector(`section[data-stage="${st}"] [data-tensor="${n}"]`)?.dataset.shape === s,
      [demo, stage, name, shape],
      { timeout: WAIT },
    )
    .catch(() => {});
  assert.equal(await shapeIn(demo, stage, name), shape, `${demo}: ${stage} [data-tensor="${name}"] data-shape`);
}

function visibleStages(demo) {
  return page.evaluate((sel) => {
    return [...document.querySelector(sel).shadowRoot.querySelectorAll('section[data-stage]')]
      .filter((e) => !e.hidden && e.getClientRects().length > 0)
      .map((e) => e.dataset.stage);
  }, demo);
}

async function expectStage(demo, stage) {
  await page
    .waitForFunction(
      ([sel, s]) => {
        const shown = [...document.querySelector(sel).shadowRoot.querySelectorAll('section[data-stage]')].filter((e) => !e.hidden && e.getClientRects().length > 0);
        return shown.length === 1 && shown[0].dataset.stage === s;
      },
      [demo, stage],
      { timeout: WAIT },
    )
    .catch(() => {});
  assert.deepEqual(await visibleStages(demo), [stage], `${demo} shows only the ${stage} stage`);
}

// Token count of a text, from the core itself (createMha() is offered by mha-demo.js).
function tokenCount(text) {
  return page.evaluate(async (s) => {
    const { Model } = await createMha();
    const model = new Model({ dModel: 64, heads: 4 });
    const trace = model.runText(s);
    const n = trace.tokens().length;
    trace.delete();
    model.delete();
    return n;
  }, text);
}

// The visible error box of a demo (text) or null.
function errorBox(demo) {
  return page.evaluate((sel) => {
    const box = document.querySelector(sel).shadowRoot.querySelector('.attr-errors');
    return box && !box.hidden && box.getClientRects().length > 0 ? box.textContent.trim() : null;
  }, demo);
}

// Starts collecting a demo's events of one type into window.__events[sel + type].
function collectEvents(demo, type) {
  return page.evaluate(
    ([sel, ty]) => {
      window.__events = window.__events || {};
      const list = (window.__events[sel + ty] = []);
      document.querySelector(sel).addEventListener(ty, (e) => list.push(e.detail));
    },
    [demo, type],
  );
}

function eventsOf(demo, type) {
  return page.evaluate((key) => window.__events[key], demo + type);
}

async function downloadOf(clickTarget) {
  const [download] = await Promise.all([page.waitForEvent('download'), clickTarget.click()]);
  const file = await download.path();
  return { name: download.suggestedFilename(), bytes: fs.readFileSync(file) };
}

function pngSize(bytes) {
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  assert.equal(bytes.subarray(12, 16).toString('latin1'), 'IHDR', 'IHDR first');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

function svgSize(text) {
  const m = /<svg[^>]*\swidth="(\d+)"[^>]*\sheight="(\d+)"/.exec(text);
  assert.ok(m, 'the SVG has integer width and height');
  return { width: Number(m[1]), height: Number(m[2]) };
}

// The shared reader, plus the layout an exported file must have.
function parseExport(bytes) {
  const parsed = parseSafetensors(bytes);
  const n = Number(bytes.readBigUInt64LE(0));
  assert.equal(n % 8, 0, 'the header is padded to 8 bytes');
  let last = 0;
  for (const [name, tensor] of Object.entries(parsed.tensors)) {
    const [from, to] = parsed.header[name].data_offsets;
    const size = tensor.shape.reduce((a, b) => a * b, 1);
    assert.equal(to - from, size * 4, `${name}: data_offsets cover shape × 4 bytes`);
    last = Math.max(last, to);
  }
  assert.equal(bytes.length, 8 + n + last, 'no bytes after the last tensor');
  return parsed;
}

// ---------- tests ----------

async function checkArticle(url) {
  await openAndWait(url);
  assert.equal(await page.locator('mha-demo').count(), 2, 'two live instances in the article');
  const T = await tokenCount(EN_TEXT);
  assert.ok(T > 5, `the English sentence has several tokens (${T})`);

  // Each instance shows what its own attributes say.
  await expectStage('#demo-zh', 'split');
  await expectShape('#demo-zh', 'split', 'q_heads', '1,8,5,64');
  await expectShape('#demo-zh', 'embed', 'x', '1,5,512');
  const zhTitle = await page.locator('#demo-zh').locator('section[data-stage="split"] h2').innerText();
  assert.match(zhTitle, CJK, `lang="zh" gives a Chinese title: "${zhTitle}"`);

  await expectStage('#demo-en', 'attend');
  await expectShape('#demo-en', 'attend', 'weights', `1,4,${T},${T}`);
  await expectShape('#demo-en', 'split', 'k_heads', `1,2,${T},16`);
  const enTitle = await page.locator('#demo-en').locator('section[data-stage="attend"] h2').innerText();
  assert.doesNotMatch(enTitle, CJK, `the English instance has an English title: "${enTitle}"`);
  const hatched = await hatchedWeightCells(page, '#demo-en', T);
  assert.equal(hatched.length, 5, 'four head maps and the enlarged head');
  hatched.forEach((cells, i) => assert.deepEqual(cells, upperCells(T), `causal: map ${i} hatches exactly the cells above the diagonal`));
  return T;
}

test('article from a server: two independent instances, attribute changes, errors in place, events', { timeout: TEST_TIMEOUT }, async () => {
  const T = await checkArticle(server.url + ARTICLE);

  // Changing one instance's attribute re-renders it and leaves the other alone (not even re-run).
  await page.evaluate(() => {
    window.__enResult = document.querySelector('#demo-en').state.result;
  });
  await collectEvents('#demo-zh', 'stagechange');
  await page.evaluate(() => document.querySelector('#demo-zh').setAttribute('heads', '2'));
  await expectShape('#demo-zh', 'split', 'q_heads', '1,2,5,256');
  await page.evaluate(() => document.querySelector('#demo-zh').setAttribute('stage', 'attend'));
  await expectStage('#demo-zh', 'attend');
  await expectShape('#demo-zh', 'attend', 'weights', '1,2,5,5');
  assert.deepEqual(await eventsOf('#demo-zh', 'stagechange'), [{ stage: 'attend' }], 'one stagechange event with {stage}');
  assert.equal(await page.evaluate(() => document.querySelector('#demo-en').state.result === window.__enResult), true, 'the other instance did not run again');
  await expectStage('#demo-en', 'attend');
  await expectShape('#demo-en', 'attend', 'weights', `1,4,${T},${T}`);

  // Stepping one instance with its own buttons moves only that one; the article hears it.
  await page.locator('#demo-en').locator('#next').click();
  await expectStage('#demo-en', 'concat');
  await expectStage('#demo-zh', 'attend');
  assert.equal(await page.locator('#stage-note strong').innerText(), 'concat', "the article's stagechange listener ran");
  assert.equal(await page.getAttribute('#demo-en', 'stage'), 'concat', 'the attribute follows what the reader chose');

  // A bad attribute: the message in place, an error event, the other instance unharmed.
  await collectEvents('#demo-zh', 'error');
  await page.evaluate(() => {
    const d = document.querySelector('#demo-zh');
    d.setAttribute('d-model', '512');
    d.setAttribute('heads', '7');
  });
  await page.waitForFunction(() => {
    const box = document.querySelector('#demo-zh').shadowRoot.querySelector('.attr-errors');
    return box && !box.hidden;
  }, null, { timeout: WAIT }).catch(() => {});
  const box = await errorBox('#demo-zh');
  assert.ok(box, 'a visible error box inside the demo');
  assert.match(box, /heads/, 'the box names the attribute');
  assert.match(box, /整除|divisible/, `the box says why: "${box}"`);
  const errors = await eventsOf('#demo-zh', 'error');
  assert.equal(errors.length, 1, `one error event (got ${JSON.stringify(errors)})`);
  assert.equal(errors[0].attribute, 'heads');
  assert.match(errors[0].message, /divisible by heads 7/);
  assert.equal(await errorBox('#demo-en'), null, 'the other instance shows no error');

  // A bad non-numeric attribute is reported the same way; fixing both clears the box.
  await page.evaluate(() => document.querySelector('#demo-zh').setAttribute('stage', 'nowhere'));
  await page.waitForFunction(() => (window.__events['#demo-zherror'] || []).some((e) => e.attribute === 'stage'), null, { timeout: WAIT }).catch(() => {});
  const stageError = (await eventsOf('#demo-zh', 'error')).find((e) => e.attribute === 'stage');
  assert.ok(stageError, 'an error event for stage="nowhere"');
  assert.match(stageError.message, /stage must be one of tokenize, embed/);
  await page.evaluate(() => {
    const d = document.querySelector('#demo-zh');
    d.setAttribute('heads', '8');
    d.setAttribute('stage', 'split');
  });
  await expectShape('#demo-zh', 'split', 'q_heads', '1,8,5,64');
  await expectStage('#demo-zh', 'split');
  assert.equal(await errorBox('#demo-zh'), null, 'the error box is gone once the attributes are valid');

  // The article's styles stay out: its hot-pink buttons are not the demo's.
  const bg = await page.locator('#demo-en').locator('#next').evaluate((b) => getComputedStyle(b).backgroundColor);
  assert.notEqual(bg, 'rgb(255, 105, 180)', "the article's button rule does not reach inside the demo");

  // The iframe form inside the article.
  await page.locator('iframe').scrollIntoViewIfNeeded();
  const frame = page.frameLocator('iframe');
  const weights = frame.locator('section[data-stage="attend"] [data-tensor="weights"]');
  await weights.waitFor({ state: 'visible', timeout: WAIT });
  assert.equal(await weights.getAttribute('data-shape'), '1,8,5,5', 'the iframe shows 8 heads of 5 × 5');
  assert.equal(await frame.locator('section[data-stage="attend"] [data-tensor="weights"] [data-head]').count(), 8);
  assertNoProblems();
});

test('article from file://: both instances and the iframe render; weights from file:// fail readably', { timeout: TEST_TIMEOUT }, async () => {
  await checkArticle(pathToFileURL(path.join(ROOT, 'web', ARTICLE)).href);
  await page.locator('iframe').scrollIntoViewIfNeeded();
  const weights = page.frameLocator('iframe').locator('section[data-stage="attend"] [data-tensor="weights"]');
  await weights.waitFor({ state: 'visible', timeout: WAIT });
  assert.equal(await weights.getAttribute('data-shape'), '1,8,5,5');

  // fetch() is refused on file:// pages: the demo says so in place and fires `error`.
  expected.push(/ERR_FAILED|Failed to load resource|Fetch API|URL scheme|Not allowed to load|CORS/i);
  await collectEvents('#demo-zh', 'error');
  await page.evaluate(() => document.querySelector('#demo-zh').setAttribute('weights', 'model.safetensors'));
  await page.waitForFunction(() => (window.__events['#demo-zherror'] || []).length > 0, null, { timeout: WAIT }).catch(() => {});
  const [err] = await eventsOf('#demo-zh', 'error');
  assert.ok(err, 'an error event for the weights');
  assert.equal(err.attribute, 'weights');
  const box = await errorBox('#demo-zh');
  assert.ok(box && /model\.safetensors/.test(box) && /http/.test(box), `a readable message in place: ${box}`);
  assertNoProblems();
});

test('weights attribute: safetensors fetched and loaded decide d_model', { timeout: TEST_TIMEOUT }, async () => {
  const file = fs.readFileSync(path.join(ROOT, 'tests', 'reference', 'data', 'pytorch_mha.weights.safetensors'));
  const header = JSON.parse(file.subarray(8, 8 + Number(file.readBigUInt64LE(0))).toString('utf8'));
  const d = header.in_proj_weight.shape[1];
  await page.route('**/weights/mha.safetensors', (route) => route.fulfill({ status: 200, body: file, contentType: 'application/octet-stream' }));
  await openAndWait(server.url + ARTICLE);
  await page.evaluate(() => {
    const demo = document.querySelector('#demo-zh');
    demo.setAttribute('heads', '2');
    demo.setAttribute('weights', '../weights/mha.safetensors');
    demo.setAttribute('layout', 'pytorch');
  });
  await expectShape('#demo-zh', 'split', 'q_heads', `1,2,5,${d / 2}`);
  await expectShape('#demo-zh', 'embed', 'x', `1,5,${d}`);
  assert.equal(await errorBox('#demo-zh'), null);
  assertNoProblems();
});

test('a language whose script cannot be loaded is said in that demo (attribute lang, the file to keep beside the widget) and the demo stays in English', { timeout: TEST_TIMEOUT }, async () => {
  expected = [/mha-zh\.js/]; // the aborted script, as the request and as Chromium's console line
  await page.route('**/mha-zh.js', (route) => route.abort());
  await openAndWait(`${server.url}${ARTICLE}`);
  await page.waitForFunction(() => {
    const box = document.querySelector('#demo-zh').shadowRoot.querySelector('.attr-errors');
    return box && !box.hidden;
  }, null, { timeout: WAIT });
  const box = await errorBox('#demo-zh');
  assert.match(box, /lang/, `the box names the attribute: "${box}"`);
  assert.match(box, /mha-zh\.js could not be loaded; keep mha-zh\.js beside mha-demo\.js/);
  const title = await page.locator('#demo-zh').locator('section[data-stage="split"] h2').innerText();
  assert.doesNotMatch(title, CJK, `the demo stays in English: "${title}"`);
  await expectShape('#demo-zh', 'split', 'q_heads', '1,8,5,64');
  assert.equal(await errorBox('#demo-en'), null, 'the English demo shows no error');
  assertNoProblems();
});

test('iframe form: embed.html takes the settings as query parameters', { timeout: TEST_TIMEOUT }, async () => {
  await openAndWait(`${server.url}embed.html?text=${encodeURIComponent('我是秦始皇')}&d-model=64&heads=4&kv-heads=2&stage=split&lang=zh`);
  await expectStage('mha-demo', 'split');
  await expectShape('mha-demo', 'split', 'q_heads', '1,4,5,16');
  await expectShape('mha-demo', 'split', 'k_heads', '1,2,5,16');
  assert.equal(await page.locator('mha-demo').locator('#d-model').count(), 0, 'the iframe form shows the widget, not the settings bar');
  assert.match(await page.locator('mha-demo').locator('section[data-stage="split"] h2').innerText(), CJK);
  assertNoProblems();
});

test('permalink: index.html?… restores controls and stage; every change updates the URL; share dialog', { timeout: TEST_TIMEOUT }, async () => {
  const query = `text=${encodeURIComponent('The cat sat')}&d-model=64&heads=4&kv-heads=2&causal=1&seed=7&stage=attend&head=2&show=scores&lang=zh`;
  await openAndWait(`${server.url}index.html?${query}`);
  assert.equal(await page.inputValue('#text'), 'The cat sat');
  assert.equal(await page.inputValue('#d-model'), '64');
  assert.equal(await page.inputValue('#heads'), '4');
  assert.equal(await page.inputValue('#kv-heads'), '2');
  assert.equal(await page.inputValue('#seed'), '7');
  assert.equal(await page.isChecked('#causal'), true);
  await expectStage('mha-demo', 'attend');
  assert.equal(await page.getAttribute('[data-stage-button="attend"]', 'aria-current'), 'step');
  assert.equal(await page.getAttribute('[data-attend-mode="scores"]', 'aria-pressed'), 'true', 'scores shown');
  await expectShape('mha-demo', 'attend', 'scores', '1,4,3,3');
  assert.equal(await page.getAttribute('.head-detail', 'data-selected-head'), '2', 'head 2 enlarged');
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh');

  // Every change goes into the URL.
  await page.fill('#heads', '2');
  await page.locator('#heads').dispatchEvent('change');
  await page.click('[data-stage-button="split"]');
  await page.click('[data-attend-mode="weights"]').catch(() => {}); // hidden on split: fine either way
  await page.waitForFunction(() => new URLSearchParams(location.search).get('stage') === 'split' && new URLSearchParams(location.search).get('heads') === '2', null, { timeout: WAIT }).catch(() => {});
  const params = Object.fromEntries(new URL(page.url()).searchParams);
  assert.equal(params.heads, '2');
  assert.equal(params.stage, 'split');
  assert.equal(params.text, 'The cat sat');
  assert.equal(params['kv-heads'], undefined, 'kv_heads = heads (2) is the default, so the link leaves it out');
  assert.equal(params.causal, '1');
  assert.equal(params.seed, '7');

  // The permalink opens the same state.
  const link = page.url();
  await openAndWait(link);
  await expectStage('mha-demo', 'split');
  await expectShape('mha-demo', 'split', 'q_heads', '1,2,3,32');
  assert.equal(await page.inputValue('#heads'), '2');

  // The share dialog: both snippets for this state, with copy buttons.
  await page.click('#embed-open');
  const element = await page.inputValue('[data-snippet="element"]');
  const iframe = await page.inputValue('[data-snippet="iframe"]');
  assert.match(element, /<script src="[^"]*build\/mha-demo\.js"><\/script>/);
  assert.match(element, /<mha-demo text="The cat sat" d-model="64" heads="2" causal seed="7" stage="split"/);
  assert.match(iframe, /<iframe src="[^"]*embed\.html\?text=The%20cat%20sat&amp;d-model=64&amp;heads=2/);
  await page.click('[data-copy="element"]');
  await page.waitForFunction(() => document.querySelector('[data-copy="element"]').nextElementSibling.textContent.trim() !== '', null, { timeout: WAIT });
  assert.equal(await page.evaluate(() => document.activeElement.dataset.snippet), 'element', 'the snippet is selected for copying');

  // The iframe snippet's URL renders the same shapes.
  const src = /src="([^"]+)"/.exec(iframe)[1].replace(/&amp;/g, '&');
  await openAndWait(src);
  await expectStage('mha-demo', 'split');
  await expectShape('mha-demo', 'split', 'q_heads', '1,2,3,32');
  assertNoProblems();
});

test('exports: PNG and SVG figures with labels, caption and head; CSV and safetensors of a stage', { timeout: TEST_TIMEOUT }, async () => {
  await openAndWait(server.url + ARTICLE);
  const T = await tokenCount(EN_TEXT);
  const demo = page.locator('#demo-en');
  const tokens = await page.evaluate(() => document.querySelector('#demo-en').state.result.tokens);

  // The enlarged head: SVG then PNG of the same figure.
  await page.evaluate(() => document.querySelector('#demo-en').setAttribute('head', '3'));
  await page.waitForFunction(() => document.querySelector('#demo-en').shadowRoot.querySelector('.head-detail')?.dataset.selectedHead === '3', null, { timeout: WAIT });
  const svg = await downloadOf(demo.locator('.head-detail [data-export="svg"]'));
  assert.match(svg.name, /\.svg$/);
  const text = svg.bytes.toString('utf8');
  assert.match(text, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  for (const tok of ['animal', 'street', 'tired']) assert.ok(text.includes(tok), `the SVG carries the token label "${tok}"`);
  assert.ok(text.includes(`(1, 4, ${T}, ${T})`), 'the SVG carries the shape caption');
  assert.ok(text.includes('head 3'), 'the SVG names the head');
  assert.ok((text.match(/<rect /g) || []).length >= T * (T + 1) / 2, 'one rect per unmasked cell at least');
  const size = svgSize(text);
  const png = await downloadOf(demo.locator('.head-detail [data-export="png"]'));
  assert.match(png.name, /\.png$/);
  const dims = pngSize(png.bytes);
  assert.ok(dims.width >= 3 * size.width && dims.height >= 3 * size.height, `PNG ${dims.width}×${dims.height} is at least 3× the ${size.width}×${size.height} figure`);
  assert.equal(dims.width, 4 * size.width, 'PNG at 4× CSS pixels');
  assert.equal(dims.height, 4 * size.height);
  assert.ok(png.bytes.includes(Buffer.from('pHYs')), 'the PNG says its resolution (pHYs)');

  // A tensor card of every head: each panel labelled.
  const grid = (await downloadOf(demo.locator('section[data-stage="attend"] [data-tensor="weights"] [data-export="svg"]'))).bytes.toString('utf8');
  for (let hd = 0; hd < 4; hd++) assert.ok(grid.includes(`>head ${hd}<`), `the grid figure labels head ${hd}`);

  // Another stage's card (split, in the Chinese instance: labels in Chinese).
  await page.evaluate(() => document.querySelector('#demo-zh').setAttribute('stage', 'split'));
  const zh = (await downloadOf(page.locator('#demo-zh').locator('[data-tensor="q_heads"] [data-export="svg"]'))).bytes.toString('utf8');
  assert.ok(zh.includes('(1, 8, 5, 64)') && zh.includes('秦') && zh.includes('头 7'), 'the q_heads figure has shape, tokens and head labels');

  // The stage's tensors as CSV.
  const state = await page.evaluate(() => {
    const r = document.querySelector('#demo-en').state.result;
    return { weights: Array.from(r.tensors.weights.data), scores: r.tensors.scores.shape, headOut: r.tensors.head_out.shape };
  });
  const csv = await downloadOf(demo.locator('section[data-stage="attend"] [data-export-stage="csv"]'));
  assert.match(csv.name, /attend\.csv$/);
  const lines = csv.bytes.toString('utf8').trim().split('\n');
  assert.equal(lines[0], 'tensor,batch,head,row,col,token,value');
  const rows = lines.slice(1).map((l) => l.match(/("([^"]|"")*"|[^,]*)(,|$)/g).map((f) => f.replace(/,$/, '').replace(/^"|"$/g, '').replace(/""/g, '"')));
  const count = (name) => rows.filter((r) => r[0] === name).length;
  assert.equal(count('weights'), 4 * T * T);
  assert.equal(count('scores'), 4 * T * T);
  assert.equal(count('head_out'), 4 * T * 16);
  const w = rows.filter((r) => r[0] === 'weights');
  w.forEach((r, i) => assert.ok(Math.abs(Number(r[6]) - state.weights[i]) < 1e-6, `weights CSV value ${i}`));
  assert.equal(w[T + 1][5], tokens[1], 'the token column names the row');
  assert.ok(rows.some((r) => r[0] === 'scores' && r[6] === '-inf'), 'masked scores are written as -inf');

  // The same stage as safetensors.
  const st = await downloadOf(demo.locator('section[data-stage="attend"] [data-export-stage="safetensors"]'));
  assert.match(st.name, /attend\.safetensors$/);
  const parsed = parseExport(st.bytes);
  assert.deepEqual(Object.keys(parsed.tensors).sort(), ['head_out', 'raw_scores', 'scores', 'weights']);
  assert.deepEqual(parsed.tensors.weights.shape, [1, 4, T, T]);
  assert.equal(parsed.tensors.weights.dtype, 'F32');
  assert.deepEqual(Array.from(parsed.tensors.weights.data), state.weights.map((v) => Math.fround(v)));
  assert.deepEqual(JSON.parse(parsed.header.__metadata__.tokens), tokens);
  assertNoProblems();
});
