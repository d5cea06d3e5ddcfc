//! Per-pool FCFS without sharing: each pool runs its own jobs in arrival
//! order within its quota and never lends idle GPUs (the anticipatory
//! scheduler's reference run; its paper's "FCFS, no sharing").

use super::{Policy, PolicyInfo, Trigger};
use crate::helpers::admission::admit_within_quota;
use schedlab_core::error::Result;
use schedlab_core::params::Params;
use schedlab_sim::{Decision, View};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "pool-fcfs",
    title: "Per-pool FCFS",
    source: schedlab_core::prose::doc("anticipatory pool sharing, spec 3 (FCFS, no sharing)"),
    description: schedlab_core::prose::doc("Each pool (tenant with a GPU quota, `--pools`) starts its jobs in arrival order within its quota, non-preemptively; idle quota is never lent. Without pools: plain FIFO."),
    params: &[],
    knowledge: crate::Knowledge::Declared,
    build,
};

fn build(_p: &Params, _seed: u64) -> Result<Box<dyn Policy>> {
    Ok(Box::new(PoolFcfs))
}

#[derive(Clone)]
struct PoolFcfs;

impl Policy for PoolFcfs {
    fn name(&self) -> &str {
        "pool-fcfs"
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(0.0)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let mut packer = view.packer_idle();
        admit_within_quota(view, &mut packer, out);
    }
}
