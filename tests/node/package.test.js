// The npm package as an article author gets it: npm pack's tarball installed offline into an empty
// folder (no registry, no build step), and from there
//   1. createMha() in Node, through require and through import, runs the trained model it ships;
//   2. <mha-demo>, loaded from node_modules by file:// in Chromium, draws;
//   3. the types: usage files (tests/node/package/) compile with tsc --strict, each mistake marked in
//      wrong.ts is reported and nothing else, and the declarations name exactly the members the
//      module, its classes and the element have, the core's stages, the attributes the element reads
//      and the fields of each event's detail.
// Needs the build (npm run build writes dist/). Prints the tarball's size, which the README quotes.
'use strict';

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const { launchBrowser, watchPage, readCanvases } = require('../browser/browser.js');
const { trainedModels, shippedModelBytes, languageParts, partScripts: partScriptsOf } = require('../../scripts/web-parts.js');
const createRepoMha = require('../../web/mha.js');
const pkg = require('../../package.json');

const ROOT = path.join(__dirname, '..', '..');
const FIXTURES = path.join(__dirname, 'package');
const TSC = path.join(ROOT, 'node_modules', '.bin', 'tsc');
const TEXT = '我是秦始皇，我是秦始皇';
const WAIT = 30_000;

// `npm run` exports npm_config_* (prefix among them), which would point a nested npm elsewhere.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
const npm = (args, cwd) => execFileSync('npm', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const kb = (bytes) => `${(bytes / 1024).toFixed(0)} KB`;

let tmp; // the temporary folder: the tarball, and the article's folder with the package installed
let article;
let packed; // npm pack's report: {filename, size, unpackedSize, files: [{path}]}
let installed; // article/node_modules/<name>
const runtime = {}; // names the running module and element have, for the types' check

let languageScripts; // [{lang, script}]: the widget's other languages, beside it
let partScripts; // the widget's parts' scripts, beside it (web/src/parts.js)

before(async () => {
  assert.ok(fs.existsSync(path.join(ROOT, 'dist', 'index.cjs')), 'dist/ is missing: npm run build');
  languageScripts = (await languageParts()).scripts;
  partScripts = await partScriptsOf();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mha-package-'));
  [packed] = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], ROOT));
  article = path.join(tmp, 'article');
  fs.mkdirSync(article);
  fs.writeFileSync(path.join(article, 'package.json'), JSON.stringify({ name: 'article', private: true }));
  npm(['install', '--offline', '--no-audit', '--no-fund', path.join(tmp, packed.filename)], article);
  installed = path.join(article, 'node_modules', pkg.name);
});

after(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('the tarball holds what users run, the README and the licences, and no sources, tests or dev files', () => {
  const files = packed.files.map((f) => f.path);
  console.log(`# ${packed.filename}: ${kb(packed.size)} (${files.length} files, ${kb(packed.unpackedSize)} unpacked)`);
  const allowed = /^(dist\/.+|package\.json|README\.md|LICENSE|THIRD-PARTY-LICENSES\.md|web\/screenshot-attend\.png)$/;
  assert.deepEqual(files.filter((f) => !allowed.test(f)), [], 'files a user does not run');
  // Every file package.json points at is in it.
  const leaves = (value) => (typeof value === 'string' ? [value] : Object.values(value).flatMap(leaves));
  const named = [pkg.main, pkg.types, pkg.unpkg, ...leaves(pkg.exports), ...leaves(pkg.typesVersions)].filter((p) => !p.includes('*'));
  for (const p of named) assert.ok(files.includes(path.posix.normalize(p)), `package.json names ${p}, which is not in the tarball`);
  for (const model of trainedModels()) {
    assert.ok(files.includes(`dist/${model.script}`), `the widget's ${model.script} is missing`);
    assert.ok(files.includes(`dist/models/${model.id}.safetensors`), `models/${model.id}.safetensors for Node is missing`);
  }
  for (const { script } of languageScripts) assert.ok(files.includes(`dist/${script}`), `the widget's ${script} is missing`);
  for (const script of partScripts) assert.ok(files.includes(`dist/${script}`), `the widget's ${script} is missing`);
  for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) assert.equal(pkg.scripts[hook], undefined, `installing would run ${hook}`);
  const notices = fs.readFileSync(path.join(installed, 'THIRD-PARTY-LICENSES.md'), 'utf8');
  for (const library of ['xsimd', 'nlohmann/json', 'Emscripten', 'musl']) assert.ok(notices.includes(library), `no licence for ${library}`);
  const readme = fs.readFileSync(path.join(installed, 'README.md'), 'utf8');
  assert.match(readme, /!\[[^\]]*\]\(web\/screenshot-attend\.png\)/, 'the README shows the screenshot');
  assert.ok(readme.includes(`npm install ./${packed.filename}`), `the README's install line names ${packed.filename}`);
});

