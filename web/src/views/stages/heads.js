// The heads panel at the attend stage: what each head of the shown layer does, measured by the core
// (cpp/core/analysis/head_metrics.h), its label, and a switch that turns the head off (its head_out is zeroed
// before the concat; the prediction stage shows what breaks). Live: a new result for the same layer,
// language and number of heads rewrites the numbers, labels and switches in place.
import { h, live, setText } from '../../dom.js';
import { t, sentenceGap } from '../../i18n.js';
import { headColor } from '../parts/colors.js';
import { markCells } from '../parts/cellMarks.js';
import { drawMiniMap } from '../parts/miniMap.js';
import catalog from '../../catalog.js';
import { hasBlocks, ownVocabulary } from '../../modelFacts.js';
import { heldoutOf } from '../../heldout.js';
import { hasImportance } from '../../attributes.js';
import { headType } from '../../headType.js';

// The core's metrics (head_metric_table), each a column of the table and a formula under it;
// fractions of the attention (0 … 1) have a bar, distances (in tokens) a number only.
const ALL_METRICS = catalog.headMetrics.map((m) => m.id);
// Columns only where they say something of the model shown (every metric keeps its formula under
// the table): the gradient pass's (importance) where it is computed, a shipped model; the stripe a
// recall head is named by (offset) where the model recalls.
const STRIPE_METRICS = new Set(['offset', 'offset_weight']);
// The head types of real text read the model's vocabulary: columns only for a model that has one, and
// only those its text gives rows to (a poem has no articles, English no parallel lines). Such a model's
// heads may be named positional, by their stripe: its columns too.
const VOCABULARY_METRICS = new Set(catalog.headMetrics.filter((m) => m.vocabulary).map((m) => m.id));
const measured = (result, m) => result.heads.layers.some((layer) => layer.heads.some((x) => x[m] !== null && x[m] !== undefined));
const metricsOf = (state) => {
  const { result } = state;
  const vocabulary = ownVocabulary(result.config);
  const shown = ALL_METRICS.filter((m) =>
    (!GRADIENT.has(m) || hasImportance(state.settings.model)) && (!STRIPE_METRICS.has(m) || result.config.readouts > 1 || vocabulary) &&
    (!VOCABULARY_METRICS.has(m) || (vocabulary && measured(result, m))));
  // the head types first: what such a model's heads are named by, in view before the table scrolls
  return [...shown.filter((m) => VOCABULARY_METRICS.has(m)), ...shown.filter((m) => !VOCABULARY_METRICS.has(m))];
};
// Past this many measures the table heads its columns with their short names at any width, as it
// does in a panel under 900 px (widget.css): the English model's 17 with their importance took 1,239
// px of the 1,120 a 1280 px page gives the panel, the poems' 15 fit.
const SHORT_NAMES_PAST = 15;
const FRACTION = new Set(catalog.headMetrics.filter((m) => m.fraction).map((m) => m.id));

// The heads × heads similarity as a small table of shaded cells (1 = the same rows, 0 = disjoint).
function similarityTable(lang, H) {
  const cells = [];
  const table = h('table', { class: 'similarity', 'aria-label': t(lang, 'heads.similarity') },
    h('thead', {}, h('tr', {}, h('td', {}, ''), Array.from({ length: H }, (_, g) => h('th', { scope: 'col', style: { '--head': headColor(g) } }, `h${g}`)))),
    h('tbody', {}, Array.from({ length: H }, (_, hd) => h('tr', {}, h('th', { scope: 'row', style: { '--head': headColor(hd) } }, `h${hd}`),
      Array.from({ length: H }, (_, g) => {
        const td = h('td', { 'data-pair': `${hd}.${g}` });
        cells.push({ td, hd, g });
        return td;
      })))));
  const fill = (similarity) => {
    for (const { td, hd, g } of cells) {
      const v = similarity[hd][g];
      td.style.setProperty('--s', v === null ? '0' : String(v));
      setText(td, v === null ? t(lang, 'none') : v.toFixed(2));
    }
  };
  return { table, fill };
}

