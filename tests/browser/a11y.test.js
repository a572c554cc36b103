// axe-core (WCAG 2.1 A and AA rules, and its best practices) on every stage of the page in both
// languages, for the induction and recall models, random weights and random GPT-2 blocks, on the
// article (two demos and an iframe, read together) and on the iframe form; the models of real text
// are a11y-real-text.test.js's. The goal is zero violations; a failure lists each rule, its nodes and why.
'use strict';

const { test } = require('node:test');
const assert = require('node:assert/strict');

const { usePageSuite } = require('./browser.js');
const { useAxe, MODELS, REAL_TEXT, DARK_STAGES, WAIT } = require('./axe.js');

const suite = usePageSuite({
  files: ['web/index.html', 'web/embed.html', 'web/examples/article.html', 'web/build/app.js', 'web/build/mha-demo.js', 'web/build/mha-trained.js'],
  wait: WAIT,
});
const { violations, stageViolations } = useAxe(suite);
const SHOWN_HERE = Object.keys(MODELS).filter((m) => !REAL_TEXT.includes(m));

for (const model of SHOWN_HERE) {
  for (const lang of ['en', 'zh']) {
    test(`index.html, ${model} model, ${lang}: no axe violations on any stage`, { timeout: 120_000 }, async () => {
      const found = await stageViolations(`${MODELS[model]}&lang=${lang}`);
      assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
      suite.assertNoProblems();
    });
  }
}

for (const [name, url] of [['the article', 'examples/article.html'], ['the iframe form', 'embed.html?model=random&text=我是秦始皇&stage=attend'], ['the iframe form, trained', 'embed.html']]) {
  test(`${name}: no axe violations`, { timeout: 60_000 }, async () => {
    await suite.page.goto(`${suite.server.url}${url}`);
    const found = await violations();
    assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
    suite.assertNoProblems();
  });
}

// The same in the reader's dark scheme (prefers-color-scheme: dark): the stages with the most
// colour, the article and the iframe form.
for (const model of SHOWN_HERE) {
  test(`dark: index.html, ${model} model: no axe violations`, { timeout: 120_000 }, async () => {
    await suite.page.emulateMedia({ colorScheme: 'dark' });
    const found = await stageViolations(MODELS[model], (stage) => DARK_STAGES.includes(stage));
    assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
    suite.assertNoProblems();
  });
}

for (const [name, url] of [['the article', 'examples/article.html'], ['the iframe form', 'embed.html?model=random&text=我是秦始皇&stage=attend']]) {
  test(`dark: ${name}: no axe violations`, { timeout: 60_000 }, async () => {
    await suite.page.emulateMedia({ colorScheme: 'dark' });
    await suite.page.goto(`${suite.server.url}${url}`);
    const found = await violations();
    assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
    suite.assertNoProblems();
  });
}
