// What a new learner tripped on (issue 34), each at the width it was seen at: the loss chart (its
// labels inside the chart and off the curve, the counter stopping at the recipe's last step, the
// phase change at the step the seed gives) and the pruning curve's x ticks; the Chinese page's
// visible text, scanned for English words; the sweep's words and its one-head caption; the line
// under "Open a model file…"; the KV cache GQA saves, at the split stage; the phone.
'use strict';

const { test, beforeEach } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const { usePageSuite, openPage, stageTable, shotOf } = require('./browser.js');

const ROOT = path.join(__dirname, '..', '..');
const SHOTS = path.join(ROOT, 'test-results', 'screenshots');
const WAIT = 20_000;

let server;
let page;
const suite = usePageSuite({
  files: ['web/index.html', 'web/build/app.js', 'web/build/mha-demo.js', 'web/build/mha-trained.js', 'web/build/mha-recall.js', 'web/build/mha-zh.js'],
  wait: WAIT,
});
beforeEach(() => {
  ({ server, page } = suite);
});

const open = (query) => openPage(page, `${server.url}?${query}`, WAIT);
const inDemo = (fn, arg) => page.evaluate(fn, arg);

// Each text of an SVG chart: its words and its box in the chart's own units, and the chart's box.
const chartTexts = (selector) =>
  inDemo((sel) => {
    const svg = document.querySelector('mha-demo').shadowRoot.querySelector(sel);
    const [x, y, width, height] = svg.getAttribute('viewBox').split(' ').map(Number);
    const texts = [...svg.querySelectorAll('text')].filter((el) => el.textContent && getComputedStyle(el).display !== 'none').map((el) => {
      const b = el.getBBox();
      return { text: el.textContent, cls: el.getAttribute('class'), x0: b.x, x1: b.x + b.width, y0: b.y, y1: b.y + b.height };
    });
    const line = svg.querySelector('polyline');
    const points = line && line.getAttribute('points') ? line.getAttribute('points').trim().split(/\s+/).map((p) => p.split(',').map(Number)) : [];
    return { box: { x0: x, y0: y, x1: x + width, y1: y + height }, texts, points };
  }, selector);

function assertInside({ box, texts }, what) {
  for (const t of texts) assert.ok(t.x0 >= box.x0 && t.x1 <= box.x1 && t.y0 >= box.y0 && t.y1 <= box.y1, `${what}: "${t.text}" lies inside the chart ${JSON.stringify(t)}`);
}

