// npm run bench:sweep: the head-count sweep of "Why several heads?" (1, 4 and 64 heads, the recall
// recipe) in headless Chromium and natively. Prints the page's wall time, its workers, the frames per
// second of the page's main thread meanwhile (requestAnimationFrame, with the panel on screen) and its
// longest frame, each model's training time, and `mha sweep`'s time for the same models, with the
// machine's load (this machine is shared: a loaded one is slower). Needs the build.
'use strict';

const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { launchBrowser } = require('../tests/browser/browser.js');
const { startServer } = require('./serve.js');

const ROOT = path.join(__dirname, '..');
const HEADS = [1, 4, 64];

async function inChromium() {
  const server = await startServer(0);
  const browser = await launchBrowser();
  try {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${server.url}?model=recall`);
    await page.waitForFunction(() => window.mhaPage && window.mhaPage.ready, null, { timeout: 30_000 });
    await page.evaluate(() => window.mhaPage.ready);
    return await page.evaluate(async (heads) => {
      const demo = document.querySelector('mha-demo');
      demo.shadowRoot.querySelector('[data-sweep-panel]').scrollIntoView();
      let frames = 0;
      let longest = 0;
      let last = performance.now();
      let on = true;
      const tick = (now) => {
        frames++;
        longest = Math.max(longest, now - last);
        last = now;
        if (on) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      const started = performance.now();
      const rows = await demo.runHeadSweep({ heads });
      const seconds = (performance.now() - started) / 1000;
      on = false;
      const status = demo.shadowRoot.querySelector('[data-sweep-panel] [role="status"]').textContent;
      return { seconds, fps: frames / seconds, longest, status, rows: rows.map((r) => ({ heads: r.heads, accuracy: r.accuracy, seconds: r.seconds })) };
    }, HEADS);
  } finally {
    await browser.close();
    await server.close();
  }
}

function natively() {
  const cli = path.join(ROOT, 'build', 'native', 'mha');
  const started = process.hrtime.bigint();
  const rows = JSON.parse(execFileSync(cli, ['sweep', '--heads', HEADS.join(','), '--json'], { encoding: 'utf8' }));
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, rows };
}

(async () => {
  const load = () => os.loadavg()[0].toFixed(1);
  console.log(`${os.cpus().length} cores, load average ${load()} before`);
  const page = await inChromium();
  console.log(`Chromium: ${HEADS.join(', ')} heads in ${page.seconds.toFixed(1)} s (${page.status.match(/\((\d+) worker/)?.[1] || '?'} workers), ` +
    `main thread ${page.fps.toFixed(0)} frames/s, longest frame ${page.longest.toFixed(0)} ms; load average ${load()}`);
  for (const r of page.rows) console.log(`  ${String(r.heads).padStart(2)} heads: ${r.seconds.toFixed(1)} s, accuracy ${r.accuracy.toFixed(4)}`);
  const cli = natively();
  console.log(`mha sweep (native, one thread): ${cli.seconds.toFixed(1)} s; load average ${load()}`);
  for (const r of cli.rows) console.log(`  ${String(r.heads).padStart(2)} heads: ${r.seconds.toFixed(1)} s, accuracy ${r.accuracy.toFixed(4)}`);
  const same = page.rows.every((r, i) => r.accuracy === cli.rows[i].accuracy);
  console.log(same ? 'the same accuracies in both, to the last bit' : 'ACCURACIES DIFFER between Chromium and native');
  if (!same) process.exitCode = 1;
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