// A gradient pass's measures to three decimals, as the CLI prints them: heads differ in the third
// (0.007 against 0.033), and the order they are pruned in is read there.
const GRADIENT_DIGITS = 3;
const fmt = (v, metric) => (v === null || v === undefined ? null : v.toFixed(GRADIENT.has(metric) ? GRADIENT_DIGITS : 2));
// The last digit fmt shows a gradient measure to: at or under it a head's importance reads as zero.
const LAST_DIGIT = 10 ** -GRADIENT_DIGITS;

// Each row carries a small copy of its head's map, where pointing at the row marks the cells its name
// is about: the maps above are out of view once the table is (1280 px and under). One pixel a cell,
// so only up to this many tokens (GPT-2's 1,024 would be 12 maps of a million pixels a change).
const THUMB_T = 128;

// A head's type as the table names it: its label (a positional head's with its i − k) and, where its
// label rule reads a measure, that measure and how many times its chance it is; a mixed head's, the
// measure of the type it is nearest (the core's strongest_type), named.
const typeName = (lang, type, offset) => (type === 'positional' && offset !== null && offset !== undefined ? t(lang, 'label.positionalAt', { d: offset }) : t(lang, `label.${type}`));
function typeText(lang, type, strongest, offset, value, chance) {
  const name = typeName(lang, type, offset);
  if (value === null || value === undefined) return { name, measure: '' };
  const measure = chance ? t(lang, 'heads.measureChance', { v: value.toFixed(2), x: (value / chance).toFixed(1) }) : value.toFixed(2);
  return { name, measure: type === 'mixed' ? t(lang, 'heads.nearest', { type: typeName(lang, strongest, offset), m: measure }) : measure };
}

// The same in words, as the table names it; the training panel names its heads so too.
export function headText(lang, m) {
  const { type, strongest, offset, value, chance } = headType(m);
  return typeText(lang, type, strongest, offset, value, chance);
}

// A head's type on held-out text as scripts/web-parts.js heldoutTypesOf records it, in a few words
// (the training panel's recorded history of a model of real text shows it under each map).
export function heldoutText(lang, x) {
  const { name, measure } = typeText(lang, x.type, x.strongest, x.offset ?? null, x.value ?? null, x.chance ?? null);
  return x.type === 'mixed' ? measure : `${name} ${measure}`.trim();
}

// The shown layer's heads on the held-out excerpt of the shipped model of real text shown (the core's
// numbers, measured when the page was built: heldout.js), else null: [head] {type, …} and, from the
// pruning curve there, {importance, removedAt} (the count of heads gone once it is removed).
function heldoutTypes(state) {
  const held = heldoutOf(state.settings.model);
  const types = held && held.types[state.result.layer];
  if (!types) return null;
  const { curve } = held;
  const order = curve ? curve.steps.at(-1).removed.map(([l, hd]) => `${l}.${hd}`) : [];
  return types.map((x, hd) => ({
    ...x,
    importance: curve ? curve.importance[state.result.layer][hd].importance : null,
    removedAt: order.indexOf(`${state.result.layer}.${hd}`) + 1,
  }));
}

// The heads the other layers of a shipped model of real text have names for on held-out text, a button
// for each such layer that shows it: a page that opens on one layer (the English model's syntactic
// heads, layer 3) says where the other types are (its rare-word head, layer 0). null for other models.
function elsewhere(state, actions) {
  const held = heldoutOf(state.settings.model);
  const { lang } = state;
  const layer = state.result.layer;
  const others = held ? held.types.map((heads, l) => ({ l, named: heads.map((x, hd) => ({ x, hd })).filter(({ x }) => x.type !== 'mixed' && x.type !== 'broad') }))
    .filter(({ l, named }) => l !== layer && named.length > 0) : [];
  if (!others.length) return null;
  return h('p', { class: 'hint heads-elsewhere' }, t(lang, 'heads.elsewhere'), sentenceGap(lang),
    others.map(({ l, named }) => h('button', { type: 'button', class: 'gen-btn', 'data-show-layer': String(l), onclick: () => actions.showLayer(l) },
      t(lang, 'heads.elsewhereLayer', { l, heads: named.map(({ x, hd }) => t(lang, 'heads.elsewhereHead', { name: typeName(lang, x.type, x.offset ?? null), h: hd })).join(t(lang, 'listSeparator')) }))));
}

