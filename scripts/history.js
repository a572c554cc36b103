// How the shipped models formed, for the training panel (which shows it before anything is trained
// there). `node scripts/history.js` (npm run train runs it) writes models/induction.history.json: the
// induction recipe (catalog.recipes.induction, which `mha train` trains for models/induction.safetensors)
// trained again by the WebAssembly module — the same bits as the CLI (tests/node/wasm.test.js) —
// recording every step's loss and, every twentieth of the run from 0 to the end, its heads on the
// page's text (openingTexts.js TRAINED_TEXT): each layer's attention weights and the core's head
// analysis, as the training panel's live reports carry them. `node scripts/history.js recall` does the
// same for the recall model (catalog.recipes.recall, models/recall.safetensors).
// `node scripts/history.js tang` (or brown) writes models/tang.history.json from what `mha train
// --snapshot-every` kept while npm run train made the model (hours: too long to train again here):
// build/train/tang.history/step-*.safetensors and build/train/tang.loss.csv. For each snapshot: the
// heads on the model's opening text (openingTexts.js OPENING_TEXTS; the maps of its opening layer,
// OPENING_LAYERS, where its typed heads are) and each head's type on the held-out excerpt
// (`mha heads --heldout`, as the page's heads table shows it).
// Either way it checks that the last snapshot is the shipped file, bit for bit.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const createMha = require('../web/mha.js');
const { parseSafetensors } = require('../tests/node/safetensors.js');

const ROOT = path.join(__dirname, '..');
// The models trained again here, each by its catalog recipe: 21 snapshots over the run (the induction
// model's every 150 of its 3,000 steps: the phase change at 800 between two).
const TASK_MODELS = ['induction', 'recall'];
const SNAPSHOTS = 20;
const DIGITS = 3; // attention weights and losses as the file keeps them

const round = (v) => Number(v.toFixed(DIGITS));
// Of the head analysis, what the panel names and measures a head by (train.js, heads.js headText),
// its numbers to DIGITS places.
const KEPT = ['label', 'strongest', 'measure', 'offset', 'offset_weight', 'previous_token', 'induction'];
const rounded = (value) => JSON.parse(JSON.stringify(value, (k, v) => (typeof v === 'number' && !Number.isInteger(v) ? round(v) : v)));
const headsOf = (analysis) => ({ layers: analysis.layers.map((layer) => ({ heads: layer.heads.map((m) => rounded(Object.fromEntries(KEPT.map((key) => [key, m[key] ?? null])))) })) });

// The shipped file's tensors and `bytes`'s must be the same bits: the history is that model's only then.
function checkShipped(bytes, model) {
  const ours = parseSafetensors(Buffer.from(bytes));
  const theirs = parseSafetensors(fs.readFileSync(model));
  for (const name of Object.keys(theirs.tensors)) {
    if (!ours.tensors[name] || !Buffer.from(ours.tensors[name].data.buffer).equals(Buffer.from(theirs.tensors[name].data.buffer))) {
      throw new Error(`${name} differs from ${path.relative(ROOT, model)}: the history is not the shipped model's (npm run train)`);
    }
  }
}

