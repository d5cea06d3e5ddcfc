//! Themis\* (spec seed000 §3): Themis's finish-time fairness between pools
//! with run-to-completion and accurate run times, without its auction (the
//! paper gives no fraction f; this reading sets it to 1: every GPU goes by
//! fairness).
//!
//! A pool's finish-time fairness estimate rho is the mean, over its waiting
//! jobs, of (time waited + run time) / run time: what their JCT over their
//! run time would be if they started now. Whenever GPUs are free, the pool
//! with the largest rho (the worst treated) starts the waiting job that
//! raises its rho the most when served, the one with the largest (time
//! waited + run time) / run time, among those that fit the idle GPUs;
//! pools whose jobs do not fit are skipped; the visit repeats. No quotas
//! bind (sharing), nothing is preempted.

use super::{run_time, Ledger};
use crate::{Knowledge, Policy, PolicyInfo, Trigger};
use schedlab_sim::{Decision, View};
use std::collections::BTreeSet;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "themis-rtc",
    title: "Themis* (run to completion)",
    source: schedlab_core::prose::doc("Anticipatory resource allocation, baseline Themis* (Themis, NSDI'20, run to completion, accurate durations); spec seed000 §3"),
    description: schedlab_core::prose::doc("Themis-like: free GPUs go to the pool with the worst finish-time fairness estimate (its waiting jobs' (wait + run) / run), which starts its most-delayed job that fits; no quotas bind, never preempts; uses true run times."),
    params: &[],
    knowledge: Knowledge::Oracle,
    build: |_, _| Ok(Box::new(ThemisRtc)),
};

#[derive(Clone)]
struct ThemisRtc;

/// (time waited + run time) / run time of a waiting job.
fn stretch(view: &View, job: u32) -> f64 {
    let d = run_time(view, job).max(1e-9);
    (view.now() - view.spec(job).arrival + d) / d
}

impl Policy for ThemisRtc {
    fn name(&self) -> &str {
        "themis-rtc"
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(0.0)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let mut ledger = Ledger::new(view, &BTreeSet::new());
        let mut packer = view.packer_idle();
        loop {
            let free = packer.free_total();
            let mut pools: Vec<(f64, usize)> = (0..ledger.pools())
                .filter(|&q| !ledger.pending[q].is_empty())
                .map(|q| {
                    let p = &ledger.pending[q];
                    (
                        p.iter().map(|&j| stretch(view, j)).sum::<f64>() / p.len() as f64,
                        q,
                    )
                })
                .collect();
            schedlab_core::sorting::sort_by(&mut pools, |a, b| {
                b.0.total_cmp(&a.0).then(a.1.cmp(&b.1))
            });
            let pick = pools.iter().find_map(|&(_, q)| {
                ledger.pending[q]
                    .iter()
                    .copied()
                    .filter(|&j| view.spec(j).gpus <= free)
                    .max_by(|&a, &b| {
                        stretch(view, a)
                            .total_cmp(&stretch(view, b))
                            .then(b.cmp(&a))
                    })
            });
            match pick {
                Some(j) if ledger.start(view, &mut packer, out, j, false) => {}
                _ => return,
            }
        }
    }
}
