// "Train it yourself": the trained model's recipe, trained from scratch in the demo's own Web Worker
// (training.js), with Start / Pause / Reset, steps per second, a live loss curve with the phase
// change marked, and both layers' head maps and labels on the current text, redrawn with every
// report (~4 a second). It lives outside the stage sections, so training goes on across stages.
//   controller: {start(), pause(), reset(seed), file() -> Promise<Uint8Array>, state}
//   onProgress(detail), onEnd(detail): the element turns them into trainprogress / trainend events.
import { h, setText } from '../../dom.js';
import { t } from '../../i18n.js';
import { headColor, lutOf, lutIndex } from '../parts/colors.js';
import { download } from '../../export/files.js';
import catalog from '../../catalog.js';

// What the buttons train: the core's recipes (catalog.h), the shipped one or a smaller one for phones.
export const TRAIN_SIZES = { standard: catalog.recipes.induction, small: catalog.recipes.inductionSmall };
const PHASE = catalog.phaseChangeScore; // the induction score that marks the phase change
const SEQUENTIAL = { kind: 'sequential', max: 1 };

function drawMap(canvas, data, offset, T) {
  if (canvas.width !== T) canvas.width = canvas.height = T;
  const ctx = canvas.getContext('2d');
  const image = ctx.createImageData(T, T);
  const lut = lutOf(SEQUENTIAL);
  for (let r = 0; r < T; r++)
    for (let c = 0; c < T; c++) {
      const p = (r * T + c) * 4;
      if (c > r) {
        image.data.set([236, 237, 241, 255], p);
        continue;
      }
      const i = lutIndex(data[offset + r * T + c], SEQUENTIAL) * 3;
      image.data.set([lut[i], lut[i + 1], lut[i + 2], 255], p);
    }
  ctx.putImageData(image, 0, 0);
}

// The loss curve as an SVG polyline (at most 600 points), the phase change as a vertical line.
function lossCurve() {
  const NS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('viewBox', '0 0 600 160');
  svg.setAttribute('class', 'loss-curve');
  svg.setAttribute('role', 'img');
  const line = document.createElementNS(NS, 'polyline');
  const phase = document.createElementNS(NS, 'line');
  const phaseText = document.createElementNS(NS, 'text');
  phase.setAttribute('class', 'phase');
  phaseText.setAttribute('class', 'phase-text');
  svg.append(line, phase, phaseText);
  return {
    svg,
    draw(losses, maxSteps, phaseStep, label, lang) {
      const n = losses.length;
      const every = Math.max(1, Math.ceil(n / 600));
      const hi = Math.max(5, ...losses.slice(0, 20));
      const pts = [];
      for (let i = 0; i < n; i += every) pts.push(`${((i / maxSteps) * 600).toFixed(1)},${(160 - (losses[i] / hi) * 150).toFixed(1)}`);
      line.setAttribute('points', pts.join(' '));
      phase.style.display = phaseText.style.display = phaseStep ? '' : 'none';
      if (phaseStep) {
        const x = ((phaseStep / maxSteps) * 600).toFixed(1);
        for (const [k, v] of [['x1', x], ['x2', x], ['y1', '0'], ['y2', '160']]) phase.setAttribute(k, v);
        phaseText.setAttribute('x', String(Number(x) + 4));
        phaseText.setAttribute('y', '14');
        phaseText.textContent = t(lang, 'train.phaseAt', { step: phaseStep });
      }
      svg.setAttribute('aria-label', label);
    },
  };
}

