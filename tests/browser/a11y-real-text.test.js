// axe-core on every stage of the models of real text (the Tang poems, Brown's English) in both
// languages, and in the dark scheme: as a11y.test.js does for the other models, in a file of its own
// so that npm test runs the two side by side (scripts/test.sh).
'use strict';

const { test } = require('node:test');
const assert = require('node:assert/strict');

const { usePageSuite } = require('./browser.js');
const { useAxe, MODELS, REAL_TEXT, DARK_STAGES, WAIT } = require('./axe.js');

const suite = usePageSuite({
  files: ['web/index.html', 'web/build/app.js', 'web/build/mha-demo.js', 'web/build/mha-tang.js', 'web/build/mha-brown.js'],
  wait: WAIT,
});
const { stageViolations } = useAxe(suite);
const SHOWN_HERE = REAL_TEXT;

for (const model of SHOWN_HERE) {
  for (const lang of ['en', 'zh']) {
    test(`index.html, ${model} model, ${lang}: no axe violations on any stage`, { timeout: 120_000 }, async () => {
      const found = await stageViolations(`${MODELS[model]}&lang=${lang}`);
      assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
      suite.assertNoProblems();
    });
  }
  test(`dark: index.html, ${model} model: no axe violations`, { timeout: 120_000 }, async () => {
    await suite.page.emulateMedia({ colorScheme: 'dark' });
    const found = await stageViolations(MODELS[model], (stage) => DARK_STAGES.includes(stage));
    assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
    suite.assertNoProblems();
  });
}
