// The comparison: results table (the CLI's metrics that apply to the run,
// best value per column marked, difference to the chosen baseline), the
// plotters charts with their text alternatives and time cursors, exports.
import { draw_chart } from '../pkg/schedlab.js';
import { notApplicable } from './applies.js';
import { esc } from './html.js';
import { hasGroups, groupUsage } from './groups.js';
import { groupColor } from './colors.js';

const fmt = (v, digits) => (v === null || v === undefined || Number.isNaN(v)) ? '–' : Number(v).toFixed(digits);

/** Metric display rules: the catalog's, then any metric it does not know. */
export function metricColumns(catalog, runs) {
  const cols = [...catalog.metrics];
  for (const r of runs) {
    for (const k of Object.keys(r.result.metrics)) {
      if (!cols.some((c) => c.key === k)) cols.push({ key: k, label: k, unit: '', scale: 1, digits: 3, better: 'none', help: '' });
    }
  }
  return cols;
}

/** A metric's column header: label, unit in brackets (one convention: fractions are percentages). */
const header = (c) => `${esc(c.label)}${c.unit ? ` <span class="unit">(${esc(c.unit)})</span>` : ''}`;

/**
 * The results table. `opts.baseline`: the policy every ▲▼ difference is
 * measured against (default the first run); `opts.showAll`: show the columns of
 * metrics that apply to no policy of the run too. Returns the columns it
 * hid ({key, label}) so the page can say so.
 */
export function renderTable(table, catalog, runs, opts = {}) {
  const all = metricColumns(catalog, runs);
  const applies = (c, r) => notApplicable(c.key, r.result) === '';
  const cols = opts.showAll ? all : all.filter((c) => runs.some((r) => applies(c, r)));
  const hidden = all.filter((c) => !cols.includes(c));
  const base = runs.find((r) => r.policy === opts.baseline) || runs[0];
  const head = `<thead><tr><th scope="col" class="pcol">policy</th>${cols.map((c) => `<th scope="col" data-metric="${c.key}" title="${esc(c.help)}">${header(c)}</th>`).join('')}<th scope="col" title="Wall-clock time of the simulation in this browser">wall time <span class="unit">(s)</span></th></tr></thead>`;
  const rows = runs.map((r) => {
    const m = r.result.metrics;
    const cells = cols.map((c) => {
      const why = notApplicable(c.key, r.result);
      if (why) return `<td data-metric="${c.key}" data-policy="${esc(r.policy)}" class="na" title="does not apply: ${esc(why)}"><span class="v">–</span></td>`;
      const v = m[c.key];
      const vals = runs.filter((x) => applies(c, x)).map((x) => x.result.metrics[c.key]).filter((x) => Number.isFinite(x));
      let best = false;
      if (c.better !== 'none' && vals.length > 1 && Number.isFinite(v)) {
        const target = c.better === 'lower' ? Math.min(...vals) : Math.max(...vals);
        best = fmt(v * c.scale, c.digits) === fmt(target * c.scale, c.digits) && new Set(vals.map((x) => fmt(x * c.scale, c.digits))).size > 1;
      }
      const delta = r === base ? '' : deltaHtml(c, v, base, applies(c, base));
      return `<td data-metric="${c.key}" data-policy="${esc(r.policy)}"${best ? ' class="best" title="best"' : ''}><span class="v">${fmt(v * c.scale, c.digits)}</span>${delta}</td>`;
    }).join('');
    const note = r.result.stop_reason !== 'all jobs completed' ? ` <small class="warn" title="${esc(r.result.stop_reason)}">stopped early</small>` : '';
    const tag = r === base && runs.length > 1 ? ' <small class="basetag">baseline</small>' : '';
    return `<tr><th scope="row" class="pcol"><span class="chip" style="background:${r.color}"></span>${esc(r.policy)}${tag}${note}</th>${cells}<td data-metric="wall_s">${fmt(r.result.wall_s, 3)}</td></tr>`;
  }).join('');
  table.innerHTML = `${head}<tbody>${rows}</tbody>`;
  return { shown: cols, hidden };
}

/**
 * The ▲▼ difference of `v` to the baseline's value, relative, in the
 * column's direction (blue better, orange worse); "–" when the baseline
 * shows as zero at the column's precision (a ratio to it means nothing).
 */
