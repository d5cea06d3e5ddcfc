// schedlab's page: the controller. It loads the WebAssembly module once
// (compiled here, shared with the workers), builds the inputs from the
// catalog, runs the selected policies in workers, and animates their
// timelines side by side on one clock, with Sia's goodput matrix for the
// round at the clock when a run recorded one. See docs/PAGE.md.
import { initSync, catalog as readCatalog, cluster_layout, bundled_trace_text } from './pkg/schedlab.js';
import { Pool, compileWasm, buildStatus } from './js/pool.js';
import { Scaling } from './js/scaling.js';
import { PreferenceSearch } from './js/search.js';
import { Controls } from './js/controls.js';
import { GpuMap, NODE_VIEW_GPUS } from './js/gpumap.js';
import { hasPools, poolSpeedups } from './js/quota.js';
import { PoolChart } from './js/poolchart.js';
import { Guide } from './js/guide.js';
import { Gantt } from './js/gantt.js';
import { Staircase } from './js/staircase.js';
import { Sandbox } from './js/sandbox.js';
import { Heatmap } from './js/heatmap.js';
import { hasInsight } from './js/insight.js';
import { policyColor, jobColors, VIRIDIS_CSS } from './js/colors.js';
import { fromUrl, toUrl, setsFor, baseOf, setProblem, SPEEDS } from './js/state.js';
import { segmentOnGpu, queueAt, nextEvent, prevEvent, span, progressAt, restartsAt, moveSources } from './js/timeline.js';
import { renderTable, drawCharts, placeCursors, timeAtChart, download, summaryCsv, jobsCsv, chartsPng } from './js/results.js';
import { metricApplies } from './js/applies.js';
import { CostBook, costRank, doneShare, etaSeconds, fmtWait } from './js/schedule.js';
import { plainWords, glossaryFor } from './js/words.js';
import { Notices, traceFileProblem, readableError, droppedHtml } from './js/notices.js';
import { papers } from './js/papers.js';
import { esc } from './js/html.js';
import { WhyClient } from './js/explainer.js';
import { WhyView } from './js/whyview.js';
import { WhatIfEditor } from './js/whatif.js';
import { Predictor } from './js/predictor.js';

const $ = (sel) => document.querySelector(sel);
const stats = { firstFrameMs: null, fps: 0, renderMs: 0, frames: 0, runs: 0, errors: 0, phase: 'loading' };
const app = { stats, catalog: null, state: null, view: null, batch: null, metricApplies, colors: { jobColors } };
window.schedlab = app;

let catalog, pool, controls, state;
let view = null; // {inputs, layout, policies:[...], runs: Map(policy -> {policy, color, result, runId}), panels}
let batch = null; // the run in progress
const anim = { t: 0, t0: 0, t1: 1, playing: false, speed: 1000, last: 0, dirty: true, userSpeed: false };
app.anim = anim;
let hoverJob = -1;
let pinned = false; // a card pinned by a tap (touch) or a click: stays until a tap elsewhere
let gantt, heat, stair, poolChart, guide, notices, costs;
let whyClient, whyView, whatIf, predictor; // issue 49's views (js/whyview.js, js/whatif.js, js/predictor.js)
const table = { baseline: null, showAll: false }; // the results table's choices

