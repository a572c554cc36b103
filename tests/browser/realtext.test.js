// The models trained on real text, on the page: model="tang" (Tang poems, a character per token) and
// model="brown" (the Brown corpus's English words) each open on a text of their own at the attend
// stage of the layer of their clearest typed heads. The heads panel names heads with the typed labels
// of real text, in either language, exactly as `mha heads --json` names them on the same text and the
// same model (the page's F16 copy); the tokenize stage says which tokenizer it is and shows <unk>
// with the word it stood for, with the CLI's ids; the prediction names its candidates from the
// model's vocabulary (<unk> as such), as the module's Model.tokenText does. Beside each head's name
// on the text shown, its name and measure on the corpus's held-out excerpt, as `mha heads --heldout`
// gives them.
// Timed (timedTest): a named head within 90 s of Train at 30 frames a second.
'use strict';

const { before, after, beforeEach } = require('node:test');
const { test, timedTest, lane } = require('./lanes.js');
const assert = require('node:assert/strict');
const { execFile, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { usePageSuite, openPage, importanceShown, trainingSnapshots, scrubTraining, shotOf } = require('./browser.js');
const { trainedModels, shippedModelBytes, heldoutFigure } = require('../../scripts/web-parts.js');

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'build', 'native', 'mha');
const SHOTS = path.join(ROOT, 'test-results', 'screenshots');
const TEST_TIMEOUT = 120_000;
const WAIT = 20_000; // a real-text model's script is about 2 MB
// The labels of the head types real text has (cpp/core/analysis/head_metrics.cpp head_label_rules).
// The layer each opens on, that of its clearest typed heads on its own text: web/src/openingTexts.js's
// OPENING_LAYERS (an ES module: the test names need it before it can be imported; before() checks it).
const OPENS_AT = { tang: 0, brown: 3 };
const TYPED = ['parallel_line', 'noun_article', 'verb_subject', 'noun_adjective', 'rare_word', 'positional'];

