// "Why not started?" (issue 49): for a job waiting at the clock, what holds
// it back, from the explainer's `at` call (its own reason and the jobs
// ranked ahead) and the run's state at the clock: idle GPUs against what it
// asks, the jobs ahead and their keys, its pool's quota and the GPUs
// reserved for predicted load, and the next events that could start it.
import { esc, fmtT, fmtValue } from './whycard.js';

/** Idle GPUs at t (a GPU no segment holds). */
export function idleGpus(run, total, t, segmentOnGpu) {
  let busy = 0;
  for (let g = 0; g < total; g++) if (segmentOnGpu(run.timeline, g, t) >= 0) busy++;
  return total - busy;
}

/** The first finish and the first arrival after t (time and job, or null). */
export function nextEvents(run, t) {
  const j = run.jobs;
  let finish = null;
  for (let i = 0; i < j.finish.length; i++) {
    const f = j.finish[i];
    if (f === f && f > t && (!finish || f < finish.t)) finish = { t: f, job: i };
  }
  let arrival = null;
  for (let i = 0; i < j.arrival.length; i++) if (j.arrival[i] > t) { arrival = { t: j.arrival[i], job: i }; break; }
  return { finish, arrival };
}

/** The first segment of job `job` that starts after t (when it did start), or null. */
export function startAfter(run, job, t) {
  const tl = run.timeline;
  for (let k = tl.job_offsets[job]; k < tl.job_offsets[job + 1]; k++) {
    const s = tl.job_segs[k];
    if (tl.seg_start[s] > t) return tl.seg_start[s];
  }
  return null;
}

/**
 * What blocks the job: a list of {cause, text}, causes among capacity,
 * ahead, placement, quota, reservation, policy (its own rule says it waits).
 */
export function blockers(e, run, idle, asked) {
  const out = [];
  const a = e.at;
  const r = a && a.reason;
  if (idle < asked) out.push({ cause: 'capacity', text: `capacity: ${idle} GPU${idle === 1 ? '' : 's'} idle, it asks for ${asked}` });
  if (a && a.ahead.length) {
    const keys = a.ahead.slice(0, 6).map((x) => `${esc(run.jobs.names[x.job])}${x.key ? ` (${esc(x.key)} ${esc(fmtValue(x.values[x.key]))})` : ''}`);
    out.push({ cause: 'ahead', text: `jobs ahead: ${a.ahead.length} ranked ahead of it: ${keys.join(', ')}${a.ahead.length > 6 ? ', …' : ''}` });
  }
  const v = r ? r.values : {};
  // Enough GPUs idle in number, yet the rule found no place for them (FIFO's
  // fit check: a job's GPUs must be placeable, e.g. not spread over nodes).
  if (r && r.gpus === 0 && typeof v.need === 'number' && typeof v.free === 'number' && v.free >= v.need) {
    out.push({ cause: 'placement', text: `placement: ${fmtValue(v.free)} GPUs were idle at the call, as many as its ${fmtValue(v.need)}, but the placer found no place for all of them (e.g. the idle GPUs are spread over nodes)` });
  }
  if (typeof v.quota === 'number' && typeof v.used === 'number') {
    const need = typeof v.need === 'number' ? v.need : asked;
    if (v.used + need > v.quota) out.push({ cause: 'quota', text: `quota: pool ${esc(v.pool || '')} uses ${fmtValue(v.used)} of its quota of ${fmtValue(v.quota)} GPUs and it needs ${fmtValue(need)} more` });
  }
  if (typeof v.reserved === 'number' && v.reserved > 0) {
    out.push({ cause: 'reservation', text: `reservation: ${fmtValue(v.reserved)} GPUs are kept for predicted load${typeof v.usable === 'number' ? `, ${fmtValue(v.usable)} usable for lending` : ''}` });
  }
  if (r) out.push({ cause: 'policy', text: `the policy's rule (${esc(r.rule)}): ${esc(r.words)}` });
  return out;
}

/** The inspector's HTML for a waiting job (empty for a job that is not waiting). */
export function inspectorHtml(e, run, state, t, total, segmentOnGpu) {
  if (state.kind !== 'waiting') return '';
  const j = e.job;
  const idle = idleGpus(run, total, t, segmentOnGpu);
  const bl = blockers(e, run, idle, j.gpus_requested);
  const nx = nextEvents(run, t);
  const started = startAfter(run, j.id, t);
  const events = [];
  if (nx.finish) events.push(`the next finish: <b>${esc(run.jobs.names[nx.finish.job])}</b> at t = ${fmtT(nx.finish.t)} (in ${fmtT(nx.finish.t - t)})`);
  if (nx.arrival) events.push(`the next arrival: <b>${esc(run.jobs.names[nx.arrival.job])}</b> at t = ${fmtT(nx.arrival.t)} (in ${fmtT(nx.arrival.t - t)})`);
  const later = e.reasons.find((x) => x.t > t);
  if (later) events.push(`the policy's next call about it: t = ${fmtT(later.t)} (${esc(later.rule)})`);
  const outcome = started !== null ? `In this run it started at t = <b>${fmtT(started)}</b>, ${fmtT(started - t)} after the clock.` : 'In this run it never started.';
  return `<h4>Why not started?</h4>
    <ul class="why-blockers">${bl.map((b) => `<li data-cause="${b.cause}">${b.text}</li>`).join('') || '<li>nothing recorded holds it back at this call</li>'}</ul>
    <p>What could start it: ${events.join('; ') || 'no later event'}. ${outcome}</p>`;
}