// ---------- errors ----------
function showError(err, where = '') {
  stats.errors++;
  const e = readableError(typeof err === 'string' ? { kind: 'internal', text: err } : err, catalog);
  $('#error-text').textContent = `${where ? `${where}: ` : ''}${e.text || e.message || String(e)}`;
  $('#error').hidden = false;
  $('#error').dataset.kind = e.kind || '';
  $('#error').dataset.line = e.line || '';
  $('#error').dataset.field = e.field || '';
  if (e.kind === 'config') {
    const m = /^([\w-]+\.[\w-]+)=/.exec(e.message || '');
    if (m) controls.markInvalid(m[1]);
    else if (/^cluster '/.test(e.message || '')) controls.markInvalid('cluster');
  }
}

function clearError() {
  $('#error').hidden = true;
  controls && controls.markInvalid(null);
}

// ---------- running ----------
function currentInputs() {
  const inp = controls.read();
  return inp;
}

/** Runs PCS with a configuration the preference search found (its `pcs.*`
 * settings), with predictions on so the prediction charts show how it keeps
 * its promises; the other policies run again beside it. */
function runSearchPick(sets) {
  const inp = currentInputs();
  for (const e of [...sets, 'engine.predict=true']) {
    const i = e.indexOf('=');
    inp.sets[e.slice(0, i)] = e.slice(i + 1);
  }
  if (!inp.policies.includes('pcs')) inp.policies.push('pcs');
  controls.apply({ ...state, ...inp });
  startRun();
}

function startRun() {
  const inp = currentInputs();
  clearError();
  if (!inp.policies.length) { showError('choose at least one policy'); return; }
  let layout;
  try {
    layout = cluster_layout(inp.cluster);
  } catch (e) {
    controls.markInvalid('cluster');
    showError(e, 'Cluster');
    return;
  }
  if (inp.trace.kind !== 'bundled' && !inp.trace.text) { showError(`the trace '${inp.trace.name}' is not loaded; upload it again`); return; }
  state = { ...state, ...inp, trace: inp.trace };
  if (state.base && !inp.policies.includes(state.base)) state.base = null;
  app.state = state;
  $('#search-section').hidden = !inp.policies.some((p) => baseOf(p) === 'pcs');
  document.body.classList.remove('stale');
  $('#run').textContent = '▶ Run';
  updateUrl();
  const b = {
    inputs: inp, layout, results: new Map(), errors: new Map(), progress: new Map(), started: performance.now(), done: false,
    startedAt: new Map(), // policy -> performance.now() when a worker took it
  };
  const jobs = traceJobs(inp.trace);
  b.estimate = (p) => costs.estimate(p, inp.trace.name, inp.cluster, jobs).s;
  batch = b;
  app.batch = b;
  stats.phase = 'running';
  renderProgress();
  $('#cancel').hidden = false;
  pool.start({
    trace: { name: inp.trace.name, text: inp.trace.kind === 'bundled' ? '' : inp.trace.text },
    cluster: inp.cluster,
    policies: inp.policies,
    setsFor: (p) => setsFor(inp.sets, p),
    seed: inp.seed,
    cost: (p) => costRank(b.estimate(p)),
  }, {
    onTrace: (info) => { if (batch === b) { b.trace = info; renderProgress(); } },
    onStart: (p) => { if (batch === b) { b.startedAt.set(p, performance.now()); renderProgress(); } },
    onProgress: (p, pr) => {
      if (batch !== b) return;
      b.progress.set(p, pr);
      stats.progressUpdates = (stats.progressUpdates || 0) + 1;
      if (pr.completed > 0 && pr.completed < pr.total) stats.partialProgressSeen = true;
      renderProgress();
    },
    onResult: (p, res, runId) => {
      if (batch !== b) return;
      stats.runs++;
      const a0 = performance.now();
      b.results.set(p, { policy: p, color: policyColor(inp.policies.indexOf(p)), result: res, runId });
      costs.learn(p, inp.trace.name, inp.cluster, res.wall_s, res.metrics.jobs);
      b.progress.set(p, { ...(b.progress.get(p) || {}), done: true, completed: res.metrics.completed, total: res.metrics.jobs, now: res.end_time, events: res.events });
      adoptResults(b);
      renderProgress();
      stats.adoptMs = Math.max(stats.adoptMs || 0, performance.now() - a0);
    },
    onError: (p, err) => {
      if (batch !== b) return;
      b.errors.set(p, err);
      renderProgress();
      if (err.kind !== 'cancelled') showError(err, inp.policies.length > 1 ? p : '');
    },
    onDone: (cancelled) => {
      if (batch !== b) return;
      b.done = true;
      b.cancelled = cancelled;
      stats.phase = cancelled ? 'cancelled' : 'done';
      $('#cancel').hidden = true;
      renderProgress();
      // Once the comparison is in (never competing with it): the predictor's
      // gauges, and a link's edits (&edit=) re-run.
      if (view && view.batch === b) setupPredictor();
      if (!cancelled && state.edit && view && view.batch === b) whatIf.run();
      if (b.results.size) {
        setTimeout(() => { if (batch === b) $('#progress').classList.add('faded'); }, 1500);
      }
    },
  });
}

function cancelRun() {
  if (batch && !batch.done) pool.cancel();
}

function renderProgress() {
  const b = batch;
  const box = $('#progress');
  box.classList.remove('faded');
  if (!b) { box.innerHTML = ''; return; }
  if (b.done && b.results.size === b.inputs.policies.length) {
    const wall = Math.max(...[...b.results.values()].map((r) => r.result.wall_s));
    const tr = b.trace ? `${b.trace.name}: ${b.trace.jobs.toLocaleString()} jobs (${formatLabel(b.trace.format)})` : '';
    box.innerHTML = `<div class="psummary">✓ ${b.results.size} ${b.results.size === 1 ? 'policy' : 'policies'} simulated (slowest ${wall.toFixed(2)} s) · ${esc(tr)} · cluster ${esc(b.layout.name)} (${b.layout.total_gpus} GPUs)</div>`;
    return;
  }
  const now = performance.now();
  box.innerHTML = b.inputs.policies.map((p, i) => {
    const pr = b.progress.get(p);
    const err = b.errors.get(p);
    const total = (pr && pr.total) || (b.trace && b.trace.jobs) || 0;
    const done = pr ? pr.completed : 0;
    let share = 0;
    let status;
    let phase;
    if (err) { phase = err.kind === 'cancelled' ? 'cancelled' : 'failed'; status = phase; }
    else if (b.results.has(p)) { phase = 'done'; share = 1; status = `done in ${b.results.get(p).result.wall_s.toFixed(2)} s`; }
    else if (b.startedAt.has(p)) {
      phase = 'running';
      const first = b.trace ? b.trace.first_arrival : 0, last = b.trace ? b.trace.last_arrival : 0;
      share = doneShare(pr, first, last);
      const eta = etaSeconds(share, (now - b.startedAt.get(p)) / 1000);
      status = pr
        ? `running · t = ${(pr.now / 3600).toFixed(1)} h · ${done}/${total} jobs · ${Number.isFinite(eta) ? `about ${fmtWait(eta)} left` : 'estimating time left…'}`
        : 'running · starting…';
    } else {
      phase = 'queued';
      const wait = fullWait && pool.fullOnly.has(baseOf(p)) ? ' · waits for the full package (LP-based policies)' : '';
      status = `queued${wait} · estimated ${fmtWait(b.estimate(p))}`;
    }
    return `<div class="prow" data-policy="${esc(p)}" data-phase="${phase}"><span class="chip" style="background:${policyColor(i)}"></span><b>${esc(p)}</b>
      <progress max="100" value="${Math.round(100 * share)}" aria-label="${esc(p)} progress"></progress><span class="pstatus">${esc(status)}</span></div>`;
  }).join('');
}

/** The number of jobs of a trace input (bundled: the catalog's; uploaded: as parsed), for estimates. */
function traceJobs(trace) {
  if (trace.kind === 'bundled') return (catalog.traces.find((t) => t.name === trace.name) || {}).jobs || 1000;
  const up = controls.uploaded;
  return (up && up.info && up.info.jobs) || 1000;
}

/** A trace format's name as a person reads it ("native" is schedlab's own CSV). */
function formatLabel(name) {
  return name === 'native' ? 'schedlab CSV format' : `${name} format`;
}

/** Shows a batch's results (first result switches the view to the new batch). */
function adoptResults(b) {
  const fresh = !view || view.batch !== b;
  if (fresh) {
    view = { batch: b, inputs: b.inputs, layout: b.layout, policies: b.inputs.policies, runs: b.results, panels: new Map() };
    app.view = view;
    buildPanels();
    buildGanttPicker();
    whyClient.reset();
    whyView.reset(view.policies);
    whatIf.reset(view.policies, state.whatif, state.edit);
    view.predictor = null;
    $('#predictor-section').hidden = true;
  }
  const runs = orderedRuns();
  const [t0, t1] = span(runs.map((r) => r.result));
  anim.t0 = t0;
  anim.t1 = t1;
  const scrub = $('#scrub');
  scrub.min = t0;
  scrub.max = t1;
  if (fresh) {
    anim.t = state.t != null ? Math.min(Math.max(state.t, t0), t1) : t0;
    if (!anim.userSpeed) anim.speed = state.speed || pickSpeed(t1 - t0);
    syncSpeed();
    if (state.t == null) setPlaying(true);
    state.t = null;
  }
  for (const r of runs) {
    const rec = view.panels.get(r.policy);
    if (rec && !rec.map.regions && hasPools(r.result)) rec.map.setPools(r.result.pools);
  }
  layoutAll();
  guide.setTrace(b.inputs.trace.kind === 'bundled' ? b.inputs.trace.name : '');
  renderResults(runs);
  setupPredictor();
  // Charts in a task of their own, once for results that arrive together.
  clearTimeout(chartTimer);
  chartTimer = setTimeout(drawChartsSafe, 40);
  anim.dirty = true;
}

let chartTimer = 0;
let fullWait = null; // the full package's build status while the page waits for it (scripts/serve.sh)

/** The results table with the user's baseline and column choice, what it hides, and the words it uses. */
function renderResults(runs) {
  const sel = $('#baseline');
  const names = runs.map((r) => r.policy);
  const base = state.base && names.includes(state.base) ? state.base : names[0];
  const options = names.map((n) => `<option value="${esc(n)}">${esc(n)}</option>`).join('');
  if (sel.innerHTML !== options) sel.innerHTML = options;
  sel.value = base || '';
  sel.disabled = names.length < 2;
  const { shown, hidden } = renderTable($('#results'), catalog, runs, { baseline: base, showAll: table.showAll });
  const note = $('#hidden-cols');
  note.textContent = hidden.length
    ? `${hidden.length} metric${hidden.length === 1 ? '' : 's'} hidden, as ${hidden.length === 1 ? 'it applies' : 'they apply'} to no policy of this run: ${hidden.map((c) => c.label).join(', ')}.`
    : '';
  const words = glossaryFor(shown.map((c) => c.label).concat(['CE', 'BI', 'QL']));
  $('#glossary').innerHTML = `<b>Words:</b> ${words.map(([k, v]) => `<b>${esc(k)}</b> = ${esc(v)}`).join(' · ')} · <b>–</b> = does not apply to this policy's run (hover or focus the cell for why) · ★ = best in its column · ▲▼ = relative difference to the baseline (blue better, orange worse).`;
}

function orderedRuns() {
  if (!view) return [];
  return view.policies.filter((p) => view.runs.has(p)).map((p) => view.runs.get(p));
}

function pickSpeed(spanS) {
  const want = spanS / 60; // the whole run in about a minute
  let best = SPEEDS[0];
  for (const s of SPEEDS) if (Math.abs(Math.log(s / want)) < Math.abs(Math.log(best / want))) best = s;
  return best;
}

function drawChartsSafe() {
  try {
    drawCharts($('#charts'), orderedRuns());
    if (app.scaling) app.scaling.draw();
    if (app.search) app.search.draw();
  } catch (e) {
    showError(e, 'Charts');
  }
}

// ---------- panels ----------
function buildPanels() {
  const maps = $('#maps');
  maps.innerHTML = '';
  view.panels = new Map();
  view.policies.forEach((p, i) => {
    const panel = document.createElement('article');
    panel.className = 'panel';
    panel.dataset.policy = p;
    panel.innerHTML = `<header><span class="chip" style="background:${policyColor(i)}"></span><h3>${p}</h3><span class="pstats"></span></header>
      <div class="panel-body"><canvas class="gpumap" aria-label="GPU map for ${p}"></canvas>
      <div class="queue"><h4>Queue</h4><ol></ol><p class="more"></p></div></div>
      <p class="moves" ${view.layout.groups.length > 1 ? '' : 'hidden'}></p>`;
    maps.append(panel);
    const canvas = panel.querySelector('canvas');
    const map = new GpuMap(canvas, view.layout);
    const rec = { panel, canvas, map, stats: panel.querySelector('.pstats'), queue: panel.querySelector('ol'), more: panel.querySelector('.more'), moves: panel.querySelector('.moves'), lastQueue: '', lastMoves: '' };
    view.panels.set(p, rec);
    canvas.addEventListener('pointermove', (ev) => { if (ev.pointerType === 'mouse' && !pinned) hoverMap(p, ev); });
    canvas.addEventListener('pointerdown', (ev) => { ev.stopPropagation(); pinAt(() => hoverMap(p, ev), p); });
    rec.queue.addEventListener('click', (ev) => {
      const li = ev.target.closest('li[data-job]');
      if (li) whyView.select(p, Number(li.dataset.job));
    });
    canvas.addEventListener('pointerleave', () => { if (!pinned) setHover(-1); });
  });
  maps.dataset.count = view.policies.length;
  // Large clusters are drawn one cell per node (gpumap.js); the legend says so.
  const legend = $('#map-legend');
  legend.dataset.gpuText = legend.dataset.gpuText || legend.innerHTML;
  const nodeView = [...view.panels.values()].some((r) => r.map.nodeView);
  legend.innerHTML = nodeView
    ? `Over ${NODE_VIEW_GPUS.toLocaleString('en')} GPUs each cell is a node, grouped by GPU type: its GPUs' jobs as strips in GPU order (a colour is a job, the same in every policy; grey = idle). <span class="hatch-swatch"></span> hatched = restoring a checkpoint. Hover or tap a node for the job on that strip.`
    : legend.dataset.gpuText;
}

function layoutAll() {
  if (!view) return;
  const n = view.policies.length;
  for (const [, rec] of view.panels) {
    const body = rec.panel.querySelector('.panel-body');
    const queue = rec.panel.querySelector('.queue');
    const beside = getComputedStyle(body).flexDirection === 'row';
    const w = Math.max(120, body.clientWidth - (beside ? queue.offsetWidth + 8 : 0));
    // The embed (900 x 560) keeps maps, clock and table in one screen.
    const share = state.embed ? (n > 2 ? 0.22 : 0.4) : n > 2 ? 0.34 : 0.5;
    const maxH = Math.max(state.embed ? 90 : 140, Math.min(window.innerHeight * share, 420));
    rec.map.resize(Math.floor(w), maxH);
  }
  // The Gantt view shows the chosen policy's run; until one is chosen it follows the first
  // finished run (the picker says which). A chosen policy still running shows no lanes, not
  // another policy's under its name.
  const sel = $('#gantt-policy');
  if (!view.ganttChosen) {
    const first = orderedRuns()[0];
    if (first) sel.value = first.policy;
  }
  const gp = view.runs.get(sel.value) || null;
  gantt.setRun(gp ? gp.result : null, anim.t0, anim.t1, $('#gantt-scroll').clientWidth);
  $('#gantt-legend').textContent = gp ? ganttLegend(gp.result)
    : sel.value ? `${sel.value} is still running (or failed): its lanes appear when its run finishes.` : '';
  $('#gantt').setAttribute('role', 'img');
  $('#gantt').setAttribute('aria-label', gp ? `Jobs over time under ${gp.policy}: ${gp.result.jobs.arrival.length} jobs, one lane each in arrival order, ${gp.result.metrics.completed} finished; average JCT ${(gp.result.metrics.avg_jct_s / 3600).toFixed(2)} h` : 'Jobs over time: no run yet');
  $('#plan-section').hidden = !stair.setRun(gp ? gp.result : null);
  const pooled = gp && hasPools(gp.result);
  $('#pools-section').hidden = !pooled;
  if (pooled) {
    poolChart.setRun(gp.result, anim.t0, anim.t1, $('#pools-section').clientWidth - 24);
    renderPoolTable(orderedRuns().filter((r) => hasPools(r.result)));
  }
  layoutInsight();
  anim.dirty = true;
}

/** The Gantt view's legend: only the marks this run has. */
function ganttLegend(run) {
  const jobs = run.jobs;
  const any = (a, f) => { if (!a) return false; for (let i = 0; i < a.length; i++) if (f(a[i])) return true; return false; };
  const parts = ['bar = holding GPUs (height = share, full = the job\'s largest)', 'pale = restoring a checkpoint or loading', 'grey line = waiting'];
  if (any(jobs.restarts, (r) => r > 0)) parts.push('▼ = restart');
  if (any(jobs.due, Number.isFinite)) parts.push('tick = due date (green met, red missed)');
  if (any(jobs.pred_jct, Number.isFinite)) parts.push('blue tick = completion time promised at arrival');
  if (any(jobs.speedup, (v) => v > 0)) parts.push('◇ = finish under per-pool first-come first-served (green line: earlier here, red: later)');
  parts.push('click or tap to move the clock there');
  if (jobs.arrival.length > 400) parts.push('large traces show a window around the clock');
  return parts.join(' · ');
}

/** The embed's caption: what is compared, on what, and a link to the full page. */
function embedCaption() {
  if (!state.embed) return;
  const cap = $('#embed-caption');
  cap.hidden = false;
  const tr = state.trace.kind === 'bundled' ? state.trace.name : state.trace.name;
  cap.innerHTML = `<b>GPU-cluster schedulers compared</b> · trace <b>${esc(tr)}</b> on <b>${esc(state.cluster)}</b> · ${state.policies.map((p, i) => `<span class="chip" style="background:${policyColor(i)}"></span>${esc(p)}`).join(' ')} · <a href="${esc(toUrl({ ...state, embed: false, t: null, speed: null }))}" target="_blank" rel="noopener">open the full page ↗</a>`;
}

// ---------- goodput matrix ----------
/** The first shown run that recorded per-round insight (only Sia does), or null. */
function insightRun() {
  return orderedRuns().find((r) => hasInsight(r.result)) || null;
}

function layoutInsight() {
  const ir = insightRun();
  const sec = $('#insight-section');
  sec.hidden = !ir;
  if (!ir) return;
  $('#insight-policy').textContent = ir.policy;
  heat.setRun(ir.result, sec.querySelector('.heat-scroll').clientWidth);
  $('#insight-scale').textContent = `1× … ${Number(heat.vmax.toPrecision(3))}× the minimum allocation's goodput`;
}

/** The heading and summary of the round shown (r from Heatmap.update). */
function insightText(ir, r, t) {
  $('#insight-round').textContent = r ? `t = ${(r.t / 3600).toFixed(2)} h` : '–';
  if (!r) { $('#insight-meta').textContent = `no round before t = ${(t / 3600).toFixed(2)} h`; return; }
  let held = 0;
  for (const c of r.chosen) if (c >= 0) held++;
  const n = r.jobs.length;
  let meta = `${n} job${n === 1 ? '' : 's'} · ${r.cols.length} configurations · ${held} hold one after the round`;
  if (r.rowsTotal > n) meta += ` · first ${n} of ${r.rowsTotal} jobs shown`;
  // A later round without a matrix: the run's recording budget ran out.
  const rt = ir.result.rounds.t;
  let k = rt.length - 1;
  while (k >= 0 && rt[k] > t) k--;
  if (k >= 0 && rt[k] > r.t) meta += ` · later rounds not recorded (cell budget reached)`;
  $('#insight-meta').textContent = meta;
}

function fmt3(x) {
  return x === x ? String(Number(x.toPrecision(3))) : '–';
}

function hoverHeat(ev) {
  const ir = insightRun();
  const r = heat.cur;
  const rect = $('#heatmap').getBoundingClientRect();
  const h = heat.hit(ev.clientX - rect.left, ev.clientY - rect.top);
  if (!ir || !r || !h) { setHover(-1); return; }
  const j = r.jobs[h.row];
  const jobs = ir.result.jobs;
  const nc = r.cols.length;
  const c = r.chosen[h.row];
  let html = `<b>${esc(jobs.names[j])}</b> <small>job ${j} · ${esc(jobs.models[jobs.model[j]])} · round t = ${(r.t / 3600).toFixed(2)} h</small><br>`;
  if (h.col >= 0) {
    const v = r.norm[h.row * nc + h.col], raw = r.raw[h.row * nc + h.col];
    html += `configuration <b>${esc(r.labels[h.col])}</b>${c === h.col ? ' · <b>chosen</b>' : ''}<br>`;
    html += v === v
      ? `normalised goodput <b>${fmt3(v)}</b> (× the minimum allocation)<br>raw goodput <b>${fmt3(raw)}</b> /s (estimated)<br>`
      : 'not a choice for this job this round<br>';
  }
  html += `holds after the round: <b>${c >= 0 ? esc(r.labels[c]) : 'no GPUs'}</b><br>restart factor <b>${fmt3(r.restart[h.row])}</b> (other configurations)`;
  setHover(j, html, ev);
}

/** The per-pool speedup table: one row per pool, one column per policy. */
function renderPoolTable(runs) {
  const { pools, rows } = poolSpeedups(runs);
  const cell = (c) => (c.n ? `${c.geo.toFixed(2)} / <span class="${c.slowed > 0 ? 'slowed' : ''}">${(100 * c.slowed).toFixed(1)}%</span>` : '–');
  const head = `<tr><th>pool</th>${runs.map((r) => `<th>${esc(r.policy)}</th>`).join('')}</tr>`;
  const body = pools.map((name, p) => `<tr><td>${esc(name)} <small>(${rows[p][0].n} jobs)</small></td>${rows[p].map((c) => `<td>${cell(c)}</td>`).join('')}</tr>`).join('');
  $('#pool-table').innerHTML = head + body;
}

function hoverPools(ev) {
  const rect = $('#poolchart').getBoundingClientRect();
  const h = poolChart.hit(ev.clientX - rect.left, ev.clientY - rect.top);
  if (!h) { setHover(-1); return; }
  const pool = poolChart.run.pools[h.p];
  const f = (x) => x.toFixed(x < 10 ? 1 : 0);
  setHover(-1, `<b>pool ${esc(pool.name)}</b> <small>quota ${pool.quota} · around t = ${(h.t / 3600).toFixed(2)} h</small><br>
    own jobs within quota <b>${f(h.own)}</b> GPUs<br>lent to other pools <b>${f(h.lent)}</b><br>borrowed beyond quota <b>${f(h.borrowed)}</b><br>
    <small>${pool.jobs} jobs · peak ${pool.peak_gpus} GPUs · ${(pool.borrowed_gpu_s / 3600).toFixed(1)} GPU-h borrowed in all</small>`, ev);
}

function buildGanttPicker() {
  const sel = $('#gantt-policy');
  sel.innerHTML = view.policies.map((p) => `<option value="${p}">${p}</option>`).join('');
  if (state.gantt && view.policies.includes(state.gantt)) { sel.value = state.gantt; view.ganttChosen = true; }
}

// ---------- drawing ----------
let lastQueueUpdate = 0;
let urlTimer = 0;

function render(now) {
  const t0 = performance.now();
  const t = anim.t;
  const runs = orderedRuns();
  const updateQueues = now - lastQueueUpdate > 120 || !anim.playing;
  if (updateQueues) lastQueueUpdate = now;
  const moveWindow = movedWindow();
  if (view) {
    for (const p of view.policies) {
      const rec = view.panels.get(p);
      const r = view.runs.get(p);
      rec.map.draw(r ? r.result : null, t, hoverJob, moveWindow);
      if (!updateQueues) continue;
      if (r && !rec.moves.hidden) renderMoves(rec, r.result, t);
      if (!r) {
        const err = batch && batch.errors.get(p);
        const started = batch && batch.startedAt && batch.startedAt.has(p);
        rec.stats.textContent = err ? (err.kind === 'cancelled' ? 'cancelled' : 'failed') : started ? 'running…' : 'queued';
        continue;
      }
      const q = queueAt(r.result, t, 12);
      let busy = 0;
      const tl = r.result.timeline;
      for (let g = 0; g < view.layout.total_gpus; g++) if (segmentOnGpu(tl, g, t) >= 0) busy++;
      rec.stats.textContent = `${q.running} running · ${q.waiting} waiting · ${q.done} done · ${busy}/${view.layout.total_gpus} GPUs`;
      rec.canvas.setAttribute('aria-label', `GPU map of ${p} at t = ${(t / 3600).toFixed(2)} h: ${rec.stats.textContent}`);
      const jobs = r.result.jobs;
      const colorOf = jobColors(r.result);
      const html = q.list.map((j) => `<li data-job="${j}"><button type="button" class="qpick" title="why is it waiting?"><span class="chip" style="background:${colorOf(j)}"></span>${esc(jobs.names[j])} <small>${jobs.gpus_requested[j]}×, ${fmtDur(t - jobs.arrival[j])}</small></button></li>`).join('');
      if (html !== rec.lastQueue) { rec.queue.innerHTML = html; rec.lastQueue = html; }
      rec.more.textContent = q.waiting > q.list.length ? `+${q.waiting - q.list.length} more` : (q.waiting ? '' : 'empty');
    }
  }
  gantt.draw(t, hoverJob);
  if (!$('#pools-section').hidden) poolChart.draw(t);
  if (stair.has) {
    stair.select(hoverJob);
    stair.draw(t);
  }
  const ir = view && !$('#insight-section').hidden ? insightRun() : null;
  if (ir) {
    const shown = heat.cur;
    const r = heat.update(t, hoverJob);
    if (r !== shown || updateQueues) insightText(ir, r, t);
  }
  if (updateQueues && view) {
    whyView.update(t);
    if (view.predictor && !$('#predictor-section').hidden) predictor.draw(t);
  }
  placeCursors($('#charts'), t);
  placeCursors($('#predictor-section'), t);
  $('#scrub').value = t;
  $('#clock').textContent = `t = ${(t / 3600).toFixed(2)} h / ${(anim.t1 / 3600).toFixed(2)} h`;
  const dt = performance.now() - t0;
  stats.renderMs = stats.renderMs ? stats.renderMs * 0.9 + dt * 0.1 : dt;
  if (anim.playing && runs.length && stats.firstFrameMs === null) stats.firstFrameMs = performance.now();
  // A paused clock inside the run is part of the shareable state.
  if (!anim.playing && view && anim.t > anim.t0 && anim.t < anim.t1) {
    clearTimeout(urlTimer);
    urlTimer = setTimeout(() => updateUrl(anim.t), 400);
  }
}

/**
 * How long (simulated s) a move between GPU types stays outlined: about 2 s of
 * playback, so it scales with the speed, but at most 1% of the run, so that at
 * high speeds the outlines still mark recent moves rather than most cells.
 */
function movedWindow() {
  return Math.max(1, Math.min(2 * anim.speed, (anim.t1 - anim.t0) / 100));
}
app.movedWindow = movedWindow;

/** "Moved: job rtx→a100 (2 min ago)" for the moves outlined on a panel's map, newest first. */
function renderMoves(rec, run, t) {
  const tl = run.timeline;
  const from = moveSources(run);
  const segs = rec.map.moved.slice().sort((a, b) => tl.seg_start[b] - tl.seg_start[a]);
  const kind = (k) => esc((catalog.gpu_types[k] || { name: '?' }).name);
  const items = segs.slice(0, 4).map((s) => {
    const j = tl.seg_job[s];
    return `<b>${esc(run.jobs.names[j])}</b> ${kind(from[s])}→${kind(tl.seg_kind[s])} <small>${fmtDur(t - tl.seg_start[s])} ago</small>`;
  });
  const html = items.length
    ? `↔ moved between GPU types: ${items.join(', ')}${segs.length > 4 ? ` +${segs.length - 4} more` : ''}`
    : 'no recent moves between GPU types';
  if (html !== rec.lastMoves) {
    rec.moves.innerHTML = html;
    rec.moves.title = rec.moves.textContent;
    rec.lastMoves = html;
  }
}


function fmtDur(s) {
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86400).toFixed(1)} d`;
}

let fpsFrames = 0, fpsStart = 0;
function frame(ts) {
  requestAnimationFrame(frame);
  const dt = anim.last ? Math.min(0.25, (ts - anim.last) / 1000) : 0;
  anim.last = ts;
  if (anim.playing && view) {
    anim.t += dt * anim.speed;
    if (anim.t >= anim.t1) { anim.t = anim.t1; setPlaying(false); }
    anim.dirty = true;
    fpsFrames++;
    if (!fpsStart) fpsStart = ts;
    if (ts - fpsStart >= 1000) { stats.fps = fpsFrames * 1000 / (ts - fpsStart); fpsFrames = 0; fpsStart = ts; }
  } else {
    fpsFrames = 0; fpsStart = 0;
  }
  if (anim.dirty) {
    anim.dirty = false;
    stats.frames++;
    render(ts);
  }
}

function setPlaying(on) {
  if (on && anim.t >= anim.t1) anim.t = anim.t0;
  anim.playing = on && !!view;
  if (anim.playing) { clearTimeout(urlTimer); updateUrl(); }
  const b = $('#play');
  b.classList.toggle('playing', anim.playing);
  b.setAttribute('aria-label', anim.playing ? 'Pause' : 'Play');
  anim.dirty = true;
}

function seek(t) {
  if (!Number.isFinite(t)) return;
  anim.t = Math.min(Math.max(t, anim.t0), anim.t1);
  anim.dirty = true;
}

function syncSpeed() {
  const sel = $('#speed');
  if (![...sel.options].some((o) => Number(o.value) === anim.speed)) {
    sel.append(new Option(`${anim.speed}×`, anim.speed));
  }
  sel.value = String(anim.speed);
}

// ---------- hover ----------
function hoverMap(policy, ev) {
  const rec = view.panels.get(policy);
  const r = view.runs.get(policy);
  const rect = rec.canvas.getBoundingClientRect();
  const g = rec.map.hit(ev.clientX - rect.left, ev.clientY - rect.top);
  if (!r || g < 0) { setHover(-1); return; }
  const tl = r.result.timeline;
  const inCell = rec.map.segmentInCell(g);
  const s = inCell === undefined ? segmentOnGpu(tl, g, anim.t) : inCell;
  const where = cellOwner(rec.map, r.result, g);
  if (s < 0) { setHover(-1, `${where || `GPU ${g}`} · idle`, ev); return; }
  const j = tl.seg_job[s];
  const jobs = r.result.jobs;
  const kind = catalog.gpu_types[tl.seg_kind[s]];
  const restoring = anim.t < tl.seg_busy_until[s];
  const f = jobs.finish[j];
  const from = moveSources(r.result)[s];
  const moved = from >= 0 ? ` · moved from ${esc((catalog.gpu_types[from] || { name: '?' }).name)}` : '';
  const html = `<b>${esc(jobs.names[j])}</b> <small>job ${j} · ${esc(policy)}</small><br>
    model <b>${esc(jobs.models[jobs.model[j]])}</b><br>
    GPUs <b>${tl.seg_gpu_count[s]} × ${kind ? kind.name : '?'}</b> (asked ${jobs.gpus_requested[j]})${moved}<br>
    batch size <b>${tl.seg_batch[s]}</b><br>
    progress <b>${(100 * progressAt(r.result, j, anim.t)).toFixed(1)}%</b>${restoring ? ' · restoring checkpoint' : ''}<br>
    restarts <b>${restartsAt(r.result, j, anim.t)}</b> so far (${jobs.restarts[j]} in all)<br>
    arrived ${fmtDur(anim.t - jobs.arrival[j])} ago${f === f ? ` · JCT ${fmtDur(jobs.jct[j])}` : ''}${where ? `<br>${where}` : ''}`;
  setHover(j, html, ev);
}

/** In the pool view: whose quota cell g is and, when lent, to which pool ('' otherwise). */
function cellOwner(map, run, g) {
  const reg = map.regions;
  if (!reg || !map.at) return '';
  let p = 0;
  while (p < reg.P && g >= reg.first[p] + reg.cap[p]) p++;
  const owner = p < reg.P ? `a GPU of pool <b>${esc(run.pools[p].name)}</b>'s quota` : 'a GPU outside every quota';
  const to = map.at.lentTo[g];
  return to >= 0 ? `${owner}, <b>lent</b> to pool <b>${esc(run.pools[to].name)}</b>` : owner;
}