let server;
let page;
let tmp;
let strings;
let say; // web/src/i18n.js's t: a string as the page writes it
const pageModels = {}; // id -> the page's copy of the model (F16), as a file for the CLI
const suite = usePageSuite({
  files: ['web/index.html', 'web/build/app.js', 'web/build/mha-demo.js', 'web/build/mha-tang.js', 'web/build/mha-brown.js'],
  wait: WAIT,
});
before(async () => {
  assert.deepEqual(OPENS_AT, (await import('../../web/src/openingTexts.js')).OPENING_LAYERS, 'the layers the page opens on');
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mha-realtext-'));
  // The page's copies, for the CLI beside the tests that compare with it (none of them timed).
  if (lane !== 'timed') for (const model of trainedModels().filter((m) => m.id === 'tang' || m.id === 'brown')) {
    pageModels[model.id] = path.join(tmp, `${model.id}.safetensors`);
    fs.writeFileSync(pageModels[model.id], await shippedModelBytes(model));
  }
  ({ STRINGS: strings } = await import('../../web/src/strings.js'));
  ({ t: say } = await import('../../web/src/i18n.js'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
beforeEach(() => {
  ({ server, page } = suite);
});

// `mha heads --heldout` on the shipped model (its F32 file) and its excerpt, started before the tests
// (some 20 s of one core, while the browser starts on the other).
const heldoutCli = {};
const cliHeldout = (id) => {
  const model = trainedModels().find((m) => m.id === id);
  heldoutCli[id] = heldoutCli[id] || new Promise((resolve, reject) =>
    execFile(CLI, ['heads', '--model', model.source, '--heldout', model.heldout, '--json'], { cwd: ROOT, maxBuffer: 256 << 20 },
      (e, out) => (e ? reject(e) : resolve(JSON.parse(out)))));
  return heldoutCli[id];
};
// awaited (and its error seen) in the tests that read it, none of them timed
if (lane !== 'timed') for (const id of ['tang', 'brown']) cliHeldout(id).catch(() => {});

// A type's name as the panel writes it, in `lang`: a positional head's with its i − k.
const typeText = (lang, type, m) => (type === 'positional' ? strings['label.positionalAt'][lang].replace('{d}', String(m.offset)) : strings[`label.${type}`][lang]);
const labelText = (lang, m) => typeText(lang, m.label, m);
// The measure its label rule reads (rules: the analysis's labels), with how many times its chance; a
// mixed head's, that of the type it is nearest (strongest), named.
function measureText(lang, m, rules) {
  const type = m.label === 'mixed' ? m.strongest : m.label;
  const rule = rules.find((r) => r.label === type);
  if (!rule) return '';
  const v = m[rule.metric];
  const chance = m[`${rule.metric}_chance`];
  const measure = chance ? strings['heads.measureChance'][lang].replace('{v}', v.toFixed(2)).replace('{x}', (v / chance).toFixed(1)) : v.toFixed(2);
  return m.label === 'mixed' ? strings['heads.nearest'][lang].replace('{type}', typeText(lang, type, m)).replace('{m}', measure) : measure;
}

// The held-out line under each name: each head of the shown layer named, and measured, as `mha heads
// --heldout` does, and its importance there and the step of the pruning curve that removes it, as
// models/NAME.prune.json has them (that file's importances are its model's: the held-out doctests in
// tests/test_corpus_models.cpp; `mha heads --heldout --importance` gives the same, tests/cli_test.sh).
async function assertHeldoutAsCli(model, s) {
  const cli = await cliHeldout(model);
  // (the widget carries the figures to six significant digits: heldoutFigure)
  const rounded = (m) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, typeof v === 'number' && k !== 'offset' ? heldoutFigure(v) : v]));
  const expected = cli.layers[s.layer].heads.map(rounded).map((m) => [labelText(s.lang, m), measureText(s.lang, m, cli.labels)]);
  assert.deepEqual(s.heldoutTexts, expected, `${model}: the held-out lines of layer ${s.layer} in ${s.lang}`);
  const pruned = JSON.parse(fs.readFileSync(path.join(ROOT, `models/${model}.prune.json`), 'utf8'));
  const order = pruned.steps.at(-1).removed.map(([l, h]) => `${l}.${h}`);
  const importance = pruned.importance.layers[s.layer].heads.map((m, h) => strings['heads.heldoutImportance'][s.lang]
    .replace('{v}', heldoutFigure(m.importance).toFixed(3)).replace('{k}', String(order.indexOf(`${s.layer}.${h}`) + 1)).replace('{n}', String(order.length)));
  assert.deepEqual(s.heldoutImportance, importance, `${model}: the held-out importance of layer ${s.layer} in ${s.lang}`);
  return cli.layers[s.layer].heads.map((m) => m.label);
}

// The importance column as drawn, and `mha heads --importance`'s on the same text, to three decimals.
const importanceTexts = () => page.evaluate(() => [...document.querySelector('mha-demo').shadowRoot
  .querySelectorAll('section[data-stage="attend"] .heads-table td[data-metric="importance"] .metric-value')].map((e) => e.textContent));
const cliImportance = (model, text, layer) => JSON.parse(execFileSync(CLI, ['heads', '--model', pageModels[model], '--text', text, '--importance', '--json'], { encoding: 'utf8' }))
  .layers[layer].heads.map((m) => m.importance.toFixed(3));
const cliHeads = (model, text) => JSON.parse(execFileSync(CLI, ['heads', '--model', pageModels[model], '--text', text, '--json'], { encoding: 'utf8' }));
// `mha tokenize`'s ids: "  position  id  "token"" per line after the count.
const cliIds = (model, text) =>
  execFileSync(CLI, ['tokenize', '--model', pageModels[model], '--text', text], { encoding: 'utf8' })
    .split('\n').map((line) => /^\s+\d+\s+(\d+)\s+"/.exec(line)).filter(Boolean).map((m) => Number(m[1]));

const open = (url) => openPage(page, url, WAIT);

// The demo's state, the heads panel as drawn and the tokenize stage's chips.
const shown = () =>
  page.evaluate(() => {
    const demo = document.querySelector('mha-demo');
    const root = demo.shadowRoot;
    const s = demo.state;
    const panel = root.querySelector('section[data-stage="attend"] .heads-panel');
    const rows = panel ? [...panel.querySelectorAll('.heads-table tbody tr')] : [];
    return {
      model: s.settings.model,
      text: s.settings.text,
      stage: s.stage,
      lang: s.lang,
      layer: s.result.layer,
      tokenizer: s.result.config.tokenizer,
      ids: s.result.ids,
      tokens: s.result.tokens,
      apiLabels: s.result.heads.layers.map((l) => l.heads.map((x) => x.label)),
      panelLayer: panel && Number(panel.dataset.headsLayer),
      panelLabels: rows.map((r) => r.dataset.label),
      panelTexts: rows.map((r) => r.querySelector('.head-label').textContent),
      panelMeasures: rows.map((r) => r.querySelector('.label-measure').textContent),
      heldoutTexts: rows.map((r) => r.querySelector('.heldout-line') && [...r.querySelectorAll('.heldout-line .head-label, .heldout-line .label-measure')].map((x) => x.textContent)),
      heldoutImportance: rows.map((r) => r.querySelector('.heldout-importance') && r.querySelector('.heldout-importance').textContent),
      columns: panel ? [...panel.querySelectorAll('.heads-table tbody tr:first-child td[data-metric]')].map((td) => td.dataset.metric) : [],
      menu: [...root.querySelectorAll('#model option')].map((o) => ({ value: o.value, hidden: o.hidden, text: o.textContent })),
    };
  });

const chips = () =>
  page.evaluate(() => [...document.querySelector('mha-demo').shadowRoot.querySelectorAll('section[data-stage="tokenize"] .chip')].map((c) => ({
    tok: c.querySelector('.chip-tok').textContent,
    typed: c.querySelector('.chip-typed') ? c.querySelector('.chip-typed').textContent : null,
    unk: c.hasAttribute('data-unk'),
  })));
const explanation = (stage) =>
  page.evaluate((st) => document.querySelector('mha-demo').shadowRoot.querySelector(`section[data-stage="${st}"] .stage-text`).textContent, stage);

// The shown layer's labels as the panel draws them, in the language shown, the CLI's on the same text.
async function assertLabelsAsCli(model, s) {
  const cli = cliHeads(model, s.text);
  assert.deepEqual(s.apiLabels, cli.layers.map((l) => l.heads.map((x) => x.label)), `${model}: the module's labels are the CLI's on “${s.text}”`);
  assert.equal(s.panelLayer, s.layer);
  assert.deepEqual(s.panelLabels, cli.layers[s.layer].heads.map((x) => x.label), `${model}: the panel's labels of layer ${s.layer} are the CLI's`);
  const typed = s.panelLabels.filter((label) => TYPED.includes(label));
  assert.ok(typed.length > 0, `${model}: layer ${s.layer} has a head of a typed label on “${s.text}” (${s.panelLabels.join(', ')})`);
  s.panelLabels.forEach((label, hd) => {
    const m = cli.layers[s.layer].heads[hd];
    assert.equal(s.panelTexts[hd], labelText(s.lang, m), `${model} head ${s.layer}.${hd} in ${s.lang}`);
    assert.equal(s.panelMeasures[hd], measureText(s.lang, m, cli.labels), `${model} head ${s.layer}.${hd}'s measure in ${s.lang}`);
  });
  return typed;
}

const CASES = [
  // model, the language it is opened in, the layer it opens on, the heads named there on its own text
  // (web/src/attributes.js's OPENING_TEXTS says why that text), the tokenizer's kind, words of its explanation
  { model: 'tang', lang: 'zh', layer: OPENS_AT.tang, named: ['previous_token', 'parallel_line'], heldout: ['previous_token'], tokenizer: 'chars', unkText: '举头望明月，低头思故乡。OK', explain: { zh: '一个字一个字地读中文', en: 'One token per Chinese character' } },
  { model: 'brown', lang: 'en', layer: OPENS_AT.brown, named: ['verb_subject'], heldout: ['noun_article', 'verb_subject'], namedBelow: { layer: 0, named: ['rare_word'], heldout: ['rare_word'] }, tokenizer: 'words', unkText: 'The robot uploaded a selfie to the internet.', explain: { en: 'as the Brown corpus cuts them', zh: '按 Brown 语料库的切法' } },
];

for (const c of CASES) {
  test(`model=${c.model} in ${c.lang}: its own text at layer ${c.layer}'s attend stage, heads named as \`mha heads\` names them, in both languages`, { timeout: TEST_TIMEOUT }, async () => {
    await open(`${server.url}?model=${c.model}&lang=${c.lang}`);
    let s = await shown();
    assert.equal(s.model, c.model);
    assert.equal(s.tokenizer, c.tokenizer);
    assert.equal(s.stage, 'attend');
    assert.equal(s.layer, c.layer);
    assert.deepEqual(s.menu.filter((o) => !o.hidden).map((o) => o.value), ['tang', 'brown', 'trained', 'recall', 'random', 'blocks'], 'the model menu, in its order');
    assert.equal(s.menu[0].text, strings.modelTang[c.lang]);
    assert.equal(s.menu[1].text, strings.modelBrown[c.lang]);
    // The typed measures are the model's vocabulary's: columns of their own.
    assert.ok(s.columns.includes(c.tokenizer === 'chars' ? 'parallel_line' : 'noun_article'), `columns: ${s.columns.join(', ')}`);
    assert.deepEqual(s.ids, cliIds(c.model, s.text), 'the ids are the CLI\'s');
    const typed = await assertLabelsAsCli(c.model, s);
    for (const label of c.named) assert.ok(s.panelLabels.includes(label), `${c.model}: layer ${c.layer} names a ${label} head on its own text (${s.panelLabels.join(', ')})`);
    // and on the held-out text, beside it: the same types, measured where the model never trained
    const heldout = await assertHeldoutAsCli(c.model, s);
    for (const label of c.heldout) assert.ok(heldout.includes(label), `${c.model}: layer ${c.layer} has a ${label} head on held-out text (${heldout.join(', ')})`);
    // and each head's importance on this text (a gradient pass in the analyses worker), as the CLI's
    await importanceShown(page, WAIT);
    assert.deepEqual(await importanceTexts(), cliImportance(c.model, s.text, s.layer), `${c.model}: the importance of layer ${s.layer}'s heads on its own text`);
    assert.equal(await page.evaluate(() => document.querySelector('mha-demo').shadowRoot.querySelector('section[data-stage="attend"] .importance-zero').hidden), true,
      `${c.model}: importance that is not all about zero needs no word on why it is`);
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, `realtext-${c.model}-${c.lang}.png`) });

    // The other language: the same heads, named in it.
    await page.locator('#lang').click();
    const other = c.lang === 'zh' ? 'en' : 'zh';
    await page.waitForFunction((l) => document.querySelector('mha-demo').state.lang === l, other, { timeout: WAIT });
    await page.waitForFunction((title) => {
      const h3 = document.querySelector('mha-demo').shadowRoot.querySelector('.heads-panel h3');
      return h3 && h3.textContent === title;
    }, strings['heads.title'][other], { timeout: WAIT });
    s = await shown();
    assert.equal(s.lang, other);
    assert.deepEqual(s.panelLabels.filter((label) => TYPED.includes(label)), typed);
    await assertLabelsAsCli(c.model, s);
    await assertHeldoutAsCli(c.model, s);
    // A layer further down names a type the opening layer has not, on the text and on held-out text
    // (the English rare-word head: layer 0)
    if (c.namedBelow) {
      // The panel says where: a button for each other layer with heads named on held-out text, naming
      // them as the held-out lines do, that shows that layer.
      const elsewhere = page.locator(`section[data-stage="attend"] .heads-elsewhere button[data-show-layer="${c.namedBelow.layer}"]`);
      const below = (await cliHeldout(c.model)).layers[c.namedBelow.layer].heads;
      const listed = below.map((m, hd) => [m, hd]).filter(([m]) => !['mixed', 'broad'].includes(m.label))
        .map(([m, hd]) => say(s.lang, 'heads.elsewhereHead', { name: labelText(s.lang, m), h: hd })).join(say(s.lang, 'listSeparator'));
      assert.equal(await elsewhere.textContent(), say(s.lang, 'heads.elsewhereLayer', { l: c.namedBelow.layer, heads: listed }));
      await elsewhere.click();
      await page.waitForFunction((l) => {
        const panel = document.querySelector('mha-demo').shadowRoot.querySelector('section[data-stage="attend"] .heads-panel');
        return panel && Number(panel.dataset.headsLayer) === l;
      }, c.namedBelow.layer, { timeout: WAIT });
      // The panel was built anew for that layer: the focus is on its first such button (the way back),
      // not thrown to the top of the page.
      assert.equal(await page.evaluate(() => document.querySelector('mha-demo').shadowRoot.activeElement?.dataset.showLayer), String(c.layer), 'the focus stays on a layer button');
      s = await shown();
      await assertLabelsAsCli(c.model, s);
      for (const label of c.namedBelow.named) assert.ok(s.panelLabels.includes(label), `${c.model}: layer ${s.layer} names a ${label} head on its own text (${s.panelLabels.join(', ')})`);
      const heldoutBelow = await assertHeldoutAsCli(c.model, s);
      for (const label of c.namedBelow.heldout) assert.ok(heldoutBelow.includes(label), `${c.model}: layer ${s.layer} has a ${label} head on held-out text (${heldoutBelow.join(', ')})`);
    }
    suite.assertNoProblems();
  });

  test(`model=${c.model}: the tokenize stage names its tokenizer and shows <unk> with the word it stood for; the prediction names the vocabulary's tokens`, { timeout: TEST_TIMEOUT }, async () => {
    await open(`${server.url}?model=${c.model}&lang=${c.lang}&stage=tokenize&text=${encodeURIComponent(c.unkText)}`);
    const s = await shown();
    assert.equal(s.stage, 'tokenize');
    assert.deepEqual(s.ids, cliIds(c.model, c.unkText), 'the ids are the CLI\'s');
    assert.ok((await explanation('tokenize')).includes(c.explain[c.lang]), 'the explanation names the tokenizer');
    const drawn = await chips();
    assert.equal(drawn.length, s.ids.length);
    assert.ok(s.ids.includes(0), `“${c.unkText}” has a word the vocabulary does not know`);
    s.ids.forEach((id, i) => {
      if (id === 0) {
        assert.deepEqual({ tok: drawn[i].tok, unk: drawn[i].unk }, { tok: '<unk>', unk: true }, `token ${i}`);
        assert.equal(drawn[i].typed, strings['tokenize.unkFor'][c.lang].replace('{token}', s.tokens[i]), `token ${i} says what it stood for`);
      } else {
        assert.deepEqual(drawn[i], { tok: s.tokens[i], typed: null, unk: false }, `token ${i}`);
      }
    });
    // The prediction: every candidate is a token of the vocabulary, named as the model names it.
    await page.evaluate(() => window.mhaPage.goTo('predict'));
    await page.waitForFunction(() => document.querySelector('mha-demo').shadowRoot.querySelector('section[data-stage="predict"] .candidate[data-id]'), null, { timeout: WAIT });
    const candidates = await page.evaluate(() => [...document.querySelector('mha-demo').shadowRoot.querySelectorAll('section[data-stage="predict"] .candidate[data-id]')]
      .map((el) => ({ id: Number(el.dataset.id), text: el.querySelector('.cand-token').textContent })));
    assert.ok(candidates.length >= 5 * (s.ids.length - 1));
    const mha = await require('../../web/mha.js')();
    const model = new mha.Model().loadModel(fs.readFileSync(pageModels[c.model]));
    try {
      // (a line break, the poems' token between lines, named ↵: never an empty cell)
      const { visibleToken } = await import('../../web/src/format.js');
      for (const { id, text } of candidates) assert.equal(text, visibleToken(model.tokenText(id)), `candidate ${id}`);
      if (c.model === 'tang') assert.ok(candidates.some((x) => x.text === '↵'), 'a line ends: the line break is a candidate');
      assert.equal(model.tokenText(0), '<unk>');
    } finally {
      model.delete();
    }
    assert.ok((await explanation('predict')).includes(strings[`unit.${c.tokenizer}`][c.lang]), 'the predict stage speaks of characters or words');
    // A next token that is <unk> is not scored, on the page as by the CLI: "the" → <unk> for "robot"
    // is no reading of English, though the model's first choice is <unk> there.
    const scored = await page.evaluate(() => {
      const section = document.querySelector('mha-demo').shadowRoot.querySelector('section[data-stage="predict"]');
      return {
        right: Number(section.querySelector('.predict-summary').dataset.right),
        marks: [...section.querySelectorAll('.predict-table tbody tr .mark')].map((td) => td.textContent),
        marked: [...section.querySelectorAll('.predict-table tbody tr')].map((tr) => tr.querySelector('.candidate.is-next') !== null),
      };
    });
    const said = execFileSync(CLI, ['predict', '--model', pageModels[c.model], '--text', c.unkText], { encoding: 'utf8' });
    const [, k, n, m] = /first choice right at (\d+) of (\d+) positions \((\d+) whose next token is <unk> not scored\)/.exec(said).map(Number);
    assert.equal(n + m, s.ids.length - 1, 'every position but the last is scored or not, once');
    assert.equal(scored.right, k, `the page's right answers are the CLI's: ${said}`);
    // position i's row is scored against ids[i + 1]
    s.ids.slice(1).forEach((next, i) => {
      if (next === 0) {
        assert.equal(scored.marks[i], '–', `position ${i}: its next token is <unk>, not scored`);
        assert.equal(scored.marked[i], false, `position ${i}: no candidate marked as the answer where <unk> follows`);
      } else assert.ok(['✓', ''].includes(scored.marks[i]), `position ${i}: its next token is scored (${scored.marks[i]})`);
    });
    assert.equal(scored.marks.filter((x) => x === '–').length, m);
    // Where every next token is <unk>, no position is scored, and the page says so, as the CLI does
    // (it said "right at 0 of 0 positions").
    const allUnknown = c.model === 'tang' ? '月OK' : 'The xyzzy plugh';
    const unknownIds = cliIds(c.model, allUnknown);
    assert.ok(unknownIds.length >= 2 && unknownIds.slice(1).every((id) => id === 0), `${allUnknown}: ${unknownIds}`);
    await page.evaluate((v) => document.querySelector('mha-demo').setAttribute('text', v), allUnknown);
    await page.waitForFunction((v) => {
      const s = document.querySelector('mha-demo').state;
      return s.result && s.result.text === v && s.status === 'idle';
    }, allUnknown, { timeout: WAIT });
    const none = await page.evaluate(() => {
      const section = document.querySelector('mha-demo').shadowRoot.querySelector('section[data-stage="predict"]');
      return { summary: section.querySelector('.predict-summary').textContent, marks: [...section.querySelectorAll('.predict-table tbody tr .mark')].map((td) => td.textContent) };
    });
    const unscored = unknownIds.length - 1;
    assert.equal(none.summary, say(c.lang, 'predict.noneKnown', { m: unscored }));
    assert.deepEqual(none.marks, [...Array(unscored).fill('–'), '']);
    const saidNone = execFileSync(CLI, ['predict', '--model', pageModels[c.model], '--text', allUnknown], { encoding: 'utf8' });
    assert.match(saidNone, new RegExp(`^no position scored: every next token is <unk> \\(${unscored} positions?\\)$`, 'm'));
    assert.doesNotMatch(saidNone, /first choice right/);
    suite.assertNoProblems();
  });
}

