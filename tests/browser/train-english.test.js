// Train it yourself on English: an English page chooses the Brown corpus's small recipe (the
// English model's own), says what it trains on in the page's language, and trains it from the text it
// loads when chosen: every report carries the heads as the heads table names them, each measured
// beside its chance on the English opening sentence with the recipe's vocabulary, and on the held-out
// windows as last measured; the held-out loss falls. What forms, and when, is the native suite's (test_corpus_models.cpp: rare-word heads on
// held-out prose by step 300), the recipe's bits the Node suite's (wasm.test.js).
'use strict';

const { test, before, beforeEach } = require('node:test');
const assert = require('node:assert/strict');

const { usePageSuite, openPage } = require('./browser.js');

const WAIT = 20_000;

let server;
let page;
let strings;
const suite = usePageSuite({
  files: ['web/index.html', 'web/build/app.js', 'web/build/mha-demo.js', 'web/build/mha-brown.js', 'web/build/mha-text-brown.js'],
  wait: WAIT,
});
before(async () => {
  ({ STRINGS: strings } = await import('../../web/src/strings.js'));
});
beforeEach(() => {
  ({ server, page } = suite);
});

const panelText = (selector) => page.evaluate((sel) => document.querySelector('mha-demo').shadowRoot.querySelector(sel).textContent, selector);

for (const lang of ['en', 'zh']) {
  test(`the English model's page in ${lang}: its recipe chosen in Train it yourself (second in the menu, after the poems'), said in ${lang}`, { timeout: 60_000 }, async () => {
    await openPage(page, `${server.url}?model=brown&lang=${lang}`, WAIT);
    assert.equal(await page.locator('#train-recipe').inputValue(), 'brown');
    const labels = await page.locator('#train-recipe option').allTextContents();
    assert.match(labels[0], lang === 'en' ? /^Tang poems: / : /^唐诗：/);
    assert.equal(labels[1], lang === 'en' ? 'English (Brown corpus): 2 blocks, d_model 64, 4 heads, 1,000 words' : '英语（Brown 语料库）：2 个块，d_model 64，4 个头，1,000 个词');
    await page.locator('#train-recipe').selectOption('brown'); // chosen again: nothing changes
    assert.equal(await panelText('.train-panel > p.hint'), strings['train.introCorpus.brown'][lang]);
    suite.assertNoProblems();
  });
}

test('el.train({task: "brown"}) trains English in the page: each report names the heads on the English sentence, beside their chance, and the held-out loss falls', { timeout: 120_000 }, async () => {
  await openPage(page, `${server.url}?model=brown&lang=en`, WAIT);
  await page.evaluate(() => {
    window.__progress = [];
    document.querySelector('mha-demo').addEventListener('trainprogress', (e) => window.__progress.push(e.detail));
    document.querySelector('mha-demo').train({ task: 'brown' });
  });
  // Past step 300, where rare-word heads have formed (on held-out prose: test_corpus_models.cpp).
  await page.waitForFunction(() => window.__progress.filter((p) => p.heldout !== null).length >= 3 && window.__progress.at(-1).step >= 300, null, { timeout: 90_000, polling: 250 });
  await page.evaluate(() => document.querySelector('mha-demo').pause());
  const progress = await page.evaluate(() => window.__progress);
  const last = progress[progress.length - 1];
  assert.equal(last.task, 'corpus');
  assert.equal(last.headTypes.length, 8, '2 blocks of 4 heads');
  for (const h of last.headTypes) {
    assert.ok(typeof h.type === 'string' && h.type.length > 0, JSON.stringify(h));
    if (h.type === 'mixed') assert.ok(h.nearest === null || typeof h.nearest === 'string', JSON.stringify(h));
    if (h.value !== null) assert.ok(Number.isFinite(h.value), JSON.stringify(h));
    if (h.chance !== null) assert.ok(h.chance > 0 && h.chance < 1, JSON.stringify(h));
  }
  // Measured with the vocabulary's facts (what is rare, a noun, an article): the types of real text,
  // not only the positional ones a model of ids has.
  assert.ok(last.headTypes.some((h) => ['rare_word', 'noun_article', 'verb_subject', 'noun_adjective'].includes(h.type === 'mixed' ? h.nearest : h.type)),
    JSON.stringify(last.headTypes));
  // And on the held-out windows, as last measured with the held-out loss: the same heads, typed too.
  assert.equal(last.heldoutTypes.length, 8);
  assert.deepEqual(last.heldoutTypes.map((h) => `${h.layer}.${h.head}`), last.headTypes.map((h) => `${h.layer}.${h.head}`));
  assert.ok(last.heldoutTypes.some((h) => ['rare_word', 'noun_article', 'verb_subject', 'noun_adjective'].includes(h.type === 'mixed' ? h.nearest : h.type)),
    JSON.stringify(last.heldoutTypes));
  const held = progress.filter((p) => p.heldout !== null).map((p) => p.heldout);
  // From ln 1000 = 6.91 (a uniform guess over the vocabulary) at step 0 to ~5.7 by step 300, whatever
  // the steps the reports fell on.
  assert.ok(held[held.length - 1] < 6.0, `the held-out loss falls: ${held.join(' → ')}`);
  suite.assertNoProblems();
});