// The induction model's chart as npm run train recorded it (models/induction.history.json: every
// step's loss and the phase change at the step the seed gives; tests/node/history.test.js holds the
// file to the recipe) is drawn before anything trains: its labels are laid out on the whole curve.
// Training to the end is then the recall recipe's (2,000 steps of one layer: a third of the time).
test('the loss chart at 1280 px: the floor labelled inside the chart and off the curve, the phase change at the seed\'s step; a run to the end stops its counter at the last step', { timeout: 150_000 }, async () => {
  const history = require('../../models/induction.history.json');
  await open('model=trained&lang=en');
  await page.waitForFunction(() => document.querySelector('mha-demo').training?.phaseStep > 0, null, { timeout: WAIT });
  const recorded = await chartTexts('.loss-curve');
  assertInside(recorded, 'the recorded run');
  assert.match(recorded.texts.find((t) => t.cls === 'floor-text').text, /^floor \d\.\d\d$/);
  assert.ok(recorded.texts.some((t) => t.text === String(history.losses.length)), 'the last step\'s tick');
  assert.ok(recorded.texts.some((t) => t.text === `phase change, step ${history.phaseStep}`), recorded.texts.map((t) => t.text).join(' | '));
  // The floor's label is off the curve: no point of the curve within its box.
  const floorOf = (chart) => {
    const floor = chart.texts.find((t) => t.cls === 'floor-text');
    return chart.points.filter(([x, y]) => x >= floor.x0 && x <= floor.x1 && y >= floor.y0 && y <= floor.y1);
  };
  assert.ok(recorded.points.length > 100, 'the recorded curve is drawn');
  assert.deepEqual(floorOf(recorded), [], 'the curve runs through the floor\'s label');
  await shotOf(page, '.train-panel', path.join(SHOTS, 'learner-loss-curve.png'));

  await open('model=recall&lang=en');
  assert.equal(await inDemo(() => document.querySelector('mha-demo').shadowRoot.querySelector('#train-recipe').value), 'recall');
  const before = await chartTexts('.loss-curve');
  assertInside(before, 'before training');
  await inDemo(() => {
    const demo = document.querySelector('mha-demo');
    window.__ends = [];
    window.__steps = [];
    demo.addEventListener('trainend', (e) => window.__ends.push(e.detail));
    demo.addEventListener('trainprogress', (e) => window.__steps.push(e.detail.step));
  });
  // Started from the keyboard: Start, disabled while it runs, hands the focus to Pause; at the end,
  // Pause disabled too, to the first button left (the model's download).
  const focusedTrain = () => inDemo(() => document.querySelector('mha-demo').shadowRoot.activeElement?.dataset.train ?? null);
  await page.locator('[data-train="start"]').focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('mha-demo').shadowRoot.querySelector('[data-train="start"]').disabled, null, { timeout: WAIT });
  assert.equal(await focusedTrain(), 'pause', 'the focus went from Start to Pause');
  await page.waitForFunction(() => window.__ends.length > 0, null, { timeout: 120_000 });
  await page.waitForFunction(() => document.querySelector('mha-demo').shadowRoot.querySelector('[data-train="pause"]').disabled, null, { timeout: WAIT });
  assert.equal(await focusedTrain(), 'download', 'the focus went from Pause to the download');
  const end = await inDemo(() => ({ end: window.__ends[0], steps: window.__steps, training: document.querySelector('mha-demo').training }));
  const { steps } = require('../../web/build/catalog.json').recipes.recall;
  assert.equal(end.end.reason, 'done');
  assert.equal(end.end.step, steps, 'the counter stops at the recipe\'s last step');
  assert.ok(end.steps.every((s) => s <= steps), 'no report past the last step');
  const readout = await inDemo(() => document.querySelector('mha-demo').shadowRoot.querySelector('.train-readout').textContent);
  assert.match(readout, new RegExp(`^step ${steps} ·`));
  assert.equal(await page.locator('[data-train="start"]').isDisabled(), true, 'nothing left to resume');
  const after = await chartTexts('.loss-curve');
  assertInside(after, 'after training');
  assert.ok(after.texts.some((t) => t.text === String(steps)), 'the last step\'s tick');
  assert.ok(after.texts.some((t) => t.text === `done: ${steps} steps`));
  assert.deepEqual(floorOf(after), [], 'the curve runs through the floor\'s label');
  suite.assertNoProblems();
});

test('the pruning curve at 1280 px: its x axis has a tick for every count of heads removed, inside the chart', { timeout: 60_000 }, async () => {
  await open('model=trained&lang=en&stage=attend');
  await page.waitForFunction(() => document.querySelector('mha-demo').shadowRoot.querySelector('.pruning-chart'), null, { timeout: 45_000 });
  const chart = await chartTexts('.pruning-chart');
  const { N, axis } = await inDemo(() => {
    const svg = document.querySelector('mha-demo').shadowRoot.querySelector('.pruning-chart');
    return { N: svg.querySelectorAll('.dot').length - 1, axis: Number(svg.querySelector('line.axis').getAttribute('y1')) };
  });
  const xTicks = chart.texts.filter((t) => /^\d+$/.test(t.text) && t.y0 > axis).map((t) => t.text); // under the x axis
  assert.deepEqual(xTicks, Array.from({ length: N + 1 }, (_, k) => String(k)), 'a tick for every count of heads removed');
  assertInside(chart, 'the pruning curve');
  suite.assertNoProblems();
});

