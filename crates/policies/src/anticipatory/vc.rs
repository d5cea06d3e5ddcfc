//! A-SIA-VC (spec seed000 §2.3, the paper's Fig 6) with perfect per-job
//! predictions, in the spec's recommended form that makes Theorem 1 hold.
//!
//! A job's virtual start time (VST) is its start under per-pool FCFS
//! without sharing (the reference run, computed once from the whole trace).
//! At each event: lay the running jobs on a resource-time plan; visit the
//! waiting and future jobs by VST; a job that cannot start now (not yet
//! arrived, or its width plus the plan's peak over its run exceeds the
//! cluster) reserves its width over [VST, VST + run time); the first job
//! that can start without touching an earlier-VST reservation starts, and
//! the pass repeats. Every job then starts by its VST: with perfect
//! information no job is slowed. Wake-ups at VSTs keep that promise.

use super::{forget_finished, ledger_pool, run_time, Ledger};
use crate::{Knowledge, Policy, PolicyInfo, Trigger};
use schedlab_core::error::Result;
use schedlab_core::params::Params;
use schedlab_sim::{Decision, View};
use std::collections::{BTreeSet, BinaryHeap};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "anticipatory-vc",
    title: "Anticipatory sharing, virtual clocks (A-SIA-VC)",
    source: schedlab_core::prose::doc("Anticipatory resource allocation for ML training, Fig 6 (SIA_VC); spec seed000 §2.3"),
    description: schedlab_core::prose::doc("Perfect per-job predictions: each job's virtual start time is its per-pool FCFS start; jobs start early only where they fit around the reservations of every earlier-VST job, so none is slowed (Theorem 1). Non-preemptive."),
    params: &[],
    knowledge: Knowledge::Oracle,
    build,
};

fn build(_p: &Params, _seed: u64) -> Result<Box<dyn Policy>> {
    Ok(Box::new(Vc {
        vst: None,
        opportunistic: BTreeSet::new(),
    }))
}

#[derive(Clone)]
struct Vc {
    /// Virtual start time per job id (computed at the first call).
    vst: Option<Vec<f64>>,
    opportunistic: BTreeSet<u32>,
}

/// Start times of every job under strict per-pool FCFS within quota
/// (no sharing, no backfilling): the reference schedule, from the truth.
pub fn fcfs_starts(view: &View, quota: &[u32]) -> Vec<f64> {
    let Some(oracle) = view.oracle() else {
        return Vec::new();
    };
    let all = oracle.arrivals_between(f64::NEG_INFINITY, f64::INFINITY);
    let mut starts = vec![f64::INFINITY; all.len()];
    let mut by_pool: Vec<Vec<u32>> = vec![Vec::new(); quota.len()];
    for s in all {
        by_pool[ledger_pool(view, s.id)].push(s.id);
    }
    for (q, jobs) in by_pool.iter().enumerate() {
        // Min-heap of (end, GPUs) of the pool's running jobs.
        let mut running: BinaryHeap<std::cmp::Reverse<(Ordered, u32)>> = BinaryHeap::new();
        let mut free = quota[q];
        let mut last = f64::NEG_INFINITY;
        for &j in jobs {
            let g = view.spec(j).gpus;
            let mut t = view.spec(j).arrival.max(last);
            while let Some(std::cmp::Reverse((Ordered(end), w))) = running.peek().copied() {
                if end <= t || free < g {
                    running.pop();
                    free += w;
                    t = t.max(end);
                } else {
                    break;
                }
            }
            if free < g {
                continue; // wider than its quota: never starts (the engine rejects such traces)
            }
            starts[j as usize] = t;
            free -= g;
            running.push(std::cmp::Reverse((Ordered(t + run_time(view, j)), g)));
            last = t;
        }
    }
    starts
}

/// An f64 with a total order, for heaps.
#[derive(Clone, Copy, PartialEq)]
struct Ordered(f64);
impl Eq for Ordered {}
impl PartialOrd for Ordered {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Ordered {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

/// The logical resource-time plan: GPU usage as a step function.
#[derive(Default)]
struct Plan {
    /// (time, change in GPUs), sorted by time.
    steps: Vec<(f64, i64)>,
}

impl Plan {
    fn reserve(&mut self, from: f64, to: f64, gpus: u32) {
        // At equal times releases go before starts, so that a job ending
        // when another begins never counts twice.
        let g = gpus as i64;
        let at = self.steps.partition_point(|s| s.0 < to);
        self.steps.insert(at, (to, -g));
        let at = self.steps.partition_point(|s| s.0 <= from);
        self.steps.insert(at, (from, g));
    }

