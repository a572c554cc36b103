// axe-core on every stage of the models of real text (the Tang poems, Brown's English) in both
// languages, and in the dark scheme: as a11y.test.js does for the other models, in a file of its own
// so that npm test runs the two side by side (scripts/test.sh).
'use strict';

const { test } = require('node:test');

const { usePageSuite } = require('./browser.js');
const { modelSweeps, REAL_TEXT, WAIT } = require('./axe.js');

const suite = usePageSuite({
  files: ['web/index.html', 'web/build/app.js', 'web/build/mha-demo.js', 'web/build/mha-tang.js', 'web/build/mha-brown.js'],
  wait: WAIT,
});
for (const sweep of modelSweeps(suite, REAL_TEXT)) test(...sweep);
