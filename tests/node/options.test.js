// The options the module takes (cpp/core/options.h, listed as mha.catalog.options) against the option
// interfaces of web/package/mha.d.ts and against what the module does with them:
//   1. each option interface declares exactly its table's keys, each of its row's type (tsc --strict);
//   2. a key no table declares, a misspelt one above all, is an MhaError naming it (and the key it is
//      a slip of), wherever an option object is read, and nothing is trained or changed;
//   3. each row's limits are checked as the catalog lists them;
//   4. every Trainer option changes the training (beta1 … weightDecay among them), and giving one its
//      catalog default trains the same bits as leaving it out;
//   5. the catalog and a model's config say the same settings (kvHeads included), and every recipe,
//      as the page hands it to a Trainer (web/src/trainerOptions.js), trains.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { parseSafetensors } = require('./safetensors.js');
const { corpusText } = require('./corpusText.js');

const root = path.join(__dirname, '..', '..');
const TYPES = path.join(root, 'web', 'package', 'mha.d.ts');
const TSC = path.join(root, 'node_modules', '.bin', 'tsc');

let mha;
let trainerOptions;

test.before(async () => {
  mha = await require(path.join(root, 'web', 'mha.js'))();
  ({ trainerOptions } = await import('../../web/src/trainerOptions.js'));
});

// Each option interface of mha.d.ts and the table (catalog.options) it declares; the ones web/mha.js
// reads itself, with why.
const TABLE_OF = {
  ModelOptions: 'model', TrainerOptions: 'trainer', RunOptions: 'run', GenerateOptions: 'generate',
  AttributeOptions: 'attribute', TaskSampleOptions: 'taskSamples', PatchOptions: 'patch',
};
const NOT_THE_CORES = {
  ModuleOptions: "Emscripten's module options",
  LoadModelOptions: "loadModel's and ModelBuilder's: web/mha.js hands each to the core as an argument of its own",
};

// What a row's type is in TypeScript.
const tsType = (row) => ({
  whole: 'number', number: 'number', positive: 'number', fraction: 'number', boolean: 'boolean', heads: 'HeadList',
  input: 'string | Ids',
  choice: (row.choices || []).map((c) => JSON.stringify(c)).join(' | '),
}[row.type]);

const refused = (fn) => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof mha.MhaError, `${e}`);
    assert.doesNotMatch(e.message, /\n/);
    return e;
  }
  assert.fail(`${fn} was not refused`);
};

