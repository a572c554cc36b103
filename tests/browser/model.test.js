// The page on the model this project trained (the default): it opens at layer 1's attend stage
// with the heads measured and labelled by the core, walks the stages the core's table gives a model
// of blocks, predicts the repeat, and switching the induction heads off breaks that prediction.
'use strict';

const { test, beforeEach } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const { usePageSuite } = require('./browser.js');

const ROOT = path.join(__dirname, '..', '..');
const SHOTS = path.join(ROOT, 'test-results', 'screenshots');
const TEST_TIMEOUT = 90_000;
const WAIT = 10_000;

let server;
let page;
const suite = usePageSuite({
  files: ['web/index.html', 'web/build/app.js', 'web/build/mha-demo.js', 'web/build/mha-trained.js'],
  wait: WAIT,
});
beforeEach(() => {
  ({ server, page } = suite);
});

async function open(url) {
  await page.goto(url);
  await page.waitForFunction(() => window.mhaPage && window.mhaPage.ready, null, { timeout: WAIT });
  await page.evaluate(async () => {
    await window.mhaPage.ready;
  });
}

// What the page shows and what the core returned, side by side.
const shown = () =>
  page.evaluate(() => {
    const demo = document.querySelector('mha-demo');
    const root = demo.shadowRoot;
    const s = demo.state;
    const panel = root.querySelector('section[data-stage="attend"] .heads-panel');
    const summary = root.querySelector('section[data-stage="predict"] .predict-summary');
    return {
      stage: s.stage,
      layer: s.result.layer,
      config: s.result.config,
      stages: s.result.stages.map((x) => x.id),
      pipeline: [...root.querySelectorAll('[data-stage-button]')].map((b) => b.dataset.stageButton),
      apiLabels: s.result.heads.layers.map((l) => l.heads.map((x) => x.label)),
      panelLayer: panel && Number(panel.dataset.headsLayer),
      panelLabels: panel && [...panel.querySelectorAll('.heads-table tbody tr')].map((r) => r.dataset.label),
      right: summary && Number(summary.dataset.right),
      url: location.search,
    };
  });

test('the default page: the trained model at layer 1, heads labelled by the core, the repeat predicted', { timeout: TEST_TIMEOUT }, async () => {
  await open(server.url);
  let s = await shown();
  assert.equal(s.config.model, 'attn-only');
  assert.equal(s.config.layers, 2);
  assert.equal(s.stage, 'attend');
  assert.equal(s.layer, 1);
  assert.deepEqual(s.pipeline, s.stages, 'the pipeline walks the stages of the core table for this model');
  assert.ok(s.stages.includes('residual') && s.stages.includes('predict'));
  assert.equal(s.panelLayer, 1);
  assert.deepEqual(s.panelLabels, s.apiLabels[1], 'the panel shows the labels the core computed');
  assert.ok(s.apiLabels[1].filter((l) => l === 'induction').length >= 2, `layer 1 has induction heads: ${s.apiLabels[1]}`);
  assert.ok(s.apiLabels[0].includes('previous_token'), `layer 0 has a previous-token head: ${s.apiLabels[0]}`);
  // The similarity table shows the core's matrix; hovering a head's row marks its map.
  const sim = await page.evaluate(() => {
    const demo = document.querySelector('mha-demo');
    const cells = [...demo.shadowRoot.querySelectorAll('.heads-panel .similarity td')].map((td) => td.textContent);
    return { cells, api: demo.state.result.heads.layers[1].similarity.flat().map((v) => v.toFixed(2)) };
  });
  assert.deepEqual(sim.cells, sim.api);
  await page.locator('.heads-table tbody tr[data-head="2"]').hover();
  assert.ok(await page.locator('[data-tensor="weights"] .head-tile[data-head="2"].highlight').count(), 'the hovered head\'s map is marked');
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, 'trained-attend.png') });

  // The layer selector shows layer 0, whose panel names the previous-token heads.
  await page.locator('#view-layer').selectOption('0');
  await page.waitForFunction(() => document.querySelector('mha-demo').state.result.layer === 0, null, { timeout: WAIT });
  s = await shown();
  assert.deepEqual(s.panelLabels, s.apiLabels[0]);
  await page.waitForFunction(() => new URLSearchParams(location.search).get('view-layer') === '0', null, { timeout: WAIT });

  // The prediction gets the repeat right: 我是秦始皇，我是秦始皇 -> after the second 我, 是 秦 始 皇.
  await page.evaluate(() => window.mhaPage.goTo('predict'));
  s = await shown();
  assert.ok(s.right >= 4, `the repeat is predicted (${s.right} right)`);
  const before = s.right;
  await page.screenshot({ path: path.join(SHOTS, 'trained-predict.png') });

  // Switch every layer-1 head off with its switch: the repeat can no longer be predicted.
  await page.locator('#view-layer').selectOption('1');
  await page.waitForFunction(() => document.querySelector('mha-demo').state.result.layer === 1, null, { timeout: WAIT });
  await page.evaluate(() => window.mhaPage.goTo('attend'));
  for (let hd = 0; hd < 4; hd++) {
    await page.locator(`[data-head-switch="1.${hd}"]`).click();
    await page.waitForFunction((n) => document.querySelector('mha-demo').state.settings.switchedOff.length === n, hd + 1, { timeout: WAIT });
  }
  await page.evaluate(() => window.mhaPage.goTo('predict'));
  await page.waitForFunction(() => document.querySelector('mha-demo').shadowRoot.querySelector('[data-switched-off]'), null, { timeout: WAIT });
  s = await shown();
  assert.ok(s.right <= before - 3, `switching the induction heads off breaks the prediction (${before} -> ${s.right} right)`);
  await page.waitForFunction(() => new URLSearchParams(location.search).get('ablate') === '1.0,1.1,1.2,1.3', null, { timeout: WAIT });
  suite.assertNoProblems();
});

