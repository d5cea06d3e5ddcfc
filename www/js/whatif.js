// The what-if editor (issue 49): edit one or more jobs of the trace (arrival,
// GPUs, duration or work) or a policy setting, re-run that policy, and show
// the difference against the original run: which jobs finished earlier or
// later and by how much, and each metric's change. The edits live in the URL
// (`&whatif=POLICY&edit=JOB.FIELD=VALUE;OWNER.KEY=VALUE`), so a link
// reproduces the edited run. A bad edit is refused with its name and why.
import { esc, fmtT, fmtValue } from './whycard.js';

/** The job fields an edit can set, with what each takes. */
export const JOB_FIELDS = {
  arrival: { column: 'arrival', what: 'a time in seconds ≥ 0', ok: (v) => v >= 0 },
  gpus: { column: 'gpus', what: 'a whole number of GPUs ≥ 1', ok: (v) => Number.isInteger(v) && v >= 1 },
  duration: { column: 'duration', what: 'a duration in seconds > 0', ok: (v) => v > 0 },
  work: { column: 'work', what: 'an amount of work > 0', ok: (v) => v > 0 },
};

/**
 * Parses `edit=` text into {jobs: [{entry, job, field, value}], sets:
 * [{entry, key, value}], errors: [{entry, why}]}. `isOwner(name)`: whether
 * a name is `engine` or a policy (a setting) rather than a job.
 */
export function parseEdits(text, isOwner) {
  const out = { jobs: [], sets: [], errors: [] };
  for (const raw of String(text || '').split(';')) {
    const entry = raw.trim();
    if (!entry) continue;
    const eq = entry.indexOf('=');
    const dot = eq > 0 ? entry.lastIndexOf('.', eq) : -1;
    if (eq < 0 || dot <= 0) { out.errors.push({ entry, why: 'expected JOB.FIELD=VALUE or POLICY.KEY=VALUE' }); continue; }
    const owner = entry.slice(0, dot), field = entry.slice(dot + 1, eq), value = entry.slice(eq + 1).trim();
    if (isOwner(owner)) { out.sets.push({ entry, key: `${owner}.${field}`, value }); continue; }
    const f = JOB_FIELDS[field];
    if (!f) { out.errors.push({ entry, why: `a job has no field '${field}' to edit (arrival, gpus, duration, work)` }); continue; }
    const v = Number(value);
    if (value === '' || !Number.isFinite(v) || !f.ok(v)) { out.errors.push({ entry, why: `${field} takes ${f.what}` }); continue; }
    out.jobs.push({ entry, job: owner, field, value: v });
  }
  return out;
}

/** Splits a CSV line on commas (quoted fields are refused by the caller). */
const cells = (line) => line.split(',');

/**
 * Applies job edits to schedlab CSV trace text. `nameOf(job)` maps an edit's
 * job (a name or an id of the original run) to the job's name. Returns
 * {text, errors}.
 */
export function applyJobEdits(text, edits, nameOf) {
  const errors = [];
  if (!edits.length) return { text, errors };
  const lines = text.split('\n');
  const hi = lines.findIndex((l) => l.trim() && !l.trimStart().startsWith('#'));
  const header = hi >= 0 ? cells(lines[hi].trim()) : [];
  const col = (c) => header.indexOf(c);
  if (col('name') < 0 || col('arrival') < 0) {
    for (const e of edits) errors.push({ entry: e.entry, why: 'the what-if editor edits traces in schedlab\'s CSV format (a name and an arrival column); this trace is in another format' });
    return { text, errors };
  }
  const rowOf = new Map();
  for (let i = hi + 1; i < lines.length; i++) {
    const l = lines[i];
    if (!l.trim() || l.trimStart().startsWith('#')) continue;
    const name = l.slice(0, l.indexOf(','));
    if (!rowOf.has(name)) rowOf.set(name, i);
  }
  for (const e of edits) {
    const name = nameOf(e.job);
    const i = name === null ? undefined : rowOf.get(name);
    if (i === undefined) { errors.push({ entry: e.entry, why: `no job named or numbered '${e.job}' in the trace` }); continue; }
    const c = col(JOB_FIELDS[e.field].column);
    if (c < 0) { errors.push({ entry: e.entry, why: `the trace has no '${e.field}' column` }); continue; }
    if (lines[i].includes('"')) { errors.push({ entry: e.entry, why: `job '${name}' has a quoted field, which the editor does not rewrite` }); continue; }
    const row = cells(lines[i].replace(/\r$/, ''));
    if (e.field === 'duration' && row[c] === '' && col('work') >= 0 && row[col('work')] !== '') {
      errors.push({ entry: e.entry, why: `job '${name}' is given by its work, not a duration: edit ${e.job}.work` }); continue;
    }
    row[c] = String(e.value);
    lines[i] = row.join(',');
  }
  return { text: lines.join('\n'), errors };
}

