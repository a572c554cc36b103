// A (1, H, T, d) tensor as H small heatmaps side by side, one per head, each in its head colour,
// with the token labels once on the left. All tiles live inside one data-tensor element.
// A later result with the same model and language is shown in place (live()), another text too:
// the tiles are resized and the token labels (one block of text, a line a row) rewritten.
import { h, live } from '../../dom.js';
import { heatmap, legend, rowHeightFor, fillLabelBlock, labelBlock, updateHeatmap, updateLegend } from './heatmap.js';
import { tensorCard, setCardShape } from './tensorCard.js';
import { maxAbs, headColor, headHex } from './colors.js';
import { tokenLabels, tokenName, visibleToken } from '../../format.js';
import { t } from '../../i18n.js';
import { frameOf } from './structure.js';

export function headTiles(state, name, { caption, tileLabel, headOf = (hd) => hd, sub, axisKey = 'columnsDh' } = {}) {
  const { result, lang } = state;
  const tensor = result.tensors[name];
  const [, H, T0, d] = tensor.shape;
  const built = frameOf(state); // the colours and captions are drawn from it
  const cur = { tensor, tokens: result.tokens, scale: { kind: 'diverging', max: maxAbs(tensor.data) } };
  const T = () => cur.tensor.shape[2];
  const rowHeight = rowHeightFor(T0);
  const tiles = [];
  const maps = [];
  for (let hd = 0; hd < H; hd++) {
    const map = heatmap({
      tensor: name,
      data: tensor.data,
      offset: hd * T0 * d,
      rows: T0,
      cols: d,
      index: (r, c) => [0, hd, r, c],
      describe: (r, c) => `“${visibleToken(cur.tokens[r])}” · ${tileLabel ? tileLabel(hd) : t(lang, 'head', { h: hd })} · ${t(lang, 'dimension', { c })}`,
      lang,
      title: tileLabel ? tileLabel(hd) : t(lang, 'head', { h: hd }),
      rowName: (r) => tokenName(cur.tokens, r),
      colName: (c) => t(lang, 'dimension', { c }),
      scale: cur.scale,
      rowHeight,
    });
    maps.push(map);
    tiles.push(
      h(
        'div',
        { class: 'tile', style: { '--head': headColor(headOf(hd)) } },
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
  );
  const labels = labelBlock(tokenLabels(cur.tokens), rowHeight);
  labelCol.append(labels);
  const key = legend(cur.scale);
  const figure = {
    lang,
    state,
    make: () => ({
      panels: Array.from({ length: H }, (_, hd) => ({
        label: tileLabel ? tileLabel(hd) : t(lang, 'head', { h: hd }),
        color: headHex(headOf(hd)),
        rows: T(),
        cols: d,
        value: (r, c) => cur.tensor.data[(hd * T() + r) * d + c],
      })),
      scale: cur.scale,
    }),
  };
  const card = tensorCard({
    name,
    shape: tensor.shape,
    caption,
    axis: t(lang, axisKey, { n: d }),
    body: h('div', { class: 'tiles-scroll' }, h('div', { class: 'tiles', style: { '--tiles': H, '--half': Math.ceil(H / 2) } }, labelCol, h('div', { class: 'tiles-wrap' }, tiles))),
    legend: key,
    figure,
  });
  return live(card, (s) => {
    if (frameOf(s) !== built) return false;
    const retext = s.result.tokens.join('\n') !== cur.tokens.join('\n');
    cur.tensor = s.result.tensors[name];
    cur.tokens = s.result.tokens;
    cur.scale = { kind: 'diverging', max: maxAbs(cur.tensor.data) };
    figure.state = s;
    const n = T();
    const patch = retext ? { rows: n, rowHeight: rowHeightFor(n) } : {};
    maps.forEach((map, hd) => updateHeatmap(map, { data: cur.tensor.data, offset: hd * n * d, scale: cur.scale, ...patch }));
    if (retext) {
      setCardShape(card, cur.tensor.shape);
      fillLabelBlock(labels, tokenLabels(cur.tokens), patch.rowHeight);
    }
    updateLegend(key, cur.scale);
    return true;
  });
}
