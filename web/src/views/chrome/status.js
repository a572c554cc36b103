// The status line (ready / computing… / fix the setting), the progress badge of a large run (the
// time it has been computing, ticking; shown in every controls mode) and the page-level banner.
import { t } from '../../i18n.js';
import { setText } from '../../dom.js';
import { atControl } from './problems.js';

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

// What the model shown was opened from: a whole model's file (name, layout, layers, vocabulary), or
// one attention layer's weights (name, layout, layer); '' for a model the page made itself.
function fromFile(state) {
  const c = state.result.config;
  const w = state.weights;
  if (state.settings.model === 'file' && c.model !== 'single') return t(state.lang, 'readyFile', { name: state.settings.file, layout: c.model, layers: c.layers, v: c.vocabSize });
  if (state.settings.model === 'random' && c.model === 'single' && w && w.bytes) return t(state.lang, 'readyWeights', { name: w.url, layout: w.layout, layer: w.layer });
  return '';
}

export function mountStatus(statusEl, bannerEl, store, progressEl = null) {
  const progressText = progressEl && progressEl.querySelector('.progress-text');
  let ticker = null;

  function computingText(state) {
    const since = state.computingSince;
    return since === null || since === undefined ? t(state.lang, 'computing') : `${t(state.lang, 'computing')} ${seconds(performance.now() - since)}`;
  }

  function tick() {
    const state = store.state;
    if (!statusEl.isConnected && !(progressEl && progressEl.isConnected)) {
      clearInterval(ticker); // these controls were replaced
      ticker = null;
      return;
    }
    if (state.status !== 'computing') return;
    const text = computingText(state);
    statusEl.textContent = text;
    if (progressText) progressText.textContent = text;
  }

  function render(state) {
    const L = state.lang;
    if (state.status === 'loading') setText(statusEl, t(L, 'loading'));
    else if (state.status === 'computing') setText(statusEl, computingText(state));
    else if (state.status === 'loading-weights') setText(statusEl, t(L, 'loadingWeights'));
    // "Fix the highlighted setting" only when one is highlighted; other messages are in the box above.
    else if (Object.keys(state.errors).some((key) => atControl(state, key))) setText(statusEl, t(L, 'staleNote'));
    else if (state.result) {
      const c = state.result.config;
      setText(statusEl, fromFile(state) + t(L, 'ready', { d: c.dModel, h: c.heads, dh: c.dHead, kv: c.kvHeads, causal: c.causal ? t(L, 'causalOn') : '', ms: state.lastMs.toFixed(1) }));
    }
    statusEl.classList.toggle('busy', state.status !== 'idle');
    statusEl.classList.toggle('stale', Object.keys(state.errors).length > 0);
    const computing = state.status === 'computing';
    if (progressEl) {
      if (progressEl.hidden === computing) progressEl.hidden = !computing;
      if (computing) progressText.textContent = computingText(state);
    }
    if (computing && ticker === null) ticker = setInterval(tick, 100);
    else if (!computing && ticker !== null) {
      clearInterval(ticker);
      ticker = null;
    }
    if (state.fatal) {
      bannerEl.hidden = false;
      bannerEl.innerHTML = state.fatalHtml ? state.fatal : '';
      if (!state.fatalHtml) bannerEl.textContent = t(L, 'unexpected', { msg: state.fatal });
    } else if (!bannerEl.hidden) {
      bannerEl.hidden = true;
    }
  }
  render(store.state);
  store.subscribe((state, changed) => {
    if (['status', 'errors', 'result', 'lang', 'fatal', 'computingSince', 'weights', 'controls'].some((k) => changed.has(k))) render(state);
  });
}