test('a permalink restores the model, layer, switched-off heads and stage; random weights keep their own stages', { timeout: TEST_TIMEOUT }, async () => {
  await open(`${server.url}?model=trained&view-layer=0&ablate=0.2,0.3&stage=predict&lang=zh`);
  let s = await shown();
  assert.equal(s.stage, 'predict');
  assert.equal(s.layer, 0);
  const state = await page.evaluate(() => document.querySelector('mha-demo').state.settings.switchedOff);
  assert.deepEqual(state, [[0, 2], [0, 3]]);
  // Switching to random weights: one attention layer, seven stages; the predict stage gives way.
  await page.locator('#model').selectOption('random');
  await page.waitForFunction(() => document.querySelector('mha-demo').state.result.config.model === 'single', null, { timeout: WAIT });
  s = await shown();
  assert.deepEqual(s.stages, ['tokenize', 'embed', 'project', 'split', 'attend', 'concat', 'output']);
  assert.deepEqual(s.pipeline, s.stages);
  assert.ok(s.stages.includes(s.stage), `the stage moved to one this model has: ${s.stage}`);
  suite.assertNoProblems();
});

test('the trained model loads from file:// too (mha-trained.js beside mha-demo.js)', { timeout: TEST_TIMEOUT }, async () => {
  await open(pathToFileURL(path.join(ROOT, 'web', 'index.html')).href);
  const s = await shown();
  assert.equal(s.config.model, 'attn-only');
  assert.ok(s.apiLabels[1].includes('induction'));
  suite.assertNoProblems();
});

test('training in the page: induction heads form within 90 s, events carry the numbers, pause, resume and reset', { timeout: 150_000 }, async () => {
  await open(server.url);
  await page.evaluate(() => {
    const demo = document.querySelector('mha-demo');
    window.__progress = [];
    window.__ends = [];
    demo.addEventListener('trainprogress', (e) => window.__progress.push(e.detail));
    demo.addEventListener('trainend', (e) => window.__ends.push(e.detail));
  });
  const started = Date.now();
  await page.locator('[data-train="start"]').click();
  await page.waitForFunction(() => window.__progress.some((p) => p.induction >= 0.7), null, { timeout: 90_000 });
  const seconds = (Date.now() - started) / 1000;
  const last = await page.evaluate(() => window.__progress[window.__progress.length - 1]);
  assert.ok(last.step > 0 && last.stepsPerSecond > 0 && Number.isFinite(last.loss), JSON.stringify(last));
  assert.equal(last.heads.length, 8, 'both layers, four heads each');
  for (const h of last.heads) assert.ok([0, 1].includes(h.layer) && h.head >= 0 && h.head < 4 && typeof h.label === 'string');
  assert.ok(last.heads.some((h) => h.layer === 1 && h.label === 'induction'), 'layer 1 has turned into induction heads');
  assert.ok(last.phaseStep > 0, 'the phase change is marked');
  const gaps = await page.evaluate(() => window.__progress.slice(1).map((p, i) => p.step - window.__progress[i].step));
  assert.ok(gaps.length >= 3, 'reports keep coming while it trains');
  console.log(`# training in Chromium: induction ≥ 0.7 after ${seconds.toFixed(1)} s (step ${last.step}, ${last.stepsPerSecond.toFixed(0)} steps/s)`);
  await page.locator('.train-panel').screenshot({ path: path.join(SHOTS, 'train-panel.png') });

  // Pause: the step stops moving and trainend says why; the stage can change meanwhile.
  await page.evaluate(() => document.querySelector('mha-demo').pause());
  await page.waitForFunction(() => window.__ends.length === 1, null, { timeout: WAIT });
  assert.equal(await page.evaluate(() => window.__ends[0].reason), 'paused');
  const paused = await page.evaluate(() => document.querySelector('mha-demo').training.step);
  await page.evaluate(() => window.mhaPage.goTo('predict'));
  await page.waitForTimeout(400);
  assert.equal(await page.evaluate(() => document.querySelector('mha-demo').training.step), paused, 'paused means paused');
  // Resume from where it was; reset starts again from a new seed.
  await page.evaluate(() => document.querySelector('mha-demo').train());
  await page.waitForFunction((s) => document.querySelector('mha-demo').training.step > s, paused, { timeout: WAIT });
  await page.evaluate(() => document.querySelector('mha-demo').resetTraining(7));
  await page.waitForFunction(() => document.querySelector('mha-demo').training.step === 0 && !document.querySelector('mha-demo').training.running, null, { timeout: WAIT });
  assert.equal(await page.locator('[data-train="download"]').isDisabled(), true, 'nothing to download after a reset');
  suite.assertNoProblems();
});

