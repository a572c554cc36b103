// The teaching steps as data: {id, title, text(ctx), formula(ctx), view, parts?, depends?, enter(),
// exit()}, one per stage id of the core's table (cpp/core/model/stages.h). Which steps a demo walks, in
// which order and in which family comes from the result (engine.js); a stage with no step of its own
// here is shown by genericStep (its tensors as heatmaps). ctx = {lang, controls, model (attributes.js
// MODEL_KINDS), config, T, layer}.
//
// The one update contract every view follows: view(state, actions) -> Node draws the step's body.
// It is drawn again when the result, the language or a state key listed in the step's `depends`
// changes — and then first offered the new state in place: a node made with live(node, update)
// (dom.js) whose update(state) returns true has shown it without new DOM. A step drawn in parts
// gives parts(state, actions) -> [{key, make}]; only a part whose key changed is drawn again (and it,
// too, is offered the new state in place first).
import { t } from './i18n.js';
import { grouped, escapeHtml } from './format.js';
import { isSized, maskOffKey } from './attributes.js';
import { hideTip } from './views/parts/tooltip.js';
import { tokenizeView } from './views/stages/tokenize.js';
import { embedView } from './views/stages/embed.js';
import { projectView } from './views/stages/project.js';
import { splitView } from './views/stages/split.js';
import { ropeView } from './views/stages/rope.js';
import { attendView, attendParts } from './views/stages/attend.js';
import { concatView } from './views/stages/concat.js';
import { outputView } from './views/stages/output.js';
import { stageTensorsView, predictView } from './views/stages/model.js';
import { generateView } from './views/stages/generate.js';
import { kvCacheView, kvCalculatorView } from './views/stages/kvCache.js';

const sqrt = (n) => Math.sqrt(n).toFixed(2).replace(/\.?0+$/, '');
const sub = (s) => `<sub>${s}</sub>`;

function leave() {
  hideTip();
}

function arrive(section) {
  const top = section.getBoundingClientRect().top;
  if (top < 0) section.scrollIntoView({ block: 'start' });
}

// The structure (a model of blocks has learned tables and residuals) and the story (were its weights
// learnt, or drawn at random?) are two questions.
const hasBlocks = (config) => config.model !== 'single';
const learnt = (model) => !isSized(model);

