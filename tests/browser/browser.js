// Shared browser launch for the page tests and scripts/screenshot.js.
// Always Debian's Chromium: playwright-core never downloads a browser.
'use strict';

const { chromium } = require('playwright-core');

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function launchBrowser() {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

// Records into `problems` every console error or warning, page error, failed request and HTTP
// error of `page`, except those isExpected(text) says a test provoked on purpose.
function watchPage(page, problems, isExpected = () => false) {
  page.on('console', (msg) => {
    if ((msg.type() === 'error' || msg.type() === 'warning') && !isExpected(msg.text())) {
      const loc = msg.location();
      problems.push(`console.${msg.type()}: ${msg.text()}${loc && loc.url ? ` (${loc.url}:${loc.lineNumber})` : ''}`);
    }
  });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.stack || err.message}`));
  page.on('requestfailed', (req) => {
    const text = `${req.url()} ${req.failure()?.errorText}`;
    if (!isExpected(text)) problems.push(`request failed: ${text}`);
  });
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`);
  });
}

// Registers the hooks every page test file needs: the built files must exist, one server and one
// browser for the file, a fresh 1280×900 en-US context and watched page per test. Returns the
// live state ({server, page, problems, assertNoProblems()}); read it in a beforeEach.
function usePageSuite({ files, wait, contextOptions = {}, isExpected }) {
  const { before, after, beforeEach, afterEach } = require('node:test');
  const assert = require('node:assert/strict');
  const fs = require('node:fs');
  const path = require('node:path');
  const { startServer } = require('../../scripts/serve.js');
  const root = path.join(__dirname, '..', '..');
  const suite = { server: null, browser: null, context: null, page: null, problems: [] };

  before(async () => {
    for (const file of files) {
      assert.ok(fs.existsSync(path.join(root, file)), `${file} is missing (npm run build:wasm && npm run build:web)`);
    }
    suite.server = await startServer(0);
    suite.browser = await launchBrowser();
  });
  after(async () => {
    if (suite.browser) await suite.browser.close();
    if (suite.server) await suite.server.close();
  });
  beforeEach(async () => {
    suite.problems = [];
    suite.context = await suite.browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', ...contextOptions });
    suite.page = await suite.context.newPage();
    suite.page.setDefaultTimeout(wait);
    watchPage(suite.page, suite.problems, isExpected);
  });
  afterEach(async () => {
    if (suite.context) await suite.context.close();
    suite.context = null;
  });
  // Called at the end of every test body, so a console error fails the test it happened in.
  suite.assertNoProblems = () =>
    assert.deepEqual(suite.problems, [], `console errors/warnings or page errors:\n${suite.problems.join('\n')}`);
  return suite;
}

module.exports = { launchBrowser, watchPage, usePageSuite, CHROMIUM, ARGS };
