// Browser tests of the page (web/index.html) against its contract, in Debian's Chromium.
//   node --test tests/browser/
// Needs web/build/mha-core.js (npm run build:wasm), web/build/app.js and web/build/mha-demo.js (npm run build:web).
// The page is one <mha-demo controls="full">: Playwright's CSS selectors pierce its open shadow root;
// code run inside the page reaches it through document.querySelector('mha-demo').shadowRoot.
'use strict';

const { test, beforeEach } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const { usePageSuite, hatchedWeightCells, upperCells, stageTable } = require('./browser.js');

const ROOT = path.join(__dirname, '..', '..');
const SHOTS = path.join(ROOT, 'test-results', 'screenshots');
let STAGES; // a single layer's stages, from the core's table
const CJK = /[\u3400-\u9fff]/;
const TEST_TIMEOUT = 90_000;
const WAIT = 10_000;

let server;
let page;
let problems; // console errors/warnings and page errors of the current test
const suite = usePageSuite({
  files: ['web/index.html', 'web/build/mha-core.js', 'web/build/app.js', 'web/build/mha-demo.js'],
  wait: WAIT,
});
beforeEach(async () => {
  ({ server, page, problems } = suite);
  STAGES = (await stageTable()).stagesOf.single;
});
const assertNoProblems = () => suite.assertNoProblems();

// ---------- helpers ----------

// The page opens on the trained model; these tests are about one attention layer of random weights.
async function open(url = `${server.url}?model=random`) {
  await page.goto(url);
  await page.waitForFunction(() => window.mhaPage && window.mhaPage.ready, null, { timeout: WAIT });
  await page.evaluate(async () => {
    await window.mhaPage.ready;
  });
}

// Sets a control as a user would: fill (or select) and then a 'change' event.
async function setField(selector, value) {
  const el = page.locator(selector);
  assert.equal(await el.count(), 1, `expected exactly one ${selector}`);
  const tag = await el.evaluate((e) => e.tagName);
  if (tag === 'SELECT') {
    await el.selectOption(String(value));
  } else {
    await el.fill(String(value));
  }
  await el.dispatchEvent('change');
}

async function setSettings({ text, dModel, heads, kvHeads }) {
  if (text !== undefined) await setField('#text', text);
  if (dModel !== undefined) await setField('#d-model', dModel);
  if (heads !== undefined) await setField('#heads', heads);
  if (kvHeads !== undefined) await setField('#kv-heads', kvHeads);
}

// data-stage of every visible section (the contract: exactly one).
async function visibleStages() {
  return page.$$eval('section[data-stage]', (els) =>
    els
      .filter((e) => {
        const r = e.getBoundingClientRect();
        const cs = getComputedStyle(e);
        return !e.hidden && cs.display !== 'none' && cs.visibility !== 'hidden' && r.width > 0 && r.height > 0;
      })
      .map((e) => e.dataset.stage),
  );
}

async function waitForStage(stage) {
  try {
    await page.waitForFunction(
      (s) => {
        const visible = [...(document.querySelector('mha-demo')?.shadowRoot ?? document).querySelectorAll('section[data-stage]')].filter((e) => {
          const r = e.getBoundingClientRect();
          const cs = getComputedStyle(e);
          return !e.hidden && cs.display !== 'none' && cs.visibility !== 'hidden' && r.width > 0 && r.height > 0;
        });
        return visible.length === 1 && visible[0].dataset.stage === s;
      },
      stage,
      { timeout: WAIT },
    );
  } catch {
    // fall through to a precise assertion message
  }
  assert.deepEqual(await visibleStages(), [stage], `expected only the '${stage}' section to be visible`);
  const current = await page.$$eval('[data-stage-button]', (els) =>
    els.filter((e) => e.getAttribute('aria-current') === 'step').map((e) => e.dataset.stageButton),
  );
  assert.deepEqual(current, [stage], `expected only [data-stage-button="${stage}"] to have aria-current="step"`);
}

async function goToStage(stage) {
  await page.click(`[data-stage-button="${stage}"]`);
  await waitForStage(stage);
}

