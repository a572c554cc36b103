// The output picture: y after W_O, next to the concatenation it came from (bands gone: heads mixed),
// and y taken apart again by head: W_O's d_head columns that read head h turn its head_out into its
// write, and the writes with b_O sum to y (the concat · W_O identity, written out).
import { h } from '../../dom.js';
import { matrixTensor } from '../parts/matrix.js';
import { headTiles } from '../parts/tiles.js';
import { t } from '../../i18n.js';
import { liveView, frameOf } from '../parts/structure.js';

export function outputView(state) {
  const { lang, result } = state;
  const card = matrixTensor(state, 'y', { caption: result.config.biases ? undefined : t(lang, 'cap.y.noBias') });
  const writes = result.tensors.head_write
    ? headTiles(state, 'head_write', { caption: t(lang, 'cap.head_write', { dh: result.config.dHead }), axisKey: 'columnsD' })
    : null;
  const cards = writes ? [card, writes] : [card];
  const sum = writes ? h('p', { class: 'sum-note', html: t(lang, result.config.biases ? 'output.sum' : 'output.sumNoBias', { H: result.config.heads }) }) : null;
  return liveView(h('div', { class: 'stack' }, card, sum, writes, h('p', { class: 'hint' }, t(lang, 'hover'))), state, cards, frameOf);
}
