// The keyboard alone ("Every learner, every keyboard"): every heatmap is a tab stop whose arrow keys
// walk its cells with a ring and a live readout (and do not change the stage), attention maps say
// their strongest entries in their label, focus never falls to <body>, a skip link comes first, and
// a walk through the whole default page never touches the mouse.
'use strict';

const { test, beforeEach } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const { usePageSuite } = require('./browser.js');

const WAIT = 10_000;
let server;
let page;
const suite = usePageSuite({ files: ['web/index.html', 'web/build/app.js', 'web/build/mha-demo.js', 'web/build/mha-trained.js'], wait: WAIT });
beforeEach(() => {
  ({ server, page } = suite);
});

// The induction model unless the query names another: the page these tests were written on.
async function open(query = '?model=trained') {
  await page.goto(`${server.url}${query}`);
  await page.waitForFunction(() => window.mhaPage && window.mhaPage.ready, null, { timeout: WAIT });
  await page.evaluate(async () => {
    await window.mhaPage.ready;
  });
}

// The focused element, through the demo's shadow root; its tag, classes and a few attributes.
function focused() {
  return page.evaluate(() => {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    if (!a) return { tag: 'NONE' };
    const tile = a.closest('[data-head]');
    return {
      tag: a.tagName,
      id: a.id,
      cls: a.className && a.className.baseVal === undefined ? a.className : '',
      stageButton: a.dataset.stageButton || null,
      text: (a.textContent || '').trim().slice(0, 60),
      head: tile && a.closest('[data-tensor="weights"]') ? Number(tile.dataset.head) : null,
      map: a.classList.contains('hm-canvas') || a.classList.contains('hm-cells'),
      readout: a.closest('.hm') ? a.closest('.hm').querySelector('[data-map-readout]')?.textContent : null,
      stage: a.closest('section[data-stage]')?.dataset.stage || null,
    };
  });
}

const stage = () => page.evaluate(() => window.mhaPage.state.stage);

async function press(key) {
  await page.keyboard.press(key);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  const f = await focused();
  assert.notEqual(f.tag, 'BODY', `focus fell to <body> after ${key}`);
  return f;
}

// Tab (Shift+Tab with back) until pred(focused) holds; fails after max presses.
async function tabTo(pred, what, { back = false, max = 400 } = {}) {
  for (let i = 0; i < max; i++) {
    const f = await press(back ? 'Shift+Tab' : 'Tab');
    if (pred(f)) return f;
  }
  assert.fail(`never reached ${what} with the keyboard`);
}