// Shapes of every [data-tensor=name] inside one section.
function shapesIn(stage, name) {
  return page.$$eval(`section[data-stage="${stage}"] [data-tensor="${name}"]`, (els) => els.map((e) => e.dataset.shape));
}

// Waits until the section shows exactly one view of the tensor with the expected shape.
async function expectShape(stage, name, shape) {
  try {
    await page.waitForFunction(
      ([st, n, s]) => {
        const els = (document.querySelector('mha-demo')?.shadowRoot ?? document).querySelectorAll(`section[data-stage="${st}"] [data-tensor="${n}"]`);
        return els.length === 1 && els[0].dataset.shape === s;
      },
      [stage, name, shape],
      { timeout: WAIT },
    );
  } catch {
    // fall through to a precise assertion message
  }
  assert.deepEqual(await shapesIn(stage, name), [shape], `${stage}: [data-tensor="${name}"] data-shape`);
}

function headViewCount(stage = 'attend') {
  return page.locator(`section[data-stage="${stage}"] [data-tensor="weights"] [data-head]`).count();
}

async function expectHeadViews(n) {
  try {
    await page.waitForFunction(
      (k) => (document.querySelector('mha-demo')?.shadowRoot ?? document).querySelectorAll('section[data-stage="attend"] [data-tensor="weights"] [data-head]').length === k,
      n,
      { timeout: WAIT },
    );
  } catch {
    // fall through
  }
  assert.equal(await headViewCount(), n, 'number of head views [data-tensor="weights"] [data-head]');
}

// Visible, non-empty .field-error texts.
function fieldErrors() {
  return page.$$eval('.field-error', (els) =>
    els
      .filter((e) => e.offsetParent !== null || e.getClientRects().length > 0)
      .map((e) => e.textContent.trim())
      .filter((t) => t.length > 0),
  );
}

// The .field-error that belongs to a control: the nearest one inside the control's closest ancestors
// (label/field wrapper), or the one named by aria-describedby / aria-errormessage.
function fieldErrorFor(selector) {
  return page.evaluate((sel) => {
    const root = (document.querySelector('mha-demo')?.shadowRoot ?? document);
    const control = root.querySelector(sel);
    if (!control) return null;
    const ids = `${control.getAttribute('aria-describedby') || ''} ${control.getAttribute('aria-errormessage') || ''}`
      .split(/\s+/)
      .filter(Boolean);
    for (const id of ids) {
      const e = root.getElementById(id);
      if (e && e.classList.contains('field-error') && e.textContent.trim()) return e.textContent.trim();
    }
    let node = control.parentElement;
    for (let depth = 0; node && depth < 3; depth++, node = node.parentElement) {
      const errs = [...node.querySelectorAll('.field-error')];
      // Stop climbing once the ancestor holds other controls' errors too: that is no longer "next to" it.
      const visible = errs.filter((e) => e.getClientRects().length > 0 && e.textContent.trim());
      if (visible.length === 1) return visible[0].textContent.trim();
      if (node.querySelectorAll('input, select, textarea').length > 1) break;
    }
    return null;
  }, selector);
}

async function blurToBody() {
  await page.evaluate(() => {
    // The focused control may sit inside the demo's shadow root: blur that one.
    let active = document.activeElement;
    while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
    if (active && active !== document.body) active.blur();
  });
  assert.equal(await page.evaluate(() => document.activeElement === document.body || document.activeElement === null), true);
}

// ---------- tests ----------

