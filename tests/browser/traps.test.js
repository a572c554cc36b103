// The traps a new learner fell into, each seen on the page before it was fixed: kv_heads that did
// not follow heads, weights that failed or were forgotten, grouped-query heads not grouped at the
// attend stage, a minimal embed that pointed at a control it lacks, share snippets with file:///
// addresses, "1 tokens", a pipeline strip scrolled away from the stage shown, and a worked example
// whose causal row taught nothing.
'use strict';

const { test, beforeEach } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const { usePageSuite } = require('./browser.js');
const { trainedModels } = require('../../scripts/web-parts.js');

const ROOT = path.join(__dirname, '..', '..');
const WAIT = 10_000;
const TEST_TIMEOUT = 60_000;

let server;
let page;
const suite = usePageSuite({
  files: ['web/index.html', 'web/embed.html', 'web/build/app.js', 'web/build/mha-demo.js', 'web/build/mha-trained.js'],
  wait: WAIT,
  // the missing file, and the file:// page refused a fetch (its console lines and failed request; the
  // same file served over http must load)
  isExpected: (text) => /missing\.safetensors|file:\/\/\S*test-layer\.safetensors/.test(text),
});
beforeEach(() => {
  ({ server, page } = suite);
});

const demo = (fn, arg) => page.evaluate(fn, arg);
async function open(url) {
  await page.goto(url);
  await page.waitForFunction(() => window.mhaPage && window.mhaPage.ready, null, { timeout: WAIT });
  await page.evaluate(() => window.mhaPage.ready);
}
async function setField(selector, value) {
  await page.locator(selector).fill(String(value));
  await page.locator(selector).dispatchEvent('change');
}
const visibleErrors = () =>
  demo(() => [...document.querySelector('mha-demo').shadowRoot.querySelectorAll('.field-error')].filter((e) => !e.hidden && e.textContent.trim()).map((e) => e.textContent));
const paramCount = () => demo(() => Number(document.querySelector('mha-demo').shadowRoot.querySelector('[data-param-count]').dataset.paramCount));
const waitSettled = (heads) => page.waitForFunction((n) => document.querySelector('mha-demo').state.result.config.heads === n, heads, { timeout: WAIT });

test('kv_heads follows heads, so the parameter count stays the same for any number of heads; set apart it is grouped-query', { timeout: TEST_TIMEOUT }, async () => {
  await open(`${server.url}?model=random&stage=split`);
  const start = await paramCount();
  assert.equal(start, 1_050_624);
  for (const heads of [4, 16, 1, 8]) {
    await setField('#heads', heads);
    await waitSettled(heads);
    assert.deepEqual(await visibleErrors(), [], `heads ${heads}: no error`);
    assert.equal(await demo(() => document.querySelector('mha-demo').state.settings.kvHeads), heads, `kv_heads follows heads to ${heads}`);
    assert.equal(await paramCount(), start, `heads ${heads}: the same parameter count`);
  }
  // Chosen on purpose: grouped-query attention, said next to the field, kept when heads change.
  await setField('#kv-heads', 2);
  await page.waitForFunction(() => document.querySelector('mha-demo').state.result.config.kvHeads === 2, null, { timeout: WAIT });
  assert.match(await demo(() => document.querySelector('mha-demo').shadowRoot.querySelector('[data-kv-note]').textContent), /grouped-query: 4 query heads/);
  await setField('#heads', 4);
  await waitSettled(4);
  assert.equal(await demo(() => document.querySelector('mha-demo').state.settings.kvHeads), 2, 'a chosen kv_heads stays');
  assert.ok((await paramCount()) < start, 'grouped-query attention has fewer K/V weights');
  suite.assertNoProblems();
});

