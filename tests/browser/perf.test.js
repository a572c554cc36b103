// Browser tests of how the page does its work (structure, not timings: timings are for
// scripts/bench-page.js):
//   - a change at a teaching size redraws only the visible stage; the hidden ones are not touched
//     (MutationObserver) and are brought up to date when navigated to;
//   - a new seed, the causal mask or another head is drawn into the DOM already there (no node
//     added or removed), a new text into the same canvases of the attend stage, and the result equals what a
//     fresh page draws for the same settings; on the trained model, a new text into the same
//     canvases (and prediction rows) of every stage, equal to a fresh page's too;
//   - a large run (d_model 768, 12 heads, ~300 tokens) goes to a Web Worker: the page keeps
//     producing animation frames while it computes, shows its progress, drops results that the
//     settings have overtaken and reports the core's errors next to the control; also from file://;
//   - the split stage's head tiles fit a narrow article column.
//   node --test tests/browser/
// Timed (timedTest): a redraw within the frame, the parts out of view within 300 ms, frames while a Worker computes.
'use strict';

const { beforeEach } = require('node:test');
const { test, timedTest } = require('./lanes.js');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const { usePageSuite, readCanvases, stageTable, shotOf, within } = require('./browser.js');

const ROOT = path.join(__dirname, '..', '..');
const SHOTS = path.join(ROOT, 'test-results', 'screenshots');
const TEST_TIMEOUT = 120_000;
const WAIT = 15_000;
// ~300 characters, one token each: T = 300 at d_model 768 and 12 heads is a size L run.
const LONG_TEXT = '天地玄黄宇宙洪荒日月盈昃辰宿列张寒来暑往秋收冬藏闰余成岁律吕调阳云腾致雨露结为霜金生丽水玉出昆冈'.repeat(8).slice(0, 300);

let server;
let page;
let problems; // console errors/warnings and page errors of the current test
const suite = usePageSuite({
  files: ['web/index.html', 'web/build/mha-demo.js', 'web/build/app.js', 'web/examples/article.html'],
  wait: WAIT,
});
beforeEach(() => {
  ({ server, page, problems } = suite);
});
const assertNoProblems = () => suite.assertNoProblems();

async function open(url) {
  await page.goto(url);
  await page.waitForFunction(() => window.mhaPage && window.mhaPage.ready, null, { timeout: WAIT });
  await page.evaluate(async () => {
    await window.mhaPage.ready;
  });
}

// ---------- teaching size: only the visible stage is redrawn ----------