test('a. default page: stepping through the seven stages, shapes for 我是秦始皇 / 512 / 8, screenshots', { timeout: TEST_TIMEOUT }, async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  await open();
  assert.equal(await page.locator('section[data-stage]').count(), 7, 'seven stage sections');
  for (const s of STAGES) {
    assert.equal(await page.locator(`section[data-stage="${s}"]`).count(), 1, `one section[data-stage="${s}"]`);
    assert.equal(await page.locator(`[data-stage-button="${s}"]`).count(), 1, `one [data-stage-button="${s}"]`);
  }
  await setSettings({ text: '我是秦始皇', dModel: 512, heads: 8 });
  await waitForStage('tokenize');

  // Forward with the keyboard.
  await blurToBody();
  for (let i = 1; i < STAGES.length; i++) {
    await page.keyboard.press('ArrowRight');
    await waitForStage(STAGES[i]);
  }
  // Back with the keyboard.
  await blurToBody();
  for (let i = STAGES.length - 2; i >= 0; i--) {
    await page.keyboard.press('ArrowLeft');
    await waitForStage(STAGES[i]);
  }
  // #next / #prev.
  await page.click('#next');
  await waitForStage('embed');
  await page.click('#prev');
  await waitForStage('tokenize');

  // Every pipeline button, with a screenshot of each stage.
  for (const s of STAGES) {
    await goToStage(s);
    await page.screenshot({ path: path.join(SHOTS, `${s}.png`) });
  }

  await expectShape('embed', 'x', '1,5,512');
  await expectShape('embed', 'token_embedding', '1,5,512');
  await expectShape('embed', 'position_encoding', '1,5,512');
  for (const n of ['q', 'k', 'v']) await expectShape('project', n, '1,5,512');
  for (const n of ['q_heads', 'k_heads', 'v_heads']) await expectShape('split', n, '1,8,5,64');
  await expectShape('attend', 'weights', '1,8,5,5');
  await expectShape('attend', 'head_out', '1,8,5,64');
  if ((await shapesIn('attend', 'scores')).length > 0) await expectShape('attend', 'scores', '1,8,5,5');
  await expectShape('concat', 'concat', '1,5,512');
  await expectShape('output', 'y', '1,5,512');
  await expectHeadViews(8);
  assert.deepEqual(await fieldErrors(), [], 'no field errors for valid settings');
  assertNoProblems();
});

test('b. English example, d_model 64, heads 4, kv_heads 2 (grouped-query)', { timeout: TEST_TIMEOUT }, async () => {
  await open();
  const examples = page.locator('[data-example]');
  const n = await examples.count();
  assert.ok(n >= 2, `expected example buttons [data-example], found ${n}`);
  let english = null;
  for (let i = 0; i < n; i++) {
    await examples.nth(i).click();
    const text = await page.inputValue('#text');
    if (/[A-Za-z]{2,}/.test(text) && !CJK.test(text)) {
      english = text;
      break;
    }
  }
  assert.ok(english, 'one [data-example] puts English text into #text');

  await setSettings({ dModel: 64, heads: 4, kvHeads: 2 });
  await goToStage('embed');
  // Wait for the new width, then read T from x.
  await page.waitForFunction(
    () => /^1,\d+,64$/.test((document.querySelector('mha-demo')?.shadowRoot ?? document).querySelector('section[data-stage="embed"] [data-tensor="x"]')?.dataset.shape || ''),
    null,
    { timeout: WAIT },
  ).catch(() => {});
  const xShapes = await shapesIn('embed', 'x');
  assert.equal(xShapes.length, 1, 'one x view');
  const m = /^1,(\d+),64$/.exec(xShapes[0]);
  assert.ok(m, `x shape should be 1,T,64, got ${xShapes[0]}`);
  const T = Number(m[1]);

  // T must agree with the tokenizer itself (the core, run in the page on the same text).
  const expectedT = await page.evaluate(async (text) => {
    const { Model } = await createMha();
    const model = new Model({ dModel: 64, heads: 4, kvHeads: 2 });
    const trace = model.runText(text);
    const count = trace.tokens().length;
    trace.delete();
    model.delete();
    return count;
  }, english);
  assert.equal(T, expectedT, `T from x (${T}) = tokens of "${english}" (${expectedT})`);
  assert.ok(T > 1, 'the English example has more than one token');

  await goToStage('split');
  await expectShape('split', 'q_heads', `1,4,${T},16`);
  await expectShape('split', 'k_heads', `1,2,${T},16`);
  await expectShape('split', 'v_heads', `1,2,${T},16`);
  await goToStage('attend');
  await expectShape('attend', 'weights', `1,4,${T},${T}`);
  await expectShape('attend', 'head_out', `1,4,${T},16`);
  await expectHeadViews(4);
  await expectShape('output', 'y', `1,${T},64`);
  assert.deepEqual(await fieldErrors(), [], 'no field errors once all three settings are valid');
  assertNoProblems();
});

