// models/induction.history.json (scripts/history.js) is how the shipped induction model formed: the
// recipe trained again from its seed gives its snapshots (to the file's rounding) and its losses, so a
// recipe that changes without `npm run train` fails here rather than showing another model's history.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const createMha = require('../../web/mha.js');

const history = require('../../models/induction.history.json');

test('the history\'s first 300 steps are the recipe\'s, from its seed, on the page\'s text', async () => {
  const mha = await createMha();
  const { trainerOptions } = await import(path.join(__dirname, '..', '..', 'web', 'src', 'trainerOptions.js'));
  const { TRAINED_TEXT } = await import(path.join(__dirname, '..', '..', 'web', 'src', 'openingTexts.js'));
  assert.equal(history.text, TRAINED_TEXT);
  assert.equal(history.snapshots.length, mha.catalog.recipes.induction.steps / history.every + 1);
  assert.equal(history.losses.length, mha.catalog.recipes.induction.steps);
  const trainer = new mha.Trainer(trainerOptions(mha.catalog, mha.catalog.recipes.induction));
  const losses = [];
  for (const snapshot of history.snapshots.slice(0, 3)) {
    if (snapshot.step > trainer.stepsDone) losses.push(...trainer.step(snapshot.step - trainer.stepsDone));
    const trace = trainer.runIds(history.ids);
    for (let l = 0; l < 2; l++) {
      const weights = trace.data(`layers.${l}.weights`);
      assert.equal(weights.length, snapshot.weights[l].length);
      weights.forEach((w, i) => assert.ok(Math.abs(w - snapshot.weights[l][i]) <= 0.0005 + 1e-6, `step ${snapshot.step}, layer ${l}, ${i}: ${w} vs ${snapshot.weights[l][i]}`));
    }
    const labels = trace.headAnalysis().layers.map((layer) => layer.heads.map((m) => m.label));
    assert.deepEqual(labels, snapshot.heads.layers.map((layer) => layer.heads.map((m) => m.label)), `labels at step ${snapshot.step}`);
    trace.delete();
  }
  losses.forEach((v, i) => assert.ok(Math.abs(v - history.losses[i]) <= 0.0005 + 1e-6, `loss ${i}`));
  // and it ends as the shipped model does: induction heads in layer 1
  const last = history.snapshots[history.snapshots.length - 1];
  assert.ok(last.heads.layers[1].heads.filter((m) => m.label === 'induction').length >= 2);
  assert.equal(history.phaseStep, 800);
});