// One report, made by the installed package in a Node of its own: the trained model it ships, run on
// TEXT, an error, and the names the module and its classes have.
const REPORT = `
function report(mha, MhaError, bytes) {
  const model = new mha.Model().loadModel(bytes);
  const trace = model.runText(${JSON.stringify(TEXT)});
  let error = null;
  try { new mha.Model({ dModel: 10, heads: 4 }); } catch (e) {
    error = { isMhaError: e instanceof MhaError && e instanceof mha.MhaError, field: e.field, code: e.code };
  }
  const members = (proto) => Object.getOwnPropertyNames(proto).filter((n) => n !== 'constructor' && !n.startsWith('_'));
  return {
    shape: trace.shape('layers.1.weights'),
    labels: trace.headAnalysis().layers.map((l) => l.heads.map((h) => h.label)),
    weights: Array.from(trace.data('layers.1.weights')),
    error,
    names: {
      mha: Object.keys(mha), Trace: members(Object.getPrototypeOf(trace)), StageId: mha.stageTable.stages.map((s) => s.id),
      ...Object.fromEntries(['Model', 'ModelBuilder', 'Gpt2Tokenizer', 'Trainer', 'Generator'].map((c) => [c, members(mha[c].prototype)])),
    },
  };
}`;

function runNode(file, source) {
  fs.writeFileSync(path.join(article, file), source);
  const out = spawnSync(process.execPath, [file], { cwd: article, env, encoding: 'utf8', timeout: WAIT });
  assert.equal(out.status, 0, `${file} failed:\n${out.stderr}`);
  return JSON.parse(out.stdout);
}

test('Node: require and import give createMha, which runs the trained model shipped in the package', { timeout: 60_000 }, async () => {
  const model = trainedModels()[0];
  const fromRequire = runNode('trace.cjs', `${REPORT}
const createMha = require('${pkg.name}');
const bytes = require('node:fs').readFileSync(require.resolve('${pkg.name}/dist/models/${model.id}.safetensors'));
createMha().then((mha) => console.log(JSON.stringify(report(mha, createMha.MhaError, bytes))));
`);
  const fromImport = runNode('trace.mjs', `${REPORT}
import createMha, { MhaError, createMha as named } from '${pkg.name}';
import { readFileSync } from 'node:fs';
if (named !== createMha) throw new Error('the default and the named createMha differ');
const bytes = readFileSync(new URL(import.meta.resolve('${pkg.name}/dist/models/${model.id}.safetensors')));
console.log(JSON.stringify(report(await createMha(), MhaError, bytes)));
`);
  assert.deepEqual(fromImport, fromRequire, 'require and import give different results');
  assert.deepEqual(fromRequire.shape, [1, 4, 12, 12]);
  assert.deepEqual(fromRequire.error, { isMhaError: true, field: 'heads', code: 'd_model_not_divisible' });
  // What the page teaches about this model holds for the copy in the package.
  assert.ok(fromRequire.labels[0].includes('previous_token'), `layer 0: ${fromRequire.labels[0]}`);
  assert.ok(fromRequire.labels[1].includes('induction'), `layer 1: ${fromRequire.labels[1]}`);
  // The same bits as this repository's web/mha.js on the widget's copy of the model.
  const mha = await createRepoMha();
  const trace = new mha.Model().loadModel(await shippedModelBytes(model)).runText(TEXT);
  assert.deepEqual(fromRequire.weights, Array.from(trace.data('layers.1.weights')));
  Object.assign(runtime, fromRequire.names);
});