/**
 * A tap (or click) on a map, the Gantt view or the matrix pins the card it
 * shows: it stays, and the job stays outlined, until a tap elsewhere (or on
 * an idle cell) unpins it. Mouse hover without a pin shows cards as before.
 */
function pinAt(show, policy) {
  pinned = false;
  show();
  pinned = !$('#tooltip').hidden;
  $('#tooltip').classList.toggle('pinned', pinned);
  // The pinned job's "why this, now" card (js/whyview.js).
  if (pinned && policy && hoverJob >= 0) whyView.select(policy, hoverJob);
}

function unpin() {
  if (!pinned) return;
  pinned = false;
  $('#tooltip').classList.remove('pinned');
  setHover(-1);
}

function setHover(job, html, ev) {
  const tip = $('#tooltip');
  if (job !== hoverJob) { hoverJob = job; anim.dirty = true; }
  if (!html) { tip.hidden = true; return; }
  tip.innerHTML = html;
  tip.hidden = false;
  const x = Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
  const y = ev.clientY + 14 + tip.offsetHeight > window.innerHeight ? ev.clientY - tip.offsetHeight - 10 : ev.clientY + 14;
  tip.style.left = `${Math.max(4, x)}px`;
  tip.style.top = `${Math.max(4, y)}px`;
}

