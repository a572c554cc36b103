// models/induction.history.json and models/recall.history.json (scripts/history.js) are how the shipped
// induction and recall models formed: the recipe trained again from its seed gives their snapshots (to
// the file's rounding) and their losses, so a recipe that changes without `npm run train` fails here
// rather than showing another model's history.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const createMha = require('../../web/mha.js');

// How each record ends, as its shipped model does.
const ENDS = {
  induction: (last, history) => {
    assert.ok(last.heads.layers[1].heads.filter((m) => m.label === 'induction').length >= 2, 'induction heads in layer 1');
    assert.equal(history.phaseStep, 800);
  },
  recall: (last, history) => {
    assert.deepEqual(last.heads.layers[0].heads.map((m) => m.offset).sort(), [1, 2, 3, 4], 'one head per offset');
    assert.equal(history.phaseStep, null);
  },
};

for (const [id, ends] of Object.entries(ENDS)) {
  test(`${id}: the history's first snapshots are the recipe's, from its seed, on the page's text`, async () => {
    const history = require(`../../models/${id}.history.json`);
    const mha = await createMha();
    const recipe = mha.catalog.recipes[id];
    const { trainerOptions } = await import(path.join(__dirname, '..', '..', 'web', 'src', 'trainerOptions.js'));
    const { TRAINED_TEXT } = await import(path.join(__dirname, '..', '..', 'web', 'src', 'openingTexts.js'));
    assert.equal(history.text, TRAINED_TEXT);
    assert.equal(history.snapshots.length, recipe.steps / history.every + 1);
    assert.equal(history.losses.length, recipe.steps);
    const trainer = new mha.Trainer(trainerOptions(mha.catalog, recipe));
    const losses = [];
    for (const snapshot of history.snapshots.slice(0, 3)) {
      if (snapshot.step > trainer.stepsDone) losses.push(...trainer.step(snapshot.step - trainer.stepsDone));
      const trace = trainer.runIds(history.ids);
      const { layers } = trace.config();
      assert.equal(snapshot.weights.length, layers);
      for (let l = 0; l < layers; l++) {
        const weights = trace.data(`layers.${l}.weights`);
        assert.equal(weights.length, snapshot.weights[l].length);
        weights.forEach((w, i) => assert.ok(Math.abs(w - snapshot.weights[l][i]) <= 0.0005 + 1e-6, `step ${snapshot.step}, layer ${l}, ${i}: ${w} vs ${snapshot.weights[l][i]}`));
      }
      const labels = trace.headAnalysis().layers.map((layer) => layer.heads.map((m) => m.label));
      assert.deepEqual(labels, snapshot.heads.layers.map((layer) => layer.heads.map((m) => m.label)), `labels at step ${snapshot.step}`);
      trace.delete();
    }
    trainer.delete();
    losses.forEach((v, i) => assert.ok(Math.abs(v - history.losses[i]) <= 0.0005 + 1e-6, `loss ${i}`));
    ends(history.snapshots[history.snapshots.length - 1], history);
  });
}

// A model of real text keeps its maps packed (web/src/historyMaps.js): what the panel unpacks is the
// map to the hundredth, and 0 above the diagonal.
test('a packed map unpacks to the map, to the hundredth', async () => {
  const { packMaps, unpackMaps, PACKING } = await import(path.join(__dirname, '..', '..', 'web', 'src', 'historyMaps.js'));
  const T = 5;
  const heads = 2;
  const maps = new Float32Array(heads * T * T);
  for (let hd = 0; hd < heads; hd++)
    for (let i = 0; i < T; i++) {
      const row = Array.from({ length: i + 1 }, (_, j) => Math.exp(Math.sin(7 * hd + 3 * i + j)));
      const sum = row.reduce((a, b) => a + b, 0);
      row.forEach((v, j) => { maps[hd * T * T + i * T + j] = v / sum; });
    }
  const packed = packMaps(maps, T);
  assert.equal(packed.length, heads * (T * (T + 1)) / 2);
  assert.ok(packed.every(Number.isInteger));
  const back = unpackMaps(packed, T, PACKING);
  maps.forEach((v, k) => assert.ok(Math.abs(v - back[k]) <= 0.005 + 1e-6, `${k}: ${v} vs ${back[k]}`));
  assert.throws(() => unpackMaps(packed, T, { triangle: 'upper', scale: 100 }), /packed as/);
  assert.throws(() => unpackMaps(packed.slice(1), T, PACKING), /not a multiple/);
});

// Each recorded history of a model of real text ends at the shipped model: its last snapshot's maps
// and head labels are the shipped file's on the history's text (the rest are snapshots mha train kept,
// which scripts/history.js checked against the shipped file when it wrote this).
const shipped = require('../../models/trained-models.json').models.filter((m) => m.history && m.heldout);
for (const { id, source, history: file } of shipped) {
  test(`${id}'s recorded history ends at the shipped ${source}`, async () => {
    const fs = require('node:fs');
    const root = path.join(__dirname, '..', '..');
    const record = JSON.parse(fs.readFileSync(path.join(root, file), 'utf8'));
    const { unpackMaps } = await import(path.join(root, 'web', 'src', 'historyMaps.js'));
    const { OPENING_TEXTS, OPENING_LAYERS } = await import(path.join(root, 'web', 'src', 'openingTexts.js'));
    assert.equal(record.text, OPENING_TEXTS[id]);
    assert.deepEqual(record.layers, [OPENING_LAYERS[id]]);
    const steps = record.snapshots.map((s) => s.step);
    assert.equal(steps[0], 0);
    assert.equal(steps[steps.length - 1], record.losses.length);
    const mha = await createMha();
    const model = new mha.Model().loadModel(fs.readFileSync(path.join(root, source)));
    const trace = model.runText(record.text);
    try {
      assert.deepEqual(Array.from(trace.ids()), record.ids);
      const last = record.snapshots[record.snapshots.length - 1];
      const maps = unpackMaps(last.weights[0], record.ids.length, record.packing);
      const ours = trace.data(`layers.${record.layers[0]}.weights`);
      assert.equal(maps.length, ours.length);
      ours.forEach((w, k) => assert.ok(Math.abs(w - maps[k]) <= 0.005 + 1e-6, `${k}: ${w} vs ${maps[k]}`));
      const labels = trace.headAnalysis().layers.map((layer) => layer.heads.map((m) => m.label));
      assert.deepEqual(labels, last.heads.layers.map((layer) => layer.heads.map((m) => m.label)));
    } finally {
      trace.delete();
      model.delete();
    }
  });
}