// A model of real text takes 15–47 ms a forward (npm run bench:page -- --model tang|brown), more than
// a frame: after the first picture, which the main thread draws at once, its runs are the demo's
// worker's and the main thread only draws (runner.js). A page that allows no worker (its CSP, say)
// still shows every change, run on the main thread.
test('a text change on a model of real text is run by the demo\'s worker; where no worker may start, on the main thread', { timeout: TEST_TIMEOUT }, async () => {
  const text = 'The old farmer sold the land to a man who wanted a house near the river.';
  const changeText = async (t) => {
    await page.evaluate((v) => document.querySelector('mha-demo').setAttribute('text', v), t);
    await page.waitForFunction((v) => {
      const s = document.querySelector('mha-demo').state;
      return s.result && s.result.text === v && s.status === 'idle';
    }, t, { timeout: WAIT });
    // the heads panel, out of view under the maps, follows once the page is idle (views/parts/lazy.js)
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestIdleCallback(() => setTimeout(r, 350), { timeout: 1000 }))));
  };
  // Each run a worker answers, by its text (a listener added before the page's own onmessage).
  await page.addInitScript(() => {
    window.workerRuns = [];
    const PageWorker = window.Worker;
    window.Worker = class extends PageWorker {
      constructor(...args) {
        super(...args);
        this.addEventListener('message', (ev) => ev.data && ev.data.result && window.workerRuns.push(ev.data.result.text));
      }
    };
  });
  await open(`${server.url}?model=brown&lang=en`);
  const opening = await page.evaluate(() => document.querySelector('mha-demo').state.result.text);
  await page.waitForFunction((t) => window.workerRuns.includes(t), opening, { timeout: WAIT }); // the worker readied on it
  await changeText(text);
  assert.deepEqual(await page.evaluate((t) => window.workerRuns.filter((x) => x === t).length, text), 1, 'the worker ran the new text, once');
  const s = await shown();
  assert.deepEqual(s.ids, cliIds('brown', text), 'its ids are the CLI\'s');
  await assertLabelsAsCli('brown', s);
  suite.assertNoProblems();

  // No worker may start: the same change, on the main thread.
  await page.addInitScript(() => {
    window.Worker = class {
      constructor() {
        throw new DOMException('this page allows no worker', 'SecurityError');
      }
    };
  });
  await open(`${server.url}?model=brown&lang=en`);
  await changeText(text);
  const t = await shown();
  assert.deepEqual(t.ids, cliIds('brown', text));
  assert.deepEqual(t.panelLabels, s.panelLabels, 'the same heads, named the same');
  // and their importance on it, a gradient pass of the whole core on the main thread after the frame
  await importanceShown(page, WAIT);
  assert.deepEqual(await importanceTexts(), cliImportance('brown', text, t.layer), 'the importance, computed on the main thread');
  assert.deepEqual(await page.evaluate(() => window.workerRuns), [], 'no worker ran');
  suite.assertNoProblems();
});

