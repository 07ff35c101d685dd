// The live dashboard in a real browser: `lpsim demo --live` trains while
// headless Chromium (Debian's, driven by playwright-core from
// report/web/node_modules) opens the URL it printed, checks that the loss,
// heatmap and histogram charts render and keep updating while training
// runs, the break prediction on each target reads as the job says, sets a
// knob and sees it acknowledged, loads nothing from outside
// 127.0.0.1, and keeps a screenshot.
//
//   node live_browser_test.js LPSIM_BIN OUT_DIR
// Exit: 0 pass, 1 fail, 77 skipped (no Chromium or no playwright-core).
'use strict';
const fs = require('fs');
const path = require('path');
const {spawn} = require('child_process');
const browser = require('../common/chromium');

const {fail} = browser;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what, fn, ms) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out waiting for ' + what);
    await sleep(100);
  }
}

async function main() {
  const t = browser.setUp();
  if (t.code !== undefined) return t.code;
  const {lpsim, outDir, chromium, runDir} = t;
  // Long enough to outlast the test; killed at the end.
  // On a target with probes: the page shows the break prediction so far.
  const demo = spawn(lpsim, ['demo', '--live', '--steps', '200000', '--quiet', '--run-dir', runDir,
    '--target', 'fp16-npu-ftz', '--probe', 'fp16-npu-ftz,h100-fp8-current'],
    {stdio: ['ignore', 'ignore', 'pipe']});
  let stderr = '';
  demo.stderr.on('data', (d) => { stderr += d; });
  let exited = false;
  demo.on('exit', () => { exited = true; });
  let context = null;
  try {
    const urlFile = path.join(runDir, 'live.url');
    await waitFor('RUN_DIR/live.url', () => {
      if (exited) throw new Error('lpsim demo --live exited early:\n' + stderr);
      return fs.existsSync(urlFile) && fs.readFileSync(urlFile, 'utf8').trim();
    }, 60000);
    const url = fs.readFileSync(urlFile, 'utf8').trim();
    console.log('dashboard at ' + url);
    if (!/^http:\/\/127\.0\.0\.1:\d+\/$/.test(url)) fail('the agent is not on loopback: ' + url);
    await waitFor('the URL on stderr', () => stderr.includes(url), 10000)
      .catch(() => fail('the URL was not printed: ' + stderr));

    context = await browser.launch(chromium, path.join(outDir, 'profile'), {width: 1400, height: 1400});
    const outside = [];
    const page = context.pages()[0] || await context.newPage();
    const errors = browser.pageErrors(page);
    page.on('request', (req) => { if (!req.url().startsWith('http://127.0.0.1:')) outside.push(req.url()); });
    await page.goto(url);
    await page.waitForFunction(() => window.lpsimLive, null, {timeout: 20000});
    const ready = () => page.evaluate(() => {
      const L = window.lpsimLive;
      return L.views.scalars && L.views.heatmap && L.views.hist && L.counts.hist_updates >= 1 ? L.counts : null;
    });
    const c1 = await waitFor('every chart to render', ready, 60000);
    console.log('first counts: ' + JSON.stringify(c1));
    // The charts keep changing while training runs.
    const c2 = await waitFor('the charts to update', () => page.evaluate((c) => {
      const n = window.lpsimLive.counts;
      return n.scalars > c.scalars && n.cells > c.cells && n.hist_updates > c.hist_updates + 1 ? n : null;
    }, c1), 30000);
    console.log('later counts: ' + JSON.stringify(c2));
    const data = await page.evaluate(() => {
      const v = window.lpsimLive.views;
      const marks = (id) => document.querySelectorAll('#' + id + ' svg .mark-rect path, #' + id + ' svg .mark-line path').length;
      return {scalars: v.scalars.data('scalars').length, cells: v.heatmap.data('cells').length,
        bins: v.hist.data('bins').length, zones: v.hist.data('zones').length,
        heatMarks: marks('heatmap'), histMarks: marks('hist'), lineMarks: marks('scalars'),
        jobs: document.querySelectorAll('#jobs tr[data-job]').length, knobs: document.querySelectorAll('#knobs tr').length - 1};
    });
    console.log('chart data: ' + JSON.stringify(data));
    for (const k of ['scalars', 'cells', 'bins', 'zones', 'heatMarks', 'histMarks', 'lineMarks']) {
      if (!(data[k] > 0)) fail('chart data "' + k + '" is empty');
    }
    if (data.jobs < 1) fail('the job list is empty');
    if (data.knobs < 4) fail('expected the knobs every, paused, formats and lr; got ' + data.knobs);

    // The prediction on each target, as the job's info.predictions says:
    // the run's target first (its records judged in its formats), then the
    // other probe target (probes and rollouts only).
    const shown = await waitFor('the prediction section', () => page.evaluate(() => {
      if (document.getElementById('prediction-section').hidden) return null;
      const li = [...document.querySelectorAll('#predictions li')];
      return li.length ? li.map((x) => ({target: x.dataset.target, text: x.textContent})) : null;
    }), 20000);
    const said = (await page.evaluate(() => fetch('/api/job').then((r) => r.json()))).info.predictions;
    console.log('predictions: ' + JSON.stringify(shown));
    if (JSON.stringify(said.map((p) => p.target)) !== JSON.stringify(['fp16-npu-ftz', 'h100-fp8-current'])) {
      fail('info.predictions names ' + JSON.stringify(said));
    }
    if (shown.length !== said.length) fail('the page shows ' + shown.length + ' predictions, the job has ' + said.length);
    said.forEach((p, i) => {
      const t = shown[i] ? shown[i].text : '';
      if (!shown[i] || shown[i].target !== p.target || !t.startsWith('on ' + p.target + ' ')) fail('prediction ' + i + ': ' + t);
      const want = p.breaks ? 'the training breaks, first sign at step ' + p.step + ' (' + p.rule
        : 'no low-precision warning or error so far';
      if (!t.includes(want)) fail('prediction on ' + p.target + ' reads "' + t + '", expected "' + want + '"');
      if (t !== p.text + '.') fail('the page words the prediction on ' + p.target + ' otherwise than the job: "' + t + '"');
    });

    // A knob through the page: the demo's learning rate.
    const lrRow = page.locator('#knobs tr', {hasText: 'lr'}).first();
    await lrRow.locator('input').fill('0.0005');
    await lrRow.locator('button').click();
    // The acknowledgement comes from the job (/api/job), so it survives the
    // table's next refresh.
    await page.waitForFunction(() => /applied 0\.0005 at step \d+/.test(document.getElementById('knobs').textContent),
      null, {timeout: 20000}).catch(() => fail('setting the lr knob was not acknowledged'));
    // The page keeps up with the job: its streams are reduced over windows,
    // so the agent never drops it as a slow client.
    const job = await page.evaluate(() => fetch('/api/job').then((r) => r.json()));
    const lr = job.knobs.find((k) => k.name === 'lr');
    if (!lr || lr.value !== 0.0005) fail('the job did not take lr = 0.0005: ' + JSON.stringify(lr));
    if (job.streams_dropped !== 0) fail('the agent dropped ' + job.streams_dropped + ' of the page\'s streams');
    const c3 = await page.evaluate(() => window.lpsimLive.counts);
    console.log('final counts: ' + JSON.stringify(c3));
    if (c3.reconnects !== 0) fail('the page reconnected ' + c3.reconnects + ' time(s)');
    await page.screenshot({path: path.join(outDir, 'live-dashboard.png'), fullPage: true});
    if (errors.length) fail('console errors:\n  ' + errors.join('\n  '));
    if (outside.length) fail('requests beyond the agent:\n  ' + outside.join('\n  '));
    console.log('screenshot: ' + path.join(outDir, 'live-dashboard.png'));
  } finally {
    if (context) await context.close();
    if (!exited) demo.kill('SIGTERM');
  }
  return process.exitCode || 0;
}

const guard = setTimeout(() => { console.error('FAIL: the test ran past 150 s'); process.exit(1); }, 150000);
main().then((code) => { clearTimeout(guard); process.exit(code); },
  (e) => { console.error('FAIL: ' + (e && e.stack || e)); process.exit(1); });