function deltaHtml(c, v, base, baseApplies) {
  const b = base.result.metrics[c.key];
  if (c.better === 'none' || !baseApplies || !Number.isFinite(v) || !Number.isFinite(b)) return '';
  if (Math.abs(b * c.scale) < 0.5 * 10 ** -c.digits) {
    return `<span class="d" title="${esc(base.policy)} shows ${fmt(0, c.digits)}: no relative difference">–</span>`;
  }
  const rel = (v - b) / Math.abs(b);
  if (Math.abs(rel) < 0.005) return '';
  const good = c.better === 'lower' ? rel < 0 : rel > 0;
  const pct = `${Math.abs(rel * 100).toFixed(Math.abs(rel) < 0.1 ? 1 : 0)}%`;
  return `<span class="d ${good ? 'good' : 'bad'}" title="${good ? 'better' : 'worse'} than ${esc(base.policy)}">${rel > 0 ? '▲' : '▼'}${pct}<span class="sr"> ${good ? 'better' : 'worse'}</span></span>`;
}


function chartSpec(kind, runs, scale) {
  const H = 1 / 3600;
  const map = (a, k = 1) => Array.from(a, (x) => x * k);
  switch (kind) {
    case 'cdf':
      return { kind: 'cdf', title: 'JCT CDF', x_label: 'job completion time (h, log)', y_label: 'fraction of jobs', scale,
        series: runs.map((r) => ({ name: r.policy, color: r.color, x: map(r.result.cdf.x, H), y: map(r.result.cdf.y) })) };
    case 'bars':
      return { kind: 'bars', title: 'Average and p99 JCT, makespan (hours)', scale,
        groups: ['avg JCT', 'p99 JCT', 'makespan'],
        series: runs.map((r) => ({ name: r.policy, color: r.color, y: [r.result.metrics.avg_jct_s * H, r.result.metrics.p99_jct_s * H, r.result.metrics.makespan_s * H] })) };
    case 'util':
      return { kind: 'lines', title: 'GPU utilisation over time', x_label: 'time (h)', y_label: 'busy GPUs / all', scale, y_max: 1,
        series: runs.map((r) => ({ name: r.policy, color: r.color, x: map(r.result.series.t, H), y: map(r.result.series.util) })) };
    case 'queue':
      return { kind: 'lines', title: 'Queue length (QL) over time', x_label: 'time (h)', y_label: 'waiting jobs', scale,
        series: runs.map((r) => ({ name: r.policy, color: r.color, x: map(r.result.series.t, H), y: map(r.result.series.queue) })) };
    case 'ce':
      return { kind: 'lines', title: 'Cluster efficiency (CE) over time', x_label: 'time (h)', y_label: 'sum of speedups / GPUs', scale, y_max: 1,
        series: runs.map((r) => ({ name: r.policy, color: r.color, x: map(r.result.series.t, H), y: map(r.result.series.ce) })) };
    case 'bi':
      return { kind: 'lines', title: 'Blocking index (BI) over time', x_label: 'time (h)', y_label: 'BI (log)', scale, y_log: true,
        series: runs.map((r) => ({ name: r.policy, color: r.color, x: map(r.result.series.t, H), y: map(r.result.series.bi) })) };
    case 'pred':
      return { kind: 'scatter', title: 'Predicted vs actual JCT (at arrival; diagonal = exact)', x_label: 'predicted JCT (h, log)', y_label: 'actual JCT (h, log)', scale,
        series: predicting(runs).map((r) => ({ name: r.policy, color: r.color, x: map(r.result.jobs.pred_jct, H), y: map(r.result.jobs.jct, H) })) };
    case 'prederr': {
      const cdf = (r) => {
        const e = Array.from(r.result.jobs.pred_err).filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
        return { x: e, y: e.map((_, i) => (i + 1) / e.length) };
      };
      return { kind: 'cdf', title: 'Prediction error CDF, 100 |pred - JCT| / pred', x_label: 'error % (log; exact drawn at 0.01)', y_label: 'fraction of predicted jobs', scale, x_floor: 0.01,
        series: predicting(runs).map((r) => ({ name: r.policy, color: r.color, ...cdf(r) })) };
    }
    case 'cost':
      return { kind: 'stack', title: 'Cost per policy (STS: energy + tardiness, Fig. 4b)', y_label: 'dollars', scale,
        groups: ['GPU (energy) cost', 'tardiness cost'],
        series: costing(runs).map((r) => ({ name: r.policy, color: r.color, y: [r.result.metrics.gpu_cost_usd, r.result.metrics.tardiness_cost_usd] })) };
    case 'costtime': {
      // Cumulative dollars: the GPU (energy) cost light, GPU + tardiness dark
      // (the gap between them is the tardiness cost so far).
      const total = (s) => Array.from(s.gpu_cost, (g, i) => g + s.tardiness_cost[i]);
      return { kind: 'lines', title: 'Cost over time (light: GPU cost; dark: GPU + tardiness)', x_label: 'time (h)', y_label: 'dollars so far', scale,
        series: costing(runs).filter((r) => r.result.series.cost_t.length > 0).flatMap((r) => [
          { name: `${r.policy} GPU`, color: tint(r.color), x: map(r.result.series.cost_t, H), y: map(r.result.series.gpu_cost) },
          { name: r.policy, color: r.color, x: map(r.result.series.cost_t, H), y: total(r.result.series) },
        ]) };
    }
    case 'speedup': {
      const cdf = (r) => {
        const v = Array.from(r.result.jobs.speedup).filter((x) => Number.isFinite(x) && x > 0).sort((a, b) => a - b);
        return { x: v, y: v.map((_, i) => (i + 1) / v.length) };
      };
      return { kind: 'cdf', title: 'Per-job speedup against per-pool FCFS (below 1: slowed)', x_label: 'JCT under per-pool FCFS / JCT (log)', y_label: 'fraction of jobs', scale,
        series: pooled(runs).map((r) => ({ name: r.policy, color: r.color, ...cdf(r) })) };
    }
    case 'lent':
      return { kind: 'lines', title: 'GPUs lent across pools over time (held beyond quota)', x_label: 'time (h)', y_label: 'GPUs', scale,
        series: pooled(runs).map((r) => ({ name: r.policy, color: r.color, x: map(r.result.series.t, H), y: map(r.result.series.borrowed) })) };
    case 'solver':
      return { kind: 'lines', title: 'Solver time per round (wall-clock, this browser; POP: slowest part)', x_label: 'time (h)', y_label: 'seconds (log)', scale, y_log: true,
        series: solving(runs).map((r) => ({ name: r.policy, color: r.color, x: map(r.result.rounds.t, H), y: map(r.result.rounds.solver_s) })) };
    case 'vars':
      return { kind: 'lines', title: 'Problem variables per round (light: moved by a warm start)', x_label: 'time (h)', y_label: 'variables (log)', scale, y_log: true,
        series: solving(runs).flatMap((r) => [
          { name: r.policy, color: r.color, x: map(r.result.rounds.t, H), y: map(r.result.rounds.vars) },
          { name: `${r.policy} moved`, color: tint(r.color), x: map(r.result.rounds.t, H), y: map(r.result.rounds.changed_vars) },
        ].filter((s) => s.y.some((v) => Number.isFinite(v)))) };
    case 'classes': {
      // The first run whose policy groups its jobs (PCS: size classes).
      const r = runs.find((x) => hasGroups(x.result));
      const u = groupUsage(r.result.timeline);
      return { kind: 'lines', title: `GPUs held per class over time (${r.policy}; class 1 = the smallest jobs)`, x_label: 'time (h)', y_label: 'GPUs', scale,
        series: u.groups.map((g, i) => ({ name: `class ${g.group + 1}`, color: groupColor(i, u.groups.length), x: map(u.t, H), y: Array.from(g.gpus) })) };
    }
    default:
      throw new Error(kind);
  }
}

