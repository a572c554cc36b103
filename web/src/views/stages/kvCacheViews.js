// The KV cache, at the predict stage: what decoding keeps of this text — each layer's K and V rows,
// one row per token, per K/V head (with the query heads that share it) — and its size; then a
// calculator of the same formula for published models at a context length, MHA beside GQA beside MQA.
// The cache holds exactly the run's k and v (tests/test_generate.cpp checks a generator's cache
// against k_heads and v_heads), so the maps read them from the trace. Live: a token more adds a row.
import { h, live, setText } from '../../dom.js';
import { t } from '../../i18n.js';
import { grouped } from '../../format.js';
import catalog from '../../catalog.js';
import { heatmap, updateHeatmap } from '../parts/heatmap.js';
import { maxAbs } from '../parts/colors.js';
import { frameOf } from '../parts/structure.js';
import { bytesText, cacheRows } from './kvCache.js';

// Every layer's K/V heads while that is a few maps; a big model's shown layer only.
const MAX_HEADS_DRAWN = 16;
// A row per token, thin: the cache's growth is the picture, not each value.
const rowHeight = (T) => Math.max(2, Math.min(8, Math.floor(320 / T)));

export function kvCacheView(state, actions) {
  const { result, lang } = state;
  const { layers, kvHeads, heads, dHead } = result.config;
  const group = heads / kvHeads;
  const shownLayers = layers * kvHeads <= MAX_HEADS_DRAWN ? [...Array(layers).keys()] : [result.layer];
  const maps = []; // {map, layer, g, which}
  const size = h('p', { class: 'kv-size' });
  const rowsOf = (r) => r.tensors[`layers.${shownLayers[0]}.k`].shape[1];
  const body = shownLayers.map((layer) =>
    h('div', { class: 'kv-layer' },
      h('p', { class: 'kv-layer-title' }, t(lang, 'layerOption', { l: layer })),
      h('div', { class: 'kv-heads' }, [...Array(kvHeads).keys()].map((g) => {
        const shared = [...Array(group).keys()].map((i) => g * group + i).join(', ');
        const pair = ['k', 'v'].map((which) => {
          const tensor = result.tensors[`layers.${layer}.${which}`];
          const map = heatmap({
            tensor: `layers.${layer}.${which}`, data: tensor.data, rows: tensor.shape[1], cols: dHead, offset: g * dHead, rowStride: kvHeads * dHead,
            rowHeight: rowHeight(tensor.shape[1]), index: (r, c) => [0, r, g * dHead + c], scale: { kind: 'diverging', max: maxAbs(tensor.data) }, lang,
            title: `${which.toUpperCase()} ${t(lang, 'kvHead', { g })}`,
            describe: (r, c) => `${which.toUpperCase()} · ${r} · ${t(lang, 'dimension', { c })}`,
          });
          const box = h('div', { class: 'kv-map', 'data-kv': `${layer}.${g}.${which}` }, h('span', { class: 'kv-which' }, which.toUpperCase()), map);
          maps.push({ map, box, layer, which });
          return box;
        });
        return h('div', { class: 'kv-head' }, h('p', { class: 'kv-shared' }, t(lang, group > 1 ? 'kv.shared' : 'kv.own', { g, list: shared })), h('div', { class: 'kv-pair' }, pair));
      }))));
  const view = h('div', { class: 'kv-cache', 'data-part': 'kv-cache' },
    h('h3', { class: 'part-title' }, t(lang, 'kv.title')),
    h('p', { class: 'hint' }, t(lang, 'kv.text', { group })),
    size, body, shownLayers.length < layers ? h('p', { class: 'hint' }, t(lang, 'kv.oneLayer', { l: result.layer })) : null);
  const built = frameOf(state);

  function fill(s) {
    if (frameOf(s) !== built || s.result.layer !== result.layer) return false;
    const T = rowsOf(s.result);
    for (const { map, box, layer, which } of maps) {
      const tensor = s.result.tensors[`layers.${layer}.${which}`];
      if (s !== state) updateHeatmap(map, { data: tensor.data, rows: T, rowHeight: rowHeight(T), scale: { kind: 'diverging', max: maxAbs(tensor.data) } });
      box.dataset.rows = String(T); // one row per token the cache holds
    }
    view.dataset.rows = String(T);
    const bytes = actions.kvCacheBytes({ layers, kvHeads, dHead, bytesPerValue: 4, tokens: T });
    setText(size, t(lang, 'kv.size', { L: layers, kv: kvHeads, dh: dHead, T, bytes: grouped(bytes) }));
    return true;
  }
  fill(state);
  return live(view, fill);
}

// Published models (the core's catalog: their layers, heads, kv_heads, d_head) at a context length.
export function kvCalculatorView(state, actions) {
  const { lang } = state;
  const models = catalog.kvCache.published;
  const pick = h('select', {}, models.map((m, i) => h('option', { value: String(i) }, t(lang, `calc.name.${m.id}`, {}, m.name))));
  pick.value = String(models.findIndex((m) => m.id === 'llama-3-8b'));
  const tokens = h('input', { type: 'number', min: 1, step: 1, value: '8192' });
  const width = h('select', {}, [2, 4].map((b) => h('option', { value: String(b) }, t(lang, `calc.bytes${b}`))));
  const out = h('tbody', {});
  const formula = h('p', { class: 'kv-size' });
  const source = h('p', { class: 'hint' });
  function fill() {
    const m = models[Number(pick.value)];
    const T = Math.max(1, Math.floor(Number(tokens.value) || 1));
    const bytesPerValue = Number(width.value);
    out.replaceChildren(...cacheRows(lang, actions, m, bytesPerValue, [T], 'calc.gqa', true));
    setText(formula, t(lang, 'calc.formula', { L: m.layers, kv: m.kvHeads, dh: m.dHead, b: bytesPerValue, T: grouped(T) }));
    setText(source, t(lang, 'calc.source', { repo: m.repo, L: m.layers, h: m.heads, kv: m.kvHeads, d: m.heads * m.dHead }));
  }
  for (const el of [pick, tokens, width]) el.addEventListener('change', fill);
  fill();
  return h('div', { class: 'kv-calc', 'data-part': 'kv-calc' },
    h('h3', { class: 'part-title' }, t(lang, 'calc.title')),
    h('div', { class: 'gen-controls' },
      h('label', { class: 'field' }, h('span', { class: 'field-label' }, t(lang, 'calc.model')), pick),
      h('label', { class: 'field field-num' }, h('span', { class: 'field-label' }, t(lang, 'calc.tokens')), tokens),
      h('label', { class: 'field' }, h('span', { class: 'field-label' }, t(lang, 'calc.width')), width)),
    formula, h('table', { class: 'kv-table' }, out), source);
}

