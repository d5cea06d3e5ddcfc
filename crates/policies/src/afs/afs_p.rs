//! AFS-P (AFS, NSDI'21 §3.4; spec seed003 §2.4): the job-length-unaware
//! variant, and the machinery AFS-S shares with it.
//!
//! - **n ≤ M** (no more jobs than GPUs): Algorithm 1 with the modified
//!   TOPPRIORITY: rule (3) is evaluated with both jobs of a pair in the
//!   "shorter" role; the one it favours wins, and when neither ordering
//!   favours a job the winner is a seeded coin flip (or, with
//!   `tie_break=deterministic`, the larger gain g, then the earlier arrival).
//! - **n > M**: processor sharing. Each job's counter is the number of whole
//!   quanta it has held GPUs for (wall-clock time, not GPU-time). Jobs hold
//!   exactly one GPU; a running job keeps it until its current quantum ends
//!   (non-preemptive: arrivals do not evict it), then it is evicted and the
//!   free GPUs go to the jobs with the smallest counters (ties: arrival).
//!   A quantum expiry is a policy wake-up (the paper's "eviction timeout").
//!   When n first exceeds M, multi-GPU jobs shrink to one GPU and their
//!   current quantum continues (spec §7.4).
//!
//! The quantum is 2 h for full-scale traces (footnote 11) and scales with
//! the trace: `quantum_s x time_scale` (72 s at 1 %, 14.4 s at 0.2 %).

use super::super::{Policy, PolicyInfo, Trigger, ROUND_PARAM_EVENTS};
use super::explain;
use super::share::{allocate_logged, mix, Entry, Knowledge, Log};
use super::{entries, to_shares};
use crate::helpers::alloc::{
    claim_between, first_grant, pinned_jobs, place_with_retry, Plan, Share,
};
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::rng::Sampler;
use schedlab_core::settings::Settings;
use schedlab_sim::{Decision, View};

/// Parameters common to AFS-P and AFS-S.
pub(crate) const QUANTUM_S: ParamSpec = ParamSpec::float(
    "quantum_s",
    "7200",
    crate::SHORTEST_ROUND_S,
    1e9,
    "Processor-sharing quantum when jobs outnumber GPUs, at full trace scale (the paper's 2 h)",
);
pub(crate) const TIME_SCALE: ParamSpec = ParamSpec::float(
    "time_scale",
    "1",
    1e-6,
    1e6,
    "Time scale of the trace (0.01 for a 1 % trace): the quantum is quantum_s x time_scale",
);

schedlab_core::settings! {
    /// AFS-P's settings (`--set afs-p.KEY=VALUE`).
    pub struct AfsPSettings {
        quantum_s: f64 = shared(QUANTUM_S),
        time_scale: f64 = shared(TIME_SCALE),
        tie_break: PairTie = choice("random", "When rule (3) favours neither job of a pair: seeded coin flip (the paper) or larger gain g, then earlier arrival"),
        round_s: f64 = shared(ROUND_PARAM_EVENTS),
    }
}

const PARAMS: &[ParamSpec] = <AfsPSettings as Settings>::SPECS;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "afs-p",
    title: "AFS-P",
    source: schedlab_core::prose::doc("AFS (NSDI'21) §3.4; spec seed003 §2.4"),
    description: schedlab_core::prose::doc("Apathetic Future Share without job lengths: rule (3) tried both ways per pair (random when neither wins); processor sharing with a 2 h quantum when jobs outnumber GPUs."),
    params: PARAMS,
    knowledge: crate::Knowledge::Declared,
    build,
};

schedlab_core::choice! {
    /// `tie_break`: when rule (3) favours neither job of a pair.
    pub enum PairTie {
        /// A seeded coin flip (the paper).
        Random = "random",
        /// Larger gain g, then earlier arrival.
        Deterministic = "deterministic",
    }
}

fn build(p: &Params, seed: u64) -> Result<Box<dyn Policy>> {
    let s = AfsPSettings::from_params(p);
    Ok(Box::new(AfsP::new(
        s.quantum_s * s.time_scale,
        s.round_s,
        seed,
        Shares::Tournament {
            random: match s.tie_break {
                PairTie::Random => true,
                PairTie::Deterministic => false,
            },
        },
    )))
}

/// How AFS-P-like policies share when n ≤ M.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Shares {
    /// AFS-P: the modified TOPPRIORITY.
    Tournament { random: bool },
    /// AFS-S: max-min water-filling capped at the peak GPU count.
    MaxMin,
}

#[derive(Clone)]
pub(crate) struct AfsP {
    shares: Shares,
    /// Quantum in seconds (already scaled).
    unit: f64,
    round_s: f64,
    rng: Sampler,
    /// Held time (s) at which each job's current quantum ends; NaN when the
    /// job is not in a quantum (not running, or n ≤ M).
    q_end: Vec<f64>,
}

/// Slack for comparing held times with quantum boundaries.
const EPS: f64 = 1e-9;

impl AfsP {
    /// `unit`: the quantum in seconds, already scaled (`quantum_s x time_scale`).
    pub(crate) fn new(unit: f64, round_s: f64, seed: u64, shares: Shares) -> AfsP {
        AfsP {
            shares,
            unit,
            round_s,
            rng: Sampler::derive(seed, "afs-p"),
            q_end: Vec::new(),
        }
    }

    /// Number of whole quanta a job has held GPUs for.
    fn counter(&self, held: f64) -> f64 {
        (held / self.unit + EPS).floor()
    }

