// "Train it yourself": a recipe of the core's (catalog.recipes: the induction task's, a smaller one for
// phones, the recall task's, a small one of the Tang poems), trained from scratch in the demo's own
// Web Worker (training.js), with Start / Pause / Reset, steps per second, a loss curve with axes, the task's floor and the phase change
// marked, and every layer's head maps and measures on the current text. Each report's maps are kept
// every few dozen steps, so a slider scrubs back through the heads forming — step 0, the phase
// change, the end. "Use this model" shows what was just trained in the demo itself. It lives outside
// the stage sections, so training goes on across stages.
//   controller: {start(), pause(), reset(seed), file() -> Promise<Uint8Array>, state}
//   onProgress(detail), onEnd(detail): the element turns them into trainprogress / trainend events;
//   onUse(bytes, name): the element opens the bytes as a model file.
import { h, setText, setDisabled } from '../../dom.js';
import { grouped } from '../../format.js';
import { t } from '../../i18n.js';
import { headColor } from '../parts/colors.js';
import { drawMiniMap } from '../parts/miniMap.js';
import { headText, heldoutText } from '../stages/heads.js';
import { headType } from '../../headType.js';
import { download } from '../../export/files.js';
import catalog from '../../catalog.js';
import { MODEL_KINDS } from '../../attributes.js';
import { trainerOptions } from '../../trainerOptions.js';
import { corpusText, modelHistory } from '../../sharedModule.js';
import { unpackMaps } from '../../historyMaps.js';
import { textScript } from '../../parts.js';

// What the panel trains: the core's recipes (catalog.h), by their catalog names.
export const TRAIN_RECIPES = catalog.recipes;
// Its menu's order: the recipes of the model menu's models in that menu's order (the Tang poems',
// the English one, the induction and recall models'), then the others.
const MENU_ORDER = [...new Set([...Object.values(MODEL_KINDS).map((k) => k.recipe).filter((r) => r in TRAIN_RECIPES), ...Object.keys(TRAIN_RECIPES)])];


// A recipe as its menu names it, from its own numbers (a new recipe of a known task or corpus needs
// no string): "induction: 2 layers, d_model 64, 4 heads"; "Tang poems: 2 blocks, …, 1,000 characters".
export function recipeLabel(lang, name) {
  const r = TRAIN_RECIPES[name];
  const corpus = r.task === 'corpus';
  return t(lang, corpus ? 'train.recipeLabelCorpus' : 'train.recipeLabel', {
    what: t(lang, corpus ? `train.corpus.${r.corpus}` : `train.task.${r.task}`),
    layers: t(lang, `train.layers.${r.model}`, { n: r.layers }),
    d: r.dModel,
    heads: t(lang, 'train.heads', { h: r.heads }),
    vocab: corpus ? t(lang, `train.vocab.${r.corpus}`, { v: grouped(r.vocabSize, lang), n: r.vocabSize }) : '',
  });
}
const KEEP_EVERY = 50; // steps between the head maps kept for the slider
const NS = 'http://www.w3.org/2000/svg';
const W = 600;
const H = 170;
const PLOT = { left: 44, right: 580, top: 8, bottom: 140 }; // the plot inside the axes, room for the last tick's number

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

