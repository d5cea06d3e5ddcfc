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
//! The lease timer restarts at every event, so allocations are recomputed
//! at least every `lease_s`. Ties go to the earlier arrival. A lease that
//! expires while every job holds its whole demand changes nothing but n̄,
//! so such wake-ups are not taken: the next event counts them into n̄
//! (forks run to the end of long tails with one job left; this is most of
//! their calls). This differs
//! from `themis` (the AFS paper's reading, with leases held per GPU and
//! the fairness knob).

use super::{Policy, PolicyInfo, Trigger};
use crate::helpers::alloc::{first_grant, is_rigid, place_with_retry, share_cap, Share};
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::settings::Settings;
use schedlab_sim::{Decision, View};
use std::collections::{BTreeMap, BinaryHeap};

schedlab_core::settings! {
    /// Themis-PCS's settings (`--set themis-pcs.KEY=VALUE`).
    pub struct ThemisPcsSettings {
        lease_s: f64 = float("600", 1e-3, 1e9, "Lease: allocations are recomputed this long after the last event at the latest (PCS: 600 s; 10 for the minute-based gavel workload; 1 in the Fig. 1 toy)"),
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
        contention: BTreeMap::new(),
        last_call: f64::NAN,
        quiet_since: None,
    }))
}

#[derive(Clone)]
struct ThemisPcs {
    lease: f64,
    /// Per active job: (sum of active-job counts, number of events).
    contention: BTreeMap<u32, (f64, f64)>,
    last_call: f64,
    /// The time of the last call if it gave every job its whole demand and
    /// so skipped its lease wake-ups.
    quiet_since: Option<f64>,
}

impl ThemisPcs {
    /// Counts the lease expiries skipped since a quiet call at `since`
    /// (strictly before `now`: a lease falling on an event is that event)
    /// into n̄, as the wake-ups would have: the same active jobs each time.
    fn count_quiet_leases(&mut self, since: f64, now: f64) {
        let (mut t, mut k) = (since + self.lease, 0.0);
        while t < now {
            k += 1.0;
            t += self.lease;
        }
        let n = self.contention.len() as f64;
        for v in self.contention.values_mut() {
            v.0 += n * k;
            v.1 += k;
        }
    }

    /// Counts this call's events into every job's n̄ (see the module doc).
    fn count_events(&mut self, view: &View) {
        // A job can leave without completing only when a forecast takes
        // back a simultaneous arrival; it is simply forgotten.
        let completed: Vec<u32> = view.completed().to_vec();
        self.contention
            .retain(|j, _| view.active().contains(j) || completed.contains(j));
        let repeat =
            view.now() == self.last_call && view.arrived().is_empty() && completed.is_empty();
        self.last_call = view.now();
        if repeat {
            return;
        }
        let mut n = self.contention.len() as f64;
        let event = |c: &mut BTreeMap<u32, (f64, f64)>, n: f64| {
            for v in c.values_mut() {
                v.0 += n;
                v.1 += 1.0;
            }
        };
        if !completed.is_empty() {
            event(&mut self.contention, n);
            for j in &completed {
                self.contention.remove(j);
            }
            n = self.contention.len() as f64;
        }
        for &j in view.arrived() {
            if !view.active().contains(&j) {
                continue;
            }
            event(&mut self.contention, n);
            n += 1.0;
            self.contention.insert(j, (n, 1.0));
        }
        if view.arrived().is_empty() && completed.is_empty() {
            event(&mut self.contention, n);
        }
    }

    /// What ρ needs of a job, computed once per call: (elapsed, remaining
    /// 1-GPU time, ideal time's numerator per fair share). None: no rate.
    fn terms(&self, view: &View, job: u32, demand: u32) -> Option<Terms> {
        let one = view.rate(job, 1);
        if one <= 0.0 {
            return None;
        }
        let (sum, n) = self.contention.get(&job).copied().unwrap_or((1.0, 1.0));
        let n_bar = (sum / n).max(1e-9);
        let fair = (view.cluster().total_gpus as f64 / n_bar).min(demand as f64);
        Some(Terms {
            elapsed: view.now() - view.spec(job).arrival,
            remaining: view.known_remaining_work(job) / one,
            ideal: view.declared_work(job) / one / fair,
        })
    }
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
        let (pinned, free) = crate::helpers::alloc::pinned_jobs(view);
        let this = &*self;
        // Whether the final plan gives every job its whole demand.
        let mut whole = false;
        place_with_retry(view, out, &pinned, |excluded| {
            let mut left = free;
            let open: Vec<(u32, u32, Option<Terms>)> = view
                .active()
                .iter()
                .copied()
                .filter(|j| !pinned.contains(j) && !excluded.contains(j))
                .map(|j| {
                    let demand = share_cap(view, j).max(1);
                    (j, demand, this.terms(view, j, demand))
                })
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
        });
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
        let mut t = ThemisPcs {
            lease: 600.0,
            contention: BTreeMap::from([(1, (2.0, 1.0)), (2, (3.0, 2.0))]),
            last_call: 0.0,
            quiet_since: None,
        };
        // Leases at 600 and 1,200 expire before 1,500: two events of 2 jobs.
        t.count_quiet_leases(0.0, 1_500.0);
        assert_eq!(t.contention[&1], (6.0, 3.0));
        assert_eq!(t.contention[&2], (7.0, 4.0));
        // A lease falling on the next event is that event, not one more.
        t.count_quiet_leases(0.0, 1_200.0);
        assert_eq!(t.contention[&1], (8.0, 4.0));
        t.count_quiet_leases(0.0, 600.0);
        assert_eq!(t.contention[&1], (8.0, 4.0));
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
