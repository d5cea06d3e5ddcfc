//! AFS-L (AFS, NSDI'21 §3.3, Algorithm 1; spec seed003 §2.3): the
//! job-length-aware variant. At every arrival and completion all GPUs are
//! handed out again, one at a time, to the TOPPRIORITY winner: first one
//! GPU to each job by increasing remaining time on one GPU (stage one; when
//! jobs outnumber GPUs this is all), then the rest by rule (3) with
//! "shorter" meaning shorter at the current tentative share (stage two),
//! never beyond a job's peak-throughput GPU count.

use super::super::{Policy, PolicyInfo, Trigger, ROUND_PARAM_EVENTS};
use super::share::{allocate_logged, mix, Entry, Knowledge, Log};
use super::{entries, explain, to_shares};
use crate::helpers::alloc::{pinned_jobs, place_with_retry};
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::rng::Sampler;
use schedlab_core::settings::Settings;
use schedlab_sim::{Decision, View};

schedlab_core::settings! {
    /// AFS-L's settings (`--set afs-l.KEY=VALUE`).
    pub struct AfsLSettings {
        tie_break: TieBreak = choice("random", "Equal lengths and the tournament's starting job: seeded random (the paper) or arrival order"),
        round_s: f64 = shared(ROUND_PARAM_EVENTS),
    }
}

const PARAMS: &[ParamSpec] = <AfsLSettings as Settings>::SPECS;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "afs-l",
    title: "AFS-L",
    source: schedlab_core::prose::doc("AFS (NSDI'21) §3.3 Algorithm 1; spec seed003 §2.3"),
    description: schedlab_core::prose::doc("Apathetic Future Share with known job lengths: one GPU to each job shortest-first, then each further GPU to the winner of rule (3), capped at the job's peak GPU count."),
    params: PARAMS,
    knowledge: crate::Knowledge::Oracle,
    build,
};

schedlab_core::choice! {
    /// `tie_break`: equal lengths and the tournament's starting job.
    pub enum TieBreak {
        /// Seeded random (the paper).
        Random = "random",
        /// Arrival order.
        Arrival = "arrival",
    }
}

fn build(p: &Params, seed: u64) -> Result<Box<dyn Policy>> {
    let s = AfsLSettings::from_params(p);
    Ok(Box::new(AfsL {
        random: match s.tie_break {
            TieBreak::Random => true,
            TieBreak::Arrival => false,
        },
        round_s: s.round_s,
        rng: Sampler::derive(seed, "afs-l"),
    }))
}

#[derive(Clone)]
struct AfsL {
    random: bool,
    round_s: f64,
    rng: Sampler,
}

impl Policy for AfsL {
    fn name(&self) -> &str {
        "afs-l"
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(self.round_s)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let seed = self.rng.next_u64();
        let random = self.random;
        let (pinned, free) = pinned_jobs(view);
        let jobs: Vec<u32> = view
            .active()
            .iter()
            .copied()
            .filter(|j| !pinned.contains(j))
            .collect();
        // Reasons: the last attempt's entries and grants.
        let mut explained: Option<(Vec<Entry>, Log)> = None;
        place_with_retry(view, out, &pinned, |excluded| {
            let live: Vec<u32> = jobs
                .iter()
                .copied()
                .filter(|j| !excluded.contains(j))
                .collect();
            let mut e = entries(view, &live, true, |j| {
                if random {
                    mix(seed ^ j as u64)
                } else {
                    j as u64
                }
            });
            let rates: Vec<_> = live.iter().map(|&j| view.rate_fn(j)).collect();
            let mut log = view.want_reasons().then(Log::default);
            allocate_logged(
                &mut e,
                free,
                Knowledge::Length,
                seed,
                &mut |i, k| rates[i].at(view, k),
                log.as_mut(),
            );
            let shares = to_shares(&e);
            if let Some(log) = log {
                explained = Some((e, log));
            }
            shares
        });
        if let Some((e, log)) = explained {
            explain::explain(out, explain::Variant::L, &e, &log);
        }
    }
}