// ---------- URL ----------
function updateUrl(t) {
  if (!state) return;
  const s = { ...state, t: t ?? null, speed: anim.userSpeed ? anim.speed : null, gantt: view && view.ganttChosen ? $('#gantt-policy').value || null : null };
  // While its banner stands, the link keeps naming the uploaded trace it was made with.
  if (state.missingUpload && notices.has('upload-missing')) s.trace = { kind: 'upload', name: state.missingUpload };
  history.replaceState(null, '', papers.withView(toUrl(s))); // the view shown stays in the link
  $('#open-full').href = toUrl({ ...s, embed: false });
  embedCaption();
}

// ---------- traces from files and URLs ----------
async function loadTraceText(kind, name, text, url) {
  const res = await pool.parse(name, text);
  if (res.error) { showError(res.error, 'Trace'); return false; }
  controls.setUploaded({ kind, name, text, url, info: res.info });
  clearError();
  return true;
}

async function handleFile(file) {
  if (!file) return;
  let text;
  try { text = await file.text(); } catch (e) { showError(`could not read ${file.name}: ${e}`); return; }
  const problem = traceFileProblem(file.name, text, catalog);
  if (problem) { showError({ kind: 'input', file: file.name, line: text.trim() ? 1 : 0, field: '', text: problem }, 'Trace'); return; }
  if (await loadTraceText('upload', file.name, text)) {
    notices.hide('upload-missing');
    startRun();
  }
}

