// The training loop, inside the demo's training worker (worker.js hands it every message with a
// `train` field). It steps the core's Trainer (web/mha.js) for about STEP_MS at a time, then reports
// and yields, so pause and reset are heard within a chunk and the page gets news ~4 times a second.
// It stops by itself at the recipe's last step, and looks for the phase change at every multiple of
// the catalog's phaseChangeEvery, so both are the seed's, not the timing's (as `mha train --phase-every`).
//   in   {train: 'start', options, text?, steps, probe: ids} | {train: 'pause'} | {train: 'probe', probe: ids}
//        | {train: 'reset', options, text?, steps, probe} | {train: 'file'}
//        (text: the corpus task's, {vocabulary, train, heldout}; kept for the resets that follow)
//   out  {train: 'progress', step, losses (new since the last report), stepsPerSecond, induction
//         (the induction task's score, else 0), phaseStep (the first checked step where it reached the
//         catalog's phaseChangeScore, else null), accuracy (the recall task's on a few sequences, else
//         null), heldout (the corpus task's held-out loss on a few windows when measured: HELDOUT_MS;
//         else null), heldoutHeads (when it is measured, every head on those windows: Trainer.heldoutHeads's
//         layers), running,
//         probe: {T, ids, readouts, weights: [Float32Array (heads, T, T) per layer], heads}}
//        (a new trainer reports once at step 0, before its first step)
//        | {train: 'file', bytes} | {train: 'error', message}
const STEP_MS = 200;
const CHUNK = 5; // steps between looks at the clock
const LIVE_SEQUENCES = 20; // the recall accuracy shown while training: a few fresh sequences
const HELDOUT_WINDOWS = 8; // the held-out loss shown while training: the held-out text's first windows
// At most once a second while it runs (and at step 0, and whenever it stops): its windows took 27 ms,
// a tenth of the page's Tang recipe's time, when measured at each report (four a second). The heads
// on the same windows take ~25 ms more (Node, either recipe): 2.5 % of a second's training.
const HELDOUT_MS = 1000;

let trainer = null;
let task = 'induction'; // the trainer's (its options'), which says what is scored while it trains
let text; // the corpus task's
let running = false;
let steps = Infinity; // the recipe's: training stops there
let phaseStep = null;
let probe = null; // ids whose head maps are shown while training
let busySeconds = 0;
let stepsTimed = 0;
let sent = 0; // losses already reported
let losses = [];
let heldoutStep = -1; // the step the held-out loss was last measured at, and when
let heldoutTime = -Infinity;

function heldoutDue() {
  if (task !== 'corpus' || trainer.stepsDone === heldoutStep) return false;
  return !running || trainer.stepsDone === 0 || performance.now() - heldoutTime >= HELDOUT_MS;
}

function report(mha, post) {
  const out = { train: 'progress', step: trainer.stepsDone, running, stepsPerSecond: busySeconds > 0 ? stepsTimed / busySeconds : 0 };
  out.losses = Float32Array.from(losses.slice(sent));
  sent = losses.length;
  const { readouts } = trainer.config;
  out.induction = task === 'induction' ? trainer.inductionScore(1) : 0;
  out.phaseStep = phaseStep;
  out.accuracy = task === 'recall' ? trainer.recallScores(LIVE_SEQUENCES).meanAccuracy : null;
  out.heldout = null;
  if (heldoutDue()) {
    out.heldout = trainer.heldoutScores(HELDOUT_WINDOWS).loss;
    out.heldoutHeads = trainer.heldoutHeads(HELDOUT_WINDOWS).layers;
    heldoutStep = trainer.stepsDone;
    heldoutTime = performance.now();
  }
  const transfer = [out.losses.buffer];
  if (probe && probe.length) {
    const trace = trainer.runIds(probe);
    try {
      const config = trace.config();
      const weights = [];
      for (let l = 0; l < config.layers; l++) weights.push(trace.data(`layers.${l}.weights`));
      out.probe = { T: probe.length, ids: probe, readouts, weights, heads: trace.headAnalysis() };
      transfer.push(...weights.map((w) => w.buffer));
    } finally {
      trace.delete();
    }
  }
  post(out, transfer);
}

function loop(mha, post) {
  if (!running || !trainer) return;
  const t0 = performance.now();
  try {
    const induction = task === 'induction';
    const { phaseChangeEvery: every, phaseChangeScore } = mha.catalog;
    while (performance.now() - t0 < STEP_MS && trainer.stepsDone < steps) {
      const done = trainer.stepsDone;
      losses.push(...trainer.step(Math.min(CHUNK, steps - done, every - (done % every))));
      const at = trainer.stepsDone;
      if (induction && phaseStep === null && at % every === 0 && trainer.inductionScore(1) >= phaseChangeScore) phaseStep = at;
    }
    if (trainer.stepsDone >= steps) running = false;
  } catch (e) {
    running = false;
    post({ train: 'error', message: String((e && e.message) || e) });
    return;
  }
  busySeconds += (performance.now() - t0) / 1000;
  stepsTimed = trainer.stepsDone;
  report(mha, post);
  if (running) setTimeout(() => loop(mha, post), 0);
}

export function trainingMessage(mha, msg, post) {
  try {
    if (msg.probe) probe = msg.probe;
    if (msg.steps) steps = msg.steps;
    if (msg.train === 'reset' || (msg.train === 'start' && !trainer)) {
      if (trainer) trainer.delete();
      if (msg.text) text = msg.text;
      task = (msg.options && msg.options.task) || 'induction';
      trainer = new mha.Trainer(msg.options || {}, task === 'corpus' ? text : undefined);
      phaseStep = null;
      losses = [];
      sent = 0;
      busySeconds = 0;
      stepsTimed = 0;
      heldoutStep = -1;
      if (msg.train === 'start') {
        running = true;
        report(mha, post); // step 0: the heads before any training, the slider's first place
        running = false;
      }
    }
    if (msg.train === 'start' && !running) {
      running = true;
      loop(mha, post);
    } else if (msg.train === 'pause') {
      running = false;
      report(mha, post);
    } else if (msg.train === 'reset') {
      running = false;
      report(mha, post);
    } else if (msg.train === 'probe' && trainer && !running) {
      report(mha, post);
    } else if (msg.train === 'file' && trainer) {
      const bytes = trainer.modelFile();
      post({ train: 'file', bytes }, [bytes.buffer]);
    }
  } catch (e) {
    running = false;
    post({ train: 'error', message: String((e && e.message) || e) });
  }
}
