//! Themis as the PCS paper runs it (spec seed001 §3.4; the artifact's
//! `THEMIS`): finish-time fairness without the auction. At every arrival,
//! completion and lease expiry, GPUs go greedily to the job with the
//! largest ρ = T_shared / T_ideal, each taking min(GPUs left, its demand):
//!
//! - T_shared = (now − submit) + remaining 1-GPU time / x, with x the GPUs
//!   it would get (linear scaling, as the artifact);
//! - T_ideal = 1-GPU time / min(C / n̄, demand), where n̄ is the average
//!   number of active jobs over the scheduling events of the job's life
//!   (its submission included), counted one event per submission, one per
//!   batch of completions and one per lease expiry, as the artifact's loop.
//!
//! In a prediction's fork (`engine.predict`), T_ideal's work is each job's
//! remaining work at the fork, not its whole work (`snapshot_remaining`):
//! the artifact's snapshot replaces each app's service by its estimated
//! remaining (spec §2.3), and its Themis reads T_ideal from that service.
//! The fork then schedules differently from the run without later
//! arrivals; everything else (n̄'s counts, the lease) is copied as it is.
//!
//! The lease timer restarts at every event, so allocations are recomputed
//! at least every `lease_s`. Ties go to the earlier arrival. A lease that
//! expires while every job holds its whole demand changes nothing but n̄,
//! so such wake-ups are not taken: the next event counts them into n̄
//! (forks run to the end of long tails with one job left; this is most of
//! their calls). This differs
//! from `themis` (the AFS paper's reading, with leases held per GPU and
//! the fairness knob).

use super::{Policy, PolicyInfo, Trigger};
use crate::helpers::alloc::{
    first_grant, is_rigid, keeps_every_placement, place_with_retry, share_cap, Share,
};
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::settings::Settings;
use schedlab_sim::{Decision, RateFn, View};
use std::collections::{BTreeSet, BinaryHeap};

schedlab_core::settings! {
    /// Themis-PCS's settings (`--set themis-pcs.KEY=VALUE`).
    pub struct ThemisPcsSettings {
        lease_s: f64 = float("600", 1.0, 1e9, "Lease (at least 1 s: shorter ones let simulated time stall): allocations are recomputed this long after the last event at the latest (PCS: 600 s; 10 for the minute-based gavel workload; 1 in the Fig. 1 toy)"),
        snapshot_remaining: bool = boolean("true", "Forecasts (engine.predict) compute T_ideal from each job's remaining work at the fork, as the artifact's snapshot does; off: from its whole work, as the run"),
    }
}

const PARAMS: &[ParamSpec] = <ThemisPcsSettings as Settings>::SPECS;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "themis-pcs",
    title: "Themis (PCS)",
    source: schedlab_core::prose::doc("PCS (OSDI'24) §5 baseline Themis (simplified: no auction); spec seed001 §3.4"),
    description: schedlab_core::prose::doc("Greedy finish-time fairness: the job with the largest rho = T_shared / T_ideal takes min(GPUs left, its demand), then the next; recomputed at every event and lease."),
    params: PARAMS,
    knowledge: crate::Knowledge::Declared,
    build,
};

fn build(p: &Params, _seed: u64) -> Result<Box<dyn Policy>> {
    let s = ThemisPcsSettings::from_params(p);
    Ok(Box::new(ThemisPcs {
        lease: s.lease_s,
        snapshot_remaining: s.snapshot_remaining,
        jobs: Vec::new(),
        counted: Counted::default(),
        last_call: f64::NAN,
        quiet_since: None,
    }))
}

#[derive(Clone)]
struct ThemisPcs {
    lease: f64,
    /// A fork's T_ideal reads each job's remaining work at the fork.
    snapshot_remaining: bool,
    /// The jobs this policy saw arrive and not yet leave, in arrival order.
    jobs: Vec<Known>,
    /// Sum of active-job counts and number of events, over all events.
    counted: Counted,
    last_call: f64,
    /// The time of the last call if it gave every job its whole demand and
    /// so skipped its lease wake-ups.
    quiet_since: Option<f64>,
}