async function resolveUrlTrace() {
  const tr = state.trace;
  if (tr.kind === 'upload') {
    const fallback = catalog.traces[0].name;
    notices.show('upload-missing', `This link was made with an uploaded trace, <b>${esc(tr.name)}</b>, and a file cannot travel in a link. Upload ${esc(tr.name)} to see what was shared; until then the page shows the bundled trace <b>${esc(fallback)}</b> with the link's other settings.`, {
      actions: [{ label: `Upload ${tr.name}…`, run: () => $('#file').click() }],
    });
    state.trace = { kind: 'bundled', name: fallback };
    state.missingUpload = tr.name;
    controls.apply(state);
    return true;
  }
  if (tr.kind !== 'url') return true;
  const url = new URL(tr.url, location.href);
  if (url.origin !== location.origin) {
    const ok = await new Promise((resolve) => {
      $('#confirm-url').textContent = url.href;
      $('#confirm').hidden = false;
      $('#confirm-yes').onclick = () => resolve(true);
      $('#confirm-no').onclick = () => resolve(false);
    });
    $('#confirm').hidden = true;
    if (!ok) {
      state.trace = { kind: 'bundled', name: catalog.traces[0].name };
      controls.apply(state);
      return true;
    }
  }
  try {
    const r = await fetch(url.href);
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    const text = await r.text();
    return await loadTraceText('url', tr.name, text, tr.url);
  } catch (e) {
    showError(`could not load the trace from ${url.href}: ${e.message || e}`);
    return false;
  }
}

