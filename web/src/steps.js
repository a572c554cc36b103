// The teaching steps as data: {id, title, text(ctx), formula(ctx), view, parts?, depends?, enter(),
// exit()}, one per stage id of the core's table (cpp/core/model/stages.h). Which steps a demo walks, in
// which order and in which family comes from the result (engine.js); a stage with no step of its own
// here is shown by genericStep (its tensors as heatmaps). ctx: see STEPS.
//
// The one update contract every view follows: view(state, actions) -> Node draws the step's body.
// It is drawn again when the result, the language or a state key listed in the step's `depends`
// changes — and then first offered the new state in place: a node made with live(node, update)
// (dom.js) whose update(state) returns true has shown it without new DOM. A step drawn in parts
// gives parts(state, actions) -> [{key, make}]; only a part whose key changed is drawn again (and it,
// too, is offered the new state in place first).
import { t, sentenceGap } from './i18n.js';
import { STRINGS } from './strings.js';
import { grouped, escapeHtml } from './format.js';
import { hasBlocks, isLoaded, onInductionTask, onRealText, readsIds, scaledEmbedding, hasInductionHeads, recalls, oneOffsetPerHead } from './modelFacts.js';
import { hideTip } from './views/parts/tooltip.js';
import { tokenizeView } from './views/stages/tokenize.js';
import { embedView } from './views/stages/embed.js';
import { projectView } from './views/stages/project.js';
import { splitView } from './views/stages/split.js';
import { ropeView } from './views/stages/rope.js';
import { attendView, attendParts } from './views/stages/attend.js';
import { concatView } from './views/stages/concat.js';
import { outputView } from './views/stages/output.js';
import { stageTensorsView, predictView, recallPredictView } from './views/stages/model.js';
import { fromPart } from './views/parts/fromPart.js';

// Drawn by the widget's part 'decoding' (parts.js), which a model with a predict stage loads with its
// first frame (partsDrawn).
const generateView = fromPart('decoding', (part, state, actions) => part.generateView(state, actions));
const kvCacheView = fromPart('decoding', (part, state, actions) => part.kvCacheView(state, actions));
const kvCalculatorView = fromPart('decoding', (part, state, actions) => part.kvCalculatorView(state, actions));

const sqrt = (n) => Math.sqrt(n).toFixed(2).replace(/\.?0+$/, '');
const sub = (s) => `<sub>${s}</sub>`;
// " + b_X" where the model's attention has biases (Llama's has none).
const bias = (config, x) => (config.biases ? ` + b${sub(x)}` : '');

function leave() {
  hideTip();
}

// A stage arrived at whose start is above the view, or under the part that sticks to the top
// (--mha-header: element.js), is scrolled to its start below that part (its scroll margin: widget.css).
function arrive(section) {
  const top = section.getBoundingClientRect().top;
  if (top < (parseFloat(getComputedStyle(section).getPropertyValue('--mha-header')) || 0)) section.scrollIntoView({ block: 'start' });
}

