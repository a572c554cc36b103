// Entry of web/build/mha-demo.js: the WebAssembly core, web/mha.js and <mha-demo>, in one classic
// script. Also offers createMha() to the page, as including build/mha-core.js + mha.js would.
// The core is held once, as text (core.js): evaluated here for the main thread, and the same text
// starts each demo's large-run Web Worker.
import { evaluateCreateMha, workerURL } from './core.js';
import { MhaDemo } from './element.js';
import { useModule } from './sharedModule.js';

// The model this project trained (npm run train) lives beside this script in mha-trained.js
// (scripts/build-web.sh); loaded once, when the first demo starts, by a <script> tag, so that it
// also loads on file:// pages. Resolves to its bytes, or rejects saying which file is missing.
const here = document.currentScript && document.currentScript.src;
let trained = null;
function loadTrainedModel() {
  const decode = () => Uint8Array.from(atob(self.mhaTrainedModels.induction), (c) => c.charCodeAt(0));
  if (!trained) {
    trained = self.mhaTrainedModels && self.mhaTrainedModels.induction
      ? Promise.resolve(decode())
      : new Promise((resolve, reject) => {
        const src = new URL('mha-trained.js', here || document.baseURI).href;
        const script = document.createElement('script');
        script.src = src;
        script.onload = () => (self.mhaTrainedModels ? resolve(decode()) : reject(new Error(`${src} holds no model`)));
        script.onerror = () => reject(new Error(`the trained model ${src} could not be loaded; keep mha-trained.js beside mha-demo.js`));
        document.head.append(script);
      });
  }
  return trained;
}

const createMha = evaluateCreateMha();
useModule(() => createMha(), workerURL, loadTrainedModel);
if (typeof window.createMha !== 'function') window.createMha = createMha;
if (!customElements.get('mha-demo')) customElements.define('mha-demo', MhaDemo);