// Reads the attention weights the page is showing from window.mhaPage.state: any trace-like object
// (data()/shape()) or {weights: {shape, data}} inside it whose shape is the one the page displays
// (so a worked example with another shape in the state is not mistaken for it). Returns {shape, data} or null.
function pageWeights(expectedShape) {
  return page.evaluate((want) => {
    const seen = new Set();
    const found = [];
    function fromTrace(t) {
      try {
        if (t && typeof t.data === 'function' && typeof t.shape === 'function') {
          return { shape: Array.from(t.shape('weights')), data: Array.from(t.data('weights')) };
        }
      } catch {
        /* not a trace */
      }
      return null;
    }
    function walk(o, depth) {
      if (!o || typeof o !== 'object' || seen.has(o) || depth > 5 || ArrayBuffer.isView(o)) return;
      seen.add(o);
      const direct = fromTrace(o);
      if (direct) found.push(direct);
      const w = o.weights;
      if (w && (ArrayBuffer.isView(w.data) || Array.isArray(w.data)) && w.shape) {
        found.push({ shape: Array.from(w.shape), data: Array.from(w.data) });
      }
      for (const k of Object.keys(o)) walk(o[k], depth + 1);
    }
    walk(window.mhaPage.state, 0);
    return found.find((f) => f.shape.join(',') === want) || null;
  }, expectedShape);
}

// Entries strictly above the diagonal, per [head][row] of a (1, H, T, T) tensor.
function aboveDiagonal({ shape, data }) {
  const [, H, T, T2] = shape;
  const out = [];
  for (let h = 0; h < H; h++)
    for (let i = 0; i < T; i++)
      for (let j = i + 1; j < T2; j++) out.push(data[(h * T + i) * T2 + j]);
  return out;
}

test('c. causal mask: weights are zero above the diagonal and the page hatches the masked cells', { timeout: TEST_TIMEOUT }, async () => {
  await open();
  await setSettings({ text: '我是秦始皇', dModel: 512, heads: 8 });
  await goToStage('attend');
  await expectShape('attend', 'weights', '1,8,5,5');

  // Without the mask, the page's weights are not all zero above the diagonal.
  const unmasked = await pageWeights('1,8,5,5');
  assert.ok(unmasked, 'window.mhaPage.state exposes the trace (or weights tensor) the page shows');
  assert.deepEqual(unmasked.shape, [1, 8, 5, 5]);
  assert.ok(aboveDiagonal(unmasked).some((v) => v > 1e-6), 'without the causal mask some weights above the diagonal are non-zero');
  const hatchedBefore = await hatchedWeightCells(page, 'mha-demo', 5);
  assert.equal(hatchedBefore.length, 9, 'eight head tiles and the enlarged head are canvases');
  assert.deepEqual(hatchedBefore.flat(), [], 'no hatched (masked) cells in the weights view without the causal mask');

  await page.check('#causal');
  assert.equal(await page.isChecked('#causal'), true);
  await waitForStage('attend');
  await expectShape('attend', 'weights', '1,8,5,5');

  // Poll the page's weights until the mask shows up (or time runs out and the assertions below say why).
  let masked = null;
  const deadline = Date.now() + WAIT;
  do {
    masked = await pageWeights('1,8,5,5');
    if (masked && aboveDiagonal(masked).every((v) => v === 0)) break;
    await page.waitForTimeout(100);
  } while (Date.now() < deadline);
  assert.ok(masked, 'weights readable from window.mhaPage.state after turning on the mask');
  assert.deepEqual(masked.shape, [1, 8, 5, 5]);
  const above = aboveDiagonal(masked);
  assert.ok(above.every((v) => v === 0), `causal weights above the diagonal must be 0, got max ${Math.max(...above)}`);
  // Each row still sums to 1.
  for (let r = 0; r < 8 * 5; r++) {
    const sum = masked.data.slice(r * 5, r * 5 + 5).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - 1) < 1e-4, `row ${r} of the causal weights sums to 1 (got ${sum})`);
  }

  // The page's weights are the core's: the same run done here with createMha() gives the same numbers.
  const direct = await page.evaluate(async () => {
    const { Model } = await createMha();
    const model = new Model({ dModel: 512, heads: 8, kvHeads: Number((document.querySelector('mha-demo')?.shadowRoot ?? document).querySelector('#kv-heads').value), causal: true, seed: Number((document.querySelector('mha-demo')?.shadowRoot ?? document).querySelector('#seed').value) });
    const trace = model.runText('我是秦始皇');
    const out = Array.from(trace.data('weights'));
    trace.delete();
    model.delete();
    return out;
  });
  assert.equal(direct.length, masked.data.length);
  assert.ok(direct.every((v, i) => Math.abs(v - masked.data[i]) < 1e-6), 'page weights = createMha() weights for the same settings');

  // The page shows the mask: in every head's tile and in the enlarged head, exactly the cells above
  // the diagonal are hatched.
  const hatchedAfter = await hatchedWeightCells(page, 'mha-demo', 5);
  assert.equal(hatchedAfter.length, 9);
  hatchedAfter.forEach((cells, i) => assert.deepEqual(cells, upperCells(5), `canvas ${i} (${i < 8 ? `head ${i}` : 'enlarged head'}) hatches exactly the cells above the diagonal`));
  assertNoProblems();
});