// How a head gets its name: the core's rules (head_metrics.cpp), the first that holds wins; a rule
// of the vocabulary's head types only where the model shown has them (`metrics`: its columns).
function labelRules(lang, rules, metrics) {
  const shown = rules.filter((r) => !VOCABULARY_METRICS.has(r.metric) || metrics.includes(r.metric));
  return h('div', { class: 'label-rules' },
    h('h4', {}, t(lang, 'heads.labelRules')),
    h('ol', {}, shown.map((r) => h('li', { 'data-label-rule': r.label },
      t(lang, r.times_chance ? 'heads.labelRuleChance' : 'heads.labelRule',
        { label: t(lang, `label.${r.label}`), metric: t(lang, `metric.${r.metric}`), at: r.at_least.toFixed(2), times: r.times_chance }))),
    h('li', {}, t(lang, 'heads.labelElse', { label: t(lang, 'label.mixed') }))));
}

function analysisOf(state) {
  const { result } = state;
  return result.heads ? result.heads.layers[result.layer] : null;
}

// The metrics of the gradient pass (catalog.headMetrics' gradient ones: importance) come apart from
// the run, computed off the main thread for a shipped model (analyses.js): state.importance when it
// is for this model and text, else none yet.
const GRADIENT = new Set(catalog.headMetrics.filter((m) => m.gradient).map((m) => m.id));
function importanceOf(state) {
  const { importance, result, settings } = state;
  return importance && importance.model === settings.model && importance.ids.join() === result.ids.join() ? importance.layers[result.layer].heads : null;
}