test('a head map takes the arrow keys: a ring on the cell, the cell read aloud, the stage stays', { timeout: 60_000 }, async () => {
  await open('?model=trained&stage=attend');
  const tile = 'section[data-stage="attend"] [data-tensor="weights"] [data-head="1"] canvas';
  assert.equal(await page.getAttribute(tile, 'tabindex'), '0', 'the head map is a tab stop');
  await page.focus(tile);
  const tokens = await page.evaluate(() => window.mhaPage.state.result.tokens);
  const readout = () => page.locator('section[data-stage="attend"] [data-tensor="weights"] [data-head="1"] [data-map-readout]').textContent();
  assert.equal(await page.getAttribute('section[data-stage="attend"] [data-tensor="weights"] [data-head="1"] [data-map-readout]', 'aria-live'), 'polite');
  assert.match(await readout(), new RegExp(`^row ${tokens[0].replace(/[<>]/g, '.')} \\(0\\), column .* \\(0\\): \\d`), 'the first cell on focus');
  await press('ArrowDown');
  await press('ArrowRight');
  assert.equal(await stage(), 'attend', '→ on a map moves in it, not to the next stage');
  const value = await page.evaluate(() => window.mhaPage.state.result.tensors.weights);
  assert.ok(value, 'weights');
  assert.match(await readout(), new RegExp(`^row ${tokens[1]} \\(1\\), column ${tokens[1]} \\(1\\): 0\\.\\d+`), await readout());
  await press('ArrowRight');
  assert.match(await readout(), /column .* \(2\): masked$/, 'a masked cell says so');
  await press('ArrowLeft');
  await press('ArrowLeft');
  await press('ArrowLeft');
  await press('ArrowLeft');
  assert.equal(await stage(), 'attend', '← at the map\'s edge does not change the stage either');
  assert.match(await readout(), /column .* \(0\)/);
  await press('End');
  assert.match(await readout(), new RegExp(`column .* \\(${tokens.length - 1}\\): masked`));
  await press('Home');
  // The ring: shown over the cell (row 1, column 0) while the map has keyboard focus.
  const ring = await page.evaluate(() => {
    const tile = document.querySelector('mha-demo').shadowRoot.querySelector('section[data-stage="attend"] [data-tensor="weights"] [data-head="1"]');
    const c = tile.querySelector('canvas').getBoundingClientRect();
    const r = tile.querySelector('.hm-cursor').getBoundingClientRect();
    return { shown: getComputedStyle(tile.querySelector('.hm-cursor')).display !== 'none', dx: r.left - c.left, dy: r.top - c.top, w: r.width, cw: c.width, T: window.mhaPage.state.result.tokens.length };
  });
  assert.ok(ring.shown, 'the ring is shown');
  assert.ok(Math.abs(ring.dx) < 1 && Math.abs(ring.dy - ring.cw / ring.T) < 1 && Math.abs(ring.w - ring.cw / ring.T) < 1, JSON.stringify(ring));

  // The enlarged head (numbers) and head_out's tiles too, in Chinese on the Chinese page.
  await page.focus('section[data-stage="attend"] .head-detail canvas');
  await press('ArrowDown');
  assert.match(await page.locator('section[data-stage="attend"] .head-detail [data-map-readout]').textContent(), /^row .* \(1\), column .* \(0\): \d/);
  await press('ArrowRight');
  assert.equal(await stage(), 'attend');
  await page.focus('section[data-stage="attend"] [data-tensor="head_out"] canvas');
  await press('ArrowRight');
  assert.match(await page.locator('section[data-stage="attend"] [data-tensor="head_out"] [data-map-readout]').first().textContent(), /^row .* \(0\), column dim 1: -?\d/);
  suite.assertNoProblems();
});

test('a vocabulary\'s column is read as its id and its token: the poems\' logits map, far past the ids the text holds', { timeout: 60_000 }, async () => {
  await open('?model=tang&lang=zh&stage=logits');
  const vocabulary = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'models', 'corpus', 'tang.vocab.json'), 'utf8')).tokens;
  const map = 'section[data-stage="logits"] [data-tensor="logits"] [tabindex="0"]';
  await page.focus(map);
  await press('End');
  const last = vocabulary.length - 1;
  const readout = await page.locator('section[data-stage="logits"] [data-tensor="logits"] [data-map-readout]').textContent();
  assert.ok(readout.includes(`列 ${last} “${vocabulary[last]}”`), `${readout}: column ${last} is “${vocabulary[last]}”`);
  suite.assertNoProblems();
});

test('every heatmap of every stage is a tab stop with a readout, in both languages', { timeout: 60_000 }, async () => {
  for (const lang of ['en', 'zh']) {
    await open(`?model=trained&lang=${lang}`);
    const stages = await page.evaluate(async () => (await window.mhaPage.ready).stages);
    for (const s of stages) {
      await page.evaluate((id) => window.mhaPage.goTo(id), s);
      const maps = await page.evaluate((id) => {
        const section = document.querySelector('mha-demo').shadowRoot.querySelector(`section[data-stage="${id}"]`);
        return [...section.querySelectorAll('canvas.hm-canvas, canvas.hm-cells')].map((c) => ({ tab: c.tabIndex, readout: Boolean(c.closest('.hm').querySelector('[aria-live="polite"][data-map-readout]')) }));
      }, s);
      for (const m of maps) assert.deepEqual(m, { tab: 0, readout: true }, `${lang} ${s}`);
    }
    await page.evaluate(() => window.mhaPage.goTo('embed'));
    await page.focus('section[data-stage="embed"] canvas.hm-canvas');
    await press('ArrowRight');
    assert.equal(await stage(), 'embed');
    const said = await page.locator('section[data-stage="embed"] [data-map-readout]').first().textContent();
    assert.match(said, lang === 'zh' ? /^行 .*，列 .*：-?\d/ : /^row .*, column .*: -?\d/, said);
  }
  suite.assertNoProblems();
});

