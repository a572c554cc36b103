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

module.exports = { launchBrowser, watchPage, CHROMIUM, ARGS };
