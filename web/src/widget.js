// Entry of web/build/mha-demo.js: the WebAssembly core, web/mha.js and <mha-demo>, in one classic
// script. Also offers createMha() to the page, as including build/mha-core.js + mha.js would.
// The core is held once, as text (core.js): evaluated here for the main thread, and the same text
// starts each demo's large-run Web Worker.
import { evaluateCreateMha, workerURL } from './core.js';
import { MhaDemo } from './element.js';
import { useModule } from './sharedModule.js';
import { models as TRAINED_MODELS } from '../../models/trained-models.json';

// The models this project trained (npm run train) live beside this script, each in its own classic
// script (models/trained-models.json names them; scripts/build-web.sh writes them); loaded once, when
// a demo first needs one, by a <script> tag, so that they also load on file:// pages. Resolves to the
// model's bytes, or rejects saying which file is missing. The first listed is the trained model.
const here = document.currentScript && document.currentScript.src;
const loaded = new Map(); // id -> Promise of bytes
function loadTrainedModel(id = TRAINED_MODELS[0].id) {
  const { script } = TRAINED_MODELS.find((m) => m.id === id);
  const base64 = () => self.mhaTrainedModels && self.mhaTrainedModels[id];
  const decode = () => Uint8Array.from(atob(base64()), (c) => c.charCodeAt(0));
  if (!loaded.has(id)) {
    loaded.set(id, base64()
      ? Promise.resolve(decode())
      : new Promise((resolve, reject) => {
        const src = new URL(script, here || document.baseURI).href;
        const tag = document.createElement('script');
        tag.src = src;
        tag.onload = () => (base64() ? resolve(decode()) : reject(new Error(`${src} holds no model '${id}'`)));
        tag.onerror = () => reject(new Error(`the trained model ${src} could not be loaded; keep ${script} beside mha-demo.js`));
        document.head.append(tag);
      }));
  }
  return loaded.get(id);
}

const createMha = evaluateCreateMha();
useModule(() => createMha(), workerURL, (id) => loadTrainedModel(id));
if (typeof window.createMha !== 'function') window.createMha = createMha;
if (!customElements.get('mha-demo')) customElements.define('mha-demo', MhaDemo);
