#!/usr/bin/env bash
# The page bundles, from web/src (needs web/build/mha-core.js from the WebAssembly build):
#   web/build/mha-demo.js  <mha-demo>: the core (wasm inside), web/mha.js and the component, minified,
#                          one classic script that works from file:// and from any article
#   web/build/app.js       index.html's and embed.html's own chrome (permalink, share dialog)
# The core is in mha-demo.js once, as text: the page evaluates it on the main thread (small runs)
# and the same text, with web/mha.js and the worker glue (web/src/worker.js, bundled first), becomes
# a blob: Web Worker for large runs (file:// pages may not load workers from files).
#   import coreText from 'text:../build/mha-core.js'   any file, as a string
#   import { core, wasmGz } from 'core-parts:page'      mha-page-core.js (the widget's: no gradients)
#                                                       without its inlined wasm, and the wasm gzipped,
#                                                       as base64: 60 KB less to download than base64
#                                                       of the raw wasm, even gzipped
#   import { core, wasmGz } from 'core-parts:full'      the same of mha-core.js (the part 'gradients')
#   import glueText from 'worker-glue:'                 web/src/worker.js bundled, minified, as a string
#                                                       (reading the page's catalog: sharedCatalogPlugin)
#   web/build/mha-{part}.js  each part of the widget (web/src/parts.js: the training panels), a classic
#                          script beside mha-demo.js that a demo loads when it first shows the part
#   web/build/mha-history-{id}.js  how a shipped model formed (models/trained-models.json `history`), a
#                          classic script beside mha-demo.js, loaded when the training panel shows its recipe
#   web/build/mha-text-{corpus}.js  the text the page's recipe of real text trains on (models/corpus),
#                          a classic script beside mha-demo.js, loaded when that recipe starts
#   web/build/mha-trained.js  each trained model of models/trained-models.json (today the one of
#                          models/induction.safetensors), its F32 tensors as F16, a classic script beside
#                          mha-demo.js that the widget loads when it starts
set -euo pipefail
cd "$(dirname "$0")/.."
node - <<'JS'
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { splitCore, trainedModels, shippedModelBytes, heldoutHeadTypes, pruningCurves, modelScript, languageParts, corpusTexts, historyScripts } = require('./scripts/web-parts.js');
let PARTS, partScript; // web/src/parts.js, an ES module: imported in main()

// mha-core.js without its wasm, and the wasm gzipped (web/src/core.js inflates it). Zopfli (Debian's
// zopfli, which scripts/setup.sh installs) writes the same gzip format 5 % smaller than zlib at level
// 9: 201 against 213 KB for this wasm, and as base64 it is most of the widget's 300 KB budget. A
// machine without it gets zlib's, and a line saying so.
async function coreParts(coreFile) {
  const { core, wasm } = await splitCore(coreFile);
  let gz;
  const file = path.join(require('node:os').tmpdir(), `mha-core-${process.pid}.wasm`); // zopfli reads files only
  try {
    fs.writeFileSync(file, wasm);
    gz = require('node:child_process').execFileSync('zopfli', ['-c', file], { maxBuffer: 64 << 20 });
  } catch (e) {
    console.warn(`build-web: zopfli ${e.code === 'ENOENT' ? 'is not installed' : `failed (${e.message})`}; the wasm is gzipped by zlib instead (12 KB more)`);
    gz = zlib.gzipSync(wasm, { level: 9 });
  } finally {
    fs.rmSync(file, { force: true });
  }
  if (!zlib.gunzipSync(gz).equals(wasm)) throw new Error('the gzipped wasm does not inflate to the wasm');
  return { core, wasmGz: gz.toString('base64') };
}

// import catalog from 'catalog:' — the core's declarations (cpp/core/catalog.h: defaults, limits,
// recipes, metrics, error codes) as the module just built hands them out, so the page reads the
// core's values before the module has loaded, and never a copy of its own.
// Also written to web/build/catalog.json, for scripts that read it without loading the module.
let catalogJson = null;
const coresOnce = new Map(); // 'page' | 'full' -> coreParts(), once for all the bundles that hold it
const CORE_FILES = { page: 'web/build/mha-page-core.js', full: 'web/build/mha-core.js' };
async function catalogText() {
  if (!catalogJson) {
    catalogJson = JSON.stringify((await require('./web/mha.js')()).catalog);
    fs.writeFileSync('web/build/catalog.json', catalogJson);
  }
  return catalogJson;
}
const catalogPlugin = {
  name: 'catalog',
  setup(build) {
    build.onResolve({ filter: /^catalog:$/ }, () => ({ path: 'catalog', namespace: 'catalog' }));
    // The page's copy leaves out what it reads from the module once it has loaded (mha.stageTable)
    // or never reads (errorCodes: the module's errors carry their sentences; the label rules: each
    // analysis carries them; the presets, GPT-2's d_head, RoPE's base and the CLI's sweep, the metrics'
    // abbreviations for its tables; of the options, all but which a Trainer takes: trainerOptions.js).
    build.onLoad({ filter: /.*/, namespace: 'catalog' }, async () => {
      const { errorCodes, stageTable, labelRules, presets, gpt2DHead, ropeBase, sweepHeads, options, ...page } = JSON.parse(await catalogText());
      page.headMetrics = page.headMetrics.map(({ abbreviation, ...metric }) => metric);
      page.options = { trainer: options.trainer.map(({ key, task }) => ({ key, task })) };
      return { contents: JSON.stringify(page), loader: 'json' };
    });
  },
};