// The words of the Chinese page that stay in Latin letters on purpose: the names of fields, tensors
// and stages as the core and the formulas write them (the core's stage table adds every tensor's
// name), units and abbreviations, file names, and names of models, people and projects.
const ALLOWED = new Set([
  // fields, shapes and symbols of the formulas
  'd_model', 'd_head', 'heads', 'kv_heads', 'T', 'Q', 'K', 'V', 'W', 'E', 'O', 'U', 'PE', 'b', 'h', 'g', 'i', 'j', 'k', 'l', 'x', 'y', 'v', 't', 'q', 'M',
  'L', 'n', 'pos', 'sin', 'cos', 'QK', 'OV', 'Re', 'softmax', 'argmax', 'concat', 'head_out', 'head_write', 'ids', 'id', 'rot', 'rotate_half', 'theta',
  'ln_f', 'mlp', 'resid', 'resid_mid', 'resid_out', 'logit', 'logits', 'probs', 'scores', 'score', 'weights', 'top-k', 'top-p', 'W_proj', 'b_proj', 'batch', 'float32', 'F16', 'F32', 'token', 'tokens', 'KV', 'GQA', 'MHA', 'MQA', 'RoPE', 'GELU', 'LayerNorm', 'MLP', 'BPE', 'BLEU', 'd_k',
  'PNG', 'SVG', 'CSV', 'KiB', 'MiB', 'GiB', 'TiB', 'B', 'MB', 'KB', 'ms', 's', 'exp', 'log', 'ln',
  // files, formats and their keys
  'safetensors', 'config.json', 'vocab.json', 'merges.txt', 'encoder.json', 'vocab.bpe', 'tokenizer.json', 'model.safetensors', 'n_head', 'json',
  // names
  'GPT', 'GPT-2', 'GPT-3', 'BERT-base', 'BERT-large', 'Transformer-base', 'Llama', 'Mistral', 'Hugging', 'Face', 'WebAssembly', 'Web', 'Worker', 'C++',
  'Vaswani', 'Olsson', 'Michel', 'Xavier', 'Jensen', 'Shannon', 'Brown', 'PyTorch', 'Transformer', 'Adam',
  'English', // the language button, which names English in English
  'meta-llama', 'Meta-Llama-3-8B', 'Meta-Llama-3-70B', 'mistralai', 'Mistral-7B-v0.1', 'openai-community', 'gpt2', '8B', '70B', '7B',
  // an example text that mixes Chinese and English on purpose (how the tokenizer cuts each)
  'attention',
  // the special tokens of the models of real text, spelt as their vocabularies spell them
  'unk', 'eos',
  // a key, named as Chinese interfaces name it (Tab 键)
  'Tab',
]);

// The visible text of the page and of its demo's shadow root, in Latin-letter words not allowed above.
const englishWords = (allowed) =>
  page.evaluate((list) => {
    const allow = new Set(list);
    const found = new Map();
    const visit = (root) => {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const el = node.parentElement;
        // sub- and superscripts are a formula's indices (d_model, M_ij)
        if (!el || !el.checkVisibility() || el.closest('sub, sup, script, style')) continue;
        for (const word of node.data.match(/[A-Za-z][A-Za-z0-9_.+\-]*[A-Za-z0-9+]|[A-Za-z]/g) || []) {
          const bare = word.replace(/[.]+$/, '');
          // a letter is a symbol; h0, kv1, d0 name heads and dimensions; a file keeps its name
          if (bare.length === 1 || /^(h|kv|d)\d+$|^[hi]\+1$|\.(safetensors|json|txt|bpe)$/.test(bare)) continue;
          if (allow.has(bare) || allow.has(bare.toLowerCase()) || bare.split(/[._]/).every((p) => allow.has(p) || /^\d+$/.test(p))) continue;
          if (!found.has(bare)) found.set(bare, node.data.trim().slice(0, 80));
        }
      }
    };
    visit(document.body);
    visit(document.querySelector('mha-demo').shadowRoot);
    return [...found];
  }, [...allowed]);