    /// Processor sharing for n > M: places the jobs that hold a GPU (jobs
    /// whose quantum runs keep theirs, then the smallest counters; a job that
    /// cannot be placed is skipped) and sets their quanta.
    fn time_share(&mut self, view: &View, pinned: &[u32], jobs: &[u32]) -> Plan {
        let mut packer = view.packer_replan();
        let mut plan = Vec::new();
        for &j in pinned {
            if let Some(p) = view.placement(j) {
                if packer.claim_exact(j, p) {
                    plan.push((j, p.clone(), None));
                }
            }
        }
        let mut rest = Vec::new();
        for &j in jobs {
            let held = view.executed_s(j);
            let min = first_grant(view, j);
            if view.is_running(j) {
                let q = &mut self.q_end[j as usize];
                if q.is_nan() {
                    // The quantum it is in continues (n just exceeded M).
                    *q = (held / self.unit - EPS).ceil().max(1.0) * self.unit;
                }
                if held < *q - EPS * self.unit {
                    if let Some(p) = claim_between(&mut packer, view, j, min, min) {
                        plan.push((j, p, None));
                        continue;
                    }
                    packer.release(j);
                }
            }
            rest.push((self.counter(held), j, min));
        }
        schedlab_core::sorting::sort_by(&mut rest, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for (c, j, min) in rest {
            let got = if packer.free_total() >= min {
                claim_between(&mut packer, view, j, min, min)
            } else {
                None
            };
            match got {
                Some(p) => {
                    self.q_end[j as usize] = (c + 1.0) * self.unit;
                    plan.push((j, p, None));
                }
                None => {
                    packer.release(j);
                    self.q_end[j as usize] = f64::NAN;
                }
            }
        }
        plan
    }
}

impl Policy for AfsP {
    fn name(&self) -> &str {
        match self.shares {
            Shares::Tournament { .. } => "afs-p",
            Shares::MaxMin => "afs-s",
        }
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(self.round_s)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        if self.q_end.len() < view.id_bound() {
            self.q_end.resize(view.id_bound(), f64::NAN);
        }
        let seed = self.rng.next_u64();
        let (pinned, free) = pinned_jobs(view);
        let jobs: Vec<u32> = view
            .active()
            .iter()
            .copied()
            .filter(|j| !pinned.contains(j))
            .collect();
        if jobs.len() > free as usize {
            let plan = self.time_share(view, &pinned, &jobs);
            // Wake at the first quantum end among the jobs that hold GPUs.
            let mut wake = f64::INFINITY;
            for &j in &pinned {
                self.q_end[j as usize] = f64::NAN;
            }
            for (j, _, _) in &plan {
                let q = self.q_end[*j as usize];
                if q.is_finite() {
                    wake = wake.min(view.now() + (q - view.executed_s(*j)).max(0.0));
                }
            }
            if view.want_reasons() {
                let holding: std::collections::BTreeSet<u32> =
                    plan.iter().map(|(x, _, _)| *x).collect();
                let shared: Vec<(u32, f64, f64, Option<f64>)> = jobs
                    .iter()
                    .map(|&j| {
                        let held = view.executed_s(j);
                        let holds = holding.contains(&j);
                        let end = self.q_end[j as usize];
                        (
                            j,
                            self.counter(held),
                            held,
                            (holds && end.is_finite()).then_some(end),
                        )
                    })
                    .collect();
                explain::explain_time_share(out, &shared, self.unit, free);
            }
            out.apply_plan(view, plan);
            if wake.is_finite() && self.round_s == 0.0 {
                out.wake_at(wake.max(view.now() + EPS * self.unit));
            }
            return;
        }
        for &j in &jobs {
            self.q_end[j as usize] = f64::NAN;
        }
        let mode = self.shares;
        // Reasons: the last attempt's entries and grants (tournament only).
        let mut explained: Option<(Vec<Entry>, Log)> = None;
        let mut maxmin_shares: Vec<(u32, u32, u32)> = Vec::new();
        place_with_retry(view, out, &pinned, |excluded| {
            let live: Vec<u32> = jobs
                .iter()
                .copied()
                .filter(|j| !excluded.contains(j))
                .collect();
            match mode {
                Shares::Tournament { random } => {
                    let mut e = entries(view, &live, false, |j| {
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
                        Knowledge::NoLength { random },
                        seed,
                        &mut |i, k| rates[i].at(view, k),
                        log.as_mut(),
                    );
                    let shares = to_shares(&e);
                    if let Some(log) = log {
                        explained = Some((e, log));
                    }
                    shares
                }
                Shares::MaxMin => {
                    let caps: Vec<u32> = live
                        .iter()
                        .map(|&j| crate::helpers::alloc::share_cap(view, j))
                        .collect();
                    let rigid: Vec<bool> = live
                        .iter()
                        .map(|&j| crate::helpers::alloc::is_rigid(view, j))
                        .collect();
                    let shares = super::super::maxmin::water_fill(&caps, &rigid, free);
                    if view.want_reasons() {
                        maxmin_shares = live
                            .iter()
                            .zip(&shares)
                            .zip(&caps)
                            .map(|((&j, &s), &c)| (j, s, c))
                            .collect();
                    }
                    live.iter()
                        .zip(shares)
                        .zip(caps)
                        .zip(rigid)
                        .filter(|(((_, s), _), _)| *s > 0)
                        .map(|(((&j, s), cap), r)| Share {
                            job: j,
                            count: s,
                            min: if r { s } else { 1 },
                            cap,
                        })
                        .collect()
                }
            }
        });
        if let Some((e, log)) = explained {
            explain::explain(out, explain::Variant::P, &e, &log);
        }
        if !maxmin_shares.is_empty() {
            explain::explain_max_min(out, &maxmin_shares, free);
        }
    }
}