test('a page without a model attribute opens on the model of its language, writes it into the link, and keeps it when the language changes', { timeout: TEST_TIMEOUT }, async () => {
  for (const [lang, model, layer] of [['zh', 'tang', OPENS_AT.tang], ['en', 'brown', OPENS_AT.brown]]) {
    await open(`${server.url}?lang=${lang}`);
    const s = await shown();
    assert.equal(s.model, model, `a ${lang} page opens on ${model}`);
    assert.equal(s.layer, layer);
    assert.equal(s.stage, 'attend');
    await assertLabelsAsCli(model, s);
    assert.equal(await page.evaluate(() => document.querySelector('mha-demo').getAttribute('model')), model, 'the attribute says which model is shown');
    await page.waitForFunction((m) => new URLSearchParams(location.search).get('model') === m, model, { timeout: WAIT });
  }
  // 中文 translates the English page: the model stays the English one.
  await page.locator('#lang').click();
  await page.waitForFunction(() => document.querySelector('mha-demo').state.lang === 'zh', null, { timeout: WAIT });
  await page.waitForTimeout(300);
  assert.equal((await shown()).model, 'brown');
  // An author's demo inside a Chinese article opens on the Tang model too.
  await page.evaluate(() => {
    const holder = document.createElement('div');
    holder.lang = 'zh';
    holder.innerHTML = '<mha-demo id="inner" controls="none"></mha-demo>';
    document.body.append(holder);
  });
  await page.waitForFunction(() => {
    const d = document.getElementById('inner');
    return d.state && d.state.result && d.state.status === 'idle';
  }, null, { timeout: WAIT });
  assert.equal(await page.evaluate(() => document.getElementById('inner').state.settings.model), 'tang');
  suite.assertNoProblems();
});

