// Every learner: head colours that stay apart for colour-blind readers and carry their number in
// text, no motion when the reader asked for less, a dark page when the reader's scheme is dark, and
// the enlarged head's row sums in view on a phone.
'use strict';

const { test, beforeEach } = require('node:test');
const assert = require('node:assert/strict');

const { usePageSuite } = require('./browser.js');
const { simLab, de2000, contrast, lum } = require('./vision.js');

const WAIT = 10_000;
const MIN_DE = 10; // CIEDE2000 between any two heads, as each kind of vision sees them
const EIGHT_HEADS = 'model=random&d-model=64&heads=8&text=the cat sat on the mat';

let server;
let page;
const suite = usePageSuite({ files: ['web/index.html', 'web/build/app.js', 'web/build/mha-demo.js'], wait: WAIT });
beforeEach(() => {
  ({ server, page } = suite);
});

async function open(query, stage) {
  await page.goto(`${server.url}?${query}`);
  await page.waitForFunction(() => window.mhaPage && window.mhaPage.ready, null, { timeout: WAIT });
  await page.evaluate(async () => window.mhaPage.ready);
  if (stage) await page.evaluate((s) => window.mhaPage.goTo(s), stage);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

const inDemo = (fn, arg) => page.evaluate(([src, a]) => new Function('root', 'arg', `return (${src})(root, arg)`)(document.querySelector('mha-demo').shadowRoot, a), [fn.toString(), arg]);

for (const scheme of ['light', 'dark']) {
  test(`${scheme}: the 8 heads' colours stay apart under protanopia, deuteranopia and tritanopia, and read as text`, async () => {
    await page.emulateMedia({ colorScheme: scheme });
    await open(EIGHT_HEADS, 'attend');
    const tiles = await inDemo((root) => [...root.querySelectorAll('section[data-stage="attend"] .head-tile')].map((tile) => ({
      text: tile.querySelector('.tile-head').textContent,
      color: getComputedStyle(tile.querySelector('.tile-head')).color,
      background: getComputedStyle(tile).backgroundColor,
    })));
    assert.equal(tiles.length, 8);
    tiles.forEach((tile, hd) => {
      assert.match(tile.text, new RegExp(`\\b${hd}\\b`), `head ${hd}'s tile names its number`);
      assert.ok(contrast(tile.color, tile.background) >= 4.5, `head ${hd}: ${tile.color} on ${tile.background} is ${contrast(tile.color, tile.background).toFixed(2)}:1`);
    });
    for (const vision of ['normal', 'protan', 'deutan', 'tritan']) {
      const labs = tiles.map((tile) => simLab(tile.color, vision));
      for (let i = 0; i < labs.length; i++) {
        for (let j = i + 1; j < labs.length; j++) {
          const d = de2000(labs[i], labs[j]);
          assert.ok(d >= MIN_DE, `${vision}: heads ${i} and ${j} (${tiles[i].color}, ${tiles[j].color}) are ${d.toFixed(1)} apart (CIEDE2000), under ${MIN_DE}`);
        }
      }
    }
    suite.assertNoProblems();
  });
}

test('where a colour tells heads apart, the head is also named in text: split bands, segments, the heads panel and its table', async () => {
  await open(`model=blocks&d-model=32&heads=4&text=the cat sat on the mat`, 'split');
  const split = await inDemo((root) => {
    const s = root.querySelector('section[data-stage="split"]');
    return { segs: [...s.querySelectorAll('.split-seg')].map((e) => e.textContent), tiles: [...s.querySelectorAll('.tile-head:not(.tile-head-spacer)')].map((e) => e.textContent) };
  });
  assert.ok(split.segs.length > 0 && split.segs.every((t) => t.trim()), `split segments: ${JSON.stringify(split.segs)}`);
  assert.ok(split.tiles.length > 0 && split.tiles.every((t) => /\d/.test(t)), `split tiles: ${JSON.stringify(split.tiles)}`);
  for (const stage of ['concat', 'attend']) {
    await page.evaluate((s) => window.mhaPage.goTo(s), stage);
    const named = await inDemo((root, stage) => {
      const s = root.querySelector(`section[data-stage="${stage}"]`);
      return [...s.querySelectorAll('.hm-band, .similarity th, .heads-table tbody th')].map((e) => e.textContent.trim() || e.getAttribute('title') || '');
    }, stage);
    assert.ok(named.every((t) => /\d/.test(t)), `${stage}: a coloured head mark without its number: ${JSON.stringify(named)}`);
  }
  suite.assertNoProblems();
});

test('prefers-reduced-motion: nothing moves, the busy spinners included', async () => {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await open(EIGHT_HEADS, 'attend');
  const moving = await inDemo((root) => {
    // the two spinners, shown as a long run would show them
    root.querySelector('.status').classList.add('busy');
    const progress = root.querySelector('.progress');
    if (progress) progress.hidden = false;
    const out = [];
    for (const el of [...root.querySelectorAll('*'), ...document.querySelectorAll('body *')]) {
      for (const pseudo of [null, '::before', '::after']) {
        const cs = getComputedStyle(el, pseudo);
        const durations = (v) => v.split(',').map((x) => parseFloat(x));
        if (cs.animationName !== 'none' && durations(cs.animationDuration).some((d) => d > 0)) out.push(`${el.className}${pseudo || ''} animation ${cs.animationName} ${cs.animationDuration}`);
        if (durations(cs.transitionDuration).some((d) => d > 0)) out.push(`${el.className}${pseudo || ''} transition ${cs.transitionDuration}`);
        if (cs.scrollBehavior === 'smooth') out.push(`${el.className} scroll-behavior smooth`);
      }
    }
    return out;
  });
  assert.deepEqual(moving, []);
  suite.assertNoProblems();
});

test('prefers-color-scheme: dark gives a dark demo and a dark page, with light ink', async () => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await open(EIGHT_HEADS, 'attend');
  const seen = await page.evaluate(() => {
    const root = document.querySelector('mha-demo').shadowRoot;
    const cs = (el) => getComputedStyle(el);
    return {
      page: cs(document.documentElement).backgroundColor,
      demo: cs(root.querySelector('.mha')).backgroundColor,
      stage: cs(root.querySelector('section[data-stage="attend"]')).backgroundColor,
      ink: cs(root.querySelector('section[data-stage="attend"] .stage-title')).color,
      tile: cs(root.querySelector('.head-tile')).backgroundColor,
    };
  });
  for (const key of ['page', 'demo', 'stage', 'tile']) assert.ok(lum(seen[key]) < 0.05, `${key} background ${seen[key]} is not dark`);
  assert.ok(contrast(seen.ink, seen.stage) >= 7, `title ${seen.ink} on ${seen.stage}`);
  suite.assertNoProblems();
});

test('390 px wide: the enlarged head keeps its row sums (Σ) in view of its scroll container', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  for (const query of ['model=trained', 'text=我是秦始皇']) {
    await open(query, 'attend');
    const cut = await inDemo((root) => {
      const box = root.querySelector('.head-detail .hm-numbers');
      box.scrollIntoView({ block: 'center' });
      let el = box;
      while (el && getComputedStyle(el).overflowX === 'visible') el = el.parentElement;
      const view = el.getBoundingClientRect();
      return [...root.querySelectorAll('.head-detail .hm-sum, .head-detail .hm-sumhead')]
        .map((s) => [s.textContent, s.getBoundingClientRect()])
        .filter(([, r]) => r.left < view.left - 0.5 || r.right > view.left + el.clientWidth + 0.5)
        .map(([text, r]) => `${text} at ${Math.round(r.left)}-${Math.round(r.right)}, shown ${Math.round(view.left)}-${Math.round(view.left + el.clientWidth)}`);
    });
    assert.deepEqual(cut, [], `${query}: Σ cells cut off`);
  }
  suite.assertNoProblems();
});