/** The finish-time difference per job (matched by name) and the metrics' changes. */
export function diffRuns(orig, edited) {
  const en = new Map();
  edited.jobs.names.forEach((n, i) => en.set(n, i));
  const jobs = [];
  orig.jobs.names.forEach((n, i) => {
    const k = en.get(n);
    if (k === undefined) return;
    const a = orig.jobs.finish[i], b = edited.jobs.finish[k];
    const d = (a === a && b === b) ? b - a : NaN;
    jobs.push({ name: n, before: a, after: b, delta: d });
  });
  const moved = jobs.filter((j) => !(j.delta === j.delta) || Math.abs(j.delta) > 1e-6);
  moved.sort((x, y) => (Math.abs(y.delta) || Infinity) - (Math.abs(x.delta) || Infinity) || (x.name < y.name ? -1 : 1));
  const metrics = Object.keys(orig.metrics).map((k) => ({ name: k, before: orig.metrics[k], after: edited.metrics[k], delta: edited.metrics[k] - orig.metrics[k] }));
  return {
    jobs: moved,
    earlier: jobs.filter((j) => j.delta < -1e-6).length,
    later: jobs.filter((j) => j.delta > 1e-6).length,
    same: jobs.filter((j) => Math.abs(j.delta) <= 1e-6).length,
    metrics,
  };
}

const LIMIT = 50;

/** The diff's HTML; `metricRules`: the catalog's display rules ({key, label, unit, scale, digits}). */
export function diffHtml(d, policy, entries, metricRules = []) {
  const rule = (k) => metricRules.find((m) => m.key === k) || { label: k, unit: '', scale: 1, digits: 3 };
  const shown = (m, v) => (v === v ? (v * m.scale).toFixed(m.digits) : '–');
  const sign = (v) => (v > 0 ? '+' : v < 0 ? '−' : '±');
  const rows = d.jobs.slice(0, LIMIT).map((j) => {
    const dir = !(j.delta === j.delta) ? (j.after === j.after ? 'finished now' : 'did not finish') : j.delta < 0 ? 'earlier' : 'later';
    const mark = j.delta < 0 ? '▼' : j.delta > 0 ? '▲' : '';
    return `<tr data-job="${esc(j.name)}" data-dir="${dir}"><th scope="row">${esc(j.name)}</th><td>${fmtT(j.before)}</td><td>${fmtT(j.after)}</td><td class="${j.delta < 0 ? 'better' : j.delta > 0 ? 'worse' : ''}">${mark} ${j.delta === j.delta ? `${sign(j.delta)}${fmtT(Math.abs(j.delta))} <span class="dir">${dir}</span>` : dir}</td></tr>`;
  }).join('');
  const mrows = d.metrics.filter((m) => m.before === m.before || m.after === m.after).map((m) => {
    const r = rule(m.name);
    const change = m.delta === m.delta
      ? (m.delta === 0 ? 'same' : `${sign(m.delta)}${shown(r, Math.abs(m.delta))}${m.before ? ` (${sign(m.delta)}${Math.abs(100 * m.delta / m.before).toFixed(1)}%)` : ''}`)
      : '–';
    return `<tr data-metric="${esc(m.name)}"><th scope="row">${esc(r.label)}${r.unit ? ` (${esc(r.unit)})` : ''}</th><td>${shown(r, m.before)}</td><td>${shown(r, m.after)}</td><td>${change}</td></tr>`;
  }).join('');
  return `<p class="whatif-summary">${esc(policy)} with ${entries.map((e) => `<code>${esc(e)}</code>`).join(', ')}: <b>${d.earlier}</b> job${d.earlier === 1 ? '' : 's'} finished earlier, <b>${d.later}</b> later, ${d.same} the same.</p>
    <div class="whatif-tables">
    <div class="table-wrap" tabindex="0" role="region" aria-label="Jobs that finished earlier or later"><table class="whatif-jobs"><caption>Jobs whose finish moved (largest first${d.jobs.length > LIMIT ? `; first ${LIMIT} of ${d.jobs.length}` : ''})</caption><thead><tr><th>job</th><th>finish before</th><th>after the edit</th><th>change</th></tr></thead><tbody>${rows || '<tr><td colspan="4">no job finished at another time</td></tr>'}</tbody></table></div>
    <div class="table-wrap" tabindex="0" role="region" aria-label="Metrics before and after the edit"><table class="whatif-metrics"><caption>Metrics</caption><thead><tr><th>metric</th><th>before</th><th>after</th><th>change</th></tr></thead><tbody>${mrows}</tbody></table></div>
    </div>`;
}

