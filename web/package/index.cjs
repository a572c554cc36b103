// The npm package's Node entry (bundled into dist/index.cjs by scripts/package.js): createMha() of
// web/mha.js over the WebAssembly core, whose wasm is read from mha-core.wasm beside this file
// rather than carried as base64 inside the script (the widget, mha-demo.js, carries its own).
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const createMhaOver = require('../mha.js'); // its core, ./build/mha-core.js, is bundled without the wasm

let wasm = null; // read once, shared by every module instance
function createMha(options = {}) {
  if (options.wasmBinary) return createMhaOver(options);
  wasm = wasm || fs.readFileSync(path.join(__dirname, 'mha-core.wasm'));
  return createMhaOver({ ...options, wasmBinary: wasm });
}
createMha.MhaError = createMhaOver.MhaError;
// require('mha-demo') is createMha; so are its .createMha and .default, for destructuring and for
// transpiled `import createMha from 'mha-demo'`.
createMha.createMha = createMha;
createMha.default = createMha;
module.exports = createMha;
