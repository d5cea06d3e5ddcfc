//! SRTF and SRSF (AFS spec seed003 §3.1, §3.2): preemptive, non-elastic,
//! length-aware. Each event, jobs are ranked by remaining time at their
//! requested GPU count (SRTF) or by remaining time x requested GPUs (SRSF,
//! "remaining service"); walking the ranking, each job gets its request if
//! it can be placed and is skipped otherwise; running jobs left out are
//! preempted. Ties go to the earlier arrival. With `request=peak` each job
//! asks for its peak-throughput GPU count instead (the max-GPU variants of
//! AFS §5.2 / Fig 6, spec §3.8).

use super::{
    gang_request, Policy, PolicyInfo, Request, Trigger, REQUEST_PARAM, ROUND_PARAM_EVENTS,
};
use crate::helpers::common::gang_plan_turns;
use crate::helpers::explain::{explain_turns, Turn};
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::settings::Settings;
use schedlab_sim::{field, Decision, Field, Rule, Unit, View};

schedlab_core::settings! {
    /// SRTF's and SRSF's settings (`--set srtf.KEY=VALUE`, `--set srsf.KEY=VALUE`).
    pub struct SrtfSettings {
        request: Request = shared(REQUEST_PARAM),
        round_s: f64 = shared(ROUND_PARAM_EVENTS),
    }
}

const PARAMS: &[ParamSpec] = <SrtfSettings as Settings>::SPECS;

pub const SRTF_INFO: PolicyInfo = PolicyInfo {
    name: "srtf",
    title: "SRTF",
    source: schedlab_core::prose::doc("AFS (NSDI'21) §5.1 baseline; spec seed003 §3.1"),
    description: schedlab_core::prose::doc("Shortest remaining time first at the requested GPU count; preemptive, gang-scheduled, skips jobs that do not fit."),
    params: PARAMS,
    knowledge: crate::Knowledge::Oracle,
    build: build_srtf,
};

pub const SRSF_INFO: PolicyInfo = PolicyInfo {
    name: "srsf",
    title: "SRSF",
    source: schedlab_core::prose::doc("AFS (NSDI'21) §5.1 baseline; Tiresias' length-aware SRSF; spec seed003 §3.2"),
    description: schedlab_core::prose::doc("Shortest remaining service (remaining time x requested GPUs) first; preemptive, gang-scheduled."),
    params: PARAMS,
    knowledge: crate::Knowledge::Oracle,
    build: build_srsf,
};

fn build_srtf(p: &Params, _seed: u64) -> Result<Box<dyn Policy>> {
    Ok(Box::new(Srtf::new(&SrtfSettings::from_params(p), false)))
}

fn build_srsf(p: &Params, _seed: u64) -> Result<Box<dyn Policy>> {
    Ok(Box::new(Srtf::new(&SrtfSettings::from_params(p), true)))
}

impl Srtf {
    fn new(s: &SrtfSettings, by_service: bool) -> Srtf {
        Srtf {
            by_service,
            peak: s.request.peak(),
            round_s: s.round_s,
            reasons: ReasonBuffers::default(),
        }
    }
}

#[derive(Clone)]
struct Srtf {
    by_service: bool,
    /// Max-GPU variant: jobs get their peak-throughput GPU count.
    peak: bool,
    round_s: f64,
    /// Kept from call to call for the reasons (nothing else reads them).
    reasons: ReasonBuffers,
}

/// The walk's turns and keys, reused by every call that gives reasons: no
/// allocation or growth per call (growing them moved other buffers of the
/// walk in the heap, whose copies cost more than the reasons themselves).
/// A copy of the policy (a fork, which gives no reasons) starts empty.
#[derive(Default)]
struct ReasonBuffers {
    turns: Vec<Turn>,
    keys: Vec<(u32, f64)>,
}

impl Clone for ReasonBuffers {
    fn clone(&self) -> ReasonBuffers {
        ReasonBuffers::default()
    }
}

impl Policy for Srtf {
    fn name(&self) -> &str {
        if self.by_service {
            "srsf"
        } else {
            "srtf"
        }
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(self.round_s)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let mut ranked: Vec<(f64, u32)> = view
            .active()
            .iter()
            .map(|&j| {
                let req = gang_request(view, j, self.peak);
                let t = view.known_remaining_time(j, req);
                (if self.by_service { t * req as f64 } else { t }, j)
            })
            .collect();
        schedlab_core::sorting::sort_by(&mut ranked, |a, b| {
            a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
        });
        let want_reasons = view.want_reasons();
        if want_reasons {
            let keys = &mut self.reasons.keys;
            keys.clear();
            keys.extend(ranked.iter().map(|(k, j)| (*j, *k)));
        }
        let order: Vec<u32> = ranked.into_iter().map(|(_, j)| j).collect();
        let peak = self.peak;
        let mut turns = want_reasons.then(|| {
            let mut turns = std::mem::take(&mut self.reasons.turns);
            turns.clear();
            turns
        });
        let (plan, _) = gang_plan_turns(
            view,
            &order,
            true,
            &|j| gang_request(view, j, peak),
            turns.as_mut(),
        );
        out.apply_plan(view, plan);
        if let Some(turns) = turns {
            explain(out, &turns, &self.reasons.keys, self.by_service);
            self.reasons.turns = turns;
        }
    }
}

