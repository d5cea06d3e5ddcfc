//! FIFO: first come, first served, non-preemptive gang scheduling of each
//! job's requested GPUs. Without backfilling the queue head blocks everyone
//! behind it; with backfilling, later jobs that fit may start (greedy
//! backfill, no reservation for the head).

use super::{claim_rigid, claim_shared, Policy, PolicyInfo, Trigger, ROUND_PARAM_EVENTS};
use crate::helpers::explain::{explain_turns, turns_if_wanted, Turn};
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::settings::Settings;
use schedlab_model::perf::BatchChoice;
use schedlab_sim::{field, Decision, Field, Rule, Unit, View};

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
        // Reasons: each walked job's turn (FIFO looks at no job past the blocker).
        let mut turns = turns_if_wanted(view);
        for &j in view.waiting().iter() {
            let free = turns.as_ref().map_or(0, |_| packer.free_total());
            let mut turn = |placed: bool| {
                if let Some(t) = turns.as_mut() {
                    let need = view.spec(j).gpus;
                    t.push(Turn {
                        job: j,
                        need,
                        free,
                        placed,
                    });
                }
            };
            let shared = if self.share_gpus {
                claim_shared(&mut packer, view, j)
            } else {
                None
            };
            if shared.is_none() && packer.free_total() == 0 {
                turn(false);
                break;
            }
            match shared.or_else(|| claim_rigid(&mut packer, view, j)) {
                Some(p) => {
                    turn(true);
                    out.assign(j, p, Some(BatchChoice::Fixed(view.rigid_batch(j))))
                }
                None if self.backfill => {
                    turn(false);
                    continue;
                }
                None => {
                    turn(false);
                    break;
                }
            }
        }
        if let Some(turns) = turns {
            let blocked = if self.backfill { &SKIPPED } else { &BLOCKED };
            explain_turns(
                out,
                &turns,
                |t| if t.placed { &STARTS } else { blocked },
                |place, t| [place as f64, t.need as f64, t.free as f64],
            );
        }
    }
}

const FIELDS: &[Field] = &[
    field("place", Unit::Count),
    field("need", Unit::Gpus),
    field("free", Unit::Gpus),
];

/// Starts: its turn in arrival order came and its GPUs are idle.
pub static STARTS: Rule = Rule {
    id: "fifo.starts",
    words: "starts: #{place} in arrival order among the waiting jobs; needs {need} GPUs, placed ({free} idle)",
    fields: FIELDS,
    key: Some("place"),
};

/// Waits at the head of the queue; nobody behind it starts.
pub static BLOCKED: Rule = Rule {
    id: "fifo.blocked",
    words: "waits: #{place} in arrival order; needs {need} GPUs, which do not fit ({free} idle); without backfilling FIFO starts nobody behind it",
    fields: FIELDS,
    key: Some("place"),
};

/// Waits, skipped by backfilling.
pub static SKIPPED: Rule = Rule {
    id: "fifo.skipped",
    words: "waits: #{place} in arrival order; needs {need} GPUs, which do not fit ({free} idle); backfilling lets later jobs that fit start",
    fields: FIELDS,
    key: Some("place"),
};
