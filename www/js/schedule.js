// What a run will cost, so the page can run the short ones first and say how
// long the rest will take.
//
// Before a run: an estimate from the trace size and the policy (or its
// family): wall seconds per job measured in this browser, see
// MEASURED_S_PER_JOB; once a policy has run on the same trace and cluster in
// this page, its own measured time replaces the estimate. While a run goes:
// an ETA from its simulated-time progress.

import { baseOf } from './state.js';

/**
 * Wall seconds per job in this browser, measured: each policy alone on the
 * bundled sia-philly trace (160 jobs, sia-hetero-64) in headless Chromium on
 * the 2-core machine, one worker, while other builds loaded it (load average
 * about 19; docs/PAGE.md "Scheduling"). Only their order matters here: they
 * rank the queue and give the "estimated" wait before a run has its own.
 */
export const MEASURED_S_PER_JOB = {
  tiresias: 0.0017, fifo: 0.0026, srtf: 0.0051, maxmin: 0.0082, gavel: 0.011, optimus: 0.021,
  shockwave: 0.021, 'afs-l': 0.024, sia: 0.026, 'gavel-ftf': 0.038, themis: 0.069, pcs: 0.18, pollux: 0.72,
};

/**
 * A policy not measured above costs as the measured one of its family: the
 * same kind of per-round work (a queue order, a share computation over all
 * jobs, a solver). Others: the core package's as fifo, the full package's as sia.
 */
const FAMILY = {
  srsf: 'srtf', 'srtf-e': 'srtf', 'srsf-e': 'srtf', 'afs-p': 'afs-l', 'afs-s': 'afs-l', 'themis-pcs': 'themis',
  anticipatory: 'maxmin', 'anticipatory-vc': 'maxmin', 'pool-maxmin': 'maxmin', sts: 'afs-l', dp: 'afs-l',
  'avg-dp': 'afs-l', 'anticipatory-oracle': 'sia',
};

/** The measured policy whose cost stands for a policies entry's (a variant is its policy's). */
export function familyOf(entry, fullOnly) {
  const name = baseOf(entry);
  if (MEASURED_S_PER_JOB[name] !== undefined) return name;
  return FAMILY[name] || (fullOnly.has(name) ? 'sia' : 'fifo');
}

/** Remembers measured wall seconds per job, by policy entry, trace and cluster. */
export class CostBook {
  constructor(fullOnly) {
    this.fullOnly = new Set(fullOnly);
    this.measured = new Map();
  }

  key(entry, trace, cluster) {
    return `${entry}|${trace}|${cluster}`;
  }

  /** Records a finished run (its wall time over its jobs). */
  learn(entry, trace, cluster, wallS, jobs) {
    if (jobs > 0 && Number.isFinite(wallS)) this.measured.set(this.key(entry, trace, cluster), wallS / jobs);
  }

  /** Estimated wall seconds of `entry` on `jobs` jobs of `trace` on `cluster`, and where it came from. */
  estimate(entry, trace, cluster, jobs) {
    const m = this.measured.get(this.key(entry, trace, cluster));
    if (m !== undefined) return { s: m * jobs, from: 'measured' };
    return { s: MEASURED_S_PER_JOB[familyOf(entry, this.fullOnly)] * jobs, from: 'estimated' };
  }
}

/**
 * The queue's rank of an estimate: its order of magnitude in powers of 4.
 * The queue runs lower ranks first and keeps the user's order within a rank,
 * so a short run never waits behind one several times longer, while runs of
 * about the same cost (fifo and tiresias, whose order depends on the trace)
 * keep the order the user gave them.
 */
export function costRank(seconds) {
  return Math.floor(Math.log(Math.max(seconds, 1e-3)) / Math.log(4));
}

/**
 * A running policy's completed share from its progress ({now, completed,
 * total}) in simulated time: the share of the trace's arrival span behind the
 * clock and the share of jobs done, averaged (both reach 1 at the end; the
 * first moves while jobs arrive, the second after the last arrival).
 */
export function doneShare(pr, firstArrival, lastArrival) {
  if (!pr || !(pr.total > 0)) return 0;
  const span = lastArrival - firstArrival;
  const time = span > 0 ? Math.min(1, Math.max(0, (pr.now - firstArrival) / span)) : 1;
  const jobs = Math.min(1, pr.completed / pr.total);
  return 0.5 * (time + jobs);
}

/** Seconds left for a run `elapsedS` into it with `share` done, or NaN when too early to say. */
export function etaSeconds(share, elapsedS) {
  if (!(share > 0.01) || !(elapsedS > 0.5)) return NaN;
  return elapsedS * (1 - share) / share;
}

/** "12 s", "3 min", "1.2 h". */
export function fmtWait(s) {
  if (!Number.isFinite(s)) return '';
  if (s < 1) return 'under a second';
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}