// ---------- wiring ----------
function bind() {
  $('#run').addEventListener('click', startRun);
  $('#cancel').addEventListener('click', cancelRun);
  $('#error-close').addEventListener('click', clearError);
  $('#play').addEventListener('click', () => setPlaying(!anim.playing));
  $('#next').addEventListener('click', () => { setPlaying(false); seek(nextEvent(orderedRuns().map((r) => r.result), anim.t)); });
  $('#prev').addEventListener('click', () => { setPlaying(false); seek(prevEvent(orderedRuns().map((r) => r.result), anim.t)); });
  $('#scrub').addEventListener('input', (e) => seek(Number(e.target.value)));
  const sp = $('#speed');
  for (const s of SPEEDS) sp.append(new Option(`${s.toLocaleString()}×`, s));
  sp.addEventListener('change', () => { anim.speed = Number(sp.value); anim.userSpeed = true; updateUrl(); });
  $('#gantt-policy').addEventListener('change', () => { if (view) view.ganttChosen = true; layoutAll(); updateUrl(); });
  gantt.onScroll = () => { anim.dirty = true; };
  const gc = $('#gantt');
  gc.addEventListener('pointerdown', (ev) => {
    ev.stopPropagation();
    const r = gc.getBoundingClientRect();
    const h = gantt.hit(ev.clientX - r.left, ev.clientY - r.top);
    seek(h.t);
    pinAt(() => hoverGantt(ev), $('#gantt-policy').value);
  });
  const hoverGantt = (ev) => {
    const r = gc.getBoundingClientRect();
    const h = gantt.hit(ev.clientX - r.left, ev.clientY - r.top);
    const run = gantt.run;
    if (!run || h.job < 0) { setHover(-1); return; }
    const j = h.job, jobs = run.jobs, f = jobs.finish[j];
    setHover(j, `<b>${esc(jobs.names[j])}</b> <small>job ${j}</small><br>model ${esc(jobs.models[jobs.model[j]])} · asked ${jobs.gpus_requested[j]} ${jobs.gpus_requested[j] === 1 ? 'GPU' : 'GPUs'}<br>
      restarts ${jobs.restarts[j]} · preemptions ${jobs.preemptions[j]}<br>${f === f ? `JCT ${fmtDur(jobs.jct[j])} · queued ${fmtDur(jobs.queue[j])}` : 'unfinished'}`, ev);
  };
  gc.addEventListener('pointermove', (ev) => { if (ev.pointerType === 'mouse' && !pinned) hoverGantt(ev); });
  gc.addEventListener('pointerleave', () => { if (!pinned) setHover(-1); });
  const hc = $('#heatmap');
  const pc = $('#poolchart');
  pc.addEventListener('pointermove', (ev) => { if (ev.pointerType === 'mouse' && !pinned) hoverPools(ev); });
  pc.addEventListener('pointerdown', (ev) => {
    ev.stopPropagation();
    const r = pc.getBoundingClientRect();
    const h = poolChart.hit(ev.clientX - r.left, ev.clientY - r.top);
    if (h) seek(h.t);
    pinAt(() => hoverPools(ev), $('#gantt-policy').value);
  });
  pc.addEventListener('pointerleave', () => { if (!pinned) setHover(-1); });
  hc.addEventListener('pointermove', (ev) => { if (ev.pointerType === 'mouse' && !pinned) hoverHeat(ev); });
  hc.addEventListener('pointerdown', (ev) => { ev.stopPropagation(); pinAt(() => hoverHeat(ev)); });
  hc.addEventListener('pointerleave', () => { if (!pinned) setHover(-1); });
  // Charts over time: a click (or tap) moves the clock to the time under it.
  for (const c of document.querySelectorAll('#charts canvas[data-chart]')) {
    c.addEventListener('click', (ev) => {
      const r = c.getBoundingClientRect();
      const t = timeAtChart(c, ev.clientX - r.left);
      if (Number.isFinite(t)) { setPlaying(false); seek(t); }
    });
  }
  const predCanvas = $('#pred-canvas');
  predCanvas.addEventListener('click', (ev) => {
    const r = predCanvas.getBoundingClientRect();
    const t = timeAtChart(predCanvas, ev.clientX - r.left);
    if (Number.isFinite(t)) { setPlaying(false); seek(t); }
  });
  $('#pred-policy').addEventListener('change', () => showPredictor($('#pred-policy').value));
  $('#pred-window').addEventListener('change', () => { predictor.window = Number($('#pred-window').value); predictor.draw(anim.t); });
  // A tap anywhere else unpins a pinned card.
  document.addEventListener('pointerdown', () => unpin());
  $('#baseline').addEventListener('change', (e) => {
    state.base = e.target.value;
    renderResults(orderedRuns());
    updateUrl();
  });
  $('#show-all').addEventListener('change', (e) => {
    table.showAll = e.target.checked;
    renderResults(orderedRuns());
  });
  $('#share').addEventListener('click', async () => {
    updateUrl(anim.t);
    try { await navigator.clipboard.writeText(location.href); $('#share').textContent = 'Link copied'; } catch (_) { window.prompt('Copy this link', location.href); }
    setTimeout(() => { $('#share').textContent = 'Share'; }, 1500);
  });
  $('#export').addEventListener('click', async (ev) => {
    const kind = ev.target.dataset && ev.target.dataset.export;
    if (!kind) return;
    $('#export').open = false;
    await doExport(kind);
  });
  for (const b of document.querySelectorAll('button[data-png]')) {
    b.addEventListener('click', () => {
      const c = document.querySelector(`canvas[data-chart="${b.dataset.png}"]`);
      c.toBlob((blob) => download(`schedlab-${b.dataset.png}.png`, blob));
    });
  }
  $('#file').addEventListener('change', (e) => { handleFile(e.target.files[0]); e.target.value = ''; });
  let dragDepth = 0;
  // In the paper results view a dropped file is a summary (js/papers.js), not a trace.
  window.addEventListener('dragenter', (e) => { if (!papers.active && e.dataTransfer && [...e.dataTransfer.types].includes('Files')) { dragDepth++; $('#dropzone').hidden = false; } });
  window.addEventListener('dragleave', () => { if (--dragDepth <= 0) { dragDepth = 0; $('#dropzone').hidden = true; } });
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => {
    if (papers.active) return;
    e.preventDefault();
    dragDepth = 0;
    $('#dropzone').hidden = true;
    if (e.dataTransfer.files.length) handleFile(e.dataTransfer.files[0]);
  });
  $('#help-btn').addEventListener('click', () => { $('#help').hidden = false; });
  $('#help-close').addEventListener('click', () => { $('#help').hidden = true; });
  window.addEventListener('keydown', onKey);
  new ResizeObserver(debounce(() => { layoutAll(); drawChartsSafe(); }, 120)).observe($('#maps'));
}

