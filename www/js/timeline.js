// Queries on a finished run's typed arrays (see docs/PAGE.md): which
// segment holds a GPU at time t, a job's state at t, the queue at t, and
// the next or previous event. Binary searches over the CSR indexes the
// worker sends, so a frame costs O(GPUs x log segments).

/** Index of the last element of sorted `list[lo..hi)` (by key) that is <= t, or lo-1. */
function lastAtOrBefore(key, list, lo, hi, t) {
  let a = lo, b = hi; // answer in [lo-1, hi-1]
  while (a < b) {
    const m = (a + b) >>> 1;
    if (key[list[m]] <= t) a = m + 1; else b = m;
  }
  return a - 1;
}

/** Segment holding GPU `g` at time t, or -1 (on a shared GPU: the latest slice). */
export function segmentOnGpu(tl, g, t) {
  const segs = segmentsOnGpu(tl, g, t);
  return segs.length ? segs[0] : -1;
}

/**
 * Segments holding GPU `g` at time t, latest first: one for a whole GPU,
 * several for slices of a shared GPU (`seg_share` < 1). Slices on one GPU
 * overlap in time, so the search walks back over earlier slices; a
 * whole-GPU segment ends the walk (nothing before it can still run).
 */
export function segmentsOnGpu(tl, g, t) {
  const lo = tl.gpu_offsets[g], hi = tl.gpu_offsets[g + 1];
  const out = [];
  if (hi <= lo) return out;
  let i = lastAtOrBefore(tl.seg_start, tl.gpu_segs, lo, hi, t);
  for (let k = 0; i >= lo && k < 64; i--, k++) {
    const s = tl.gpu_segs[i];
    if (t < tl.seg_end[s]) out.push(s);
    if (!(tl.seg_share && tl.seg_share[s] < 1)) break;
  }
  return out;
}

/** Segment of job `j` covering t, or -1. */
export function segmentOfJob(tl, j, t) {
  const lo = tl.job_offsets[j], hi = tl.job_offsets[j + 1];
  if (hi <= lo) return -1;
  const i = lastAtOrBefore(tl.seg_start, tl.job_segs, lo, hi, t);
  if (i < lo) return -1;
  const s = tl.job_segs[i];
  return t < tl.seg_end[s] ? s : -1;
}

/** Fraction of job j's work done at t (interpolated within its segment). */
export function progressAt(run, j, t) {
  const tl = run.timeline;
  const lo = tl.job_offsets[j], hi = tl.job_offsets[j + 1];
  if (hi <= lo) return 0;
  const i = lastAtOrBefore(tl.seg_start, tl.job_segs, lo, hi, t);
  if (i < lo) return 0;
  const s = tl.job_segs[i];
  const p0 = tl.seg_progress_start[s], p1 = tl.seg_progress_end[s];
  if (t >= tl.seg_end[s]) return p1;
  const from = tl.seg_busy_until[s], to = tl.seg_end[s];
  if (t <= from || to <= from) return p0;
  return p0 + (p1 - p0) * (t - from) / (to - from);
}

/** Restarts job j had made by time t. */
export function restartsAt(run, j, t) {
  const tl = run.timeline;
  const lo = tl.job_offsets[j], hi = tl.job_offsets[j + 1];
  const i = lastAtOrBefore(tl.seg_start, tl.job_segs, lo, hi, t);
  return i < lo ? 0 : tl.seg_restarts[tl.job_segs[i]];
}

/** First index of sorted Float64Array `a` with a[i] > t. */
function upperBound(a, t) {
  let lo = 0, hi = a.length;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (a[m] <= t) lo = m + 1; else hi = m;
  }
  return lo;
}

/** The next event after t over several runs (Infinity if none). */
export function nextEvent(runs, t) {
  let best = Infinity;
  for (const r of runs) {
    const ev = r.timeline.events;
    const i = upperBound(ev, t + 1e-9);
    if (i < ev.length && ev[i] < best) best = ev[i];
  }
  return best;
}

/** The last event before t over several runs (-Infinity if none). */
export function prevEvent(runs, t) {
  let best = -Infinity;
  for (const r of runs) {
    const ev = r.timeline.events;
    let i = upperBound(ev, t - 1e-9) - 1;
    while (i >= 0 && ev[i] >= t - 1e-9) i--;
    if (i >= 0 && ev[i] > best) best = ev[i];
  }
  return best;
}

/**
 * Jobs waiting at t (arrived, unfinished, holding no GPUs), oldest first,
 * at most `limit` listed, plus counts. Job ids are in arrival order, so the
 * scan stops at the first job that has not arrived.
 */
export function queueAt(run, t, limit) {
  const j = run.jobs, tl = run.timeline;
  const n = j.arrival.length;
  const list = [];
  let waiting = 0, running = 0, done = 0;
  for (let i = 0; i < n; i++) {
    if (j.arrival[i] > t) break;
    const f = j.finish[i];
    if (f === f && f <= t) { done++; continue; }
    if (segmentOfJob(tl, i, t) >= 0) { running++; continue; }
    waiting++;
    if (list.length < limit) list.push(i);
  }
  return { list, waiting, running, done };
}

/** The time span of a set of runs: [first arrival, last end]. */
export function span(runs) {
  let lo = Infinity, hi = -Infinity;
  for (const r of runs) {
    if (r.jobs.arrival.length) lo = Math.min(lo, r.jobs.arrival[0]);
    hi = Math.max(hi, r.end_time);
  }
  return lo <= hi ? [lo, hi] : [0, 0];
}

/**
 * Per segment, the GPU type index (into catalog.gpu_types) of the job's
 * previous segment when it differs from this one's, else -1: the moves
 * between GPU types. Computed once per run in O(segments) and cached.
 */
export function moveSources(run) {
  if (run.moveFrom) return run.moveFrom;
  const tl = run.timeline;
  const from = new Int16Array(tl.seg_job.length).fill(-1);
  const n = tl.job_offsets.length - 1;
  for (let j = 0; j < n; j++) {
    for (let k = tl.job_offsets[j] + 1; k < tl.job_offsets[j + 1]; k++) {
      const s = tl.job_segs[k], p = tl.job_segs[k - 1];
      if (tl.seg_kind[s] !== tl.seg_kind[p]) from[s] = tl.seg_kind[p];
    }
  }
  run.moveFrom = from;
  return from;
}
