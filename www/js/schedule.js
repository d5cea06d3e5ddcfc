// What a run will cost, so the page can run the short ones first and say how
// long the rest will take.
//
// Before a run: an estimate from the trace size and the policy's family
// (wall seconds per job in this browser, measured on the bundled traces on a
// 2-core machine, see docs/PAGE.md "Scheduling"); once a policy has run on
// the same trace and cluster in this page, its measured time replaces the
// estimate. While a run goes: an ETA from its simulated-time progress.

import { baseOf } from './state.js';

/**
 * Wall seconds per job in the browser by family. The families are the
 * policies' kinds of per-round work: a queue order (cheap), a share
 * computation over all jobs (elastic), a linear or integer program per
 * round (solver), and a genetic search per round (Pollux).
 */
export const FAMILY_S_PER_JOB = {
  queue: 0.0005,
  elastic: 0.002,
  lp: 0.004,
  ilp: 0.008,
  shockwave: 0.04,
  search: 0.2,
  ftf: 0.6,
};

/** Policies whose family is not `queue` (the default) or `lp` (the default of the full package). */
const FAMILY = {
  'afs-l': 'elastic', 'afs-p': 'elastic', 'afs-s': 'elastic', maxmin: 'elastic', optimus: 'elastic', themis: 'elastic',
  pcs: 'elastic', 'themis-pcs': 'elastic', sts: 'elastic', dp: 'elastic', 'avg-dp': 'elastic', anticipatory: 'elastic',
  'anticipatory-vc': 'elastic', 'pool-maxmin': 'elastic',
  sia: 'ilp', gavel: 'lp', 'anticipatory-oracle': 'ilp', shockwave: 'shockwave', pollux: 'search', 'gavel-ftf': 'ftf',
};

/** The family of a policies entry (a variant is its policy's). */
export function familyOf(entry, fullOnly) {
  const name = baseOf(entry);
  return FAMILY[name] || (fullOnly.has(name) ? 'lp' : 'queue');
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
    return { s: FAMILY_S_PER_JOB[familyOf(entry, this.fullOnly)] * jobs, from: 'estimated' };
  }
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
