// Pools' quota accounting on a finished run (runs with pools: `run.pools`,
// `run.jobs.pool`): which GPUs each pool uses within its quota, which it
// lends and which it borrows, at one instant (the GPU map's pool view) and
// over the whole run (the per-pool usage chart).
//
// With fungible GPUs (spec seed000 §2.1) the engine records usage, not
// donors: a pool's GPUs beyond its quota are borrowed, the latest-started
// of its jobs being the borrowers, and the borrowed GPUs are attributed to
// the pools with idle quota in pool order (then to GPUs outside every
// quota). Under `engine.placement=cells` pools own physical home cells
// (`pools[p].home_gpus`), so both views read ownership off the GPUs
// instead: a job on another pool's home GPU borrows it from that pool.
// Each view uses the same rule as the other, so they agree.
import { segmentOnGpu } from './timeline.js';

/** True when the run's pools own physical home cells (locality). */
export function hasHomes(run) {
  return hasPools(run) && run.pools.some((p) => p.home_gpus && p.home_gpus.length);
}

/** Owner pool of every GPU (-1: outside every home), for runs with homes. */
export function homeOwners(pools, totalGpus) {
  const owner = new Int32Array(totalGpus).fill(-1);
  pools.forEach((p, i) => (p.home_gpus || []).forEach((g) => { if (g < totalGpus) owner[g] = i; }));
  return owner;
}

/** True when the run has pools. */
export function hasPools(run) {
  return !!(run && run.pools && run.pools.length);
}

/**
 * The pool view's regions: pool p owns cells [first[p], first[p] + cap[p]);
 * region P (= pools.length) holds the GPUs outside every quota.
 */
export function poolRegions(pools, totalGpus) {
  const P = pools.length;
  const first = new Int32Array(P + 1);
  const cap = new Int32Array(P + 1);
  let at = 0;
  for (let p = 0; p < P; p++) {
    first[p] = at;
    cap[p] = Math.min(pools[p].quota, totalGpus - at);
    at += cap[p];
  }
  first[P] = at;
  cap[P] = totalGpus - at;
  // With home cells, cell c of the view is physical GPU gpuOf[c]: each
  // region's cells are its pool's home GPUs in order, then the rest.
  let gpuOf = null;
  if (pools.some((p) => p.home_gpus && p.home_gpus.length)) {
    const owner = homeOwners(pools, totalGpus);
    gpuOf = new Int32Array(totalGpus);
    const next = Int32Array.from(first);
    for (let g = 0; g < totalGpus; g++) {
      const p = owner[g] >= 0 && next[owner[g]] < first[owner[g]] + cap[owner[g]] ? owner[g] : P;
      gpuOf[next[p]++] = g;
    }
  }
  return { P, first, cap, gpuOf };
}

/**
 * Cells of the pool view at time t: `cells[c]` is the segment drawn in cell
 * c (-1: idle), `lentTo[c]` the borrowing pool when the cell is lent (-1
 * otherwise), `own[p]` / `lent[p]` / `borrowed[p]` the GPU counts.
 */
export function quotaAt(run, regions, t) {
  if (regions.gpuOf) return homesAt(run, regions, t);
  const tl = run.timeline;
  const pool = run.jobs.pool;
  const n = tl.gpu_offsets.length - 1;
  const { P, first, cap } = regions;
  const active = [];
  const seen = new Set();
  for (let g = 0; g < n; g++) {
    const s = segmentOnGpu(tl, g, t);
    if (s >= 0 && !seen.has(s)) { seen.add(s); active.push(s); }
  }
  // Within a pool the earliest-started jobs are the ones within quota.
  active.sort((a, b) => tl.seg_start[a] - tl.seg_start[b] || a - b);
  const cells = new Int32Array(n).fill(-1);
  const lentTo = new Int32Array(n).fill(-1);
  const used = new Int32Array(P + 1);
  const own = new Int32Array(P);
  const lent = new Int32Array(P);
  const borrowed = new Int32Array(P);
  const over = []; // (segment, pool) per GPU beyond its pool's quota
  for (const s of active) {
    const p = pool[tl.seg_job[s]];
    const home = p >= 0 ? p : P;
    for (let k = 0; k < tl.seg_gpu_count[s]; k++) {
      if (used[home] < cap[home]) {
        cells[first[home] + used[home]++] = s;
        if (p >= 0) own[p]++;
      } else over.push(s, p);
    }
  }
  let d = 0;
  for (let i = 0; i < over.length; i += 2) {
    while (d <= P && used[d] >= cap[d]) d++;
    if (d > P) break;
    const c = first[d] + used[d]++;
    cells[c] = over[i];
    lentTo[c] = over[i + 1];
    if (d < P) lent[d]++;
    if (over[i + 1] >= 0) borrowed[over[i + 1]]++;
  }
  return { cells, lentTo, own, lent, borrowed };
}

