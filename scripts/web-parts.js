// What the page bundles (scripts/build-web.sh) and the npm package (scripts/package.js) are both made
// of, made in one place: the WebAssembly core split from its wasm, and the trained models' files.
'use strict';

const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { pathToFileURL } = require('node:url');
const { toF16 } = require('./model-f16.js');

const ROOT = path.join(__dirname, '..');
// web/build/mha-core.js or mha-page-core.js (SINGLE_FILE, a path from the repository root) as {core: its script, minified, with the wasm's base64 taken out
// of its data: URI; wasm: the wasm's bytes}. The core uses the Module's wasmBinary when it is given one.
async function splitCore(file) {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const uri = /(data:application\/octet-stream;base64,)([A-Za-z0-9+/=]+)/;
  const found = uri.exec(text);
  if (!found) throw new Error(`${file} holds no inlined wasm: is it a SINGLE_FILE build?`);
  const core = (await esbuild.transform(text.replace(uri, '$1'), { minify: true, target: 'es2020', logLevel: 'warning' })).code;
  return { core, wasm: Buffer.from(found[2], 'base64') };
}

// models/trained-models.json's list: [{id, source (a path from the repository root), script, heldout?}].
const trainedModels = () => JSON.parse(fs.readFileSync(path.join(ROOT, 'models', 'trained-models.json'), 'utf8')).models;

// A trained model as shipped: its safetensors with every F32 tensor stored as F16.
async function shippedModelBytes(model) {
  return Buffer.from(await toF16(fs.readFileSync(path.join(ROOT, model.source))));
}

// What each head of a shipped model of real text does on its held-out excerpt (never trained on), as
// the core measures it (`mha heads --model F --heldout EXCERPT --json`, build/native/mha, which
// scripts/build.sh makes before the page): {id: [per layer: [per head: {type, strongest, value, chance,
// offset}]]} for the models that name an excerpt — type the head's label, strongest the type it is most like
// (head_metrics.h strongest_type), value the measure the label's rule reads (a mixed head's: its
// strongest type's), chance that measure under attention spread evenly (null where the rule has
// none), offset a positional head's i − k. Kept in web/build/heldout-heads.json
// while it is newer than the models, the excerpts and the binary: the whole excerpt takes ~20 s. The
// values to six significant digits (heldoutFigure), which is what the widget carries.
const MHA = path.join(ROOT, 'build', 'native', 'mha');
// Six significant digits: the widget carries these, and the table shows two decimals.
const heldoutFigure = (v) => Number(v.toPrecision(6));
async function heldoutHeadTypes() {
  const models = trainedModels().filter((m) => m.heldout);
  const cache = path.join(ROOT, 'web', 'build', 'heldout-heads.json');
  const inputs = [MHA, ...models.flatMap((m) => [m.source, m.heldout].map((f) => path.join(ROOT, f)))];
  if (!fs.existsSync(MHA)) throw new Error(`${path.relative(ROOT, MHA)} is missing: build natively first (npm run build does)`);
  const newest = Math.max(...inputs.map((f) => fs.statSync(f).mtimeMs));
  if (fs.existsSync(cache) && fs.statSync(cache).mtimeMs > newest) {
    const kept = JSON.parse(fs.readFileSync(cache, 'utf8'));
    if (models.every((m) => kept[m.id])) return kept;
  }
  const out = {};
  for (const m of models) out[m.id] = await heldoutTypesOf(m.source, m.heldout);
  fs.mkdirSync(path.dirname(cache), { recursive: true }); // a fresh clone's, before the WebAssembly build makes it
  fs.writeFileSync(cache, JSON.stringify(out));
  return out;
}

// Each shipped model of real text's pruning curve on its held-out excerpt ({id: {steps, importance}},
// the file npm run train writes with mha prune --json): the widget carries them (a few KB), the attend
// stage draws the one of the model shown and its heads table shows the importances.
function pruningCurves() {
  const out = {};
  for (const m of trainedModels().filter((x) => x.pruning)) {
    const { steps, importance } = JSON.parse(fs.readFileSync(path.join(ROOT, m.pruning), 'utf8'));
    // the figures as the page shows them (two decimals): six significant digits are plenty
    out[m.id] = {
      steps: steps.map(({ removed, loss, accuracy }) => ({ removed, loss: heldoutFigure(loss), accuracy: heldoutFigure(accuracy) })),
      // [layer][head]: the importance each head was removed by, as the heads table shows a gradient metric
      importance: importance.layers.map((layer) => layer.heads.map((x) => Object.fromEntries(Object.entries(x).map(([k, v]) => [k, heldoutFigure(v)])))),
    };
  }
  return out;
}

// One model file's heads on a held-out text (paths from the repository's root), as the widget carries
// them: [layer][head] {type, strongest, value, chance, offset} (web/src/headType.js, what a head has not
// left out). scripts/history.js records them too.
async function heldoutTypesOf(model, heldout) {
  const { headType } = await import(pathToFileURL(path.join(ROOT, 'web', 'src', 'headType.js')));
  const json = execFileSync(MHA, ['heads', '--model', model, '--heldout', heldout, '--json'], { cwd: ROOT, maxBuffer: 256 << 20 });
  const { layers } = JSON.parse(json);
  const kept = (v) => (v === null ? undefined : v);
  const figure = (v) => (v === null ? undefined : heldoutFigure(v));
  return layers.map((layer) => layer.heads.map((x) => {
    const { type, strongest, value, chance, offset } = headType(x);
    return { type, strongest: kept(strongest), value: figure(value), chance: figure(chance), offset: kept(offset) };
  }));
}

