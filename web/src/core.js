// The page's WebAssembly core (web/build/mha-page-core.js, its wasm gzipped beside it) and web/mha.js,
// each held once, as text, in mha-demo.js (see scripts/build-web.sh). The same strings give
//   createMha()   on the main thread: the texts evaluated as classic scripts would be, for small runs
//   workerURL()   a blob: URL of a classic worker script (core + mha.js + the gzipped wasm +
//                 web/src/worker.js), for large runs and the models of real text; blob: workers also start on file:// pages,
//                 where file workers do not.
//   workerParts() the worker script's exports ({Engine}), evaluated on the page: one copy of the engine.
// The whole core (mha-core.js: the Trainer, headImportance, prune) comes in the part 'gradients'
// (gradients.js); given its {core, wasmGz}, the first two make its module and its workers, which train.
import pageCore from 'core-parts:page';
import apiText from 'text:../mha.js';
import glueText from 'worker-glue:';
import { inflateWasm } from './inflateWasm.js';
import catalog from './catalog.js';

// module, exports, define and require are shadowed so that neither script takes the page's AMD
// loader or CommonJS shims for its own; mha.js takes the CommonJS branch and gets the core factory.
// createMha(options) of web/mha.js, given the inflated wasm; one for each core.
const factories = new Map(); // {core, wasmGz} -> createMha
export function evaluateCreateMha(parts = pageCore) {
  if (!factories.has(parts)) factories.set(parts, makeCreateMha(parts));
  return factories.get(parts);
}

function makeCreateMha({ core: coreText, wasmGz }) {
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

const urls = new Map(); // {core, wasmGz} -> the URL of its worker script
export function workerURL(parts = pageCore) {
  if (!urls.has(parts)) {
    const globals = `\n;self.mhaWasmGz=${JSON.stringify(parts.wasmGz)};self.mhaCatalog=${JSON.stringify(catalog)};\n`;
    urls.set(parts, URL.createObjectURL(new Blob([parts.core, '\n;\n', apiText, globals, glueText], { type: 'text/javascript' })));
  }
  return urls.get(parts);
}
