// Headless Chromium for the browser tests (tests/browser/, tests/live/):
// Debian's chromium (LPSIM_CHROMIUM overrides /usr/bin/chromium) driven by
// playwright-core from report/web/node_modules. A missing browser or package
// skips the test (exit code 77, ctest's SKIP_RETURN_CODE), it does not fail it.
//
//   const browser = require('../common/chromium');
//   const t = browser.setUp();  // node TEST.js LPSIM_BIN OUT_DIR
//   if (t.code !== undefined) return t.code;  // 2: usage, 77: skipped (it says why)
//   const context = await browser.launch(t.chromium, path.join(t.outDir, 'profile'), {width: 1400, height: 1000});
//   const page = context.pages()[0] || await context.newPage();
//   const errors = browser.pageErrors(page);  // console errors and uncaught exceptions
'use strict';
const fs = require('fs');
const path = require('path');

const SKIP = 77;
const executablePath = process.env.LPSIM_CHROMIUM || '/usr/bin/chromium';

// Marks the test failed (exit code 1) and goes on, so one run reports every
// failure.
function fail(msg) {
  console.error('FAIL: ' + msg);
  process.exitCode = 1;
}

// playwright-core's chromium, or the reason the test is skipped.
function load() {
  if (!fs.existsSync(executablePath)) {
    return {skip: 'no Chromium at ' + executablePath + ' (scripts/setup.sh installs it)'};
  }
  try {
    const {chromium} = require(path.join(__dirname, '../../report/web/node_modules/playwright-core'));
    return {chromium};
  } catch (e) {
    return {skip: 'playwright-core is not installed (scripts/setup.sh runs npm ci in report/web)'};
  }
}

// The test's command line (LPSIM_BIN OUT_DIR), the browser, and OUT_DIR
// emptied, with runDir = OUT_DIR/run for the demo's run; {code} instead when
// the test cannot run: 2 on a bad command line, SKIP without a browser.
function setUp() {
  const [lpsim, outDir] = process.argv.slice(2);
  if (!lpsim || !outDir) {
    console.error('usage: node ' + path.basename(process.argv[1]) + ' LPSIM_BIN OUT_DIR');
    return {code: 2};
  }
  const {chromium, skip} = load();
  if (skip) {
    console.log('SKIP: ' + skip);
    return {code: SKIP};
  }
  fs.rmSync(outDir, {recursive: true, force: true});
  fs.mkdirSync(outDir, {recursive: true});
  return {lpsim, outDir, chromium, runDir: path.join(outDir, 'run')};
}

// A headless browser with its own profile in profileDir; close it when done.
function launch(chromium, profileDir, viewport) {
  return chromium.launchPersistentContext(profileDir, {
    executablePath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--no-first-run'],
    viewport,
  });
}

// The page's console errors and uncaught exceptions, as they come.
function pageErrors(page) {
  const errors = [];
  page.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text()); });
  page.on('pageerror', (err) => errors.push(String(err)));
  return errors;
}

module.exports = {SKIP, fail, setUp, launch, pageErrors};