async function stageTitle() {
  const [stage] = await visibleStages();
  const heading = page.locator(`section[data-stage="${stage}"]`).locator('h1, h2, h3').first();
  assert.equal(await heading.count(), 1, `the ${stage} section has a heading`);
  return heading.innerText();
}

// The page around the demo speaks the demo's language from the start: a link with lang=zh (or a
// Chinese browser) opens a Chinese page, title, heading and <html lang> included, not only the demo.
for (const [lang, words] of [['zh', '多头注意力'], ['en', 'Multi-head attention']]) {
  test(`a link with lang=${lang}: the page's title, heading and <html lang> are in it from the start`, { timeout: TEST_TIMEOUT }, async () => {
    await page.goto(`${server.url}?lang=${lang}`);
    await page.waitForFunction(() => window.mhaPage && window.mhaPage.ready, null, { timeout: WAIT });
    await page.evaluate(async () => {
      await window.mhaPage.ready;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    });
    const chrome = await page.evaluate(() => ({ html: document.documentElement.lang, title: document.title, heading: document.getElementById('app-title').textContent, demo: document.querySelector('mha-demo').state.lang }));
    assert.deepEqual([chrome.html, chrome.demo], [lang, lang]);
    assert.ok(chrome.title.includes(words) && chrome.heading.includes(words), JSON.stringify(chrome));
    assertNoProblems();
  });
}

test('d. language switch: #lang toggles en ⇄ zh', { timeout: TEST_TIMEOUT }, async () => {
  await open();
  await goToStage('attend');
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en', 'the page starts in English');
  const enTitle = await stageTitle();
  assert.ok(!CJK.test(enTitle), `English stage title has no Chinese: "${enTitle}"`);

  await page.click('#lang');
  await page.waitForFunction(() => document.documentElement.lang === 'zh', null, { timeout: WAIT }).catch(() => {});
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh');
  await waitForStage('attend');
  const zhTitle = await stageTitle();
  assert.ok(CJK.test(zhTitle), `Chinese stage title has Chinese characters: "${zhTitle}"`);

  await page.click('#lang');
  await page.waitForFunction(() => document.documentElement.lang === 'en', null, { timeout: WAIT }).catch(() => {});
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
  const backTitle = await stageTitle();
  assert.ok(!CJK.test(backTitle), `back in English, the stage title has no Chinese: "${backTitle}"`);
  assert.equal(backTitle, enTitle, 'the English title is the same as before');
  assertNoProblems();
});