// The loss curve (at most 600 points) on axes of step and loss, the task's floor dashed, the phase
// change as a vertical line, "done" at the last step.
function lossCurve() {
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'loss-curve', role: 'img' });
  const line = svg('polyline');
  const held = svg('polyline', { class: 'heldout' });
  const heldText = svg('text', { class: 'heldout-text', 'text-anchor': 'end' });
  const floor = svg('line', { class: 'floor' });
  const floorText = svg('text', { class: 'floor-text' });
  const phase = svg('line', { class: 'phase' });
  const phaseText = svg('text', { class: 'phase-text' });
  const done = svg('text', { class: 'done-text', 'text-anchor': 'end' });
  const axes = svg('g', { class: 'axes' });
  root.append(axes, floor, floorText, line, held, heldText, phase, phaseText, done);
  return {
    svg: root,
    // heldout: [{step, loss}] (the corpus task's), drawn dashed beside the training loss; floorValue
    // null: no floor to draw (real text has none the page can say).
    draw({ losses, heldout = [], steps, floorValue, phaseStep, finished, lang, label }) {
      // Up to the first losses, and before any the floor with room for its label above it.
      const hi = Math.max(1, (floorValue || 0) * 1.25, ...losses.slice(0, 20));
      const x = (step) => PLOT.left + (step / steps) * (PLOT.right - PLOT.left);
      const y = (loss) => PLOT.bottom - (Math.min(loss, hi) / hi) * (PLOT.bottom - PLOT.top);
      axes.replaceChildren(
        svg('line', { x1: PLOT.left, x2: PLOT.right, y1: PLOT.bottom, y2: PLOT.bottom }),
        svg('line', { x1: PLOT.left, x2: PLOT.left, y1: PLOT.top, y2: PLOT.bottom }),
        ...[0, hi / 2, hi].map((v) => svg('text', { x: PLOT.left - 4, y: y(v) + 4, 'text-anchor': 'end' }, v.toFixed(1))),
        ...[0, steps / 2, steps].map((s) => svg('text', { x: x(s), y: PLOT.bottom + 14, 'text-anchor': 'middle' }, String(s))),
        svg('text', { x: (PLOT.left + PLOT.right) / 2, y: H - 3, 'text-anchor': 'middle', class: 'axis-label' }, t(lang, 'train.axisStep')),
        svg('text', { x: PLOT.left + 6, y: PLOT.top + 10, class: 'axis-label' }, t(lang, 'train.axisLoss')),
      );
      const every = Math.max(1, Math.ceil(losses.length / 600));
      const pts = [];
      for (let i = 0; i < losses.length; i += every) pts.push(`${x(i + 1).toFixed(1)},${y(losses[i]).toFixed(1)}`);
      line.setAttribute('points', pts.join(' '));
      held.setAttribute('points', heldout.map((p) => `${x(p.step).toFixed(1)},${y(p.loss).toFixed(1)}`).join(' '));
      const last = heldout[heldout.length - 1];
      heldText.textContent = last ? t(lang, 'train.heldoutAt', { v: last.loss.toFixed(2) }) : '';
      heldText.setAttribute('x', String(PLOT.right - 4));
      heldText.setAttribute('y', String(PLOT.top + 24));
      floor.style.display = floorText.style.display = floorValue === null ? 'none' : '';
      if (floorValue === null) floorValue = 0;
      for (const [k, v] of [['x1', PLOT.left], ['x2', PLOT.right], ['y1', y(floorValue)], ['y2', y(floorValue)]]) floor.setAttribute(k, String(v));
      // At the right, where the curve ends on the floor: under the line, unless the x axis is there.
      const under = y(floorValue) + 12 < PLOT.bottom - 2;
      floorText.setAttribute('x', String(PLOT.right - 4));
      floorText.setAttribute('y', String(y(floorValue) + (under ? 12 : -4)));
      floorText.setAttribute('text-anchor', 'end');
      floorText.textContent = t(lang, 'train.floor', { v: floorValue.toFixed(2) });
      phase.style.display = phaseText.style.display = phaseStep ? '' : 'none';
      if (phaseStep) {
        for (const [k, v] of [['x1', x(phaseStep)], ['x2', x(phaseStep)], ['y1', PLOT.top], ['y2', PLOT.bottom]]) phase.setAttribute(k, String(v));
        const late = phaseStep > steps / 2; // its words on the side with room
        phaseText.setAttribute('text-anchor', late ? 'end' : 'start');
        phaseText.setAttribute('x', String(x(phaseStep) + (late ? -4 : 4)));
        phaseText.setAttribute('y', String(PLOT.top + 10));
        phaseText.textContent = t(lang, 'train.phaseAt', { step: phaseStep });
      }
      done.setAttribute('x', String(PLOT.right));
      done.setAttribute('y', String(PLOT.top + 10));
      done.textContent = finished ? t(lang, 'train.done', { steps }) : '';
      root.setAttribute('aria-label', label);
    },
  };
}

