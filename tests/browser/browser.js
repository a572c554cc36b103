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

module.exports = { launchBrowser, CHROMIUM, ARGS };
