// Entry of web/build/mha-demo.js: the WebAssembly core, web/mha.js and <mha-demo>, in one classic
// script. Also offers createMha() to the page, as including build/mha-core.js + mha.js would.
import createMha from '../mha.js';
import { MhaDemo, useModule } from './element.js';

useModule(() => createMha());
if (typeof window.createMha !== 'function') window.createMha = createMha;
if (!customElements.get('mha-demo')) customElements.define('mha-demo', MhaDemo);
