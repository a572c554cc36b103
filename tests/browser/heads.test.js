// What each head contributes, on the default page (the trained model, as the page holds it: its F16
// copy): the predict stage's bars sum to the logit they split and are the CLI's split; the output stage
// draws y as the heads' writes; the heads panel shows each head's importance; and stepping along the
// pruning curve, which is the CLI's curve, changes the prediction exactly as `mha predict --ablate`
// says with those heads off.
'use strict';

const { test, before, after, beforeEach } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { usePageSuite, importanceShown, openPage, shotOf } = require('./browser.js');
const { trainedModels, shippedModelBytes } = require('../../scripts/web-parts.js');

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'build', 'native', 'mha');
const SHOTS = path.join(ROOT, 'test-results', 'screenshots');
const TEST_TIMEOUT = 120_000;
const WAIT = 15_000;

let server;
let page;
let tmp;
let pageModel; // the page's trained model as a file: what the CLI checks it against
const suite = usePageSuite({
  files: ['web/index.html', 'web/build/app.js', 'web/build/mha-demo.js', 'web/build/mha-trained.js'],
  wait: WAIT,
});
before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mha-heads-'));
  pageModel = path.join(tmp, 'page-model.safetensors');
  fs.writeFileSync(pageModel, await shippedModelBytes(trainedModels()[0]));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
beforeEach(() => {
  ({ server, page } = suite);
});