test('a text change at a teaching size redraws only the visible stage; a hidden one is redrawn when shown', { timeout: TEST_TIMEOUT }, async () => {
  await open(`${server.url}?model=random`);
  await page.evaluate(() => window.mhaPage.goTo('attend'));
  const out = await page.evaluate(async () => {
    const demo = window.mhaPage.demo;
    const root = demo.shadowRoot;
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    // Each (change, what to wait for) pair: mutations are counted from the change until two frames
    // after the new state, i.e. until the new picture has been painted.
    async function watch(change, done) {
      const counts = {};
      const observers = [...root.querySelectorAll('section[data-stage]')].map((section) => {
        const key = section.hidden ? `hidden:${section.dataset.stage}` : `visible:${section.dataset.stage}`;
        counts[key] = 0;
        const mo = new MutationObserver((records) => {
          counts[key] += records.length;
        });
        mo.observe(section, { subtree: true, childList: true, attributes: true, characterData: true });
        return { mo, key };
      });
      change();
      const t0 = performance.now();
      while (!done()) {
        if (performance.now() - t0 > 10000) throw new Error('no new state within 10 s');
        await new Promise((r) => setTimeout(r, 2));
      }
      await frame();
      await frame();
      for (const { mo, key } of observers) {
        counts[key] += mo.takeRecords().length; // records not yet delivered
        mo.disconnect();
      }
      return counts;
    }
    const text = root.querySelector('#text');
    const before = demo.state.result;
    const onText = await watch(
      () => {
        text.value = '我是秦始皇帝';
        text.dispatchEvent(new Event('change', { bubbles: true }));
      },
      () => demo.state.result !== before,
    );
    const shapeIn = (stage, name) => root.querySelector(`section[data-stage="${stage}"] [data-tensor="${name}"]`)?.dataset.shape ?? null;
    const attendShape = shapeIn('attend', 'weights');
    const staleSplit = shapeIn('split', 'q_heads'); // whatever it was: not redrawn yet
    const onHead = await watch(() => root.querySelector('[data-tensor="weights"] [data-head="3"]').click(), () => demo.state.head === 3);
    const onLang = await watch(() => root.querySelector('#lang').click(), () => demo.state.lang === 'zh');
    // Shown, the split stage is up to date at once (drawn before it is shown).
    demo.goTo('split');
    const splitShape = shapeIn('split', 'q_heads');
    const splitTitle = root.querySelector('section[data-stage="split"] h2').textContent;
    return { onText, onHead, onLang, attendShape, staleSplit, splitShape, splitTitle };
  });
  for (const [name, counts] of Object.entries({ text: out.onText, head: out.onHead, lang: out.onLang })) {
    const hidden = Object.entries(counts).filter(([k]) => k.startsWith('hidden:'));
    const visible = Object.entries(counts).filter(([k]) => k.startsWith('visible:'));
    assert.equal(hidden.length, 6, `${name}: six hidden sections (${JSON.stringify(counts)})`);
    assert.deepEqual(hidden.filter(([, n]) => n > 0), [], `${name} change: no DOM mutation in any hidden section (${JSON.stringify(counts)})`);
    assert.deepEqual(visible.map(([k]) => k), ['visible:attend'], `${name}: the attend section is the visible one`);
    assert.ok(visible[0][1] > 0, `${name} change: the visible attend section was redrawn (${JSON.stringify(counts)})`);
  }
  assert.equal(out.attendShape, '1,8,6,6', 'the visible stage shows the new text');
  assert.notEqual(out.staleSplit, '1,8,6,64', 'the hidden split stage was not redrawn on the change');
  assert.equal(out.splitShape, '1,8,6,64', 'navigated to, the split stage shows the new result at once');
  assert.match(out.splitTitle, /[\u3400-\u9fff]/, 'and in the new language');
  // Once the page is quiet, hidden stages catch up by themselves (so every section holds the
  // current tensors for readers, exports and tests).
  await page.waitForFunction(
    () => window.mhaPage.demo.shadowRoot.querySelector('section[data-stage="output"] [data-tensor="y"]')?.dataset.shape === '1,6,512',
    null,
    { timeout: WAIT },
  );
  assertNoProblems();
});

// ---------- a new seed, the mask, another head: drawn in place ----------

// One stage, shown: its DOM (without the empty style="" an in-place update may leave, nor a canvas's
// buffer size and the part of it shown, which a canvas drawn in place may keep larger) and every
// canvas's size and pixel hash, as the reader sees them.
const withoutBuffers = (html) =>
  html.replace(/<canvas[^>]*>/g, (tag) => tag.replace(/ (width|height)="\d+"/g, '').replace(/ ?object-view-box: [^;]*;/g, ''));
async function stagePicture(stage) {
  await page.evaluate(async (s) => {
    window.mhaPage.goTo(s);
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  }, stage);
  const pixels = (await readCanvases(page, { stage })).map((c) => `${c.size} ${c.hash}`);
  const html = await page.evaluate((s) => window.mhaPage.demo.shadowRoot.querySelector(`section[data-stage="${s}"]`).innerHTML, stage);
  return { html: withoutBuffers(html).replace(/ style=""/g, ''), pixels };
}

// The attend stage first (as the changes left it), then the others, which catch up when shown.
async function allStagePictures() {
  const out = { attend: await stagePicture('attend') };
  for (const stage of (await stageTable()).stagesOf.single) if (stage !== 'attend') out[stage] = await stagePicture(stage);
  return out;
}