test('weights that fail to load: ready rejects with one message, no stray text; loaded weights are named, shown and kept in the permalink', { timeout: TEST_TIMEOUT }, async () => {
  await page.goto(`${server.url}?model=random&weights=build/missing.safetensors`);
  const outcome = await demo(() => document.querySelector('mha-demo').ready.then(() => 'resolved', (e) => e.message));
  assert.match(outcome, /missing\.safetensors/);
  const text = await demo(() => document.querySelector('mha-demo').shadowRoot.textContent);
  assert.doesNotMatch(text, /\bnull\b|Loading the WebAssembly core/);

  // From file://, where browsers refuse fetch: the demo says so, instead of showing random weights as if they were the file's.
  await page.goto(`${pathToFileURL(path.join(ROOT, 'web', 'index.html')).href}?model=random&weights=build/test-layer.safetensors`);
  const fromDisk = await demo(() => document.querySelector('mha-demo').ready.then(() => 'resolved', (e) => e.message));
  assert.match(fromDisk, /test-layer\.safetensors/);
  assert.match(fromDisk, /file:\/\/|http/, `the message says why: ${fromDisk}`);

  const copy = path.join(ROOT, 'web', 'build', 'test-layer.safetensors');
  fs.copyFileSync(path.join(ROOT, 'tests', 'reference', 'data', 'pytorch_mha.weights.safetensors'), copy);
  try {
    await open(`${server.url}?model=random&weights=build/test-layer.safetensors&heads=4`);
    const seen = await demo(() => {
      const root = document.querySelector('mha-demo').shadowRoot;
      return { dModel: root.querySelector('#d-model').value, readOnly: root.querySelector('#d-model').readOnly, status: root.querySelector('#status').textContent, config: document.querySelector('mha-demo').state.result.config.dModel };
    });
    assert.equal(seen.config, 24);
    assert.equal(seen.dModel, '24', 'the d_model field shows the file\'s');
    assert.ok(seen.readOnly, 'and cannot be typed into while the file sets it');
    assert.match(seen.status, /test-layer\.safetensors · pytorch, layer 0 · /);
    await page.waitForFunction(() => new URLSearchParams(location.search).get('weights') === 'build/test-layer.safetensors', null, { timeout: WAIT });
    assert.equal(new URL(page.url()).searchParams.get('d-model'), null, 'the permalink does not claim a d_model the file overrides');
  } finally {
    fs.rmSync(copy, { force: true });
  }
  suite.assertNoProblems();
});

test('Llama weights add the rope stage between split and attend, with its text, formula and q_rot/k_rot; other weights do not', { timeout: TEST_TIMEOUT }, async () => {
  const copy = path.join(ROOT, 'web', 'build', 'test-llama.safetensors');
  fs.copyFileSync(path.join(ROOT, 'tests', 'reference', 'data', 'llama_mqa_layer0.weights.safetensors'), copy);
  const stagesShown = () => demo(() => [...document.querySelector('mha-demo').shadowRoot.querySelectorAll('section[data-stage]')].map((s) => s.dataset.stage));
  try {
    await open(`${server.url}?model=random&weights=build/test-llama.safetensors&layout=llama&heads=6&kv-heads=1&stage=rope&lang=zh`);
    const stages = await stagesShown();
    assert.deepEqual(stages.slice(stages.indexOf('split'), stages.indexOf('split') + 3), ['split', 'rope', 'attend']);
    const seen = await demo(() => {
      const section = document.querySelector('mha-demo').shadowRoot.querySelector('section[data-stage="rope"]');
      const q = section.querySelector('[data-tensor="q_rot"]');
      return { text: section.textContent, shape: q.dataset.shape, tiles: q.querySelectorAll('.tile').length, kTiles: section.querySelectorAll('[data-tensor="k_rot"] .tile').length };
    });
    assert.match(seen.text, /按位置旋转 Q 和 K/);
    assert.match(seen.text, /500000/, 'the base from the file');
    assert.equal(seen.shape, '1,6,5,4');
    assert.equal(seen.tiles, 6);
    assert.equal(seen.kTiles, 1, 'multi-query: one K/V head');
    await open(`${server.url}?model=random&d-model=24&heads=6`);
    assert.ok(!(await stagesShown()).includes('rope'), 'random weights have no RoPE');
  } finally {
    fs.rmSync(copy, { force: true });
  }
  suite.assertNoProblems();
});

test('grouped-query heads are grouped at the attend stage too', { timeout: TEST_TIMEOUT }, async () => {
  await open(`${server.url}?model=random&d-model=64&heads=4&kv-heads=2&stage=attend`);
  const tiles = await demo(() => [...document.querySelector('mha-demo').shadowRoot.querySelectorAll('section[data-stage="attend"] [data-tensor="weights"] .head-tile')]
    .map((t) => [t.dataset.kvGroup, t.querySelector('.tile-kv').textContent, getComputedStyle(t).borderBottomColor]));
  assert.deepEqual(tiles.map(([g]) => g), ['0', '0', '1', '1']);
  assert.deepEqual(tiles.map(([, label]) => label), ['K/V head 0', 'K/V head 0', 'K/V head 1', 'K/V head 1']);
  assert.equal(tiles[0][2], tiles[1][2], 'one colour per K/V head');
  assert.notEqual(tiles[1][2], tiles[2][2]);
  suite.assertNoProblems();
});

