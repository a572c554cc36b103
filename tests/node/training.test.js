// The page's training loop (web/src/training.js, which the demo's worker runs) on the corpus task: its
// reports come about four times a second, each with the new losses and the heads on the probe, while
// the held-out loss, whose windows cost a tenth of the training's time, is measured at step 0, at most
// once a second while it runs, and again when it stops.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const createMha = require('../../web/mha.js');
const { corpusText } = require('./corpusText.js');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test('training on the Tang recipe: the held-out loss at step 0, at most once a second while it runs, and on pause', async () => {
  const mha = await createMha();
  const { trainingMessage } = await import(path.join(__dirname, '..', '..', 'web', 'src', 'training.js'));
  const { trainerOptions } = await import(path.join(__dirname, '..', '..', 'web', 'src', 'trainerOptions.js'));
  const reports = [];
  const post = (msg) => {
    if (msg.train === 'error') throw new Error(msg.message);
    if (msg.train === 'progress') reports.push({ ...msg, at: performance.now() });
  };
  const options = trainerOptions(mha.catalog, mha.catalog.recipes.tang);
  trainingMessage(mha, { train: 'start', options, text: corpusText('tang'), steps: 1000, probe: [5, 6, 7, 8] }, post);
  await sleep(4000);
  trainingMessage(mha, { train: 'pause' }, post);

  assert.equal(reports[0].step, 0);
  assert.ok(Number.isFinite(reports[0].heldout), 'step 0 has its held-out loss');
  const last = reports[reports.length - 1];
  assert.equal(last.running, false);
  // where it stopped, the held-out loss is known: in the pause's report, or in the report before it
  // if that one measured it at the same step (it is not measured twice)
  const lastMeasured = reports.filter((r) => r.heldout !== null).pop();
  assert.ok(last.step > 0 && lastMeasured.step === last.step, `held-out loss last measured at step ${lastMeasured.step}, stopped at ${last.step}`);
  const running = reports.slice(1, -1); // the reports between step 0's and the pause's
  assert.ok(running.length >= 4, `${running.length} reports while it ran`);
  for (const r of running) assert.ok(r.losses.length > 0 && r.probe.heads.layers.length === 2, 'each report has its losses and the probe\'s heads');
  const measured = [reports[0], ...running.filter((r) => r.heldout !== null)];
  assert.ok(measured.length >= 3 && measured.length < running.length, `${measured.length - 1} of ${running.length} running reports measured the held-out loss`);
  for (let i = 1; i < measured.length; i++) {
    // measured when a report finds a second gone since the last measure ended (arrivals: ± a probe's run)
    assert.ok(measured[i].at - measured[i - 1].at >= 900, `held-out losses ${(measured[i].at - measured[i - 1].at).toFixed(0)} ms apart`);
  }
});
