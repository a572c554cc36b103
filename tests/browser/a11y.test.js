// axe-core (WCAG 2.1 A and AA rules, and its best practices) on every stage of the page in both
// languages, for the trained models (real text, induction, recall), random weights and random GPT-2
// blocks, on the article (two demos and an iframe, read together) and on the iframe form. The goal is
// zero violations; a failure lists each rule, its nodes and why.
'use strict';

const { test, beforeEach } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');

const { usePageSuite } = require('./browser.js');

const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const WAIT = 10_000;
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

let server;
let page;
const suite = usePageSuite({
  files: ['web/index.html', 'web/embed.html', 'web/examples/article.html', 'web/build/app.js', 'web/build/mha-demo.js', 'web/build/mha-trained.js'],
  wait: WAIT,
});
beforeEach(() => {
  ({ server, page } = suite);
});

// Waits for every demo on the page and in its iframes (scrolled into view: they load lazily), then
// runs axe over the document, shadow roots and frames included (landmarks must be unique across them).
async function violations() {
  await page.evaluate(() => {
    for (const frame of document.querySelectorAll('iframe')) frame.scrollIntoView();
  });
  const ready = () => Promise.all([...document.querySelectorAll('mha-demo')].map((d) => d.ready.catch(() => {})));
  await page.evaluate(ready);
  for (const frame of page.frames().filter((f) => f !== page.mainFrame())) {
    await frame.waitForFunction(() => document.readyState === 'complete' && document.querySelector('mha-demo') && customElements.get('mha-demo'), null, { timeout: WAIT });
    await frame.evaluate(ready);
    if (!(await frame.evaluate(() => typeof window.axe === 'object'))) await frame.addScriptTag({ content: AXE });
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.addScriptTag({ content: AXE });
  return page.evaluate(async (tags) => {
    const result = await window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations.map((v) => `${v.id} (${v.nodes.length}): ${v.help}\n${v.nodes.slice(0, 3).map((n) => `    ${n.target.join(' ')}: ${(n.failureSummary || '').replace(/\s+/g, ' ').slice(0, 220)}`).join('\n')}`);
  }, TAGS);
}

// index.html?query, each stage `keep` accepts in turn: "[stage] violation" for each found.
async function stageViolations(query, keep = () => true) {
  await page.goto(`${server.url}?${query}`);
  await page.waitForFunction(() => window.mhaPage && window.mhaPage.ready, null, { timeout: WAIT });
  const stages = (await page.evaluate(async () => (await window.mhaPage.ready).stages)).filter(keep);
  const found = [];
  for (const stage of stages) {
    await page.evaluate((s) => window.mhaPage.goTo(s), stage);
    for (const v of await violations()) found.push(`[${stage}] ${v}`);
  }
  return found;
}

const MODELS = [['tang', 'model=tang'], ['brown', 'model=brown'], ['trained', 'model=trained'], ['recall', 'model=recall'], ['random', 'model=random&d-model=64&heads=4&kv-heads=2&causal'], ['blocks', 'model=blocks&d-model=32&heads=4']];
for (const [model, query] of MODELS) {
  for (const lang of ['en', 'zh']) {
    test(`index.html, ${model} model, ${lang}: no axe violations on any stage`, { timeout: 120_000 }, async () => {
      const found = await stageViolations(`${query}&lang=${lang}`);
      assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
      suite.assertNoProblems();
    });
  }
}

for (const [name, url] of [['the article', 'examples/article.html'], ['the iframe form', 'embed.html?model=random&text=我是秦始皇&stage=attend'], ['the iframe form, trained', 'embed.html']]) {
  test(`${name}: no axe violations`, { timeout: 60_000 }, async () => {
    await page.goto(`${server.url}${url}`);
    const found = await violations();
    assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
    suite.assertNoProblems();
  });
}

// The same in the reader's dark scheme (prefers-color-scheme: dark): the stages with the most
// colour (head tiles, bands, the heads panel, the prediction), the article and the iframe form.
const DARK_STAGES = ['tokenize', 'split', 'attend', 'concat', 'mlp', 'predict'];
for (const [model, query] of MODELS) {
  test(`dark: index.html, ${model} model: no axe violations`, { timeout: 120_000 }, async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    const found = await stageViolations(query, (stage) => DARK_STAGES.includes(stage));
    assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
    suite.assertNoProblems();
  });
}

for (const [name, url] of [['the article', 'examples/article.html'], ['the iframe form', 'embed.html?model=random&text=我是秦始皇&stage=attend']]) {
  test(`dark: ${name}: no axe violations`, { timeout: 60_000 }, async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${server.url}${url}`);
    const found = await violations();
    assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
    suite.assertNoProblems();
  });
}
