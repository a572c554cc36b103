// A (1, T, width) tensor as one heatmap: tokens on the rows, optional head bands over the columns.
import { heatmap, legend } from './heatmap.js';
import { tensorCard } from './tensorCard.js';
import { maxAbs } from './colors.js';
import { t } from '../i18n.js';

export function tokenLabels(tokens) {
  return tokens.map((tok, i) => `${i} ${tok}`);
}

export function matrixTensor(state, name, { bands, axisKey = 'columnsD', caption } = {}) {
  const { result, lang } = state;
  const tensor = result.tensors[name];
  const [, T, width] = tensor.shape;
  const scale = { kind: 'diverging', max: maxAbs(tensor.data) };
  const map = heatmap({
    tensor: name,
    data: tensor.data,
    rows: T,
    cols: width,
    index: (r, c) => [0, r, c],
    rowLabels: tokenLabels(result.tokens),
    describe: (r, c) => `“${result.tokens[r]}” · ${bands ? `${t(lang, 'head', { h: Math.floor(c / bands.size) })} · ` : ''}dim ${c}`,
    scale,
    bands,
  });
  return tensorCard({
    name,
    shape: tensor.shape,
    caption: caption ?? t(lang, `cap.${name}`),
    axis: t(lang, axisKey, { n: width }),
    body: map,
    legend: legend(scale),
    figure: {
      lang,
      state,
      make: () => ({
        panels: [{ rows: T, cols: width, value: (r, c) => tensor.data[r * width + c] }],
        bands,
        scale,
      }),
    },
  });
}
