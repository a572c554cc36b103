// The main thread's CPU time for each change, from a Chromium trace (CDP Tracing through
// playwright's CDP session): the thread time (tdur) of the renderer main thread's top-level tasks
// that start between a change's marks (page-change.js: mha-bench:change … mha-bench:painted). It
// counts the work wherever the shared machine's other processes delayed it, so it moves less with
// the load than the wall-clock busy column does; tracing itself adds a little to it.
'use strict';

// disabled-by-default-v8.gc: the incremental marking steps, which MajorGC and MinorGC leave out.
const CATEGORIES = ['toplevel', 'blink.user_timing', 'devtools.timeline', 'disabled-by-default-v8.gc'].join(',');

async function startTrace(cdp) {
  const events = [];
  const onData = (d) => events.push(...d.value);
  cdp.on('Tracing.dataCollected', onData);
  await cdp.send('Tracing.start', { categories: CATEGORIES, transferMode: 'ReportEvents' });
  return async () => {
    const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
    await cdp.send('Tracing.end');
    await done;
    cdp.off('Tracing.dataCollected', onData);
    return events;
  };
}

// The events of `list` that no other of them contains (a function called from within a function call).
function outermost(list) {
  const out = [];
  let end = -Infinity;
  for (const e of [...list].sort((a, b) => a.ts - b.ts)) {
    if (e.ts >= end) {
      out.push(e);
      end = e.ts + e.dur;
    }
  }
  return out;
}

// -> [{cpu, wall, script, layout, paint, layerize, gc} per marked change], in order: ms of main-thread
// CPU and the wall time of the same tasks (wall − cpu: the thread was ready but had no core: the
// machine's other processes, or the page's workers, ran),
// and of it the wall time of the page's JavaScript (FunctionCall: the change's handlers, the worker's
// answer, frame callbacks), of Chromium's Layout, Paint (recording the display list) and Layerize
// (assigning paint to composited layers) events, and of V8's garbage collection on the main thread
// (MajorGC, MinorGC and the incremental marking steps); NaN where a change's marks are not found.
function cpuPerChange(events) {
  const thread = events.find((e) => e.name === 'thread_name' && e.args && e.args.name === 'CrRendererMain');
  if (!thread) throw new Error('the trace has no CrRendererMain thread');
  const onMain = (e) => e.pid === thread.pid && e.tid === thread.tid;
  const marks = (name) => events.filter((e) => e.name === name && e.pid === thread.pid).map((e) => e.ts).sort((a, b) => a - b);
  const starts = marks('mha-bench:change');
  const ends = marks('mha-bench:painted');
  // Top-level tasks only (a task's nested events are inside its thread time already).
  const top = outermost(events.filter((e) => onMain(e) && e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask' && e.tdur !== undefined));
  const rendering = (name) => events.filter((e) => onMain(e) && e.ph === 'X' && e.name === name);
  const scripts = outermost(rendering('FunctionCall'));
  const layouts = rendering('Layout');
  const paints = rendering('Paint');
  const layerizes = rendering('Layerize');
  const collections = ['MajorGC', 'MinorGC', 'V8.GCIncrementalMarking'].flatMap(rendering);
  return starts.map((s, i) => {
    const e = ends.find((x) => x > s);
    if (e === undefined || (starts[i + 1] !== undefined && e > starts[i + 1])) return { cpu: NaN, wall: NaN, script: NaN, layout: NaN, paint: NaN, layerize: NaN, gc: NaN };
    // The change's own task began just before its mark: count tasks that end after the mark.
    const within = (list, key) => list.filter((t) => t.ts + t.dur > s && t.ts < e).reduce((sum, t) => sum + t[key], 0) / 1000;
    return {
      cpu: within(top, 'tdur'),
      wall: within(top, 'dur'),
      script: within(scripts, 'dur'),
      layout: within(layouts, 'dur'),
      paint: within(paints, 'dur'),
      layerize: within(layerizes, 'dur'),
      gc: within(collections, 'dur'),
    };
  });
}

module.exports = { startTrace, cpuPerChange };