// The classic script that carries a model beside mha-demo.js (web/src/widget.js loads it by a tag).
function modelScript(model, bytes) {
  return `// ${model.source}, trained by this project (npm run train), F32 tensors stored as F16, as base64.\n` +
    `(self.mhaTrainedModels = self.mhaTrainedModels || {})[${JSON.stringify(model.id)}] = '${bytes.toString('base64')}';\n`;
}

// The page's languages besides English (web/src/languages.js LANGUAGES), each in its own classic
// script beside mha-demo.js: [{lang, script, text}] (web/src/widget.js loads mha-{lang}.js by a tag),
// and the widget's own copies of strings.js and sentences.js in English only.
async function languageParts() {
  const src = (file) => path.join(ROOT, 'web', 'src', file);
  const { STRINGS } = await import(src('strings.js'));
  const { NAMES, UNNAMED_FILE, SENTENCES } = await import(src('sentences.js'));
  const { LANGUAGES, languageTable } = await import(src('languages.js'));
  const { partOfString } = await import(src('parts.js'));
  const others = LANGUAGES.filter((lang) => lang !== 'en');
  const english = (entry) => Object.fromEntries(Object.entries(entry).filter(([k]) => !others.includes(k)));
  // The English strings of a part (web/src/parts.js), or of the widget itself (part undefined).
  const stringsOf = (part) => Object.fromEntries(Object.entries(STRINGS).filter(([k]) => partOfString(k) === part).map(([k, v]) => [k, english(v)]));
  return {
    strings: `export const STRINGS = ${JSON.stringify(stringsOf(undefined))};`,
    partStrings: stringsOf,
    sentences: `export const NAMES = ${JSON.stringify(english(NAMES))};\nexport const UNNAMED_FILE = ${JSON.stringify(english(UNNAMED_FILE))};\n` +
      `export const SENTENCES = ${JSON.stringify(english(SENTENCES))};`,
    scripts: others.map((lang) => ({
      lang,
      script: `mha-${lang}.js`,
      text: `// The <mha-demo> strings in '${lang}' (web/src/strings.js and sentences.js): keep beside mha-demo.js.\n` +
        `(self.mhaLanguages = self.mhaLanguages || {})[${JSON.stringify(lang)}] = ${JSON.stringify(languageTable(lang))};\n`,
    })),
  };
}

// The texts the page trains on, one classic script each beside the widget, for every corpus a recipe
// of the core's catalog trains (catalog.recipes: the page's Tang recipe): its vocabulary, the slice
// of its train split and the held-out excerpt that models/corpus holds (scripts/corpus/prepare.js).
//   (self.mhaTexts = self.mhaTexts || {})[corpus] = {vocabulary, train, heldout}: a Trainer's text
// probe: the text the corpus's model opens on (openingTexts.js) as the corpus's
// vocabulary reads it (`mha tokenize --model models/{corpus}.safetensors`), whose heads the training
// panel shows while another model is on the page (their ids are not this vocabulary's).
async function corpusTexts(catalog) {
  const { textScript } = await import(path.join(ROOT, 'web', 'src', 'parts.js'));
  const { OPENING_TEXTS } = await import(path.join(ROOT, 'web', 'src', 'openingTexts.js'));
  const corpora = [...new Set(Object.values(catalog.recipes).filter((r) => r.task === 'corpus').map((r) => r.corpus))];
  const read = (corpus, what) => fs.readFileSync(path.join(ROOT, 'models', 'corpus', `${corpus}.${what}`), 'utf8');
  const probe = (corpus) => ({ text: OPENING_TEXTS[corpus], ...JSON.parse(execFileSync(MHA, ['tokenize', '--model', path.join(ROOT, 'models', `${corpus}.safetensors`), '--text', OPENING_TEXTS[corpus], '--json'], { encoding: 'utf8' })) });
  return corpora.map((corpus) => ({
    corpus,
    script: textScript(corpus),
    text: `// The ${corpus} text the page trains on (models/corpus: ${corpus}.vocab.json, .slice.txt, .heldout.txt): keep beside mha-demo.js.\n` +
      `(self.mhaTexts = self.mhaTexts || {})[${JSON.stringify(corpus)}] = ${JSON.stringify({ vocabulary: read(corpus, 'vocab.json'), train: read(corpus, 'slice.txt'), heldout: read(corpus, 'heldout.txt'), probe: probe(corpus) })};\n`,
  }));
}

// How each shipped model with a `history` formed (scripts/history.js), a classic script beside the
// widget: [{id, script, text}] setting self.mhaHistories[id].
async function historyScripts() {
  const { historyScript } = await import(path.join(ROOT, 'web', 'src', 'parts.js'));
  return trainedModels().filter((m) => m.history).map((m) => ({
    id: m.id,
    script: historyScript(m.id),
    text: `// How ${m.source} formed (${m.history}, scripts/history.js): keep beside mha-demo.js.\n` +
      `(self.mhaHistories = self.mhaHistories || {})[${JSON.stringify(m.id)}] = ${fs.readFileSync(path.join(ROOT, m.history), 'utf8').trim()};\n`,
  }));
}

// The scripts of the widget's parts (web/src/parts.js), beside it as the models and languages are.
async function partScripts() {
  const { PARTS, partScript } = await import(path.join(ROOT, 'web', 'src', 'parts.js'));
  return Object.keys(PARTS).map(partScript);
}

module.exports = { splitCore, trainedModels, shippedModelBytes, heldoutHeadTypes, heldoutTypesOf, heldoutFigure, pruningCurves, modelScript, languageParts, partScripts, corpusTexts, historyScripts };
