// The static parts of the HTML report (report/html.cc fills in the data and
// the chart libraries): style, page skeleton, and the script that builds the
// Vega-Lite specs from the embedded JSON and wires the interactions.
//
// The script exposes window.lpsim = {data, views, ready, showHist} so the
// browser test (tests/browser/) can check that every chart rendered.
#ifndef LPSIM_REPORT_PAGE_H_
#define LPSIM_REPORT_PAGE_H_

namespace lpsim {

inline constexpr const char kReportCss[] = R"CSS(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#1f3b57;color:#fff;padding:14px 24px}
header h1{margin:0;font-size:20px}
header .meta{font-size:13px;opacity:.85;margin-top:4px}
main{padding:8px 24px 40px;max-width:1400px}
section{background:#fff;border:1px solid #ddd;border-radius:6px;padding:12px 16px;margin:14px 0}
section h2{font-size:16px;margin:0 0 6px}
.help{font-size:13px;color:#555;margin:2px 0 8px}
.controls{font-size:13px;margin:6px 0}
.controls label{margin-right:14px}
table{border-collapse:collapse;font-size:13px;width:100%}
th,td{border-bottom:1px solid #eee;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f3f5f7}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.role-row td{font-weight:600;background:#f8fafc}
.sev{display:inline-block;padding:1px 6px;border-radius:3px;font-size:12px;color:#fff}
.sev-error{background:#c0392b}.sev-warning{background:#d68910}.sev-info{background:#5d6d7e}
li.breaks{color:#c0392b}
.ok{color:#1e8449}.bad{color:#c0392b}
.empty{color:#888;font-style:italic}
#hist-title{font-weight:600;font-size:14px}
details summary{cursor:pointer;color:#1f5f99}
a{color:#1f5f99;cursor:pointer}
)CSS";

inline constexpr const char kReportBody[] = R"HTML(
<header><h1 id="title"></h1><div class="meta" id="meta"></div></header>
<main>
<section id="rec-section"><h2>Recommended formats</h2>
<p class="help" id="rec-help"></p>
<div id="rec-table"></div></section>
<section id="heat-section"><h2>Per layer and step</h2>
<p class="help">Each cell is one tensor at one tracked step, cast into the chosen format after its
scaling recipe. Click a cell to see that tensor's exponent histogram at that step below.
Blank SNR cells: no error at all (SNR = &infin;).</p>
<div class="controls">
<label>role <select id="sel-role"></select></label>
<label>format / recipe <select id="sel-pair"></select></label>
<label>metric <select id="sel-metric">
<option value="u">underflow % (values that become 0)</option>
<option value="o">overflow % (values too large)</option>
<option value="snr">SNR dB (higher is better)</option></select></label>
</div>
<div id="heatmap"></div></section>
<section id="hist-section"><h2>Exponent histogram</h2>
<p class="help">Bars: how many values have |x| in [2<sup>e</sup>, 2<sup>e+1</sup>). Below, each
candidate format's range after its scale: values in the red zone on the left become zero
(underflow), orange lose precision (subnormal), green are represented well (normal), and the
dark red zone on the right overflows. Formats marked "(what if)" were not simulated: their
range is drawn with per-tensor current scaling.</p>
<div id="hist-title"></div>
<div id="hist"></div></section>
<section id="scalar-section"><h2>Training curves</h2>
<p class="help">Loss, learning rate and other scalars, and the largest |x| (log<sub>2</sub>) per
role. Move the pointer over a chart: the crosshair follows the step in every chart.</p>
<div id="scalars"></div></section>
<section id="findings-section"><h2>Findings</h2>
<div id="predictions"></div>
<p class="help">What the checks found, newest and most severe first. Click a tensor to see its
histogram at that step.</p>
<div id="findings"></div></section>
</main>
)HTML";

inline constexpr const char kReportScript[] = R"JS(
(function () {
'use strict';
const D = JSON.parse(document.getElementById('lpsim-data').textContent);
const views = {};
const opts = {actions: false, renderer: 'svg'};
const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
const el = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]));
const fmtNum = (v, d) => v === null || v === undefined ? '\u221e' : (+v).toFixed(d === undefined ? 3 : d);
const roles = [...new Set(D.tensors.map((t) => t.role))];
const state = {role: roles[0], pair: D.pairs[0], metric: 'u', t: null, s: null};

el('title').textContent = D.title;
el('meta').textContent = [D.run.path, 'status ' + D.run.status, D.run.started_at ? 'started ' + D.run.started_at : '',
  D.run.last_step !== null && D.run.last_step !== undefined ? 'last step ' + D.run.last_step : '',
  D.tensors.length + ' tensors', D.steps.length + ' steps shown'].filter(Boolean).join(' \u00b7 ');

function fillSelect(id, values, current, label) {
  const s = el(id);
  s.innerHTML = values.map((v) => '<option value="' + esc(v) + '"' + (v === current ? ' selected' : '') + '>' +
    esc(label ? label(v) : v) + '</option>').join('');
}

// ---- heatmap -------------------------------------------------------------
function heatRows() {
  const pi = D.pairs.indexOf(state.pair);
  const rows = [];
  for (const r of D.records) {
    const t = D.tensors[r.t];
    if (t.role !== state.role) continue;
    for (const c of r.cells) {
      if (c[0] !== pi) continue;
      const v = state.metric === 'u' ? c[1] : state.metric === 'o' ? c[2] : c[3];
      rows.push({t: r.t, layer: t.name, step: r.s, value: v, u: c[1], o: c[2], snr: c[3] === null ? 'inf' : c[3], scale: c[4]});
    }
  }
  return rows;
}

function renderHeatmap() {
  const rows = heatRows();
  if (!rows.length) {
    el('heatmap').innerHTML = '<p class="empty">No simulated counts for this role and format.</p>';
    return Promise.resolve();
  }
  const order = [...new Set(D.tensors.filter((t) => t.role === state.role).map((t) => t.name))];
  const title = {u: 'underflow %', o: 'overflow %', snr: 'SNR dB'}[state.metric];
  const spec = {
    $schema: SCHEMA, datasets: {cells: rows}, data: {name: 'cells'},
    width: {step: Math.max(6, Math.min(18, Math.floor(900 / Math.max(1, D.steps.length))))},
    height: {step: 18},
    mark: {type: 'rect', cursor: 'pointer'},
    encoding: {
      x: {field: 'step', type: 'ordinal', title: 'step', axis: {labelOverlap: true}},
      y: {field: 'layer', type: 'nominal', sort: order, title: null},
      color: {field: 'value', type: 'quantitative', title: title,
        scale: state.metric === 'snr' ? {scheme: 'viridis'} : {scheme: 'orangered', domainMin: 0}},
      tooltip: [{field: 'layer'}, {field: 'step'}, {field: 'u', title: 'underflow %'},
        {field: 'o', title: 'overflow %'}, {field: 'snr', title: 'SNR dB'}, {field: 'scale'}]
    }
  };
  return vegaEmbed('#heatmap', spec, opts).then((res) => {
    views.heatmap = res.view;
    res.view.addEventListener('click', (ev, item) => {
      if (item && item.datum && item.datum.t !== undefined) showHist(item.datum.t, item.datum.step);
    });
  });
}

// ---- histogram with format ranges ------------------------------------------
function findRecord(t, s) {
  let best = null;
  for (const r of D.records) {
    if (r.t !== t) continue;
    if (best === null || Math.abs(r.s - s) < Math.abs(best.s - s) || (r.s === s)) best = r;
    if (r.s === s) break;
  }
  return best;
}

function showHist(t, s) {
  const r = findRecord(t, s);
  if (!r) {
    el('hist-title').textContent = 'No record of that tensor.';
    el('hist').innerHTML = '';
    return Promise.resolve();
  }
  state.t = r.t; state.s = r.s;
  const tn = D.tensors[r.t];
  el('hist-title').textContent = tn.name + ' (' + tn.role + ') at step ' + r.s + ': ' + r.n +
    ' values, ' + r.z + ' zeros' + (r.nf ? ', ' + r.nf + ' NaN/Inf' : '') + ', max |x| ' + r.amax;
  if (!r.e.length) {
    el('hist').innerHTML = '<p class="empty">All values are zero or non-finite.</p>';
    return Promise.resolve();
  }
  const lo = Math.min(...r.e) - 3, hi = Math.max(...r.e) + 4;
  const total = r.c.reduce((a, b) => a + b, 0);
  const bins = r.e.map((e, i) => ({e: e, e2: e + 1, count: r.c[i], pct: 100 * r.c[i] / total}));
  const clip = (v) => Math.max(lo, Math.min(hi, v));
  const zones = [];
  for (const g of r.ranges) {
    const label = g[0] + (g[4] ? '' : ' (what if)');
    const edges = [lo, g[1], g[2], g[3], hi];
    const names = ['underflow', 'subnormal', 'normal', 'overflow'];
    for (let i = 0; i < 4; ++i) {
      const a = clip(edges[i]), b = clip(edges[i + 1]);
      if (b > a) zones.push({format: label, zone: names[i], x: a, x2: b});
    }
  }
  const sel = r.ranges.find((g) => g[0] === state.pair) || r.ranges[0];
  const rules = sel ? [{x: sel[1], what: 'underflow below'}, {x: sel[2], what: 'normal from'},
    {x: sel[3], what: 'max'}].filter((d) => d.x >= lo && d.x <= hi) : [];
  const xs = {field: 'e', type: 'quantitative', scale: {domain: [lo, hi], nice: false}, title: 'log2 |x|'};
  const spec = {
    $schema: SCHEMA,
    datasets: {bins: bins, zones: zones, rules: rules},
    vconcat: [{
      width: 820, height: 200,
      title: sel ? 'lines: ' + sel[0] + ' limits' : '',
      layer: [
        {data: {name: 'bins'}, mark: {type: 'rect', color: '#4a7fb0'},
          encoding: {x: xs, x2: {field: 'e2'}, y: {field: 'count', type: 'quantitative', scale: {type: 'symlog'}, title: 'values'},
            tooltip: [{field: 'e', title: 'exponent'}, {field: 'count'}, {field: 'pct', title: '%', format: '.3f'}]}},
        {data: {name: 'rules'}, mark: {type: 'rule', strokeDash: [4, 3], color: '#333'},
          encoding: {x: {field: 'x', type: 'quantitative'}, tooltip: [{field: 'what'}, {field: 'x', title: 'log2'}]}}
      ]
    }, {
      width: 820, height: {step: 16},
      data: {name: 'zones'},
      mark: {type: 'rect', opacity: 0.85},
      encoding: {
        x: {field: 'x', type: 'quantitative', scale: {domain: [lo, hi], nice: false}, title: 'log2 |x| (before scaling)'},
        x2: {field: 'x2'},
        y: {field: 'format', type: 'nominal', title: null, sort: null},
        color: {field: 'zone', type: 'nominal', title: 'range',
          scale: {domain: ['underflow', 'subnormal', 'normal', 'overflow'], range: ['#e74c3c', '#f5b041', '#58d68d', '#922b21']}},
        tooltip: [{field: 'format'}, {field: 'zone'}, {field: 'x', title: 'from log2'}, {field: 'x2', title: 'to log2'}]
      }
    }],
    resolve: {scale: {x: 'shared'}}
  };
  return vegaEmbed('#hist', spec, opts).then((res) => { views.hist = res.view; });
}

// ---- scalars with a shared crosshair ------------------------------------------
function renderScalars() {
  const rows = D.scalars.filter((d) => d.value !== null).map((d) => ({step: d.step, name: d.name, value: d.value}));
  const amax = {};
  for (const r of D.records) {
    if (r.amax === null || !(r.amax > 0)) continue;
    const k = 'log2 max|x| ' + D.tensors[r.t].role + '\u0001' + r.s;
    amax[k] = Math.max(amax[k] === undefined ? -Infinity : amax[k], Math.log2(r.amax));
  }
  for (const k in amax) {
    const [name, s] = k.split('\u0001');
    rows.push({step: +s, name: name, value: +amax[k].toFixed(3)});
  }
  if (!rows.length) {
    el('scalars').innerHTML = '<p class="empty">No scalars recorded.</p>';
    return Promise.resolve();
  }
  const x = {field: 'step', type: 'quantitative', title: 'step'};
  const y = {field: 'value', type: 'quantitative', scale: {zero: false}, title: null, axis: {format: '~g', tickCount: 4}};
  const spec = {
    $schema: SCHEMA, datasets: {scalars: rows}, data: {name: 'scalars'},
    facet: {row: {field: 'name', type: 'nominal', title: null, header: {labelAngle: 0, labelAlign: 'left', labelFontWeight: 'bold'}}},
    resolve: {scale: {y: 'independent'}},
    spec: {
      width: 760, height: 80,
      layer: [
        {mark: {type: 'line', point: {size: 12}}, encoding: {x: x, y: y}},
        {params: [{name: 'hover', select: {type: 'point', encodings: ['x'], on: 'pointermove', nearest: true, clear: 'pointerout'}}],
          mark: {type: 'point', opacity: 0}, encoding: {x: x, y: y}},
        {transform: [{filter: {param: 'hover', empty: false}}], mark: {type: 'rule', color: '#888'}, encoding: {x: x}},
        {transform: [{filter: {param: 'hover', empty: false}}], mark: {type: 'text', align: 'left', dx: 5, dy: -6},
          encoding: {x: x, y: y, text: {field: 'value', type: 'quantitative', format: '.4~g'}}}
      ]
    }
  };
  return vegaEmbed('#scalars', spec, opts).then((res) => { views.scalars = res.view; });
}

// ---- break predictions (lpsim report --target): as lpsim check --target words them
function renderPredictions() {
  const p = D.predictions || [];
  if (!p.length) return;
  let h = '<ul class="predictions">';
  p.forEach((x) => {
    h += '<li' + (x.breaks ? ' class="breaks"' : '') + '><b>Prediction</b>: ' + esc(x.text) + '.</li>';
  });
  el('predictions').innerHTML = h + '</ul><p class="help">The first low-precision warning or error of this run ' +
    'judged as each target stores its tensors; lpsim validate measures its precision, recall and lead per target.</p>';
}

// ---- findings ------------------------------------------------------------------
const sevRank = {error: 2, warning: 1, info: 0};
function renderFindings() {
  const f = D.findings.slice().sort((a, b) => b.step - a.step || sevRank[b.severity] - sevRank[a.severity]);
  if (!f.length) {
    el('findings').innerHTML = '<p class="empty">No findings: the checks saw nothing wrong.</p>';
    return;
  }
  let h = '<table><tr><th>severity</th><th>step</th><th>rule</th><th>tensor</th><th>what</th><th>evidence</th></tr>';
  f.forEach((x, i) => {
    const ev = Object.keys(x.evidence).map((k) => esc(k) + ' = ' + (x.evidence[k] === null ? 'non-finite' : esc(x.evidence[k]))).join('<br>');
    const tensor = x.tensor ? '<a data-finding="' + i + '">' + esc(x.tensor) + '</a>' : '<span class="empty">run</span>';
    h += '<tr id="finding-' + i + '"><td><span class="sev sev-' + esc(x.severity) + '">' + esc(x.severity) + '</span></td><td class="num">' +
      x.step + '</td><td>' + esc(x.rule) + '</td><td>' + tensor + '</td><td>' + esc(x.message) + '</td><td>' + ev + '</td></tr>';
  });
  el('findings').innerHTML = h + '</table>';
  el('findings').querySelectorAll('a[data-finding]').forEach((a) => a.addEventListener('click', () => {
    const x = f[+a.dataset.finding];
    let t = D.tensors.findIndex((tt) => tt.name === x.tensor);
    if (t < 0) t = D.tensors.findIndex((tt) => x.tensor.startsWith(tt.name));
    if (t < 0) { el('hist-title').textContent = 'No histogram recorded for ' + x.tensor + '.'; return; }
    showHist(t, x.step).then(() => el('hist-section').scrollIntoView());
  }));
}

// ---- recommendation table ------------------------------------------------------
// One line per row: what was rejected at most as wide as the choice.
function shortWhy(r) {
  if (!r.best) return '<span class="bad">nothing within budgets</span>';
  const top = r.candidates[0];
  const seen = new Set();
  const rej = [];
  for (const k of r.candidates) {
    if (k.within_budget || k.bits > top.bits || seen.has(k.format)) continue;
    seen.add(k.format);
    rej.push(esc(k.format) + ' (' + esc(k.verdict.split(' ')[0]) + ')');
  }
  return 'narrowest within budgets' + (rej.length ? '; rejected: ' + rej.join(', ') : '');
}

function renderRecommendation() {
  const R = D.recommendation;
  el('rec-help').innerHTML = 'For each role (bold) and layer: the narrowest format and scaling recipe whose worst case keeps ' +
    'underflow \u2264 ' + R.budgets.max_underflow_pct + '%, overflow \u2264 ' + R.budgets.max_overflow_pct +
    '% and SNR \u2265 ' + R.budgets.min_snr_db + ' dB over all tracked steps. "estimated": the format was not simulated; ' +
    'its counts are bounded from the exponent histograms ([lower, upper]) and its SNR is a model.';
  if (!R.rows.length) { el('rec-table').innerHTML = '<p class="empty">No tensor records.</p>'; return; }
  let h = '<table><tr><th>role</th><th>layer</th><th>recommended</th><th>underflow %</th><th>overflow %</th><th>SNR dB</th><th>source</th><th>why</th></tr>';
  const rng = (p, exact) => exact || p[0] === p[1] ? fmtNum(p[1]) : '[' + fmtNum(p[0]) + ', ' + fmtNum(p[1]) + ']';
  for (const r of R.rows) {
    const c = r.candidates[0];
    const best = r.best ? '<span class="ok">' + esc(r.best) + '</span>' : '<span class="bad">none fits</span>';
    let cands = '<details><summary>' + r.candidates.length + ' candidates</summary><table><tr><th>format/recipe</th><th>bits</th>' +
      '<th>underflow %</th><th>overflow %</th><th>SNR dB</th><th>source</th><th>verdict</th></tr>';
    for (const k of r.candidates) {
      cands += '<tr><td>' + esc(k.format + '/' + k.recipe) + '</td><td class="num">' + k.bits + '</td><td class="num">' + rng(k.underflow_pct, k.exact) +
        '</td><td class="num">' + rng(k.overflow_pct, k.exact) + '</td><td class="num">' + fmtNum(k.snr_db, 1) + '</td><td>' +
        (k.exact ? 'simulated' : 'estimated') + '</td><td class="' + (k.within_budget ? 'ok' : 'bad') + '">' + esc(k.verdict) + '</td></tr>';
    }
    cands += '</table></details>';
    h += '<tr class="' + (r.layer === '*' ? 'role-row' : '') + '"><td>' + esc(r.role) + '</td><td>' + (r.layer === '*' ? 'all layers' : esc(r.layer)) +
      '</td><td>' + best + '</td><td class="num">' + (c ? rng(c.underflow_pct, c.exact) : '') + '</td><td class="num">' +
      (c ? rng(c.overflow_pct, c.exact) : '') + '</td><td class="num">' + (c ? fmtNum(c.snr_db, 1) : '') + '</td><td>' +
      (c ? (c.exact ? 'simulated' : 'estimated') : '') + '</td><td>' + shortWhy(r) + cands.replace('<summary>', '<summary>details, ').replace('</summary>', '</summary><p>' + esc(r.reason) + '</p>') + '</td></tr>';
  }
  el('rec-table').innerHTML = h + '</table>';
}

// ---- wiring ----------------------------------------------------------------------
fillSelect('sel-role', roles, state.role);
fillSelect('sel-pair', D.pairs, state.pair);
el('sel-role').addEventListener('change', (e) => { state.role = e.target.value; renderHeatmap(); });
el('sel-pair').addEventListener('change', (e) => { state.pair = e.target.value; renderHeatmap(); if (state.t !== null) showHist(state.t, state.s); });
el('sel-metric').addEventListener('change', (e) => { state.metric = e.target.value; renderHeatmap(); });

renderRecommendation();
renderPredictions();
renderFindings();
let first = Promise.resolve();
if (D.records.length) {
  const inRole = D.records.filter((r) => D.tensors[r.t].role === state.role);
  const r0 = inRole.length ? inRole[inRole.length - 1] : D.records[D.records.length - 1];
  first = showHist(r0.t, r0.s);
} else {
  el('hist').innerHTML = '<p class="empty">No tensor records.</p>';
}
const ready = Promise.all([renderHeatmap(), first, renderScalars()]);
window.lpsim = {data: D, views: views, state: state, ready: ready, showHist: showHist};
ready.catch((err) => console.error('lpsim report: ' + err));
})();
)JS";

}  // namespace lpsim

#endif  // LPSIM_REPORT_PAGE_H_
