// The demo fits where it is put: at 1280 px, in an article's column, on a 390 px phone, in both
// languages. The page never becomes wider than the viewport, and every head's switch in the heads
// panel can be seen and clicked (the metrics may scroll sideways on a phone, the switches never); what
// stays at the top as the page scrolls holds under a third of the screen.
'use strict';

const { test, beforeEach } = require('node:test');
const assert = require('node:assert/strict');

const { usePageSuite } = require('./browser.js');

const WAIT = 15_000;
const TEST_TIMEOUT = 120_000;

let server;
let page;
const suite = usePageSuite({ files: ['web/index.html', 'web/examples/article.html', 'web/build/mha-demo.js', 'web/build/mha-trained.js'], wait: WAIT });
beforeEach(() => {
  ({ server, page } = suite);
});

// For the demo matched by `selector`, at its attend stage: how wide the page is, and for each head's
// switch whether the reader can hit it where it is (scrolled into view first, as a reader would).
const heads = (selector) =>
  page.evaluate(async (sel) => {
    const demo = document.querySelector(sel);
    demo.goTo('attend');
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const root = demo.shadowRoot;
    const table = root.querySelector('section[data-stage="attend"] .heads-table');
    const scroller = table.parentElement;
    const switches = [];
    for (const input of root.querySelectorAll('section[data-stage="attend"] input[data-head-switch]')) {
      input.scrollIntoView({ block: 'center', inline: 'nearest' });
      await new Promise((r) => requestAnimationFrame(r));
      const box = input.getBoundingClientRect();
      const x = box.left + box.width / 2;
      const y = box.top + box.height / 2;
      const hit = root.elementFromPoint(x, y);
      switches.push({ id: input.dataset.headSwitch, inView: x >= 0 && x <= innerWidth && y >= 0 && y <= innerHeight, hit: hit === input || (hit && hit.closest('label') === input.closest('label')) });
    }
    const cells = [...table.querySelectorAll('tbody tr:first-child td')].map((td) => td.getBoundingClientRect());
    return {
      pageWidth: document.documentElement.scrollWidth,
      viewport: innerWidth,
      tableFits: table.scrollWidth <= scroller.clientWidth + 1,
      scrolls: getComputedStyle(scroller).overflowX,
      demoRight: demo.getBoundingClientRect().right,
      lastCellRight: cells.length ? cells[cells.length - 1].right : 0,
      switches,
    };
  }, selector);

// Every stage of the demo: the widest the page became.
const widestStage = () =>
  page.evaluate(async () => {
    const demo = document.querySelector('mha-demo');
    let widest = { width: 0, stage: null };
    for (const id of demo.stages) {
      demo.goTo(id);
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const w = document.documentElement.scrollWidth;
      if (w > widest.width) widest = { width: w, stage: id };
    }
    return widest;
  });

function assertSwitches(seen, what) {
  assert.ok(seen.switches.length > 0, `${what}: the panel has switches`);
  for (const s of seen.switches) assert.ok(s.inView && s.hit, `${what}: the switch of head ${s.id} can be seen and clicked (${JSON.stringify(s)})`);
}

for (const lang of ['en', 'zh']) {
  test(`1280 px, ${lang}: the heads table fits its panel whole, every switch clickable`, { timeout: TEST_TIMEOUT }, async () => {
    for (const query of [`lang=${lang}`, `model=trained&lang=${lang}`, `model=blocks&d-model=768&heads=12&lang=${lang}&text=${encodeURIComponent('我是秦始皇')}`]) {
      await page.goto(`${server.url}?${query}`);
      await page.evaluate(() => document.querySelector('mha-demo').ready);
      const seen = await heads('mha-demo');
      assert.ok(seen.tableFits, `${query}: the table needs no sideways scrolling at 1280 px`);
      assert.equal(seen.pageWidth, seen.viewport);
      assertSwitches(seen, query);
    }
    suite.assertNoProblems();
  });

  test(`390 px phone, ${lang}: no stage makes the page wider than the screen; every switch of the heads panel reachable; no empty row over the model's note`, { timeout: TEST_TIMEOUT }, async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}?lang=${lang}`);
    await page.evaluate(() => document.querySelector('mha-demo').ready);
    const widest = await widestStage();
    assert.ok(widest.width <= 390, `the page is ${widest.width} px wide at the ${widest.stage} stage`);
    const seen = await heads('mha-demo');
    assert.equal(seen.pageWidth, 390);
    assert.ok(seen.tableFits || seen.scrolls === 'auto', 'what does not fit scrolls inside the panel');
    assertSwitches(seen, 'phone');
    // The trained model's note, on a line of its own under the layer field, with no empty row between.
    const gap = await page.evaluate(() => {
      const root = document.querySelector('mha-demo').shadowRoot;
      return root.querySelector('.trained-note').getBoundingClientRect().top - root.querySelector('.field-layer').getBoundingClientRect().bottom;
    });
    assert.ok(gap >= 0 && gap <= 8, `the note sits ${gap} px under the layer field`);
    suite.assertNoProblems();
  });
}

test('the article\'s column: both demos\' heads tables fit whole, every switch clickable, the page no wider than the window, the iframe as tall as its demo', { timeout: TEST_TIMEOUT }, async () => {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${server.url}examples/article.html`);
    await page.evaluate(() => Promise.all([...document.querySelectorAll('mha-demo')].map((d) => d.ready)));
    for (const id of ['#demo-en', '#demo-zh']) {
      const seen = await heads(id);
      if (width > 390) assert.ok(seen.tableFits, `${id} at ${width} px: the table fits the column`);
      assert.ok(seen.lastCellRight <= seen.demoRight + 1 || seen.scrolls === 'auto', `${id} at ${width} px: nothing sticks out of the demo`);
      assert.ok(seen.pageWidth <= width, `${id} at ${width} px: the page is ${seen.pageWidth} px wide`);
      assertSwitches(seen, `${id} at ${width} px`);
    }
    // The iframe embed takes the height its demo says it needs: its maps are in the article, not
    // under a scroll inside the iframe.
    await page.locator('iframe').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => {
      const frame = document.querySelector('iframe');
      const demo = frame.contentDocument && frame.contentDocument.querySelector('mha-demo');
      return demo && demo.state && demo.state.result && demo.state.status === 'idle';
    }, null, { timeout: WAIT });
    await page.waitForFunction(() => {
      const frame = document.querySelector('iframe');
      const inner = frame.contentDocument.documentElement;
      return frame.clientHeight > 680 && inner.scrollHeight <= frame.clientHeight + 1;
    }, null, { timeout: WAIT });
  }
  suite.assertNoProblems();
});

