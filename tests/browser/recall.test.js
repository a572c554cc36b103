// The recall model and "Why several heads?": the model menu's recall model, its heads named by how
// far back they look (one head per offset), its K readouts per position; the panel's shipped sweep
// (models/recall-sweep.csv) with equal parameter counts, the Tang poems' (models/tang-sweep.csv) beside
// it, and the sweep run in the page, whose
// accuracies are the CLI's to the last digit and whose map captions say what was measured; Cancel;
// Train it yourself on the recall task: the slider keeps step 0, Use this model shows what it trained.
// Timings are not asserted here: npm run bench:sweep prints them.
'use strict';

const { test, beforeEach } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const { usePageSuite, importanceShown, scrubTraining, trainingSnapshots } = require('./browser.js');

const ROOT = path.join(__dirname, '..', '..');
const SHOTS = path.join(ROOT, 'test-results', 'screenshots');
const WAIT = 15_000;
const SHIPPED = fs.readFileSync(path.join(ROOT, 'models', 'recall-sweep.csv'), 'utf8').trim().split('\n').slice(1)
  .map((line) => line.split(',').map(Number)).map(([heads, dHead, parameters, loss, accuracy, ...perReadout]) => ({ heads, dHead, parameters, loss, accuracy, perReadout }));

// models/tang-sweep.csv: heads, d_head, parameters, seed, heldout_loss, heldout_accuracy; a row per seed.
const TANG = fs.readFileSync(path.join(ROOT, 'models', 'tang-sweep.csv'), 'utf8').trim().split('\n').slice(1)
  .map((line) => line.split(',').map(Number)).map(([heads, dHead, parameters, seed, loss]) => ({ heads, dHead, parameters, seed, loss }));

let server;
let page;
const suite = usePageSuite({
  files: ['web/index.html', 'web/build/app.js', 'web/build/mha-demo.js', 'web/build/mha-recall.js'],
  wait: WAIT,
});
beforeEach(() => {
  ({ server, page } = suite);
});

async function open(url) {
  await page.goto(url);
  await page.waitForFunction(() => window.mhaPage && window.mhaPage.ready, null, { timeout: WAIT });
  await page.evaluate(async () => {
    await window.mhaPage.ready;
  });
}

const inDemo = (fn, arg) => page.evaluate(fn, arg);

test('the recall model: one head per offset, named so at the attend stage, K readouts per position, logits (1, T, K, V)', { timeout: 60_000 }, async () => {
  await open(`${server.url}?model=recall`);
  const s = await inDemo(() => {
    const demo = document.querySelector('mha-demo');
    const root = demo.shadowRoot;
    const { result } = demo.state;
    return {
      stage: demo.state.stage,
      config: result.config,
      logits: result.tensors.logits.shape,
      offsets: result.heads.layers[0].heads.map((m) => [m.offset, m.offset_weight]),
      labels: [...root.querySelectorAll('section[data-stage="attend"] .heads-table .head-label')].map((el) => el.textContent),
      sweepShown: !root.querySelector('.sweep-root').hidden,
      trainShown: !root.querySelector('.train-root').hidden,
      recipe: root.querySelector('#train-recipe').value,
    };
  });
  assert.equal(s.stage, 'attend');
  assert.equal(s.config.readouts, 4);
  assert.equal(s.config.heads, 4);
  assert.deepEqual(s.logits, [1, 12, 4, 64]); // <s> and the 11 characters of 我是秦始皇，我是秦始皇
  // Each head looks at its own offset, 1 … 4, and the panel names it by it.
  assert.deepEqual(s.offsets.map(([d]) => d).sort(), [1, 2, 3, 4]);
  for (const [d, w] of s.offsets) assert.ok(w >= 0.7, `the head at i − ${d} puts ${w} there`);
  assert.deepEqual(s.labels, s.offsets.map(([d, w]) => `i − ${d} (${w.toFixed(2)})`));
  assert.ok(s.sweepShown && s.trainShown);
  assert.equal(s.recipe, 'recall', 'Train it yourself offers the model shown');
  // It predicts its sentence's second half surely, so the loss and every head's importance there are
  // about zero (gradients of a loss near zero): the panel says why rather than leave the zeros unexplained.
  await importanceShown(page, WAIT);
  const zero = await inDemo(() => {
    const panel = document.querySelector('mha-demo').shadowRoot.querySelector('section[data-stage="attend"] .heads-panel');
    return { importance: [...panel.querySelectorAll('td[data-metric="importance"] .metric-value')].map((e) => e.textContent), hint: !panel.querySelector('.importance-zero').hidden };
  });
  assert.ok(zero.importance.length === 4 && zero.importance.every((v) => Number(v) <= 0.001), `importance ${zero.importance.join(', ')}`);
  assert.ok(zero.hint, 'the panel says why every importance is about zero');

  // The predict stage: K readouts per position, each first choice right at every position i ≥ K.
  await inDemo(() => document.querySelector('mha-demo').goTo('predict'));
  await page.waitForFunction(() => document.querySelector('mha-demo').shadowRoot.querySelector('section[data-stage="predict"] .recall-table'), null, { timeout: WAIT });
  const table = await inDemo(() => {
    const root = document.querySelector('mha-demo').shadowRoot;
    const rows = [...root.querySelectorAll('section[data-stage="predict"] .recall-table tbody tr')];
    return rows.map((tr) => [...tr.querySelectorAll('td.readout')].map((td) => td.classList.contains('right')));
  });
  assert.equal(table.length, 12);
  for (const row of table) assert.equal(row.length, 4);
  for (let i = 4; i < 12; i++) assert.deepEqual(table[i], [true, true, true, true], `position ${i}`);
  await page.locator('mha-demo').evaluate((d) => d.shadowRoot.querySelector('section[data-stage="predict"]').scrollIntoView());
  await page.screenshot({ path: path.join(SHOTS, 'recall-predict.png') });
  suite.assertNoProblems();
});