timedTest('typing on the default page redraws within the frame only what is in view; the parts scrolled away follow just after', { timeout: TEST_TIMEOUT }, async () => {
  await open(`${server.url}?lang=en`); // the English model at its attend stage: the maps in view, the heads panel and the rest under them
  // Until the result after `before` is the demo's, a task at a time (the page's deferred parts wait for
  // a frame and then for the page to be idle, so they have not run yet).
  await page.evaluate(() => {
    window.answered = async (before) => {
      const demo = window.mhaPage.demo;
      const tick = () => new Promise((r) => {
        const ch = new MessageChannel();
        ch.port1.onmessage = () => r();
        ch.port2.postMessage(0);
      });
      const t0 = performance.now();
      while (demo.state.result === before) {
        if (performance.now() - t0 > 10_000) throw new Error('the change gave no new result within 10 s');
        await tick();
      }
    };
  });
  const out = await page.evaluate(async () => {
    const demo = window.mhaPage.demo;
    const section = demo.shadowRoot.querySelector('section[data-stage="attend"]');
    const parts = { maps: '[data-tensor="weights"]', panel: '.heads-panel', detail: '.head-detail', headOut: '[data-tensor="head_out"]' };
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    await new Promise((r) => setTimeout(r, 500)); // the observers have said what is in view
    const counts = {};
    const observers = Object.entries(parts).map(([name, sel]) => {
      counts[name] = 0;
      const mo = new MutationObserver((records) => { counts[name] += records.length; });
      mo.observe(section.querySelector(sel), { subtree: true, childList: true, characterData: true, attributes: true });
      return [name, mo];
    });
    const text = demo.shadowRoot.querySelector('#text');
    const before = demo.state.result;
    text.value = `${text.value} the`;
    text.dispatchEvent(new Event('change', { bubbles: true }));
    await window.answered(before); // the English model's run is its worker's: drawn in the task its answer comes in
    for (const [name, mo] of observers) counts[name] += mo.takeRecords().length;
    const inFrame = { ...counts }; // everything the change did before its frame
    await frame();
    await new Promise((r) => requestIdleCallback(r, { timeout: 1000 }));
    await new Promise((r) => setTimeout(r, 400));
    for (const [name, mo] of observers) {
      counts[name] += mo.takeRecords().length;
      mo.disconnect();
    }
    const T = demo.state.result.tokens.length;
    return { inFrame, after: counts, T, dHead: demo.state.result.config.dHead, detailShape: section.querySelector('.head-detail .shape').textContent, headOutShape: section.querySelector('[data-tensor="head_out"]').dataset.shape };
  });
  assert.ok(out.inFrame.maps > 0, 'the head maps in view are redrawn with the change');
  for (const part of ['panel', 'detail', 'headOut']) {
    assert.equal(out.inFrame[part], 0, `${part}, out of view, is not touched within the change (${JSON.stringify(out.inFrame)})`);
    assert.ok(out.after[part] > 0, `${part} follows just after (${JSON.stringify(out.after)})`);
  }
  assert.equal(out.detailShape, `(${out.T} × ${out.T})`);
  assert.equal(out.headOutShape, `1,4,${out.T},${out.dHead}`);
  // In view, the heads panel is redrawn with the change itself.
  const seen = await page.evaluate(async () => {
    const demo = window.mhaPage.demo;
    const panel = demo.shadowRoot.querySelector('.heads-panel');
    panel.scrollIntoView();
    await new Promise((r) => setTimeout(r, 300));
    let n = 0;
    const mo = new MutationObserver((records) => { n += records.length; });
    mo.observe(panel, { subtree: true, childList: true, characterData: true, attributes: true });
    const text = demo.shadowRoot.querySelector('#text');
    const before = demo.state.result;
    text.value = text.value.slice(0, -1);
    text.dispatchEvent(new Event('change', { bubbles: true }));
    await window.answered(before);
    const now = n + mo.takeRecords().length;
    mo.disconnect();
    return now;
  });
  assert.ok(seen > 0, 'the heads panel in view is redrawn within the change');
  assertNoProblems();
});