/** `quotaAt` for runs with home cells: ownership read off the GPUs. */
function homesAt(run, regions, t) {
  const tl = run.timeline;
  const pool = run.jobs.pool;
  const { P, first, cap, gpuOf } = regions;
  const n = gpuOf.length;
  const cells = new Int32Array(n).fill(-1);
  const lentTo = new Int32Array(n).fill(-1);
  const own = new Int32Array(P), lent = new Int32Array(P), borrowed = new Int32Array(P);
  for (let r = 0; r <= P; r++) {
    for (let c = first[r]; c < first[r] + cap[r]; c++) {
      const s = segmentOnGpu(tl, gpuOf[c], t);
      if (s < 0) continue;
      cells[c] = s;
      const p = pool[tl.seg_job[s]];
      if (p === r) { own[p]++; continue; }
      lentTo[c] = p;
      if (r < P) lent[r]++;
      if (p >= 0) borrowed[p]++;
    }
  }
  return { cells, lentTo, own, lent, borrowed };
}

/**
 * Per-pool usage over the run in `bins` equal bins of [t0, t1], each the
 * time-weighted mean GPUs: `own[p]` (within quota), `lent[p]` (its idle
 * quota holding other pools' jobs), `borrowed[p]` (beyond its quota), and
 * `peak[p]` (most GPUs held at once).
 */
export function poolSeries(run, t0, t1, bins) {
  const tl = run.timeline;
  const pool = run.jobs.pool;
  const pools = run.pools;
  const P = pools.length;
  // Under home cells each GPU of a segment counts for its owner: the job's
  // own home (own), or another pool's (lent by it, borrowed by the job's).
  const owner = hasHomes(run) ? homeOwners(pools, tl.gpu_offsets.length - 1) : null;
  const events = [];
  for (let s = 0; s < tl.seg_job.length; s++) {
    const p = pool[tl.seg_job[s]];
    if (p < 0) continue;
    if (owner) {
      for (let k = 0; k < tl.seg_gpu_count[s]; k++) {
        const o = owner[tl.gpus[tl.seg_gpu_offset[s] + k]];
        events.push([tl.seg_start[s], 1, p, o], [tl.seg_end[s], -1, p, o]);
      }
      continue;
    }
    events.push([tl.seg_start[s], tl.seg_gpu_count[s], p], [tl.seg_end[s], -tl.seg_gpu_count[s], p]);
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const mk = () => Array.from({ length: P }, () => new Float64Array(bins));
  const out = { t0, t1, bins, own: mk(), lent: mk(), borrowed: mk(), peak: new Float64Array(P) };
  const width = (t1 - t0) / bins || 1;
  const usage = new Float64Array(P);
  const own = new Float64Array(P), lent = new Float64Array(P), bor = new Float64Array(P);
  // Adds the current state over [a, b) to the bins it overlaps.
  const add = (a, b) => {
    a = Math.max(a, t0); b = Math.min(b, t1);
    if (!(b > a)) return;
    let k = Math.min(bins - 1, Math.floor((a - t0) / width));
    while (a < b && k < bins) {
      const end = Math.min(b, t0 + (k + 1) * width);
      const w = (end - a) / width;
      for (let p = 0; p < P; p++) {
        out.own[p][k] += own[p] * w;
        out.lent[p][k] += lent[p] * w;
        out.borrowed[p][k] += bor[p] * w;
      }
      a = end;
      k++;
    }
  };
  let prev = -Infinity;
  for (let i = 0; i < events.length;) {
    const at = events[i][0];
    add(prev, at);
    if (owner) {
      for (; i < events.length && events[i][0] === at; i++) {
        const [, d, p, o] = events[i];
        usage[p] += d;
        if (o === p) own[p] += d;
        else {
          bor[p] += d;
          if (o >= 0) lent[o] += d;
        }
      }
      for (let p = 0; p < P; p++) if (usage[p] > out.peak[p]) out.peak[p] = usage[p];
      prev = at;
      continue;
    }
    for (; i < events.length && events[i][0] === at; i++) usage[events[i][2]] += events[i][1];
    let over = 0;
    for (let p = 0; p < P; p++) {
      own[p] = Math.min(usage[p], pools[p].quota);
      bor[p] = Math.max(0, usage[p] - pools[p].quota);
      over += bor[p];
      if (usage[p] > out.peak[p]) out.peak[p] = usage[p];
    }
    for (let p = 0; p < P; p++) {
      lent[p] = Math.min(over, pools[p].quota - own[p]);
      over -= lent[p];
    }
    prev = at;
  }
  return out;
}

/**
 * Per pool, each run's speedups against per-pool FCFS (the paper's Table 12
 * per queue): geometric mean and the share of jobs finishing more than 1 s
 * later (the `slowed_frac` metric's rule), as {pools: [name], rows: [[{geo,
 * slowed, n}] per run] per pool}.
 */
export function poolSpeedups(runs) {
  const pools = runs[0].result.pools.map((p) => p.name);
  const rows = pools.map((_, p) => runs.map((r) => {
    const jobs = r.result.jobs;
    let n = 0, logs = 0, slowed = 0;
    for (let j = 0; j < jobs.pool.length; j++) {
      const s = jobs.speedup[j];
      if (jobs.pool[j] !== p || !(s > 0)) continue;
      n++;
      logs += Math.log(s);
      if (jobs.jct[j] * (1 - s) > 1) slowed++;
    }
    return { n, geo: n ? Math.exp(logs / n) : NaN, slowed: n ? slowed / n : NaN };
  }));
  return { pools, rows };
}
