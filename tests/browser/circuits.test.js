// The circuits view at the attend stage (web/src/views/stages/circuits.js, the part mha-circuits.js):
// on the induction model as the page holds it (its F16 copy), every number is the CLI's (`mha circuits
// --json`, `mha patch --json`), the captions say what those numbers show — the previous-token head
// into the induction heads as the strongest K-composition, the induction heads copying, their outputs
// bringing the answer back — in both languages; changing the patched token redraws within a frame;
// a model of real text patches when asked, in a worker, to the CLI's numbers, in the learner's
// language; a model of one layer says composition needs two; a model without blocks has no such view.
// Timed (timedTest): a patched token drawn within a frame's 16 ms; the main thread's longest task while the Worker patches.
'use strict';

const { before, after, beforeEach } = require('node:test');
const { test, timedTest } = require('./lanes.js');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { usePageSuite, openPage } = require('./browser.js');
const { trainedModels, shippedModelBytes } = require('../../scripts/web-parts.js');

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'build', 'native', 'mha');
const TEST_TIMEOUT = 120_000;
const WAIT = 30_000;

let server;
let page;
let tmp;
let pageModel; // the page's induction model as a file, for the CLI
const suite = usePageSuite({ files: ['web/index.html', 'web/build/mha-demo.js', 'web/build/mha-circuits.js'], wait: WAIT });
before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mha-circuits-'));
  pageModel = path.join(tmp, 'page-model.safetensors');
  fs.writeFileSync(pageModel, await shippedModelBytes(trainedModels()[0]));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
beforeEach(() => {
  ({ server, page } = suite);
});

const cli = (args) => JSON.parse(execFileSync(CLI, [...args, '--json'], { encoding: 'utf8' }));
const open = (url) => openPage(page, url, WAIT);

