// A (1, T, width) tensor as one heatmap: tokens on the rows, optional head bands over the columns.
// A later result with the same tokens, width and texts is shown in place (live()).
import { live } from '../../dom.js';
import { heatmap, legend, updateHeatmap, updateLegend } from './heatmap.js';
import { tensorCard } from './tensorCard.js';
import { maxAbs } from './colors.js';
import { t } from '../../i18n.js';
import { structureOf } from './structure.js';
import { tokenLabels } from '../../format.js';

export function matrixTensor(state, name, { bands, axisKey = 'columnsD', caption } = {}) {
  const { result, lang } = state;
  const tensor = result.tensors[name];
  const [, T, width] = tensor.shape;
  const captionText = caption ?? t(lang, `cap.${name}`);
  const axis = t(lang, axisKey, { n: width });
  const built = structureOf(state); // the labels, bands, caption and axis are drawn from it
  const cur = { tensor, scale: { kind: 'diverging', max: maxAbs(tensor.data) } };
  const map = heatmap({
    tensor: name,
    data: tensor.data,
    rows: T,
    cols: width,
    index: (r, c) => [0, r, c],
    rowLabels: tokenLabels(result.tokens),
    lang,
    describe: (r, c) => `“${result.tokens[r]}” · ${bands ? `${t(lang, 'head', { h: Math.floor(c / bands.size) })} · ` : ''}dim ${c}`,
    scale: cur.scale,
    bands,
  });
  const key = legend(cur.scale);
  const figure = {
    lang,
    state,
    make: () => ({
      panels: [{ rows: T, cols: width, value: (r, c) => cur.tensor.data[r * width + c] }],
      bands,
      scale: cur.scale,
    }),
  };
  const card = tensorCard({ name, shape: tensor.shape, caption: captionText, axis, body: map, legend: key, figure });
  return live(card, (s) => {
    if (structureOf(s) !== built) return false;
    cur.tensor = s.result.tensors[name];
    cur.scale = { kind: 'diverging', max: maxAbs(cur.tensor.data) };
    figure.state = s;
    updateHeatmap(map, { data: cur.tensor.data, scale: cur.scale });
    updateLegend(key, cur.scale);
    return true;
  });
}