const cli = (args) => execFileSync(CLI, args, { encoding: 'utf8' });
const close = (a, b, tolerance, what) => assert.ok(Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

const open = (url) => openPage(page, url, WAIT);

// The predict stage's attribution panel as drawn, and the prediction it explains.
const bars = () =>
  page.evaluate(() => {
    const demo = document.querySelector('mha-demo');
    const panel = demo.shadowRoot.querySelector('section[data-stage="predict"] .attribution');
    const position = Number(panel.dataset.position);
    const row = demo.shadowRoot.querySelector(`section[data-stage="predict"] tr[data-position="${position}"]`);
    const { result } = demo.state;
    const V = result.tensors.logits.shape[2];
    const first = Number(row.querySelector('.candidate[data-rank="0"]').dataset.id);
    return {
      position,
      text: demo.state.settings.text,
      first,
      logit: Number(panel.querySelector('.attribution-sum').dataset.logit),
      coreLogit: result.tensors.logits.data[position * V + first],
      parts: [...panel.querySelectorAll('li[data-part]')].map((li) => ({
        kind: li.dataset.part, layer: li.dataset.layer, head: li.dataset.head, value: Number(li.dataset.value), shown: li.querySelector('.part-value').textContent,
      })),
      pressed: [...demo.shadowRoot.querySelectorAll('section[data-stage="predict"] .pick[aria-pressed="true"]')].map((b) => b.textContent),
    };
  });

test('the predict stage\'s bars sum to the logit shown and are the CLI\'s split; y is drawn as the heads\' writes', { timeout: TEST_TIMEOUT }, async () => {
  await open(`${server.url}?model=trained`);
  await page.evaluate(() => window.mhaPage.goTo('predict'));
  let b = await bars();
  const T = await page.evaluate(() => document.querySelector('mha-demo').state.result.ids.length);
  assert.equal(b.position, T - 1, 'the last position by default');
  for (const pick of [null, 5]) {
    if (pick !== null) {
      await page.locator(`section[data-stage="predict"] tr[data-position="${pick}"] .pick`).click();
      await page.waitForFunction((p) => document.querySelector('mha-demo').shadowRoot.querySelector('.attribution').dataset.position === String(p), pick, { timeout: WAIT });
      b = await bars();
      assert.equal(b.position, pick);
    }
    assert.deepEqual(b.pressed, [String(b.position)], 'the picked position is marked in the table');
    assert.equal(b.parts.length, 10, 'the embedding, 8 heads, the biases');
    assert.equal(b.parts.filter((p) => p.kind === 'head').length, 8);
    close(b.parts.reduce((s, p) => s + p.value, 0), b.logit, 1e-5, 'the bars\' sum');
    assert.equal(b.logit, b.coreLogit, 'the logit shown is the first choice\'s logit of the run');
    // each bar shows its value to two places
    b.parts.forEach((p) => assert.ok(Math.abs(Number(p.shown.replace('−', '-')) - Number(p.value.toFixed(2))) < 1e-9, `${p.shown} shows ${p.value}`));
    // … and the split is the CLI's, on the same model (the page's F16 copy) and text
    const native = JSON.parse(cli(['attribute', '--model', pageModel, '--text', b.text, '--position', String(b.position), '--json']));
    assert.equal(native.token, b.first);
    native.parts.forEach((p, i) => {
      assert.equal(b.parts[i].kind, p.kind);
      close(b.parts[i].value, p.value, 1e-9, `part ${i}`);
    });
  }
  fs.mkdirSync(SHOTS, { recursive: true });
  await shotOf(page, 'section[data-stage="predict"] .attribution', path.join(SHOTS, 'predict-attribution.png'));

  // The output stage: y, and the same y as the four heads' writes, which with b_O sum to it.
  await page.evaluate(() => window.mhaPage.goTo('output'));
  const out = await page.evaluate(() => {
    const demo = document.querySelector('mha-demo');
    const section = demo.shadowRoot.querySelector('section[data-stage="output"]');
    const { head_write: writes, y } = demo.state.result.tensors;
    const [, H, n, d] = writes.shape;
    let worst = 0;
    const bias = new Float64Array(d);
    for (let i = 0; i < n * d; i++) {
      let sum = 0;
      for (let h = 0; h < H; h++) sum += writes.data[h * n * d + i];
      if (i < d) bias[i] = y.data[i] - sum; // b_O, from the first row
      else worst = Math.max(worst, Math.abs(y.data[i] - sum - bias[i % d]));
    }
    return { tiles: section.querySelectorAll('[data-tensor="head_write"] .tile').length, y: Boolean(section.querySelector('[data-tensor="y"]')), shape: writes.shape, worst };
  });
  assert.equal(out.tiles, 4);
  assert.ok(out.y);
  assert.deepEqual(out.shape, [1, 4, T, 64]);
  assert.ok(out.worst < 1e-5, `every row of y is the heads' writes plus the same b_O (${out.worst})`);
  await shotOf(page, 'section[data-stage="output"]', path.join(SHOTS, 'output-head-writes.png'));

  // The heads panel gives each head of the trained model its importance, as the CLI measures it on
  // this text (computed off the main thread, so it comes a moment after the run).
  await page.evaluate(() => window.mhaPage.goTo('attend'));
  await page.waitForFunction(() => {
    const s = document.querySelector('mha-demo').state;
    return s.importance && s.importance.ids.join() === s.result.ids.join();
  }, null, { timeout: WAIT });
  await importanceShown(page, WAIT);
  const shown = await page.evaluate(() => [...document.querySelector('mha-demo').shadowRoot.querySelectorAll('.heads-table td[data-metric="importance"] .metric-value')].map((e) => e.textContent));
  const heads = JSON.parse(cli(['heads', '--model', pageModel, '--text', b.text, '--importance', '--json']));
  assert.deepEqual(shown, heads.layers[1].heads.map((h) => h.importance.toFixed(3)));
  suite.assertNoProblems();
});

test('stepping along the pruning curve: the CLI\'s curve, and each step changes the prediction as `mha predict --ablate` says', { timeout: TEST_TIMEOUT }, async () => {
  await open(`${server.url}?model=trained`);
  await page.waitForFunction(() => {
    const s = document.querySelector('mha-demo').state;
    return s.pruning && s.pruning.steps;
  }, null, { timeout: 60_000 });
  const text = await page.evaluate(() => document.querySelector('mha-demo').state.settings.text);
  const { steps } = await page.evaluate(() => document.querySelector('mha-demo').state.pruning);
  const native = JSON.parse(cli(['prune', '--model', pageModel, '--json'])).steps;
  assert.equal(steps.length, 9);
  steps.forEach((s, k) => {
    assert.deepEqual(s.removed, native[k].removed, `step ${k}: the heads removed`);
    assert.equal(s.accuracy, native[k].accuracy, `step ${k}: accuracy`);
    close(s.loss, native[k].loss, 1e-6, `step ${k}: loss`);
  });
  assert.ok(steps.some((s) => s.removed.length >= 3 && s.accuracy >= 0.9) && steps[8].accuracy <= 0.2, 'redundant heads, then a collapse');
  await shotOf(page, '.pruning', path.join(SHOTS, 'pruning-curve.png'));

  const rights = [];
  for (const k of [0, 3, 6, 7, 8]) {
    await page.evaluate(() => window.mhaPage.goTo('attend'));
    await page.locator('#pruning-step').fill(String(k));
    const off = steps[k].removed.map(([l, h]) => `${l}.${h}`).sort();
    await page.waitForFunction((want) => {
      const s = document.querySelector('mha-demo').state;
      const now = s.settings.switchedOff.map(([l, h]) => `${l}.${h}`).sort();
      return s.status === 'idle' && JSON.stringify(now) === JSON.stringify(want) && s.result.heads && document.querySelector('mha-demo').shadowRoot.querySelector('.pruning').dataset.step === String(want.length);
    }, off, { timeout: WAIT });
    // every view switches them off: the heads panel's switches (scrolled out of view under the
    // enlarged head, they follow a moment after the change: lazy.js), and the prediction
    const layer1 = off.filter((x) => x.startsWith('1.'));
    // the heads switched off, or (given the wanted ones) whether they are those
    const switchedOff = (want) => {
      const now = [...document.querySelector('mha-demo').shadowRoot.querySelectorAll('[data-head-switch]')].filter((i) => !i.checked).map((i) => i.dataset.headSwitch).sort();
      return want ? JSON.stringify(now) === JSON.stringify(want) : now;
    };
    const settled = await page.waitForFunction(switchedOff, layer1, { timeout: WAIT }).then(() => true, () => false);
    if (!settled) assert.deepEqual(await page.evaluate(switchedOff), layer1, `step ${k}: layer 1's switches`);
    await page.evaluate(() => window.mhaPage.goTo('predict'));
    const right = await page.evaluate(() => Number(document.querySelector('mha-demo').shadowRoot.querySelector('section[data-stage="predict"] .predict-summary').dataset.right));
    const args = ['predict', '--model', pageModel, '--text', text];
    if (off.length) args.push('--ablate', off.join(','));
    const said = Number(/first choice right at (\d+) of/.exec(cli(args))[1]);
    assert.equal(right, said, `step ${k} (${off.join(', ') || 'none'} off): the page and the CLI agree`);
    rights.push(right);
  }
  assert.ok(rights[0] > rights[4], `removing heads breaks the repeat (${rights.join(' → ')} right)`);
  suite.assertNoProblems();
});
