// A (1, T, width) tensor as one heatmap: tokens on the rows, optional head bands over the columns. A
// recall model's (1, T, K, vocab) logits are drawn as (1, T, K·vocab), readout after readout.
// A later result of the same model and language is shown in place (live()): new values repainted,
// another text (T, tokens) drawn into the same canvas with its rows and labels rewritten (a new
// canvas costs a new buffer in the next frame, ~5 ms of commit for a stage of three maps).
import { live } from '../../dom.js';
import { heatmap, legend, updateHeatmap, updateLegend } from './heatmap.js';
import { tensorCard, setCardShape } from './tensorCard.js';
import { maxAbs } from './colors.js';
import { t } from '../../i18n.js';
import { frameOf } from './structure.js';
import { tokenLabels, visibleToken } from '../../format.js';

// column(c): a column as it is read aloud and described (a vocabulary's id and token); dim c by default.
export function matrixTensor(state, name, { bands, axisKey = 'columnsD', caption, column = null } = {}) {
  const { result, lang } = state;
  const tensor = result.tensors[name];
  const [, T, ...rest] = tensor.shape;
  const width = rest.reduce((a, b) => a * b, 1);
  const inner = rest[rest.length - 1];
  const captionText = caption ?? t(lang, `cap.${name}`);
  const axis = t(lang, axisKey, { n: width, k: rest.length > 1 ? rest[0] : 1, v: inner });
  const built = frameOf(state); // the bands, caption and axis are drawn from it
  const cur = { tensor, tokens: result.tokens, scale: { kind: 'diverging', max: maxAbs(tensor.data) } };
  let shown = result.tokens.join('\n'); // the tokens the row labels show
  const map = heatmap({
    tensor: name,
    data: tensor.data,
    rows: T,
    cols: width,
    index: (r, c) => (rest.length > 1 ? [0, r, Math.floor(c / inner), c % inner] : [0, r, c]),
    rowLabels: tokenLabels(result.tokens),
    lang,
    describe: (r, c) => `“${visibleToken(cur.tokens[r])}” · ${bands ? `${t(lang, 'head', { h: Math.floor(c / bands.size) })} · ` : ''}${column ? `${t(lang, 'id')} ${column(c)}` : t(lang, 'dimension', { c })}`,
    colName: column || undefined,
    scale: cur.scale,
    bands,
  });
  const key = legend(cur.scale);
  const figure = {
    lang,
    state,
    make: () => ({
      panels: [{ rows: cur.tensor.shape[1], cols: width, value: (r, c) => cur.tensor.data[r * width + c] }],
      bands,
      scale: cur.scale,
    }),
  };
  const card = tensorCard({ name, shape: tensor.shape, caption: captionText, axis, body: map, legend: key, figure });
  return live(card, (s) => {
    if (frameOf(s) !== built) return false;
    Object.assign(cur, { tensor: s.result.tensors[name], tokens: s.result.tokens });
    cur.scale = { kind: 'diverging', max: maxAbs(cur.tensor.data) };
    figure.state = s;
    const patch = { data: cur.tensor.data, scale: cur.scale };
    if (cur.tokens.join('\n') !== shown) {
      shown = cur.tokens.join('\n');
      Object.assign(patch, { rows: cur.tensor.shape[1], rowLabels: tokenLabels(cur.tokens) });
    }
    updateHeatmap(map, patch);
    setCardShape(card, cur.tensor.shape);
    updateLegend(key, cur.scale);
    return true;
  });
}