test('the model menu switches between the models of real text and the induction model: each its own text, at its own layer', { timeout: TEST_TIMEOUT }, async () => {
  await open(`${server.url}?lang=en&model=trained`);
  const start = await shown();
  assert.equal(start.model, 'trained', 'model="trained" is still the induction model');
  await page.locator('#model').selectOption('brown');
  await page.waitForFunction(() => {
    const s = document.querySelector('mha-demo').state;
    return s.result && s.settings.model === 'brown' && s.result.config.tokenizer === 'words' && s.status === 'idle';
  }, null, { timeout: WAIT });
  const s = await shown();
  assert.notEqual(s.text, start.text, 'the learner had not typed: the model\'s own text');
  assert.equal(s.layer, OPENS_AT.brown);
  await assertLabelsAsCli('brown', s);
  // The training panel follows: the English model's record, its small English recipe chosen for
  // Train, then the induction model's again. Both records have 21 snapshots, so it waits for the
  // readout each record's sentence makes.
  const recordOf = (id) => JSON.parse(fs.readFileSync(path.join(ROOT, trainedModels().find((m) => m.id === id).history), 'utf8'));
  const filled = (key, params) => Object.entries(params).reduce((text, [k, v]) => text.replace(`{${k}}`, String(v)), strings[key].en);
  const readout = () => page.evaluate(() => document.querySelector('mha-demo').shadowRoot.querySelector('.train-readout').textContent);
  const readoutIs = (text) => page.waitForFunction((x) => document.querySelector('mha-demo').shadowRoot.querySelector('.train-readout').textContent === x, text, { timeout: WAIT })
    .catch(async () => assert.equal(await readout(), text));
  const brown = recordOf('brown');
  assert.equal(await page.locator('#train-recipe').inputValue(), 'brown');
  const englishLabel = await page.locator('#train-recipe option[value="brown"]').textContent(); // the menu's label of the recipe Train trains
  assert.equal(englishLabel, 'English (Brown corpus): 2 blocks, d_model 64, 4 heads, 1,000 words');
  await readoutIs(filled('train.recordedCorpus', { steps: brown.losses.length, every: brown.every, recipe: englishLabel }));
  await trainingSnapshots(page, brown.snapshots.length, WAIT);
  // The link opens the same.
  await page.waitForFunction(() => new URLSearchParams(location.search).get('model') === 'brown', null, { timeout: WAIT });
  // Back to the induction model: its text again.
  await page.locator('#model').selectOption('trained');
  await page.waitForFunction(() => {
    const st = document.querySelector('mha-demo').state;
    return st.result && st.settings.model === 'trained' && st.status === 'idle';
  }, null, { timeout: WAIT });
  assert.equal((await shown()).text, start.text);
  const induction = recordOf('induction');
  await readoutIs(filled('train.recorded', { steps: induction.losses.length, phase: induction.phaseStep }));
  await trainingSnapshots(page, induction.snapshots.length, WAIT);
  suite.assertNoProblems();
});

