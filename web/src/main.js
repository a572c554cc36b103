// Entry point: loads the core, builds the page from its parts and exposes window.mhaPage.
import { createStore } from './store.js';
import { defaultLang, t } from './i18n.js';
import { Engine } from './engine.js';
import { createRunner } from './runner.js';
import { STAGE_IDS } from './steps.js';
import { mountControls } from './views/controls.js';
import { mountPipeline } from './views/pipeline.js';
import { mountNav } from './views/nav.js';
import { mountSections } from './views/sections.js';
import { mountStatus } from './views/status.js';
import { hideTip } from './views/tooltip.js';

const store = createStore({
  lang: defaultLang(),
  stage: 'tokenize',
  settings: { text: '我是秦始皇', dModel: 512, heads: 8, kvHeads: 8, causal: false, seed: 1 },
  result: null, // the last good run: {text, tokens, ids, config, tensors: {name: {stage, shape, data}}}
  errors: {}, // settings key -> core error message
  status: 'loading',
  lastMs: 0,
  fatal: null,
  fatalHtml: false,
  attendMode: 'weights',
  head: 0,
  worked: null, // the worked example's run (kept after result on purpose)
});

function goTo(stage) {
  if (STAGE_IDS.includes(stage)) store.set({ stage });
}

function applyLang(lang) {
  document.documentElement.lang = lang;
  document.title = t(lang, 'appTitle');
  document.getElementById('app-title').textContent = t(lang, 'appTitle');
  document.getElementById('app-subtitle').textContent = t(lang, 'appSubtitle');
  document.getElementById('pipeline').setAttribute('aria-label', t(lang, 'pipelineLabel'));
}

const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));

async function start() {
  applyLang(store.state.lang);
  const banner = document.getElementById('banner');
  mountStatus(document.getElementById('status'), banner, store);
  mountPipeline(document.getElementById('pipeline-list'), store, goTo);
  mountNav(document.getElementById('prev'), document.getElementById('next'), store, goTo);
  store.subscribe((state, changed) => {
    if (changed.has('lang')) applyLang(state.lang);
  });

  let engine;
  try {
    engine = await Engine.load();
  } catch (e) {
    store.set({ status: 'idle', fatalHtml: true, fatal: t(store.state.lang, 'loadFailed', { msg: String((e && e.message) || e).replace(/[<>&]/g, '') }) });
    document.getElementById('stages').replaceChildren();
    throw e;
  }
  const runner = createRunner(store, engine);
  mountControls(document.getElementById('controls'), store, runner);

  const actions = {
    setAttendMode: (mode) => store.set({ attendMode: mode }),
    selectHead: (h) => store.set({ head: h }),
  };
  const stagesEl = document.getElementById('stages');
  stagesEl.replaceChildren();
  const sections = mountSections(stagesEl, store, actions);
  store.subscribe((state, changed) => {
    if (changed.has('stage') || changed.has('result')) hideTip();
    sections.update(state, changed);
  });

  runner.request(null);
  if (!store.state.result) throw new Error(store.state.fatal || 'the first run failed');
  await nextFrame();
  await nextFrame();
}

const ready = start();
ready.catch(() => {}); // the page itself shows what went wrong

window.mhaPage = {
  ready,
  get state() {
    return store.state;
  },
  goTo,
};
