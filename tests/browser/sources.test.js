// Where a model comes from, and what a link carries: a weights or model URL that fails (answered at
// once or after 2 s), a reloaded permalink of a file opened from disk, a bad file dropped on the
// demo; each shows one message in the learner's language, keeps (or, on a fresh page, falls back to)
// a picture, never "null" or a stale "Loading…", and settles el.ready. A link copied after switching
// models opens with the same numbers, and one that cannot carry a file says so.
// Timed (timedTest): a model URL that fails after a set delay.
'use strict';

const { beforeEach } = require('node:test');
const { test, timedTest } = require('./lanes.js');
const assert = require('node:assert/strict');

const { usePageSuite } = require('./browser.js');

const WAIT = 15_000;
const TEST_TIMEOUT = 90_000;
const HAN = /[\u4e00-\u9fff]/;

let server;
let page;
const suite = usePageSuite({
  files: ['web/index.html', 'web/build/app.js', 'web/build/mha-demo.js', 'web/build/mha-trained.js'],
  wait: WAIT,
  isExpected: (text) => /missing\.safetensors|404/.test(text),
});
beforeEach(() => {
  ({ server, page } = suite);
});

const demo = (fn, arg) => page.evaluate(fn, arg);
// The 404s a test provoked are expected; anything else the page reports is not.
const assertNoProblems = () => {
  suite.problems.splice(0, suite.problems.length, ...suite.problems.filter((p) => !/^HTTP 404: .*missing\.safetensors$/.test(p)));
  suite.assertNoProblems();
};

// el.ready's outcome, without waiting for ever: 'resolved', 'rejected: …' or 'pending'.
const readyOutcome = () =>
  demo(() => customElements.whenDefined('mha-demo').then(() => Promise.race([
    document.querySelector('mha-demo').ready.then(() => 'resolved', (e) => `rejected: ${e.message}`),
    new Promise((r) => setTimeout(() => r('pending'), 10_000)),
  ])));

// What the learner sees: the message box's items, the status line, the whole text, whether a stage is drawn.
const seen = () =>
  demo(() => {
    const el = document.querySelector('mha-demo');
    const root = el.shadowRoot;
    const box = root.querySelector('.attr-errors');
    const shown = root.querySelector('section[data-stage]:not([hidden])');
    return {
      messages: box.hidden ? [] : [...box.querySelectorAll('li')].map((li) => li.textContent),
      status: root.querySelector('#status').textContent,
      busy: root.querySelector('#status').classList.contains('busy'),
      text: root.querySelector('.mha').innerText,
      drawn: Boolean(shown && shown.querySelector('[data-tensor], .tokenize, .predict')),
      model: el.state.result && el.state.result.config.model,
      highlighted: [...root.querySelectorAll('.field.has-error')].length,
    };
  });

function assertOneMessage(s, { lang, names }) {
  assert.equal(s.messages.length, 1, `one message: ${JSON.stringify(s.messages)}`);
  assert.ok(s.messages[0].includes(names), `it names ${names}: ${s.messages[0]}`);
  if (lang === 'zh') {
    assert.match(s.messages[0], HAN, `in Chinese: ${s.messages[0]}`);
    assert.doesNotMatch(s.messages[0], /\b(could|load|open|again|browsers?|file:\/\/ pages?)\b/i, `no English sentence: ${s.messages[0]}`);
  }
  assert.doesNotMatch(s.text, /\bnull\b/, 'never "null"');
  assert.doesNotMatch(s.text, /Loading the WebAssembly core|正在加载 WebAssembly/, 'no stale "Loading…"');
  assert.ok(!s.busy, `the status line is not busy: ${s.status}`);
  if (s.highlighted === 0) assert.doesNotMatch(s.status, /highlighted|标出/, `nothing is highlighted, so the status does not say so: ${s.status}`);
  assert.ok(s.drawn, 'a picture is shown');
}

for (const delay of [0, 2000]) {
  for (const lang of ['en', 'zh']) {
    timedTest(`a weights URL that fails after ${delay} ms (${lang}): one message, a picture of seeded weights said to be so, ready settles`, { timeout: TEST_TIMEOUT }, async () => {
      await page.route('**/missing.safetensors', async (route) => {
        await new Promise((r) => setTimeout(r, delay));
        await route.fulfill({ status: 404, body: 'not here' });
      });
      await page.goto(`${server.url}?model=random&weights=missing.safetensors&d-model=64&heads=4&lang=${lang}`);
      assert.match(await readyOutcome(), /^rejected: .*missing\.safetensors/, 'ready rejects with the message');
      await page.waitForFunction(() => document.querySelector('mha-demo').state.result, null, { timeout: WAIT });
      const s = await seen();
      assertOneMessage(s, { lang, names: 'missing.safetensors' });
      assert.doesNotMatch(s.status, /missing\.safetensors · pytorch/, 'the status does not claim the file\'s weights');
      // A text edit keeps saying it: the seeded weights are not shown as if they were the file's.
      await page.locator('#text').fill('我是秦始皇帝');
      await page.waitForFunction(() => document.querySelector('mha-demo').state.result.tokens.length === 6, null, { timeout: WAIT });
      assert.equal((await seen()).messages.length, 1, 'still said after an edit');
      assertNoProblems();
    });
  }
}