test('each option interface of mha.d.ts declares its table of the core, key for key and type for type', { timeout: 60_000 }, () => {
  const declared = [...fs.readFileSync(TYPES, 'utf8').matchAll(/^export interface (\w+Options)\b/gm)].map((m) => m[1]);
  for (const name of declared) assert.ok(TABLE_OF[name] || NOT_THE_CORES[name], `mha.d.ts declares ${name}: which table of catalog.options is it?`);
  for (const name of Object.keys(TABLE_OF)) assert.ok(declared.includes(name), `mha.d.ts has no ${name}`);
  assert.deepEqual(Object.keys(mha.catalog.options).sort(), Object.values(TABLE_OF).sort(), 'every table has its interface');

  const union = (names) => names.map((n) => JSON.stringify(n)).join(' | ') || 'never';
  const lines = [];
  for (const [name, table] of Object.entries(TABLE_OF)) {
    const rows = mha.catalog.options[table];
    lines.push(`export const ${name}Keys: Agree<keyof ${name}, ${union(rows.map((r) => r.key))}> = 'agree';`);
    for (const row of rows) lines.push(`export const ${name}_${row.key}: Fits<Required<${name}>['${row.key}'], ${tsType(row)}> = 'fits';`);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mha-options-'));
  try {
    const file = path.join(dir, 'options.ts');
    fs.writeFileSync(file, `// Written by tests/node/options.test.js from mha.catalog.options.
import type { HeadList, Ids, ${Object.keys(TABLE_OF).join(', ')} } from ${JSON.stringify(TYPES.replace(/\.d\.ts$/, ''))};
// Keys: the same both ways. A key's declared type: one the row's kind holds (a choice: some of its names).
type Agree<Declared, AtRunTime> = [Exclude<AtRunTime, Declared>, Exclude<Declared, AtRunTime>] extends [never, never]
  ? 'agree' : { undeclared: Exclude<AtRunTime, Declared>; declaredButNotRead: Exclude<Declared, AtRunTime> };
type Fits<Declared, Kind> = [Declared] extends [Kind] ? 'fits' : { declared: Declared; kind: Kind };
${lines.join('\n')}
`);
    const out = spawnSync(TSC, ['--strict', '--noEmit', '--target', 'es2022', '--lib', 'es2022,dom', file], { encoding: 'utf8' });
    assert.equal(out.status, 0, `mha.d.ts and catalog.options disagree:\n${out.stdout}${out.stderr}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a key nothing takes is an MhaError naming it, and the key it is a slip of; nothing trains or changes', () => {
  const sentence = (code) => mha.catalog.errorCodes.find((c) => c.code === code).english;
  const says = (e) => assert.equal(e.message, sentence(e.code).replace(/\{(\w+)\}/g, (m, k) => e.params[k]));

  // The typo: no key is a slip away, so the error lists the keys a Trainer takes.
  let e = refused(() => new mha.Trainer({ lerningRate: 0.01 }));
  assert.equal(e.code, 'unknown_option');
  assert.match(e.message, /^lerningRate is not an option of Trainer; its options are task, /);
  assert.deepEqual(e.params.known.split(', '), mha.catalog.options.trainer.map((o) => o.key));
  says(e);

  const gpt2 = new mha.Model({ model: 'gpt2', layers: 1, dModel: 8, heads: 2, vocabSize: 8, maxPositions: 8 });
  const trace = gpt2.runIds([1, 2, 3]);
  try {
    const before = JSON.stringify(gpt2.config);
    const slips = [
      [() => new mha.Trainer({ minLenght: 3 }), 'minLenght', 'minLength', 'Trainer'],
      [() => new mha.Trainer({ beta_1: 0.5 }), 'beta_1', 'beta1', 'Trainer'],
      [() => new mha.Model({ d_model: 64 }), 'd_model', 'dModel', 'Model'],
      [() => gpt2.configure({ kvheads: 1 }), 'kvheads', 'kvHeads', 'Model'],
      [() => gpt2.useRandomWeights({ sed: 4 }), 'sed', 'seed', 'Model'],
      [() => gpt2.runIds([1, 2], { switchOff: [[0, 1]] }), 'switchOff', 'switchedOff', 'runText and runIds'],
      [() => gpt2.generate([1, 2], { tokens: 1, topk: 3 }), 'topk', 'topK', 'generate'],
      [() => gpt2.generate([1, 2], { tokens: 1, switchedOf: [[0, 1]] }), 'switchedOf', 'switchedOff', 'generate'],
      [() => trace.attribute({ positon: 1 }), 'positon', 'position', 'attribute'],
      [() => gpt2.prune({ sample: 4 }), 'sample', 'samples', 'headImportance and prune'],
      [() => gpt2.headImportance([1, 2, 3], { seeds: 2 }), 'seeds', 'seed', 'headImportance and prune'],
    ];
    for (const [fn, name, near, what] of slips) {
      e = refused(fn);
      assert.equal(e.code, 'unknown_option_near', e.message);
      assert.deepEqual(e.params, { name, near, what });
      says(e);
    }
    assert.equal(JSON.stringify(gpt2.config), before, 'a refused configure leaves the model as it was');
  } finally {
    trace.delete();
    gpt2.delete();
  }

  // What a recipe says but a Trainer does not take: it follows from the task.
  for (const key of ['lossFloor', 'causal', 'maxPositions', 'readouts']) {
    e = refused(() => new mha.Trainer({ [key]: mha.catalog.recipes.induction[key] }));
    assert.equal(e.params.name, key);
  }
  // An option of the other task would go unread.
  e = refused(() => new mha.Trainer({ task: 'recall', minLength: 3 }));
  assert.equal(e.code, 'option_of_other_task');
  assert.match(e.message, /^minLength is an option of the induction task, but this Trainer trains the recall task$/);
  says(e);
  // Not an object at all.
  assert.match(refused(() => new mha.Trainer('fast')).message, /options must be an object: Trainer takes \{task, /);
});

test("each option's limits are checked where it is read, as the catalog lists them", () => {
  const gpt2 = new mha.Model({ model: 'gpt2', layers: 1, dModel: 8, heads: 2, vocabSize: 8, maxPositions: 8 });
  const trace = gpt2.runIds([1, 2, 3]);
  // Where each table's options go in, with what else the call needs.
  const takes = {
    model: (o) => new mha.Model(o).delete(),
    trainer: (o, row) => new mha.Trainer({ ...(row.task ? { task: row.task } : {}), ...o }).delete(),
    run: (o) => gpt2.runIds([1, 2], o).delete(),
    generate: (o) => gpt2.generate([1, 2], { tokens: 1, ...o }),
    attribute: (o) => trace.attribute(o),
    taskSamples: (o) => gpt2.prune(o),
    patch: (o) => gpt2.patch({ clean: [1, 2], corrupt: [1, 3], ...o }),
  };
  // A value just outside each kind of row, and the error it gets.
  const outside = {
    whole: (row) => [row.max + 1, 'out_of_range'],
    number: (row) => [row.max + 1, 'out_of_range'],
    positive: () => [0, 'not_positive'],
    fraction: () => [1, 'not_fraction'],
    boolean: () => ['yes', 'not_boolean'],
    choice: () => ['nope', 'not_a_choice'],
    heads: () => [[[9, 9]], 'no_such_head'],
    input: () => [5, 'not_text_or_ids'],
  };
  try {
    for (const [table, rows] of Object.entries(mha.catalog.options)) {
      for (const row of rows) {
        const [value, code] = outside[row.type](row);
        const e = refused(() => takes[table]({ [row.key]: value }, row));
        assert.equal(e.code, code, `${table}.${row.key} = ${JSON.stringify(value)}: ${e.message}`);
        if (code !== 'no_such_head') assert.equal(e.params.name, row.key, e.message);
        if (code === 'out_of_range') assert.deepEqual([e.params.min, e.params.max], [String(row.min), String(row.max)]);
        if (row.type === 'whole') assert.equal(refused(() => takes[table]({ [row.key]: 1.5 }, row)).code, 'not_whole');
        if (!['choice', 'boolean', 'heads', 'input'].includes(row.type)) {
          assert.equal(refused(() => takes[table]({ [row.key]: '1' }, row)).code, 'not_a_number');
        }
      }
    }
  } finally {
    trace.delete();
    gpt2.delete();
  }
});

// A small trainer's first three steps: the losses, what its weights then make of a few ids, and the
// model it trains. (Not its file: a Trainer of fewer kvHeads than heads trains, but its modelFile()
// refuses, GPT-2's fused c_attn having no place for them.)
const BASE = { dModel: 8, heads: 2, vocabSize: 8, batch: 2 };
// The corpus task's: its vocabulary is its text's, and short windows of a short text.
const CORPUS_BASE = { dModel: 8, heads: 2, batch: 2, task: 'corpus', window: 8 };
const TEXTS = { tang: corpusText('tang', { train: 3000, heldout: 500 }), brown: corpusText('brown', { train: 3000, heldout: 500 }) };
const textOf = (options) => (options.task === 'corpus' ? TEXTS[options.corpus || 'tang'] : undefined);
function fingerprint(options) {
  const trainer = new mha.Trainer(options, textOf(options));
  try {
    const losses = Array.from(trainer.step(3));
    const trace = trainer.runIds([0, 1, 2, 1, 2]);
    const logits = Array.from(trace.data('logits'));
    trace.delete();
    return JSON.stringify({ losses, logits, config: trainer.config });
  } finally {
    trainer.delete();
  }
}

// The recipe a trained model's file says it was made by (its __metadata__), and its weights.
function trainedFile(options) {
  const trainer = new mha.Trainer(options);
  try {
    trainer.step(2);
    const { tensors, metadata } = parseSafetensors(Buffer.from(trainer.modelFile()));
    return { recipe: metadata.recipe, weights: Object.keys(tensors).sort().map((n) => Array.from(tensors[n].data)) };
  } finally {
    trainer.delete();
  }
}

test('every Trainer option changes the training, and its catalog default trains what leaving it out does', () => {
  // A value other than the default for each option the table declares.
  const OTHER = {
    task: 'recall', batch: 3, lr: 0.02, beta1: 0.5, beta2: 0.9, eps: 1e-3, weightDecay: 0.1, initStd: 0.2,
    minLength: 3, maxLength: 5, recall: 2, length: 8, model: 'gpt2', layers: 3, dModel: 16, heads: 4, kvHeads: 1,
    seed: 9, vocabSize: 9, steps: 5, warmup: 2, finalLr: 0.5, corpus: 'brown', window: 6,
  };
  // What an option needs around it to matter: the steps a schedule spans, a rate that decays over them.
  const AROUND = { steps: { finalLr: 0.5 } };
  const rows = mha.catalog.options.trainer;
  assert.deepEqual(rows.map((r) => r.key).sort(), Object.keys(OTHER).sort(), 'OTHER has a value for every Trainer option');
  for (const row of rows) {
    const base = { ...(row.task === 'corpus' ? CORPUS_BASE : row.task ? { ...BASE, task: row.task } : BASE), ...AROUND[row.key] };
    const usual = fingerprint(base);
    assert.notEqual(fingerprint({ ...base, [row.key]: OTHER[row.key] }), usual, `${row.key}: ${OTHER[row.key]} trains as ${row.default} does`);
    // kvHeads' default is as many as heads (the recipe's 4; BASE's heads are 2).
    const usualValue = row.key === 'kvHeads' ? BASE.heads : row.default;
    if (!(row.key in base)) assert.equal(fingerprint({ ...base, [row.key]: usualValue }), usual, `${row.key}: its default ${usualValue}`);
  }
  // Adam's settings: two Trainers of the same beta1 make the same weights, of another beta1 other
  // weights after their second step (the first is Adam's sign step whatever β); and the model's file
  // says them (the recipe in its metadata).
  const adam = { beta1: 0.5, beta2: 0.99, eps: 1e-6, weightDecay: 0.01 };
  const a = trainedFile({ ...BASE, ...adam });
  assert.deepEqual(trainedFile({ ...BASE, ...adam }).weights, a.weights);
  assert.notDeepEqual(trainedFile({ ...BASE, ...adam, beta1: 0.6 }).weights, a.weights);
  assert.match(a.recipe, /AdamW lr 0\.003 betas \(0\.5, 0\.99\) eps 1e-06, weight decay 0\.01;/);
});

test("the catalog and a model's config say the same settings, kvHeads included", () => {
  const model = new mha.Model();
  try {
    const { config } = model;
    for (const [key, value] of Object.entries(mha.catalog.defaults)) assert.equal(config[key], value, key);
    assert.deepEqual(Object.fromEntries(mha.catalog.options.model.map((o) => [o.key, o.default])), mha.catalog.defaults);
    // kvHeads unless given: as many as heads, whatever heads becomes.
    assert.equal(config.kvHeads, config.heads);
    assert.equal(model.configure({ heads: 4 }).config.kvHeads, 4);
    assert.equal(model.configure({ heads: 8, kvHeads: 2 }).config.kvHeads, 2);
    assert.equal(model.configure({ kvHeads: 0 }).config.kvHeads, 8, '0: as many as heads');
  } finally {
    model.delete();
  }
  for (const [name, recipe] of Object.entries(mha.catalog.recipes)) {
    const trainer = new mha.Trainer(trainerOptions(mha.catalog, recipe), textOf(recipe));
    try {
      for (const key of mha.catalog.options.model.map((o) => o.key)) assert.equal(trainer.config[key], recipe[key], `${name}: ${key}`);
    } finally {
      trainer.delete();
    }
  }
  // A recipe as the page hands it over is the recipe: the shipped ones train as the task's own.
  assert.equal(fingerprint(trainerOptions(mha.catalog, mha.catalog.recipes.induction)), fingerprint({}));
  assert.equal(fingerprint(trainerOptions(mha.catalog, mha.catalog.recipes.recall)), fingerprint({ task: 'recall' }));
});
