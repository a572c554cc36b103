// The npm package's files, into dist/ (npm run build's last step; package.json's "files" and
// "exports" name them). Everything comes from what the build made; nothing is built twice:
//   mha-demo.js                 the element, one classic script (web/build/mha-demo.js)
//   <model script>.js           each trained model beside it, as the widget loads it (web/build/)
//   mha-<lang>.js               each language besides English beside it, the same way
//   mha-<part>.js               each part of the widget beside it (web/src/parts.js), the same way
//   mha-text-<corpus>.js        the text each recipe of real text trains on, the same way
//   models/<id>.safetensors     the same model's bytes for Node (models/trained-models.json names them)
//   index.cjs, index.mjs        Node's createMha(): web/mha.js and the core's script (web/package/index.cjs)
//   mha-core.wasm               the core's wasm, read by index.cjs
//   *.d.ts, *.d.mts             the types (web/package/; mha.d.ts's recipes written from the catalog)
// Written to dist.partial/ and renamed, so dist/ is never half-written.
'use strict';

const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');
const { splitCore, trainedModels, shippedModelBytes, languageParts, partScripts, corpusTexts, historyScripts } = require('./web-parts.js');

const ROOT = path.join(__dirname, '..');
const BUILD = path.join(ROOT, 'web', 'build');
const SOURCES = path.join(ROOT, 'web', 'package');
const DIST = path.join(ROOT, 'dist');
const PARTIAL = `${DIST}.partial`;

async function main() {
  const models = trainedModels();
  const catalog = JSON.parse(fs.readFileSync(path.join(BUILD, 'catalog.json'), 'utf8'));
  const beside = [...(await languageParts()).scripts.map((l) => l.script), ...(await partScripts()), ...(await corpusTexts(catalog)).map((c) => c.script), ...(await historyScripts()).map((x) => x.script)];
  for (const file of ['mha-demo.js', 'mha-core.js', ...models.map((m) => m.script), ...beside]) {
    if (!fs.existsSync(path.join(BUILD, file))) throw new Error(`web/build/${file} is missing: run npm run build`);
  }
  fs.rmSync(PARTIAL, { recursive: true, force: true });
  fs.mkdirSync(path.join(PARTIAL, 'models'), { recursive: true });

  for (const file of ['mha-demo.js', ...beside]) fs.copyFileSync(path.join(BUILD, file), path.join(PARTIAL, file));
  for (const model of models) {
    fs.copyFileSync(path.join(BUILD, model.script), path.join(PARTIAL, model.script));
    fs.writeFileSync(path.join(PARTIAL, 'models', `${model.id}.safetensors`), await shippedModelBytes(model));
  }

  const { core, wasm } = await splitCore('web/build/mha-core.js'); // the whole module: Node trains
  fs.writeFileSync(path.join(PARTIAL, 'mha-core.wasm'), wasm);
  const coreWithoutWasm = {
    name: 'core-without-wasm',
    setup(build) {
      build.onResolve({ filter: /\/build\/mha-core\.js$/ }, () => ({ path: 'mha-core.js', namespace: 'core' }));
      build.onLoad({ filter: /.*/, namespace: 'core' }, () => ({ contents: core, loader: 'js' }));
    },
  };
  await esbuild.build({
    entryPoints: [path.join(SOURCES, 'index.cjs')], bundle: true, format: 'cjs', platform: 'node', target: 'node18',
    outfile: path.join(PARTIAL, 'index.cjs'), plugins: [coreWithoutWasm], logLevel: 'warning',
    banner: { js: '// mha-demo: createMha() for Node. Built from web/package/index.cjs, web/mha.js and the WebAssembly core.' },
  });
  for (const file of fs.readdirSync(SOURCES)) {
    if (file === 'mha.d.ts') fs.writeFileSync(path.join(PARTIAL, file), withRecipes(fs.readFileSync(path.join(SOURCES, file), 'utf8'), catalog));
    else if (file !== 'index.cjs') fs.copyFileSync(path.join(SOURCES, file), path.join(PARTIAL, file));
  }

  fs.rmSync(DIST, { recursive: true, force: true });
  fs.renameSync(PARTIAL, DIST);
}

// The types with Catalog's recipes name by name, each by its task's type, from the catalog (the core's
// kPageRecipes): so `el.train({ task: 'brwn' })` does not compile, and a new recipe edits no types.
const RECIPE_TYPES = { induction: 'InductionRecipe', recall: 'RecallRecipe', corpus: 'CorpusRecipe' };
function withRecipes(types, catalog) {
  const line = '  recipes: { [name: string]: Recipe };';
  if (!types.includes(line)) throw new Error(`web/package/mha.d.ts has no line '${line.trim()}' to write the recipes into`);
  const keyed = Object.entries(catalog.recipes).map(([name, r]) => {
    if (!RECIPE_TYPES[r.task]) throw new Error(`recipe ${name}: no type for its task '${r.task}' (mha.d.ts, RECIPE_TYPES)`);
    return `${name}: ${RECIPE_TYPES[r.task]}`;
  });
  return types.replace(line, `  recipes: { ${keyed.join('; ')} };`);
}

main().catch((e) => {
  console.error(`package: ${e.message || e}`);
  process.exit(1);
});
