// How the shipped induction model formed: its recipe (catalog.recipes.induction, which `mha train`
// trains for models/induction.safetensors) trained again by the WebAssembly module — the same bits as
// the CLI (tests/node/wasm.test.js) — recording every step's loss and, every SNAPSHOT_EVERY steps
// from 0 to the end, its heads on the page's text (openingTexts.js TRAINED_TEXT): each layer's
// attention weights and the core's head analysis, as the training panel's live reports carry them.
// It checks that the weights it ends with are the shipped file's, then writes
// models/induction.history.json, which the page shows in the training panel before anything is
// trained there (npm run train runs it; the build puts it in the model's script).
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const createMha = require('../web/mha.js');
const { parseSafetensors } = require('../tests/node/safetensors.js');

const ROOT = path.join(__dirname, '..');
const MODEL = path.join(ROOT, 'models', 'induction.safetensors');
const OUT = path.join(ROOT, 'models', 'induction.history.json');
const SNAPSHOT_EVERY = 150; // 21 snapshots over the recipe's 3,000 steps: the phase change at 800 between two
const DIGITS = 3; // attention weights and losses as the file keeps them

const round = (v) => Number(v.toFixed(DIGITS));
// Of the head analysis, what the panel names and measures a head by (train.js, heads.js headText),
// its numbers to DIGITS places.
const KEPT = ['label', 'strongest', 'measure', 'offset', 'offset_weight', 'previous_token', 'induction'];
const rounded = (value) => JSON.parse(JSON.stringify(value, (k, v) => (typeof v === 'number' && !Number.isInteger(v) ? round(v) : v)));
const headsOf = (analysis) => ({ layers: analysis.layers.map((layer) => ({ heads: layer.heads.map((m) => rounded(Object.fromEntries(KEPT.map((key) => [key, m[key] ?? null])))) })) });

async function main() {
  const mha = await createMha();
  const { trainerOptions } = await import(path.join(ROOT, 'web', 'src', 'trainerOptions.js'));
  const { TRAINED_TEXT } = await import(path.join(ROOT, 'web', 'src', 'openingTexts.js'));
  const recipe = mha.catalog.recipes.induction;
  const shipped = new mha.Model();
  shipped.loadModel(fs.readFileSync(MODEL));
  const ids = Array.from(shipped.runText(TRAINED_TEXT).ids());
  const trainer = new mha.Trainer(trainerOptions(mha.catalog, recipe));
  const snapshots = [];
  const losses = [];
  const snapshot = () => {
    const trace = trainer.runIds(ids);
    try {
      const { layers } = trace.config();
      const weights = Array.from({ length: layers }, (_, l) => Array.from(trace.data(`layers.${l}.weights`), round));
      snapshots.push({ step: trainer.stepsDone, weights, heads: headsOf(trace.headAnalysis()) });
    } finally {
      trace.delete();
    }
  };
  // The phase change as the page's training finds it (training.js): the first step, of those checked
  // every catalog.phaseChangeEvery, where the induction score reaches catalog.phaseChangeScore.
  const { phaseChangeEvery: every, phaseChangeScore } = mha.catalog;
  let phaseStep = null;
  snapshot();
  while (trainer.stepsDone < recipe.steps) {
    losses.push(...Array.from(trainer.step(Math.min(every, recipe.steps - trainer.stepsDone)), round));
    const at = trainer.stepsDone;
    if (phaseStep === null && at % every === 0 && trainer.inductionScore(1) >= phaseChangeScore) phaseStep = at;
    if (at % SNAPSHOT_EVERY === 0 || at === recipe.steps) snapshot();
  }
  // The history is the shipped model's only if training ends on its weights, bit for bit.
  const ours = parseSafetensors(Buffer.from(trainer.modelFile()));
  const theirs = parseSafetensors(fs.readFileSync(MODEL));
  for (const name of Object.keys(theirs.tensors)) {
    if (!Buffer.from(ours.tensors[name].data.buffer).equals(Buffer.from(theirs.tensors[name].data.buffer))) {
      throw new Error(`${name} differs from ${path.relative(ROOT, MODEL)}: the recipe no longer makes the shipped model (npm run train)`);
    }
  }
  const history = { recipe: 'induction', text: TRAINED_TEXT, ids, every: SNAPSHOT_EVERY, phaseStep, losses, snapshots };
  fs.writeFileSync(OUT, `${JSON.stringify(history)}\n`);
  console.log(`${path.relative(ROOT, OUT)}: ${snapshots.length} snapshots, ${losses.length} losses, the phase change at step ${phaseStep}, ${(fs.statSync(OUT).size / 1024).toFixed(0)} KB`);
}

main().catch((e) => {
  console.error(e.message || e);
  process.exit(1);
});