const STEPS = [
  {
    id: 'tokenize',
    text: ({ lang, model, config, T }) => t(lang, !hasBlocks(config) ? 'tokenize.text' : learnt(model) ? 'tokenize.textTrained' : 'tokenize.textBlocks', { vocab: config.vocabSize, v: config.vocabSize, T }),
    formula: ({ T }) => `tokens = tokenize(text) &nbsp;·&nbsp; ids = id(token) for each token &nbsp;·&nbsp; T = ${T}`,
    view: tokenizeView,
  },
  {
    id: 'embed',
    text: ({ lang, model, config }) => t(lang, !hasBlocks(config) ? 'embed.text' : learnt(model) ? 'embed.textTrained' : 'embed.textBlocks', { d: config.dModel, sqrt: sqrt(config.dModel) }),
    formula: ({ config }) =>
      hasBlocks(config)
        ? `x = W${sub('token')}[ids] + W${sub('position')}[0 … T−1]`
        : `x = E[ids] · √d${sub('model')} + PE<br>PE${sub('(pos, 2i)')} = sin(pos / 10000<sup>2i/d<sub>model</sub></sup>) &nbsp;·&nbsp; PE${sub('(pos, 2i+1)')} = cos(pos / 10000<sup>2i/d<sub>model</sub></sup>)`,
    view: embedView,
  },
  {
    id: 'project',
    text: ({ lang, config }) => {
      const { dModel: d, heads: hh, kvHeads: kv, dHead: dh } = config;
      const gqa = kv < hh ? t(lang, 'project.gqa', { kv, h: hh, dh, kvw: kv * dh, d }) : t(lang, 'project.mha');
      return t(lang, 'project.text', { d, wq: grouped(d * d, 'en'), gqa });
    },
    formula: ({ config }) =>
      `Q = X·W${sub('Q')}<sup>T</sup> + b${sub('Q')} &nbsp;·&nbsp; K = X·W${sub('K')}<sup>T</sup> + b${sub('K')} &nbsp;·&nbsp; V = X·W${sub('V')}<sup>T</sup> + b${sub('V')}<br>` +
      `W${sub('Q')}: ${config.dModel} × ${config.dModel} &nbsp;·&nbsp; W${sub('K')}, W${sub('V')}: ${config.kvHeads * config.dHead} × ${config.dModel}`,
    view: projectView,
  },
  {
    id: 'split',
    text: ({ lang, config }) => t(lang, 'split.text', { d: config.dModel, h: config.heads, kv: config.kvHeads }),
    formula: ({ config }) =>
      `Q${sub('h')} = Q[:, :, h·d${sub('head')} : (h+1)·d${sub('head')}] &nbsp;→&nbsp; reshape (1, T, ${config.heads}, ${config.dHead}) → transpose (1, ${config.heads}, T, ${config.dHead})`,
    view: splitView,
  },
  {
    id: 'rope',
    text: ({ lang, config }) => t(lang, 'rope.text', { base: config.ropeBase, half: config.dHead / 2 }),
    formula: ({ config }) =>
      `q${sub('rot')}[t] = q[t]·cos(tθ) + rotate_half(q[t])·sin(tθ) &nbsp;·&nbsp; rotate_half(x${sub('1')} | x${sub('2')}) = (−x${sub('2')} | x${sub('1')})<br>` +
      `θ${sub('i')} = ${config.ropeBase}<sup>−2i/${config.dHead}</sup>, i = 0 … ${config.dHead / 2 - 1} &nbsp;·&nbsp; the same for k: q${sub('rot')}[t]·k${sub('rot')}[s] depends on t − s`,
    view: ropeView,
  },
  {
    id: 'attend',
    text: ({ lang, controls, model, config, layer }) =>
      hasBlocks(config) && learnt(model)
        ? t(lang, 'attend.textTrained', { l: layer, sqrt: sqrt(config.dHead) })
        : t(lang, 'attend.text', { sqrt: sqrt(config.dHead), mask: `${t(lang, config.causal ? 'attend.maskOn' : maskOffKey(controls, model))} ` }),
    formula: ({ config }) =>
      `scores${sub('h')} = Q${sub('h')}K${sub('g(h)')}<sup>T</sup> / √d${sub('head')}${config.causal ? ' + M &nbsp;(M<sub>ij</sub> = −∞ for j &gt; i)' : ''}<br>` +
      `weights${sub('h')} = softmax(scores${sub('h')}) row by row &nbsp;·&nbsp; head_out${sub('h')} = weights${sub('h')} · V${sub('g(h)')}` +
      (config.kvHeads < config.heads ? ` &nbsp;·&nbsp; g(h) = ⌊h / ${config.heads / config.kvHeads}⌋` : ' &nbsp;·&nbsp; g(h) = h'),
    view: attendView,
    parts: attendParts, // redrawn part by part (see sections.js)
    depends: ['attendMode', 'head', 'worked'],
  },
  {
    id: 'concat',
    text: ({ lang, config }) => t(lang, 'concat.text', { dh: config.dHead }),
    formula: ({ config }) =>
      `concat = [head_out${sub('0')} | head_out${sub('1')} | … | head_out${sub(String(config.heads - 1))}] &nbsp;·&nbsp; ${config.heads} × ${config.dHead} = ${config.dModel}`,
    view: concatView,
  },
  {
    id: 'output',
    text: ({ lang }) => t(lang, 'output.text'),
    formula: ({ config }) => `y = concat·W${sub('O')}<sup>T</sup> + b${sub('O')} &nbsp;·&nbsp; W${sub('O')}: ${config.dModel} × ${config.dModel}`,
    view: outputView,
  },
  {
    id: 'residual',
    text: ({ lang }) => t(lang, 'residual.text'),
    formula: () => `resid_mid = x + y &nbsp;·&nbsp; (1, T, d${sub('model')})`,
    view: stageTensorsView('residual'),
  },
  {
    id: 'logits',
    text: ({ lang, config }) => t(lang, 'logits.text', { v: config.vocabSize, d: config.dModel }),
    formula: ({ config }) => `logits = h${sub('last')} · W${sub('U')}<sup>T</sup> &nbsp;·&nbsp; W${sub('U')}: ${config.vocabSize} × ${config.dModel}`,
    view: stageTensorsView('logits'),
  },
  {
    id: 'predict',
    text: ({ lang }) => t(lang, 'predict.text'),
    formula: () => `p(next token = v | position i) = softmax(logits${sub('i')})${sub('v')}`,
    view: predictView,
    // The prediction, then Generate (its steps follow `generation`), the KV cache and its calculator.
    parts: (state, actions) => [
      { key: [state.result, state.lang], make: () => predictView(state) },
      { key: [state.result, state.lang, state.generation, state.sampling], make: () => generateView(state, actions) },
      { key: [state.result, state.lang], make: () => kvCacheView(state, actions) },
      { key: [state.lang], make: () => kvCalculatorView(state, actions) },
    ],
    depends: ['generation', 'sampling'],
  },
].map((step) => ({ ...step, title: `${step.id}.title`, enter: arrive, exit: leave }));

const STEP_OF = Object.fromEntries(STEPS.map((step) => [step.id, step]));

// A stage of the table with no step written for it (GPT-2's LayerNorms and MLP): its text from the
// strings, its formulas and shapes from the core's table, its tensors as heatmaps.
function genericStep({ id, tensors }) {
  const formula = () => tensors.map((x) => `${escapeHtml(x.name)} ${escapeHtml(x.shape)} = ${escapeHtml(x.formula)}`).join('<br>');
  return { id, title: `${id}.title`, text: ({ lang }) => t(lang, `${id}.text`), formula, view: stageTensorsView(id), enter: arrive, exit: leave };
}

// The steps of a result, in its walk order, each with its family from the table.
export function stepsOf(result) {
  return result.stages.map((stage) => ({ ...(STEP_OF[stage.id] || genericStep(stage)), family: stage.family }));
}
