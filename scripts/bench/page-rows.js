// Rows and legends of scripts/bench-page.js's tables, from what the in-page code measured
// (page-change.js, page-frames.js). Times in ms.
'use strict';

const { median } = require('./stats.js');

const f1 = (v) => (Number.isFinite(v) ? v.toFixed(1) : '—');

// One row of a change table: the medians (and worst) of the measured changes; traced: each change
// of a traced second pass (page-cpu.js: {cpu, script, layout, paint, layerize, gc}), or null.
function changeRow(fields, measured, traced = null) {
  const runs = measured.runs.filter((x) => !x.warm);
  const col = (k) => runs.map((x) => x[k]);
  const cpu = traced && traced.map((x) => x.cpu);
  const of = (k) => (traced ? f1(median(traced.map((x) => x[k]))) : '');
  return {
    ...fields,
    T: measured.tShort === measured.tLong ? String(measured.tLong) : `${measured.tShort}↔${measured.tLong}`,
    tLong: measured.tLong,
    n: runs.length,
    core: f1(median(col('core'))),
    coreMax: f1(Math.max(...col('core'))),
    state: f1(median(col('state'))),
    worker: f1(median(col('worker'))),
    frame1: f1(median(col('frame1'))),
    paint: f1(median(col('paint'))),
    busyMs: median(col('busy')),
    busy: f1(median(col('busy'))),
    busyMaxMs: Math.max(...col('busy')),
    busyMax: f1(Math.max(...col('busy'))),
    over: runs.filter((x) => x.busy > 16).length,
    cpuMs: cpu ? median(cpu) : NaN,
    cpuMaxMs: cpu ? Math.max(...cpu) : NaN,
    cpuOver: cpu ? cpu.filter((v) => v > 16).length : 0,
    cpuCount: cpu ? cpu.length : 0,
    cpu: cpu ? f1(median(cpu)) : '',
    cpuMax: cpu ? f1(Math.max(...cpu)) : '',
    script: of('script'),
    layout: of('layout'),
    paintRecord: of('paint'),
    layerize: of('layerize'),
    gc: of('gc'),
    // the tasks' wall time beyond their CPU time: how long the main thread waited for a core, at the
    // median and in the change whose tasks took longest (the slow single changes: their work, or the wait)
    offCpu: traced ? f1(median(traced.map((x) => x.wall - x.cpu))) : '',
    offCpuWorst: traced ? (({ wall, cpu }) => `${f1(wall - cpu)} of ${f1(wall)}`)(traced.reduce((a, b) => (b.wall > a.wall ? b : a))) : '',
    // the collector's share of the slowest change: whether the changes over 16 ms are the ones it ran in
    gcWorst: traced ? f1(traced.reduce((a, b) => (b.cpu > a.cpu ? b : a)).gc) : '',
    idle: f1(median(col('idle'))),
    total: f1(median(col('total'))),
    totalMax: f1(Math.max(...col('total'))),
  };
}

const CHANGE_COLUMNS = [
  { key: 'core', title: 'core (lastMs) med' },
  { key: 'coreMax', title: 'max' },
  { key: 'state', title: 'change→state med' },
  { key: 'worker', title: 'worker med' },
  { key: 'frame1', title: '→1st rAF med' },
  { key: 'paint', title: '→painted med' },
  { key: 'busy', title: 'busy med' },
  { key: 'busyMax', title: 'max' },
  { key: 'over', title: '> 16' },
  { key: 'cpu', title: 'CPU med' },
  { key: 'cpuMax', title: 'max' },
  { key: 'script', title: 'JS med' },
  { key: 'layout', title: 'layout med' },
  { key: 'paintRecord', title: 'paint med' },
  { key: 'layerize', title: 'layerize med' },
  { key: 'gc', title: 'GC med' },
  { key: 'gcWorst', title: 'GC in max' },
  { key: 'offCpu', title: 'off-CPU med' },
  { key: 'offCpuWorst', title: 'in slowest' },
  { key: 'total', title: '→2nd rAF med' },
  { key: 'totalMax', title: 'max' },
  { key: 'idle', title: '→idle med' },
];