/**
 * The editor's DOM. `ctx`: {client, runs(), catalog, trace(), spec(label,
 * sets, trace), isOwner(name), setProblem(entry), onEdits(policy, text)}.
 */
export class WhatIfEditor {
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.q = (s) => root.querySelector(s);
    this.q('#whatif-add').addEventListener('click', () => this.addEntry(`${this.q('#whatif-job').value.trim()}.${this.q('#whatif-field').value}=${this.q('#whatif-value').value.trim()}`));
    this.q('#whatif-add-set').addEventListener('click', () => this.addEntry(this.q('#whatif-set').value.trim()));
    this.q('#whatif-run').addEventListener('click', () => this.run());
    this.q('#whatif-edits').addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); this.run(); } });
  }

  addEntry(entry) {
    const box = this.q('#whatif-edits');
    box.value = box.value.trim() ? `${box.value.trim().replace(/;$/, '')};${entry}` : entry;
  }

  /** A new comparison: its policies; `policy` and `edits` from the link. */
  reset(labels, policy, edits) {
    const sel = this.q('#whatif-policy');
    sel.innerHTML = labels.map((p) => `<option value="${esc(p)}">${esc(p)}</option>`).join('');
    sel.value = labels.includes(policy) ? policy : labels[0];
    this.q('#whatif-edits').value = edits || '';
    this.q('#whatif-out').innerHTML = '';
    this.error('');
    this.root.hidden = false;
  }

  error(html) {
    const e = this.q('#whatif-error');
    e.innerHTML = html;
    e.hidden = !html;
  }

  /** Validates the edits, builds the edited trace and settings, runs, shows the diff. */
  async run() {
    const label = this.q('#whatif-policy').value;
    const orig = this.ctx.runs().get(label);
    const text = this.q('#whatif-edits').value.trim();
    this.error('');
    if (!orig) { this.error(`${esc(label)} has no finished run to compare with yet.`); return; }
    if (!text) { this.error('No edit: add one, e.g. <code>j3.gpus=8</code>.'); return; }
    const base = label.split('@')[0];
    const ed = parseEdits(text, this.ctx.isOwner);
    const errors = [...ed.errors];
    for (const s of ed.sets) {
      const owner = s.key.slice(0, s.key.indexOf('.'));
      if (owner !== 'engine' && owner !== base) { errors.push({ entry: s.entry, why: `the what-if re-runs ${base}; a setting of ${owner} does not apply to it` }); continue; }
      const why = this.ctx.setProblem(`${s.key}=${s.value}`);
      if (why) errors.push({ entry: s.entry, why });
    }
    const names = orig.result.jobs.names;
    const nameOf = (job) => (names.includes(job) ? job : /^\d+$/.test(job) && Number(job) < names.length ? names[Number(job)] : null);
    const tr = this.ctx.trace();
    let traceText = tr.text;
    if (ed.jobs.length && !errors.length) {
      const applied = applyJobEdits(tr.text, ed.jobs, nameOf);
      errors.push(...applied.errors);
      traceText = applied.text;
    }
    if (errors.length) {
      this.error(`Edits not run: ${errors.map((e) => `<code>${esc(e.entry)}</code>: ${esc(e.why)}`).join('; ')}.`);
      return;
    }
    this.ctx.onEdits(label, text);
    const sets = Object.fromEntries(ed.sets.map((s) => [s.key, s.value]));
    const trace = ed.jobs.length ? { name: tr.name.includes('.') ? tr.name : `${tr.name}.csv`, text: traceText } : null;
    const out = this.q('#whatif-out');
    out.innerHTML = `<p class="hint">running ${esc(label)} with the edits…</p>`;
    this.root.dataset.state = 'running';
    try {
      const res = await this.ctx.client.run(this.ctx.spec(label, sets, trace));
      const d = diffRuns(orig.result, res);
      out.innerHTML = diffHtml(d, label, text.split(';').map((s) => s.trim()).filter(Boolean), this.ctx.metricRules || []);
      this.root.dataset.state = 'done';
    } catch (err) {
      out.innerHTML = '';
      this.error(`The edited run failed: ${esc(err.text || err.message || err)}`);
      this.root.dataset.state = 'failed';
    }
  }
}
