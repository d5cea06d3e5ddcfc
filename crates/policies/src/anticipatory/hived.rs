//! HiveD\* (spec seed000 §3): HiveD's guaranteed and opportunistic jobs
//! with run-to-completion instead of preemption. With fungible GPUs cells
//! degenerate to single GPUs (the paper's Figs 13-14); under
//! `engine.placement=cells` (Fig 16) guaranteed jobs stay in their pool's
//! home cells and opportunistic jobs take any free cell by best fit.
//!
//! Guaranteed stage: strict per-pool FCFS within quota (pools in increasing
//! current allocation / quota). Opportunistic stage: the waiting jobs of
//! every pool in global arrival order, each started if it fits the idle
//! GPUs that no pool's guaranteed jobs could claim now, i.e. idle minus,
//! per pool with waiting jobs, min(its waiting GPUs, its unused quota). It
//! looks at no prediction and no duration: an opportunistic job holds its
//! GPUs to completion, so a donor's later arrivals can wait for them.

use super::{forget_finished, start_heads, Ledger};
use crate::{Knowledge, Policy, PolicyInfo, Trigger};
use schedlab_sim::{Decision, View};
use std::collections::BTreeSet;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "hived-rtc",
    title: "HiveD* (run to completion)",
    source: schedlab_core::prose::doc("Anticipatory resource allocation, baseline HiveD* (HiveD, OSDI'20, without preemption); spec seed000 §3"),
    description: schedlab_core::prose::doc("HiveD-like: per-pool FCFS within quota (guaranteed), then waiting jobs of any pool in arrival order on idle GPUs no pool's waiting guaranteed jobs could use (opportunistic); never preempts; under engine.placement=cells guaranteed jobs stay in their pool's home cells."),
    params: &[],
    knowledge: Knowledge::Declared,
    build: |_, _| {
        Ok(Box::new(HivedRtc {
            opportunistic: BTreeSet::new(),
        }))
    },
};

#[derive(Clone)]
struct HivedRtc {
    opportunistic: BTreeSet<u32>,
}

impl Policy for HivedRtc {
    fn name(&self) -> &str {
        "hived-rtc"
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(0.0)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        forget_finished(view, &mut self.opportunistic);
        let mut ledger = Ledger::new(view, &self.opportunistic);
        let mut packer = view.packer_idle();
        start_heads(view, &mut ledger, &mut packer, out, true);
        let waiting: BTreeSet<u32> = ledger.pending.iter().flatten().copied().collect();
        // What the pools' waiting guaranteed jobs could claim; it changes
        // only when a job starts.
        let guarded = |l: &Ledger| -> u64 {
            (0..l.pools())
                .map(|q| l.pending_load(view, q).min(l.unused_quota(q)) as u64)
                .sum()
        };
        let mut held = guarded(&ledger);
        for j in waiting {
            let g = view.spec(j).gpus as u64;
            if g + held > packer.free_total() as u64 {
                continue;
            }
            if ledger.start(view, &mut packer, out, j, false) {
                self.opportunistic.insert(j);
                held = guarded(&ledger);
            }
        }
    }
}
