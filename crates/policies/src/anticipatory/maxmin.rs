//! MaxMin (MMFS, "naive sharing"; spec seed000 §3): instantaneous max-min
//! fairness between the pools with waiting jobs, weighted by quota. Pools
//! are visited in increasing current allocation / quota; each starts its
//! FCFS head-of-line job if it fits the idle GPUs (skipped otherwise), and
//! the visit repeats until no head fits. No reservations, no duration
//! knowledge, non-preemptive: a donor pool's later jobs wait for lent GPUs
//! to drain (the paper's Fig 1).

use super::{start_heads, Ledger, ISOLATE_PARAM};
use crate::{Knowledge, Policy, PolicyInfo, Trigger};
use schedlab_core::settings::Settings;
use schedlab_sim::{Decision, View};
use std::collections::BTreeSet;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "pool-maxmin",
    title: "MaxMin pool sharing",
    source: schedlab_core::prose::doc("Anticipatory resource allocation, baseline MaxMin / MMFS; spec seed000 §3"),
    description: schedlab_core::prose::doc("Idle GPUs shared max-min fairly (weighted by quota) among pools with waiting jobs, FCFS within a pool; non-preemptive, no predictions."),
    params: <PoolMaxMinSettings as Settings>::SPECS,
    knowledge: Knowledge::Declared,
    build: |p, _| {
        Ok(Box::new(PoolMaxMin {
            isolate: PoolMaxMinSettings::from_params(p).isolate,
        }))
    },
};

schedlab_core::settings! {
    /// MaxMin pool sharing's settings (`--set pool-maxmin.KEY=VALUE`).
    pub struct PoolMaxMinSettings {
        isolate: Vec<f64> = shared(ISOLATE_PARAM),
    }
}

#[derive(Clone)]
struct PoolMaxMin {
    /// Pools that neither lend nor borrow.
    isolate: Vec<f64>,
}

impl Policy for PoolMaxMin {
    fn name(&self) -> &str {
        "pool-maxmin"
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(0.0)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let mut ledger = Ledger::new(view, &BTreeSet::new());
        ledger.isolate(&self.isolate);
        let mut packer = view.packer_idle();
        start_heads(view, &mut ledger, &mut packer, out, false);
    }
}
