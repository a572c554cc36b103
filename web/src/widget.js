// Entry of web/build/mha-demo.js: the page's WebAssembly core, web/mha.js and <mha-demo>, in one
// classic script. Also offers createMha() to the page, as including build/mha-core.js + mha.js would
// (the whole module: it loads the part 'gradients' first). The core is held once, as text (core.js):
// evaluated here for the main thread, and the same text starts each demo's run Web Worker.
import { evaluateCreateMha, workerURL, workerParts } from './core.js';
import { MhaDemo } from './element.js';
import { useModule } from './sharedModule.js';
import { addLanguage, addStrings } from './languages.js';
import { partScript, textScript, historyScript } from './parts.js';
import sharedModules from 'shared-modules:';
import { base64Bytes } from './base64.js';
import { hasHistory } from './attributes.js';
import { models as TRAINED_MODELS } from '../../models/trained-models.json';

// What lives beside this script, each in its own classic script that scripts/build-web.sh writes,
// loaded once, when a demo first needs it, by a <script> tag (so that it also loads on file://
// pages): the models this project trained (models/trained-models.json names them; the first listed
// is the trained model), the page's languages besides English (languages.js), the widget's parts
// (parts.js) and the texts its recipes of real text train on. `has` says whether
// the script's global is there; the promise rejects saying which file is missing.
const here = document.currentScript && document.currentScript.src;
const loading = new Map(); // script -> Promise
function loadBeside(script, has, what) {
  if (has()) return Promise.resolve();
  if (!loading.has(script)) {
    loading.set(script, new Promise((resolve, reject) => {
      const src = new URL(script, here || document.baseURI).href;
      const tag = document.createElement('script');
      tag.src = src;
      tag.onload = () => (has() ? resolve() : reject(new Error(`${src} holds no ${what}`)));
      tag.onerror = () => reject(new Error(`${what} ${src} could not be loaded; keep ${script} beside mha-demo.js`));
      document.head.append(tag);
    }).catch((e) => {
      loading.delete(script); // asked again, it is tried again (the file may have come since)
      throw e;
    }));
  }
  return loading.get(script);
}

// Each model's bytes are decoded once for the page: every demo, and the early call that starts the
// script loading beside the core, share them (the engines read them and never write or transfer them).
const decoded = new Map(); // id -> Promise of the bytes
function loadTrainedModel(id = TRAINED_MODELS[0].id) {
  if (!decoded.has(id)) {
    const { script } = TRAINED_MODELS.find((m) => m.id === id);
    const base64 = () => self.mhaTrainedModels && self.mhaTrainedModels[id];
    decoded.set(id, loadBeside(script, base64, `the trained model '${id}'`).then(() => base64Bytes(base64())));
  }
  return decoded.get(id);
}

function loadLanguage(lang) {
  const table = () => self.mhaLanguages && self.mhaLanguages[lang];
  return loadBeside(`mha-${lang}.js`, table, `the language '${lang}'`).then(() => addLanguage(lang, table()));
}

// A part's script takes the modules it shares with the widget from here (parts.js).
self.mhaShared = sharedModules;
function loadPart(name) {
  const part = () => self.mhaParts && self.mhaParts[name];
  return loadBeside(partScript(name), part, `the part '${name}'`).then(() => {
    addStrings(part().strings);
    return part();
  });
}

// The text a recipe of real text trains on ({vocabulary, train, heldout}, a Trainer's text).
function loadText(corpus) {
  const text = () => self.mhaTexts && self.mhaTexts[corpus];
  return loadBeside(textScript(corpus), text, `the text of '${corpus}'`).then(text);
}

// How a shipped model formed ({recipe, text, ids, every, phaseStep, losses, snapshots}: scripts/history.js);
// null for a model none was recorded for (models/trained-models.json `history`), without asking.
function loadHistory(id) {
  if (!hasHistory(id)) return Promise.resolve(null);
  const history = () => self.mhaHistories && self.mhaHistories[id];
  return loadBeside(historyScript(id), history, `the history of '${id}'`).then(history);
}

const createMha = evaluateCreateMha();
// The whole module (the Trainer, headImportance, prune), from the part 'gradients'.
const createWholeMha = (options) => loadPart('gradients').then((part) => evaluateCreateMha(part.core)(options));
useModule({
  createMha: () => createMha(), workerURL, trained: loadTrainedModel, language: loadLanguage, part: loadPart, text: loadText, history: loadHistory,
  engine: (mha, shipped) => new (workerParts().Engine)(mha, shipped),
  wholeModule: () => createWholeMha(),
});
if (typeof window.createMha !== 'function') window.createMha = createWholeMha;
if (!customElements.get('mha-demo')) customElements.define('mha-demo', MhaDemo);
