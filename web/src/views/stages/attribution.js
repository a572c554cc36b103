// Why the model predicts what it does at one position: the logit of its first choice split into what
// wrote it into the residual stream (the core's attribution, cpp/core/analysis/attribution.h; engine.js
// result.attributions): the embedding's direct path, each head, each MLP and the biases. One bar per
// part from zero, in its head's colour; they add up to the logit shown. Live: another text, another
// position or a head switched off rewrites the bars in place (their parts depend only on the model).
import { h, live, setText, setAttr } from '../../dom.js';
import { t } from '../../i18n.js';
import { visibleToken } from '../../format.js';
import { headColor } from '../parts/colors.js';
import { frameOf } from '../parts/structure.js';

// The position shown: the one the learner picked (state.position), else the last.
export const shownPosition = (state) => {
  const T = state.result.attributions.positions;
  return state.position !== null && state.position < T ? state.position : T - 1;
};

const signed = (v) => {
  const size = Math.abs(v).toFixed(2);
  return size === '0.00' ? size : `${v < 0 ? '−' : '+'}${size}`;
};

function partName(lang, part) {
  if (part.kind === 'head') return t(lang, 'part.head', { l: part.layer, h: part.head });
  if (part.kind === 'mlp') return t(lang, 'part.mlp', { l: part.layer });
  return t(lang, `part.${part.kind}`);
}

// name(id): the token's text (model.js namer).
export function attributionPanel(state, name) {
  const { lang } = state;
  const built = frameOf(state);
  const { parts } = state.result.attributions;
  const title = h('h3', {});
  const sum = h('p', { class: 'attribution-sum' });
  const rows = parts.map((part) => {
    const bar = h('span', { class: 'part-bar' });
    const value = h('span', { class: 'part-value' });
    const li = h('li', {
      'data-part': part.kind,
      'data-layer': part.layer === undefined ? null : String(part.layer),
      'data-head': part.head === undefined ? null : String(part.head),
      style: part.kind === 'head' ? { '--head': headColor(part.head) } : null,
      class: part.kind === 'head' ? 'part part-head' : 'part',
    }, h('span', { class: 'part-name' }, partName(lang, part)), h('span', { class: 'part-track' }, bar), value);
    return { li, bar, value };
  });
  const panel = h('section', { class: 'attribution', 'aria-labelledby': 'attribution-title' },
    title, h('p', { class: 'hint' }, t(lang, 'attribution.how')), h('ol', { class: 'parts' }, rows.map((r) => r.li)), sum);
  title.id = 'attribution-title';

  function fill(s) {
    const { result } = s;
    const a = result.attributions;
    if (a.parts.length !== rows.length) return false;
    const i = shownPosition(s);
    const P = a.parts.length;
    const values = a.values.subarray(i * P, (i + 1) * P);
    const scale = Math.max(...Array.from(values, Math.abs), 1e-9);
    setAttr(panel, 'data-position', String(i));
    setText(title, t(lang, 'attribution.title', { token: name(a.tokens[i]), after: visibleToken(result.tokens[i]), i }));
    rows.forEach((row, j) => {
      const v = values[j];
      setAttr(row.li, 'data-value', String(v));
      row.bar.classList.toggle('neg', v < 0);
      row.bar.style.setProperty('--w', `${((50 * Math.abs(v)) / scale).toFixed(2)}%`);
      setText(row.value, signed(v));
    });
    setAttr(sum, 'data-logit', String(a.logits[i]));
    setText(sum, t(lang, 'attribution.sum', { logit: a.logits[i].toFixed(2) }));
    return true;
  }
  fill(state);
  return live(panel, (s) => frameOf(s) === built && fill(s));
}
