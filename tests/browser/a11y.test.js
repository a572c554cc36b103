// axe-core (WCAG 2.1 A and AA rules, and its best practices) on every stage of the page in both
// languages and in the dark scheme, for the induction and recall models, random weights and random GPT-2
// blocks (the models of real text are a11y-real-text.test.js's), on the article (two demos and an
// iframe, read together) and on the iframe form. The goal is zero violations; a failure lists each
// rule, its nodes and why.
'use strict';

const { test } = require('node:test');
const assert = require('node:assert/strict');

const { usePageSuite } = require('./browser.js');
const { useAxe, modelSweeps, MODELS, REAL_TEXT, WAIT } = require('./axe.js');

const suite = usePageSuite({
  files: ['web/index.html', 'web/embed.html', 'web/examples/article.html', 'web/build/app.js', 'web/build/mha-demo.js', 'web/build/mha-trained.js'],
  wait: WAIT,
});
const { violations, everyStageShown } = useAxe(suite);
for (const sweep of modelSweeps(suite, Object.keys(MODELS).filter((m) => !REAL_TEXT.includes(m)))) test(...sweep);

// A sweep reads every stage in one run of axe, all of them shown at once: what it finds in a stage
// that is not the current one is found, and said to be that stage's.
test('a sweep finds what is wrong in a stage other than the one shown, and names that stage', { timeout: 60_000 }, async () => {
  await everyStageShown(MODELS.random);
  assert.notEqual(await suite.page.evaluate(() => window.mhaPage.state.stage), 'split');
  await suite.page.evaluate(() => {
    const section = document.querySelector('mha-demo').shadowRoot.querySelector('section[data-stage="split"]');
    const faint = Object.assign(document.createElement('p'), { textContent: 'faint words' });
    faint.style.cssText = 'color: #ddd; background: #fff';
    const image = Object.assign(document.createElement('img'), { src: 'data:image/gif;base64,R0lGODlhAQABAAAAACw=', width: 10, height: 10 });
    section.append(faint, image);
  });
  const found = await violations();
  for (const rule of ['color-contrast', 'image-alt']) assert.ok(found.some((f) => f.startsWith(rule) && f.includes('[split] ')), `${rule} in split:\n${found.join('\n')}`);
});

// The article and the iframe form, in the reader's light and dark schemes (prefers-color-scheme).
const PAGES = [['the article', 'examples/article.html'], ['the iframe form', 'embed.html?model=random&text=我是秦始皇&stage=attend'], ['the iframe form, trained', 'embed.html']];
for (const scheme of ['light', 'dark']) {
  for (const [name, url] of scheme === 'dark' ? PAGES.slice(0, 2) : PAGES) {
    test(`${scheme === 'dark' ? 'dark: ' : ''}${name}: no axe violations`, { timeout: 60_000 }, async () => {
      await suite.page.emulateMedia({ colorScheme: scheme });
      await suite.page.goto(`${suite.server.url}${url}`);
      const found = await violations();
      assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
      suite.assertNoProblems();
    });
  }
}