test('Why several heads: the shipped sweep, then 1, 4 and 64 heads trained in the page give the CLI\'s accuracies, maps and captions (the one head\'s says what its map does), "Training 1 head" while it runs; Cancel', { timeout: 240_000 }, async () => {
  await open(`${server.url}?model=recall&lang=en`);
  const shipped = await inDemo(() => {
    const root = document.querySelector('mha-demo').shadowRoot;
    const panel = root.querySelector('[data-sweep-panel]');
    return {
      intro: panel.querySelector('p').textContent,
      rows: [...panel.querySelectorAll('.sweep-table tbody tr')].map((tr) => [Number(tr.dataset.heads), ...[...tr.children].slice(1).map((td) => td.textContent)]),
      points: [...panel.querySelectorAll('.sweep-plot .shipped circle')].map((c) => Number(c.dataset.heads)),
      tang: panel.querySelector('[data-sweep-tang]').textContent,
    };
  });
  // Every shipped model has the same parameters, and the page says how many.
  assert.ok(SHIPPED.every((r) => r.parameters === SHIPPED[0].parameters));
  assert.match(shipped.intro, new RegExp(`same ${SHIPPED[0].parameters.toLocaleString('en-US')} parameters`));
  assert.deepEqual(shipped.points, SHIPPED.map((r) => r.heads));
  for (const r of SHIPPED) {
    const row = shipped.rows.find((x) => x[0] === r.heads);
    assert.equal(row[1], String(r.dHead));
    assert.equal(row[2], r.accuracy.toFixed(2), `${r.heads} heads`);
  }
  // Table 3 row (A) of Vaswani et al. beside ours.
  assert.equal(shipped.rows.find((x) => x[0] === 1)[5], '24.9 (d_k 512)');
  assert.equal(shipped.rows.find((x) => x[0] === 32)[5], '25.4 (d_k 16)');
  // And the same experiment on the Tang poems: each head count's held-out loss, the mean of its seeds,
  // at one parameter count, and the sentence under the table quotes the best and both ends.
  const tangHeads = [...new Set(TANG.map((r) => r.heads))];
  const seeds = new Set(TANG.map((r) => r.seed)).size;
  assert.ok(seeds >= 2 && TANG.every((r) => r.parameters === TANG[0].parameters && r.heads * r.dHead === TANG[0].heads * TANG[0].dHead));
  const mean = (hd) => TANG.filter((r) => r.heads === hd).reduce((a, r) => a + r.loss, 0) / seeds;
  for (const hd of tangHeads) assert.equal(shipped.rows.find((x) => x[0] === hd)[4], mean(hd).toFixed(3), `Tang, ${hd} heads`);
  const tangBest = tangHeads.reduce((a, b) => (mean(b) < mean(a) ? b : a));
  assert.equal(shipped.tang, `On real text: the Tang poems model at d_model ${TANG[0].heads * TANG[0].dHead} (${TANG[0].parameters.toLocaleString('en-US')} parameters at every head count), ` +
    `its loss on held-out poems in nats a character, the mean of ${seeds} seeds; lower is better. ${mean(1).toFixed(3)} with one head, ${mean(tangBest).toFixed(3)} at ${tangBest} heads, the best; ` +
    `${mean(tangHeads.at(-1)).toFixed(3)} at ${tangHeads.at(-1)}.`);

  // Run it: the same recipe and seed as models/recall-sweep.csv, so the same accuracies to the digit.
  const run = await inDemo(async () => {
    const demo = document.querySelector('mha-demo');
    const progress = [];
    const ends = [];
    const root = demo.shadowRoot;
    const status = root.querySelector('[data-sweep-panel] [role="status"]');
    const said = new Set();
    demo.addEventListener('sweepprogress', (e) => {
      progress.push(e.detail);
      said.add(status.textContent.replace(/step \d+/, 'step N'));
    });
    demo.addEventListener('sweepend', (e) => ends.push(e.detail));
    const rows = await demo.runHeadSweep({ heads: [1, 4, 64] });
    // Read through a canvas of our own, made for reading (the page's are not).
    const reader = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
    const pixelsOf = (c) => {
      reader.canvas.width = c.width;
      reader.canvas.height = c.height;
      reader.drawImage(c, 0, 0);
      return reader.getImageData(0, 0, c.width, c.height).data;
    };
    const figures = [...root.querySelectorAll('.sweep-model')].map((f) => ({
      heads: Number(f.dataset.sweepHeads),
      caption: f.querySelector('[data-caption]').textContent,
      maps: [...f.querySelectorAll('canvas')].map((c) => {
        const data = pixelsOf(c);
        const colours = new Set();
        for (let i = 0; i < data.length; i += 4) colours.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
        return { width: c.width, colours: colours.size };
      }),
    }));
    return { rows, progress: progress.length, progressKeys: Object.keys(progress[0] || {}), ends, figures, said: [...said], status: status.textContent, trick: root.querySelector('[data-sweep-panel] > .hint:last-child').textContent };
  });
  assert.deepEqual(run.rows.map((r) => r.heads), [1, 4, 64]);
  for (const r of run.rows) {
    const want = SHIPPED.find((x) => x.heads === r.heads);
    assert.equal(r.accuracy.toFixed(4), want.accuracy.toFixed(4), `${r.heads} heads: mean accuracy`);
    assert.deepEqual(r.perReadout.map((a) => a.toFixed(4)), want.perReadout.map((a) => a.toFixed(4)), `${r.heads} heads: per readout`);
    assert.equal(r.parameters, want.parameters);
    assert.equal(r.dHead, want.dHead);
  }
  assert.ok(run.progress >= 3, 'sweepprogress events while it trains');
  assert.deepEqual(run.progressKeys.sort(), ['heads', 'index', 'step', 'steps', 'total']);
  assert.equal(run.ends.length, 1);
  assert.equal(run.ends[0].reason, 'done');
  assert.match(run.status, /same bits as the table/);
  assert.ok(run.said.some((x) => /^Training 1 head: step N of \d+/.test(x)), run.said.join(' | '));
  // One map per head, each drawn (more than the mask's two colours); captions give what was measured.
  assert.deepEqual(run.figures.map((f) => [f.heads, f.maps.length]), [[1, 1], [4, 4], [64, 64]]);
  for (const f of run.figures) for (const m of f.maps) assert.ok(m.width === 12 && m.colours > 2, `${f.heads} heads: a map is blank`);
  const [one, four, many] = run.rows;
  for (const [k, w] of one.stripe[0].entries()) assert.ok(run.figures[0].caption.includes(`i − ${k + 1}: ${w.toFixed(2)} → ${one.perReadout[k].toFixed(2)}`), run.figures[0].caption);
  // The one-head caption says what its map does, from its weights; the paragraph under the maps
  // claims nothing of the map.
  const [hi, lo] = [Math.max(...one.stripe[0]), Math.min(...one.stripe[0])];
  if (hi - lo < 0.05) assert.ok(run.figures[0].caption.includes(`Its weights are nearly even (${lo.toFixed(2)} to ${hi.toFixed(2)})`), run.figures[0].caption);
  else assert.match(run.figures[0].caption, new RegExp(`It favours i − ${one.stripe[0].indexOf(hi) + 1} \\(${hi.toFixed(2)}`));
  assert.doesNotMatch(run.trick, /All a single head can do/);
  // The one-head trick the text explains: the offset it weighs most is the one its readout gets
  // right most often, the one it weighs least the one it gets right least.
  const order = (xs) => [xs.indexOf(Math.max(...xs)), xs.indexOf(Math.min(...xs))];
  assert.deepEqual(order(one.stripe[0]), order(one.perReadout), `weights ${one.stripe[0]} vs accuracy ${one.perReadout}`);
  const best = four.stripe.map((s) => s.indexOf(Math.max(...s)));
  assert.deepEqual([...best].sort(), [0, 1, 2, 3], 'four heads, four offsets');
  for (const [hd, k] of best.entries()) assert.ok(run.figures[1].caption.includes(`h${hd} → i − ${k + 1} (${four.stripe[hd][k].toFixed(2)})`), run.figures[1].caption);
  const strong = many.stripe.filter((s) => Math.max(...s) >= 0.5).length;
  assert.match(run.figures[2].caption, new RegExp(`^64 heads of width 1: ${strong} of them`));
  assert.ok(four.accuracy - many.accuracy >= 0.02 && one.accuracy <= 0.6 && four.accuracy >= 0.98);
  await page.locator('mha-demo').evaluate((d) => d.shadowRoot.querySelector('[data-sweep-panel]').scrollIntoView());
  await page.screenshot({ path: path.join(SHOTS, 'sweep-panel.png'), fullPage: false });

  // Cancel: the promise rejects with an AbortError and sweepend says so.
  const cancelled = await inDemo(async () => {
    const demo = document.querySelector('mha-demo');
    const ended = new Promise((resolve) => demo.addEventListener('sweepend', (e) => resolve(e.detail), { once: true }));
    demo.addEventListener('sweepprogress', () => demo.cancelHeadSweep(), { once: true });
    const error = await demo.runHeadSweep({ heads: [64] }).then(() => null, (e) => e.name);
    return { error, end: await ended };
  });
  assert.deepEqual([cancelled.error, cancelled.end.reason], ['AbortError', 'cancelled']);
  const bad = await inDemo(() => document.querySelector('mha-demo').runHeadSweep({ heads: [3] }).then(() => null, (e) => e.message));
  assert.match(bad, /dividing d_model 64/);
  // A misspelt option is refused, not swept past with the default head counts.
  const misspelt = await inDemo(() => document.querySelector('mha-demo').runHeadSweep({ head: [1] }).then(() => null, (e) => e.message));
  assert.match(misspelt, /^head is not an option of runHeadSweep; its options are heads, steps, seed$/);
  suite.assertNoProblems();
});

