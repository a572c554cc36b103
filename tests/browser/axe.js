// axe-core (WCAG 2.1 A and AA rules, and its best practices) over a page of the suite's browser: the
// shared steps of a11y.test.js and a11y-real-text.test.js (two files, so npm test runs them side by
// side: scripts/test.sh).
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');

const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const WAIT = 10_000;
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];
// The page's models, each as index.html's query opens it.
const MODELS = { tang: 'model=tang', brown: 'model=brown', trained: 'model=trained', recall: 'model=recall', random: 'model=random&d-model=64&heads=4&kv-heads=2&causal', blocks: 'model=blocks&d-model=32&heads=4' };
// The models a11y-real-text.test.js sweeps; a11y.test.js sweeps the others.
const REAL_TEXT = ['tang', 'brown'];
// The stages with the most colour (head tiles, bands, the heads panel, the prediction): the dark scheme's.
const DARK_STAGES = ['tokenize', 'split', 'attend', 'concat', 'mlp', 'predict'];
// The rules that read colours, the only ones the dark scheme can change: its document is the English
// one's, which every rule has checked on every stage.
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

// In a page: until each demo's background work after its first picture is in (a shipped model's
// heads' importance, the trained model's pruning curve; the shown stage's circuits' scores) and the
// document's height, demos' included, has held for 400 ms; at most `timeout` ms.
async function settled(timeout) {
  const t0 = performance.now();
  const height = () => document.documentElement.scrollHeight + [...document.querySelectorAll('mha-demo')].reduce((a, d) => a + d.getBoundingClientRect().height, 0);
  // the shown stage still says it is computing something (the circuits' scores of a shipped model
  // come from a worker, the pruning curve too): what replaces the note is taller
  const computing = '[data-circ="scoring"], [data-pruning="computing"]';
  const pending = () => [...document.querySelectorAll('mha-demo')].some((d) => (d.state && d.state.settings.model === 'trained' && d.state.result && !(d.state.pruning && d.state.importance))
    || [...d.shadowRoot.querySelectorAll('section[data-stage]:not([hidden])')].some((s) => s.querySelector(computing))
    // a heads table still waiting for its heads' importance (a shipped model's, from a worker)
    || [...d.shadowRoot.querySelectorAll('.heads-table td[data-metric="importance"] .metric-value')].some((e) => !/\d/.test(e.textContent)));
  let last = -1;
  let since = t0;
  while (performance.now() - t0 < timeout) {
    const h = height();
    if (h !== last || pending()) [last, since] = [h, performance.now()];
    else if (performance.now() - since >= 400) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

// In a page: every demo lays out all its parts, not only those near the viewport (widget.css:
// content-visibility: auto). axe reads every box from one layout, in which a part the page has not
// drawn yet is a 320 px placeholder and its contents spill over the parts under it: a reader never
// sees that (a part is drawn as it comes near), but axe judged text against a cell of the part above.
function drawnWhole() {
  for (const demo of document.querySelectorAll('mha-demo')) {
    const root = demo.shadowRoot;
    if (!root || root.adoptedStyleSheets.some((s) => s.axeDrawnWhole)) continue;
    const sheet = new CSSStyleSheet();
    sheet.replaceSync('.stack > *, .train-root { content-visibility: visible !important; }');
    sheet.axeDrawnWhole = true;
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  }
}

// In a page: the demo's sections of these stages shown at once, one under another (each is hidden
// but the one of the current stage): what a learner sees stage by stage, read by axe in one run.
function allShown(stages) {
  const demo = document.querySelector('mha-demo');
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(stages.map((s) => `section[data-stage="${CSS.escape(s)}"][hidden] { display: block !important; }`).join('\n'));
  demo.shadowRoot.adoptedStyleSheets = [...demo.shadowRoot.adoptedStyleSheets, sheet];
}

// {violations, stageViolations, everyStageShown} on the suite's current page (usePageSuite).
function useAxe(suite) {
  // Waits for every demo on the page and in its iframes (scrolled into view: they load lazily), then
  // runs axe over the document, shadow roots and frames included (landmarks must be unique across them).
  // rules: only these (axe's rule ids), not every rule of TAGS. settle: first wait until what a demo
  // computes in the background after its first picture has landed (the trained model's pruning curve
  // and importance, from its worker), and the documents' heights have held for 400 ms: axe reads the
  // layout once, at its start, and a part that grows while it runs (the pruning curve replacing its
  // "computing" line) moves what is below it under other elements' colours (a false contrast failure).
  // Each violation's nodes say the stage they are in, if any ([stage]).
  async function violations({ rules = null, settle = true } = {}) {
    const page = suite.page;
    await page.evaluate(() => {
      for (const frame of document.querySelectorAll('iframe')) frame.scrollIntoView();
    });
    const ready = () => Promise.all([...document.querySelectorAll('mha-demo')].map((d) => d.ready.catch(() => {})));
    await page.evaluate(ready);
    for (const frame of page.frames().filter((f) => f !== page.mainFrame())) {
      await frame.waitForFunction(() => document.readyState === 'complete' && document.querySelector('mha-demo') && customElements.get('mha-demo'), null, { timeout: WAIT });
      await frame.evaluate(ready);
      if (!(await frame.evaluate(() => typeof window.axe === 'object'))) await frame.addScriptTag({ content: AXE });
    }
    for (const frame of page.frames()) await frame.evaluate(drawnWhole);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    if (settle) for (const frame of page.frames()) await frame.evaluate(settled, WAIT);
    if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.addScriptTag({ content: AXE });
    return page.evaluate(async ([tags, rules]) => {
      const runOnly = rules ? { type: 'rule', values: rules } : { type: 'tag', values: tags };
      const result = await window.axe.run(document, { runOnly, resultTypes: ['violations'] });
      // The stage a node is in. Its target is a selector a frame at a time, each one (an array) a
      // selector a shadow root at a time.
      const stageOf = (target) => {
        let el = null;
        for (const [f, part] of target.entries()) {
          for (const [i, sel] of (Array.isArray(part) ? part : [part]).entries()) {
            const root = i > 0 ? el && el.shadowRoot : f > 0 ? el && el.contentDocument : document;
            el = root && root.querySelector(sel);
          }
        }
        const section = el && el.closest && el.closest('section[data-stage]');
        return section ? `[${section.dataset.stage}] ` : '';
      };
      return result.violations.map((v) => `${v.id} (${v.nodes.length}): ${v.help}\n${v.nodes.slice(0, 3).map((n) => `    ${stageOf(n.target)}${n.target.join(' ')}: ${(n.failureSummary || '').replace(/\s+/g, ' ').slice(0, 220)}`).join('\n')}`);
    }, [TAGS, rules]);
  }

  // index.html?query, each stage `keep` accepts: violations found. Each stage is shown in turn, as a
  // learner steps to it (its views are built then, and its background work, where it has any, is let
  // settle); then all of them are shown at once, one under another, and axe runs over the document
  // once. axe's cost is mostly each run's (its tree of the whole document, the page's controls again):
  // one run over the Tang model's 15 stages took 4.2 s where a run a stage took 17 s (2026-12-01).
  // With `rules`, those alone.
  async function stageViolations(query, keep = () => true, rules = null) {
    await everyStageShown(query, keep);
    return violations({ rules });
  }

  // index.html?query with each stage `keep` accepts visited, then all of them shown (stageViolations).
  async function everyStageShown(query, keep = () => true) {
    const page = suite.page;
    const server = suite.server;
    await page.goto(`${server.url}?${query}`);
    await page.waitForFunction(() => window.mhaPage && window.mhaPage.ready, null, { timeout: WAIT });
    const stages = (await page.evaluate(async () => (await window.mhaPage.ready).stages)).filter(keep);
    for (const [i, stage] of stages.entries()) {
      await page.evaluate((s) => window.mhaPage.goTo(s), stage);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      // settled at the first stage, and at the one whose parts come from a worker after its picture
      if (i === 0 || stage === 'attend') await page.evaluate(settled, WAIT);
    }
    await page.evaluate(allShown, stages);
  }
  return { violations, stageViolations, everyStageShown };
}

// The tests of each model of `models`, as [name, options, body] for the file to declare (node:test
// counts a test as its declaring file's: tests/time-by-file.mjs): every stage in English and in
// Chinese, and the dark scheme's stages.
function modelSweeps(suite, models) {
  const { stageViolations } = useAxe(suite);
  const none = (found) => {
    assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
    suite.assertNoProblems();
  };
  const sweeps = [];
  for (const model of models) {
    for (const lang of ['en', 'zh']) {
      sweeps.push([`index.html, ${model} model, ${lang}: no axe violations on any stage`, { timeout: 120_000 }, async () => {
        none(await stageViolations(`${MODELS[model]}&lang=${lang}`));
      }]);
    }
    sweeps.push([`dark: index.html, ${model} model: no axe violations`, { timeout: 120_000 }, async () => {
      await suite.page.emulateMedia({ colorScheme: 'dark' });
      none(await stageViolations(MODELS[model], (stage) => DARK_STAGES.includes(stage), COLOUR_RULES));
    }]);
  }
  return sweeps;
}

module.exports = { useAxe, modelSweeps, MODELS, REAL_TEXT, WAIT };
