// What every <mha-demo> on a page shares: one WebAssembly module, the run worker script, the
// trained models' bytes and the widget's parts. widget.js says where each comes from (useModule)
// before any demo starts.
import { hasLanguage } from './languages.js';

let loadModule = null;
let mhaPromise = null;
let makeWorkerURL = null;
let loadTrained = null;
let loadLanguageScript = null;
let loadPart = null;
let loadText = null;
let makeEngine = null;
let loadWholeModule = null;
let loadHistory = null;
let wholePromise = null;

// createMha: the factory from web/mha.js; the first demo to connect instantiates the module.
// workerURL: () -> the URL of the run worker script (web/src/worker.js after the core).
// trained: (id) -> Promise of a trained model's bytes (models/trained-models.json's ids; none: the first).
// language: (lang) -> Promise, settled once a language's strings are here (languages.js).
// part: (name) -> Promise of a part's exports, once its script and strings are here (parts.js).
// text: (corpus) -> Promise of the text a recipe of real text trains on ({vocabulary, train, heldout}).
// engine: (mha, shipped) -> an Engine (engine.js), the one the worker's script carries (core.js).
// wholeModule: () -> Promise of the whole module (Trainer, headImportance, prune: the part 'gradients').
// The module of createMha may leave out what takes gradients; workerURL(core) makes a worker of the
// part's core, which has them.
// history: (id) -> Promise of how a shipped model formed (scripts/history.js), null where none was recorded.
export function useModule({ createMha, workerURL = null, trained = null, language = null, part = null, text = null, engine = null, wholeModule = null, history = null }) {
  loadModule = createMha;
  makeWorkerURL = workerURL;
  loadTrained = trained;
  loadLanguageScript = language;
  loadPart = part;
  loadText = text;
  makeEngine = engine;
  loadWholeModule = wholeModule;
  loadHistory = history;
}

// How the shipped model `id` formed; rejects saying why it could not come.
export function modelHistory(id) {
  return loadHistory ? loadHistory(id) : Promise.reject(new Error(`this build has no history of '${id}'`));
}

// Resolves to the exports of the widget's part `name` (parts.js); rejects saying why it could not come.
const partsHere = new Map(); // name -> its exports, once come
export function partReady(name) {
  if (!loadPart) return Promise.reject(new Error(`this build has no part '${name}'`));
  return loadPart(name).then((part) => {
    partsHere.set(name, part);
    return part;
  });
}

// The text `corpus`'s recipe trains on; rejects saying why it could not come.
export function corpusText(corpus) {
  return loadText ? loadText(corpus) : Promise.reject(new Error(`this build has no text of '${corpus}'`));
}

// The part's exports if it has come, else null (a view draws at once, or waits: fromPart.js).
export const partLoaded = (name) => partsHere.get(name) || null;

export function newEngine(mha, shipped) {
  return makeEngine(mha, shipped);
}

export function sharedModule() {
  if (!mhaPromise) mhaPromise = loadModule();
  return mhaPromise;
}

// A trained model loads beside the core; a demo of random weights does not need one to start, so
// this never rejects: it resolves to the bytes, or to the Error that says why there are none.
export function trainedBytes(id) {
  return loadTrained ? loadTrained(id).catch((e) => e) : Promise.resolve(new Error('this build has no trained model'));
}

// () -> the worker script's URL, or null where this build or this browser has no Web Workers.
export function workerURLMaker() {
  return makeWorkerURL && typeof Worker === 'function' ? makeWorkerURL : null;
}

// What trains or takes gradients: a worker script that can (the URL, once the part 'gradients' has
// come), and the whole module on the main thread where no worker can start. Each rejects saying why.
export const gradientsWorkerURL = () => partReady('gradients').then((part) => makeWorkerURL(part.core));
export function wholeModule() {
  if (!loadWholeModule) return Promise.reject(new Error('this build has no module with gradients'));
  wholePromise = wholePromise || loadWholeModule().catch((e) => {
    wholePromise = null; // asked again, it is tried again
    throw e;
  });
  return wholePromise;
}

// Resolves once the strings of `lang` are here (at once for English, or where the sources hold every
// language); rejects saying why they could not come.
export function languageReady(lang) {
  return hasLanguage(lang) || !loadLanguageScript ? Promise.resolve() : loadLanguageScript(lang);
}
