// "Why several heads?": the head-count experiment on the recall task. The shipped sweep
// (models/recall-sweep.csv, `npm run train`) is shown at once, as a table beside Vaswani et al.'s
// Table 3 and the same experiment on the Tang poems (models/tang-sweep.csv), and as a plot of
// accuracy against heads; "Run it yourself" trains the recall recipe at 1,
// 4 and 64 heads in Web Workers of its own (sweep.js: progress, Cancel) and draws each model's
// attention maps side by side, captioned with what was measured of them. The head counts are shared
// out between two workers when the machine has two cores or more (each model trains alone, so the
// bits are the same): the 64-head model alone takes about as long as the other two together.
//   controller: {run({heads, steps, seed}) -> Promise<rows>, cancel(), render(), panel}
//   onProgress(detail), onEnd(detail): the element turns them into sweepprogress / sweepend events.
import { h, setText, setDisabled } from '../../dom.js';
import { t } from '../../i18n.js';
import { grouped } from '../../format.js';
import { headColor } from '../parts/colors.js';
import { drawMiniMap } from '../parts/miniMap.js';
import catalog from '../../catalog.js';
import shippedCsv from '../../../../models/recall-sweep.csv';
import tangCsv from '../../../../models/tang-sweep.csv';

const RECIPE = catalog.recipes.recall;
const RUN_HEADS = [1, 4, 64];
// Vaswani et al. 2017, Table 3 row (A): the base model (d_model 512) with the heads changed and
// d_k = d_v = 512 / heads, computation held constant; BLEU on newstest2013 English–German.
const TABLE3 = [{ heads: 1, dk: 512, bleu: 24.9 }, { heads: 4, dk: 128, bleu: 25.5 }, { heads: 8, dk: 64, bleu: 25.8 }, { heads: 16, dk: 32, bleu: 25.8 }, { heads: 32, dk: 16, bleu: 25.4 }];
// Ids for the maps when the model shown is not the recall model: 16 of them, as it was trained on.
const PROBE = [5, 9, 23, 41, 7, 60, 2, 33, 18, 50, 11, 27, 39, 4, 61, 22];

// A sweep's CSV (numbers under a header line) -> {names, records: [{column: number}]}.
function csvRecords(text) {
  const [head, ...lines] = text.trim().split('\n');
  const names = head.split(',');
  return { names, records: lines.map((line) => Object.fromEntries(line.split(',').map((x, i) => [names[i], Number(x)]))) };
}

// models/recall-sweep.csv -> [{heads, dHead, parameters, loss, accuracy, perReadout}]
export function parseSweepCsv(text) {
  const { names, records } = csvRecords(text);
  return records.map((v) => ({ heads: v.heads, dHead: v.d_head, parameters: v.parameters, loss: v.loss, accuracy: v.accuracy,
    perReadout: names.filter((n) => n.startsWith('readout_')).map((n) => v[n]) }));
}
const SHIPPED = parseSweepCsv(shippedCsv);

// The same experiment on real text (models/tang-sweep.csv, `npm run train`: the Tang poems model at one
// d_model, each head count trained from two seeds): [{heads, dHead, parameters, loss (held-out, the
// seeds' mean), seeds}].
export function parseTangCsv(text) {
  const rows = new Map();
  for (const v of csvRecords(text).records) {
    const row = rows.get(v.heads) || rows.set(v.heads, { heads: v.heads, dHead: v.d_head, parameters: v.parameters, losses: [] }).get(v.heads);
    row.losses.push(v.heldout_loss);
  }
  return [...rows.values()].map(({ losses, ...r }) => ({ ...r, loss: losses.reduce((a, b) => a + b, 0) / losses.length, seeds: losses.length }));
}
const TANG = parseTangCsv(tangCsv);
// What the sentence under the table quotes: one head, the best, the most.
const TANG_BEST = TANG.reduce((a, b) => (b.loss < a.loss ? b : a));
const [TANG_ONE, TANG_MOST] = [TANG[0], TANG[TANG.length - 1]];

const two = (v) => v.toFixed(2);
const offsetName = (lang, k) => t(lang, 'predict.readout', { k });
const EVEN = 0.05; // a head's weights on the offsets closer than this: "nearly even", none favoured

