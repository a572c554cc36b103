// Entry of web/build/mha-demo.js: the WebAssembly core, web/mha.js and <mha-demo>, in one classic
// script. Also offers createMha() to the page, as including build/mha-core.js + mha.js would.
// The core is held once, as text (core.js): evaluated here for the main thread, and the same text
// starts each demo's large-run Web Worker.
import { evaluateCreateMha, workerURL } from './core.js';
import { MhaDemo, useModule } from './element.js';

const createMha = evaluateCreateMha();
useModule(() => createMha(), workerURL);
if (typeof window.createMha !== 'function') window.createMha = createMha;
if (!customElements.get('mha-demo')) customElements.define('mha-demo', MhaDemo);
