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
const { violations } = useAxe(suite);
for (const sweep of modelSweeps(suite, Object.keys(MODELS).filter((m) => !REAL_TEXT.includes(m)))) test(...sweep);

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