/// One job as the policy keeps it.
#[derive(Clone, Copy, Debug)]
struct Known {
    id: u32,
    /// The totals of `counted` when the job's own counts were (0, 0): its
    /// (sum of active-job counts, number of events) is `counted` minus
    /// this. Every event adds to every job's counts, so one running total
    /// replaces a pass over all jobs per event.
    base: Counted,
    /// Its rate on one GPU and its demand, once known not to change (a
    /// speedup curve under perfect knowledge): forks call the policy at
    /// every event, and these took most of each call.
    fixed: Option<(f64, u32)>,
    /// Its known remaining work at the run's last call with arrivals (NaN
    /// before one): a prediction forks right after such a call, so this is
    /// its remaining work at the fork, T_ideal's work there. (A call held
    /// back by a pending decision, `engine.scheduler_delay`, leaves the
    /// values of the call before.)
    at_fork: f64,
}

/// (sum of active-job counts, number of events). Integers: the counts are
/// exact in any order of addition, as the per-job floating sums they stand
/// for are (both stay far below 2^53).
#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct Counted(i64, i64);

impl Counted {
    /// One event with `n` active jobs, `times` times.
    fn add(&mut self, n: i64, times: i64) {
        self.0 += n * times;
        self.1 += times;
    }
}

impl ThemisPcs {
    /// Where job `id` is in `jobs`, if known.
    fn slot(&self, id: u32) -> Option<usize> {
        self.jobs.binary_search_by_key(&id, |k| k.id).ok()
    }

    /// Counts the lease expiries skipped since a quiet call at `since`
    /// (strictly before `now`: a lease falling on an event is that event)
    /// into n̄, as the wake-ups would have: the same active jobs each time.
    fn count_quiet_leases(&mut self, since: f64, now: f64) {
        let (mut t, mut k) = (since + self.lease, 0);
        while t < now {
            k += 1;
            t += self.lease;
        }
        self.counted.add(self.jobs.len() as i64, k);
    }

    /// Counts this call's events into every job's n̄ (see the module doc).
    fn count_events(&mut self, view: &View) {
        let completed = view.completed();
        let repeat =
            view.now() == self.last_call && view.arrived().is_empty() && completed.is_empty();
        // A job can leave without completing only when a forecast takes
        // back a simultaneous arrival (whose fork repeats this instant's
        // call); it is simply forgotten. Otherwise the jobs known are the
        // active ones before this call's changes, unless this policy
        // missed some (then every job is checked, as always before).
        let arriving = view
            .arrived()
            .iter()
            .filter(|&&j| view.active().contains(&j) && self.slot(j).is_none())
            .count();
        let leaving = completed
            .iter()
            .filter(|&&j| self.slot(j).is_some())
            .count();
        if repeat || self.jobs.len() + arriving - leaving != view.active().len() {
            self.jobs
                .retain(|k| view.active().contains(&k.id) || completed.contains(&k.id));
        }
        self.last_call = view.now();
        if repeat {
            return;
        }
        let mut n = self.jobs.len() as i64;
        if !completed.is_empty() {
            self.counted.add(n, 1);
            for &j in completed {
                if let Some(i) = self.slot(j) {
                    self.jobs.remove(i);
                }
            }
            n = self.jobs.len() as i64;
        }
        for &j in view.arrived() {
            if !view.active().contains(&j) {
                continue;
            }
            self.counted.add(n, 1);
            n += 1;
            // Its own counts start at (n, 1).
            let known = Known {
                id: j,
                base: Counted(self.counted.0 - n, self.counted.1 - 1),
                fixed: None,
                at_fork: f64::NAN,
            };
            match self.jobs.binary_search_by_key(&j, |k| k.id) {
                Ok(i) => self.jobs[i] = known,
                Err(i) => self.jobs.insert(i, known),
            }
        }
        if view.arrived().is_empty() && completed.is_empty() {
            self.counted.add(n, 1);
        }
    }

    /// A known job's (sum of active-job counts, number of events); (1, 1)
    /// for a job this policy never saw arrive.
    fn contention_of(&self, slot: Option<usize>) -> (f64, f64) {
        slot.map_or((1.0, 1.0), |i| {
            let b = self.jobs[i].base;
            ((self.counted.0 - b.0) as f64, (self.counted.1 - b.1) as f64)
        })
    }

