// Stage 4 picture: d_head = d_model / heads, the parameter count that does not depend on heads,
// Q/K/V as one tile per head, and (under GQA) which query heads share each K/V head.
import { h } from '../../dom.js';
import { headTiles } from '../parts/tiles.js';
import { headColor } from '../parts/colors.js';
import { t } from '../../i18n.js';
import { grouped } from '../../format.js';
import { liveView, frameOf } from '../parts/structure.js';
import { kvSavingView } from './kvCache.js';
import { isSized } from '../../attributes.js';

// W_Q, W_O (d × d) and W_K, W_V (kv_heads·d_head × d), with their biases where the model has them.
function paramCount(d, kvw, biases) {
  return biases ? 2 * (d * d + d) + 2 * (d * kvw + kvw) : 2 * d * d + 2 * d * kvw;
}

function servedBy(g, group) {
  const first = g * group;
  return group === 1 ? String(first) : `${first}–${first + group - 1}`;
}

export function splitView(state, actions) {
  const { result, lang } = state;
  const { dModel: d, heads, kvHeads: kv, dHead: dh } = result.config;
  const kvw = kv * dh;
  const group = heads / kv;
  const { biases } = result.config;
  const params = paramCount(d, kvw, biases);
  const n = (x) => grouped(x, lang);
  const formula = biases
    ? kv === heads
      ? `4 · ${n(d)}² + 4 · ${n(d)} = ${n(params)}`
      : `2 · (${n(d)}² + ${n(d)}) + 2 · (${n(d)} · ${n(kvw)} + ${n(kvw)}) = ${n(params)}`
    : kv === heads
      ? `4 · ${n(d)}² = ${n(params)}`
      : `2 · ${n(d)}² + 2 · ${n(d)} · ${n(kvw)} = ${n(params)}`;

  const facts = h(
    'div',
    { class: 'facts' },
    h('div', { class: 'fact fact-main' }, h('div', { class: 'fact-value' }, t(lang, 'split.dhead', { d, h: heads, dh }))),
    h(
      'div',
      { class: 'fact' },
      h('div', { class: 'fact-label', html: t(lang, biases ? 'split.params' : 'split.paramsNoBias') }),
      h('div', { class: 'fact-value', 'data-param-count': String(params) }, formula),
      h('div', { class: 'fact-note', html: kv === heads ? t(lang, 'split.paramsSame') : t(lang, 'split.paramsGqa', { kv, kvw, d }) }),
    ),
  );

  // One bar of d_model cells per head makes "split, not copy" visible at a glance.
  const splitBar = h(
    'div',
    { class: 'split-bar', 'aria-hidden': 'true' },
    Array.from({ length: heads }, (_, i) => h('div', { class: 'split-seg', style: { background: headColor(i) } }, heads <= 16 ? `${dh}` : '')),
  );

  const groups =
    kv < heads
      ? h(
          'div',
          { class: 'gqa' },
          h('h3', { class: 'sub-title' }, t(lang, 'split.groups', { n: group })),
          h(
            'ul',
            { class: 'gqa-list' },
            Array.from({ length: kv }, (_, g) =>
              h('li', { style: { '--head': headColor(g * group) } }, t(lang, 'split.serves', { g, list: servedBy(g, group) })),
            ),
          ),
        )
      : null;

  const kvLabel = (g) => (kv < heads ? t(lang, 'kvHead', { g }) : t(lang, 'head', { h: g }));
  const kvHead = (g) => g * group; // a K/V head wears the colour of the first query head it serves
  const kvSub = kv < heads ? (g) => `→ Q ${servedBy(g, group)}` : undefined;
  // The KV cache this grouping keeps, beside MHA's and MQA's: where the learner chooses kv_heads.
  const saving = isSized(state.settings.model) ? kvSavingView(state, actions) : null;
  const cards = [
    headTiles(state, 'q_heads', { caption: t(lang, 'cap.q_heads', { h: heads, dh }) }),
    headTiles(state, 'k_heads', { caption: t(lang, 'cap.k_heads', { kv }), tileLabel: kvLabel, sub: kvSub, headOf: kvHead }),
    headTiles(state, 'v_heads', { caption: t(lang, 'cap.v_heads', { kv }), tileLabel: kvLabel, sub: kvSub, headOf: kvHead }),
  ];
  const view = h(
    'div',
    { class: 'stack' },
    facts,
    h('div', { class: 'split-bar-wrap' }, h('div', { class: 'split-bar-label' }, `d_model = ${d} = ${heads} × ${dh}`), splitBar),
    cards[0],
    groups,
    cards[1],
    cards[2],
    h('p', { class: 'hint' }, t(lang, 'split.facts')),
    saving,
  );
  return liveView(view, state, saving ? [...cards, saving] : cards, frameOf); // the tiles follow another T themselves
}