timedTest('a new seed, the causal mask and another head are drawn in place, and look as a fresh page draws them', { timeout: TEST_TIMEOUT }, async () => {
  const text = "The animal didn't cross the street";
  await open(`${server.url}?text=${encodeURIComponent(text)}&d-model=64&heads=4&stage=attend`);
  // A new text is drawn into the same canvases too (the head maps, the enlarged head, head_out),
  // with labels added or removed for the tokens more or less; past 16 tokens the enlarged head has
  // no numbers (another kind of grid, built anew), and again within that kind.
  const long = `${text} because it was too tired, and then it slept.`;
  const changes = [['seed', '2'], ['causal', true], ['head', '3'], ['text', 'The cat'], ['seed', '5'], ['causal', false], ['head', '1'],
    ['text', long], ['text', `${long} Then it woke up.`], ['causal', true], ['text', 'The cat sat'], ['text', `${text} today`], ['seed', '9']];
  for (const [what, value] of changes) {
    const { added, keptMaps } = await page.evaluate(async ([what, value]) => {
      const demo = window.mhaPage.demo;
      const root = demo.shadowRoot;
      const section = root.querySelector('section[data-stage="attend"]');
      const nodes = []; // where nodes were added or removed in the attend stage
      const note = (records) => {
        for (const r of records) {
          if (!(r.addedNodes.length + r.removedNodes.length)) continue;
          // The sentences that say whether the mask is on are rewritten (their HTML differs).
          if (what === 'causal' && r.target.closest('.stage-text, .formula, .worked-intro, .math, .worked-step-title')) continue;
          nodes.push(r.target.className || r.target.nodeName);
        }
      };
      const mo = new MutationObserver(note);
      mo.observe(section, { subtree: true, childList: true });
      const maps = () => [...section.querySelectorAll('[data-tensor="weights"] canvas, .head-detail canvas, [data-tensor="head_out"] canvas')];
      const numbered = () => Boolean(section.querySelector('.head-detail .hm-numbers'));
      const numberedBefore = numbered();
      const mapsBefore = maps();
      const before = demo.state;
      const was = { result: before.result, head: before.head };
      if (what === 'head') root.querySelector(`[data-tensor="weights"] [data-head="${value}"]`).click();
      else {
        const input = root.querySelector(`#${what}`);
        if (input.type === 'checkbox') input.checked = value;
        else input.value = value;
        input.dispatchEvent(new Event('change', { bubbles: true }));
      }
      // (A text with words the page has not tokenized before may take a task or two.)
      for (let i = 0; i < 200 && demo.state.result === was.result && demo.state.head === was.head; i++) await new Promise((r) => setTimeout(r, 10));
      if (demo.state.result === was.result && demo.state.head === was.head) throw new Error(`${what} ${value} changed nothing`);
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      // the parts scrolled out of view follow within 300 ms (lazy.js): theirs are this change's too
      await new Promise((r) => setTimeout(r, 400));
      note(mo.takeRecords());
      mo.disconnect();
      const kept = maps().every((c, i) => c === mapsBefore[i]) && maps().length === mapsBefore.length;
      return { added: nodes, keptMaps: kept || numbered() !== numberedBefore };
    }, [what, value]);
    assert.ok(keptMaps, `${what} → ${value}: the head maps, the enlarged head and head_out are drawn into the canvases already there`);
    if (what !== 'text') assert.deepEqual(added, [], `${what} → ${value}: no node added to or removed from the attend stage (the new numbers are drawn into the DOM already there)`);
  }
  const inPlace = await allStagePictures();
  await page.waitForFunction(() => new URLSearchParams(location.search).get('seed') === '9', null, { timeout: WAIT });
  const link = page.url();
  assert.match(link, /causal=1.*seed=9.*head=1/, `the permalink has the last settings: ${link}`);
  await open(link);
  const fresh = await allStagePictures();
  for (const stage of Object.keys(fresh)) {
    assert.equal(inPlace[stage].html, fresh[stage].html, `${stage}: the DOM drawn in place is the DOM a fresh page builds`);
    assert.deepEqual(inPlace[stage].pixels, fresh[stage].pixels, `${stage}: every canvas has the pixels a fresh page paints`);
  }
  assertNoProblems();
});

// ---------- the trained model: another text in place, on every stage ----------

test('the trained model: another text is drawn into the canvases and rows already there on every stage, as a fresh page draws it', { timeout: TEST_TIMEOUT }, async () => {
  await open(`${server.url}?model=trained`);
  const stages = await page.evaluate(() => window.mhaPage.state.result.stages.map((s) => s.id));
  // T 11, 17 (the map rows get shorter past 16 tokens), 16, and the page's own 12 again.
  const texts = ['我是秦始皇，我是秦始', '天地玄黄宇宙洪荒天地玄黄宇宙洪荒', '天地玄黄宇宙洪荒天地玄黄宇宙洪', '我是秦始皇，我是秦始皇'];
  for (const stage of stages) {
    for (const text of texts) {
      const out = await within(20_000, `${stage}, "${text}" typed in place`, page.evaluate(async ([stage, text]) => {
        const demo = window.mhaPage.demo;
        const root = demo.shadowRoot;
        const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        demo.goTo(stage);
        await frames();
        const section = root.querySelector(`section[data-stage="${stage}"]`);
        // The enlarged head is built anew where it starts or stops printing numbers (the attend
        // stage's own test covers it); the worked example does not follow the text.
        const kept = () => [...section.querySelectorAll('canvas, .predict-table tbody tr:first-child, .chips li:first-child')].filter((el) => !el.closest('.head-detail, .worked'));
        const before = kept();
        const was = demo.state.result;
        const input = root.querySelector('#text');
        input.value = text;
        input.dispatchEvent(new Event('change', { bubbles: true }));
        for (let i = 0; i < 200 && demo.state.result === was; i++) await new Promise((r) => setTimeout(r, 10));
        await frames();
        const after = kept();
        return { T: demo.state.result.tokens.length, n: before.length, same: after.length === before.length && after.every((el, i) => el === before[i]) };
      }, [stage, text]));
      assert.ok(out.same, `${stage}, T → ${out.T}: the ${out.n} canvases (and the prediction's rows, the tokens' chips) are the ones already there`);
    }
  }
  const pictures = async () => {
    const out = {};
    for (const stage of stages) out[stage] = await stagePicture(stage);
    return out;
  };
  const inPlace = await pictures();
  await open(`${server.url}?model=trained&text=${encodeURIComponent(texts[texts.length - 1])}`);
  const fresh = await pictures();
  for (const stage of stages) {
    assert.equal(inPlace[stage].html, fresh[stage].html, `${stage}: the DOM drawn in place is the DOM a fresh page builds`);
    assert.deepEqual(inPlace[stage].pixels, fresh[stage].pixels, `${stage}: every canvas has the pixels a fresh page paints`);
  }
  assertNoProblems();
});