// How the recall model formed (models/recall.history.json, scripts/history.js): before anything trains,
// the panel scrubs through npm run train's record, each head named as the record names it, to the
// shipped model's one head per offset.
test('how the recall model formed: npm run train\'s record, scrubbed before anything trains, each head as the record names it', { timeout: 60_000 }, async () => {
  const history = JSON.parse(fs.readFileSync(path.join(ROOT, 'models', 'recall.history.json'), 'utf8'));
  await open(`${server.url}?model=recall`);
  await trainingSnapshots(page, history.snapshots.length, WAIT);
  const at = (index) => scrubTraining(page, index).then(() => inDemo(() => {
    const root = document.querySelector('mha-demo').shadowRoot;
    return {
      labels: [...root.querySelectorAll('[data-train-head^="0."] .head-label')].map((x) => x.className.replace(/.*label-/, '')),
      at: root.querySelector('.train-scrub-field').textContent,
      readout: root.querySelector('.train-readout').textContent,
    };
  }));
  const last = history.snapshots.length - 1;
  const first = await at(0);
  const end = await at(last);
  const labels = (snapshot) => snapshot.heads.layers[0].heads.map((m) => m.label);
  assert.deepEqual(first.labels, labels(history.snapshots[0]));
  assert.deepEqual(end.labels, labels(history.snapshots[last]));
  assert.notDeepEqual(first.labels, end.labels, 'the heads change over the record');
  assert.deepEqual(history.snapshots[last].heads.layers[0].heads.map((m) => m.offset).sort(), [1, 2, 3, 4], 'it ends on one head per offset');
  assert.ok(end.at.includes(String(history.snapshots[last].step)), end.at);
  assert.ok(end.readout.includes(`(${history.losses.length} steps)`) && !end.readout.includes('null'), end.readout);
  assert.equal((await inDemo(() => document.querySelector('mha-demo').training)).step, 0, 'nothing trained here yet');
  suite.assertNoProblems();
});