test('e. invalid setting: heads 7 with d_model 512 shows a field error, fixing it clears it', { timeout: TEST_TIMEOUT }, async () => {
  await open();
  await setSettings({ text: '我是秦始皇', dModel: 512, heads: 8 });
  await expectShape('split', 'q_heads', '1,8,5,64');
  assert.deepEqual(await fieldErrors(), [], 'no field error while the settings are valid');

  await setField('#heads', 7);
  await page.waitForFunction(
    () => [...(document.querySelector('mha-demo')?.shadowRoot ?? document).querySelectorAll('.field-error')].some((e) => e.getClientRects().length > 0 && e.textContent.trim()),
    null,
    { timeout: WAIT },
  ).catch(() => {});
  const message = await fieldErrorFor('#heads');
  assert.ok(message, `a non-empty .field-error next to #heads (visible errors: ${JSON.stringify(await fieldErrors())})`);
  assert.match(message, /divisible|整除/, `the error says why: "${message}"`);

  // No blank page: still exactly one section shown, with content.
  const shown = await visibleStages();
  assert.equal(shown.length, 1, `one section still visible with an invalid setting (visible: ${JSON.stringify(shown)})`);
  const sectionText = await page.locator(`section[data-stage="${shown[0]}"]`).innerText();
  assert.ok(sectionText.trim().length > 0, 'the visible section is not empty');

  await setField('#heads', 8);
  await page.waitForFunction(
    () => ![...(document.querySelector('mha-demo')?.shadowRoot ?? document).querySelectorAll('.field-error')].some((e) => e.getClientRects().length > 0 && e.textContent.trim()),
    null,
    { timeout: WAIT },
  ).catch(() => {});
  assert.equal(await fieldErrorFor('#heads'), null, 'the #heads error is gone once heads is 8 again');
  assert.deepEqual(await fieldErrors(), [], 'no field errors once fixed');
  await expectShape('split', 'q_heads', '1,8,5,64');
  await expectHeadViews(8);
  assertNoProblems();
});

test('f. the page works from file:// without a server', { timeout: TEST_TIMEOUT }, async () => {
  await open(`${pathToFileURL(path.join(ROOT, 'web', 'index.html')).href}?model=random`);
  await setSettings({ text: '我是秦始皇', dModel: 512, heads: 8 });
  await goToStage('attend');
  await expectShape('attend', 'weights', '1,8,5,5');
  await expectHeadViews(8);
  assertNoProblems();
});

test('g. hovering a head map or the enlarged head shows that cell’s value, masked cells say so; a row’s label shows its token whole', { timeout: TEST_TIMEOUT }, async () => {
  await open(`${server.url}?model=random&text=${encodeURIComponent('我是秦始皇')}&stage=attend&causal=1&head=2`);
  const weights = await page.evaluate(() => Array.from(window.mhaPage.state.result.tensors.weights.data));
  const tip = () => page.evaluate(() => {
    const el = document.querySelector('mha-demo').shadowRoot.querySelector('.tooltip');
    return el && !el.hidden ? el.innerText : null;
  });
  for (const [selector, hd] of [['[data-tensor="weights"] [data-head="4"] canvas', 4], ['.head-detail canvas', 2]]) {
    const canvas = page.locator(selector);
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    for (const [r, c] of [[3, 1], [1, 3]]) {
      await page.mouse.move(box.x + ((c + 0.5) * box.width) / 5, box.y + ((r + 0.5) * box.height) / 5);
      const text = await tip();
      const value = weights[(hd * 5 + r) * 5 + c].toFixed(4);
      assert.ok(text && text.includes(`weights[0, ${hd}, ${r}, ${c}] = ${value}`), `${selector} (${r}, ${c}): the tooltip gives the value ${value}: ${text}`);
      assert.equal(/masked/.test(text), c > r, `${selector} (${r}, ${c}): the tooltip says whether the cell is masked`);
    }
  }
  // A map's row labels are one block of text, a line a row (heatmapFrame.js fillLabelBlock): the
  // pointer on a line names that row's token.
  await goToStage('project');
  const labels = page.locator('section[data-stage="project"] .hm-rowlabels .hm-rowlabel-block').first();
  await labels.scrollIntoViewIfNeeded();
  assert.deepEqual((await labels.textContent()).split('\n'), ['0 我', '1 是', '2 秦', '3 始', '4 皇']);
  const lines = await labels.boundingBox();
  await page.mouse.move(lines.x + lines.width / 2, lines.y + (3.5 * lines.height) / 5);
  assert.equal(await tip(), '3 始');
  assertNoProblems();
});