test('the Chinese page at 1280 px: no English words in its visible text beyond field, tensor and proper names, on every stage of five models (the Tang model the page opens on among them), in the calculator and a bad file\'s message', { timeout: 180_000 }, async () => {
  const table = await stageTable();
  const allowed = new Set([...ALLOWED, ...table.tensors.flatMap((x) => x.name.split(/[._]/).concat(x.name)), ...table.stages.map((s) => s.id)]);
  const seen = {};
  for (const query of ['model=tang', 'model=trained', 'model=random&kv-heads=2', 'model=blocks&kv-heads=2', 'model=recall']) {
    await open(`lang=zh&${query}`);
    const stages = await inDemo(() => document.querySelector('mha-demo').stages);
    for (const stage of stages) {
      await inDemo(async (id) => {
        document.querySelector('mha-demo').goTo(id);
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      }, stage);
      for (const [word, where] of await englishWords(allowed)) seen[word] = seen[word] || `${query}, ${stage}: “${where}”`;
    }
  }
  // A file that is no model: its message, in Chinese, named as a file (not by an attribute).
  await page.locator('#model-file').setInputFiles({ name: 'bad.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from('not a model at all') });
  await page.waitForFunction(() => document.querySelector('mha-demo').state.unavailable, null, { timeout: WAIT });
  const bad = await page.locator('.attr-errors li[data-attribute="file"]').textContent();
  assert.match(bad, /^文件 bad\.safetensors：/);
  for (const [word, where] of await englishWords(allowed)) seen[word] = seen[word] || `a bad file: “${where}”`;
  assert.deepEqual(seen, {}, 'English words left on the Chinese page');
  suite.assertNoProblems();
});

test('Open a model file… says before the pick how to open a Hugging Face checkpoint, in both languages (1280 px)', { timeout: 60_000 }, async () => {
  for (const [lang, words] of [['en', /^Your own GPT-2 \(Hugging Face\): pick model\.safetensors, config\.json, vocab\.json and merges\.txt together\.$/], ['zh', /^或你自己的 GPT-2（Hugging Face）：把 model\.safetensors、config\.json、vocab\.json 和 merges\.txt 一起选中。$/]]) {
    await open(`lang=${lang}`);
    const hint = await inDemo(() => {
      const root = document.querySelector('mha-demo').shadowRoot;
      const button = root.querySelector('.open-file');
      const note = root.getElementById(button.getAttribute('aria-describedby'));
      return { text: note.textContent, visible: note.checkVisibility(), below: note.getBoundingClientRect().top >= button.getBoundingClientRect().bottom - 1 };
    });
    assert.match(hint.text, words);
    assert.ok(hint.visible && hint.below, `${lang}: the line is seen under the button ${JSON.stringify(hint)}`);
  }
  suite.assertNoProblems();
});

test('the split stage teaches what GQA saves (1280 px): the KV cache at this T and the longest, MHA beside GQA beside MQA, from the core\'s kvCacheBytes', { timeout: 90_000 }, async () => {
  const mha = await require('../../web/mha.js')();
  for (const [query, layers] of [['model=random&d-model=64&heads=4&kv-heads=2', 1], ['model=blocks&d-model=64&heads=4&kv-heads=2', 2]]) {
    await open(`lang=en&stage=split&${query}`);
    const seen = await inDemo(() => {
      const demo = document.querySelector('mha-demo');
      const part = demo.shadowRoot.querySelector('section[data-stage="split"] [data-part="kv-saving"]');
      return {
        T: demo.state.result.ids.length,
        tokens: part.dataset.tokens.split(' ').map(Number),
        rows: [...part.querySelectorAll('tbody tr')].map((tr) => ({ kind: tr.dataset.kind, bytes: tr.dataset.bytes.split(' ').map(Number), ours: tr.classList.contains('kv-this'), text: tr.textContent })),
        text: part.textContent,
      };
    });
    assert.equal(seen.tokens[0], seen.T, `${query}: at this text's T`);
    assert.ok(seen.tokens[1] > seen.T, `${query}: and at the longest T the model takes`);
    assert.deepEqual(seen.rows.map((r) => [r.kind, r.ours]), [['mha', false], ['gqa', true], ['mqa', false]]);
    for (const r of seen.rows) {
      const kv = { mha: 4, gqa: 2, mqa: 1 }[r.kind];
      assert.deepEqual(r.bytes, seen.tokens.map((tokens) => mha.kvCacheBytes({ layers, kvHeads: kv, dHead: 16, bytesPerValue: 4, tokens })), `${query}: ${r.kind}`);
    }
    assert.equal(seen.rows[0].bytes[1] / seen.rows[1].bytes[1], 2, 'GQA with 2 K/V heads for 4 keeps half of MHA\'s cache');
    assert.match(seen.text, /MHA would keep 4 \/ 2 = 2× this model’s cache/);
  }
  suite.assertNoProblems();
});

test('a 390 × 844 phone: the training menu inside its panel, the heads table says it scrolls, the pipeline\'s current stage and its neighbours whole and its cut ends faded', { timeout: 90_000 }, async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await open('model=trained&lang=en&stage=attend');
  const seen = await inDemo(async () => {
    const root = document.querySelector('mha-demo').shadowRoot;
    const box = (el) => el.getBoundingClientRect();
    const panel = root.querySelector('.train-panel');
    const menu = root.querySelector('#train-recipe');
    const inner = box(panel).right - parseFloat(getComputedStyle(panel).paddingRight);
    const scroller = root.querySelector('section[data-stage="attend"] .heads-scroll');
    scroller.scrollIntoView({ block: 'center' });
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const cue = root.querySelector('section[data-stage="attend"] .heads-cue');
    const strip = root.querySelector('#pipeline-list');
    const s = box(strip);
    const pills = [...strip.querySelectorAll('.pipe')].map((p) => ({ id: p.dataset.stageButton, current: p.hasAttribute('aria-current'), left: box(p).left, right: box(p).right }));
    return {
      menuRight: box(menu).right, inner,
      overflows: scroller.scrollWidth > scroller.clientWidth + 1, cueShown: cue.checkVisibility(), cue: cue.textContent,
      strip: { left: s.left, right: s.right, more: strip.dataset.more || '' }, pills,
    };
  });
  assert.ok(seen.menuRight <= seen.inner + 0.5, `the training menu ends inside its panel (${seen.menuRight} > ${seen.inner})`);
  assert.ok(seen.overflows, 'at 390 px the metrics scroll sideways');
  assert.ok(seen.cueShown, 'and a line says so');
  assert.match(seen.cue, /scroll the table sideways/);
  const at = seen.pills.findIndex((p) => p.current);
  for (const p of seen.pills.slice(Math.max(0, at - 1), at + 2)) assert.ok(p.left >= seen.strip.left - 0.5 && p.right <= seen.strip.right + 0.5, `${p.id} is whole in the strip ${JSON.stringify([p, seen.strip])}`);
  const cutLeft = seen.pills.some((p) => p.left < seen.strip.left - 0.5 && p.right > seen.strip.left);
  const cutRight = seen.pills.some((p) => p.left < seen.strip.right && p.right > seen.strip.right + 0.5);
  if (cutLeft) assert.match(seen.strip.more, /l/, 'a stage cut at the left end: that end fades');
  if (cutRight) assert.match(seen.strip.more, /r/, 'a stage cut at the right end: that end fades');
  await page.screenshot({ path: path.join(SHOTS, 'learner-phone.png') });
  // Wide enough for the whole table: no line.
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.waitForFunction(() => !document.querySelector('mha-demo').shadowRoot.querySelector('section[data-stage="attend"] .heads-cue').checkVisibility(), null, { timeout: WAIT });
  suite.assertNoProblems();
});

test('the recall model at 1280 px: no empty row between its examples and its note, above the pipeline', { timeout: 60_000 }, async () => {
  await open('lang=en&model=recall');
  const gap = await inDemo(() => {
    const root = document.querySelector('mha-demo').shadowRoot;
    return root.querySelector('.trained-note').getBoundingClientRect().top - root.querySelector('.examples').getBoundingClientRect().bottom;
  });
  assert.ok(gap >= 0 && gap <= 12, `the note follows the examples (${gap} px between them)`);
  suite.assertNoProblems();
});

test('a slow setting (GPT-2 blocks at d_model 512, heads 8 → 16) is drawn in the worker: the page says at once that it works, then shows the new heads', { timeout: 60_000 }, async () => {
  await open('lang=en&model=blocks&d-model=512&heads=8&stage=attend');
  const at = await inDemo(() => {
    const demo = document.querySelector('mha-demo');
    const heads = demo.shadowRoot.querySelector('#heads');
    heads.value = '16';
    heads.dispatchEvent(new Event('change', { bubbles: true }));
    return { status: demo.state.status, heads: demo.state.result.config.heads, says: demo.shadowRoot.querySelector('#status').textContent };
  });
  assert.match(at.says, /computing…/, 'the status line says so with the change itself');
  assert.deepEqual({ status: at.status, heads: at.heads }, { status: 'computing', heads: 8 }, 'the change returns at once, the old picture on screen and the page computing');
  await page.waitForFunction(() => {
    const s = document.querySelector('mha-demo').state;
    return s.status === 'idle' && s.result.config.heads === 16;
  }, null, { timeout: WAIT });
  const status = await inDemo(() => document.querySelector('mha-demo').shadowRoot.querySelector('#status').textContent);
  assert.doesNotMatch(status, /comput/i, 'the status no longer says it is working');
  suite.assertNoProblems();
});