// What a trained model's maps show, from its scores on fresh sequences (stripe: per head, per k).
function caption(lang, row) {
  const K = row.perReadout.length;
  const best = row.stripe.map((s) => s.reduce((b, w, k) => (w > s[b] ? k : b), 0));
  const acc = two(row.accuracy);
  if (row.heads === 1) {
    const s = row.stripe[0];
    const list = s.map((w, k) => `${offsetName(lang, k + 1)}: ${two(w)} → ${two(row.perReadout[k])}`).join(' · ');
    // What this map does: weights within EVEN of each other, or one offset favoured.
    const [hi, lo] = [Math.max(...s), Math.min(...s)];
    const how = t(lang, hi - lo < EVEN ? 'sweep.even' : 'sweep.favours', { k: offsetName(lang, best[0] + 1), hi: two(hi), lo: two(lo) });
    return t(lang, 'sweep.capOne', { list, acc, how });
  }
  if (row.heads <= 8) {
    const list = best.map((k, hd) => `h${hd} → ${offsetName(lang, k + 1)} (${two(row.stripe[hd][k])})`).join(' · ');
    return t(lang, 'sweep.capFew', { h: row.heads, list, acc });
  }
  const strong = best.filter((k, hd) => row.stripe[hd][k] >= 0.5);
  const per = Array.from({ length: K }, (_, k) => `${offsetName(lang, k + 1)}: ${strong.filter((x) => x === k).length}`).join(' · ');
  const most = Math.max(...row.stripe.map((s, hd) => s[best[hd]]));
  return t(lang, 'sweep.capMany', { h: row.heads, dh: row.dHead, n: strong.length, per, max: two(most), acc });
}

