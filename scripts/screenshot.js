#!/usr/bin/env node
// Writes web/screenshot-attend.png (for the README): the page as it opens in English, the English
// model's layer 3 at the attend stage, with its heads' maps and the panel that measures and names them.
//   node scripts/screenshot.js
// Needs web/build/mha-core.js, web/build/app.js and web/build/mha-demo.js (npm run build:wasm, npm run build:web).
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { startServer } = require('./serve.js');
const { launchBrowser } = require('../tests/browser/browser.js');

const ROOT = path.join(__dirname, '..');
const OUT = path.join(ROOT, 'web', 'screenshot-attend.png');

async function main() {
  for (const file of ['web/index.html', 'web/build/mha-core.js', 'web/build/app.js', 'web/build/mha-demo.js']) {
    if (!fs.existsSync(path.join(ROOT, file))) {
      throw new Error(`${file} is missing: run npm run build:wasm and npm run build:web first`);
    }
  }
  const server = await startServer(0);
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1240 }, locale: 'en-US' });
    page.setDefaultTimeout(15_000);
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // Console errors are reported but do not stop the picture (a missing favicon is one); page errors do.
    page.on('console', (m) => m.type() === 'error' && console.warn(`page console error: ${m.text()} (${m.location().url})`));

    await page.goto(server.url);
    await page.waitForFunction(() => window.mhaPage && window.mhaPage.ready);
    await page.evaluate(async () => {
      await window.mhaPage.ready;
    });
    await page.waitForFunction(() => {
      const root = document.querySelector('mha-demo').shadowRoot; // the page is one <mha-demo>
      return root.querySelector('[data-stage-button="attend"]')?.getAttribute('aria-current') === 'step' &&
        root.querySelector('section[data-stage="attend"] .heads-panel');
    });
    // Let transitions settle before the picture.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.waitForTimeout(300);
    if (errors.length) throw new Error(`the page reported errors:\n${errors.join('\n')}`);
    await page.screenshot({ path: OUT });
    console.log(`Wrote ${path.relative(process.cwd(), OUT) || OUT}`);
  } finally {
    await browser.close();
    await server.close();
  }
}

main().catch((e) => {
  console.error(`screenshot: ${e.message}`);
  process.exit(1);
});
