// The WebAssembly core (web/build/mha-core.js, its wasm gzipped beside it) and web/mha.js, each held
// once, as text, in mha-demo.js (see scripts/build-web.sh). The same strings give
//   createMha()   on the main thread: the texts evaluated as classic scripts would be, for small runs
//   workerURL()   a blob: URL of a classic worker script (core + mha.js + the gzipped wasm +
//                 web/src/worker.js), for large runs and training; blob: workers also start on file://
//                 pages, where file workers do not.
//   workerParts() the worker script's exports ({Engine}), evaluated on the page: one copy of the engine.
import { core as coreText, wasmGz } from 'core-parts:';
import apiText from 'text:../mha.js';
import glueText from 'worker-glue:';
import { inflateWasm } from './inflateWasm.js';
import catalog from './catalog.js';

// module, exports, define and require are shadowed so that neither script takes the page's AMD
// loader or CommonJS shims for its own; mha.js takes the CommonJS branch and gets the core factory.
// createMha(options) of web/mha.js, given the inflated wasm.
export function evaluateCreateMha() {
  // eslint-disable-next-line no-new-func
  const createMhaCore = new Function('module', 'exports', 'define', 'require', `${coreText}\n;return createMhaCore;`)();
  const mod = { exports: {} };
  // eslint-disable-next-line no-new-func
  new Function('module', 'exports', 'define', 'require', apiText)(mod, mod.exports, undefined, () => createMhaCore);
  const createMha = mod.exports;
  let wasm = null;
  return async (options = {}) => createMha({ wasmBinary: await (wasm = wasm || inflateWasm(wasmGz)), ...options });
}

// The worker's script lends the page its Engine (web/src/worker.js): the same text, evaluated here
// once, so the widget carries the engine once. The script reads the catalog as mhaCatalog (the
// page's copy: scripts/build-web.sh), given here as a parameter and in the worker as a global.
let parts = null;
export function workerParts() {
  // eslint-disable-next-line no-new-func
  if (!parts) parts = new Function('module', 'exports', 'define', 'require', 'mhaCatalog', `${glueText}\n;return mhaWorkerParts;`)(undefined, undefined, undefined, undefined, catalog);
  return parts;
}

let url = null;
export function workerURL() {
  if (!url) {
    const globals = `\n;self.mhaWasmGz=${JSON.stringify(wasmGz)};self.mhaCatalog=${JSON.stringify(catalog)};\n`;
    url = URL.createObjectURL(new Blob([coreText, '\n;\n', apiText, globals, glueText], { type: 'text/javascript' }));
  }
  return url;
}
