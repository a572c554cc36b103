// The widget's download size: mha-demo.js (core, wasm, API and component in one script) stays within
// its budget, gzipped as a server or a CDN would send it.
'use strict';

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');

const BUILD = path.join(__dirname, '..', '..', 'web', 'build');
const { trainedModels } = require('../../scripts/web-parts.js');
// The widget, and each trained model's script beside it (models/trained-models.json),
// and each language besides English (mha-zh.js: the strings in Chinese). The models of real text
// (4 layers, d_model 128, a vocabulary of 3,003 characters or 4,002 words) are about 1.2 M
// parameters each, as F16 in base64: loaded only when shown, and never part of the widget's budget.
const MODEL_BUDGET_KB = { tang: 2500, brown: 2750 };
const BUDGET = {
  'mha-demo.js': 300 * 1024,
  ...Object.fromEntries(trainedModels().map((m) => [m.script, (MODEL_BUDGET_KB[m.id] || 120) * 1024])),
  'mha-zh.js': 30 * 1024,
  // each part of the widget (web/src/parts.js), loaded when a demo first shows it
  'mha-training.js': 16 * 1024,
  'mha-downloads.js': 8 * 1024,
  'mha-decoding.js': 8 * 1024,
  'mha-circuits.js': 8 * 1024,
  // how the induction model formed (scripts/history.js), loaded when the training panel shows its recipe
  'mha-history-induction.js': 40 * 1024,
  // and the recall model: 21 snapshots of its one layer
  'mha-history-recall.js': 20 * 1024,
  // how the Tang model formed: 21 snapshots of layer 0's maps on its poem, packed (web/src/historyMaps.js)
  'mha-history-tang.js': 120 * 1024,
  // and the English one: 21 snapshots of layer 2's maps on its sentence
  'mha-history-brown.js': 40 * 1024,
  // the whole WebAssembly core (the Trainer, headImportance, prune), loaded when a demo first trains
  'mha-gradients.js': 240 * 1024,
  // the texts the page's recipes of real text train on (models/corpus: a vocabulary, a 1 MB slice, the held-out excerpt)
  'mha-text-tang.js': 800 * 1024,
  'mha-text-brown.js': 600 * 1024,
};

for (const [file, budget] of Object.entries(BUDGET)) {
  test(`${file} is at most ${budget / 1024} KB gzipped`, () => {
    const bytes = fs.readFileSync(path.join(BUILD, file));
    const gzipped = zlib.gzipSync(bytes, { level: 6 }).length;
    console.log(`# ${file}: ${(bytes.length / 1024).toFixed(0)} KB, ${(gzipped / 1024).toFixed(0)} KB gzipped`);
    assert.ok(gzipped <= budget, `${file} is ${(gzipped / 1024).toFixed(1)} KB gzipped, over its ${budget / 1024} KB budget`);
  });
}

test('the widget carries the wasm gzipped, not as the core\'s base64 data: URI', () => {
  const text = fs.readFileSync(path.join(BUILD, 'mha-demo.js'), 'utf8');
  assert.doesNotMatch(text, /data:application\/octet-stream;base64,[A-Za-z0-9+/]{100}/);
});

// A part's code and strings are in its own script, not in the widget as well (web/src/parts.js).
test('every part of the widget has a budget above, and its strings are in its script, not the widget', async () => {
  const { PARTS, partScript, partOfString } = await import('../../web/src/parts.js');
  const { STRINGS } = await import('../../web/src/strings.js');
  const widget = fs.readFileSync(path.join(BUILD, 'mha-demo.js'), 'utf8');
  for (const name of Object.keys(PARTS)) {
    assert.ok(BUDGET[partScript(name)], `${partScript(name)} has no budget in bundle.test.js`);
    const script = fs.readFileSync(path.join(BUILD, partScript(name)), 'utf8');
    const keys = Object.keys(STRINGS).filter((key) => partOfString(key) === name);
    assert.equal(keys.length > 0, PARTS[name].strings.length > 0, `the part '${name}' has the strings it declares`);
    for (const key of keys) {
      assert.ok(script.includes(JSON.stringify(key)), `${key} is in ${partScript(name)}`);
      assert.ok(!widget.includes(JSON.stringify(key)), `${key} is not in mha-demo.js as well`);
    }
  }
});

// The text a recipe of real text trains on carries its probe: the corpus's model's opening text as
// that vocabulary reads it (`mha tokenize`), which the training panel shows while another model is on
// the page.
for (const corpus of ['tang', 'brown']) {
  test(`mha-text-${corpus}.js: the Trainer's text, and the opening text as \`mha tokenize\` reads it`, async () => {
    const vm = require('node:vm');
    const { execFileSync } = require('node:child_process');
    const { OPENING_TEXTS } = await import('../../web/src/openingTexts.js');
    const self = {};
    vm.runInNewContext(fs.readFileSync(path.join(BUILD, `mha-text-${corpus}.js`), 'utf8'), { self });
    const { probe, ...text } = self.mhaTexts[corpus];
    assert.deepEqual(Object.keys(text).sort(), ['heldout', 'train', 'vocabulary']);
    assert.equal(text.train, fs.readFileSync(path.join(__dirname, '..', '..', 'models', 'corpus', `${corpus}.slice.txt`), 'utf8'));
    const cli = JSON.parse(execFileSync(path.join(__dirname, '..', '..', 'build', 'native', 'mha'),
      ['tokenize', '--model', path.join(__dirname, '..', '..', 'models', `${corpus}.safetensors`), '--text', OPENING_TEXTS[corpus], '--json'], { encoding: 'utf8' }));
    assert.equal(probe.text, OPENING_TEXTS[corpus]);
    assert.deepEqual([...probe.ids], cli.ids);
    // the panel runs it through the page's small model, whose positions are its recipe's window
    const { window } = JSON.parse(fs.readFileSync(path.join(BUILD, 'catalog.json'), 'utf8')).recipes[corpus];
    assert.ok(probe.ids.length > 0 && probe.ids.length <= window, `${probe.ids.length} tokens, the recipe's window ${window}`);
  });
}