// Michel et al.'s pruning on a model of real text: the curve mha prune measured on its held-out text
// (models/NAME.prune.json, the CLI's: tests/node/heads.test.js), drawn at the attend stage with its
// own axis and words; a step switches exactly its heads off, and the prediction is then the CLI's
// with those heads ablated.
test('the English model\'s pruning curve on held-out text: drawn as measured, and a step switches its heads off as `mha predict --ablate` does', { timeout: TEST_TIMEOUT }, async () => {
  const { steps } = JSON.parse(fs.readFileSync(path.join(ROOT, 'models/brown.prune.json'), 'utf8'));
  await open(`${server.url}?model=brown&lang=en&stage=attend`);
  const panel = page.locator('mha-demo').locator('section[data-stage="attend"] .pruning');
  await panel.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelector('mha-demo').shadowRoot.querySelector('section[data-stage="attend"] .pruning .dot'), null, { timeout: WAIT });
  const drawn = await panel.evaluate((el) => ({
    of: el.dataset.pruningOf,
    dots: el.querySelectorAll('.dot').length,
    label: el.querySelector('.pruning-chart').getAttribute('aria-label'),
    ticks: [...el.querySelectorAll('.pruning-chart text')].map((x) => x.textContent),
    now: el.querySelector('.pruning-now').textContent,
    none: el.querySelector('[data-pruning-none]').textContent,
  }));
  assert.equal(drawn.of, 'heldout');
  // what every head gone leaves (a model that reads one token: tests/test_corpus_models.cpp), in the file's figures
  const [all, none] = [steps[0].accuracy, steps.at(-1).accuracy].map((v) => v.toFixed(2));
  assert.equal(drawn.none, say('en', 'pruning.noneText', { n: 16, none, all, gain: (Number(all) - Number(none)).toFixed(2) }));
  assert.equal(drawn.dots, steps.length);
  assert.equal(drawn.label, say('en', 'pruning.chartText'));
  assert.ok(drawn.ticks.includes(say('en', 'pruning.accuracyText')) && drawn.ticks.includes('0.2'), drawn.ticks.join(' | '));
  const nowOf = (k) => say('en', 'pruning.now', { k, list: steps[k].removed.map(([l, h]) => `${l}.${h}`).join(', ') || say('en', 'none'), accuracy: steps[k].accuracy.toFixed(2), loss: steps[k].loss.toFixed(2) });
  assert.equal(drawn.now, nowOf(0));
  // the last quarter to go, named as the heads table names them on held-out text
  const last = steps.at(-1).removed.slice(12).map(([l, h]) => `${l}.${h}`);
  const leans = await panel.evaluate((el) => ({ heads: el.querySelector('[data-pruning-last]').dataset.pruningLast, text: el.querySelector('[data-pruning-last]').textContent }));
  assert.equal(leans.heads, last.join(' '));
  const heldout = (await cliHeldout('brown')).layers;
  for (const head of last) {
    const [l, h] = head.split('.').map(Number);
    const m = heldout[l].heads[h];
    assert.ok(leans.text.includes(`${head}: ${m.label === 'mixed' ? '' : say('en', `label.${m.label}`)}`), `${head} named as held-out text names it (${m.label}): ${leans.text}`);
  }
  const k = 12;
  await page.locator('#pruning-step').fill(String(k));
  const off = steps[k].removed.map(([l, h]) => `${l}.${h}`).sort();
  await page.waitForFunction((want) => {
    const st = document.querySelector('mha-demo').state;
    return st.status === 'idle' && JSON.stringify(st.settings.switchedOff.map(([l, h]) => `${l}.${h}`).sort()) === JSON.stringify(want);
  }, off, { timeout: WAIT });
  // the panel, a part under the maps, follows the change a moment after its frame (lazy.js)
  const nowLine = () => panel.evaluate((el) => el.querySelector('.pruning-now').textContent);
  await page.waitForFunction((want) => document.querySelector('mha-demo').shadowRoot.querySelector('section[data-stage="attend"] .pruning-now').textContent === want, nowOf(k), { timeout: WAIT })
    .catch(async () => assert.equal(await nowLine(), nowOf(k)));
  const text = await page.evaluate(() => document.querySelector('mha-demo').state.settings.text);
  await page.evaluate(() => window.mhaPage.goTo('predict'));
  const right = await page.evaluate(() => Number(document.querySelector('mha-demo').shadowRoot.querySelector('section[data-stage="predict"] .predict-summary').dataset.right));
  const said = execFileSync(CLI, ['predict', '--model', pageModels.brown, '--text', text, '--ablate', off.join(',')], { encoding: 'utf8' });
  assert.equal(right, Number(/first choice right at (\d+) of/.exec(said)[1]), `${k} heads off (${off.join(', ')}): the page and the CLI agree`);
  suite.assertNoProblems();
});