/** Runs with a cost: priced GPU types or jobs with due dates (STS). */
const costing = (runs) => runs.filter((r) => r.result.metrics.total_cost_usd > 0);

/** Runs with pools (compared with per-pool FCFS: a speedup per job). */
const pooled = (runs) => runs.filter((r) => r.result.metrics.speedup_geo > 0);

/** Runs whose policy solves an optimisation problem each round (Sia). */
const solving = (runs) => runs.filter((r) => Array.from(r.result.rounds.vars).some((v) => Number.isFinite(v)));

/** A lighter shade of a `#rrggbb` colour (halfway to white). */
const tint = (hex) => `#${[1, 3, 5].map((i) => Math.round((parseInt(hex.slice(i, i + 2), 16) + 255) / 2).toString(16).padStart(2, '0')).join('')}`;

/** Runs that made completion-time predictions (`engine.predict`). */
const predicting = (runs) => runs.filter((r) => r.result.metrics.predicted_frac > 0);

/** Draws every chart canvas (`data-chart` = cdf|bars|util|queue|ce|bi|pred|prederr|cost|costtime|
 * speedup|lent|solver|vars|classes) at its CSS size; the prediction charts show only when
 * a run predicted completions, the cost charts only when a run has a cost, the pool charts
 * only when a run has pools, the solver charts only when a run's policy solves a problem per
 * round, the class chart only when a run's policy groups its jobs (PCS). */
