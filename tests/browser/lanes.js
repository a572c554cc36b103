// The two lanes scripts/test.sh runs the page tests in. First every test that measures no time, two
// files at a time; then, alone on a quiet machine, the tests that do (frames a second, a frame's
// 16 ms, the 90 s training clock, a server's delay), which a file declares with timedTest. A file's
// other tests are not held to the quiet lane by its timed ones: the lane is the test's, not the file's.
// MHA_BROWSER_LANE says which lane a run is (untimed | timed); unset (node --test on one file), all.
// Each is node:test's own test in its lane and does nothing in the other, so a test's file is still
// where it is declared (tests/time-by-file.mjs reads it).
'use strict';

const { test } = require('node:test');

const LANE = process.env.MHA_BROWSER_LANE || '';
if (LANE && LANE !== 'timed' && LANE !== 'untimed') throw new Error(`MHA_BROWSER_LANE is "${LANE}": say timed or untimed, or leave it unset`);
const elsewhere = () => {};

module.exports = {
  lane: LANE,
  test: LANE === 'timed' ? elsewhere : test,
  timedTest: LANE === 'untimed' ? elsewhere : test,
};
