// A (1, H, T, d) tensor as H small heatmaps side by side, one per head, each in its head colour,
// with the token labels once on the left. All tiles live inside one data-tensor element.
import { h } from '../dom.js';
import { heatmap, legend, rowHeightFor } from './heatmap.js';
import { tensorCard } from './tensorCard.js';
import { maxAbs, headColor } from './colors.js';
import { tokenLabels } from './matrix.js';
import { t } from '../i18n.js';

export function headTiles(state, name, { caption, tileLabel, colorOf = headColor, sub } = {}) {
  const { result, lang } = state;
  const tensor = result.tensors[name];
  const [, H, T, d] = tensor.shape;
  const scale = { kind: 'diverging', max: maxAbs(tensor.data) };
  const rowHeight = rowHeightFor(T);
  const labels = tokenLabels(result.tokens);
  const tiles = [];
  for (let hd = 0; hd < H; hd++) {
    const map = heatmap({
      tensor: name,
      data: tensor.data,
      offset: hd * T * d,
      rows: T,
      cols: d,
      index: (r, c) => [0, hd, r, c],
      describe: (r, c) => `“${result.tokens[r]}” · ${tileLabel ? tileLabel(hd) : t(lang, 'head', { h: hd })} · dim ${c}`,
      scale,
      rowHeight,
    });
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
  return tensorCard({
    name,
    shape: tensor.shape,
    caption,
    axis: t(lang, 'columnsDh', { n: d }),
    body: h('div', { class: 'tiles-scroll' }, h('div', { class: 'tiles', style: { '--tiles': H, '--half': Math.ceil(H / 2) } }, labelCol, h('div', { class: 'tiles-wrap' }, tiles))),
    legend: legend(scale),
    figure: {
      lang,
      state,
      make: () => ({
        panels: Array.from({ length: H }, (_, hd) => ({
          label: tileLabel ? tileLabel(hd) : t(lang, 'head', { h: hd }),
          color: colorOf(hd),
          rows: T,
          cols: d,
          value: (r, c) => tensor.data[(hd * T + r) * d + c],
        })),
        scale,
      }),
    },
  });
}