// ctx = {lang, causalControl (the demo has a causal checkbox), config, T, layer, result}. Every text
// is chosen by what the model is (modelFacts.js), never by the menu item that made it.
const STEPS = [
  {
    id: 'tokenize',
    text: ({ lang, config, T }) => {
      const key = { hashed: 'tokenize.text', bpe: 'tokenize.textBpe', chars: 'tokenize.textChars', words: 'tokenize.textWords', '': 'tokenize.textIds' }[config.tokenizer]
        || (isLoaded(config) ? 'tokenize.textTrained' : 'tokenize.textBlocks');
      return t(lang, key, { v: grouped(config.vocabSize, lang), last: config.vocabSize - 1, T }); // an id stays ungrouped, as ids are shown
    },
    formula: ({ lang, config, T }) => t(lang, readsIds(config) ? 'tokenize.formulaIds' : 'tokenize.formula', { T }),
    view: tokenizeView,
  },
  {
    id: 'embed',
    text: ({ lang, config }) => {
      const key = scaledEmbedding(config) ? 'embed.text' : !hasBlocks(config) ? 'embed.textTables' : isLoaded(config) ? 'embed.textTrained' : 'embed.textBlocks';
      return t(lang, key, { d: config.dModel, sqrt: sqrt(config.dModel) });
    },
    formula: ({ config }) =>
      scaledEmbedding(config)
        ? `x = E[ids] · √d${sub('model')} + PE<br>PE${sub('(pos, 2i)')} = sin(pos / 10000<sup>2i/d<sub>model</sub></sup>) &nbsp;·&nbsp; PE${sub('(pos, 2i+1)')} = cos(pos / 10000<sup>2i/d<sub>model</sub></sup>)`
        : `x = W${sub('E')}[ids] + W${sub('pos')}[0 … T−1]`,
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
      `Q = X·W${sub('Q')}<sup>T</sup>${bias(config, 'Q')} &nbsp;·&nbsp; K = X·W${sub('K')}<sup>T</sup>${bias(config, 'K')} &nbsp;·&nbsp; V = X·W${sub('V')}<sup>T</sup>${bias(config, 'V')}<br>` +
      `W${sub('Q')}: ${config.dModel} × ${config.dModel} &nbsp;·&nbsp; W${sub('K')}, W${sub('V')}: ${config.kvHeads * config.dHead} × ${config.dModel}`,
    view: projectView,
  },
  {
    id: 'split',
    text: ({ lang, config }) => t(lang, 'split.text', { d: config.dModel, h: config.heads, kv: config.kvHeads }),
    formula: ({ lang, config }) => t(lang, 'split.formula', { h: config.heads, dh: config.dHead }),
    view: splitView,
  },
  {
    id: 'rope',
    text: ({ lang, config }) => t(lang, 'rope.text', { base: config.ropeBase, half: config.dHead / 2 }),
    formula: ({ lang, config }) =>
      `q${sub('rot')}[t] = q[t]·cos(tθ) + rotate_half(q[t])·sin(tθ) &nbsp;·&nbsp; rotate_half(x${sub('1')} | x${sub('2')}) = (−x${sub('2')} | x${sub('1')})<br>` +
      `θ${sub('i')} = ${config.ropeBase}<sup>−2i/${config.dHead}</sup>, i = 0 … ${config.dHead / 2 - 1} &nbsp;·&nbsp; ${t(lang, 'rope.formulaK')}`,
    view: ropeView,
  },
  {
    id: 'attend',
    text: ({ lang, causalControl, config, layer, result }) => {
      const vars = { l: layer, layers: config.layers, sqrt: sqrt(config.dHead), h: config.heads, k: config.readouts, dh: config.dHead };
      if (!hasBlocks(config)) return t(lang, 'attend.text', { ...vars, mask: `${t(lang, config.causal ? 'attend.maskOn' : causalControl ? 'attend.maskOff' : 'attend.maskOffNoControl')}${sentenceGap(lang)}` });
      if (onInductionTask(config)) return t(lang, 'attend.textTrained', vars);
      if (onRealText(config)) return t(lang, 'attend.textCorpus', { ...vars, corpus: t(lang, `corpus.${config.tokenizer}`), kinds: t(lang, `attend.kinds.${config.tokenizer}`) });
      if (recalls(config) && isLoaded(config) && oneOffsetPerHead(result)) return t(lang, 'attend.textRecall', vars);
      return t(lang, isLoaded(config) ? 'attend.textLoaded' : 'attend.textRandomBlocks', vars);
    },
    formula: ({ lang, config }) =>
      `scores${sub('h')} = Q${sub('h')}K${sub('g(h)')}<sup>T</sup> / √d${sub('head')}${config.causal ? ` + M &nbsp;${t(lang, 'attend.formulaMask')}` : ''}<br>` +
      `weights${sub('h')} = softmax(scores${sub('h')}) ${t(lang, 'attend.formulaRows')} &nbsp;·&nbsp; head_out${sub('h')} = weights${sub('h')} · V${sub('g(h)')}` +
      (config.kvHeads < config.heads ? ` &nbsp;·&nbsp; g(h) = ⌊h / ${config.heads / config.kvHeads}⌋` : ' &nbsp;·&nbsp; g(h) = h'),
    view: attendView,
    parts: attendParts, // redrawn part by part (see sections.js)
    depends: ['attendMode', 'head', 'worked', 'pruning', 'importance', 'circuits'],
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
    text: ({ lang, config }) => t(lang, hasBlocks(config) ? 'output.textBlocks' : 'output.text'),
    formula: ({ config }) =>
      `y = concat·W${sub('O')}<sup>T</sup>${bias(config, 'O')} &nbsp;·&nbsp; W${sub('O')}: ${config.dModel} × ${config.dModel}<br>` +
      `= Σ${sub('h')} head_write${sub('h')}${bias(config, 'O')}, &nbsp; head_write${sub('h')} = head_out${sub('h')} · W${sub('O')}[:, h·d${sub('head')} : (h+1)·d${sub('head')}]<sup>T</sup>`,
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
    text: ({ lang, config }) => t(lang, recalls(config) ? 'logits.textRecall' : 'logits.text', { v: config.vocabSize, d: config.dModel, k: config.readouts, kv: config.readouts * config.vocabSize }),
    // What the unembedding reads: the final LayerNorm's output, or the last block's residual stream.
    formula: ({ config }) =>
      `logits = ${config.layerNorm ? 'ln_f' : `resid${sub(config.mlp ? 'out' : 'mid')}[${config.layers - 1}]`} · W${sub('U')}<sup>T</sup> &nbsp;·&nbsp; W${sub('U')}: ${recalls(config) ? `${config.readouts}·` : ''}${config.vocabSize} × ${config.dModel}`,
    view: stageTensorsView('logits'),
  },
  {
    id: 'predict',
    text: ({ lang, config, result }) => {
      if (!isLoaded(config)) return t(lang, 'predict.textRandom');
      if (recalls(config)) return t(lang, 'predict.textRecall', { k: config.readouts });
      if (onRealText(config)) return t(lang, 'predict.textCorpus', { unit: t(lang, `unit.${config.tokenizer}`) });
      return t(lang, onInductionTask(config) && hasInductionHeads(result) ? 'predict.text' : 'predict.textLoaded');
    },
    formula: ({ lang, config }) => (recalls(config)
      ? t(lang, 'predict.formulaRecall', { k: config.readouts })
      : `${t(lang, 'predict.formula')}<br>` +
        `logit${sub('v')} = ${config.layerNorm ? `W${sub('U')}[v] · γ ⊙ (x − x̄)/σ` : `W${sub('U')}[v] · x`}, x = ${t(lang, 'part.embedding')} + Σ${sub('l,h')} head_write${sub('l,h')}${config.mlp ? ` + Σ${sub('l')} mlp${sub('l')}` : ''}${config.biases ? ` + ${t(lang, 'part.bias')}` : ''}`),
    view: (state, actions) => (recalls(state.result.config) ? recallPredictView : predictView)(state, actions),
    // The prediction (its parts at the picked position), then Generate (its steps follow
    // `generation`), the KV cache and its calculator. A recall model predicts the tokens before each
    // position, not the next one: nothing to generate.
    parts: (state, actions) => (recalls(state.result.config)
      ? [{ key: [state.result, state.lang], make: () => recallPredictView(state, actions) }]
      : [
        { key: [state.result, state.lang, state.position], make: () => predictView(state, actions) },
        { key: [state.result, state.lang, state.generation, state.sampling], make: () => generateView(state, actions) },
        { key: [state.result, state.lang], make: () => kvCacheView(state, actions) },
        { key: [state.lang], make: () => kvCalculatorView(state, actions) },
      ]),
    depends: ['position', 'generation', 'sampling'],
  },
].map((step) => ({ ...step, title: `${step.id}.title`, enter: arrive, exit: leave }));