    /// Each active job that is not pinned, in arrival order, with its rate
    /// on one GPU, demand and (sum of counts, events), caching the rate
    /// and demand of known jobs when they cannot change.
    fn inputs(&mut self, view: &View, pinned: &[u32]) -> Vec<Input> {
        let mut out = Vec::with_capacity(view.active().len());
        let mut k = 0;
        for &j in view.active() {
            if pinned.contains(&j) {
                continue;
            }
            // Both lists are in id order: walk them together.
            while k < self.jobs.len() && self.jobs[k].id < j {
                k += 1;
            }
            let slot = (k < self.jobs.len() && self.jobs[k].id == j).then_some(k);
            let (one, demand) = match slot.and_then(|i| self.jobs[i].fixed) {
                Some(known) => known,
                None => {
                    let known = (view.rate(j, 1), share_cap(view, j).max(1));
                    if let Some(i) = slot {
                        if matches!(view.rate_fn(j), RateFn::Curve(..)) {
                            self.jobs[i].fixed = Some(known);
                        }
                    }
                    known
                }
            };
            out.push(Input {
                job: j,
                one,
                demand,
                counts: self.contention_of(slot),
                at_fork: slot.map_or(f64::NAN, |i| self.jobs[i].at_fork),
            });
        }
        out
    }

    /// What ρ needs of a job, computed once per call: (elapsed, remaining
    /// 1-GPU time, ideal time's numerator per fair share). None: no rate.
    /// `snapshot`: T_ideal's work is the job's remaining work at the fork.
    fn terms(view: &View, x: &Input, snapshot: bool) -> Option<Terms> {
        let (job, one) = (x.job, x.one);
        if one <= 0.0 {
            return None;
        }
        let (sum, n) = x.counts;
        let n_bar = (sum / n).max(1e-9);
        let fair = (view.cluster().total_gpus as f64 / n_bar).min(x.demand as f64);
        let work = if snapshot && x.at_fork.is_finite() {
            // A job done at the fork would be gone: keep ρ finite-ordered.
            x.at_fork.max(f64::MIN_POSITIVE)
        } else {
            view.declared_work(job)
        };
        Some(Terms {
            elapsed: view.now() - view.spec(job).arrival,
            remaining: view.known_remaining_work(job) / one,
            ideal: work / one / fair,
        })
    }
}

/// What a call needs of one open job.
struct Input {
    job: u32,
    /// Rate on one GPU.
    one: f64,
    demand: u32,
    /// (sum of active-job counts, number of events) for n̄.
    counts: (f64, f64),
    /// Known remaining work at the fork (NaN: not recorded).
    at_fork: f64,
}

/// A job's parts of ρ = (elapsed + remaining / x) / ideal.
#[derive(Clone, Copy)]
struct Terms {
    elapsed: f64,
    remaining: f64,
    ideal: f64,
}

impl Terms {
    fn rho(t: Option<Terms>, x: u32) -> f64 {
        match t {
            Some(t) if x > 0 => (t.elapsed + t.remaining / x as f64) / t.ideal,
            _ => 1.0,
        }
    }
}

/// The greedy pick of the module doc over the open jobs (in arrival
/// order): the job with the largest ρ at x = min(GPUs left, its demand),
/// ties to the earlier one. A job whose demand fits in what is left has a
/// fixed ρ (at its demand), so those sit in a heap built once per call;
/// only jobs wider than what is left are re-evaluated at each pick. Picks
/// are the same, to the bit, as rescanning every job per grant.
struct Greedy<'a> {
    open: &'a [(u32, u32, Option<Terms>)],
    taken: Vec<bool>,
    /// Jobs by ρ at their demand (NaN left out: never the largest).
    ranked: BinaryHeap<Ranked>,
    /// Jobs wider than what is left, in no order.
    wide: Vec<usize>,
    /// Jobs of more than one GPU that still fit, widest last.
    narrow: Vec<(u32, usize)>,
    remaining: usize,
}

/// A heap entry: larger ρ first, then the earlier job.
struct Ranked(f64, usize);

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(other.1.cmp(&self.1))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Ranked {}