test('a minimal embed does not point at a causal control it lacks', { timeout: TEST_TIMEOUT }, async () => {
  await page.goto(`${server.url}embed.html?model=random&text=${encodeURIComponent('我是秦始皇')}&stage=attend&controls=minimal`);
  await page.evaluate(() => document.querySelector('mha-demo').ready);
  const text = await demo(() => {
    const section = document.querySelector('mha-demo').shadowRoot.querySelector('section[data-stage="attend"]');
    // innerText leaves out what is not rendered, and the parts far below the viewport are not
    // (widget.css: content-visibility: auto): the doesNotMatch below must read the whole section
    const style = document.createElement('style');
    style.textContent = '.stack > * { content-visibility: visible !important; }';
    section.getRootNode().appendChild(style);
    const text = section.innerText;
    style.remove();
    return text;
  });
  assert.doesNotMatch(text, /turn on/i);
  assert.match(text, /No mask/);
  suite.assertNoProblems();
});

test('from file://, the share snippets name files, not file:/// addresses', { timeout: TEST_TIMEOUT }, async () => {
  await page.goto(`${pathToFileURL(path.join(ROOT, 'web', 'index.html')).href}?model=random`);
  await page.evaluate(() => document.querySelector('mha-demo').ready);
  await page.locator('#embed-open').click();
  const snippets = await demo(() => ({ element: document.querySelector('[data-snippet="element"]').value, iframe: document.querySelector('[data-snippet="iframe"]').value, intro: document.querySelector('#embed-dialog [data-i18n="embedIntro"]').textContent }));
  assert.doesNotMatch(snippets.element, /file:/);
  assert.doesNotMatch(snippets.iframe, /file:/);
  assert.match(snippets.element, /src="mha-demo\.js"/);
  assert.match(snippets.intro, /opened from disk/);
  for (const model of trainedModels()) assert.ok(snippets.intro.includes(model.script), `the intro says to copy ${model.script} too`);
});

test('one token is "1 token"; a strip opened at a late stage shows that stage', { timeout: TEST_TIMEOUT }, async () => {
  await open(`${server.url}?model=random&text=${encodeURIComponent('我')}`);
  assert.equal(await demo(() => document.querySelector('mha-demo').shadowRoot.querySelector('[data-stage-button="tokenize"] .pipe-shape').textContent), '1 token');
  await page.setViewportSize({ width: 700, height: 900 });
  await open(`${server.url}?model=blocks&d-model=32&heads=4&stage=mlp`);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const seen = await demo(() => {
    const root = document.querySelector('mha-demo').shadowRoot;
    const button = root.querySelector('[data-stage-button="mlp"]').getBoundingClientRect();
    const strip = root.querySelector('[data-stage-button="mlp"]').closest('.pipe-list').parentElement.getBoundingClientRect();
    return { button: [button.left, button.right], strip: [strip.left, strip.right] };
  });
  assert.ok(seen.button[0] >= seen.strip[0] && seen.button[1] <= seen.strip[1], `the mlp button ${seen.button} is inside the strip ${seen.strip}`);
  suite.assertNoProblems();
});

test('the worked example under the causal mask spells out a row that sees every key, with numbers as the grids print them', { timeout: TEST_TIMEOUT }, async () => {
  await open(`${server.url}?model=random&d-model=64&heads=4&causal&stage=attend`);
  const worked = await demo(async () => {
    const root = document.querySelector('mha-demo').shadowRoot.querySelector('.worked');
    // innerText is the text as rendered, and a part far below the viewport is not rendered yet
    // (widget.css: content-visibility: auto): once in a CI run it read eight empty paragraphs
    root.scrollIntoView();
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    return { steps: [...root.querySelectorAll('.worked-steps > p')].map((p) => p.innerText).join('\n') };
  });
  assert.match(worked.steps, /Softmax of row 2/);
  assert.doesNotMatch(worked.steps, /− −|- -/, 'a negative number after a minus is in parentheses');
  assert.doesNotMatch(worked.steps, /\d\.\d{3}/, 'two decimals, as in the grids');
  suite.assertNoProblems();
});
