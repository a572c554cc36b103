// A trained model's pruning curve (cpp/core/analysis/pruning.h): the task's accuracy as its heads are
// removed one at a time, least important first, as Michel et al. (2019) pruned theirs. The induction
// model's is computed in the page (state.pruning, analyses.js); a model of real text's was measured on
// its held-out excerpt when npm run train made it (models/NAME.prune.json, carried by the widget), its
// accuracy the next token's there. A slider steps along the curve: the heads removed at that step are
// switched off in every view (settings.switchedOff), so the prediction shows what the curve says.
// Live: a new result (another text, a head switched) only moves the marker.
import { h, live, setText, setAttr } from '../../dom.js';
import { t } from '../../i18n.js';
import catalog from '../../catalog.js';
import { heldoutText } from './heads.js';

const SVG = 'http://www.w3.org/2000/svg';
const svg = (tag, attrs = {}) => {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
};
const W = 240, HT = 120, PAD = 24; // the chart's box, in its own units

const key = (pairs) => pairs.map(([l, hd]) => `${l}.${hd}`).sort().join(',');
// The step whose removed heads are exactly the heads switched off now, or -1.
const stepOf = (steps, switchedOff) => steps.findIndex((s) => key(s.removed) === key(switchedOff));

// heldout: the curve of a model of real text (else state.pruning, the induction model's); types: its
// heads' types on the same held-out text ([layer][head], heads.js heldoutText), which name the heads
// it keeps to the last.
export function pruningPanel(state, actions, heldout = null, types = null) {
  const { lang } = state;
  const curve = heldout || state.pruning;
  const ofText = heldout ? 'Text' : '';
  const panel = h('section', { class: 'pruning', 'aria-labelledby': 'pruning-title', 'data-pruning-of': heldout ? 'heldout' : 'task' },
    h('h3', { id: 'pruning-title' }, t(lang, 'pruning.title')),
    h('p', { class: 'hint', html: t(lang, `pruning.intro${ofText}`, { n: catalog.importance.samples }) }));
  if (!curve || !curve.steps) {
    panel.append(h('p', { class: 'hint', 'data-pruning': curve ? 'failed' : 'computing' }, curve ? curve.error : t(lang, 'pruning.computing')));
    return panel;
  }
  const { steps } = curve;
  const N = steps.length - 1;
  // A task is learnt to 1; a next word of real text is guessed far less often: its axis ends at the
  // tenth above the curve's highest point.
  const top = heldout ? Math.ceil(Math.max(...steps.map((s) => s.accuracy)) * 10 + 1e-9) / 10 : 1;
  const x = (k) => PAD + ((W - 2 * PAD) * k) / N;
  const y = (acc) => HT - PAD - ((HT - 2 * PAD) * acc) / top;
  const chart = svg('svg', { viewBox: `0 0 ${W} ${HT}`, class: 'pruning-chart', role: 'img', 'aria-label': t(lang, `pruning.chart${ofText}`) });
  chart.append(
    svg('line', { x1: PAD, y1: y(0), x2: W - PAD, y2: y(0), class: 'axis' }),
    svg('line', { x1: PAD, y1: y(0), x2: PAD, y2: y(top), class: 'axis' }),
    svg('polyline', { points: steps.map((s, k) => `${x(k)},${y(s.accuracy)}`).join(' '), class: 'curve' }),
  );
  // The x axis: every count of heads removed (a few), else the ends and the middle.
  for (const k of N <= 12 ? steps.keys() : [0, N >> 1, N]) {
    const tick = svg('text', { x: x(k), y: y(0) + 11, 'text-anchor': 'middle', class: 'tick' });
    tick.textContent = String(k);
    chart.append(tick);
  }
  for (const [text, at] of [[heldout ? top.toFixed(1) : '1', y(top) + 4], ['0', y(0) + 4]]) {
    const label = svg('text', { x: PAD - 4, y: at, 'text-anchor': 'end', class: 'tick' });
    label.textContent = text;
    chart.append(label);
  }
  const yLabel = svg('text', { x: PAD, y: y(top) - 10, class: 'tick' });
  yLabel.textContent = t(lang, `pruning.accuracy${ofText}`);
  chart.append(yLabel);
  const xLabel = svg('text', { x: W / 2, y: HT - 4, 'text-anchor': 'middle', class: 'tick' });
  xLabel.textContent = t(lang, 'pruning.axis', { n: N });
  chart.append(xLabel);
  const dots = steps.map((s, k) => {
    const dot = svg('circle', { cx: x(k), cy: y(s.accuracy), r: 3.5, class: 'dot', 'data-step': k });
    chart.append(dot);
    return dot;
  });
  const slider = h('input', {
    type: 'range', min: 0, max: N, step: 1, value: 0, id: 'pruning-step', 'aria-describedby': 'pruning-now',
    oninput: (ev) => actions.switchOff(steps[Number(ev.target.value)].removed),
  });
  const now = h('p', { class: 'pruning-now', id: 'pruning-now', 'aria-live': 'polite' });
  panel.append(chart, h('label', { class: 'pruning-slider', for: 'pruning-step' }, t(lang, 'pruning.slider')), slider, now);
  // The heads it leans on most, the last quarter to go, each as the heads table names it on held-out text.
  if (heldout && types) {
    const last = steps[N].removed.slice(N - Math.max(1, N >> 2));
    const list = last.map(([l, hd]) => t(lang, 'pruning.lastHead', { head: `${l}.${hd}`, type: heldoutText(lang, types[l][hd]) })).join(t(lang, 'listSeparator'));
    panel.append(h('p', { class: 'hint', 'data-pruning-last': last.map(([l, hd]) => `${l}.${hd}`).join(' ') }, t(lang, 'pruning.lastText', { n: last.length, list })));
    // What the last step leaves: a model that reads one token (tests/test_corpus_models.cpp checks it
    // predicts the same for any text around that token), and how much of its accuracy was the heads'.
    const [all, none] = [steps[0].accuracy, steps[N].accuracy].map((v) => v.toFixed(2));
    panel.append(h('p', { class: 'hint', 'data-pruning-none': none }, t(lang, 'pruning.noneText', { n: N, none, all, gain: (Number(all) - Number(none)).toFixed(2) })));
  }

  function fill(s) {
    if (!heldout && s.pruning !== curve) return false;
    const k = stepOf(steps, s.settings.switchedOff);
    dots.forEach((dot, j) => dot.classList.toggle('current', j === k));
    if (k >= 0 && Number(slider.value) !== k) slider.value = String(k);
    setAttr(panel, 'data-step', String(k));
    const step = steps[Math.max(k, 0)];
    setText(now, k < 0
      ? t(lang, 'pruning.off')
      : t(lang, 'pruning.now', {
        k, list: step.removed.map(([l, hd]) => `${l}.${hd}`).join(', ') || t(lang, 'none'),
        accuracy: step.accuracy.toFixed(2), loss: step.loss.toFixed(2),
      }));
    return true;
  }
  fill(state);
  return live(panel, (s) => s.lang === lang && fill(s));
}