test('<mha-demo> from node_modules by file:// draws the trained model (beside it) and random weights', { timeout: 90_000 }, async () => {
  const page = path.join(article, 'article.html');
  fs.writeFileSync(page, `<!doctype html>
<html lang="en"><meta charset="utf-8"><title>An article</title>
<script src="node_modules/${pkg.name}/${path.posix.normalize(pkg.unpkg)}"></script>
<p>What the trained model's heads do:</p>
<mha-demo id="trained" model="trained"></mha-demo>
<p>The shapes, on random weights:</p>
<mha-demo id="random" text="我是秦始皇" d-model="64" heads="4" stage="attend" controls="minimal"></mha-demo>
</html>
`);
  const browser = await launchBrowser();
  try {
    const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    tab.setDefaultTimeout(WAIT);
    const problems = [];
    watchPage(tab, problems);
    await tab.goto(pathToFileURL(page).href);
    await tab.waitForFunction(() => customElements.get('mha-demo'));
    const shown = await tab.evaluate(async () => {
      const demos = [...document.querySelectorAll('mha-demo')];
      await Promise.all(demos.map((d) => d.ready));
      return demos.map((d) => ({ model: d.state.settings.model, layers: d.state.result.config.layers, dModel: d.state.result.config.dModel, stage: d.state.stage }));
    });
    assert.deepEqual(shown, [
      { model: 'trained', layers: 2, dModel: 64, stage: 'attend' },
      { model: 'random', layers: 1, dModel: 64, stage: 'attend' },
    ]);
    for (const demo of ['#trained', '#random']) {
      const maps = await readCanvases(tab, { demo, stage: 'attend', selector: '[data-tensor="weights"] canvas' });
      assert.ok(maps.length >= 4, `${demo}: ${maps.length} weight maps`);
      assert.deepEqual(maps.filter((m) => m.size === 'unpainted'), [], `${demo}: a heatmap was not drawn`);
    }
    const detail = await tab.evaluate(() => new Promise((resolve) => {
      const demo = document.querySelector('#random');
      demo.addEventListener('stagechange', (e) => resolve(e.detail), { once: true });
      demo.goTo('split');
    }));
    assert.deepEqual(detail, { stage: 'split' });
    // What the other events carry: a bad attribute, and a moment of training.
    const error = await tab.evaluate(() => new Promise((resolve) => {
      const demo = document.querySelector('#random');
      demo.addEventListener('error', (e) => resolve(e.detail), { once: true });
      demo.setAttribute('heads', '7');
    }));
    assert.equal(error.attribute, 'heads', error.message);
    const training = await tab.evaluate(() => new Promise((resolve) => {
      const demo = document.querySelector('#trained');
      let progress = null;
      demo.addEventListener('trainprogress', (e) => {
        if (!progress) demo.pause();
        progress = e.detail;
      });
      demo.addEventListener('trainend', (e) => resolve({ progress, end: e.detail, state: demo.training }), { once: true });
      demo.train();
    }));
    assert.ok(training.progress.step > 0 && training.progress.heads.length === 8, JSON.stringify(training.progress));
    assert.equal(training.end.reason, 'paused');
    // A short head-count sweep (the recall recipe for 60 steps): its events and rows.
    const sweep = await tab.evaluate(async () => {
      const demo = document.querySelector('#trained');
      let progress = null;
      let end = null;
      demo.addEventListener('sweepprogress', (e) => { progress = e.detail; });
      demo.addEventListener('sweepend', (e) => { end = e.detail; });
      const rows = await demo.runHeadSweep({ heads: [2], steps: 60 });
      return { progress, end, rows };
    });
    assert.equal(sweep.rows.length, 1);
    assert.equal(sweep.end.reason, 'done');
    const keys = (object) => Object.keys(object);
    Object.assign(runtime, {
      StageChangeDetail: keys(detail), MhaDemoErrorDetail: keys(error), TrainProgressDetail: keys(training.progress),
      TrainProgressHead: keys(training.progress.heads[0]), TrainEndDetail: keys(training.end), MhaDemoTraining: keys(training.state),
      SweepProgressDetail: keys(sweep.progress || {}), SweepEndDetail: keys(sweep.end), SweepRow: keys(sweep.rows[0]),
    });
    Object.assign(runtime, await tab.evaluate(() => {
      const MhaDemo = customElements.get('mha-demo');
      const callbacks = ['constructor', 'connectedCallback', 'disconnectedCallback', 'attributeChangedCallback'];
      const own = Object.keys(document.querySelector('mha-demo'));
      return {
        MhaDemoElement: [...Object.getOwnPropertyNames(MhaDemo.prototype), ...own].filter((n) => !callbacks.includes(n) && !n.startsWith('_')),
        MhaDemoAttributeName: MhaDemo.observedAttributes,
      };
    }));
    assert.deepEqual(problems, [], `console errors or failed requests:\n${problems.join('\n')}`);
  } finally {
    await browser.close();
  }
});