impl<'a> Greedy<'a> {
    fn new(open: &'a [(u32, u32, Option<Terms>)], left: u32) -> Self {
        let mut ranked = Vec::with_capacity(open.len());
        let (mut wide, mut narrow) = (Vec::new(), Vec::new());
        for (i, &(_, demand, terms)) in open.iter().enumerate() {
            // + 0.0 makes -0 a 0, which `>` ties with 0 as well.
            let r = Terms::rho(terms, demand) + 0.0;
            if !r.is_nan() {
                ranked.push(Ranked(r, i));
            }
            if demand > left {
                wide.push(i);
            } else if demand > 1 {
                narrow.push((demand, i));
            }
        }
        narrow.sort_unstable();
        Greedy {
            open,
            taken: vec![false; open.len()],
            ranked: BinaryHeap::from(ranked),
            wide,
            narrow,
            remaining: open.len(),
        }
    }

    fn is_done(&self) -> bool {
        self.remaining == 0
    }

    /// The next job (its index in `open`) and the GPUs it would take, or
    /// None when every job has been picked. If no job has a comparable ρ,
    /// the earliest takes none (as a scan from -inf would).
    fn pick(&mut self, left: u32) -> Option<(usize, u32)> {
        if self.remaining == 0 {
            return None;
        }
        while let Some(&(demand, i)) = self.narrow.last() {
            if demand <= left {
                break;
            }
            self.wide.push(i);
            self.narrow.pop();
        }
        let open = self.open;
        while let Some(top) = self.ranked.peek() {
            if !self.taken[top.1] && open[top.1].1 <= left {
                break;
            }
            self.ranked.pop();
        }
        let mut best: Option<(f64, usize, u32)> =
            self.ranked.peek().map(|top| (top.0, top.1, open[top.1].1));
        for &i in &self.wide {
            if self.taken[i] {
                continue;
            }
            let r = Terms::rho(open[i].2, left);
            if r > best.map_or(f64::NEG_INFINITY, |b| b.0)
                || best.is_some_and(|b| r == b.0 && i < b.1)
            {
                best = Some((r, i, left));
            }
        }
        let (i, x) = match best {
            Some((r, i, x)) if r > f64::NEG_INFINITY => (i, x),
            _ => (self.taken.iter().position(|t| !t)?, 0),
        };
        self.taken[i] = true;
        self.remaining -= 1;
        Some((i, x))
    }
}