const STEP_OF = Object.fromEntries(STEPS.map((step) => [step.id, step]));

// A stage of the table with no step written for it (GPT-2's LayerNorms and MLP): its text from the
// strings, its formulas and shapes from the core's table, its tensors as heatmaps.
function genericStep({ id, tensors }) {
  // The core's formula, or in Chinese its translation where it has words (strings.js formula.{name}).
  const said = (lang, x) => (lang !== 'en' && STRINGS[`formula.${x.name}`] ? t(lang, `formula.${x.name}`) : escapeHtml(x.formula));
  const formula = ({ lang }) => tensors.map((x) => `${escapeHtml(x.name)} ${escapeHtml(x.shape)} = ${said(lang, x)}`).join('<br>');
  return { id, title: `${id}.title`, text: ({ lang }) => t(lang, `${id}.text`), formula, view: stageTensorsView(id), enter: arrive, exit: leave };
}

// The widget's parts a result's steps draw: the predict stage's Generate and KV cache (not a recall
// model's, which has nothing to generate).
export const partsDrawn = (result) => (result.stages.some((s) => s.id === 'predict') && !recalls(result.config) ? ['decoding'] : []);

// The steps of a result, in its walk order, each with its family from the table.
export function stepsOf(result) {
  return result.stages.map((stage) => ({ ...(STEP_OF[stage.id] || genericStep(stage)), family: stage.family }));
}