// tsc's reports, as "file:line" strings.
function tsc(args) {
  const out = spawnSync(TSC, args, { cwd: article, env, encoding: 'utf8', timeout: WAIT });
  if (out.error) throw out.error;
  const lines = out.stdout.split('\n').filter((l) => / error TS\d+/.test(l));
  return { status: out.status, output: out.stdout + out.stderr, errors: lines.map((l) => l.replace(/^(\S+?)\((\d+),\d+\).*/, '$1:$2')) };
}

test('TypeScript: the documented API compiles with --strict, mistakes do not, and the types name what runs', { timeout: 60_000 }, () => {
  assert.ok(runtime.Model && runtime.MhaDemoElement, 'needs the names the Node and browser tests collect');
  for (const file of fs.readdirSync(FIXTURES)) fs.copyFileSync(path.join(FIXTURES, file), path.join(article, file));
  // Declared and running names agree: tsc reports either side's extra names by name.
  const union = (names) => [...new Set(names)].map((n) => JSON.stringify(n)).join(' | ');
  const checks = {
    mha: ['keyof Mha', runtime.mha],
    Model: ['keyof Model', runtime.Model],
    Trace: ['keyof Trace', runtime.Trace],
    ModelBuilder: ['keyof ModelBuilder', runtime.ModelBuilder],
    Gpt2Tokenizer: ['keyof Gpt2Tokenizer', runtime.Gpt2Tokenizer],
    Trainer: ['keyof Trainer', runtime.Trainer],
    Generator: ['keyof Generator', runtime.Generator],
    stages: ['StageId', runtime.StageId],
    attributes: ['MhaDemoAttributeName', runtime.MhaDemoAttributeName],
    element: ['Exclude<keyof MhaDemoElement, keyof HTMLElement>', runtime.MhaDemoElement],
    training: ['keyof MhaDemoTraining', runtime.MhaDemoTraining],
    ...Object.fromEntries(['StageChangeDetail', 'MhaDemoErrorDetail', 'TrainProgressDetail', 'TrainEndDetail', 'SweepProgressDetail', 'SweepEndDetail', 'SweepRow'].map((d) => [d, [`keyof ${d}`, runtime[d]]])),
    TrainProgressHead: ["keyof TrainProgressDetail['heads'][number]", runtime.TrainProgressHead],
  };
  fs.writeFileSync(path.join(article, 'runtime.ts'), `// Written by tests/node/package.test.js from the running module and element.
import type { Generator, Gpt2Tokenizer, Mha, Model, ModelBuilder, StageId, Trace, Trainer } from '${pkg.name}';
import type { MhaDemoAttributeName, MhaDemoElement, MhaDemoErrorDetail, MhaDemoTraining, StageChangeDetail, SweepEndDetail, SweepProgressDetail, SweepRow, TrainEndDetail, TrainProgressDetail } from '${pkg.name}/element';
type Agree<Declared, AtRunTime> = [Exclude<AtRunTime, Declared>, Exclude<Declared, AtRunTime>] extends [never, never]
  ? 'agree' : { undeclared: Exclude<AtRunTime, Declared>; declaredButAbsent: Exclude<Declared, AtRunTime> };
${Object.entries(checks).map(([name, [declared, names]]) => `export const ${name}Agrees: Agree<${declared}, ${union(names)}> = 'agree';`).join('\n')}
`);
  const strict = ['--strict', '--noEmit', '--target', 'es2022', '--lib', 'es2022,dom'];
  fs.writeFileSync(path.join(article, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'] },
    files: ['usage.mts', 'usage.cts', 'element.ts', 'runtime.ts'],
  }));
  const good = tsc(['-p', '.']);
  assert.equal(good.status, 0, `tsc --strict (nodenext) failed:\n${good.output}`);
  const bundler = tsc(['--ignoreConfig', ...strict, '--module', 'esnext', '--moduleResolution', 'bundler', 'usage.mts', 'element.ts']);
  assert.equal(bundler.status, 0, `tsc --strict (bundler) failed:\n${bundler.output}`);

  const wrong = tsc(['--ignoreConfig', ...strict, '--module', 'nodenext', 'wrong.ts']);
  const marked = fs.readFileSync(path.join(article, 'wrong.ts'), 'utf8').split('\n')
    .flatMap((line, i) => (line.includes('// wrong:') ? [`wrong.ts:${i + 1}`] : []));
  assert.ok(marked.length >= 5);
  assert.notEqual(wrong.status, 0, 'wrong.ts compiled');
  assert.deepEqual([...new Set(wrong.errors)], marked, `tsc should report exactly the lines marked wrong:\n${wrong.output}`);
});