async function corpusHistory(id) {
  const { heldoutTypesOf } = require('./web-parts.js');
  const { OPENING_TEXTS, OPENING_LAYERS } = await import(path.join(ROOT, 'web', 'src', 'openingTexts.js'));
  const { packMaps, PACKING } = await import(path.join(ROOT, 'web', 'src', 'historyMaps.js'));
  const text = OPENING_TEXTS[id];
  const layer = OPENING_LAYERS[id];
  if (!text) throw new Error(`no shipped model of real text is called '${id}' (openingTexts.js OPENING_TEXTS)`);
  const dir = path.join(ROOT, 'build', 'train', `${id}.history`);
  const csv = path.join(ROOT, 'build', 'train', `${id}.loss.csv`);
  const heldout = path.join(ROOT, 'models', 'corpus', `${id}.heldout.txt`);
  if (!fs.existsSync(dir) || !fs.existsSync(csv)) {
    throw new Error(`${path.relative(ROOT, dir)} or ${path.relative(ROOT, csv)} is missing: npm run train keeps them as it trains models/${id}.safetensors`);
  }
  const files = fs.readdirSync(dir).filter((f) => /^step-\d+\.safetensors$/.test(f)).sort();
  const mha = await createMha();
  const snapshots = [];
  let ids = null;
  for (const file of files) {
    const bytes = fs.readFileSync(path.join(dir, file));
    const model = new mha.Model().loadModel(bytes);
    const trace = model.runText(text);
    try {
      ids = ids || Array.from(trace.ids());
      const weights = [packMaps(trace.data(`layers.${layer}.weights`), ids.length)];
      snapshots.push({ step: Number(file.match(/\d+/)[0]), weights, heads: headsOf(trace.headAnalysis()), heldout: await heldoutTypesOf(path.join(dir, file), heldout) });
      console.log(`${id}: step ${snapshots[snapshots.length - 1].step}`);
    } finally {
      trace.delete();
      model.delete();
    }
    if (file === files[files.length - 1]) checkShipped(bytes, path.join(ROOT, 'models', `${id}.safetensors`));
  }
  const losses = fs.readFileSync(csv, 'utf8').trim().split('\n').slice(1).map((line) => round(Number(line.split(',')[1])));
  const every = snapshots.length > 1 ? snapshots[1].step - snapshots[0].step : 0;
  // layers: whose maps `weights` holds (the opening layer's); heads and heldout cover every layer.
  return { recipe: id, text, ids, every, layers: [layer], packing: PACKING, phaseStep: null, losses, snapshots };
}

async function main() {
  const id = process.argv[2] || 'induction';
  if (!TASK_MODELS.includes(id)) {
    const history = await corpusHistory(id);
    const out = path.join(ROOT, 'models', `${id}.history.json`);
    fs.writeFileSync(out, `${JSON.stringify(history)}\n`);
    console.log(`${path.relative(ROOT, out)}: ${history.snapshots.length} snapshots, ${history.losses.length} losses, ${(fs.statSync(out).size / 1024).toFixed(0)} KB`);
    return;
  }
  const mha = await createMha();
  const { trainerOptions } = await import(path.join(ROOT, 'web', 'src', 'trainerOptions.js'));
  const { TRAINED_TEXT } = await import(path.join(ROOT, 'web', 'src', 'openingTexts.js'));
  const recipe = mha.catalog.recipes[id];
  const MODEL = path.join(ROOT, 'models', `${id}.safetensors`);
  const OUT = path.join(ROOT, 'models', `${id}.history.json`);
  const SNAPSHOT_EVERY = recipe.steps / SNAPSHOTS;
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
  // The induction task's phase change as the page's training finds it (training.js): the first step,
  // of those checked every catalog.phaseChangeEvery, where the induction score reaches
  // catalog.phaseChangeScore. The step loop goes as far at a time either way.
  const { phaseChangeEvery: every, phaseChangeScore } = mha.catalog;
  let phaseStep = null;
  snapshot();
  while (trainer.stepsDone < recipe.steps) {
    losses.push(...Array.from(trainer.step(Math.min(every, recipe.steps - trainer.stepsDone)), round));
    const at = trainer.stepsDone;
    if (recipe.task === 'induction' && phaseStep === null && at % every === 0 && trainer.inductionScore(1) >= phaseChangeScore) phaseStep = at;
    if (at % SNAPSHOT_EVERY === 0 || at === recipe.steps) snapshot();
  }
  checkShipped(trainer.modelFile(), MODEL);
  const history = { recipe: id, text: TRAINED_TEXT, ids, every: SNAPSHOT_EVERY, phaseStep, losses, snapshots };
  fs.writeFileSync(OUT, `${JSON.stringify(history)}\n`);
  console.log(`${path.relative(ROOT, OUT)}: ${snapshots.length} snapshots, ${losses.length} losses, ${phaseStep === null ? '' : `the phase change at step ${phaseStep}, `}${(fs.statSync(OUT).size / 1024).toFixed(0)} KB`);
}

main().catch((e) => {
  console.error(e.message || e);
  process.exit(1);
});