const CHANGE_LEGEND = [
  'all times in ms, from dispatching the change event, medians over the measured changes:',
  '  core          state.lastMs, the page\'s own timing: the WebAssembly run + copying its tensors out',
  '  change→state  the synchronous part: core + store + drawing the visible stage (DOM, canvases)',
  '  worker        of change→state, the wait for the worker\'s answer (a model whose runs go there): not the main thread\'s work',
  '  →1st rAF      the first requestAnimationFrame callback after the state update (the frame starts)',
  '  →painted      a task posted from that callback runs: that frame has been rendered',
  '  busy          change→state − worker + (→painted − →1st rAF): the main thread\'s work for the change,',
  '                without the waits for the worker and for the frame to start; the figure to hold against 16 ms (max: worst change;',
  '                > 16: how many changes took longer)',
  '  CPU           the main thread\'s CPU time for the change (busy\'s span), from a Chromium trace of a second',
  '                pass of the same changes: the work itself, less moved by other processes (max: worst change)',
  '  JS            of CPU\'s span in that trace, the page\'s JavaScript (FunctionCall: the handlers, the worker\'s answer, frame callbacks)',
  '  layout, paint, layerize  of that span, Chromium\'s Layout, Paint (recording the display list) and Layerize (paint into',
  '                composited layers) on the main thread; CPU less these and GC is the rest of the frame (style, layer updates, commit)',
  '  off-CPU       the span\'s tasks\' wall time less their CPU time: the main thread ready but without a core (other processes,',
  '                the page\'s workers); in slowest: that wait, of the wall time, in the change whose tasks took longest',
  '  GC            of CPU\'s span, V8\'s garbage collection on the main thread (MajorGC, MinorGC, incremental marking); in max: in the change of most CPU',
  '  →2nd rAF      the end of the second rAF callback after the state update: the new frame is out (max: worst change)',
  '  →idle         requestIdleCallback fires: the hidden stages, drawn one task each after a change, are done too',
];

// One row of the frames table: frame intervals (rAF frame times), long tasks and training steps.
function frameRow(fields, rec) {
  const iv = rec.intervals;
  const med = median(iv);
  const progress = rec.progress;
  let steps = '—';
  let workerRate = '—';
  if (progress.length >= 2) {
    const a = progress[0];
    const b = progress[progress.length - 1];
    steps = ((b.step - a.step) / ((b.t - a.t) / 1000)).toFixed(0);
    workerRate = b.rate.toFixed(0);
  }
  const long = rec.longTasks;
  return {
    ...fields,
    seconds: (rec.ms / 1000).toFixed(1),
    frames: iv.length,
    medMs: f1(med),
    fpsMedValue: 1000 / med,
    fpsMed: (1000 / med).toFixed(1),
    fpsMeanValue: iv.length / (rec.ms / 1000),
    fpsMean: (iv.length / (rec.ms / 1000)).toFixed(1),
    slow: `${((100 * iv.filter((x) => x > 20).length) / Math.max(1, iv.length)).toFixed(1)} %`,
    worst: f1(Math.max(...iv)),
    lateMax: f1(Math.max(...rec.lateness)),
    long: long ? `${long.length} (${f1(long.reduce((s, x) => s + x.ms, 0))})` : 'n/a',
    longMax: long && long.length ? f1(Math.max(...long.map((x) => x.ms))) : '—',
    reports: progress.length,
    steps,
    workerRate,
    lastStep: progress.length ? progress[progress.length - 1].step : '—',
  };
}

const FRAME_COLUMNS = [
  { key: 'what', title: 'page', left: true },
  { key: 'seconds', title: 's' },
  { key: 'frames', title: 'frames' },
  { key: 'medMs', title: 'interval med' },
  { key: 'fpsMed', title: 'fps (med)' },
  { key: 'fpsMean', title: 'fps (frames/s)' },
  { key: 'slow', title: '> 20 ms' },
  { key: 'worst', title: 'worst gap' },
  { key: 'lateMax', title: 'late cb max' },
  { key: 'long', title: 'long tasks (ms)' },
  { key: 'longMax', title: 'longest' },
  { key: 'reports', title: 'reports' },
  { key: 'steps', title: 'steps/s' },
  { key: 'workerRate', title: 'worker steps/s' },
  { key: 'lastStep', title: 'step' },
];

const FRAME_LEGEND = [
  'interval: between the timestamps of successive requestAnimationFrame callbacks (the frames\' begin times):',
  '  fps (med)      1000 ÷ the median interval;  fps (frames/s): frames ÷ seconds recorded',
  '  > 20 ms        the share of intervals longer than 20 ms;  worst gap: the longest interval',
  '  late cb max    the most a rAF callback ran after its frame\'s timestamp (the main thread was busy)',
  '  long tasks     main-thread tasks over 50 ms (PerformanceObserver \'longtask\'), count (total ms)',
  '  reports        trainprogress events (the worker reports ~4 times a second); steps/s from their',
  '                 steps and arrival times; worker steps/s: the worker\'s own figure, its last report',
];

module.exports = { changeRow, CHANGE_COLUMNS, CHANGE_LEGEND, frameRow, FRAME_COLUMNS, FRAME_LEGEND };
