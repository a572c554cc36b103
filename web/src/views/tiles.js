// A (1, H, T, d) tensor as H small heatmaps side by side, one per head, each in its head colour,
// with the token labels once on the left. All tiles live inside one data-tensor element.
// A later result with the same structure is shown in place (live()).
import { h, live } from '../dom.js';
import { heatmap, legend, rowHeightFor, updateHeatmap, updateLegend } from './heatmap.js';
import { tensorCard } from './tensorCard.js';
import { maxAbs, headColor } from './colors.js';
import { tokenLabels } from './matrix.js';
import { t } from '../i18n.js';
import { structureOf } from './structure.js';

export function headTiles(state, name, { caption, tileLabel, colorOf = headColor, sub } = {}) {
  const { result, lang } = state;
  const tensor = result.tensors[name];
  const [, H, T, d] = tensor.shape;
  const built = structureOf(state); // the labels, colours and captions are drawn from it
  const cur = { tensor, scale: { kind: 'diverging', max: maxAbs(tensor.data) } };
  const rowHeight = rowHeightFor(T);
  const labels = tokenLabels(result.tokens);
  const tiles = [];
  const maps = [];
  for (let hd = 0; hd < H; hd++) {
    const map = heatmap({
      tensor: name,
      data: tensor.data,
      offset: hd * T * d,
      rows: T,
      cols: d,
      index: (r, c) => [0, hd, r, c],
      describe: (r, c) => `“${result.tokens[r]}” · ${tileLabel ? tileLabel(hd) : t(lang, 'head', { h: hd })} · dim ${c}`,
      scale: cur.scale,
      rowHeight,
    });
    maps.push(map);
    tiles.push(
      h(
        'div',
        { class: 'tile', style: { '--head': colorOf(hd) } },
        h('div', { class: 'tile-head' }, tileLabel ? tileLabel(hd) : t(lang, 'head', { h: hd })),
        sub ? h('div', { class: 'tile-sub' }, sub(hd)) : null,
        map,
      ),
    );
  }
  const labelCol = h(
    'div',
    { class: 'tile-labels', 'aria-hidden': 'true' },
    h('div', { class: 'tile-head tile-head-spacer' }, '\u00a0'),
    sub ? h('div', { class: 'tile-sub' }, '\u00a0') : null,
    labels.map((l) =>
      h('div', { class: 'hm-rowlabel', style: { height: `${rowHeight}px`, lineHeight: `${rowHeight}px`, fontSize: `${Math.min(13, Math.max(8, rowHeight - 4))}px` } }, rowHeight >= 9 ? l : ''),
    ),
  );
  const key = legend(cur.scale);
  const figure = {
    lang,
    state,
    make: () => ({
      panels: Array.from({ length: H }, (_, hd) => ({
        label: tileLabel ? tileLabel(hd) : t(lang, 'head', { h: hd }),
        color: colorOf(hd),
        rows: T,
        cols: d,
        value: (r, c) => cur.tensor.data[(hd * T + r) * d + c],
      })),
      scale: cur.scale,
    }),
  };
  const card = tensorCard({
    name,
    shape: tensor.shape,
    caption,
    axis: t(lang, 'columnsDh', { n: d }),
    body: h('div', { class: 'tiles-scroll' }, h('div', { class: 'tiles', style: { '--tiles': H, '--half': Math.ceil(H / 2) } }, labelCol, h('div', { class: 'tiles-wrap' }, tiles))),
    legend: key,
    figure,
  });
  return live(card, (s) => {
    if (structureOf(s) !== built) return false;
    cur.tensor = s.result.tensors[name];
    cur.scale = { kind: 'diverging', max: maxAbs(cur.tensor.data) };
    figure.state = s;
    for (const map of maps) updateHeatmap(map, { data: cur.tensor.data, scale: cur.scale });
    updateLegend(key, cur.scale);
    return true;
  });
}