test('Train it yourself on the recall task: step 0 kept for the slider, the loss floor marked, Use this model shows it', { timeout: 120_000 }, async () => {
  await open(`${server.url}?model=recall`);
  await inDemo(() => {
    const demo = document.querySelector('mha-demo');
    window.__progress = [];
    window.__ends = [];
    demo.addEventListener('trainprogress', (e) => window.__progress.push(e.detail));
    demo.addEventListener('trainend', (e) => window.__ends.push(e.detail));
    demo.train();
  });
  await page.waitForFunction(() => window.__progress.some((p) => p.step >= 150), null, { timeout: 60_000 });
  await inDemo(() => document.querySelector('mha-demo').pause());
  await page.waitForFunction(() => window.__ends.length === 1, null, { timeout: WAIT });
  const training = await inDemo(() => {
    const demo = document.querySelector('mha-demo');
    const root = demo.shadowRoot;
    return {
      state: demo.training,
      first: window.__progress[0],
      last: window.__progress[window.__progress.length - 1],
      floor: root.querySelector('.loss-curve .floor-text').textContent,
      ticks: [...root.querySelectorAll('.loss-curve .axes text')].map((x) => x.textContent),
    };
  });
  assert.equal(training.state.task, 'recall');
  assert.equal(training.first.step, 0, 'the heads before any training are reported');
  assert.equal(training.state.snapshots[0], 0);
  assert.ok(training.state.snapshots.length >= 3, JSON.stringify(training.state.snapshots));
  assert.ok(training.last.heads.every((h) => h.offset >= 1), 'each recall head reported with its offset');
  assert.ok(training.last.accuracy !== null && training.last.induction === 0);
  assert.equal(training.floor, 'floor 0.00');
  assert.ok(training.ticks.includes('2000') && training.ticks.includes('step') && training.ticks.includes('loss'), training.ticks.join(' '));
  // The slider at step 0 draws the heads as they were: other pixels than the latest maps.
  const pixels = () => inDemo(() => [...document.querySelector('mha-demo').shadowRoot.querySelectorAll('.train-panel .train-map')].map((c) => c.toDataURL()).join('|'));
  const latest = await pixels();
  await scrubTraining(page, 0);
  assert.notEqual(await pixels(), latest);
  assert.equal(await inDemo(() => document.querySelector('mha-demo').shadowRoot.querySelector('.train-scrub-value').textContent), 'step 0');
  // Use this model: what was trained becomes the model shown, its four readouts included.
  await inDemo(() => document.querySelector('mha-demo').shadowRoot.querySelector('[data-train="use"]').click());
  await page.waitForFunction(() => document.querySelector('mha-demo').state.settings.model === 'file' && document.querySelector('mha-demo').state.result.config.readouts === 4, null, { timeout: WAIT });
  const used = await inDemo(() => ({ file: document.querySelector('mha-demo').state.settings.file, panel: !document.querySelector('mha-demo').shadowRoot.querySelector('.train-root').hidden }));
  assert.match(used.file, /^recall-step-\d+\.safetensors$/);
  assert.ok(used.panel, 'the training panel stays, with what it trained');
  suite.assertNoProblems();
});
