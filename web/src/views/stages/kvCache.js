// The KV cache's sizes: MHA beside GQA beside MQA, at a context length (actions.kvCacheBytes, the
// core's formula). The split stage teaches what GQA saves here (kvSavingView); the predict stage's
// cache and calculator (kvCacheViews.js, in the widget's part 'decoding') read the same rows.
import { h, live } from '../../dom.js';
import { t } from '../../i18n.js';
import { grouped } from '../../format.js';
import catalog from '../../catalog.js';
import { frameOf } from '../parts/structure.js';

// 1,073,741,824 -> "1.00 GiB"
export function bytesText(n) {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let u = 0;
  while (n >= 1024 && u < units.length - 1) n /= 1024, u++;
  return u ? `${n.toFixed(n < 10 ? 2 : 1)} ${units[u]}` : `${n} bytes`;
}

// MHA, the model's grouping (when it is between the two) and MQA, a row each: the cache at each context
// length of `tokens` over a bar against MHA's (and the bytes to the last one, `exact`). The calculator
// and the split stage (kvSavingView) read it.
export function cacheRows(lang, actions, { layers, heads, kvHeads, dHead }, bytesPerValue, tokens, gqa = 'calc.gqa', exact = false) {
  const kinds = [['mha', heads], ...(kvHeads > 1 && kvHeads < heads ? [['gqa', kvHeads]] : []), ['mqa', 1]];
  const bytesOf = (kv) => tokens.map((T) => actions.kvCacheBytes({ layers, kvHeads: kv, dHead, bytesPerValue, tokens: T }));
  const full = bytesOf(heads);
  return kinds.map(([kind, kv]) => {
    const bytes = bytesOf(kv);
    return h('tr', { 'data-kind': kind, 'data-bytes': bytes.join(' '), class: kv === kvHeads ? 'kv-this' : null },
      h('th', { scope: 'row' }, t(lang, kind === 'gqa' ? gqa : `calc.${kind}`, { kv, h: heads })),
      bytes.map((b, i) => [
        h('td', { class: 'num', title: `${grouped(b)} B` }, bytesText(b), h('span', { class: 'cand-bar kv-bar', style: { '--p': (b / full[i]).toFixed(4) } })),
        exact ? h('td', { class: 'num' }, `${grouped(b)} B`) : null]));
  });
}

// Where GQA is taught (the split stage of a model whose kv_heads the learner sets): this model's KV
// cache beside MHA's and MQA's, at this text's T and at the longest the model takes. Live: another T
// changes the first column.
export function kvSavingView(state, actions) {
  const { result, lang } = state;
  const { config } = result;
  const longest = config.maxPositions || catalog.limits.tokens;
  const head = h('thead', {});
  const body = h('tbody', {});
  const view = h('div', { class: 'kv-calc', 'data-part': 'kv-saving' },
    h('h3', { class: 'sub-title' }, t(lang, 'kvSave.title')),
    h('p', { class: 'hint' }, t(lang, 'kvSave.text', { L: config.layers, h: config.heads, kv: config.kvHeads, dh: config.dHead, n: config.heads / config.kvHeads })),
    h('table', { class: 'kv-table' }, head, body));
  const built = frameOf(state);
  function fill(s) {
    if (frameOf(s) !== built) return false;
    const T = s.result.ids.length;
    view.dataset.tokens = `${T} ${longest}`;
    head.replaceChildren(h('tr', {}, h('td', {}), [['kvSave.at', T], ['kvSave.longest', longest]].map(([key, n]) => h('th', { scope: 'col' }, t(lang, key, { T: grouped(n, lang) })))));
    body.replaceChildren(...cacheRows(lang, actions, config, 4, [T, longest], 'kvSave.gqa'));
    return true;
  }
  fill(state);
  return live(view, fill);
}
