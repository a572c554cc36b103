// The status line (ready / computing… / fix the setting) and the page-level message banner.
import { t } from '../i18n.js';

export function mountStatus(statusEl, bannerEl, store) {
  function render(state) {
    const L = state.lang;
    if (state.status === 'loading') statusEl.textContent = t(L, 'loading');
    else if (state.status === 'computing') statusEl.textContent = t(L, 'computing');
    else if (state.status === 'loading-weights') statusEl.textContent = t(L, 'loadingWeights');
    else if (Object.keys(state.errors).length > 0) statusEl.textContent = t(L, 'staleNote');
    else if (state.result) {
      const c = state.result.config;
      statusEl.textContent = t(L, 'ready', { d: c.dModel, h: c.heads, dh: c.dHead, kv: c.kvHeads, causal: c.causal ? t(L, 'causalOn') : '', ms: state.lastMs.toFixed(1) });
    }
    statusEl.classList.toggle('busy', state.status !== 'idle');
    statusEl.classList.toggle('stale', Object.keys(state.errors).length > 0);
    if (state.fatal) {
      bannerEl.hidden = false;
      bannerEl.innerHTML = state.fatalHtml ? state.fatal : '';
      if (!state.fatalHtml) bannerEl.textContent = t(L, 'unexpected', { msg: state.fatal });
    } else {
      bannerEl.hidden = true;
    }
  }
  render(store.state);
  store.subscribe((state, changed) => {
    if (['status', 'errors', 'result', 'lang', 'fatal'].some((k) => changed.has(k))) render(state);
  });
}
