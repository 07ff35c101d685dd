// The HTML report in a real browser: headless Chromium (the Debian package)
// driven by playwright-core loads a report generated from a small real run,
// checks that every chart rendered with data and no console error, clicks a
// heatmap cell and checks that the histogram follows, and keeps screenshots.
//
//   node report_browser_test.js LPSIM_BIN OUT_DIR
// Exit: 0 pass, 1 fail, 77 skipped (no Chromium or no playwright-core).
'use strict';
const fs = require('fs');
const path = require('path');
const {execFileSync} = require('child_process');
const browser = require('../common/chromium');

const {fail} = browser;

async function main() {
  const t = browser.setUp();
  if (t.code !== undefined) return t.code;
  const {lpsim, outDir, chromium, runDir} = t;
  // A small real run; demo writes RUN_DIR/report.html and prints its path.
  const out = execFileSync(lpsim, ['demo', '--steps', '20', '--quiet', '--run-dir', runDir],
    {encoding: 'utf8'});
  const m = out.match(/Report written to (.*)/);
  if (!m) { fail('lpsim demo did not print the report path:\n' + out); return 1; }
  const report = m[1].trim();
  if (!fs.existsSync(report)) { fail('no report at ' + report); return 1; }
  const html = fs.readFileSync(report, 'utf8');
  if (/<script[^>]+src=/i.test(html) || /<link[^>]+href=/i.test(html)) {
    fail('the report loads external resources');
  }

  const context = await browser.launch(chromium, path.join(outDir, 'profile'), {width: 1400, height: 1000});
  let errors = [];
  const requests = [];
  try {
    const page = context.pages()[0] || await context.newPage();
    errors = browser.pageErrors(page);
    page.on('request', (req) => { if (!req.url().startsWith('file:') && !req.url().startsWith('data:')) requests.push(req.url()); });
    await page.goto('file://' + path.resolve(report));
    await page.waitForFunction(() => window.lpsim && window.lpsim.ready, null, {timeout: 30000});
    await page.evaluate(() => window.lpsim.ready);

    // Every chart has marks and data.
    const counts = await page.evaluate(() => {
      const marks = (id) => document.querySelectorAll('#' + id + ' svg .mark-rect path, #' + id +
        ' svg .mark-line path, #' + id + ' svg .mark-symbol path').length;
      const v = window.lpsim.views;
      return {
        heatmap: marks('heatmap'), hist: marks('hist'), scalars: marks('scalars'),
        cells: v.heatmap ? v.heatmap.data('cells').length : 0,
        bins: v.hist ? v.hist.data('bins').length : 0,
        zones: v.hist ? v.hist.data('zones').length : 0,
        scalarRows: v.scalars ? v.scalars.data('scalars').length : 0,
        recRows: document.querySelectorAll('#rec-table > table > tbody > tr').length,
        findings: document.getElementById('findings').textContent.length,
      };
    });
    console.log('marks and data: ' + JSON.stringify(counts));
    for (const k of ['heatmap', 'hist', 'scalars', 'cells', 'bins', 'zones', 'scalarRows']) {
      if (!(counts[k] > 0)) fail('chart data "' + k + '" is empty');
    }
    if (counts.recRows < 2) fail('the recommendation table has no rows');
    if (!(counts.findings > 0)) fail('the findings section is empty');
    await page.screenshot({path: path.join(outDir, 'report.png'), fullPage: true});

    // Click the first heatmap cell (the first step of the top layer); the
    // histogram starts on the last step, so its title and data must change.
    const before = await page.textContent('#hist-title');
    const state0 = await page.evaluate(() => [window.lpsim.state.t, window.lpsim.state.s]);
    await page.locator('#heatmap svg .mark-rect path').first().click();
    await page.waitForFunction((b) => document.getElementById('hist-title').textContent !== b, before,
      {timeout: 10000}).catch(() => fail('clicking a heatmap cell did not change the histogram'));
    const after = await page.textContent('#hist-title');
    const state1 = await page.evaluate(() => [window.lpsim.state.t, window.lpsim.state.s]);
    console.log('histogram: "' + before + '" -> "' + after + '"');
    if (state0[0] === state1[0] && state0[1] === state1[1]) fail('the histogram still shows the same record');
    const bins = await page.evaluate(() => window.lpsim.views.hist.data('bins').length);
    if (!(bins > 0)) fail('the histogram after the click has no data');
    await page.locator('#hist-section').screenshot({path: path.join(outDir, 'histogram-after-click.png')});
    await page.locator('#heat-section').screenshot({path: path.join(outDir, 'heatmap.png')});
    await page.locator('#rec-section').screenshot({path: path.join(outDir, 'recommendation.png')});
    // The shared crosshair: the pointer over one scalar chart draws a rule
    // in every row (one per scalar name at that step).
    await page.locator('#scalars').scrollIntoViewIfNeeded();
    const box = await page.locator('#scalars svg').boundingBox();
    for (const f of [0.45, 0.5]) {
      await page.mouse.move(box.x + box.width * f, box.y + box.height * 0.5);
      await page.waitForTimeout(200);
    }
    const rules = await page.evaluate(() => document.querySelectorAll('#scalars svg .mark-rule.role-mark line').length);
    console.log('crosshair rules: ' + rules);
    if (rules < 2) fail('hovering the training curves draws no shared crosshair');
    await page.locator('#scalar-section').screenshot({path: path.join(outDir, 'scalars.png')});
  } finally {
    await context.close();
  }
  // `lpsim report --target`: the break prediction on each target, worded
  // as lpsim check --target words it, above the findings.
  const targeted = path.join(outDir, 'targeted.html');
  execFileSync(lpsim, ['report', runDir, '--target', 'b200-nvfp4,fp16-npu-ftz', '-o', targeted], {encoding: 'utf8'});
  const context2 = await browser.launch(chromium, path.join(outDir, 'profile2'), {width: 1400, height: 1000});
  try {
    const page = context2.pages()[0] || await context2.newPage();
    const more = browser.pageErrors(page);
    await page.goto('file://' + path.resolve(targeted));
    await page.waitForFunction(() => window.lpsim && window.lpsim.ready, null, {timeout: 30000});
    const lines = await page.evaluate(() => Array.from(document.querySelectorAll('#predictions li'), (li) => li.textContent));
    console.log('predictions: ' + JSON.stringify(lines));
    if (lines.length !== 2) fail('expected 2 predictions, got ' + lines.length);
    ['b200-nvfp4', 'fp16-npu-ftz'].forEach((t, i) => {
      if (!lines[i] || !new RegExp('^Prediction: on ' + t + ' (the training breaks, first sign at step [0-9]+|it trains as in fp32)').test(lines[i])) {
        fail('prediction ' + i + ' does not name ' + t + ': ' + lines[i]);
      }
    });
    await page.locator('#findings-section').screenshot({path: path.join(outDir, 'predictions.png')});
    errors = errors.concat(more);
  } finally {
    await context2.close();
  }
  if (errors.length) fail('console errors:\n  ' + errors.join('\n  '));
  if (requests.length) fail('network requests from an offline report:\n  ' + requests.join('\n  '));
  console.log('screenshots in ' + outDir);
  return process.exitCode || 0;
}

main().then((code) => process.exit(code), (e) => { console.error('FAIL: ' + (e && e.stack || e)); process.exit(1); });