test('pointing at a named head marks, in its map, the cells its name is about: the cells `mha heads --json` gives; the focus on its switch outlives a rebuilt table', { timeout: TEST_TIMEOUT }, async () => {
  await open(`${server.url}?lang=en`);
  const s = await shown();
  const cli = cliHeads('brown', s.text).layers[s.layer].heads;
  const named = cli.map((hd, i) => ({ i, cells: hd.cells, label: hd.label })).filter((hd) => hd.cells.length > 0);
  assert.ok(named.some((hd) => hd.label === 'verb_subject'), `layer ${s.layer} has a verb → subject head on the opening text`);
  // in the head's tile above, and the same in the small map under its name in the row (in view
  // where the tiles are not)
  const marks = (hd, where = 'tile') => page.evaluate(([h, w]) => {
    const root = document.querySelector('mha-demo').shadowRoot;
    const plot = w === 'tile' ? `.head-tile[data-head="${h}"]` : `.heads-table tr[data-head="${h}"] .head-thumb`;
    const svg = root.querySelector(`section[data-stage="attend"] ${plot} svg.type-cells`);
    return svg ? { viewBox: svg.getAttribute('viewBox'), cells: [...svg.querySelectorAll('rect')].map((r) => [Number(r.getAttribute('y')), Number(r.getAttribute('x'))]) } : null;
  }, [hd, where]);
  const T = s.tokens.length;
  for (const { i, cells } of named) {
    await page.locator(`section[data-stage="attend"] .heads-table tr[data-head="${i}"]`).hover();
    assert.deepEqual(await marks(i), { viewBox: `0 0 ${T} ${T}`, cells }, `head ${i}: the marked cells are the CLI's`);
    assert.deepEqual(await marks(i, 'row'), { viewBox: `0 0 ${T} ${T}`, cells }, `head ${i}: the row's small map marks them too`);
  }
  // Each row's small map is its head's weights, a pixel a cell: no pixel of a row darker than its
  // strongest key's (the sequential scale), the future grey.
  const thumbs = await page.evaluate(() => {
    const demo = document.querySelector('mha-demo');
    const w = demo.state.result.tensors.weights;
    const T = w.shape[3];
    const reader = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
    return [...demo.shadowRoot.querySelectorAll('section[data-stage="attend"] .heads-table tbody tr')].map((tr) => {
      const hd = Number(tr.dataset.head);
      const c = tr.querySelector('.head-thumb canvas');
      reader.canvas.width = c.width;
      reader.canvas.height = c.height;
      reader.drawImage(c, 0, 0);
      const px = reader.getImageData(0, 0, c.width, c.height).data;
      const lightness = (r, k) => px[(r * c.width + k) * 4] + px[(r * c.width + k) * 4 + 1] + px[(r * c.width + k) * 4 + 2];
      let agree = 0;
      for (let r = 1; r < T; r++) {
        const row = [...w.data.subarray(((hd * T) + r) * T, ((hd * T) + r) * T + r + 1)];
        const strongest = row.indexOf(Math.max(...row));
        agree += lightness(r, strongest) === Math.min(...row.map((_, k) => lightness(r, k)));
      }
      return { hd, width: c.width, height: c.height, agree, rows: T - 1, future: T > 1 ? [px[4], px[5], px[6]] : null };
    });
  });
  for (const x of thumbs) {
    assert.deepEqual([x.width, x.height], [T, T], `head ${x.hd}: a pixel a cell`);
    assert.equal(x.agree, x.rows, `head ${x.hd}: in each row, the strongest key is the darkest pixel`);
    assert.deepEqual(x.future, [236, 237, 241], `head ${x.hd}: the future is grey`);
  }
  // Away from the rows: no marks; a switch taken by the keyboard marks its head again.
  await page.mouse.move(1, 1);
  assert.equal(await marks(named[0].i), null);
  await page.locator(`[data-head-switch="${s.layer}.${named[0].i}"]`).focus();
  assert.deepEqual((await marks(named[0].i)).cells, named[0].cells);
  // Another text while the switch keeps the focus: its marks are the new text's cells, not the old.
  const other = 'The old farmer sold the land to a man who wanted a house near the river.';
  const want = cliHeads('brown', other).layers[s.layer].heads[named[0].i].cells;
  assert.ok(want.length > 0, `head ${named[0].i} has cells on “${other}” too`);
  await page.evaluate((text) => document.querySelector('mha-demo').setAttribute('text', text), other);
  await page.waitForFunction((viewBox) => {
    const svg = document.querySelector('mha-demo').shadowRoot.querySelector('section[data-stage="attend"] .head-tile svg.type-cells');
    return svg && svg.getAttribute('viewBox') !== viewBox;
  }, `0 0 ${T} ${T}`);
  // That text gives the table other columns (a type it has no rows for goes), so the panel is built
  // anew: the focus stays on the same head's switch, as the marks do.
  assert.notDeepEqual((await shown()).columns, s.columns, 'the new text changes the columns');
  assert.equal(await page.evaluate(() => document.querySelector('mha-demo').shadowRoot.activeElement.dataset.headSwitch), `${s.layer}.${named[0].i}`,
    'the focus stays on the switch');
  assert.deepEqual((await marks(named[0].i)).cells, want, 'the marks follow the new text');
  assert.deepEqual((await marks(named[0].i, 'row')).cells, want, 'in the row\'s small map too');
  await page.locator('#text').focus();
  assert.equal(await marks(named[0].i), null);
  assert.equal(await marks(named[0].i, 'row'), null);
  // The panel says so where a head has such cells, and not over random weights' unnamed heads.
  const hint = () => page.evaluate(() => document.querySelector('mha-demo').shadowRoot.querySelector('section[data-stage="attend"] .point-cells').checkVisibility());
  assert.equal(await hint(), true);
  await open(`${server.url}?lang=en&model=random&d-model=64&heads=4&stage=attend`);
  assert.equal(await hint(), false);
  suite.assertNoProblems();
});