function onKey(e) {
  if (papers.active) return; // the playback keys belong to the simulation view
  const tag = (e.target.tagName || '').toLowerCase();
  const typing = ['input', 'select', 'textarea'].includes(tag) && e.target.type !== 'range' && e.target.type !== 'checkbox';
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); startRun(); return; }
  if (e.key === 'Escape') { $('#help').hidden = true; cancelRun(); return; }
  if (typing || e.altKey || e.ctrlKey || e.metaKey) return;
  // In a scrolling region (the results table, the Gantt view, the matrix) the arrows and
  // Home / End scroll it, as a keyboard user expects.
  const inRegion = e.target.closest && e.target.closest('[role="region"]');
  if (inRegion && /^(Arrow|Home|End|Page)/.test(e.key)) return;
  const k = e.key;
  if (k === ' ' || k === 'k') { e.preventDefault(); setPlaying(!anim.playing); }
  else if (k === 'ArrowRight' || k === '.') { e.preventDefault(); setPlaying(false); seek(nextEvent(orderedRuns().map((r) => r.result), anim.t)); }
  else if (k === 'ArrowLeft' || k === ',') { e.preventDefault(); setPlaying(false); seek(prevEvent(orderedRuns().map((r) => r.result), anim.t)); }
  else if (k === '+' || k === '=' || k === '-' || k === '_') {
    const i = SPEEDS.indexOf(anim.speed);
    const j = Math.max(0, Math.min(SPEEDS.length - 1, (i < 0 ? 3 : i) + (k === '+' || k === '=' ? 1 : -1)));
    anim.speed = SPEEDS[j]; anim.userSpeed = true; syncSpeed();
  } else if (k === 'Home') { seek(anim.t0); } else if (k === 'End') { seek(anim.t1); } else if (k === '?') { $('#help').hidden = !$('#help').hidden; }
}

function debounce(f, ms) {
  let id = 0;
  return () => { clearTimeout(id); id = setTimeout(f, ms); };
}