test('an attention map\'s label names its head, shape and each row\'s strongest key (eight rows at most)', { timeout: 60_000 }, async () => {
  await open('?model=trained&stage=attend&text=a b c d e f g h i j k');
  const label = await page.getAttribute('section[data-stage="attend"] [data-tensor="weights"] [data-head="2"] canvas', 'aria-label');
  const T = await page.evaluate(() => window.mhaPage.state.result.tokens.length);
  assert.ok(T > 8, `T = ${T}`);
  assert.match(label, new RegExp(`^head 2, weights heatmap, ${T} × ${T}; strongest per row: <s> \\(0\\)→<s> \\(0\\) 1\\.00, a \\(1\\)→`), label);
  assert.equal((label.match(/→/g) || []).length, 8, label);
  assert.match(label, new RegExp(`… ${T - 8} more rows`));
  const detail = await page.getAttribute('section[data-stage="attend"] .head-detail canvas', 'aria-label');
  assert.match(detail, /^head \d, weights heatmap, .*strongest per row: /, detail);
  suite.assertNoProblems();
});

test('focus never falls to <body>: Next at the last stage, the strip, a stage left with focus inside it', { timeout: 60_000 }, async () => {
  await open();
  const stages = await page.evaluate(async () => (await window.mhaPage.ready).stages);
  await page.evaluate(() => window.mhaPage.goTo(window.mhaPage.demo.stages[0]));
  await page.focus('#next');
  for (let i = 1; i < stages.length; i++) {
    await press('Enter');
    assert.equal(await stage(), stages[i]);
  }
  assert.equal((await focused()).id, 'prev', 'Next disabled at the last stage: Prev has focus');
  for (let i = stages.length - 2; i >= 0; i--) await press('Enter');
  assert.equal(await stage(), stages[0]);
  assert.equal((await focused()).id, 'next', 'Prev disabled at the first stage: Next has focus');
  await page.focus(`[data-stage-button="${stages[2]}"]`);
  const f = await press('Enter');
  assert.equal(await stage(), stages[2]);
  assert.equal(f.stageButton, stages[2], 'the strip\'s button keeps focus');
  // A stage changed by → while a button inside the shown one has focus.
  await page.focus(`section[data-stage="${stages[2]}"] [data-export-stage="csv"]`);
  const g = await press('ArrowRight');
  assert.equal(await stage(), stages[3]);
  assert.equal(g.tag, 'H2', 'the new stage\'s title takes focus');
  assert.equal(g.stage, stages[3]);
  suite.assertNoProblems();
});

// The bottom of what sticks to the top of the viewport (the header, or the stage strip alone on a
// short or narrow screen), and the stage's focusable controls in tab order.
function stickyBottom() {
  return page.evaluate(() => {
    const root = document.querySelector('mha-demo').shadowRoot;
    const stuck = [...root.querySelectorAll('.top, .pipeline')].filter((x) => x.offsetHeight > 0 && getComputedStyle(x).position === 'sticky');
    return Math.max(0, ...stuck.map((x) => x.getBoundingClientRect().bottom));
  });
}