// import heldoutHeads from 'heldout-heads:' — each shipped model of real text's heads on its held-out
// excerpt, as the core measures them (web-parts.js heldoutHeadTypes): a few hundred bytes in the
// widget, there before the model's own script.
const heldoutPlugin = {
  name: 'heldout-heads',
  setup(build) {
    build.onResolve({ filter: /^heldout-heads:$/ }, () => ({ path: 'heldout-heads', namespace: 'heldout-heads' }));
    build.onLoad({ filter: /.*/, namespace: 'heldout-heads' }, async () => ({ contents: JSON.stringify(await heldoutHeadTypes()), loader: 'json' }));
  },
};
// import pruningCurves from 'pruning-curves:' — their pruning curves on the same excerpts (web-parts.js).
const pruningPlugin = {
  name: 'pruning-curves',
  setup(build) {
    build.onResolve({ filter: /^pruning-curves:$/ }, () => ({ path: 'pruning-curves', namespace: 'pruning-curves' }));
    build.onLoad({ filter: /.*/, namespace: 'pruning-curves' }, () => ({ contents: JSON.stringify(pruningCurves()), loader: 'json' }));
  },
};

// The widget carries the page's strings in English only; each other language goes beside it, in
// web/build/mha-{lang}.js (web/src/languages.js adds it when a demo first shows that language):
// Chinese is a third of the strings' bytes, which an English page need not download.
let languages = null;
const languagePlugin = {
  name: 'languages',
  setup(build) {
    build.onLoad({ filter: /web[\\/]src[\\/](strings|sentences)\.js$/ }, async (args) => {
      languages = languages || (await languageParts());
      return { contents: languages[path.basename(args.path, '.js')], loader: 'js' };
    });
  },
};

// The worker's glue takes the page's copy of the catalog rather than a second one of its own: its
// `catalog:` is the free name mhaCatalog, which web/src/core.js gives it (a parameter on the page, a
// global of the worker's script).
const sharedCatalogPlugin = {
  name: 'shared-catalog',
  setup(build) {
    build.onResolve({ filter: /^catalog:$/ }, () => ({ path: 'shared-catalog', namespace: 'shared-catalog' }));
    build.onLoad({ filter: /.*/, namespace: 'shared-catalog' }, () => ({ contents: 'export default mhaCatalog;', loader: 'js' }));
  },
};

// The widget's parts (web/src/parts.js), each bundled as a classic script, mha-{name}.js, that
// takes the modules it shares with the widget from self.mhaShared: those the two bundles would
// both hold, found by bundling each alone first (esbuild's metafile lists the modules in a bundle).
const inputsOf = (result) => new Set(Object.keys(result.metafile.inputs).filter((file) => file.startsWith('web/src/')));
// import sharedModules from 'shared-modules:' — in the widget: {file: the module}, for the parts.
const sharedModulesPlugin = (files) => ({
  name: 'shared-modules',
  setup(build) {
    build.onResolve({ filter: /^shared-modules:$/ }, () => ({ path: 'shared-modules', namespace: 'shared-modules' }));
    build.onLoad({ filter: /.*/, namespace: 'shared-modules' }, () => ({
      contents: files.map((file, i) => `import * as m${i} from ${JSON.stringify(`./${file}`)};`).join('\n') +
        `\nexport default {${files.map((file, i) => `${JSON.stringify(file)}: m${i}`).join(', ')}};`,
      resolveDir: process.cwd(), loader: 'js',
    }));
  },
});
// In a part: each shared module is the widget's, and `part:` is the script's body (the entry's
// exports and its strings on self.mhaParts[name]).
const partPlugin = (name, entry, shared) => ({
  name: 'part',
  setup(build) {
    build.onResolve({ filter: /^part:$/ }, () => ({ path: name, namespace: 'part' }));
    build.onLoad({ filter: /.*/, namespace: 'part' }, () => ({
      contents: `import * as part from ${JSON.stringify(`./web/src/${entry}`)};\n` +
        `(self.mhaParts = self.mhaParts || {})[${JSON.stringify(name)}] = { ...part, strings: ${JSON.stringify(languages.partStrings(name))} };`,
      resolveDir: process.cwd(), loader: 'js',
    }));
    build.onResolve({ filter: /^\./ }, async (args) => {
      if (args.pluginData === 'part' || !shared.size) return undefined;
      const found = await build.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, pluginData: 'part' });
      const file = path.relative(process.cwd(), found.path).split(path.sep).join('/');
      return shared.has(file) ? { path: file, namespace: 'shared' } : found;
    });
    // The widget's module, as an ES module's exports read through getters (live, as an import is;
    // __esModule so that a default import is its default export, not the whole module).
    build.onLoad({ filter: /.*/, namespace: 'shared' }, (args) => ({
      contents: `const m = self.mhaShared[${JSON.stringify(args.path)}];\n` +
        'module.exports = Object.defineProperties({ __esModule: true }, Object.fromEntries(Object.keys(m).map((k) => [k, { get: () => m[k], enumerable: true }])));',
      loader: 'js',
    }));
  },
});