export function drawCharts(root, runs) {
  const dpr = window.devicePixelRatio || 1;
  const anyPredictions = predicting(runs).length > 0;
  for (const fig of root.querySelectorAll('figure[data-needs="predictions"]')) fig.hidden = !anyPredictions;
  const anyCost = costing(runs).length > 0;
  for (const fig of root.querySelectorAll('figure[data-needs="costs"]')) fig.hidden = !anyCost;
  const anySolver = solving(runs).length > 0;
  for (const fig of root.querySelectorAll('figure[data-needs="solver"]')) fig.hidden = !anySolver;
  const anyPools = pooled(runs).length > 0;
  for (const fig of root.querySelectorAll('figure[data-needs="pools"]')) fig.hidden = !anyPools;
  const anyGroups = runs.some((r) => hasGroups(r.result));
  for (const fig of root.querySelectorAll('figure[data-needs="groups"]')) fig.hidden = !anyGroups;
  for (const canvas of root.querySelectorAll('canvas[data-chart]')) {
    const w = canvas.clientWidth, h = canvas.clientHeight;
    if (!w || !h) continue;
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    canvas.plot = null;
    if (!runs.length) {
      canvas.getContext('2d').clearRect(0, 0, canvas.width, canvas.height);
      continue;
    }
    const spec = chartSpec(canvas.dataset.chart, runs, dpr);
    const located = draw_chart(canvas, spec);
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', chartSummary(spec));
    // Charts over time: where the plot area is, for the clock's cursor and click-to-seek.
    if (TIME_CHARTS.has(canvas.dataset.chart) && located.length === 1 && located[0].length === 2) {
      const [[x0, , l, t], [x1, , r, b]] = located[0];
      canvas.plot = { t0: x0 * 3600, t1: x1 * 3600, left: l / dpr, right: r / dpr, top: t / dpr, bottom: b / dpr };
    }
  }
}

/** Charts whose x axis is simulated time in hours (they get the clock's cursor). */
export const TIME_CHARTS = new Set(['util', 'queue', 'ce', 'bi', 'costtime', 'lent', 'solver', 'vars', 'classes']);

/** Places each time chart's cursor at simulated time `t` (s); hidden outside its x range. */
export function placeCursors(root, t) {
  for (const canvas of root.querySelectorAll('canvas[data-chart]')) {
    const fig = canvas.closest('figure');
    let cur = fig.querySelector('.cursor');
    const p = canvas.plot;
    if (!p || fig.hidden) { if (cur) cur.hidden = true; continue; }
    if (!cur) {
      cur = document.createElement('div');
      cur.className = 'cursor';
      cur.setAttribute('aria-hidden', 'true');
      fig.append(cur);
    }
    const x = p.left + (t - p.t0) / (p.t1 - p.t0) * (p.right - p.left);
    cur.hidden = !(x >= p.left - 0.5 && x <= p.right + 0.5);
    cur.style.left = `${canvas.offsetLeft + x}px`;
    cur.style.top = `${canvas.offsetTop + p.top}px`;
    cur.style.height = `${p.bottom - p.top}px`;
  }
}