    /// The most GPUs in use at any instant of [from, to).
    fn peak(&self, from: f64, to: f64) -> i64 {
        let mut steps = self.steps.iter().peekable();
        let mut level = 0;
        while let Some(&&(t, d)) = steps.peek() {
            if t > from {
                break;
            }
            level += d;
            steps.next();
        }
        let mut peak = level;
        for &(t, d) in steps {
            if t >= to {
                break;
            }
            level += d;
            peak = peak.max(level);
        }
        peak
    }
}

impl Policy for Vc {
    fn name(&self) -> &str {
        "anticipatory-vc"
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(0.0)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        forget_finished(view, &mut self.opportunistic);
        let mut ledger = Ledger::new(view, &self.opportunistic);
        if self.vst.is_none() {
            self.vst = Some(fcfs_starts(view, &ledger.quota));
        }
        let vst = self.vst.as_ref().expect("set above");
        let Some(oracle) = view.oracle() else {
            return;
        };
        let now = view.now();
        let capacity = view.cluster().total_gpus as i64;
        let waiting: Vec<u32> = view.waiting().iter().copied().collect();
        let Some(longest) = waiting.iter().map(|&j| run_time(view, j)).reduce(f64::max) else {
            return;
        };
        // Future jobs matter only if their VST falls within a waiting job's run.
        let future = oracle
            .arrivals_between(now, f64::INFINITY)
            .iter()
            .take_while(|s| s.arrival < now + longest)
            .map(|s| s.id)
            .filter(|&j| vst.get(j as usize).is_some_and(|&v| v < now + longest));
        let mut candidates: Vec<u32> = waiting.iter().copied().chain(future).collect();
        schedlab_core::sorting::sort_by(&mut candidates, |&a, &b| {
            vst[a as usize].total_cmp(&vst[b as usize]).then(a.cmp(&b))
        });
        let mut packer = view.packer_idle();
        let mut started: BTreeSet<u32> = BTreeSet::new();
        loop {
            let mut plan = Plan::default();
            for &r in view.running().iter() {
                plan.reserve(
                    now,
                    now + oracle.remaining_time(r, view.gpus_of(r)),
                    view.gpus_of(r),
                );
            }
            for &(j, _) in &out.changes {
                plan.reserve(now, now + run_time(view, j), view.spec(j).gpus);
            }
            let mut progress = false;
            for &j in candidates.iter().filter(|j| !started.contains(j)) {
                let g = view.spec(j).gpus;
                let d = run_time(view, j);
                let arrived = view.spec(j).arrival <= now;
                let fits = arrived && g as i64 + plan.peak(now, now + d) <= capacity;
                if fits && ledger.start(view, &mut packer, out, j, false) {
                    self.opportunistic.insert(j);
                    started.insert(j);
                    progress = true;
                    break;
                }
                let at = vst[j as usize].max(now);
                plan.reserve(at, at + d, g);
            }
            if !progress {
                break;
            }
        }
        // Wake at the next VST of a waiting job, so none misses its slot.
        let next = waiting
            .iter()
            .filter(|j| !started.contains(j))
            .map(|&j| vst[j as usize])
            .filter(|&v| v > now)
            .reduce(f64::min);
        if let Some(t) = next {
            out.wake_at(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_peaks_over_an_interval() {
        let mut p = Plan::default();
        p.reserve(0.0, 10.0, 4);
        p.reserve(5.0, 20.0, 2);
        p.reserve(10.0, 12.0, 8);
        assert_eq!(p.peak(0.0, 5.0), 4);
        assert_eq!(p.peak(0.0, 5.1), 6);
        assert_eq!(p.peak(10.0, 11.0), 10);
        assert_eq!(p.peak(12.0, 30.0), 2);
        assert_eq!(p.peak(20.0, 30.0), 0);
        assert_eq!(p.peak(3.0, 4.0), 4);
    }
}