impl Policy for ThemisPcs {
    fn name(&self) -> &str {
        "themis-pcs"
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(0.0)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        if let Some(since) = self.quiet_since.take() {
            self.count_quiet_leases(since, view.now());
        }
        self.count_events(view);
        let in_fork = view.in_forecast();
        if self.snapshot_remaining && !in_fork && !view.arrived().is_empty() {
            for k in &mut self.jobs {
                k.at_fork = view.known_remaining_work(k.id);
            }
        }
        let snapshot = self.snapshot_remaining && in_fork;
        let (pinned, free) = crate::helpers::alloc::pinned_jobs(view);
        let inputs = self.inputs(view, &pinned);
        // Whether the final plan gives every job its whole demand.
        let mut whole = false;
        let mut compute = |excluded: &BTreeSet<u32>| {
            let mut left = free;
            let open: Vec<(u32, u32, Option<Terms>)> = inputs
                .iter()
                .filter(|x| !excluded.contains(&x.job))
                .map(|x| (x.job, x.demand, ThemisPcs::terms(view, x, snapshot)))
                .collect();
            let mut shares = Vec::new();
            let mut greedy = Greedy::new(&open, left);
            while left > 0 {
                let Some((i, best_x)) = greedy.pick(left) else {
                    break;
                };
                let (j, demand, _) = open[i];
                let rigid = is_rigid(view, j);
                let x = if rigid && best_x < demand { 0 } else { best_x };
                left -= x;
                shares.push(Share {
                    job: j,
                    count: x,
                    min: if rigid {
                        first_grant(view, j)
                    } else {
                        x.min(1)
                    },
                    cap: demand,
                });
            }
            whole =
                excluded.is_empty() && greedy.is_done() && shares.iter().all(|s| s.count == s.cap);
            shares
        };
        // Most calls of a fork are lease expiries that leave every count
        // as it is: placing those shares would keep every job where it is.
        let first = compute(&BTreeSet::new());
        if !keeps_every_placement(view, &pinned, &first) {
            let mut first = Some(first);
            place_with_retry(view, out, &pinned, |excluded| match first.take() {
                Some(shares) if excluded.is_empty() => shares,
                _ => compute(excluded),
            });
        }
        if whole && pinned.is_empty() {
            // Nothing changes until the next event: no wake-up (a far one
            // replaces the last call's timer).
            self.quiet_since = Some(view.now());
            out.wake_at(f64::MAX);
        } else {
            out.wake_at(view.now() + self.lease);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_core::rng::Sampler;

    /// The rescan the ranking replaces: every open job's ρ at
    /// min(left, demand) per pick, the first largest wins.
    fn rescan(
        open: &[(u32, u32, Option<Terms>)],
        mut left: u32,
        take: &[u32],
    ) -> Vec<(usize, u32)> {
        let mut rest: Vec<usize> = (0..open.len()).collect();
        let mut picks = Vec::new();
        while left > 0 && !rest.is_empty() {
            let mut best = (f64::NEG_INFINITY, 0usize, 0u32);
            for (k, &i) in rest.iter().enumerate() {
                let x = left.min(open[i].1);
                let r = Terms::rho(open[i].2, x);
                if r > best.0 {
                    best = (r, k, x);
                }
            }
            let i = rest.remove(best.1);
            picks.push((i, best.2));
            left -= best.2.min(take[i]);
        }
        picks
    }

    #[test]
    fn skipped_leases_count_into_n_bar_as_the_wake_ups_would() {
        // Job 1 has counted (2, 1) so far, job 2 (3, 2).
        let known = |id, base| Known {
            id,
            base,
            fixed: None,
            at_fork: f64::NAN,
        };
        let mut t = ThemisPcs {
            lease: 600.0,
            snapshot_remaining: true,
            jobs: vec![known(1, Counted(8, 4)), known(2, Counted(7, 3))],
            counted: Counted(10, 5),
            last_call: 0.0,
            quiet_since: None,
        };
        let (one, two) = (t.slot(1), t.slot(2));
        assert_eq!(t.contention_of(one), (2.0, 1.0));
        assert_eq!(t.contention_of(two), (3.0, 2.0));
        assert_eq!(t.contention_of(t.slot(3)), (1.0, 1.0), "never seen");
        // Leases at 600 and 1,200 expire before 1,500: two events of 2 jobs.
        t.count_quiet_leases(0.0, 1_500.0);
        assert_eq!(t.contention_of(one), (6.0, 3.0));
        assert_eq!(t.contention_of(two), (7.0, 4.0));
        // A lease falling on the next event is that event, not one more.
        t.count_quiet_leases(0.0, 1_200.0);
        assert_eq!(t.contention_of(one), (8.0, 4.0));
        t.count_quiet_leases(0.0, 600.0);
        assert_eq!(t.contention_of(one), (8.0, 4.0));
    }

    #[test]
    fn ranked_picks_equal_a_rescan_of_every_job() {
        let mut rng = Sampler::new(11);
        for case in 0..2_000 {
            let n = 1 + rng.below(40) as usize;
            let open: Vec<(u32, u32, Option<Terms>)> = (0..n)
                .map(|j| {
                    let demand = 1 + rng.below(12) as u32;
                    // Few distinct values, so ties are common; some jobs
                    // have no rate (ρ = 1) or no comparable ρ (NaN).
                    let terms = match rng.below(10) {
                        0 => None,
                        1 => Some(Terms {
                            elapsed: 0.0,
                            remaining: 0.0,
                            ideal: 0.0,
                        }),
                        _ => Some(Terms {
                            elapsed: rng.below(4) as f64,
                            remaining: rng.below(4) as f64 * 10.0,
                            ideal: 1.0 + rng.below(3) as f64,
                        }),
                    };
                    (j as u32, demand, terms)
                })
                .collect();
            // A rigid job granted less than its demand takes nothing.
            let take: Vec<u32> = (0..n)
                .map(|_| if rng.below(4) == 0 { 0 } else { u32::MAX })
                .collect();
            let left = 1 + rng.below(64) as u32;
            let mut greedy = Greedy::new(&open, left);
            let mut picks = Vec::new();
            let mut l = left;
            while l > 0 {
                let Some((i, x)) = greedy.pick(l) else { break };
                picks.push((i, x));
                l -= x.min(take[i]);
            }
            assert_eq!(picks, rescan(&open, left, &take), "case {case}");
        }
    }
}
