// Generate at the predict stage, in headless Chromium:
//   - the trained model, greedy, completes a repeat in the text box, each step greedy with the p of
//     its first candidate; the KV cache view has a row per token in every map of every layer and K/V head;
//   - frames keep coming while it generates (the median frame interval within 1/30 s);
//   - a sampled continuation's link draws the same tokens again in a fresh page; an author's generate
//     attribute continues the text, a learner's typing drops the continuation;
//   - a prompt plus N past the model's positions is refused before anything is drawn, in either language;
//   - the calculator gives the published models' cache sizes, MHA beside GQA beside MQA.
//   node --test tests/browser/generate.test.js
// Timed (timedTest): frames keep coming at 30 a second while it generates.
'use strict';

const { beforeEach } = require('node:test');
const { test, timedTest } = require('./lanes.js');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const { execFileSync } = require('node:child_process');

const { usePageSuite, readCanvases } = require('./browser.js');

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'build', 'native', 'mha');
const generated = (args) => JSON.parse(execFileSync(CLI, ['generate', '--model', path.join(ROOT, 'models', 'tang.safetensors'), ...args, '--json'], { encoding: 'utf8' }));

const SHOTS = path.join(__dirname, '..', '..', 'test-results', 'screenshots');
const TEST_TIMEOUT = 120_000;
const WAIT = 20_000;

let server;
let page;
const suite = usePageSuite({ files: ['web/index.html', 'web/build/mha-demo.js', 'web/build/app.js'], wait: WAIT });
beforeEach(() => {
  ({ server, page } = suite);
});

async function open(query) {
  await page.goto(`${server.url}?${query}`);
  await page.waitForFunction(() => window.mhaPage && window.mhaPage.ready, null, { timeout: WAIT });
  await page.evaluate(async () => {
    await window.mhaPage.ready;
  });
}

// The generate part's controls, as a learner uses them: a field typed into, a button clicked.
async function setField(key, value) {
  await page.evaluate(([key, value]) => {
    const input = window.mhaPage.demo.shadowRoot.querySelector(`[data-part="generate"] [data-sampling="${key}"]`);
    input.value = String(value);
    input.dispatchEvent(new Event('change'));
  }, [key, value]);
}
const click = (which) => page.evaluate((which) => window.mhaPage.demo.shadowRoot.querySelector(`[data-generate="${which}"]`).click(), which);
const finished = (steps) =>
  page.waitForFunction((steps) => {
    const g = window.mhaPage.state.generation;
    return g && !g.running && g.steps.length === steps;
  }, steps, { timeout: WAIT });

