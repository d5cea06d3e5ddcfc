// The "why this, now" card (issue 49): for a pinned job, the rule that
// decided about it at the policy's call at or before the animation clock and
// the numbers that rule compared, from the explainer's JSON (the same as
// `schedlab explain --format json --at T`). Pure: JSON and run in, HTML out.

import { esc } from './html.js';
export { esc };

/** A time of the run as the page writes it elsewhere (hours, minutes or seconds). */
export function fmtT(s) {
  if (!(s === s)) return '–';
  const a = Math.abs(s);
  if (a >= 3600) return `${(s / 3600).toFixed(2)} h`;
  if (a >= 60) return `${(s / 60).toFixed(1)} min`;
  return `${s.toFixed(1)} s`;
}

/** A reason's number: 4 significant digits, "–" for null (a value that does not apply). */
export function fmtValue(v) {
  if (v === null || v === undefined) return '–';
  if (typeof v === 'string') return v;
  if (Number.isInteger(v)) return v.toLocaleString('en');
  return Number(v.toPrecision(4)).toLocaleString('en', { maximumFractionDigits: 6 });
}

/** The job's state at t from the run's columns: arrives / waits / runs / finished. */
export function jobState(run, j, t, segmentOfJob) {
  const jobs = run.jobs;
  if (jobs.arrival[j] > t) return { kind: 'future', text: `arrives at t = ${fmtT(jobs.arrival[j])}` };
  const f = jobs.finish[j];
  if (f === f && f <= t) return { kind: 'done', text: `finished at t = ${fmtT(f)}` };
  const s = segmentOfJob(run.timeline, j, t);
  if (s >= 0) return { kind: 'running', text: `running on ${run.timeline.seg_gpu_count[s]} GPU${run.timeline.seg_gpu_count[s] === 1 ? '' : 's'}`, seg: s };
  return { kind: 'waiting', text: `waiting for ${fmtT(t - jobs.arrival[j])}` };
}

/** The reason's numbers as a table; the field the policy orders by is marked. */
export function valuesTable(r) {
  const rows = Object.entries(r.values).map(([k, v]) => {
    const isKey = r.key === k;
    return `<tr${isKey ? ' class="why-key"' : ''}><th scope="row">${esc(k)}${isKey ? ' <small>(the order key)</small>' : ''}</th><td>${esc(fmtValue(v))}</td></tr>`;
  });
  if (r.rank !== null && r.rank !== undefined) rows.unshift(`<tr><th scope="row">place in the policy's order</th><td>${r.rank + 1}</td></tr>`);
  rows.push(`<tr><th scope="row">GPUs given</th><td>${esc(fmtValue(r.gpus))}</td></tr>`);
  return `<table class="why-values">${rows.join('')}</table>`;
}

/** What to say when the call has no reason for the job (as the CLI says it). */
function noReason(e, call) {
  const j = e.job;
  if (call < j.arrival) return `not arrived yet (it arrives at t = ${fmtT(j.arrival)})`;
  if (j.finish !== null && call >= j.finish) return 'already finished';
  return 'not looked at in that call (the policy explains only the jobs it looks at; FIFO, for one, stops at the first job that does not fit)';
}

/**
 * The card's HTML. `e`: explain JSON with `at`; `state`: jobState at the clock.
 */
export function whyCardHtml(e, state, policy, t) {
  const j = e.job;
  const head = `<h3>Why <b>${esc(j.name)}</b> <small>job ${j.id} · ${esc(j.model)} · asks ${j.gpus_requested} GPU${j.gpus_requested === 1 ? '' : 's'}</small> is ${state.kind === 'running' ? 'running' : state.kind === 'waiting' ? 'waiting' : state.kind === 'done' ? 'done' : 'not here yet'} under ${esc(policy)} at t = ${fmtT(t)}</h3>
    <p class="why-state">${esc(state.text)}.</p>`;
  if (!e.at) {
    return `${head}<p class="why-none">No policy call before t = ${fmtT(t)}: the policy has not decided anything yet.</p>`;
  }
  const a = e.at;
  const callLine = `<p>The policy's call at t = <b class="why-call">${fmtT(a.call_t)}</b>${a.call_t < a.at ? ` (the last one at or before the clock)` : ''} said about it:</p>`;
  const capped = e.capped_at !== null && e.capped_at !== undefined && a.call_t >= e.capped_at
    ? `<p class="why-none">Reasons were recorded until t = ${fmtT(e.capped_at)} (the run reached the bound of the reason log).</p>` : '';
  if (!a.reason) return `${head}${callLine}<p class="why-words why-none">${esc(noReason(e, a.call_t))}</p>${capped}`;
  const r = a.reason;
  return `${head}${callLine}
    <p class="why-rule"><code>${esc(r.rule)}</code></p>
    <p class="why-words">${esc(r.words)}</p>
    ${valuesTable(r)}${capped}`;
}
