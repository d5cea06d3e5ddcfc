//! FIFO: first come, first served, non-preemptive gang scheduling of each
//! job's requested GPUs. Without backfilling the queue head blocks everyone
//! behind it; with backfilling, later jobs that fit may start (greedy
//! backfill, no reservation for the head).

use super::{claim_rigid, claim_shared, Policy, PolicyInfo, Trigger, ROUND_PARAM_EVENTS};
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::settings::Settings;
use schedlab_model::perf::BatchChoice;
use schedlab_sim::{Decision, View};

schedlab_core::settings! {
    /// FIFO's settings (`--set fifo.KEY=VALUE`).
    pub struct FifoSettings {
        backfill: bool = boolean("false", "Let later jobs start when the head of the queue does not fit"),
        share_gpus: bool = boolean("false", "Single-GPU jobs whose memory is known take the smallest fraction of a GPU (1/8, 1/4, 1/2) that holds it, packed onto GPUs other jobs already share"),
        round_s: f64 = shared(ROUND_PARAM_EVENTS),
    }
}

const PARAMS: &[ParamSpec] = <FifoSettings as Settings>::SPECS;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "fifo",
    title: "FIFO",
    source: schedlab_core::prose::doc(
        "classic baseline (first-come first-served, optional greedy backfilling)",
    ),
    description:
        "Starts jobs in arrival order with exactly their requested GPUs and never preempts.",
    params: PARAMS,
    knowledge: crate::Knowledge::Declared,
    build,
};

fn build(p: &Params, _seed: u64) -> Result<Box<dyn Policy>> {
    let s = FifoSettings::from_params(p);
    Ok(Box::new(Fifo {
        backfill: s.backfill,
        share_gpus: s.share_gpus,
        round_s: s.round_s,
    }))
}

#[derive(Clone)]
struct Fifo {
    backfill: bool,
    share_gpus: bool,
    round_s: f64,
}

impl Policy for Fifo {
    fn name(&self) -> &str {
        "fifo"
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(self.round_s)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let mut packer = view.packer_idle();
        for &j in view.waiting().iter() {
            let shared = if self.share_gpus {
                claim_shared(&mut packer, view, j)
            } else {
                None
            };
            if shared.is_none() && packer.free_total() == 0 {
                break;
            }
            match shared.or_else(|| claim_rigid(&mut packer, view, j)) {
                Some(p) => out.assign(j, p, Some(BatchChoice::Fixed(view.rigid_batch(j)))),
                None if self.backfill => continue,
                None => break,
            }
        }
    }
}
