// What the core declares (mha.catalog, mha.stageTable) against what the page says about it: every
// error code has its Chinese sentence with the same {names} as the core's English, every head metric,
// label and stage has its strings in both languages, and the CLI prints the same catalog.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const root = path.join(__dirname, '..', '..');
let mha;
let SENTENCES;
let STRINGS;

test.before(async () => {
  mha = await require(path.join(root, 'web', 'mha.js'))();
  ({ SENTENCES } = await import('../../web/src/messages.js'));
  ({ STRINGS } = await import('../../web/src/strings.js'));
});

const names = (sentence) => new Set([...sentence.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));

test('every error code of the core has a Chinese sentence, with the {names} of its English one', () => {
  const codes = mha.catalog.errorCodes;
  assert.ok(codes.length >= 20, 'the core declares its error codes');
  for (const { code, english } of codes) {
    const zh = SENTENCES.zh[code];
    assert.ok(zh, `${code} has no Chinese sentence in web/src/messages.js`);
    const allowed = new Set([...names(english), 'name']);
    for (const n of names(zh)) assert.ok(allowed.has(n), `${code}: {${n}} is not in the English "${english}"`);
    for (const n of names(english)) if (n !== 'name') assert.ok(names(zh).has(n), `${code}: the Chinese sentence leaves out {${n}}`);
  }
  const known = new Set(codes.map((c) => c.code));
  for (const code of Object.keys(SENTENCES.zh)) assert.ok(known.has(code), `messages.js says '${code}', which the core never throws`);
});

test('a coded error says its English sentence filled from its params, as the catalog declares it', () => {
  const model = new mha.Model({ dModel: 8, heads: 2 });
  try {
    let error = null;
    try {
      model.configure({ dModel: 10, heads: 4 });
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof mha.MhaError);
    const { english } = mha.catalog.errorCodes.find((c) => c.code === error.code);
    assert.equal(error.message, english.replace(/\{(\w+)\}/g, (m, k) => error.params[k]));
  } finally {
    model.delete();
  }
});

test('every head metric, label and stage of the core has its strings in English and Chinese', () => {
  const has = (key) => {
    assert.ok(STRINGS[key], `strings.js has no '${key}'`);
    for (const lang of ['en', 'zh']) assert.ok(STRINGS[key][lang], `'${key}' has no ${lang}`);
  };
  for (const m of mha.catalog.headMetrics) {
    has(`metric.${m.id}`);
    has(`metric.formula.${m.id}`);
    has(`metric.help.${m.id}`);
    has(`metric.short.${m.id}`);
  }
  for (const r of mha.catalog.labelRules) has(`label.${r.label}`);
  has('label.mixed');
  for (const s of mha.stageTable.stages) has(`${s.id}.title`);
});

test('the CLI prints the catalog the module hands out', () => {
  const cli = path.join(root, 'build', 'native', 'mha');
  const printed = JSON.parse(execFileSync(cli, ['catalog'], { encoding: 'utf8' }));
  assert.deepEqual(printed, JSON.parse(JSON.stringify(mha.catalog)));
});

test("the package's mha.d.ts types catalog.recipes key for key (the core's kPageRecipes), each by the type of its task", () => {
  const fs = require('node:fs');
  const types = fs.readFileSync(path.join(root, 'dist', 'mha.d.ts'), 'utf8'); // written by scripts/package.js
  const declared = types.match(/^\s*recipes: \{([^}]*)\};/m);
  assert.ok(declared, 'mha.d.ts has a `recipes: { … };` line in Catalog');
  const typed = Object.fromEntries(declared[1].split(';').map((p) => p.trim()).filter(Boolean).map((p) => p.split(/:\s*/)));
  assert.deepEqual(Object.keys(typed), Object.keys(mha.catalog.recipes));
  const typeOf = { induction: 'InductionRecipe', recall: 'RecallRecipe', corpus: 'CorpusRecipe' };
  for (const [name, recipe] of Object.entries(mha.catalog.recipes)) assert.equal(typed[name], typeOf[recipe.task], name);
});

test('the recipes are what `mha train` does by default: the shipped model says so in its metadata', () => {
  const { induction } = mha.catalog.recipes;
  const fs = require('node:fs');
  const bytes = fs.readFileSync(path.join(root, 'models', 'induction.safetensors'));
  const headerLength = Number(bytes.readBigUInt64LE(0));
  const metadata = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8')).__metadata__;
  assert.equal(metadata.seed, String(induction.seed));
  assert.equal(metadata.steps, String(induction.steps));
  assert.match(metadata.recipe, new RegExp(`batch ${induction.batch};`));
  // and the recall model's: its recipe, its task and K, and the sweep's head counts in its CSV.
  const { recall } = mha.catalog.recipes;
  const recallBytes = fs.readFileSync(path.join(root, 'models', 'recall.safetensors'));
  const recallMeta = JSON.parse(recallBytes.subarray(8, 8 + Number(recallBytes.readBigUInt64LE(0))).toString('utf8')).__metadata__;
  assert.deepEqual([recallMeta.task, recallMeta.recall, recallMeta.seed, recallMeta.steps, recallMeta.heads],
    ['recall', String(recall.recall), String(recall.seed), String(recall.steps), String(recall.heads)]);
  assert.match(recallMeta.recipe, new RegExp(`batch ${recall.batch};`));
  const csv = fs.readFileSync(path.join(root, 'models', 'recall-sweep.csv'), 'utf8').trim().split('\n').slice(1);
  assert.deepEqual(csv.map((line) => Number(line.split(',')[0])), mha.catalog.sweepHeads);
});
