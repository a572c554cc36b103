// The rope stage's picture (Llama weights): q_rot and k_rot as one tile per head, laid out as the
// split stage lays out q_heads and k_heads, so the two can be compared row by row (row 0 is unturned).
import { h } from '../../dom.js';
import { headTiles } from '../parts/tiles.js';
import { headColor } from '../parts/colors.js';
import { t } from '../../i18n.js';
import { liveView } from '../parts/structure.js';

export function ropeView(state) {
  const { result, lang } = state;
  const { heads, kvHeads: kv, dHead: dh } = result.config;
  const group = heads / kv;
  const kvLabel = (g) => (kv < heads ? t(lang, 'kvHead', { g }) : t(lang, 'head', { h: g }));
  const cards = [
    headTiles(state, 'q_rot', { caption: t(lang, 'cap.q_rot', { h: heads, dh }) }),
    headTiles(state, 'k_rot', { caption: t(lang, 'cap.k_rot', { kv }), tileLabel: kvLabel, colorOf: (g) => headColor(g * group) }),
  ];
  return liveView(h('div', { class: 'stack' }, cards, h('p', { class: 'hint' }, t(lang, 'hover'))), state, cards);
}