// Accuracy against heads on a log2 axis, 1 … 64: the shipped sweep, and the learner's run over it.
function plot() {
  const NS = 'http://www.w3.org/2000/svg';
  const el = (tag, attrs, text) => {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const svg = el('svg', { viewBox: '0 0 320 170', class: 'sweep-plot', role: 'img' });
  const x = (heads) => 40 + (Math.log2(heads) / 6) * 260;
  const y = (acc) => 140 - acc * 120;
  svg.append(el('line', { x1: 40, x2: 300, y1: 140, y2: 140, class: 'axis' }), el('line', { x1: 40, x2: 40, y1: 20, y2: 140, class: 'axis' }));
  for (const a of [0, 0.5, 1]) svg.append(el('text', { x: 34, y: y(a) + 4, class: 'tick', 'text-anchor': 'end' }, String(a)));
  for (const hd of [1, 2, 4, 8, 16, 32, 64]) svg.append(el('text', { x: x(hd), y: 154, class: 'tick', 'text-anchor': 'middle' }, String(hd)));
  const xLabel = el('text', { x: 170, y: 168, class: 'axis-label', 'text-anchor': 'middle' });
  const series = (rows, cls) => {
    const g = el('g', { class: cls });
    g.append(el('polyline', { points: rows.map((r) => `${x(r.heads)},${y(r.accuracy)}`).join(' ') }));
    for (const r of rows) g.append(el('circle', { cx: x(r.heads), cy: y(r.accuracy), r: 3.5, 'data-heads': r.heads }));
    return g;
  };
  svg.append(xLabel, series(SHIPPED, 'shipped'));
  let mine = null;
  return {
    svg,
    draw(lang, rows) {
      svg.setAttribute('aria-label', t(lang, 'sweep.plotLabel', { list: SHIPPED.map((r) => `${r.heads}: ${two(r.accuracy)}`).join(', ') }));
      setText(xLabel, t(lang, 'sweep.heads'));
      if (mine) mine.remove();
      mine = rows.length ? series(rows, 'mine') : null;
      if (mine) svg.append(mine);
    },
  };
}

// A model's training time, roughly, for sharing them out: tiny heads cost more per step.
const cost = (heads) => 1 + heads / 40;

// The head counts as jobs for `n` workers: the dearest first, each to the least loaded.
function shareOut(list, n) {
  const jobs = Array.from({ length: n }, () => ({ load: 0, items: [] }));
  list.map((heads, index) => ({ heads, index })).sort((a, b) => cost(b.heads) - cost(a.heads)).forEach((item) => {
    const job = jobs.reduce((a, b) => (b.load < a.load ? b : a));
    job.items.push(item);
    job.load += cost(item.heads);
  });
  return jobs.filter((j) => j.items.length).map((j) => j.items.sort((a, b) => a.index - b.index));
}

export function mountSweepPanel(root, store, makeWorker, { onProgress, onEnd }) {
  const L = () => store.state.lang;
  const state = { running: false, rows: [], maps: [], progress: null, error: null, started: 0, seconds: 0, workers: 0 };
  let workers = [];
  let pending = null; // {resolve, reject} of the run in progress

  const title = h('h3', {});
  const intro = h('p', {});
  const chart = plot();
  const table = h('table', { class: 'sweep-table' });
  const run = h('button', { type: 'button', class: 'train-btn', 'data-sweep': 'run', onclick: () => controller.run({ heads: RUN_HEADS }).catch(() => {}) });
  const cancel = h('button', { type: 'button', class: 'train-btn', 'data-sweep': 'cancel', onclick: () => controller.cancel() });
  const status = h('p', { class: 'train-readout', role: 'status', 'aria-live': 'polite' });
  const maps = h('div', { class: 'sweep-maps' });
  const trick = h('p', { class: 'hint' });
  const tang = h('p', { class: 'hint', 'data-sweep-tang': '' });
  const panel = h('section', { class: 'sweep-panel', 'data-sweep-panel': '' }, title, intro,
    h('div', { class: 'sweep-top' }, chart.svg, table), tang, h('div', { class: 'train-row' }, run, cancel), status, maps, trick);
  root.append(panel);

  function renderTable(lang) {
    const mine = new Map(state.rows.map((r) => [r.heads, r]));
    const heads = [...new Set([...SHIPPED.map((r) => r.heads), ...TABLE3.map((r) => r.heads), ...TANG.map((r) => r.heads), ...mine.keys()])].sort((a, b) => a - b);
    const cell = (v) => h('td', {}, v === undefined ? t(lang, 'none') : v);
    table.replaceChildren(
      h('thead', {}, h('tr', {}, ['heads', 'dHead', 'ours', 'mine', 'tang', 'table3'].map((k) => h('th', { scope: 'col' }, t(lang, `sweep.col.${k}`))))),
      h('tbody', {}, heads.map((hd) => {
        const ours = SHIPPED.find((r) => r.heads === hd);
        const tang = TANG.find((r) => r.heads === hd);
        const paper = TABLE3.find((r) => r.heads === hd);
        return h('tr', { 'data-heads': String(hd) }, h('th', { scope: 'row' }, String(hd)), cell(RECIPE.dModel % hd ? undefined : String(RECIPE.dModel / hd)),
          cell(ours && two(ours.accuracy)), cell(mine.has(hd) ? two(mine.get(hd).accuracy) : undefined),
          cell(tang && tang.loss.toFixed(3)), cell(paper && `${paper.bleu} (d_k ${paper.dk})`));
      })));
  }

  function drawMaps(lang) {
    maps.replaceChildren(...state.maps.map(({ row, map }) => {
      const grid = h('div', { class: 'sweep-grid', style: { '--cols': String(Math.ceil(Math.sqrt(row.heads))) } });
      for (let hd = 0; hd < row.heads; hd++) {
        const canvas = h('canvas', { class: 'train-map', width: 1, height: 1, style: { '--head': headColor(hd) } });
        drawMiniMap(canvas, map.weights, hd * map.T * map.T, map.T);
        grid.append(canvas);
      }
      return h('figure', { class: 'sweep-model', 'data-sweep-heads': String(row.heads), role: 'group', 'aria-label': t(lang, 'sweep.mapTitle', { h: row.heads, dh: row.dHead, acc: two(row.accuracy) }) },
        h('figcaption', {}, h('strong', {}, t(lang, 'sweep.mapTitle', { h: row.heads, dh: row.dHead, acc: two(row.accuracy) })), h('span', { 'data-caption': '' }, caption(lang, row))), grid);
    }));
  }

  function render() {
    const lang = L();
    const params = SHIPPED[0].parameters;
    setText(title, t(lang, 'sweep.title'));
    intro.innerHTML = t(lang, 'sweep.intro', { k: RECIPE.recall, d: RECIPE.dModel, same: SHIPPED.every((r) => r.parameters === params) ? t(lang, 'sweep.same', { p: grouped(params, lang) }) : '', steps: grouped(RECIPE.steps, lang), seed: RECIPE.seed });
    chart.draw(lang, state.rows);
    renderTable(lang);
    setText(run, t(lang, 'sweep.run', { list: RUN_HEADS.join(', ') }));
    setText(cancel, t(lang, 'cancel'));
    setDisabled([[run, state.running], [cancel, !state.running]]);
    const p = state.progress;
    setText(status, state.error || (state.running && p ? t(lang, 'sweep.progress', { h: p.heads, step: p.step, steps: p.steps, i: p.index + 1, n: p.total }) : state.rows.length ? t(lang, 'sweep.done', { s: state.seconds.toFixed(0), w: state.workers }) : t(lang, 'sweep.idle')));
    drawMaps(lang);
    setText(tang, t(lang, 'sweep.tang', { d: TANG_ONE.heads * TANG_ONE.dHead, p: grouped(TANG_ONE.parameters, lang), n: TANG_ONE.seeds,
      one: TANG_ONE.loss.toFixed(3), best: TANG_BEST.heads, bl: TANG_BEST.loss.toFixed(3), most: TANG_MOST.heads, ml: TANG_MOST.loss.toFixed(3) }));
    setText(trick, t(lang, 'sweep.trick'));
  }

  function finish(reason, error) {
    state.running = false;
    state.seconds = (performance.now() - state.started) / 1000;
    for (const w of workers) w.terminate();
    workers = [];
    const rows = state.rows.map((row) => ({ ...row }));
    render();
    onEnd({ rows, reason });
    const p = pending;
    pending = null;
    if (!p) return;
    if (reason === 'done') p.resolve(rows);
    else p.reject(Object.assign(new Error(error || 'the sweep was cancelled'), { name: reason === 'cancelled' ? 'AbortError' : 'Error' }));
  }

  const controller = {
    get rows() {
      return state.rows;
    },
    // options: {heads: number[] (each dividing d_model), steps?, seed?} -> Promise of the rows.
    run(options = {}) {
      const { heads = RUN_HEADS, steps, seed } = options;
      const unknown = Object.keys(options).filter((k) => !['heads', 'steps', 'seed'].includes(k));
      if (unknown.length) return Promise.reject(new Error(`${unknown[0]} is not an option of runHeadSweep; its options are heads, steps, seed`));
      if (state.running) this.cancel();
      const list = Array.from(heads, Number);
      const bad = list.find((hd) => !Number.isInteger(hd) || hd < 1 || RECIPE.dModel % hd);
      if (!list.length || bad !== undefined) return Promise.reject(new Error(`heads must be whole numbers dividing d_model ${RECIPE.dModel}; got ${heads}`));
      Object.assign(state, { running: true, rows: [], maps: [], progress: null, error: null, started: performance.now() });
      const result = store.state.result;
      const probe = result && result.config.readouts > 1 ? Array.from(result.ids) : PROBE;
      const jobs = shareOut(list, Math.max(1, Math.min(2, (navigator.hardwareConcurrency || 1), list.length)));
      state.workers = jobs.length;
      const done = new Array(list.length).fill(null);
      let ended = 0;
      workers = jobs.map((items) => {
        const worker = makeWorker();
        worker.onmessage = (ev) => {
          const msg = ev.data;
          const index = msg.index === undefined ? -1 : items[msg.index].index; // its place in the list
          if (msg.sweep === 'progress') {
            state.progress = { ...msg, index, total: list.length };
            render();
            onProgress({ index, heads: msg.heads, step: msg.step, steps: msg.steps, total: list.length });
          } else if (msg.sweep === 'row') {
            done[index] = { row: msg.row, map: msg.map };
            state.maps = done.filter(Boolean);
            state.rows = state.maps.map((m) => m.row);
            render();
          } else if (msg.sweep === 'end' && ++ended === jobs.length) finish('done');
          else if (msg.sweep === 'error') {
            state.error = msg.message;
            finish('error', msg.message);
          }
        };
        // A worker that could not start or stopped: the sweep ends saying why, as on a core error.
        worker.onerror = (ev) => {
          ev.preventDefault();
          state.error = ev.message || t(store.state.lang, 'train.workerStopped');
          finish('error', state.error);
        };
        worker.postMessage({ sweep: 'start', heads: items.map((item) => item.heads), steps, seed, probe });
        return worker;
      });
      render();
      return new Promise((resolve, reject) => {
        pending = { resolve, reject };
      });
    },
    cancel() {
      if (state.running) finish('cancelled');
    },
    render,
    panel,
  };
  render();
  return controller;
}