// What stays at the top of the viewport as the page scrolls: on a tall screen the controls, the status
// and the stage strip (the text can be changed beside any stage); on a laptop's short one, and on a
// phone, the strip alone, so that no more than a third of the screen is held (widget.css, short screens);
// and what a click brings into view lands below it.
for (const [width, height, whole] of [[1280, 900, true], [1280, 720, false], [1366, 650, false], [390, 844, false]]) {
  test(`${width} × ${height}: ${whole ? 'the controls and the stage strip stay' : 'only the stage strip stays'} in view as the page scrolls, under a third of the screen; a head's tile clicked shows its enlarged map below them`, { timeout: TEST_TIMEOUT }, async () => {
    await page.setViewportSize({ width, height });
    await page.goto(`${server.url}?model=trained&lang=en`);
    await page.waitForFunction(() => window.mhaPage && window.mhaPage.ready, null, { timeout: WAIT });
    await page.evaluate(async () => {
      await window.mhaPage.ready;
      window.scrollBy(0, 1200);
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    });
    const held = await page.evaluate(() => {
      const root = document.querySelector('mha-demo').shadowRoot;
      const box = (sel) => root.querySelector(sel).getBoundingClientRect();
      return { strip: box('.pipeline'), text: box('#text') };
    });
    assert.ok(held.strip.top >= 0 && held.strip.top < 2 + (whole ? height / 3 : 0), `the strip is in view (${held.strip.top} px)`);
    assert.ok(held.strip.bottom <= height / 3, `what stays takes ${held.strip.bottom} px of ${height}`);
    if (whole) assert.ok(held.text.top >= 0 && held.text.bottom <= held.strip.top, `the text box stays above the strip (${held.text.top} px)`);
    else assert.ok(held.text.bottom < 0, `the text box scrolled away (${held.text.bottom} px)`);

    // A head's tile clicked ("click a head to enlarge it"): its enlarged map, under the heads table,
    // comes into view below what stays at the top, whole where it fits (it was 2,000 px below, unseen).
    await page.evaluate(() => window.mhaPage.goTo('attend'));
    const tile = page.locator('mha-demo').locator('section[data-stage="attend"] [data-tensor="weights"] .head-tile[data-head="2"]');
    await tile.scrollIntoViewIfNeeded();
    await tile.click();
    const sight = await page.waitForFunction(() => {
      const root = document.querySelector('mha-demo').shadowRoot;
      const detail = root.querySelector('section[data-stage="attend"] .head-detail[data-selected-head="2"]');
      if (!detail) return false;
      const box = detail.getBoundingClientRect();
      const stuck = root.querySelector('.pipeline').getBoundingClientRect().bottom;
      const whole = box.top >= stuck && box.bottom <= innerHeight;
      const start = box.height > innerHeight - stuck && box.top >= stuck && box.top < stuck + 40;
      return (whole || start) && { top: box.top, bottom: box.bottom, stuck };
    }, null, { timeout: WAIT }).then((h) => h.jsonValue());
    assert.ok(sight.top >= sight.stuck, `the enlarged map starts below the strip (${JSON.stringify(sight)})`);
    suite.assertNoProblems();
  });
}