// The view as drawn: its tables' cells by data-circ section, its captions, the ids and the pick.
const shown = () => page.evaluate(() => {
  const demo = document.querySelector('mha-demo');
  const panel = demo.shadowRoot.querySelector('section[data-stage="attend"]');
  if (!panel.querySelector('.circuits')) return null;
  const text = (sel) => panel.querySelector(`.circuits ${sel}`)?.textContent || null;
  const tables = [...panel.querySelectorAll('.circuits table')].map((tb) => [...tb.querySelectorAll('tr')].slice(1).map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
  return {
    ids: Array.from(demo.state.result.ids),
    composition: text('[data-circ="composition"]'),
    copying: text('[data-circ="copying"]'),
    heads: text('[data-circ="heads"]'),
    residual: text('[data-circ="residual"]'),
    metric: text('[data-circ="metric"]'),
    qk: text('[data-circ="qk"]'),
    qkToken: text('[data-circ="qk-token"]'),
    scale: text('[data-circ="composition-scale"]'),
    ov: text('[data-circ="ov"]'),
    error: text('[data-circ="patch-error"]'),
    run: text('[data-circ="run"]'),
    position: Number(panel.querySelector('.circuits [data-circ-position][aria-pressed="true"]')?.dataset.circPosition),
    replacement: Number(panel.querySelector('.circuits [data-circ-replacement]')?.value),
    tables,
  };
});
const waitForView = () => page.waitForFunction(() => document.querySelector('mha-demo').shadowRoot.querySelector('section[data-stage="attend"] .circuits'), null, { timeout: WAIT });
const percent = (v) => `${Math.round(v * 100)}%`;

for (const lang of ['en', 'zh']) {
  test(`the induction model in ${lang}: composition, copying and patching are the CLI's, and the captions say the circuit`, { timeout: TEST_TIMEOUT }, async () => {
    await open(`${server.url}?model=trained&stage=attend&lang=${lang}`);
    await waitForView();
    await page.evaluate(() => document.querySelector('mha-demo').shadowRoot.querySelector('.circuits').scrollIntoView());
    await page.waitForFunction(() => document.querySelector('mha-demo').shadowRoot.querySelector('.circuits [data-circ="heads"]'), null, { timeout: WAIT });
    const view = await shown();

    // Composition (K, shown first): the CLI's scores, and its largest is layer 0's previous-token
    // head (0.2, the heads table's) into an induction head, above every Q and V score.
    const scores = cli(['circuits', '--model', pageModel]);
    const K = scores.composition.filter((c) => c.mode === 'K');
    const top = K.reduce((a, b) => (b.score > a.score ? b : a));
    const others = Math.max(...scores.composition.filter((c) => c.mode !== 'K').map((c) => c.score));
    assert.deepEqual(top.from, [0, 2], JSON.stringify(top));
    assert.equal(top.to[0], 1);
    assert.ok(top.score > others, `${top.score} > ${others}`);
    const [composition, copying, qkTable, qkTokenTable, , headsTable, residualTable] = view.tables;
    for (const c of K) assert.equal(composition[c.from[1]][c.to[1]], c.score.toFixed(2), JSON.stringify(c));
    assert.ok(view.composition.includes(`0.2`) && view.composition.includes(`1.${top.to[1]}`) && view.composition.includes(top.score.toFixed(2)), view.composition);
    assert.ok(view.composition.includes(others.toFixed(2)), `says the other modes' largest: ${view.composition}`);
    assert.ok(view.composition.includes(scores.baseline.K.toFixed(2)), view.composition);
    // The table is coloured against the baseline, which it says, and each cell's title is its multiple.
    const topTitle = await page.evaluate(() => document.querySelector('mha-demo').shadowRoot.querySelector('section[data-stage="attend"] .circuits td.circ-top').title);
    assert.ok(topTitle.includes(`${(top.score / scores.baseline.K).toFixed(1)}`), topTitle);
    assert.ok(view.scale.includes(scores.baseline.K.toFixed(2)), view.scale);

    // Copying: every induction head's score ≥ 0.9, and the caption names exactly those.
    for (const c of scores.copying) assert.equal(copying[c.layer][c.head].replace('−', '-'), `${c.score >= 0 ? '+' : '-'}${Math.abs(c.score).toFixed(2)}`);
    const copiers = scores.copying.filter((c) => c.score >= 0.9).map((c) => `${c.layer}.${c.head}`);
    assert.deepEqual(copiers, ['1.0', '1.1', '1.2', '1.3']);
    assert.ok(view.copying.includes(copiers.join(', ')), view.copying);

    // The head shown in full is the strongest K-composition's writer, the previous-token head: its
    // QK by position is the CLI's, and prefers i − 1 for every query after the first.
    const head = cli(['circuits', '--model', pageModel, '--ids', view.ids.join(','), '--head', '0.2']).head;
    head.qk_positional.forEach((row, i) => row.forEach((v, j) => j <= i && assert.equal(qkTable[i][j], v.toFixed(1), `qk[${i}][${j}]`)));
    const T = view.ids.length;
    assert.ok(view.qk.includes('0.2') && view.qk.includes('i − 1') && view.qk.includes(`${T - 1}`), view.qk);
    // By token: the CLI's table over the text's distinct tokens, and the caption counts the rows whose
    // largest key is their own token.
    head.qk_token.forEach((row, q) => row.forEach((v, k) => assert.equal(qkTokenTable[q][k], v.toFixed(1), `qk_token[${q}][${k}]`)));
    const same = head.qk_token.filter((row, q) => row.indexOf(Math.max(...row)) === q).length;
    assert.ok(view.qkToken.includes('0.2') && view.qkToken.includes(`${same}`) && view.qkToken.includes(`${head.tokens.length}`), view.qkToken);
    assert.ok(view.ov.includes('0.2'), view.ov);

    // Patching the view's default change (the token after the earlier copy of the last one): the
    // CLI's recoveries, and layer 1's heads bring the answer back together.
    const corrupt = view.ids.slice();
    corrupt[view.position] = view.replacement;
    assert.equal(view.position, view.ids.indexOf(view.ids[view.ids.length - 1]) + 1, 'the token after the earlier copy');
    const patched = cli(['patch', '--model', pageModel, '--clean-ids', view.ids.join(','), '--corrupt-ids', corrupt.join(',')]);
    for (const x of patched.heads) assert.equal(headsTable[x.layer][x.head], percent(x.recovery), JSON.stringify(x));
    for (const x of patched.residual) assert.equal(residualTable[x.layer][x.position], percent(x.recovery), JSON.stringify(x));
    const layer1 = patched.heads.filter((x) => x.layer === 1).reduce((s, x) => s + x.recovery, 0);
    assert.ok(layer1 >= 0.9, `layer 1's heads bring back ${layer1}`);
    assert.ok(view.heads.includes(percent(layer1)), view.heads);
    assert.ok(view.metric.includes(patched.m_clean.toFixed(2)) && view.metric.includes(Math.abs(patched.m_corrupt).toFixed(2)), view.metric);
    if (lang === 'zh') assert.match(view.heads, /头.*带回/);
    suite.assertNoProblems();
  });
}

timedTest('the induction model: Q and V one click away; another token patched is drawn with at most the 16 ms of a frame of main-thread work', { timeout: TEST_TIMEOUT }, async () => {
  await open(`${server.url}?model=trained&stage=attend`);
  await waitForView();
  await page.evaluate(() => document.querySelector('mha-demo').shadowRoot.querySelector('.circuits').scrollIntoView());
  await page.waitForFunction(() => document.querySelector('mha-demo').shadowRoot.querySelector('.circuits [data-circ="heads"]'), null, { timeout: WAIT });
  const scores = cli(['circuits', '--model', pageModel]);
  for (const mode of ['Q', 'V']) {
    await page.locator(`[data-circ-mode="${mode}"]`).click();
    await page.waitForFunction((m) => document.querySelector('mha-demo').shadowRoot.querySelector(`[data-circ-mode="${m}"]`).getAttribute('aria-pressed') === 'true', mode);
    const view = await shown();
    const top = scores.composition.filter((c) => c.mode === mode).reduce((a, b) => (b.score > a.score ? b : a));
    assert.ok(view.composition.includes(`${mode}-`) && view.composition.includes(top.score.toFixed(2)), view.composition);
  }

  // Each click on a token: the patches run and the view is drawn again within the click (the page's
  // 16 ms budget for a frame, the median of ten). Timed after a round of every token: V8 compiles a
  // WebAssembly function to optimised code only once it is hot, in the background, and the first
  // clicks ran 15–40 ms in CI while it did (the steady ones 7–12). What is timed is the main thread's
  // work for the click, its CPU time (the trace's click dispatches): its wall time also holds the
  // waits for a core on this 2-core machine, where the compositor, V8's compiler threads and other
  // processes run beside it — 6.5–16.8 ms of wall for 6.5–8.9 ms of work in one run, and a median of
  // 18 ms of wall failed a CI run in which every timed test ran 10–15 % slow. Both are printed.
  await suite.browser.startTracing(page, { categories: ['devtools.timeline'] });
  // (stopped however the clicks end: a trace left running would weigh on the file's next timed test)
  const clicked = page.evaluate(async () => {
    const root = document.querySelector('mha-demo').shadowRoot;
    const out = [];
    for (const position of [6, 1, 2, 3, 4, 6, 1, 2, 3, 4, 6, 1, 2, 3, 4]) {
      const started = performance.now();
      root.querySelector(`.circuits [data-circ-position="${position}"]`).click();
      const pressed = root.querySelector('.circuits [data-circ-position][aria-pressed="true"]');
      const drawn = Boolean(root.querySelector('.circuits [data-circ="heads"], .circuits [data-circ="patch-error"]'));
      out.push({ ms: performance.now() - started, position: Number(pressed.dataset.circPosition), wanted: position, drawn });
      await new Promise(requestAnimationFrame);
    }
    return out;
  });
  const stopped = clicked.catch(() => {}).then(() => suite.browser.stopTracing());
  const times = await clicked;
  const trace = JSON.parse((await stopped).toString()).traceEvents;
  for (const x of times) assert.ok(x.drawn && x.position === x.wanted, JSON.stringify(x));
  const work = trace.filter((e) => e.name === 'EventDispatch' && e.args?.data?.type === 'click').sort((a, b) => a.ts - b.ts).map((e) => e.tdur / 1000);
  assert.equal(work.length, times.length, 'a dispatch in the trace for each click');
  const median = (ms) => {
    const sorted = ms.slice(5).sort((a, b) => a - b);
    return (sorted[4] + sorted[5]) / 2;
  };
  const wall = times.map((x) => x.ms);
  console.log(`# a token patched and drawn, the main thread's work: ${work.map((ms) => ms.toFixed(1)).join(', ')} ms (the last ten's median ${median(work).toFixed(1)}); wall: ${wall.map((ms) => ms.toFixed(1)).join(', ')} ms (median ${median(wall).toFixed(1)})`);
  assert.ok(median(work) <= 16, `median ${median(work)} ms of work`);
  suite.assertNoProblems();
});

timedTest('a model of real text patches when asked, off the main thread, to the CLI\'s numbers, in the learner\'s language; random weights have no circuits view', { timeout: TEST_TIMEOUT }, async () => {
  const tang = path.join(tmp, 'tang-page.safetensors');
  fs.writeFileSync(tang, await shippedModelBytes(trainedModels().find((m) => m.id === 'tang')));
  await open(`${server.url}?model=tang&stage=attend&lang=zh`);
  await waitForView();
  await page.evaluate(() => document.querySelector('mha-demo').shadowRoot.querySelector('.circuits').scrollIntoView());
  await page.waitForFunction(() => document.querySelector('mha-demo').shadowRoot.querySelector('.circuits [data-circ="run"]'), null, { timeout: WAIT });
  // The scores come from the analyses worker (0.5 s the first picture does not wait for): the CLI's.
  await page.waitForFunction(() => document.querySelector('mha-demo').shadowRoot.querySelector('.circuits [data-circ="composition"]'), null, { timeout: WAIT });
  let view = await shown();
  assert.match(view.run, /修补：运行模型 \d+ 次/);
  assert.equal(view.tables[0].length, 12, 'layers 0–2 write into later layers: 12 heads');
  const scores = cli(['circuits', '--model', tang]);
  const firstLater = (c) => c.to[0] * 4 + c.to[1] - 4; // columns: the heads of layers 1–3
  for (const c of scores.composition.filter((x) => x.mode === 'K')) assert.equal(view.tables[0][c.from[0] * 4 + c.from[1]][firstLater(c)], c.score.toFixed(2), JSON.stringify(c));
  // The head's tables read the whole vocabulary: asked for here, then the strongest writer's.
  assert.equal(view.qk, null);
  // Pressed from the keyboard: the button gives way to its tables, and the focus to their heading.
  const focusedText = () => page.evaluate(() => {
    const a = document.querySelector('mha-demo').shadowRoot.activeElement;
    return a ? `${a.tagName} ${a.textContent}` : null;
  });
  await page.locator('[data-circ="head-run"]').focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('mha-demo').shadowRoot.querySelector('.circuits [data-circ="qk"]'), null, { timeout: WAIT });
  assert.match(await focusedText(), /^H4 头 \d\.\d/, 'the focus is on the head\'s heading');
  view = await shown();
  assert.match(view.qk, /^只看位置，头 \d\.\d /);
  assert.match(view.qkToken, /^只看 token（词嵌入经过 W_QK，不看位置；行：查询，列：键），文本的 \d+ 个 token 中有 \d+ 个让头 \d\.\d 最偏好/);
  // Each change patched in the page's worker, asked for: it says so while it runs, the main thread
  // never stops for long (a second and a half when it ran there), and the numbers are the CLI's on
  // the page's copy of the model. The default change first (on a poem that ends a line, the next
  // token stays "\n": the wrong token is then the one the change raised most), then the token
  // before the last.
  await page.evaluate(() => {
    window.longestTask = 0;
    new PerformanceObserver((list) => list.getEntries().forEach((e) => (window.longestTask = Math.max(window.longestTask, e.duration)))).observe({ type: 'longtask' });
  });
  const T = view.ids.length;
  for (const pick of [null, T - 2]) {
    if (pick !== null) await page.locator(`[data-circ-position="${pick}"]`).click();
    await page.locator('[data-circ="run"]').focus();
    await page.keyboard.press('Enter');
    const said = await page.waitForFunction(() => document.querySelector('mha-demo').shadowRoot.querySelector('.circuits [data-circ="patching"], .circuits [data-circ="heads"], .circuits [data-circ="patch-error"]')?.textContent, null, { timeout: WAIT });
    assert.match(await said.jsonValue(), /正在修补：在后台运行模型 \d+ 次/);
    await page.waitForFunction(() => document.querySelector('mha-demo').shadowRoot.querySelector('.circuits [data-circ="heads"], .circuits [data-circ="patch-error"]'), null, { timeout: WAIT });
    view = await shown();
    assert.equal(view.error, null);
    if (pick !== null) assert.equal(view.position, pick);
    const corrupt = view.ids.slice();
    corrupt[view.position] = view.replacement;
    const patched = cli(['patch', '--model', tang, '--clean-ids', view.ids.join(','), '--corrupt-ids', corrupt.join(',')]);
    const [, , , , , headsTable, residualTable] = view.tables;
    for (const x of patched.heads) assert.equal(headsTable[x.layer][x.head], percent(x.recovery), JSON.stringify(x));
    for (const x of patched.residual) assert.equal(residualTable[x.layer][x.position], percent(x.recovery), JSON.stringify(x));
    assert.ok(view.heads.includes('头'), view.heads);
    assert.equal((await focusedText()).split(' ')[0], 'H4', 'the focus is on the patching\'s heading');
  }
  const longest = await page.evaluate(() => window.longestTask);
  console.log(`# the Tang model patched in the worker twice: longest main-thread task ${longest.toFixed(0)} ms`);
  assert.ok(longest < 500, `the main thread stopped ${longest} ms`);

  await open(`${server.url}?model=random&stage=attend`);
  assert.equal(await shown(), null);
  suite.assertNoProblems();
});

