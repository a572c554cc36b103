// The head-count sweep, inside its own Web Worker (worker.js hands it every message with a `sweep`
// field): the recall recipe (catalog.recipes.recall) trained once per head count, the same bits as
// `mha sweep` natively, then scored on the same fresh sequences. Cancel is the worker's end
// (terminate), so the loop never yields.
//   in   {sweep: 'start', heads: [1, 4, 64], steps?, seed?, probe: ids}
//   out  {sweep: 'progress', index, heads, step, steps}   about 10 a second
//        {sweep: 'row', index, row: {heads, dHead, parameters, loss, accuracy, perReadout, stripe, seconds},
//         map: {T, ids, weights: Float32Array (heads, T, T)}}   after each head count
//        {sweep: 'end'} | {sweep: 'error', message}
const REPORT_MS = 100;

export function sweepMessage(mha, msg, post) {
  if (msg.sweep !== 'start') return;
  try {
    const steps = msg.steps || mha.catalog.recipes.recall.steps;
    msg.heads.forEach((heads, index) => {
      const options = { task: 'recall', heads }; // the steps are this loop's, not the Trainer's
      if (msg.seed !== undefined) options.seed = msg.seed;
      const trainer = new mha.Trainer(options);
      try {
        const started = performance.now();
        let reported = started;
        while (trainer.stepsDone < steps) {
          trainer.step(Math.min(10, steps - trainer.stepsDone));
          if (performance.now() - reported > REPORT_MS) {
            reported = performance.now();
            post({ sweep: 'progress', index, heads, step: trainer.stepsDone, steps });
          }
        }
        const seconds = (performance.now() - started) / 1000;
        const scores = trainer.recallScores();
        const { dHead, parameters } = trainer.config;
        const row = { heads, dHead, parameters, loss: scores.loss, accuracy: scores.meanAccuracy, perReadout: scores.accuracy, stripe: scores.stripe, seconds };
        const trace = trainer.runIds(msg.probe);
        let weights;
        try {
          weights = trace.data('layers.0.weights');
        } finally {
          trace.delete();
        }
        post({ sweep: 'row', index, row, map: { T: msg.probe.length, ids: msg.probe, weights } }, [weights.buffer]);
      } finally {
        trainer.delete();
      }
    });
    post({ sweep: 'end' });
  } catch (e) {
    post({ sweep: 'error', message: String((e && e.message) || e) });
  }
}
