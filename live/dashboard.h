// The live dashboard the agent serves at / (page) and /dashboard.js
// (script); the chart libraries come from /assets/, read from the npm
// packages installed at set-up (report/'s WebAssetsDir), never a CDN.
//
// Its charts follow the static report's Vega-Lite specs (report/page.h):
// the same layer x step heatmap encodings, the same exponent histogram with
// the formats' underflow/subnormal/normal/overflow zones; here the data
// arrive by Server-Sent Events and are changed in place (vega changesets).
// The script exposes window.lpsimLive = {views, counts, state} for the
// browser test (tests/live/).
#ifndef LPSIM_LIVE_DASHBOARD_H_
#define LPSIM_LIVE_DASHBOARD_H_

namespace lpsim::live {

inline constexpr const char kDashboardHtml[] = R"HTML(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>lpsim live</title>
<link rel="icon" href="data:,">
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#1f3b57;color:#fff;padding:12px 24px}
header h1{margin:0;font-size:20px}
header .meta{font-size:13px;opacity:.85;margin-top:4px}
main{padding:8px 24px 40px;max-width:1400px;display:grid;grid-template-columns:1fr 1fr;gap:0 16px}
section{background:#fff;border:1px solid #ddd;border-radius:6px;padding:10px 14px;margin:10px 0}
section.wide{grid-column:1 / span 2}
section h2{font-size:15px;margin:0 0 6px}
.help{font-size:12px;color:#555;margin:2px 0 6px}
.controls{font-size:13px;margin:4px 0}
.controls label{margin-right:12px}
table{border-collapse:collapse;font-size:13px;width:100%}
th,td{border-bottom:1px solid #eee;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f3f5f7}
.sev{display:inline-block;padding:1px 6px;border-radius:3px;font-size:12px;color:#fff}
.sev-error{background:#c0392b}.sev-warning{background:#d68910}.sev-info{background:#5d6d7e}
li.breaks{color:#c0392b}
.empty{color:#888;font-style:italic}
.ack{font-size:12px;color:#1e8449}.nack{font-size:12px;color:#c0392b}
tr.current td{background:#eef5fb}
#findings{max-height:260px;overflow-y:auto}
</style>
<script src="/assets/vega.min.js"></script>
<script src="/assets/vega-lite.min.js"></script>
<script src="/assets/vega-embed.min.js"></script>
</head><body>
<header><h1 id="title">lpsim live</h1><div class="meta" id="meta">connecting...</div></header>
<main>
<section class="wide" id="prediction-section" hidden><h2>Prediction</h2><div id="predictions"></div>
<p class="help">The first low-precision warning or error so far, per target, as this fp32 run is judged on it
(lpsim check RUN --target T gives the same on the whole run); lpsim validate measures its precision, recall and lead.</p></section>
<section class="wide" id="jobs-section"><h2>Jobs</h2>
<p class="help">Agents polled every 2 s (add another job's URL; click a row to watch it).</p>
<div class="controls"><input id="job-url" size="40" placeholder="http://127.0.0.1:PORT/"> <button id="job-add">add</button></div>
<div id="jobs"></div></section>
<section id="scalar-section"><h2>Loss and scalars</h2>
<div class="controls"><label>scalars <input id="scalar-re" size="18" value="^(loss|lr)$"></label></div>
<div id="scalars"></div></section>
<section id="knob-section"><h2>Knobs</h2>
<p class="help">Each change is applied by the job at the end of its current step and recorded in the run.</p>
<div id="knobs"></div></section>
<section class="wide" id="heat-section"><h2>Per layer and step</h2>
<p class="help">Each cell is one tensor over half a second of training (labelled by its last step): the worst value of its tracked steps, cast into the chosen format after its scaling recipe.</p>
<div class="controls">
<label>role <select id="sel-role"></select></label>
<label>format / recipe <select id="sel-pair"></select></label>
<label>metric <select id="sel-metric"><option value="underflow_pct">underflow %</option>
<option value="overflow_pct">overflow %</option></select></label></div>
<div id="heatmap"></div></section>
<section class="wide" id="hist-section"><h2>Exponent histogram</h2>
<p class="help">Bars: how many values have |x| in [2<sup>e</sup>, 2<sup>e+1</sup>). Below, each format's range after its
scale: red underflows to zero, orange is subnormal, green normal, dark red overflows. Updates in place every tracked step.</p>
<div class="controls"><label>tensor <select id="sel-tensor"></select></label></div>
<div id="hist-title"></div><div id="hist"></div></section>
<section class="wide" id="findings-section"><h2>Findings</h2><div id="findings"></div></section>
</main>
<script src="/dashboard.js"></script>
</body></html>
)HTML";

inline constexpr const char kDashboardScript[] = R"JS(
(function () {
'use strict';
const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
const opts = {actions: false, renderer: 'svg'};
const MAX_STEPS = 120;       // heatmap columns kept
const MAX_SCALARS = 3000;    // points kept
// Streams are reduced over windows of this many seconds, so the page gets a
// few events per tensor and second however fast the job steps (unreduced, a
// fast job outruns the page and the agent drops it as a slow client).
const WINDOW_S = 0.5;
const el = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]));
const params = new URLSearchParams(location.search);
const token = params.get('token') || '';
const views = {};
const counts = {scalars: 0, cells: 0, hist_updates: 0, findings: 0, events: 0, reconnects: 0};
const state = {base: location.origin + '/', role: null, pair: null, metric: 'underflow_pct', tensor: null,
  streams: [], jobs: [location.origin + '/'], pairs: [], roles: [], tensors: []};

function api(base, path) {
  const u = new URL(path, base);
  if (token) u.searchParams.set('token', token);
  return u.toString();
}
function stream(query, onEvent) {
  const es = new EventSource(api(state.base, 'api/stream?q=' + encodeURIComponent(JSON.stringify(query))));
  es.onmessage = (m) => {
    counts.events++;
    const e = JSON.parse(m.data);
    if (e.step === undefined && e.to_step !== undefined) e.step = e.to_step;  // a window: its last step
    onEvent(e);
  };
  // The browser reconnects by itself (after a drop or a restart of the agent).
  es.onerror = () => { if (es.readyState !== EventSource.CLOSED) counts.reconnects++; };
  state.streams.push(es);
  return es;
}

// ---- job list -----------------------------------------------------------------
for (const j of (params.get('jobs') || '').split(',')) if (j) state.jobs.push(j.endsWith('/') ? j : j + '/');
el('job-add').addEventListener('click', () => {
  let u = el('job-url').value.trim();
  if (!u) return;
  if (!u.endsWith('/')) u += '/';
  if (!state.jobs.includes(u)) state.jobs.push(u);
  el('job-url').value = '';
  pollJobs();
});
const jobData = {};
function pollJobs() {
  return Promise.all(state.jobs.map((b) => fetch(api(b, 'api/job')).then((r) => r.json())
    .then((j) => { jobData[b] = j; }, () => { jobData[b] = null; }))).then(renderJobs);
}
function renderJobs() {
  let h = '<table><tr><th>job</th><th>url</th><th>step</th><th>streams</th><th>latest finding</th></tr>';
  state.jobs.forEach((b, i) => {
    const j = jobData[b];
    const f = j && j.findings && j.findings.length ? j.findings[0] : null;
    h += '<tr data-job="' + i + '" class="' + (b === state.base ? 'current' : '') + '" style="cursor:pointer"><td>' +
      (j ? esc(j.name) : '<span class="empty">unreachable</span>') + '</td><td>' + esc(b) + '</td><td>' +
      (j && j.step !== null ? j.step : '') + '</td><td>' + (j ? j.clients : '') + '</td><td>' +
      (f ? '<span class="sev sev-' + esc(f.severity) + '">' + esc(f.severity) + '</span> step ' + f.step + ' ' + esc(f.rule) +
        (f.tensor ? ' ' + esc(f.tensor) : '') : '') + '</td></tr>';
  });
  el('jobs').innerHTML = h + '</table>';
  el('jobs').querySelectorAll('tr[data-job]').forEach((tr) => tr.addEventListener('click', () => {
    const b = state.jobs[+tr.dataset.job];
    if (b !== state.base && jobData[b]) watch(b);
  }));
  const me = jobData[state.base];
  if (me) {
    el('title').textContent = 'lpsim live: ' + me.name;
    el('meta').textContent = [state.base, me.step !== null ? 'step ' + me.step : 'not started',
      me.clients + ' stream(s)', me.streams_dropped + ' dropped', counts.reconnects + ' reconnect(s)'].join(' \u00b7 ');
    renderKnobs(me.knobs);
  }
  renderPredictions(me);
}

// ---- predictions ----------------------------------------------------------------
// The job's info.predictions (checks/prediction.h LivePredictions), each
// with its text (PredictionText: lpsim check --target and the report word
// them so).
function renderPredictions(me) {
  const p = me && me.info && me.info.predictions || [];
  el('prediction-section').hidden = !p.length;
  let h = '<ul>';
  for (const x of p) {
    h += '<li data-target="' + esc(x.target) + '"' + (x.breaks ? ' class="breaks"' : '') + '>' + esc(x.text) + '.</li>';
  }
  el('predictions').innerHTML = h + '</ul>';
}

// ---- knobs ----------------------------------------------------------------------
let knobsShown = '';
function renderKnobs(knobs) {
  const sig = JSON.stringify(knobs.map((k) => [k.name, k.value, k.last_ack]));
  if (sig === knobsShown) return;
  knobsShown = sig;
  if (!knobs.length) { el('knobs').innerHTML = '<p class="empty">This job registered no knobs.</p>'; return; }
  let h = '<table><tr><th>knob</th><th>value</th><th></th><th>last change</th></tr>';
  knobs.forEach((k, i) => {
    let input;
    const v = k.value;
    if (k.type === 'bool') input = '<select id="knob-' + i + '"><option' + (v ? ' selected' : '') + '>true</option><option' + (!v ? ' selected' : '') + '>false</option></select>';
    else if (k.type === 'choice') input = '<select id="knob-' + i + '">' + k.choices.map((c) => '<option' + (c === v ? ' selected' : '') + '>' + esc(c) + '</option>').join('') + '</select>';
    else input = '<input id="knob-' + i + '" size="14" value="' + esc(Array.isArray(v) ? v.join(',') : v) + '">';
    const a = k.last_ack;
    h += '<tr><td title="' + esc(k.help) + '">' + esc(k.name) + '</td><td>' + input + '</td><td><button data-knob="' + i +
      '">set</button></td><td id="knob-ack-' + i + '">' + (a ? (a.applied ? '<span class="ack">applied ' + esc(JSON.stringify(a.value)) +
      ' at step ' + a.step + '</span>' : '<span class="nack">refused: ' + esc(a.message) + '</span>') : '') + '</td></tr>';
  });
  el('knobs').innerHTML = h + '</table>';
  el('knobs').querySelectorAll('button[data-knob]').forEach((b) => b.addEventListener('click', () => {
    const i = +b.dataset.knob, k = knobs[i];
    const raw = el('knob-' + i).value;
    let value = raw;
    if (k.type === 'number' || k.type === 'integer') value = Number(raw);
    else if (k.type === 'bool') value = raw === 'true';
    fetch(api(state.base, 'api/knobs/' + encodeURIComponent(k.name)), {method: 'POST',
      headers: {'Content-Type': 'application/json'}, body: JSON.stringify({value: value})})
      .then((r) => r.json().then((j) => {
        el('knob-ack-' + i).innerHTML = r.ok ? '<span class="ack">' + esc(j.status) + (j.step !== undefined ? ' at step ' + j.step : '') +
          '</span>' : '<span class="nack">' + esc(j.error) + '</span>';
      }));
  }));
}

// ---- scalars --------------------------------------------------------------------
let scalarRows = [];
// Embedded with the rows it has (a facet laid out on no data stays
// collapsed), again when a new scalar name appears; otherwise changesets.
function scalarSpec(rows) {
  const x = {field: 'step', type: 'quantitative', title: 'step'};
  const y = {field: 'value', type: 'quantitative', scale: {zero: false}, title: null, axis: {format: '~g', tickCount: 4}};
  return {$schema: SCHEMA, datasets: {scalars: rows}, data: {name: 'scalars'},
    facet: {row: {field: 'name', type: 'nominal', title: null, header: {labelAngle: 0, labelAlign: 'left', labelFontWeight: 'bold'}}},
    resolve: {scale: {y: 'independent'}},
    spec: {width: 520, height: 90, mark: {type: 'line', point: false}, encoding: {x: x, y: y}}};
}

// ---- heatmap --------------------------------------------------------------------
const cells = [];     // all kept step events
const heat = {};      // pending inserts
function heatSpec() {
  return {$schema: SCHEMA, data: {name: 'cells'},
    width: 900, height: {step: 16},
    mark: {type: 'rect'},
    encoding: {
      x: {field: 'step', type: 'ordinal', title: 'step', axis: {labelOverlap: true}},
      y: {field: 'layer', type: 'nominal', title: null},
      color: {field: 'value', type: 'quantitative', title: '%', scale: {scheme: 'orangered', domainMin: 0}},
      tooltip: [{field: 'layer'}, {field: 'step'}, {field: 'value', title: '%'}]}};
}
function heatRow(e) {
  return {layer: e.tensor, step: e.step, value: e[state.metric] === null ? 0 : e[state.metric], role: e.role,
    pair: e.format + '/' + e.recipe};
}
function fillSelect(id, values, current) {
  el(id).innerHTML = values.map((v) => '<option' + (v === current ? ' selected' : '') + '>' + esc(v) + '</option>').join('');
}

// ---- histogram ------------------------------------------------------------------
let histDomain = null;
function histData(ev) {
  const h = ev[0].exp_hist;
  const bins = h.e.map((e, i) => ({e: e, e2: e + 1, count: h.c[i]}));
  let lo = h.e.length ? Math.min(...h.e) - 3 : -20, hi = h.e.length ? Math.max(...h.e) + 4 : 4;
  const zones = [];
  for (const x of ev) {
    if (!x.range) continue;
    lo = Math.min(lo, Math.floor(x.range[0]) - 1); hi = Math.max(hi, Math.ceil(x.range[2]) + 1);
  }
  if (!histDomain || lo < histDomain[0] || hi > histDomain[1]) histDomain = [lo, hi];
  const [a0, b0] = histDomain;
  const clip = (v) => Math.max(a0, Math.min(b0, v));
  for (const x of ev) {
    if (!x.range) continue;
    const edges = [a0, x.range[0], x.range[1], x.range[2], b0];
    const names = ['underflow', 'subnormal', 'normal', 'overflow'];
    for (let i = 0; i < 4; ++i) {
      const a = clip(edges[i]), b = clip(edges[i + 1]);
      if (b > a) zones.push({format: x.format + '/' + x.recipe, zone: names[i], x: a, x2: b});
    }
  }
  return {bins: bins, zones: zones};
}
function histSpec() {
  const xs = {field: 'e', type: 'quantitative', scale: {domain: histDomain, nice: false}, title: 'log2 |x|'};
  return {$schema: SCHEMA,
    vconcat: [{width: 820, height: 180, data: {name: 'bins'}, mark: {type: 'rect', color: '#4a7fb0'},
      encoding: {x: xs, x2: {field: 'e2'}, y: {field: 'count', type: 'quantitative', scale: {type: 'symlog'}, title: 'values'},
        tooltip: [{field: 'e', title: 'exponent'}, {field: 'count'}]}},
    {width: 820, height: {step: 16}, data: {name: 'zones'}, mark: {type: 'rect', opacity: 0.85},
      encoding: {x: {field: 'x', type: 'quantitative', scale: {domain: histDomain, nice: false}, title: 'log2 |x| (before scaling)'},
        x2: {field: 'x2'}, y: {field: 'format', type: 'nominal', title: null, sort: null},
        color: {field: 'zone', type: 'nominal', title: 'range',
          scale: {domain: ['underflow', 'subnormal', 'normal', 'overflow'], range: ['#e74c3c', '#f5b041', '#58d68d', '#922b21']}},
        tooltip: [{field: 'format'}, {field: 'zone'}, {field: 'x', title: 'from log2'}, {field: 'x2', title: 'to log2'}]}}],
    resolve: {scale: {x: 'shared'}}};
}
let histStream = null, histPending = {}, histEmbedded = null;
function watchTensor(key) {
  if (histStream) { histStream.close(); state.streams = state.streams.filter((s) => s !== histStream); }
  state.tensor = key; histPending = {}; histDomain = null; histEmbedded = null;
  views.hist = null;
  el('hist').innerHTML = '<p class="empty">waiting for the next tracked step...</p>';
  if (!key) return;
  const [role, name] = key.split(' ');
  histStream = stream({kind: 'step', tensor: '^' + name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$', role: role,
    fields: ['exp_hist', 'range', 'max_abs'], reduce: {op: 'last', seconds: WINDOW_S}}, (e) => { (histPending[e.step] = histPending[e.step] || []).push(e); });
}
function flushHist() {
  const steps = Object.keys(histPending).map(Number).sort((a, b) => a - b);
  if (!steps.length) return Promise.resolve();
  const s = steps[steps.length - 1];
  const ev = histPending[s];
  histPending = {};
  const d = histData(ev);
  el('hist-title').textContent = state.tensor + ' at step ' + s + ', max |x| ' + (ev[0].max_abs === null ? '-' : (+ev[0].max_abs).toPrecision(4));
  counts.hist_updates++;
  const dom = JSON.stringify(histDomain);
  if (views.hist && histEmbedded === dom) {
    views.hist.change('bins', vega.changeset().remove(() => true).insert(d.bins))
      .change('zones', vega.changeset().remove(() => true).insert(d.zones)).run();
    return Promise.resolve();
  }
  histEmbedded = dom;
  return vegaEmbed('#hist', histSpec(), opts).then((res) => {
    views.hist = res.view;
    res.view.change('bins', vega.changeset().insert(d.bins)).change('zones', vega.changeset().insert(d.zones)).run();
  });
}

// ---- findings -------------------------------------------------------------------
const findings = [];
function renderFindings() {
  if (!findings.length) { el('findings').innerHTML = '<p class="empty">No findings yet.</p>'; return; }
  let h = '<table><tr><th>severity</th><th>step</th><th>rule</th><th>tensor</th><th>what</th></tr>';
  for (const f of findings.slice().reverse().slice(0, 200)) {
    h += '<tr><td><span class="sev sev-' + esc(f.severity) + '">' + esc(f.severity) + '</span></td><td>' + f.step +
      '</td><td>' + esc(f.rule) + '</td><td>' + esc(f.tensor || '') + '</td><td>' + esc(f.message) + '</td></tr>';
  }
  el('findings').innerHTML = h + '</table>';
}

// ---- wiring ---------------------------------------------------------------------
let pendingScalars = [], pendingCells = [], heatDirty = false, findingsDirty = false;
function watch(base) {
  for (const s of state.streams) s.close();
  state.streams = []; histStream = null;
  state.base = base;
  scalarRows = []; cells.length = 0; findings.length = 0; pendingScalars = []; pendingCells = [];
  state.pairs = []; state.roles = []; state.tensors = []; state.role = null; state.pair = null;
  views.scalars = views.heatmap = views.hist = null;
  for (const id of ['scalars', 'heatmap', 'hist']) el(id).innerHTML = '<p class="empty">waiting for data...</p>';
  el('hist-title').textContent = '';
  fetch(api(base, 'api/job')).then((r) => r.json()).then((j) => {
    for (const f of j.findings.slice().reverse()) findings.push(f);
    findingsDirty = true;
  });
  stream({kind: 'scalar', name: el('scalar-re').value || '.', reduce: {op: 'mean', seconds: WINDOW_S}},
    (e) => { if (e.value !== null) pendingScalars.push(e); });
  stream({kind: 'step', fields: ['underflow_pct', 'overflow_pct'], reduce: {op: 'max', seconds: WINDOW_S}},
    (e) => { pendingCells.push(e); });
  stream({kind: 'finding'}, (e) => { findings.push(e); findingsDirty = true; counts.findings++; });
  pollJobs();
}
el('scalar-re').addEventListener('change', () => watch(state.base));
el('sel-role').addEventListener('change', (e) => { state.role = e.target.value; heatDirty = true; });
el('sel-pair').addEventListener('change', (e) => { state.pair = e.target.value; heatDirty = true; });
el('sel-metric').addEventListener('change', (e) => { state.metric = e.target.value; heatDirty = true; });
el('sel-tensor').addEventListener('change', (e) => watchTensor(e.target.value));

function tick() {
  const work = [];
  if (pendingScalars.length) {
    const rows = pendingScalars.map((e) => ({step: e.step, name: e.name, value: e.value}));
    pendingScalars = [];
    counts.scalars += rows.length;
    scalarRows.push(...rows);
    const drop = Math.max(0, scalarRows.length - MAX_SCALARS);
    const gone = drop ? new Set(scalarRows.splice(0, drop)) : null;
    const names = [...new Set(scalarRows.map((d) => d.name))].sort().join('\u0001');
    if (views.scalars && names === state.scalarNames) {
      views.scalars.change('scalars', vega.changeset().insert(rows).remove((d) => gone !== null && gone.has(d))).run();
    } else if (!state.embeddingScalars) {
      state.embeddingScalars = true;
      state.scalarNames = names;
      work.push(vegaEmbed('#scalars', scalarSpec(scalarRows.slice()), opts).then((res) => {
        views.scalars = res.view; state.embeddingScalars = false;
      }));
    }
  }
  if (pendingCells.length) {
    for (const e of pendingCells) {
      cells.push(e);
      const pair = e.format + '/' + e.recipe, key = e.role + ' ' + e.tensor;
      if (!state.pairs.includes(pair)) { state.pairs.push(pair); if (!state.pair) state.pair = pair; fillSelect('sel-pair', state.pairs, state.pair); }
      if (!state.roles.includes(e.role)) { state.roles.push(e.role); if (!state.role) state.role = e.role; fillSelect('sel-role', state.roles, state.role); }
      if (!state.tensors.includes(key)) {
        state.tensors.push(key);
        fillSelect('sel-tensor', state.tensors, state.tensor);
        if (!state.tensor) { watchTensor(key); fillSelect('sel-tensor', state.tensors, state.tensor); }
      }
    }
    const fresh = pendingCells.filter((e) => e.role === state.role && e.format + '/' + e.recipe === state.pair).map(heatRow);
    pendingCells = [];
    const steps = [...new Set(cells.map((c) => c.step))];
    if (steps.length > MAX_STEPS) {
      const keep = steps.sort((a, b) => a - b)[steps.length - MAX_STEPS];
      let i = 0;
      while (i < cells.length && cells[i].step < keep) ++i;
      cells.splice(0, i);
      heatDirty = true;
    }
    if (views.heatmap && !heatDirty) {
      counts.cells += fresh.length;
      views.heatmap.change('cells', vega.changeset().insert(fresh)).run();
    } else {
      heatDirty = true;
    }
  }
  if (heatDirty && state.role && !state.embeddingHeat) {
    heatDirty = false;
    const rows = cells.filter((e) => e.role === state.role && e.format + '/' + e.recipe === state.pair).map(heatRow);
    counts.cells += rows.length;
    state.embeddingHeat = true;
    work.push(vegaEmbed('#heatmap', heatSpec(), opts).then((res) => {
      views.heatmap = res.view; state.embeddingHeat = false;
      res.view.change('cells', vega.changeset().insert(rows)).run();
    }));
  }
  if (findingsDirty) { findingsDirty = false; renderFindings(); }
  work.push(flushHist());
  return Promise.all(work);
}
let ticking = false;
setInterval(() => {
  if (ticking) return;
  ticking = true;
  tick().catch((e) => console.error('lpsim live: ' + e)).finally(() => { ticking = false; });
}, 500);
setInterval(pollJobs, 2000);
window.lpsimLive = {views: views, counts: counts, state: state};
watch(state.base);
})();
)JS";

}  // namespace lpsim::live

#endif  // LPSIM_LIVE_DASHBOARD_H_