// How each model of real text formed, as npm run train recorded it (models/ID.history.json): the
// training panel scrubs through it before anything trains, each head of the opening layer named under
// its map as the record names it, with its type on the held-out excerpt; at the last snapshot that is
// the heads table's held-out line for the shipped model.
test('the Chinese page\'s model, the Tang one, has a recorded history', () => {
  assert.ok(trainedModels().find((m) => m.id === 'tang').history, 'models/trained-models.json gives tang no history');
});
for (const model of trainedModels().filter((m) => m.heldout && m.history)) {
  const { id } = model;
  const lang = id === 'tang' ? 'zh' : 'en';
  test(`how the ${id} model formed: the recorded snapshots scrubbed in the training panel, each head named as the record names it`, { timeout: TEST_TIMEOUT }, async () => {
    const history = JSON.parse(fs.readFileSync(path.join(ROOT, model.history), 'utf8'));
    const layer = history.layers[0];
    assert.equal(layer, OPENS_AT[id], 'the record keeps the maps of the layer the page opens on');
    await open(`${server.url}?model=${id}&lang=${lang}`);
    await trainingSnapshots(page, history.snapshots.length, WAIT);
    const at = (index) => scrubTraining(page, index).then(() => page.evaluate((l) => {
      const root = document.querySelector('mha-demo').shadowRoot;
      const heads = [...root.querySelectorAll(`[data-train-head^="${l}."]`)];
      return {
        labels: heads.map((x) => x.querySelector('.head-label').className.replace(/.*label-/, '')),
        metrics: heads.map((x) => x.querySelector('.train-head-metrics').textContent),
        layersShown: root.querySelectorAll('.train-layer').length,
        readout: root.querySelector('.train-readout').textContent,
      };
    }, layer));
    const last = history.snapshots.length - 1;
    const first = await at(0);
    const end = await at(last);
    const labels = (s) => s.heads.layers[layer].heads.map((m) => m.label);
    assert.deepEqual(first.labels, labels(history.snapshots[0]));
    assert.deepEqual(end.labels, labels(history.snapshots[last]));
    assert.equal(end.layersShown, 1, 'one layer recorded, one shown');
    assert.ok(TYPED.some((type) => end.labels.includes(type)) || end.labels.includes('previous_token'), `a typed head at the end: ${end.labels}`);
    assert.ok(!first.labels.some((x) => TYPED.includes(x)), `no typed head at step 0: ${first.labels}`);
    assert.ok(end.readout.includes(String(history.losses.length)) && end.readout.includes(String(history.every)), end.readout);
    // the held-out line under each map is the record's, which for the last snapshot is the shipped
    // model's (scripts/history.js checked the file) as `mha heads --heldout` gives it
    const held = strings['train.heldoutType'][lang].split('{held}')[0].replace('{shown}', '').trim();
    const cli = await cliHeldout(id);
    end.metrics.forEach((text, hd) => {
      assert.ok(text.includes(held), text);
      const x = history.snapshots[last].heldout[layer][hd];
      assert.equal(x.type, cli.layers[layer].heads[hd].label, `head ${layer}.${hd}`);
      if (x.value !== null && x.value !== undefined) assert.ok(text.includes(x.value.toFixed(2)), `${text} lacks ${x.value.toFixed(2)}`);
    });
    await shotOf(page, '.train-panel', path.join(SHOTS, `history-${id}.png`));
    suite.assertNoProblems();
  });
}

// Train it yourself on real text: the page's Tang recipe (catalog.recipes.tang: 2 blocks, d_model 64,
// the 1,000 most frequent characters), from random weights, in the demo's worker, on the slice of the
// poems the page ships beside the widget (mha-text-tang.js). The test's clock: a head named for
// looking a fixed distance back (previous character, or i − k), at 5× its chance or more on the text
// shown, within 90 s of pressing Start, the page drawing 30 frames a second or more meanwhile; and the
// held-out loss drawn beside the training loss, falling.
timedTest('Train it yourself on the Tang poems: a head looks a fixed number of characters back at 5× its chance within 90 s, and the held-out loss falls', { timeout: 180_000 }, async () => {
  await open(`${server.url}?model=tang&lang=zh`);
  await page.evaluate(() => {
    window.__progress = [];
    window.__frames = 0;
    const count = () => {
      window.__frames += 1;
      requestAnimationFrame(count);
    };
    requestAnimationFrame(count);
    document.querySelector('mha-demo').addEventListener('trainprogress', (e) => window.__progress.push(e.detail));
  });
  assert.match(await page.locator('#train-recipe').inputValue(), /^tang$/, "the Tang model's own recipe is offered");
  // each recipe labelled from its own numbers (catalog.recipes), in the page's language
  assert.deepEqual(await page.locator('#train-recipe option').allTextContents(),
    ['唐诗：2 个块，d_model 64，4 个头，1,000 个字', '英语（Brown 语料库）：2 个块，d_model 64，4 个头，1,000 个词', '归纳：2 层，d_model 64，4 个头', '回忆：1 层，d_model 64，4 个头', '归纳：2 层，d_model 32，2 个头']);
  // el.train({task}) starts it; a misspelt key or a recipe the page has not is refused, naming it.
  const refused = await page.evaluate(() => [{ tsak: 'tang' }, { task: 'brwn' }].map((options) => {
    try {
      document.querySelector('mha-demo').train(options);
      return 'trained';
    } catch (e) {
      return `${e.name}: ${e.message}`;
    }
  }));
  assert.match(refused[0], /^TypeError: .*tsak/);
  assert.match(refused[1], /^RangeError: .*'brwn'.*tang/);
  const started = Date.now();
  await page.evaluate(() => document.querySelector('mha-demo').train({ task: 'tang' }));
  await page.waitForFunction(() => window.__progress.some((p) => p.headTypes.some((x) => ['positional', 'previous_token'].includes(x.type) && x.chance && x.value / x.chance >= 5)),
    null, { timeout: 90_000, polling: 250 });
  const seconds = (Date.now() - started) / 1000;
  const { progress, frames } = await page.evaluate(() => ({ progress: window.__progress, frames: window.__frames }));
  const last = progress[progress.length - 1];
  const head = last.headTypes.find((x) => ['positional', 'previous_token'].includes(x.type) && x.chance && x.value / x.chance >= 5);
  console.log(`# Tang in Chromium: head ${head.layer}.${head.head} ${head.type}${head.offset ? ` i − ${head.offset}` : ''} ${head.value.toFixed(2)} = ${(head.value / head.chance).toFixed(1)}× chance after ${seconds.toFixed(1)} s (step ${last.step}, ${last.stepsPerSecond.toFixed(0)} steps/s, ${(frames / seconds).toFixed(0)} frames/s); held-out loss ${progress.find((p) => p.heldout !== null).heldout.toFixed(2)} → ${last.heldout.toFixed(2)}`);
  assert.equal(last.task, 'corpus');
  assert.ok(frames / seconds >= 30, `${(frames / seconds).toFixed(0)} frames a second while it trains`);
  const held = progress.filter((p) => p.heldout !== null).map((p) => p.heldout);
  assert.ok(held.length >= 3 && held[held.length - 1] < held[0] - 0.5, `the held-out loss falls: ${held[0]} → ${held[held.length - 1]}`);
  await shotOf(page, '.train-panel', path.join(SHOTS, 'train-tang.png'));
  await page.evaluate(() => document.querySelector('mha-demo').pause());
  suite.assertNoProblems();
});