test('a model of one layer of blocks: composition says it needs two layers, in the learner\'s language, and the patching still runs', { timeout: TEST_TIMEOUT }, async () => {
  const mha = await require('../../web/mha.js')();
  const model = new mha.Model({ model: 'attn-only', layers: 1, dModel: 16, heads: 2, vocabSize: 32, maxPositions: 16, seed: 3 });
  const bytes = Array.from(model.modelFile());
  for (const [lang, words] of [['en', /at least 2 layers/], ['zh', /至少 2 层/]]) {
    await open(`${server.url}?model=random&lang=${lang}`);
    await page.evaluate((b) => document.querySelector('mha-demo').openFile(new File([new Uint8Array(b)], 'one-layer.safetensors')), bytes);
    await page.evaluate(() => window.mhaPage.goTo('attend'));
    await waitForView();
    await page.evaluate(() => document.querySelector('mha-demo').shadowRoot.querySelector('.circuits').scrollIntoView());
    await page.waitForFunction(() => document.querySelector('mha-demo').shadowRoot.querySelector('.circuits [data-circ="scores-error"]'), null, { timeout: WAIT });
    const said = await page.evaluate(() => document.querySelector('mha-demo').shadowRoot.querySelector('.circuits [data-circ="scores-error"]').textContent);
    assert.match(said, words);
    await page.waitForFunction(() => document.querySelector('mha-demo').shadowRoot.querySelector('.circuits [data-circ="heads"], .circuits [data-circ="patch-error"]'), null, { timeout: WAIT });
  }
  suite.assertNoProblems();
});