async function main() {
  ({ PARTS, partScript } = await import('./web/src/parts.js'));
  languages = languages || (await languageParts());
  const glue = await esbuild.build({
    entryPoints: ['web/src/worker.js'], bundle: true, format: 'iife', globalName: 'mhaWorkerParts', target: 'es2020',
    platform: 'browser', minify: true, write: false, logLevel: 'warning', plugins: [sharedCatalogPlugin],
  });
  const glueText = glue.outputFiles[0].text;
  const textPlugin = {
    name: 'text',
    setup(build) {
      build.onResolve({ filter: /^text:/ }, (args) => ({ path: path.resolve(args.resolveDir, args.path.slice(5)), namespace: 'text' }));
      // .js texts are minified as classic scripts (top-level names such as createMhaCore stay).
      build.onLoad({ filter: /.*/, namespace: 'text' }, async (args) => {
        let contents = fs.readFileSync(args.path, 'utf8');
        if (args.path.endsWith('.js')) contents = (await esbuild.transform(contents, { minify: true, target: 'es2020', logLevel: 'warning' })).code;
        return { contents, loader: 'text', watchFiles: [args.path] };
      });
      // The demo's stylesheet, a string in its shadow root: minified as CSS.
      build.onLoad({ filter: /\.css$/ }, async (args) => ({
        contents: (await esbuild.transform(fs.readFileSync(args.path, 'utf8'), { loader: 'css', minify: true, logLevel: 'warning' })).code,
        loader: 'text',
      }));
      build.onResolve({ filter: /^core-parts:(page|full)$/ }, (args) => ({ path: args.path.slice(11), namespace: 'core-parts' }));
      build.onLoad({ filter: /.*/, namespace: 'core-parts' }, async (args) => {
        if (!coresOnce.has(args.path)) coresOnce.set(args.path, coreParts(CORE_FILES[args.path]));
        return { contents: JSON.stringify(await coresOnce.get(args.path)), loader: 'json' };
      });
      build.onResolve({ filter: /^worker-glue:$/ }, () => ({ path: 'worker-glue', namespace: 'worker-glue' }));
      build.onLoad({ filter: /.*/, namespace: 'worker-glue' }, () => ({ contents: glueText, loader: 'text' }));
    },
  };
  // MHA_PROFILE=1: the functions keep their names, for a profile that names them (bench/README.md).
  const bundle = (entry, plugins, more) => esbuild.build({
    entryPoints: [entry], bundle: true, format: 'iife', target: 'es2020', platform: 'browser', minify: true,
    ...(process.env.MHA_PROFILE ? { minify: false, minifySyntax: true, minifyWhitespace: true } : {}),
    loader: { '.css': 'text', '.csv': 'text' }, plugins: [...plugins, textPlugin, catalogPlugin, heldoutPlugin, pruningPlugin, languagePlugin], logLevel: 'warning', ...more,
  });
  const alone = { write: false, metafile: true };
  const widgetModules = inputsOf(await bundle('web/src/widget.js', [sharedModulesPlugin([])], alone));
  const parts = [];
  for (const [name, { entry }] of Object.entries(PARTS)) {
    const modules = inputsOf(await bundle('part:', [partPlugin(name, entry, new Set())], alone));
    parts.push({ name, entry, shared: new Set([...modules].filter((file) => widgetModules.has(file))) });
  }
  const shared = [...new Set(parts.flatMap((part) => [...part.shared]))].sort();
  await bundle('web/src/widget.js', [sharedModulesPlugin(shared)], { outfile: 'web/build/mha-demo.js' });
  for (const { name, entry, shared: mine } of parts) {
    await bundle('part:', [partPlugin(name, entry, mine)], { outfile: path.join('web/build', partScript(name)) });
  }
  // Beside the widget, not in it: it keeps mha-demo.js under 300 KB gzipped, and a script (unlike a
  // fetch) loads from file:// too.
  for (const model of trainedModels()) {
    fs.writeFileSync(path.join('web/build', model.script), modelScript(model, await shippedModelBytes(model)));
  }
  for (const { script, text } of languages.scripts) fs.writeFileSync(path.join('web/build', script), text);
  for (const { script, text } of await corpusTexts(JSON.parse(await catalogText()))) fs.writeFileSync(path.join('web/build', script), text);
  for (const { script, text } of await historyScripts()) fs.writeFileSync(path.join('web/build', script), text);
  await esbuild.build({
    entryPoints: ['web/src/main.js'], bundle: true, format: 'iife', target: 'es2020', outfile: 'web/build/app.js', logLevel: 'warning',
    plugins: [catalogPlugin],
  });
}
main().catch((e) => {
  console.error(e.message || e);
  process.exit(1);
});
JS