test('Generate on the trained model writes the rest of the repeat into the text box; the cache has a row per token', { timeout: TEST_TIMEOUT }, async () => {
  await open('model=trained&stage=predict&text=a%20b%20c%20d%20e%20f%20g%20a%20b%20c');
  await setField('tokens', 4);
  await click('n');
  await finished(4);
  const out = await page.evaluate(() => {
    const root = window.mhaPage.demo.shadowRoot;
    const { result, generation } = window.mhaPage.state;
    return {
      box: root.querySelector('#text').value,
      steps: [...root.querySelectorAll('[data-part="generate"] .gen-step')].map((li) => ({
        mode: li.dataset.mode, token: li.querySelector('.gen-token').textContent, chosen: li.querySelector('.is-chosen .cand-token').textContent,
      })),
      first: generation.steps.map((s) => [s.id === s.top[0][0], s.p === s.top[0][1]]),
      T: result.tokens.length,
      config: result.config,
      view: root.querySelector('[data-part="kv-cache"]').dataset.rows,
      maps: [...root.querySelectorAll('[data-part="kv-cache"] .kv-map')].map((m) => [m.dataset.kv, m.dataset.rows]),
      shared: [...root.querySelectorAll('.kv-shared')].map((p) => p.textContent),
      size: root.querySelector('[data-part="kv-cache"] .kv-size').textContent,
    };
  });
  assert.equal(out.box, 'a b c d e f g a b c d e f g');
  assert.deepEqual(out.steps, ['d', 'e', 'f', 'g'].map((tok) => ({ mode: 'greedy', token: tok, chosen: tok })));
  assert.deepEqual(out.first, Array(4).fill([true, true]), 'greedy: the likeliest candidate, and its p');
  assert.equal(out.T, 15); // <s> and 14 tokens
  const { layers, kvHeads, dHead } = out.config;
  assert.equal(out.view, '15');
  assert.equal(out.maps.length, layers * kvHeads * 2);
  for (const [kv, rows] of out.maps) assert.equal(rows, '15', `${kv}: one row per token`);
  assert.deepEqual(out.shared.slice(0, kvHeads), [...Array(kvHeads).keys()].map((g) => `K/V head ${g} · query head ${g}`));
  assert.match(out.size, new RegExp(`2 × ${layers} layers × ${kvHeads} kv_heads × ${dHead} d_head × 4 bytes \\(float32\\) × 15 tokens = 15,360 bytes`));
  // The maps are drawn: the cache's K of layer 1, K/V head 0, has 15 rows of pixels' worth.
  const canvases = await readCanvases(page, { stage: 'predict', selector: '[data-kv="1.0.k"] canvas' });
  assert.equal(canvases.length, 1);
  assert.notEqual(canvases[0].size, 'unpainted');
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, 'generate-trained.png'), fullPage: true });
  suite.assertNoProblems();
});

