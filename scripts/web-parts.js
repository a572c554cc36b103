// What the page bundles (scripts/build-web.sh) and the npm package (scripts/package.js) are both made
// of, made in one place: the WebAssembly core split from its wasm, and the trained models' files.
'use strict';

const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');
const { toF16 } = require('./model-f16.js');

const ROOT = path.join(__dirname, '..');
const CORE = path.join(ROOT, 'web', 'build', 'mha-core.js');

// web/build/mha-core.js (SINGLE_FILE) as {core: its script, minified, with the wasm's base64 taken out
// of its data: URI; wasm: the wasm's bytes}. The core uses the Module's wasmBinary when it is given one.
async function splitCore() {
  const text = fs.readFileSync(CORE, 'utf8');
  const uri = /(data:application\/octet-stream;base64,)([A-Za-z0-9+/=]+)/;
  const found = uri.exec(text);
  if (!found) throw new Error(`${path.relative(ROOT, CORE)} holds no inlined wasm: is it a SINGLE_FILE build?`);
  const core = (await esbuild.transform(text.replace(uri, '$1'), { minify: true, target: 'es2020', logLevel: 'warning' })).code;
  return { core, wasm: Buffer.from(found[2], 'base64') };
}

// models/trained-models.json's list: [{id, source (a path from the repository root), script}].
const trainedModels = () => JSON.parse(fs.readFileSync(path.join(ROOT, 'models', 'trained-models.json'), 'utf8')).models;

// A trained model as shipped: its safetensors with every F32 tensor stored as F16.
async function shippedModelBytes(model) {
  return Buffer.from(await toF16(fs.readFileSync(path.join(ROOT, model.source))));
}

// The classic script that carries a model beside mha-demo.js (web/src/widget.js loads it by a tag).
function modelScript(model, bytes) {
  return `// ${model.source}, trained by this project (npm run train), F32 tensors stored as F16, as base64.\n` +
    `(self.mhaTrainedModels = self.mhaTrainedModels || {})[${JSON.stringify(model.id)}] = '${bytes.toString('base64')}';\n`;
}

module.exports = { splitCore, trainedModels, shippedModelBytes, modelScript };