async function doExport(kind) {
  const runs = orderedRuns();
  if (!runs.length) { showError('nothing to export yet: run a comparison first'); return; }
  const base = `schedlab-${(view.inputs.trace.name || 'trace').replace(/[^\w.-]+/g, '_')}`;
  if (kind === 'csv') download(`${base}.csv`, summaryCsv(runs), 'text/csv');
  else if (kind === 'jobs') download(`${base}-jobs.csv`, jobsCsv(runs), 'text/csv');
  else if (kind === 'png') download(`${base}-charts.png`, await chartsPng($('#charts')));
  else if (kind === 'json') {
    const parts = await Promise.all(runs.map((r) => pool.resultJson(r.runId)));
    const bad = parts.find((p) => !p || p.error || !p.text);
    if (bad) { showError(bad && bad.error ? bad.error : 'results are no longer available; run again'); return; }
    const report = {
      trace: runs[0].result.trace.name,
      cluster: view.layout.name,
      seed: view.inputs.seed,
      engine: runs[0].result.engine,
      results: parts.map((p) => JSON.parse(p.text)),
    };
    download(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`, 'application/json');
  }
}

// ---------- boot ----------
/** The wasm catalog carries no prose (size budget; crates/core/src/prose.rs): parameter help,
 * policy, metric, cluster and bundled-trace descriptions come from catalog-text.json. Without it
 * (e.g. a trimmed copy of the page) the page works, with empty tooltips. */
async function addProse(c) {
  let text;
  try {
    const r = await fetch(new URL('./catalog-text.json', import.meta.url));
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    text = await r.json();
  } catch (e) {
    console.warn(`catalog-text.json not loaded (${e.message}); tooltips stay empty`);
    return;
  }
  const help = (specs, texts) => { for (const p of specs) p.help = p.help || (texts || {})[p.name] || ''; };
  for (const p of c.policies) {
    const t = text.policies[p.name] || {};
    p.description = p.description || t.description || '';
    p.source = p.source || t.source || '';
    help(p.params, t.params);
  }
  help(c.engine, text.engine);
  for (const m of c.metrics) m.help = m.help || text.metrics[m.key] || '';
  // No internal references on screen (specification sections, equation labels, repository paths).
  for (const p of c.policies) {
    p.rawSource = p.source;
    p.source = plainWords(p.source);
    p.description = plainWords(p.description);
    for (const s of p.params) s.help = plainWords(s.help);
  }
  for (const s of c.engine) s.help = plainWords(s.help);
  for (const m of c.metrics) m.help = plainWords(m.help);
  for (const cl of c.clusters) cl.description = cl.description || text.clusters[cl.name] || '';
  for (const f of c.formats) f.description = f.description || (text.formats || {})[f.name] || '';
  for (const t of c.traces) {
    const p = (text.traces || {})[t.name] || {};
    t.description = plainWords(t.description || p.description || '');
    t.source = plainWords(t.source || p.source || '');
  }
  for (const f of c.formats) f.description = plainWords(f.description);
  for (const cl of c.clusters) cl.description = plainWords(cl.description);
}

/**
 * What the "why" worker needs to run `label` again as the page ran it:
 * trace, cluster, policy, settings (with `extra` OWNER.KEY=VALUE settings
 * over them, the what-if's), seed; `trace` replaces the page's trace.
 */
function whySpec(label, extra = {}, trace = null) {
  const inp = view.inputs;
  const base = baseOf(label);
  const sets = setsFor(inp.sets, label).filter((e) => !(e.slice(0, e.indexOf('=')) in extra))
    .concat(Object.entries(extra).map(([k, v]) => `${k}=${v}`));
  return {
    trace: trace || { name: inp.trace.name, text: inp.trace.kind === 'bundled' ? '' : inp.trace.text },
    cluster: inp.cluster,
    policy: base,
    sets,
    seed: inp.seed,
    full: catalog.full_package.includes(base),
  };
}

/** The anticipatory runs of the view (their predictor's gauges make the panel). */
function predictorRuns() {
  return orderedRuns().filter((r) => baseOf(r.policy).startsWith('anticipatory') && hasPools(r.result));
}

/** Shows the predictor panel once an anticipatory run is in (first such run by default). */
function setupPredictor() {
  if (!view.batch.done) return; // asked once the comparison is in (onDone)
  const runs = predictorRuns();
  const sec = $('#predictor-section');
  if (!runs.length) { sec.hidden = true; return; }
  const sel = $('#pred-policy');
  const opts = runs.map((r) => `<option value="${esc(r.policy)}">${esc(r.policy)}</option>`).join('');
  if (sel.innerHTML !== opts) sel.innerHTML = opts;
  if (!view.predictor) showPredictor(runs[0].policy);
}

async function showPredictor(label) {
  const v = view;
  v.predictor = label;
  $('#pred-policy').value = label;
  const sec = $('#predictor-section');
  sec.hidden = false;
  $('#pred-text').textContent = `asking ${label} for its predictions…`;
  try {
    const g = await whyClient.ask(`${v.batch.started}|${label}`, whySpec(label), 'gauges');
    if (view !== v || v.predictor !== label) return;
    const run = v.runs.get(label).result;
    predictor.set(g, run.pools.map((p) => p.name), [anim.t0, anim.t1]);
    if (!predictor.has()) {
      $('#pred-text').textContent = `${label} made no predictions in this run (its sharing is off, so it reserves nothing for predicted load).`;
      $('#pred-canvas').hidden = true;
      return;
    }
    $('#pred-canvas').hidden = false;
    const ws = $('#pred-window');
    const wins = windowsOf(label);
    ws.innerHTML = Array.from({ length: predictor.windows }, (_, w) => `<option value="${w}">${wins[w] !== undefined ? `${wins[w]} min` : `window ${w + 1}`}</option>`).join('');
    ws.value = String(predictor.window);
    predictor.draw(anim.t);
  } catch (err) {
    if (view === v) $('#pred-text').textContent = `The predictions could not be read: ${err.text || err}`;
  }
}

/** The prediction windows (minutes) of an anticipatory entry: its setting, else the catalog's default. */
function windowsOf(label) {
  const base = baseOf(label);
  const set = setsFor(view.inputs.sets, label).find((e) => e.startsWith(`${base}.windows_min=`));
  const spec = (catalog.policies.find((x) => x.name === base) || { params: [] }).params.find((x) => x.name === 'windows_min');
  const text = set ? set.slice(set.indexOf('=') + 1) : spec ? String(spec.default ?? '') : '';
  return text.split(/[,\s]+/).filter(Boolean).map(Number);
}

async function boot() {
  const b0 = performance.now();
  const module = await compileWasm(new URL('./pkg/schedlab_bg.wasm', import.meta.url));
  const b1 = performance.now();
  initSync({ module });
  const b2 = performance.now();
  catalog = readCatalog();
  await addProse(catalog);
  const b3 = performance.now();
  stats.boot = { start: b0, compile: b1 - b0, instantiate: b2 - b1, catalog: b3 - b2 };
  app.catalog = catalog;
  app.bundledTraceText = bundled_trace_text;
  pool = new Pool(module, catalog.full_package);
  app.pool = pool;
  pool.onFullStatus = (st) => {
    if (!fullWait) watchBuild(st);
    fullWait = st;
    if (batch && !batch.done) renderProgress();
  };
  pool.onFullLoaded = () => { fullWait = null; };
  state = fromUrl(location.search, catalog);
  app.state = state;
  notices = new Notices($('#notices'));
  app.notices = notices;
  costs = new CostBook(catalog.full_package);
  if (state.dropped.length) notices.show('dropped', droppedHtml(state.dropped));
  if (state.embed) { document.body.classList.add('embed'); $('#open-full').hidden = false; $('#controls').open = false; }
  if (window.matchMedia('(max-width: 760px)').matches) $('#controls').open = false;
  controls = new Controls($('#form'), catalog, () => {
    document.body.classList.add('stale');
    $('#run').textContent = '▶ Run (inputs changed)';
  });
  controls.apply(state);
  gantt = new Gantt($('#gantt-scroll'), $('#gantt'), $('#gantt-spacer'));
  stair = new Staircase($('#plan'), $('#plan-caption'));
  poolChart = new PoolChart($('#poolchart'));
  guide = new Guide($('#guide'), {
    runs: () => (view ? view.runs : new Map()),
    seek: (t, name) => {
      setPlaying(false);
      seek(t);
      const first = orderedRuns()[0];
      setHover(first && name ? first.result.jobs.names.indexOf(name) : -1);
    },
  });
  app.sandbox = new Sandbox($('#sandbox'), catalog);
  app.scaling = new Scaling($('#scaling-fig'), pool);
  app.search = new PreferenceSearch($('#search-section'), pool, () => currentInputs(), runSearchPick);
  heat = new Heatmap($('#heatmap'), catalog.gpu_types);
  whyClient = new WhyClient(module, () => pool.loadFull());
  app.why = whyClient;
  const whyCtx = {
    client: whyClient,
    runs: () => (view ? view.runs : new Map()),
    key: (label) => `${view.batch.started}|${label}`,
    spec: (label) => whySpec(label),
    totalGpus: () => view.layout.total_gpus,
  };
  whyView = new WhyView($('#why-section'), whyCtx);
  app.whyView = whyView;
  whatIf = new WhatIfEditor($('#whatif-section'), {
    client: whyClient,
    runs: () => (view ? view.runs : new Map()),
    isOwner: (name) => name === 'engine' || catalog.policies.some((x) => x.name === name),
    setProblem: (entry) => setProblem(catalog, entry),
    trace: () => {
      const tr = view.inputs.trace;
      return tr.kind === 'bundled' ? { name: tr.name, text: bundled_trace_text(tr.name) || '' } : { name: tr.name, text: tr.text || '' };
    },
    spec: (label, extra, trace) => whySpec(label, extra, trace),
    onEdits: (label, text) => { state.whatif = label; state.edit = text; updateUrl(); },
    metricRules: catalog.metrics,
  });
  predictor = new Predictor($('#pred-canvas'), $('#pred-text'));
  app.heat = heat;
  document.querySelector('#insight-section .cbar').style.background = VIRIDIS_CSS;
  if (state.speed) { anim.speed = state.speed; anim.userSpeed = true; }
  bind();
  syncSpeed();
  requestAnimationFrame(frame);
  stats.boot.ui = performance.now() - b3;
  stats.phase = 'ready';
  // Opened on the paper results (?view=papers), the first comparison waits until the simulation is shown.
  if (await resolveUrlTrace()) papers.whenSimulation(startRun);
}

/**
 * While scripts/serve.sh builds the full package behind the server (a run
 * asked for it and found it missing, status `st`), a banner says which
 * policies wait for it and, when the build is done, that they are available
 * (runs waiting for it start by themselves).
 */
async function watchBuild(st) {
  const lp = catalog.full_package.join(', ');
  const started = Date.now();
  while (st && st.full === 'building') {
    const since = Math.max(0, Math.round((Date.now() - (st.since || started)) / 1000));
    notices.show('full-build', `The LP-based and large policies (${esc(lp)}) become available when the full package is built: <code>scripts/serve.sh</code> is building it now (3.5 minutes on a quiet 2-core machine; ${since} s so far). Every other policy runs already; a comparison that includes one of these starts it when the build is done.`, { kind: 'info' });
    await new Promise((resolve) => { setTimeout(resolve, 3000); });
    st = await buildStatus();
  }
  if (st && st.full === 'failed') {
    notices.show('full-build', `The full package's build failed (see ${esc(st.log || 'the build log')}): ${esc(lp)} cannot run. Every other policy works.`);
  } else {
    notices.show('full-build', `The LP-based and large policies (${esc(lp)}) are available now.`, { kind: 'info' });
    setTimeout(() => notices.hide('full-build'), 8000);
  }
}

boot().catch((e) => {
  stats.phase = 'failed';
  const box = document.getElementById('error');
  const why = e && (e.text || e.message) || String(e);
  const missing = /pkg\/schedlab|HTTP 404|Failed to fetch|Importing a module/.test(why);
  document.getElementById('error-text').textContent = missing
    ? `schedlab could not start: its WebAssembly package (www/pkg) is not there. Build and serve it with: bash scripts/serve.sh\n(${why})`
    : `schedlab could not start: ${why}`;
  box.hidden = false;
});