export function mountTrainPanel(root, store, makeWorker, { onProgress, onEnd, onUse }) {
  // The recipe the shown model was trained with (attributes.js MODEL_KINDS), else the induction model's.
  const first = (MODEL_KINDS[store.state.settings.model] || {}).recipe || 'induction';
  const state = { step: 0, running: false, stepsPerSecond: 0, loss: null, induction: 0, accuracy: null, phaseStep: null, losses: [], heldout: [], heldoutHeads: null, recipe: first, seed: TRAIN_RECIPES[first].seed, snapshots: [], latest: null, shown: null };
  let text = null; // the corpus task's, once come (its recipe's corpus): a Trainer's {vocabulary, train, heldout}
  let probeText = null; // and its probe ({text, tokens, ids}: scripts/web-parts.js corpusTexts)
  let textOf = null;
  let textMessage = null; // the readout while the text loads, or says it could not
  const lastHeldout = () => (state.heldout.length ? state.heldout[state.heldout.length - 1].loss : null);
  let worker = null;
  let pendingFile = null;
  const L = () => store.state.lang;
  const recipe = () => TRAIN_RECIPES[state.recipe];

  const title = h('h3', {});
  const intro = h('p', { class: 'hint' });
  const start = h('button', { type: 'button', class: 'train-btn', 'data-train': 'start', onclick: () => controller.start() });
  const pause = h('button', { type: 'button', class: 'train-btn', 'data-train': 'pause', onclick: () => controller.pause() });
  const reset = h('button', { type: 'button', class: 'train-btn', 'data-train': 'reset', onclick: () => controller.reset() });
  const fileName = () => `${recipe().task}-step-${state.step}.safetensors`;
  const save = h('button', { type: 'button', class: 'train-btn', 'data-train': 'download', onclick: () => controller.file().then((bytes) => download(new Blob([bytes]), fileName(), root)) });
  const use = h('button', { type: 'button', class: 'train-btn', 'data-train': 'use', onclick: () => controller.file().then((bytes) => onUse(bytes, fileName())) });
  const which = h('select', { id: 'train-recipe' }, MENU_ORDER.map((k) => h('option', { value: k })));
  which.value = state.recipe;
  which.addEventListener('change', () => controller.choose(which.value));
  const whichLabel = h('span', { class: 'field-label' });
  const readout = h('p', { class: 'train-readout', role: 'status', 'aria-live': 'polite' });
  const curve = lossCurve();
  const scrub = h('input', { type: 'range', class: 'train-scrub', 'data-train': 'scrub', min: 0, max: 0, step: 1, value: 0 });
  scrub.addEventListener('input', () => {
    const i = Number(scrub.value);
    state.shown = i >= frames().length - 1 ? null : i; // the last one: follow the training
    showSnapshot();
    render();
  });
  const scrubLabel = h('span', { class: 'field-label' });
  const scrubValue = h('output', { class: 'train-scrub-value' });
  const maps = h('div', { class: 'train-maps' });
  const panel = h('section', { class: 'train-panel', 'data-train-panel': '' }, title, intro,
    h('div', { class: 'train-row' }, start, pause, reset, h('label', { class: 'field field-train-size' }, whichLabel, which), save, use),
    readout, curve.svg, h('label', { class: 'field train-scrub-field' }, scrubLabel, scrub, scrubValue), maps);
  root.append(panel);

  let mapCells = null; // per layer: [{canvas, label, metrics}] per head
  // probe.layerIds: which of the model's layers probe.weights holds (a corpus model's recorded history
  // keeps its opening layer's maps only); probe.heldout: [layer][head] types on held-out text.
  function drawMaps(probe) {
    const layers = probe.weights.length;
    const layerId = (l) => (probe.layerIds ? probe.layerIds[l] : l);
    const heads = probe.heads.layers[0].heads.length;
    const lang = L();
    if (!mapCells || mapCells.length !== layers || mapCells[0].length !== heads) {
      mapCells = [];
      maps.replaceChildren();
      for (let l = 0; l < layers; l++) {
        const row = [];
        const group = h('div', { class: 'train-layer', style: { '--heads': heads } }, h('h4', { class: 'train-layer-title' }, t(lang, 'layerOption', { l: layerId(l) })));
        for (let hd = 0; hd < heads; hd++) {
          const canvas = h('canvas', { class: 'train-map', width: 1, height: 1, role: 'img' });
          const label = h('span', { class: 'head-label' });
          const metrics = h('span', { class: 'train-head-metrics' });
          group.append(h('figure', { class: 'train-head', style: { '--head': headColor(hd) }, 'data-train-head': `${layerId(l)}.${hd}` },
            h('figcaption', {}, h('span', { class: 'train-head-name' }, t(lang, 'head', { h: hd })), label), canvas, metrics));
          row.push({ canvas, label, metrics });
        }
        maps.append(group);
        mapCells.push(row);
      }
    }
    const recall = probe.readouts > 1;
    const two = (v) => (v === null || v === undefined ? t(lang, 'none') : v.toFixed(2));
    for (let l = 0; l < layers; l++)
      for (let hd = 0; hd < heads; hd++) {
        const { canvas, label, metrics } = mapCells[l][hd];
        const m = probe.heads.layers[layerId(l)].heads[hd];
        // A recall head is named by how far back it looks; the others as the heads table names them
        // (headText), a head of real text with the measure its name rests on beside its chance.
        const named = recall ? null : headText(lang, m);
        const name = recall ? t(lang, 'label.offset', { d: m.offset, w: two(m.offset_weight) }) : named.name;
        const held = probe.heldout && probe.heldout[layerId(l)][hd];
        setText(metrics, recall ? t(lang, 'train.offsetMetrics', { d: m.offset, w: two(m.offset_weight) })
          : held ? t(lang, 'train.heldoutType', { shown: named.measure, held: heldoutText(lang, held) })
            : recipe().task === 'corpus' ? named.measure : t(lang, 'train.headMetrics', { p: two(m.previous_token), i: two(m.induction) }));
        drawMiniMap(canvas, probe.weights[l], hd * probe.T * probe.T, probe.T);
        canvas.setAttribute('aria-label', t(lang, 'train.mapLabel', { l: layerId(l), h: hd, label: name }));
        label.className = recall ? 'head-label label-offset' : `head-label label-${m.label}`;
        setText(label, recall ? '' : name);
      }
  }

  // The maps of the snapshot the slider points at, or the latest.
  function showSnapshot() {
    const all = frames();
    const snap = all[state.shown === null ? all.length - 1 : state.shown];
    if (snap) drawMaps(snap.probe);
    else maps.replaceChildren();
    if (!snap) mapCells = null;
  }

  function render() {
    const lang = L();
    const r = recipe();
    setText(title, t(lang, 'train.title'));
    setText(intro, t(lang, r.task === 'corpus' ? `train.introCorpus.${r.corpus}` : r.task === 'recall' ? 'train.introRecall' : 'train.intro'));
    setText(start, t(lang, state.step ? 'train.resume' : 'train.start'));
    setText(pause, t(lang, 'train.pause'));
    setText(reset, t(lang, 'train.reset'));
    setText(save, t(lang, 'train.download'));
    setText(use, t(lang, 'train.use'));
    setText(whichLabel, t(lang, 'train.recipe'));
    for (const o of which.options) setText(o, recipeLabel(lang, o.value));
    setDisabled([[start, state.running || state.step >= r.steps], [pause, !state.running], [save, state.step === 0], [use, state.step === 0]]);
    const loss = state.loss === null ? '—' : state.loss.toFixed(3);
    const rate = state.stepsPerSecond.toFixed(0);
    const held = lastHeldout() === null ? '—' : lastHeldout().toFixed(3);
    if (!textMessage) {
      const recorded = state.recorded;
      setText(readout, recorded ? (recorded.layers ? t(lang, 'train.recordedCorpus', { steps: recorded.losses.length, every: recorded.every, recipe: recipeLabel(lang, state.recipe) })
        : t(lang, state.phaseStep === null ? 'train.recordedPlain' : 'train.recorded', { steps: r.steps, phase: state.phaseStep }))
        : state.step === 0 ? t(lang, 'train.idle')
        : r.task === 'recall' ? t(lang, 'train.readoutRecall', { step: state.step, rate, loss, acc: state.accuracy === null ? '—' : state.accuracy.toFixed(2) })
          : r.task === 'corpus' ? t(lang, 'train.readoutCorpus', { step: state.step, rate, loss, held })
            : t(lang, 'train.readout', { step: state.step, rate, loss, ind: state.induction.toFixed(2) }));
    } else setText(readout, t(lang, textMessage, { file: textScript(r.corpus) }));
    curve.draw({ losses: state.losses, heldout: state.heldout, steps: state.recorded ? state.recorded.losses.length : r.steps, floorValue: r.task === 'corpus' ? null : r.lossFloor, phaseStep: state.phaseStep, finished: state.step >= r.steps, lang, label: t(lang, 'train.curveLabel', { step: state.step }) });
    const all = frames();
    const n = all.length;
    scrub.max = String(Math.max(0, n - 1));
    scrub.value = String(state.shown === null ? Math.max(0, n - 1) : state.shown);
    scrub.disabled = n < 2;
    setText(scrubLabel, t(lang, 'train.scrub'));
    const snap = all[Number(scrub.value)];
    setText(scrubValue, snap ? t(lang, state.shown === null && !state.recorded ? 'train.scrubLive' : 'train.scrubAt', { step: snap.step }) : '');
  }

  // A report's maps stay when KEEP_EVERY steps have passed since the last that stayed; the latest is
  // always there too, as the slider's last place. Each carries the heads on held-out text as last
  // measured (the corpus task's, once a second: training.js), as a recorded snapshot does.
  function keep(msg) {
    if (msg.heldoutHeads) state.heldoutHeads = msg.heldoutHeads.map((layer) => layer.heads.map(headType));
    if (!msg.probe) return;
    state.latest = { step: msg.step, probe: state.heldoutHeads ? { ...msg.probe, heldout: state.heldoutHeads } : msg.probe };
    const last = state.snapshots[state.snapshots.length - 1];
    if (!last || msg.step - last.step >= KEEP_EVERY) state.snapshots.push(state.latest);
  }
  const frames = () => (state.latest && state.snapshots[state.snapshots.length - 1] !== state.latest ? [...state.snapshots, state.latest] : state.snapshots);

  function ensureWorker() {
    if (worker) return worker;
    worker = makeWorker();
    worker.onmessage = (ev) => {
      const msg = ev.data;
      if (msg.train === 'file') {
        if (pendingFile) pendingFile.resolve(msg.bytes);
        pendingFile = null;
        return;
      }
      if (msg.train === 'error') {
        state.running = false;
        setText(readout, msg.message);
        return;
      }
      if (msg.train !== 'progress') return;
      state.step = msg.step;
      state.stepsPerSecond = msg.stepsPerSecond;
      state.induction = msg.induction;
      state.accuracy = msg.accuracy;
      if (msg.heldout !== null && msg.heldout !== undefined && msg.step > 0) state.heldout.push({ step: msg.step, loss: msg.heldout });
      for (const l of msg.losses) state.losses.push(l);
      if (msg.losses.length) state.loss = msg.losses[msg.losses.length - 1];
      state.phaseStep = msg.phaseStep;
      const wasRunning = state.running;
      state.running = msg.running;
      keep(msg);
      if (state.shown === null) showSnapshot();
      render();
      const recall = msg.probe && msg.probe.readouts > 1;
      const each = (f) => (msg.probe ? msg.probe.heads.layers.flatMap((layer, l) => layer.heads.map((m, hd) => ({ layer: l, head: hd, ...f(m) }))) : []);
      const heads = each((m) => ({ previousToken: m.previous_token, induction: m.induction, offset: recall ? m.offset : null, label: m.label }));
      // As the heads table names them: the label, the measure it rests on (the core's) and its chance.
      const named = ({ type, strongest, value, chance, offset }) => ({ type, nearest: type === 'mixed' ? strongest : null, value, chance, offset });
      const headTypes = each((m) => named(headType(m)));
      const heldoutTypes = state.heldoutHeads ? state.heldoutHeads.flatMap((layer, l) => layer.map((x, hd) => ({ layer: l, head: hd, ...named(x) }))) : null;
      onProgress({ task: recipe().task, step: state.step, loss: state.loss, stepsPerSecond: state.stepsPerSecond, induction: state.induction, accuracy: state.accuracy, heldout: lastHeldout(), phaseStep: state.phaseStep, heads, headTypes, heldoutTypes });
      // The worker stops by itself at the recipe's last step.
      if (wasRunning && !state.running) onEnd({ step: state.step, loss: state.loss, reason: endReason || (state.step >= recipe().steps ? 'done' : 'paused') });
    };
    // A worker that could not start or stopped (its script missing, memory): said, and the next
    // Train starts another, rather than "Training…" left standing.
    worker.onerror = (ev) => {
      ev.preventDefault();
      worker.terminate();
      worker = null;
      state.running = false;
      render();
      setText(readout, ev.message || t(store.state.lang, 'train.workerStopped'));
    };
    return worker;
  }

  // The ids whose head maps are shown: the current text's, when it fits the recipe's positions.
  const probeIds = () => {
    const result = store.state.result;
    const r = recipe();
    // Real text: the text shown where the corpus's own model shows it, else the one that model opens
    // on (the text's probe: another model's ids are not this vocabulary's); the same vocabulary's most
    // frequent tokens (vocabSize of them), the others <unk> (0).
    let ids = result && result.config.model !== 'single' ? Array.from(result.ids) : [0, 1, 2, 3, 4, 1, 2, 3, 4];
    if (r.task === 'corpus') {
      if (probeText && MODEL_KINDS[store.state.settings.model]?.shipped !== r.corpus) ids = probeText.ids;
      return ids.slice(0, r.maxPositions).map((id) => (id < r.vocabSize ? id : 0));
    }
    return ids.length <= r.maxPositions && Math.max(...ids) < r.vocabSize ? ids : ids.slice(0, r.maxPositions).map((id) => id % r.vocabSize);
  };
  const options = () => ({ ...trainerOptions(catalog, recipe()), seed: state.seed });
  let endReason = null;

  const controller = {
    get state() {
      return { task: recipe().task, step: state.step, running: state.running, loss: state.loss, stepsPerSecond: state.stepsPerSecond, induction: state.induction, accuracy: state.accuracy, phaseStep: state.phaseStep, snapshots: frames().map((s) => s.step) };
    },
    start() {
      if (state.running || state.step >= recipe().steps) return;
      forget(); // a recorded history gives way to training here, from step 0
      const r = recipe();
      if (r.task === 'corpus' && textOf !== r.corpus) {
        // Its text first (a script beside the widget, loaded once), saying so meanwhile.
        textMessage = 'train.loadingText';
        render();
        corpusText(r.corpus).then(({ probe, ...trainerText }) => {
          text = trainerText;
          probeText = probe;
          textOf = r.corpus;
          textMessage = null;
          if (recipe() !== r) return;
          // A worker of another recipe's trainer gets this one's first (reset makes it).
          if (worker) worker.postMessage({ train: 'reset', options: options(), text, steps: r.steps, probe: probeIds() });
          this.start();
        }, () => {
          textMessage = 'train.textMissing';
          render();
        });
        return;
      }
      state.running = true;
      endReason = null;
      render();
      ensureWorker().postMessage({ train: 'start', options: options(), text: r.task === 'corpus' ? text : undefined, steps: r.steps, probe: probeIds() });
    },
    pause(reason = 'paused') {
      if (!worker) return;
      endReason = reason;
      worker.postMessage({ train: 'pause' });
    },
    reset(seed = state.seed + 1) {
      state.seed = seed;
      Object.assign(state, { step: 0, loss: null, induction: 0, accuracy: null, phaseStep: null, losses: [], heldout: [], heldoutHeads: null, stepsPerSecond: 0, snapshots: [], latest: null, shown: null, recorded: null });
      endReason = 'reset';
      // (a recipe of real text whose text has not come resets when it starts: its start creates the trainer)
      const r = recipe();
      if (worker && (r.task !== 'corpus' || textOf === r.corpus)) {
        worker.postMessage({ train: 'reset', options: options(), text: r.task === 'corpus' ? text : undefined, steps: r.steps, probe: probeIds() });
      }
      showSnapshot();
      render();
      showRecorded();
    },
    // Another recipe (the menu, or the model shown): started again from its own seed.
    choose(name) {
      if (!TRAIN_RECIPES[name] || (name === state.recipe && state.step === 0)) return;
      state.recipe = name;
      which.value = name;
      this.reset(TRAIN_RECIPES[name].seed);
    },
    file() {
      if (!worker || state.step === 0) return Promise.reject(new Error('nothing trained yet'));
      return new Promise((resolve, reject) => {
        pendingFile = { resolve, reject };
        worker.postMessage({ train: 'file' });
      });
    },
    // The text changed: show the heads on it (the next report brings them).
    probe() {
      if (worker) worker.postMessage({ train: 'probe', probe: probeIds() });
    },
    // The model shown changed: train its recipe (catalog.recipes' key), unless training has begun.
    follow(name) {
      if (state.step !== 0 || state.running) return;
      if (name !== state.recipe) this.choose(name);
      else this.followRecord();
    },
    // The model shown changed (to one without a recipe, or back to the recipe's): show its record, if it
    // has one, before anything trains.
    followRecord() {
      if (state.step === 0 && !state.running && recordOf() !== asked) {
        forget();
        showSnapshot();
        render();
        showRecorded();
      }
    },
    stop() {
      if (worker) worker.terminate();
      worker = null;
      state.running = false;
    },
    render,
    panel,
  };

  // Before anything is trained here, a recipe that made a shipped model shows how that model formed,
  // as npm run train recorded it (scripts/history.js): its losses, its phase change and its heads at
  // every snapshot, for the slider. Train starts it again, live, from step 0.
  // The record is that of the model the chosen recipe made.
  function recordOf() {
    const kind = Object.values(MODEL_KINDS).find((k) => k.recipe === state.recipe && k.shipped);
    return kind ? kind.shipped : null;
  }
  let asked = null; // the shipped model whose record is shown, or coming
  function showRecorded() {
    asked = recordOf();
    if (!asked) return;
    const id = asked;
    modelHistory(id).then((history) => {
      if (!history || asked !== id || state.step !== 0 || state.running) return;
      const probeOf = (s) => ({ T: history.ids.length, ids: history.ids, readouts: 1, weights: s.weights.map((w) => unpackMaps(w, history.ids.length, history.packing)), heads: s.heads, layerIds: history.layers, heldout: s.heldout });
      Object.assign(state, { recorded: history, losses: history.losses.slice(), phaseStep: history.phaseStep, snapshots: history.snapshots.map((s) => ({ step: s.step, probe: probeOf(s) })) });
      state.latest = state.snapshots[state.snapshots.length - 1];
      state.shown = state.snapshots.length - 1;
      showSnapshot();
      render();
    }, () => {}); // without its script the panel is as before: nothing recorded to show
  }
  function forget() {
    asked = null;
    if (state.recorded) Object.assign(state, { recorded: null, losses: [], phaseStep: null, snapshots: [], latest: null, shown: null });
  }
  render();
  showRecorded();
  return controller;
}
