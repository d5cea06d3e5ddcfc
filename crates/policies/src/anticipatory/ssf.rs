//! Shortest-service-first baselines of the anticipatory paper (spec
//! seed000 §3), non-preemptive, with accurate run times: service = GPUs x
//! run time, ties by arrival; greedy (a job that does not fit is skipped).
//! - `pool-ssf`: within each pool's quota, no sharing (the paper's SSF,
//!   its stand-in for per-queue SJF);
//! - `gssf`: the whole cluster as one pool (global SSF, sharing).

use super::{run_time, Ledger};
use crate::{Knowledge, Policy, PolicyInfo, Trigger};
use schedlab_sim::{Decision, View};
use std::collections::BTreeSet;

pub const POOL_INFO: PolicyInfo = PolicyInfo {
    name: "pool-ssf",
    title: "Per-pool SSF",
    source: schedlab_core::prose::doc("Anticipatory resource allocation, baseline SSF; spec seed000 §3"),
    description: schedlab_core::prose::doc("Within each pool's quota, waiting jobs start in increasing service (GPUs x true run time), skipping those that do not fit; no sharing, non-preemptive."),
    params: &[],
    knowledge: Knowledge::Oracle,
    build: |_, _| Ok(Box::new(Ssf { global: false })),
};

pub const GLOBAL_INFO: PolicyInfo = PolicyInfo {
    name: "gssf",
    title: "Global SSF",
    source: schedlab_core::prose::doc("Anticipatory resource allocation, baseline gSSF; spec seed000 §3"),
    description: schedlab_core::prose::doc("All GPUs as one pool: waiting jobs of every pool start in increasing service (GPUs x true run time), skipping those that do not fit; non-preemptive."),
    params: &[],
    knowledge: Knowledge::Oracle,
    build: |_, _| Ok(Box::new(Ssf { global: true })),
};

#[derive(Clone)]
struct Ssf {
    global: bool,
}

impl Policy for Ssf {
    fn name(&self) -> &str {
        if self.global {
            "gssf"
        } else {
            "pool-ssf"
        }
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(0.0)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let mut ledger = Ledger::new(view, &BTreeSet::new());
        let mut packer = view.packer_idle();
        let mut order: Vec<(f64, u32)> = view
            .waiting()
            .iter()
            .map(|&j| (view.spec(j).gpus as f64 * run_time(view, j), j))
            .collect();
        schedlab_core::sorting::sort_by(&mut order, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for (_, j) in order {
            let g = view.spec(j).gpus;
            let q = super::ledger_pool(view, j);
            if g > packer.free_total() || (!self.global && g > ledger.unused_quota(q)) {
                continue;
            }
            // gSSF ignores quotas: its jobs go anywhere, not in home cells.
            ledger.start(view, &mut packer, out, j, !self.global);
        }
    }
}