timedTest('the page keeps drawing frames while it generates: the median frame interval is within 1/30 s', { timeout: TEST_TIMEOUT }, async () => {
  const prompt = Array.from({ length: 15 }, (_, i) => String.fromCharCode(97 + i)).join(' ');
  await open(`model=trained&stage=predict&text=${encodeURIComponent(`${prompt} ${prompt}`)}&temperature=1&sample-seed=3`);
  const frames = await page.evaluate(async () => {
    const demo = window.mhaPage.demo;
    const stamps = [];
    await new Promise((r) => requestAnimationFrame(() => r()));
    demo.generate(25);
    await new Promise((resolve) => {
      const tick = (ts) => {
        stamps.push(ts);
        const g = demo.state.generation;
        if (g && !g.running && g.steps.length) resolve();
        else requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    const intervals = stamps.slice(1).map((t, i) => t - stamps[i]).sort((a, b) => a - b);
    return { steps: demo.state.generation.steps.length, median: intervals[Math.floor(intervals.length / 2)], frames: stamps.length };
  });
  assert.equal(frames.steps, 25);
  assert.ok(frames.frames >= 25, `${frames.frames} frames for 25 steps`);
  assert.ok(frames.median <= 1000 / 30, `median frame interval ${frames.median.toFixed(1)} ms while generating`);
  suite.assertNoProblems();
});

test('a sampled continuation\'s link draws the same tokens again in a fresh page', { timeout: TEST_TIMEOUT }, async () => {
  await open('model=trained&stage=predict&text=我是秦始皇，我是');
  await setField('temperature', 1.5);
  await setField('topK', 6);
  await setField('topP', 0.9);
  await setField('seed', 12);
  await setField('tokens', 6);
  await click('n');
  await finished(6);
  const first = await page.evaluate(() => ({ text: window.mhaPage.state.settings.text, ids: window.mhaPage.state.generation.steps.map((s) => s.id), modes: window.mhaPage.state.generation.steps.map((s) => s.sampled) }));
  assert.deepEqual(first.modes, Array(6).fill(true));
  await page.waitForFunction(() => new URLSearchParams(location.search).get('generate') === '6', null, { timeout: WAIT });
  const query = await page.evaluate(() => location.search.slice(1));
  const params = Object.fromEntries(new URLSearchParams(query));
  assert.deepEqual([params.text, params.generate, params.temperature, params['top-k'], params['top-p'], params['sample-seed']], ['我是秦始皇，我是', '6', '1.5', '6', '0.9', '12']);
  await open(query);
  await finished(6);
  const again = await page.evaluate(() => ({ text: window.mhaPage.state.settings.text, ids: window.mhaPage.state.generation.steps.map((s) => s.id), box: window.mhaPage.demo.shadowRoot.querySelector('#text').value }));
  assert.deepEqual(again.ids, first.ids);
  assert.equal(again.text, first.text);
  assert.equal(again.box, first.text);
  suite.assertNoProblems();
});

test('an author\'s generate attribute continues the text by that many tokens; a learner\'s typing drops the continuation', { timeout: TEST_TIMEOUT }, async () => {
  await open('model=trained&stage=predict&text=a%20b%20c%20d%20a%20b');
  await page.evaluate(() => window.mhaPage.demo.setAttribute('generate', '2'));
  await finished(2);
  const attrs = () => page.evaluate(() => ({ text: window.mhaPage.state.settings.text, attr: window.mhaPage.demo.getAttribute('text'), generate: window.mhaPage.demo.getAttribute('generate') }));
  assert.deepEqual(await attrs(), { text: 'a b c d a b c d', attr: 'a b c d a b', generate: '2' });
  // Another text with generate still set: that text, continued by 2.
  await page.evaluate(() => window.mhaPage.demo.setAttribute('text', 'p q r s t p'));
  await page.waitForFunction(() => window.mhaPage.state.generation.prompt === 'p q r s t p' && window.mhaPage.state.generation.steps.length === 2 && !window.mhaPage.state.generation.running, null, { timeout: WAIT });
  assert.deepEqual(await attrs(), { text: 'p q r s t p q r', attr: 'p q r s t p', generate: '2' });
  // The learner types: the text is theirs, the continuation gone from the page and its attributes.
  await page.evaluate(() => {
    const input = window.mhaPage.demo.shadowRoot.querySelector('#text');
    input.value = 'x y z';
    input.dispatchEvent(new Event('input'));
  });
  await page.waitForFunction(() => window.mhaPage.state.result.text === 'x y z', null, { timeout: WAIT });
  await page.waitForFunction(() => window.mhaPage.demo.getAttribute('generate') === null, null, { timeout: WAIT });
  assert.equal(await page.evaluate(() => window.mhaPage.demo.getAttribute('text')), 'x y z');
  assert.equal(await page.evaluate(() => window.mhaPage.demo.shadowRoot.querySelectorAll('.gen-step').length), 0);
  suite.assertNoProblems();
});

test('the poems\' model: a greedy continuation that loops is said to, and one click samples as many tokens from the prompt, the CLI\'s draws', { timeout: TEST_TIMEOUT }, async () => {
  const prompt = '床前明月光，';
  await open(`model=tang&lang=zh&stage=predict&text=${encodeURIComponent(prompt)}`);
  await setField('tokens', 12);
  // from the keyboard: the button keeps the focus while its tokens are drawn, and after
  const focused = () => page.evaluate(() => {
    const a = window.mhaPage.demo.shadowRoot.activeElement;
    return a ? Object.keys(a.dataset).map((k) => `${k}=${a.dataset[k]}`).join() : null;
  });
  await page.locator('[data-generate="n"]').focus();
  await page.keyboard.press('Enter');
  await finished(12);
  assert.equal(await focused(), 'generate=n', 'Generate keeps the focus');
  const note = () => page.evaluate(() => {
    const p = window.mhaPage.demo.shadowRoot.querySelector('[data-part="generate"] [data-loop]');
    return { hidden: p.hidden, text: p.textContent, button: p.querySelector('[data-resample]').textContent };
  });
  const greedy = generated(['--text', prompt, '--tokens', '12']);
  assert.equal(await page.evaluate(() => window.mhaPage.state.settings.text), greedy.text);
  const shown = await note();
  assert.equal(shown.hidden, false, 'the loop is said');
  // The run it quotes is written twice, apart, in what the CLI continued.
  const span = /“(.+?)”/.exec(shown.text)[1];
  const continuation = greedy.steps.map((s) => s.token).join('');
  assert.ok(span.length >= 2 && continuation.indexOf(span, continuation.indexOf(span) + span.length) >= 0, `“${span}” twice in ${continuation}`);
  assert.match(shown.button, /温度 0\.8、top-k 40 重新抽样这 12 个/);
  // Every candidate is named by the model's vocabulary, the ones the run never met too.
  const names = await page.evaluate(() => [...window.mhaPage.demo.shadowRoot.querySelectorAll('[data-part="generate"] .cand-token')].map((c) => c.textContent));
  assert.ok(names.length >= 12 * 5, `${names.length} candidates`);
  assert.deepEqual(names.filter((n) => /^#\d+$/.test(n)), [], 'no candidate is a bare id');
  // The line break it writes is drawn as ↵: in the steps, and in the prediction's row headers, none blank.
  const drawn = await page.evaluate(() => {
    const root = window.mhaPage.demo.shadowRoot;
    return {
      steps: [...root.querySelectorAll('[data-part="generate"] .gen-token')].map((s) => s.textContent),
      rows: [...root.querySelectorAll('section[data-stage="predict"] tr[data-position] > th')].map((th) => th.textContent),
    };
  });
  const lineBreak = greedy.steps.findIndex((s) => s.token === '\n');
  assert.ok(lineBreak >= 0, 'the greedy continuation breaks the line');
  assert.equal(drawn.steps[lineBreak], '↵');
  assert.deepEqual(drawn.rows.filter((r) => !r.trim()), [], 'no row header is blank');
  assert.ok(drawn.rows.includes('↵'));
  await setField('tokens', 5); // the next click's count: the resampling draws the continuation's 12 again
  await page.locator('[data-resample]').focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => {
    const g = window.mhaPage.state.generation;
    return g && !g.running && g.sampling.temperature === 0.8 && g.steps.length === 12;
  }, null, { timeout: WAIT });
  const out = await page.evaluate(() => ({
    state: { text: window.mhaPage.state.settings.text, prompt: window.mhaPage.state.generation.prompt, ids: window.mhaPage.state.generation.steps.map((s) => s.id), seed: window.mhaPage.state.sampling.seed },
    fields: ['temperature', 'topK'].map((k) => window.mhaPage.demo.shadowRoot.querySelector(`[data-sampling="${k}"]`).value),
  }));
  const sampled = generated(['--text', prompt, '--tokens', '12', '--temperature', '0.8', '--top-k', '40', '--seed', String(out.state.seed)]);
  assert.equal(out.state.prompt, prompt, 'drawn again from the prompt, not after the loop');
  assert.deepEqual(out.state.ids, sampled.steps.map((s) => s.id));
  assert.equal(out.state.text, sampled.text);
  assert.deepEqual(out.fields, ['0.8', '40']);
  assert.equal(await page.evaluate(() => window.mhaPage.demo.shadowRoot.querySelector('[data-generate="n"]').textContent), '生成 12 个', 'the Generate button says as many as were drawn again');
  assert.equal((await note()).hidden, true, 'a sampled continuation says nothing of loops');
  assert.equal(await focused(), 'generate=n', 'the note\'s button gone, its focus is on Generate');
  suite.assertNoProblems();
});

test('a prompt plus N past the model\'s positions is refused before anything is drawn, in either language', { timeout: TEST_TIMEOUT }, async () => {
  const words = Array.from({ length: 55 }, (_, i) => `w${i % 50}`).join(' '); // <s> and 55 tokens of the 61 positions
  for (const [lang, expected] of [['en', '56 tokens of text and 8 new ones make 64, but the model has only 61 positions'],
    ['zh', '文本的 56 个 token 加上 8 个新 token 共 64 个，但这个模型只有 61 个位置']]) {
    await open(`model=trained&stage=predict&lang=${lang}&text=${encodeURIComponent(words)}`);
    await click('n');
    await page.waitForFunction(() => window.mhaPage.state.generation && window.mhaPage.state.generation.error, null, { timeout: WAIT });
    const out = await page.evaluate(() => ({
      message: window.mhaPage.demo.shadowRoot.querySelector('.gen-error').textContent,
      text: window.mhaPage.state.settings.text,
      steps: window.mhaPage.state.generation.steps.length,
    }));
    assert.equal(out.message, expected);
    assert.equal(out.text, words);
    assert.equal(out.steps, 0);
  }
  suite.assertNoProblems();
});

test('the calculator: Llama 3 8B at 8,192 tokens in 16 bits keeps 4 GiB with MHA, 1 GiB as published (GQA), 128 MiB with MQA', { timeout: TEST_TIMEOUT }, async () => {
  await open('model=trained&stage=predict');
  const rows = () => page.evaluate(() => Object.fromEntries([...window.mhaPage.demo.shadowRoot.querySelectorAll('[data-part="kv-calc"] tr')].map((tr) => [tr.dataset.kind, Number(tr.dataset.bytes)])));
  assert.deepEqual(await rows(), { mha: 2 * 32 * 32 * 128 * 2 * 8192, gqa: 2 ** 30, mqa: 2 * 32 * 1 * 128 * 2 * 8192 });
  await page.evaluate(() => {
    const calc = window.mhaPage.demo.shadowRoot.querySelector('[data-part="kv-calc"]');
    const [model, width] = calc.querySelectorAll('select');
    model.value = String([...model.options].findIndex((o) => o.textContent === 'Llama 3 70B'));
    width.value = '4';
    const tokens = calc.querySelector('input');
    tokens.value = '131072';
    for (const el of [model, width, tokens]) el.dispatchEvent(new Event('change'));
  });
  assert.deepEqual(await rows(), { mha: 2 * 80 * 64 * 128 * 4 * 131072, gqa: 2 * 80 * 8 * 128 * 4 * 131072, mqa: 2 * 80 * 1 * 128 * 4 * 131072 });
  suite.assertNoProblems();
});

// Generate, the KV cache and its calculator are the widget's part 'decoding' (mha-decoding.js beside
// the widget), loaded with the first frame of a model with a predict stage (el.ready waits for it):
// without it, the predict stage draws its prediction and says where the rest would be, in the
// learner's language.
test('without mha-decoding.js the predict stage still predicts, and says which file Generate needs', { timeout: TEST_TIMEOUT }, async () => {
  await page.route('**/mha-decoding.js', (route) => route.abort());
  for (const [lang, words] of [['en', 'keep mha-decoding.js beside mha-demo.js'], ['zh', '请把 mha-decoding.js 放在 mha-demo.js 旁边']]) {
    await open(`model=trained&lang=${lang}&stage=predict`);
    await page.waitForFunction(() => window.mhaPage.demo.shadowRoot.querySelectorAll('section[data-stage="predict"] .part-view .banner').length === 3);
    const shown = await page.evaluate(() => {
      const section = window.mhaPage.demo.shadowRoot.querySelector('section[data-stage="predict"]');
      return { banners: [...section.querySelectorAll('.part-view .banner')].map((b) => b.textContent), summary: section.querySelector('.predict-summary')?.textContent, generate: section.querySelector('[data-part="generate"]') !== null };
    });
    for (const said of shown.banners) assert.ok(said.includes(words), said);
    assert.ok(shown.summary, 'the prediction is drawn');
    assert.equal(shown.generate, false);
  }
  await page.unroute('**/mha-decoding.js');
  suite.problems.length = 0; // the aborted script's own errors, provoked above
});