test('open your own model: a whole model file, a single PyTorch layer, and a bad file that changes nothing', { timeout: TEST_TIMEOUT }, async () => {
  await open(server.url);
  // A whole model through the picker: the shipped one, as a learner who downloaded it would.
  await page.locator('#model-file').setInputFiles(path.join(ROOT, 'models', 'induction.safetensors'));
  await page.waitForFunction(() => document.querySelector('mha-demo').state.settings.model === 'file', null, { timeout: WAIT });
  await page.waitForFunction(() => document.querySelector('mha-demo').state.result.config.model === 'attn-only', null, { timeout: WAIT });
  let s = await shown();
  assert.equal(s.config.layers, 2);
  assert.match(await page.locator('.trained-note').textContent(), /induction\.safetensors: attn-only, 2 layers/);
  await page.waitForFunction(() => /model=file.*file=induction\.safetensors/.test(location.search), null, { timeout: WAIT });

  // A bad file: one message, and the model shown stays as it was.
  const before = await page.evaluate(() => document.querySelector('mha-demo').state.result);
  await page.locator('#model-file').setInputFiles({ name: 'broken.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from([1, 2, 3]) });
  await page.waitForFunction(() => document.querySelector('mha-demo').state.errors.model, null, { timeout: WAIT });
  const after = await page.evaluate(() => ({ error: document.querySelector('mha-demo').state.errors.model, model: document.querySelector('mha-demo').state.settings.model }));
  assert.match(after.error, /^broken\.safetensors: /);
  assert.equal(after.model, 'file');
  assert.equal(await page.evaluate((r) => document.querySelector('mha-demo').state.result.text === r.text, before), true);
  assert.ok(await page.locator('.attr-errors li[data-attribute="model"]').count(), 'the message is shown in the demo');

  // One PyTorch attention layer: random mode with the file's weights (d_model 24 from the file).
  await page.locator('#model-file').setInputFiles(path.join(ROOT, 'tests', 'reference', 'data', 'pytorch_mha.weights.safetensors'));
  await page.waitForFunction(() => document.querySelector('mha-demo').state.result.config.model === 'single' && document.querySelector('mha-demo').state.result.config.dModel === 24, null, { timeout: WAIT });
  s = await shown();
  assert.deepEqual(s.stages, ['tokenize', 'embed', 'project', 'split', 'attend', 'concat', 'output']);
  suite.assertNoProblems();
});

test('a permalink to an opened file asks for the file again', { timeout: TEST_TIMEOUT }, async () => {
  await page.goto(`${server.url}?model=file&file=mine.safetensors`);
  await page.waitForFunction(() => document.querySelector('mha-demo').state.errors.model, null, { timeout: WAIT });
  const error = await page.evaluate(() => document.querySelector('mha-demo').state.errors.model);
  assert.match(error, /open the model file 'mine\.safetensors' again/);
});

test('model="….safetensors" fetches a whole model and opens it; a missing one rejects ready with the message', { timeout: TEST_TIMEOUT }, async () => {
  fs.copyFileSync(path.join(ROOT, 'models', 'induction.safetensors'), path.join(ROOT, 'web', 'build', 'test-model.safetensors'));
  try {
    await open(`${server.url}?model=build/test-model.safetensors&stage=predict`);
    const s = await shown();
    assert.equal(s.config.model, 'attn-only');
    assert.equal(s.stage, 'predict');
    assert.ok(s.right >= 4);
  } finally {
    fs.rmSync(path.join(ROOT, 'web', 'build', 'test-model.safetensors'), { force: true });
  }
  suite.problems.length = 0;
  await page.goto(`${server.url}?model=build/missing.safetensors`);
  const outcome = await page.evaluate(() => document.querySelector('mha-demo').ready.then(() => 'resolved', (e) => e.message));
  assert.match(outcome, /missing\.safetensors/);
});
