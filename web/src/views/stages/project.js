// Stage 3 picture: Q, K, V, with the head bands each will be split into.
import { h } from '../../dom.js';
import { matrixTensor } from '../parts/matrix.js';
import { t } from '../../i18n.js';
import { liveView, frameOf } from '../parts/structure.js';

export function projectView(state) {
  const { heads, kvHeads, dHead } = state.result.config;
  const qBands = { size: dHead, count: heads, label: (i) => `h${i}` };
  const kvBands = { size: dHead, count: kvHeads, label: (i) => `kv${i}`, color: (i) => i * (heads / kvHeads) };
  const kvAxis = kvHeads < heads ? 'columnsKv' : 'columnsD';
  const cards = [
    matrixTensor(state, 'q', { bands: qBands }),
    matrixTensor(state, 'k', { bands: kvBands, axisKey: kvAxis }),
    matrixTensor(state, 'v', { bands: kvBands, axisKey: kvAxis }),
  ];
  return liveView(h('div', { class: 'stack' }, cards, h('p', { class: 'hint' }, t(state.lang, 'hover'))), state, cards, frameOf);
}