test('focus is never hidden under what sticks to the top: Shift+Tab onto a control beneath it, 390 px and 1280 px', { timeout: 60_000 }, async () => {
  for (const viewport of [{ width: 390, height: 844 }, { width: 1280, height: 1100 }]) {
    await page.setViewportSize(viewport);
    await open('?model=trained&stage=attend');
    // The heads panel's third switch put under the sticky part, focus on the fourth, then Shift+Tab.
    await page.evaluate(() => {
      const root = document.querySelector('mha-demo').shadowRoot;
      const boxes = root.querySelectorAll('section[data-stage="attend"] .heads-panel input[type=checkbox]');
      window.scrollBy(0, boxes[2].getBoundingClientRect().top - 20);
      boxes[3].focus({ preventScroll: true });
    });
    const bar = await stickyBottom();
    assert.ok(bar > 40, `something sticks at ${viewport.width} px: its bottom at ${bar}`);
    const hidden = await page.evaluate(() => document.querySelector('mha-demo').shadowRoot
      .querySelectorAll('section[data-stage="attend"] .heads-panel input[type=checkbox]')[2].getBoundingClientRect().top);
    assert.ok(hidden < bar, `the test puts the switch under the sticky part (${hidden} < ${bar})`);
    await press('Shift+Tab');
    const top = await page.evaluate(() => document.querySelector('mha-demo').shadowRoot.activeElement.getBoundingClientRect().top);
    assert.ok(top >= bar, `at ${viewport.width} px the focused control (top ${top}) lies under the sticky part (bottom ${bar})`);
    // The sticky part's own buttons stay where they are: tabbing along the strip scrolls nothing.
    await page.focus('[data-stage-button="split"]');
    const y = await page.evaluate(() => window.scrollY);
    await press('Tab');
    assert.equal(await page.evaluate(() => window.scrollY), y, `at ${viewport.width} px a Tab along the strip scrolled the page`);
  }
  suite.assertNoProblems();
});

test('a skip link is the first tab stop, visible when focused, and goes to the current stage (both languages)', { timeout: 60_000 }, async () => {
  for (const lang of ['en', 'zh']) {
    await open(`?model=trained&lang=${lang}&stage=split`);
    const f = await press('Tab');
    assert.equal(f.id, 'skip-link', JSON.stringify(f));
    assert.equal(f.text, lang === 'en' ? 'Skip to the current stage' : '跳到当前步骤');
    const box = await page.locator('#skip-link').boundingBox();
    assert.ok(box && box.y >= 0 && box.height > 10, `visible: ${JSON.stringify(box)}`);
    const g = await press('Enter');
    assert.deepEqual([g.tag, g.stage], ['H2', 'split'], JSON.stringify(g));
  }
  suite.assertNoProblems();
});

test('keyboard only: skip link, the strip, every stage, every head map read aloud, focus never on <body>', { timeout: 180_000 }, async () => {
  await open();
  const stages = await page.evaluate(async () => (await window.mhaPage.ready).stages);
  const H = await page.evaluate(() => window.mhaPage.state.result.tensors.weights.shape[1]);
  const first = await press('Tab');
  assert.equal(first.id, 'skip-link');
  const title = await press('Enter');
  assert.equal(title.tag, 'H2');
  // Back to the pipeline strip, then its first button.
  await tabTo((f) => f.stageButton, 'the pipeline strip', { back: true });
  await tabTo((f) => f.stageButton === stages[0], `the strip's first stage`, { back: true });
  for (let i = 0; i < stages.length; i++) {
    if (i > 0) assert.equal((await press('Tab')).stageButton, stages[i], 'the strip in order');
    await press('Enter');
    assert.equal(await stage(), stages[i]);
    if (stages[i] !== 'attend') continue;
    // Into the attend stage: every head's map, a cell of each read from its live readout.
    const read = new Map();
    const back = (await focused()).stageButton;
    while (read.size < H) {
      const f = await tabTo((x) => x.map && x.head !== null && !read.has(x.head), `head map ${read.size}`);
      const g = await press('ArrowDown');
      assert.equal(await stage(), 'attend', '↓ on a head map');
      const h = await press('ArrowRight');
      assert.equal(await stage(), 'attend', '→ on a head map stays on the stage');
      assert.equal(h.head, f.head);
      assert.match(h.readout, /^row .* \(1\), column .* \(1\): \d\.\d+$/, `head ${f.head}: ${h.readout}`);
      read.set(f.head, h.readout);
      assert.ok(g);
    }
    assert.deepEqual([...read.keys()].sort((a, b) => a - b), [...Array(H).keys()]);
    await tabTo((f) => f.stageButton === back, 'the strip again', { back: true });
  }
  suite.assertNoProblems();
});