export function headsPanel(state, actions) {
  const { lang } = state;
  const layer = state.result.layer;
  const first = analysisOf(state);
  if (!first) return null;
  const H = first.heads.length;
  const METRICS = metricsOf(state);
  const heldoutAt = heldoutTypes(state);
  const rows = [];
  let marked = null; // the head whose row the pointer or the focus is on: its marks follow a new text
  for (let hd = 0; hd < H; hd++) {
    const label = h('span', { class: 'head-label' });
    const labelMeasure = h('span', { class: 'label-measure' });
    const heldout = heldoutAt
      ? { name: h('span', { class: 'head-label' }), measure: h('span', { class: 'label-measure' }), importance: h('span', { class: 'heldout-importance', title: t(lang, 'heads.heldoutImportanceHelp', { n: catalog.importance.samples }) }) }
      : null;
    // Under the name on the text shown (a column of its own would not fit the table at 1280 px), and
    // under that its importance there, with its place in the pruning curve below.
    const heldoutLine = heldout && h('span', { class: 'heldout-line', title: t(lang, 'heads.heldoutHelp') },
      h('span', { class: 'heldout-tag' }, t(lang, 'heads.heldout')), ' ', heldout.name, ' ', heldout.measure, heldout.importance);
    const cells = METRICS.map((metric) => {
      const barEl = FRACTION.has(metric) ? h('span', { class: 'metric-bar' }) : null;
      const value = h('span', { class: 'metric-value' });
      return { metric, barEl, value, td: h('td', { class: 'metric', 'data-metric': metric, title: t(lang, `metric.help.${metric}`) }, barEl, value) };
    });
    const toggle = h('input', {
      type: 'checkbox', class: 'head-switch', 'data-head-switch': `${layer}.${hd}`,
      'aria-label': t(lang, 'heads.switch', { h: hd, l: layer }),
      onchange: () => actions.toggleHead(layer, hd),
    });
    // The switch sits with the head's name, in the column that stays put when the metrics scroll;
    // under them, the head's weights in small, on the training panel's scale (0 … 1; the tile above
    // is the map a screen reader reads: this one is hidden from it).
    const thumb = h('canvas', { class: 'head-thumb-map' });
    const thumbPlot = h('div', { class: 'hm-plot head-thumb', 'aria-hidden': 'true' }, thumb);
    const tr = h('tr', { 'data-head': String(hd), style: { '--head': headColor(hd) } },
      h('th', { scope: 'row' }, h('label', { class: 'switch' }, toggle, h('span', {}, t(lang, 'head', { h: hd }))), thumbPlot),
      h('td', {}, label, labelMeasure, heldoutLine),
      cells.map((c) => c.td));
    // Pointing at a head's row (or tabbing to its switch) marks its map in the grid above, and in it,
    // in the row's own small map (and in the enlarged map when it shows this head) the cells its name
    // is about.
    const mark = (on) => {
      if (on) marked = hd;
      else if (marked === hd) marked = null;
      const root = tr.getRootNode();
      if (!root.querySelector) return;
      const tile = root.querySelector(`section[data-stage="attend"] [data-tensor="weights"] .head-tile[data-head="${hd}"]`);
      if (tile) tile.classList.toggle('highlight', on);
      const head = analysisOf(current).heads[hd];
      const T = current.result.tokens.length;
      const detail = root.querySelector(`section[data-stage="attend"] .head-detail[data-selected-head="${hd}"] .hm-plot`);
      for (const plot of [tile && tile.querySelector('.hm-plot'), detail, thumbPlot.hidden ? null : thumbPlot]) if (plot) markCells(plot, on ? head.cells : null, T);
    };
    tr.addEventListener('mouseenter', () => mark(true));
    tr.addEventListener('mouseleave', () => mark(false));
    tr.addEventListener('focusin', () => mark(true));
    tr.addEventListener('focusout', () => mark(false));
    rows.push({ tr, label, labelMeasure, heldout, cells, toggle, mark, thumb, thumbPlot });
  }

  const sim = similarityTable(lang, H);
  // Said only where a head of this layer has a name with cells (not of random weights' broad heads).
  const pointHint = h('span', { class: 'point-cells' }, `${sentenceGap(lang)}${t(lang, 'heads.pointCells')}`);
  // Said where no head's importance shows more than the last digit: a model that predicts the
  // text almost surely has a loss, and so gradients, near zero (the recall model on its sentence: 0.000
  // to 0.001), which a learner could read as a broken column.
  const zeroHint = h('span', { class: 'importance-zero', hidden: true }, `${sentenceGap(lang)}${t(lang, 'heads.importanceZero', { at: LAST_DIGIT })}`);
  let current = state;
  function fill(s) {
    current = s;
    const analysis = analysisOf(s);
    const heldout = heldoutTypes(s);
    pointHint.hidden = !analysis.heads.some((m) => m.cells && m.cells.length);
    sim.fill(analysis.similarity);
    const off = new Set(s.settings.switchedOff.map(([l, hd]) => `${l}.${hd}`));
    const importance = importanceOf(s);
    zeroHint.hidden = !importance || !importance.every((m) => Number(fmt(m.importance, 'importance')) <= LAST_DIGIT);
    const weights = s.result.tensors.weights;
    const T = weights ? weights.shape[weights.shape.length - 1] : 0;
    const thumbs = T > 0 && T <= THUMB_T;
    analysis.heads.forEach((m, hd) => {
      const row = rows[hd];
      if (row.thumbPlot.hidden === thumbs) row.thumbPlot.hidden = !thumbs;
      if (thumbs) drawMiniMap(row.thumb, weights.data, hd * T * T, T, s.result.config.causal);
      if (row.tr.dataset.label !== m.label) row.tr.dataset.label = m.label;
      // A recall model's heads are named by how far back they look: i − offset; so is a positional head.
      const recall = s.result.config.readouts > 1 && m.offset !== null;
      row.label.className = recall ? 'head-label label-offset' : `head-label label-${m.label}`;
      // The measure its name rests on (the core's, of the type it is nearest for a mixed head): beside the name.
      const named = recall ? null : headText(lang, m);
      setText(row.label, recall ? t(lang, 'label.offset', { d: m.offset, w: m.offset_weight.toFixed(2) }) : named.name);
      setText(row.labelMeasure, recall ? '' : named.measure);
      const held = heldout && heldout[hd];
      if (row.heldout && held) {
        const text = typeText(lang, held.type, held.strongest, held.offset, held.value, held.chance);
        row.heldout.name.className = `head-label label-${held.type}`;
        setText(row.heldout.name, text.name);
        setText(row.heldout.measure, text.measure);
        setText(row.heldout.importance, held.importance === null ? ''
          : t(lang, 'heads.heldoutImportance', { v: fmt(held.importance, 'importance'), k: held.removedAt, n: s.result.config.layers * s.result.config.heads }));
      }
      for (const c of row.cells) {
        const v = GRADIENT.has(c.metric) ? importance && importance[hd][c.metric] : m[c.metric];
        const text = fmt(v, c.metric);
        // A measure with a chance (what weight spread evenly scores): how many times that, on hover.
        const chance = m[`${c.metric}_chance`];
        const help = t(lang, `metric.help.${c.metric}`);
        c.td.title = chance && text !== null ? `${help} · ${t(lang, 'heads.chance', { x: (v / chance).toFixed(1) })}` : help;
        if (c.barEl) c.barEl.style.setProperty('--v', text === null ? '0' : String(Math.max(0, Math.min(1, v))));
        setText(c.value, text === null ? t(lang, 'none') : text);
      }
      const on = !off.has(`${layer}.${hd}`);
      if (row.toggle.checked !== on) row.toggle.checked = on;
      row.tr.classList.toggle('switched-off', !on);
    });
    if (marked !== null) rows[marked].mark(true);
  }
  fill(state);

  let scroller;
  const cue = h('p', { class: 'hint heads-cue', hidden: true }, t(lang, 'heads.scrollCue'));
  const panel = h('section', { class: 'heads-panel', 'data-heads-layer': String(layer) },
    h('h3', {}, t(lang, 'heads.title')),
    h('p', { class: 'hint' }, t(lang, hasBlocks(state.result.config) ? 'heads.intro' : 'heads.introSingle'), pointHint,
      `${sentenceGap(lang)}${t(lang, 'heads.measureHint')}`, zeroHint, heldoutAt && `${sentenceGap(lang)}${t(lang, 'heads.heldoutHint')}`,
      heldoutAt && heldoutAt[0].importance !== null && `${sentenceGap(lang)}${t(lang, 'heads.heldoutImportanceHint', { n: catalog.importance.samples })}`),
    elsewhere(state, actions),
    // Narrower than the table (a phone), the metrics scroll sideways inside the panel, never the page,
    // and a line says so (cue, shown while the table is wider than its box).
    cue,
    scroller = h('div', { class: 'heads-scroll' }, h('table', { class: METRICS.length > SHORT_NAMES_PAST ? 'heads-table short-names' : 'heads-table' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t(lang, 'heads.switchColumn')), h('th', { scope: 'col' }, t(lang, 'heads.label')),
        // A narrow demo shows each metric's short name; its full name stays for screen readers.
        METRICS.map((m) => h('th', { scope: 'col', title: t(lang, `metric.help.${m}`) },
          h('span', { class: 'm-full' }, t(lang, `metric.${m}`)), h('span', { class: 'm-short', 'aria-hidden': 'true' }, t(lang, `metric.short.${m}`)))))),
      h('tbody', {}, rows.map((r) => r.tr)))),
    h('div', { class: 'heads-more' },
      h('div', { class: 'heads-similarity' }, h('h4', {}, t(lang, 'heads.similarity')), h('p', { class: 'hint' }, t(lang, 'heads.similarityHelp')), h('div', { class: 'heads-scroll' }, sim.table)),
      h('details', { class: 'metric-formulas' }, h('summary', {}, t(lang, 'heads.formulas')),
        h('dl', {}, ALL_METRICS.map((m) => [h('dt', {}, t(lang, `metric.${m}`)), h('dd', { html: t(lang, `metric.formula.${m}`) })])),
        labelRules(lang, state.result.heads.labels, METRICS))));
  if (typeof ResizeObserver === 'function') new ResizeObserver(() => (cue.hidden = scroller.scrollWidth <= scroller.clientWidth + 1)).observe(scroller);
  return live(panel, (s) => {
    const analysis = analysisOf(s);
    if (s.lang !== lang || s.result.layer !== layer || !analysis || analysis.heads.length !== H || metricsOf(s).join() !== METRICS.join() ||
        !heldoutTypes(s) !== !heldoutAt) return false;
    fill(s);
    return true;
  });
}