export function mountTrainPanel(root, store, makeWorker, { onProgress, onEnd }) {
  const state = { step: 0, running: false, stepsPerSecond: 0, loss: null, induction: 0, phaseStep: null, losses: [], size: 'standard', seed: TRAIN_SIZES.standard.seed };
  let worker = null;
  let pendingFile = null;
  const L = () => store.state.lang;

  const title = h('h3', {});
  const intro = h('p', { class: 'hint' });
  const start = h('button', { type: 'button', class: 'train-btn', 'data-train': 'start', onclick: () => controller.start() });
  const pause = h('button', { type: 'button', class: 'train-btn', 'data-train': 'pause', onclick: () => controller.pause() });
  const reset = h('button', { type: 'button', class: 'train-btn', 'data-train': 'reset', onclick: () => controller.reset() });
  const save = h('button', { type: 'button', class: 'train-btn', 'data-train': 'download', onclick: () => controller.file().then((bytes) => download(new Blob([bytes]), `induction-step-${state.step}.safetensors`, root)) });
  const size = h('select', { id: 'train-size' }, Object.keys(TRAIN_SIZES).map((k) => h('option', { value: k })));
  size.addEventListener('change', () => {
    state.size = size.value;
    controller.reset(state.seed);
  });
  const sizeLabel = h('span', { class: 'field-label' });
  const readout = h('p', { class: 'train-readout', role: 'status', 'aria-live': 'polite' });
  const curve = lossCurve();
  const maps = h('div', { class: 'train-maps' });
  const panel = h('section', { class: 'train-panel', 'data-train-panel': '' }, title, intro,
    h('div', { class: 'train-row' }, start, pause, reset, h('label', { class: 'field field-train-size' }, sizeLabel, size), save),
    readout, curve.svg, maps);
  root.append(panel);

  let mapCells = null; // per layer: [{canvas, label}] per head
  function drawMaps(probe) {
    if (!probe) return;
    const layers = probe.weights.length;
    const H = probe.heads.layers[0].heads.length;
    if (!mapCells || mapCells.length !== layers || mapCells[0].length !== H) {
      mapCells = [];
      maps.replaceChildren();
      for (let l = 0; l < layers; l++) {
        const row = [];
        const group = h('div', { class: 'train-layer' }, h('h4', { class: 'train-layer-title' }, t(L(), 'layerOption', { l })));
        for (let hd = 0; hd < H; hd++) {
          const canvas = h('canvas', { class: 'train-map', width: 1, height: 1, role: 'img' });
          const label = h('span', { class: 'head-label' });
          const metrics = h('span', { class: 'train-head-metrics' });
          group.append(h('figure', { class: 'train-head', style: { '--head': headColor(hd) }, 'data-train-head': `${l}.${hd}` },
            h('figcaption', {}, h('span', { class: 'train-head-name' }, t(L(), 'head', { h: hd })), label), canvas, metrics));
          row.push({ canvas, label, metrics });
        }
        maps.append(group);
        mapCells.push(row);
      }
    }
    for (let l = 0; l < layers; l++)
      for (let hd = 0; hd < H; hd++) {
        const { canvas, label, metrics } = mapCells[l][hd];
        const m = probe.heads.layers[l].heads[hd];
        const two = (v) => (v === null || v === undefined ? t(L(), 'none') : v.toFixed(2));
        setText(metrics, t(L(), 'train.headMetrics', { p: two(m.previous_token), i: two(m.induction) }));
        drawMap(canvas, probe.weights[l], hd * probe.T * probe.T, probe.T);
        canvas.setAttribute('aria-label', t(L(), 'train.mapLabel', { l, h: hd, label: t(L(), `label.${m.label}`) }));
        label.className = `head-label label-${m.label}`;
        setText(label, t(L(), `label.${m.label}`));
      }
  }

  function render() {
    const lang = L();
    setText(title, t(lang, 'train.title'));
    setText(intro, t(lang, 'train.intro'));
    setText(start, t(lang, state.step ? 'train.resume' : 'train.start'));
    setText(pause, t(lang, 'train.pause'));
    setText(reset, t(lang, 'train.reset'));
    setText(save, t(lang, 'train.download'));
    setText(sizeLabel, t(lang, 'train.size'));
    for (const o of size.options) setText(o, t(lang, `train.size.${o.value}`));
    start.disabled = state.running;
    pause.disabled = !state.running;
    save.disabled = state.step === 0;
    const text = state.step === 0
      ? t(lang, 'train.idle')
      : t(lang, 'train.readout', { step: state.step, rate: state.stepsPerSecond.toFixed(0), loss: state.loss === null ? '—' : state.loss.toFixed(3), ind: state.induction.toFixed(2) });
    setText(readout, text);
    curve.draw(state.losses, TRAIN_SIZES[state.size].steps, state.phaseStep, t(lang, 'train.curveLabel', { step: state.step }), lang);
  }

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
      for (const l of msg.losses) state.losses.push(l);
      if (msg.losses.length) state.loss = msg.losses[msg.losses.length - 1];
      if (!state.phaseStep && msg.induction >= PHASE) state.phaseStep = msg.step;
      const wasRunning = state.running;
      state.running = msg.running;
      drawMaps(msg.probe);
      render();
      const heads = msg.probe
        ? msg.probe.heads.layers.flatMap((layer, l) => layer.heads.map((m, hd) => ({ layer: l, head: hd, previousToken: m.previous_token, induction: m.induction, label: m.label })))
        : [];
      onProgress({ step: state.step, loss: state.loss, stepsPerSecond: state.stepsPerSecond, induction: state.induction, phaseStep: state.phaseStep, heads });
      const max = TRAIN_SIZES[state.size].steps;
      if (state.running && state.step >= max) controller.pause('done');
      else if (wasRunning && !state.running) onEnd({ step: state.step, loss: state.loss, reason: endReason || 'paused' });
    };
    return worker;
  }

  const probeIds = () => (store.state.result && store.state.result.config.model !== 'single' ? Array.from(store.state.result.ids) : [0, 1, 2, 3, 4, 1, 2, 3, 4]);
  const options = () => ({ ...TRAIN_SIZES[state.size], seed: state.seed });
  let endReason = null;

  const controller = {
    get state() {
      return { step: state.step, running: state.running, loss: state.loss, stepsPerSecond: state.stepsPerSecond, induction: state.induction, phaseStep: state.phaseStep };
    },
    start() {
      if (state.running) return;
      state.running = true;
      endReason = null;
      render();
      ensureWorker().postMessage({ train: 'start', options: options(), probe: probeIds() });
    },
    pause(reason = 'paused') {
      if (!worker) return;
      endReason = reason;
      worker.postMessage({ train: 'pause' });
    },
    reset(seed = state.seed + 1) {
      state.seed = seed;
      Object.assign(state, { step: 0, loss: null, induction: 0, phaseStep: null, losses: [], stepsPerSecond: 0 });
      endReason = 'reset';
      if (worker) worker.postMessage({ train: 'reset', options: options(), probe: probeIds() });
      render();
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
    stop() {
      if (worker) worker.terminate();
      worker = null;
      state.running = false;
    },
    render,
    panel,
  };
  render();
  return controller;
}