for (const lang of ['en', 'zh']) {
  test(`a reloaded permalink of a file opened from disk (${lang}): asks for the file once, shows the trained model meanwhile, ready settles`, { timeout: TEST_TIMEOUT }, async () => {
    await page.goto(`${server.url}?model=file&file=gpt2.safetensors&stage=attend&lang=${lang}`);
    assert.match(await readyOutcome(), /^rejected: .*gpt2\.safetensors/);
    await page.waitForFunction(() => document.querySelector('mha-demo').state.result, null, { timeout: WAIT });
    const s = await seen();
    assertOneMessage(s, { lang, names: 'gpt2.safetensors' });
    assert.equal(s.model, 'attn-only', 'the trained model is shown meanwhile');
    assert.equal(new URL(page.url()).searchParams.get('file'), 'gpt2.safetensors', 'the link still asks for the file');
    assertNoProblems();
  });
}

timedTest('a model URL that fails after a picture keeps that picture and says why once; so does a bad file dropped on the demo', { timeout: TEST_TIMEOUT }, async () => {
  await page.route('**/missing.safetensors', async (route) => {
    await new Promise((r) => setTimeout(r, 500));
    await route.fulfill({ status: 404, body: 'not here' });
  });
  await page.goto(`${server.url}?model=trained&lang=zh`);
  await demo(() => document.querySelector('mha-demo').ready);
  const before = await demo(() => document.querySelector('mha-demo').state.result.ids.join());
  await demo(() => document.querySelector('mha-demo').setAttribute('model', 'missing.safetensors'));
  await page.waitForFunction(() => !document.querySelector('mha-demo').shadowRoot.querySelector('.attr-errors').hidden, null, { timeout: WAIT });
  let s = await seen();
  assertOneMessage(s, { lang: 'zh', names: 'missing.safetensors' });
  assert.equal(s.model, 'attn-only');
  assert.equal(await demo(() => document.querySelector('mha-demo').state.result.ids.join()), before, 'the same picture');

  await demo(() => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9])], 'broken.safetensors'));
    document.querySelector('mha-demo').shadowRoot.querySelector('.mha').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  });
  await page.waitForFunction(() => /broken/.test(document.querySelector('mha-demo').shadowRoot.querySelector('.attr-errors').textContent), null, { timeout: WAIT });
  s = await seen();
  assert.equal(s.messages.length, 1, `the newest failure only: ${JSON.stringify(s.messages)}`);
  assert.ok(s.drawn);
  assert.equal(s.model, 'attn-only');
  assert.doesNotMatch(s.status, /highlighted|标出/);
  assertNoProblems();
});

// ---------- links ----------

// The numbers a link opens with: the ids and a few values of every stage's first tensor.
const numbers = () =>
  demo(() => {
    const r = document.querySelector('mha-demo').state.result;
    const sample = {};
    for (const [name, t] of Object.entries(r.tensors)) if (!name.startsWith('layers.')) sample[name] = Array.from(t.data.slice(0, 8)).map((v) => v.toFixed(5)).join();
    return { ids: r.ids.join(), vocab: r.config.vocabSize, positions: r.config.maxPositions, sample };
  });
const linkOfPage = async () => {
  await page.waitForFunction(() => new URLSearchParams(location.search).get('model') !== null || location.search.includes('d-model'), null, { timeout: WAIT });
  await page.waitForTimeout(700); // the permalink is written once the page is idle
  return page.url();
};

for (const [from, to] of [['trained', 'random'], ['trained', 'blocks'], ['blocks', 'random']]) {
  test(`${from} → ${to}: the link gives the same numbers as the page it was copied from`, { timeout: TEST_TIMEOUT }, async () => {
    await page.goto(`${server.url}?model=${from}`);
    await demo(() => document.querySelector('mha-demo').ready);
    await page.locator('#model').selectOption(to);
    await page.waitForFunction((m) => {
      const s = document.querySelector('mha-demo').state;
      return s.result && s.settings.model === m && s.status === 'idle';
    }, to, { timeout: WAIT });
    const switched = await numbers();
    const link = await linkOfPage();
    await page.goto(link);
    await demo(() => document.querySelector('mha-demo').ready);
    assert.deepEqual(await numbers(), switched, `${link} opened fresh`);
    assertNoProblems();
  });
}

test('a link from a file opened from disk says it cannot carry the file', { timeout: TEST_TIMEOUT }, async () => {
  await page.goto(`${server.url}?model=trained&lang=zh`);
  await demo(() => document.querySelector('mha-demo').ready);
  const bytes = require('node:fs').readFileSync(require('node:path').join(__dirname, '..', '..', 'models', 'induction.safetensors'));
  await page.locator('#model-file').setInputFiles({ name: 'mine.safetensors', mimeType: 'application/octet-stream', buffer: bytes });
  await page.waitForFunction(() => document.querySelector('mha-demo').state.settings.file === 'mine.safetensors' && document.querySelector('mha-demo').state.status === 'idle', null, { timeout: WAIT });
  await page.locator('#embed-open').click();
  const note = await demo(() => {
    const p = document.querySelector('#embed-dialog [data-link-note]');
    return p.hidden ? null : p.textContent;
  });
  assert.match(note || '', /链接带不走 mine\.safetensors/);
  await page.locator('#embed-dialog [data-close]').click();
  // The trained model again: nothing to say.
  await page.locator('#model').selectOption('trained');
  await page.waitForFunction(() => document.querySelector('mha-demo').state.settings.model === 'trained' && document.querySelector('mha-demo').state.status === 'idle', null, { timeout: WAIT });
  await page.locator('#embed-open').click();
  assert.equal(await demo(() => document.querySelector('#embed-dialog [data-link-note]').hidden), true);
  assertNoProblems();
});