// ---------- size L: off the main thread ----------

async function largeRun(url) {
  await open(url);
  await page.evaluate(() => window.mhaPage.goTo('attend'));
  const T = LONG_TEXT.length;
  const out = await page.evaluate(async (text) => {
    const demo = window.mhaPage.demo;
    const root = demo.shadowRoot;
    const frames = [];
    let counting = true;
    const loop = () => {
      frames.push(performance.now());
      if (counting) requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
    await new Promise((r) => setTimeout(r, 100));
    const before = demo.state.result;
    const seen = []; // every result the page took while we watched
    let progress = null;
    const t0 = performance.now();
    // One run (attributes set together), then, once it is under way, a seed change that overtakes it.
    demo.setAttribute('d-model', '768');
    demo.setAttribute('heads', '12');
    demo.setAttribute('kv-heads', '12');
    demo.setAttribute('text', text);
    let overtaken = false;
    let last = before;
    let computingUntil = t0; // the last poll that found the page computing (the window measured)
    while (true) {
      await new Promise((r) => setTimeout(r, 4));
      const s = demo.state;
      if (s.status === 'computing') computingUntil = performance.now();
      if (s.result !== last) {
        last = s.result;
        seen.push({ seed: s.result.config.seed, dModel: s.result.config.dModel, T: s.result.tokens.length });
      }
      const status = root.querySelector('#status');
      if (s.status === 'computing' && status && status.getClientRects().length > 0 && status.classList.contains('busy') && /computing… \d+\.\d s/.test(status.textContent)) {
        progress = progress || status.textContent;
      }
      if (!overtaken && s.status === 'computing' && performance.now() - t0 > 20) {
        overtaken = true;
        demo.setAttribute('seed', '2');
      }
      if (s.result.config.seed === 2 && s.result.config.dModel === 768) break;
      if (Object.keys(s.errors).length || s.fatal) throw new Error(`the page reported ${JSON.stringify(s.errors)} ${s.fatal || ''}`);
      if (performance.now() - t0 > 60000) throw new Error('no result within 60 s');
    }
    const tDone = performance.now();
    counting = false;
    // Frames while the worker computed: from the change to the last moment the page said
    // "computing" (drawing the new result afterwards is the main thread's job, timed by the bench).
    const during = frames.filter((f) => f >= t0 && f <= computingUntil);
    let maxGap = 0;
    for (let i = 1; i < during.length; i++) maxGap = Math.max(maxGap, during[i] - during[i - 1]);
    if (during.length) maxGap = Math.max(maxGap, during[0] - t0, computingUntil - during[during.length - 1]);
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const s = demo.state;
    return {
      ms: computingUntil - t0,
      total: tDone - t0,
      frames: during.length,
      maxGap,
      progress,
      seen,
      core: s.lastMs,
      shapes: { x: s.result.tensors.x.shape.join(','), weights: s.result.tensors.weights.shape.join(','), y: s.result.tensors.y.shape.join(',') },
      shown: root.querySelector('section[data-stage="attend"] [data-tensor="weights"]')?.dataset.shape,
      status: root.querySelector('#status').textContent,
    };
  }, LONG_TEXT);
  assert.ok(out.frames >= 5, `animation frames kept coming while the worker computed: ${out.frames} frames in ${out.ms.toFixed(0)} ms`);
  assert.ok(out.maxGap <= 200, `no frame gap over 200 ms while computing (largest: ${out.maxGap.toFixed(0)} ms)`);
  assert.ok(out.progress, 'the status showed "computing… N s" while the worker ran');
  assert.deepEqual(out.shapes, { x: `1,${T},768`, weights: `1,12,${T},${T}`, y: `1,${T},768` }, 'the final shapes');
  assert.equal(out.shown, `1,12,${T},${T}`, 'the attend stage shows the large result');
  assert.deepEqual(out.seen.filter((r) => r.dModel === 768 && r.seed !== 2), [], `the overtaken run's result was dropped (results taken: ${JSON.stringify(out.seen)})`);
  assert.doesNotMatch(out.status, /computing/, 'the status is back to ready');

  // The core's errors from the worker land next to their control, as on the main thread.
  await page.locator('#heads').fill('7');
  await page.locator('#heads').dispatchEvent('change');
  await page.waitForFunction(() => /divisible|整除/.test(window.mhaPage.demo.shadowRoot.querySelector('#heads-error')?.textContent || ''), null, { timeout: WAIT });
  const kept = await page.evaluate(() => window.mhaPage.demo.state.result.tensors.weights.shape.join(','));
  assert.equal(kept, `1,12,${T},${T}`, 'the last good result stays on screen');
  assertNoProblems();
  return out;
}

timedTest('size L from a server: computed in a Web Worker, frames keep coming, progress shown, stale results dropped', { timeout: TEST_TIMEOUT }, async () => {
  const out = await largeRun(`${server.url}?model=random`);
  console.log(`# size L (server): ${out.frames} frames in ${out.ms.toFixed(0)} ms of computing, largest gap ${out.maxGap.toFixed(0)} ms, worker core ${out.core.toFixed(0)} ms, shown after ${out.total.toFixed(0)} ms`);
});

timedTest('size L from file://: the blob: worker starts there too', { timeout: TEST_TIMEOUT }, async () => {
  const out = await largeRun(`${pathToFileURL(path.join(ROOT, 'web', 'index.html')).href}?model=random`);
  console.log(`# size L (file://): ${out.frames} frames in ${out.ms.toFixed(0)} ms of computing, largest gap ${out.maxGap.toFixed(0)} ms, worker core ${out.core.toFixed(0)} ms, shown after ${out.total.toFixed(0)} ms`);
});

// ---------- narrow columns ----------

test('article: the split stage head tiles fit the column (no clipped tile)', { timeout: TEST_TIMEOUT }, async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const width of [1280, 480]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${server.url}examples/article.html`);
    await page.waitForFunction(() => customElements.get('mha-demo'), null, { timeout: WAIT });
    await page.evaluate(() => Promise.all([...document.querySelectorAll('mha-demo')].map((d) => d.ready)));
    const boxes = await page.evaluate(() => {
      const root = document.querySelector('#demo-zh').shadowRoot;
      return [...root.querySelectorAll('section[data-stage="split"] [data-tensor]')].map((card) => {
        const cr = card.getBoundingClientRect();
        const scroller = card.querySelector('.tiles-scroll');
        const tiles = [...card.querySelectorAll('.tile')].map((t) => t.getBoundingClientRect());
        return {
          name: card.dataset.tensor,
          tiles: tiles.length,
          cardRight: cr.right,
          right: Math.max(...tiles.map((r) => r.right)),
          narrowest: Math.min(...tiles.map((r) => r.width)),
          overflow: scroller.scrollWidth - scroller.clientWidth,
        };
      });
    });
    assert.equal(boxes.length, 3, 'q_heads, k_heads, v_heads');
    for (const b of boxes) {
      assert.equal(b.tiles, 8, `${b.name}: eight head tiles`);
      assert.ok(b.overflow <= 0, `${width}px: ${b.name}'s tiles do not overflow their card (by ${b.overflow}px)`);
      assert.ok(b.right <= b.cardRight, `${width}px: ${b.name}'s last tile ends inside the card (${b.right} > ${b.cardRight})`);
      assert.ok(b.narrowest >= 30, `${width}px: ${b.name}'s tiles stay readable (${b.narrowest}px)`);
    }
    await shotOf(page, '#demo-zh', path.join(SHOTS, `article-split-${width}.png`));
  }
  assertNoProblems();
});
