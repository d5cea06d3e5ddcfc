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
//! at least every `lease_s`. Ties go to the earlier arrival. This differs
//! from `themis` (the AFS paper's reading, with leases held per GPU and
//! the fairness knob).

use super::alloc::{first_grant, is_rigid, place_with_retry, share_cap, Share};
use super::{Policy, PolicyInfo, Trigger};
use crate::error::Result;
use crate::params::{ParamSpec, Params};
use crate::sim::{Decision, View};
use std::collections::BTreeMap;

const PARAMS: &[ParamSpec] = &[ParamSpec::float(
    "lease_s",
    "600",
    1e-3,
    1e9,
    "Lease: allocations are recomputed this long after the last event at the latest (PCS: 600 s; 10 for the minute-based gavel workload; 1 in the Fig. 1 toy)",
)];

pub const INFO: PolicyInfo = PolicyInfo {
    name: "themis-pcs",
    title: "Themis (PCS)",
    source: crate::prose::doc("PCS (OSDI'24) §5 baseline Themis (simplified: no auction); spec seed001 §3.4"),
    description: crate::prose::doc("Greedy finish-time fairness: the job with the largest rho = T_shared / T_ideal takes min(GPUs left, its demand), then the next; recomputed at every event and lease."),
    params: PARAMS,
    knowledge: crate::policy::Knowledge::Declared,
    build,
};

fn build(p: &Params, _seed: u64) -> Result<Box<dyn Policy>> {
    Ok(Box::new(ThemisPcs {
        lease: p.f64("lease_s"),
        contention: BTreeMap::new(),
        last_call: f64::NAN,
    }))
}

#[derive(Clone)]
struct ThemisPcs {
    lease: f64,
    /// Per active job: (sum of active-job counts, number of events).
    contention: BTreeMap<u32, (f64, f64)>,
    last_call: f64,
}

impl ThemisPcs {
    /// Counts this call's events into every job's n̄ (see the module doc).
    fn count_events(&mut self, view: &View) {
        // A job can leave without completing only when a forecast takes
        // back a simultaneous arrival; it is simply forgotten.
        let completed: Vec<u32> = view.completed.to_vec();
        self.contention
            .retain(|j, _| view.active.contains(j) || completed.contains(j));
        let repeat = view.now == self.last_call && view.arrived.is_empty() && completed.is_empty();
        self.last_call = view.now;
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
        for &j in view.arrived {
            if !view.active.contains(&j) {
                continue;
            }
            event(&mut self.contention, n);
            n += 1.0;
            self.contention.insert(j, (n, 1.0));
        }
        if view.arrived.is_empty() && completed.is_empty() {
            event(&mut self.contention, n);
        }
    }

    /// What ρ needs of a job, computed once per call: (elapsed, remaining
    /// 1-GPU time, ideal time's numerator per fair share). None: no rate.
    fn terms(&self, view: &View, job: u32, demand: u32) -> Option<Terms> {
        let one = view.est_rate(job, 1);
        if one <= 0.0 {
            return None;
        }
        let (sum, n) = self.contention.get(&job).copied().unwrap_or((1.0, 1.0));
        let n_bar = (sum / n).max(1e-9);
        let fair = (view.cluster.total_gpus as f64 / n_bar).min(demand as f64);
        Some(Terms {
            elapsed: view.now - view.spec(job).arrival,
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

impl Policy for ThemisPcs {
    fn name(&self) -> &str {
        "themis-pcs"
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(0.0)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        self.count_events(view);
        let (pinned, free) = super::alloc::pinned(view);
        let this = &*self;
        place_with_retry(view, out, &pinned, |excluded| {
            let mut left = free;
            let mut open: Vec<(u32, u32, Option<Terms>)> = view
                .active
                .iter()
                .copied()
                .filter(|j| !pinned.contains(j) && !excluded.contains(j))
                .map(|j| {
                    let demand = share_cap(view, j).max(1);
                    (j, demand, this.terms(view, j, demand))
                })
                .collect();
            let mut shares = Vec::new();
            while left > 0 && !open.is_empty() {
                let mut best = (f64::NEG_INFINITY, 0usize, 0u32);
                for (i, &(_, demand, terms)) in open.iter().enumerate() {
                    let x = left.min(demand);
                    let r = Terms::rho(terms, x);
                    if r > best.0 {
                        best = (r, i, x);
                    }
                }
                let (j, demand, _) = open.remove(best.1);
                let rigid = is_rigid(view, j);
                let x = if rigid && best.2 < demand { 0 } else { best.2 };
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
            shares
        });
        out.wake_at(view.now + self.lease);
    }

    fn clone_box(&self) -> Box<dyn Policy> {
        Box::new(self.clone())
    }
}