/// Each walked job's key, read from the (job, key) pairs in the order the
/// walk went through them: the turns are that order with the pinned jobs
/// left out, so one pass finds every key (no map, no sort by job).
struct KeysInWalkOrder<'a> {
    keys: &'a [(u32, f64)],
    at: std::cell::Cell<usize>,
}

impl KeysInWalkOrder<'_> {
    /// The key of the next turn's `job` (every walked job has one).
    fn key_of(&self, job: u32) -> f64 {
        let from = self.at.get();
        match self.keys[from..].iter().position(|(j, _)| *j == job) {
            Some(k) => {
                self.at.set(from + k + 1);
                self.keys[from + k].1
            }
            None => panic!("job {job} walked without a key"),
        }
    }
}

/// Reasons of a walk by remaining time (or service): each job's key and
/// turn; `keys` are (job, key) in the walk's order.
pub(crate) fn explain(out: &mut Decision, turns: &[Turn], keys: &[(u32, f64)], by_service: bool) {
    let keys = KeysInWalkOrder {
        keys,
        at: std::cell::Cell::new(0),
    };
    let (need, free) = (|t: &Turn| t.need as f64, |t: &Turn| t.free as f64);
    if by_service {
        // SRSF's key is the service (remaining time x GPUs), shown before
        // the remaining time it comes from.
        explain_turns(
            out,
            turns,
            |t| if t.placed { &SRSF_RUNS } else { &SRSF_WAITS },
            |place, t| {
                let key = keys.key_of(t.job);
                let remaining = key / t.need.max(1) as f64;
                [place as f64, key, remaining, need(t), free(t)]
            },
        );
    } else {
        explain_turns(
            out,
            turns,
            |t| if t.placed { &SRTF_RUNS } else { &SRTF_WAITS },
            |place, t| [place as f64, keys.key_of(t.job), need(t), free(t)],
        );
    }
}

const SRTF_FIELDS: &[Field] = &[
    field("place", Unit::Count),
    field("remaining", Unit::Seconds),
    field("need", Unit::Gpus),
    field("free", Unit::Gpus),
];

const SRSF_FIELDS: &[Field] = &[
    field("place", Unit::Count),
    field("service", Unit::GpuSeconds),
    field("remaining", Unit::Seconds),
    field("need", Unit::Gpus),
    field("free", Unit::Gpus),
];

/// SRTF: runs, in order of remaining time at its request.
pub static SRTF_RUNS: Rule = Rule {
    id: "srtf.runs",
    words: "runs: #{place} by remaining time, {remaining} at its {need} GPUs, placed ({free} unclaimed at its turn)",
    fields: SRTF_FIELDS,
    key: Some("remaining"),
};

/// SRTF: waits, the shorter jobs ahead took the GPUs it needs.
pub static SRTF_WAITS: Rule = Rule {
    id: "srtf.waits",
    words: "waits: #{place} by remaining time, {remaining} at its {need} GPUs, which do not fit ({free} unclaimed at its turn)",
    fields: SRTF_FIELDS,
    key: Some("remaining"),
};

/// SRSF: runs, in order of remaining service (time x GPUs).
pub static SRSF_RUNS: Rule = Rule {
    id: "srsf.runs",
    words: "runs: #{place} by remaining service {service} ({remaining} x {need} GPUs), placed ({free} unclaimed at its turn)",
    fields: SRSF_FIELDS,
    key: Some("service"),
};

/// SRSF: waits.
pub static SRSF_WAITS: Rule = Rule {
    id: "srsf.waits",
    words: "waits: #{place} by remaining service {service} ({remaining} x {need} GPUs), which do not fit ({free} unclaimed at its turn)",
    fields: SRSF_FIELDS,
    key: Some("service"),
};

#[cfg(test)]
mod tests {
    use super::KeysInWalkOrder;

    fn walk(keys: &[(u32, f64)]) -> KeysInWalkOrder<'_> {
        KeysInWalkOrder {
            keys,
            at: std::cell::Cell::new(0),
        }
    }

    #[test]
    fn keys_follow_the_walk_skipping_pinned_jobs() {
        let order = [(7, 1.0), (2, 5.0), (4, 3.0), (0, 9.0)];
        let keys = walk(&order);
        // Job 2 was pinned: the walk went on without a turn for it.
        assert_eq!(keys.key_of(7), 1.0);
        assert_eq!(keys.key_of(4), 3.0);
        assert_eq!(keys.key_of(0), 9.0);
    }

    #[test]
    #[should_panic(expected = "job 2 walked without a key")]
    fn a_turn_out_of_the_walk_order_is_a_bug() {
        let order = [(2, 5.0), (7, 1.0)];
        let keys = walk(&order);
        keys.key_of(7);
        keys.key_of(2);
    }
}