/** The simulated time (s) at CSS x of a time chart's canvas, or NaN outside its plot. */
export function timeAtChart(canvas, x) {
  const p = canvas.plot;
  if (!p || x < p.left - 2 || x > p.right + 2) return NaN;
  return p.t0 + Math.min(1, Math.max(0, (x - p.left) / (p.right - p.left))) * (p.t1 - p.t0);
}

/** A short text saying what a chart shows, for screen readers (its alternative to the picture). */
export function chartSummary(spec) {
  const num = (v) => (Number.isFinite(v) ? Number(v.toPrecision(3)).toLocaleString('en') : '–');
  const finite = (a) => Array.from(a || []).filter((v) => Number.isFinite(v));
  const parts = spec.series.map((sr) => {
    const y = finite(sr.y);
    if (!y.length) return `${sr.name}: no data`;
    if (spec.kind === 'bars' || spec.kind === 'stack') {
      return `${sr.name}: ${spec.groups.map((g, i) => `${g} ${num(sr.y[i])}`).join(', ')}`;
    }
    if (spec.kind === 'cdf') {
      const x = Array.from(sr.x);
      const mid = x[y.findIndex((v) => v >= 0.5)];
      return `${sr.name}: median ${num(mid)}`;
    }
    if (spec.kind === 'scatter' || spec.kind === 'front') return `${sr.name}: ${y.length} points`;
    const mean = y.reduce((a, b) => a + b, 0) / y.length;
    return `${sr.name}: mean ${num(mean)}, peak ${num(Math.max(...y))}`;
  });
  const axes = [spec.x_label, spec.y_label].filter(Boolean).join(' against ');
  return `${spec.title}${axes ? ` (${spec.y_label || ''}${spec.x_label ? ` over ${spec.x_label}` : ''})` : ''}. ${parts.join('; ')}.`;
}

export function download(name, data, type) {
  const blob = data instanceof Blob ? data : new Blob([data], { type });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 5000);
}

const csvCell = (v) => {
  const s = v === null || v === undefined || Number.isNaN(v) ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** One row per policy with every summary metric (the CLI's --format csv). */
export function summaryCsv(runs) {
  if (!runs.length) return '';
  const keys = Object.keys(runs[0].result.metrics);
  const lines = [['policy', ...keys, 'wall_s'].join(',')];
  for (const r of runs) lines.push([r.policy, ...keys.map((k) => r.result.metrics[k]), r.result.wall_s].map(csvCell).join(','));
  return `${lines.join('\n')}\n`;
}

/** One row per (policy, job). */
export function jobsCsv(runs) {
  const cols = ['policy', 'id', 'name', 'model', 'arrival', 'start', 'finish', 'jct_s', 'queue_s', 'gpu_s', 'restarts', 'preemptions', 'ftf_rho', 'predicted_jct_s', 'pred_error_pct', 'due', 'tardiness_cost_usd'];
  const lines = [cols.join(',')];
  for (const r of runs) {
    const j = r.result.jobs;
    for (let i = 0; i < j.arrival.length; i++) {
      lines.push([r.policy, i, j.names[i], j.models[j.model[i]], j.arrival[i], j.start[i], j.finish[i], j.jct[i], j.queue[i], j.gpu_s[i], j.restarts[i], j.preemptions[i], j.ftf[i], j.pred_jct[i], j.pred_err[i], j.due[i], j.tardiness_cost[i]].map(csvCell).join(','));
    }
  }
  return `${lines.join('\n')}\n`;
}

/** All chart canvases side by side in one PNG blob. */
export function chartsPng(root) {
  const cs = [...root.querySelectorAll('canvas[data-chart]')].filter((c) => c.width && c.height && !c.closest('[hidden]'));
  const cols = 2;
  const w = Math.max(...cs.map((c) => c.width));
  const h = Math.max(...cs.map((c) => c.height));
  const out = document.createElement('canvas');
  out.width = w * cols;
  out.height = h * Math.ceil(cs.length / cols);
  const g = out.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, out.width, out.height);
  cs.forEach((c, i) => g.drawImage(c, (i % cols) * w, Math.floor(i / cols) * h));
  return new Promise((resolve) => out.toBlob(resolve, 'image/png'));
}
