//! Tiresias discretized 2D-LAS (Tiresias, NSDI'19; the "Tiresias-L"
//! baseline of AFS, spec seed003 §3.3; defaults of the public Tiresias
//! simulator's `dlas-gpu`).
//!
//! Jobs sit in priority queues keyed on attained service (GPU-seconds
//! held). A job enters Q0 and is demoted to Qk once its attained service
//! reaches threshold k; a wake-up is scheduled for the moment a running job
//! crosses its next threshold. Queues are served in order, FIFO inside a
//! queue; jobs left pending move to the tail of their queue (the reference
//! simulator's behaviour, so running jobs keep their place). Each job gets
//! its requested GPUs or nothing; jobs that do not fit are skipped. The
//! optional starvation knob promotes a job back to Q0 once it has waited
//! `promote_knob` times its executed time. With `request=peak` each job asks
//! for its peak-throughput GPU count (AFS §5.2's max-GPU variant).
//!
//! The Pollux simulator's configuration (2 queues, 16 GPU-hours, 60 s
//! rounds, no pending rotation) is `queues=2, t1=57600, round_s=60,
//! pending_to_tail=false`.

use super::{
    gang_request, Policy, PolicyInfo, Request, Trigger, REQUEST_PARAM, ROUND_PARAM_EVENTS,
};
use crate::helpers::common::gang_plan_turns;
use crate::helpers::explain::{explain_turns, turns_if_wanted, Turn};
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::settings::Settings;
use schedlab_sim::{field, Decision, Field, Rule, Unit, Val, View};

schedlab_core::settings! {
    /// Tiresias's settings (`--set tiresias.KEY=VALUE`).
    pub struct TiresiasSettings {
        queues: usize = int("3", 1, 4, "Number of priority queues"),
        t1: f64 = float("3250", 1.0, 1e12, "Attained GPU-seconds that demote a job from Q0 to Q1"),
        t2: f64 = float("7200", 1.0, 1e12, "Attained GPU-seconds that demote a job from Q1 to Q2"),
        t3: f64 = float("18000", 1.0, 1e12, "Attained GPU-seconds that demote a job from Q2 to Q3"),
        promote_knob: f64 = float("0", 0.0, 1e6, "Promote a pending job to Q0 when its wait reaches this multiple of its executed time (0 = off, as in dlas-gpu)"),
        pending_to_tail: bool = boolean("true", "Move jobs that stay pending to the tail of their queue after each call"),
        request: Request = shared(REQUEST_PARAM),
        round_s: f64 = shared(ROUND_PARAM_EVENTS),
    }
}

const PARAMS: &[ParamSpec] = <TiresiasSettings as Settings>::SPECS;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "tiresias",
    title: "Tiresias (2D-LAS)",
    source: schedlab_core::prose::doc("Tiresias (NSDI'19) discretized 2D-LAS; AFS (NSDI'21) baseline Tiresias-L, spec seed003 §3.3"),
    description: schedlab_core::prose::doc("Multi-level queues on attained GPU service; length-unaware, preemptive, gang-scheduled."),
    params: PARAMS,
    knowledge: crate::Knowledge::Declared,
    build,
};

fn build(p: &Params, _seed: u64) -> Result<Box<dyn Policy>> {
    let s = TiresiasSettings::from_params(p);
    let mut thresholds = vec![s.t1, s.t2, s.t3];
    thresholds.truncate(s.queues - 1);
    if thresholds.windows(2).any(|w| w[1] <= w[0]) {
        return Err(schedlab_core::Error::config(
            "tiresias: thresholds t1 < t2 < t3 must increase",
        ));
    }
    Ok(Box::new(Tiresias {
        thresholds,
        knob: s.promote_knob,
        pending_to_tail: s.pending_to_tail,
        peak: s.request.peak(),
        round_s: s.round_s,
        jobs: Vec::new(),
        seq: 0,
    }))
}

/// Per-job queue bookkeeping.
#[derive(Clone, Default)]
struct QueueState {
    seen: bool,
    level: usize,
    /// Position inside the queue: (time, sequence).
    stamp: (f64, u64),
    /// Attained service forgiven by a promotion.
    offset: f64,
    /// When the job last became pending (NaN while running).
    pending_since: f64,
}

#[derive(Clone)]
struct Tiresias {
    thresholds: Vec<f64>,
    knob: f64,
    pending_to_tail: bool,
    /// Max-GPU variant: jobs get their peak-throughput GPU count.
    peak: bool,
    round_s: f64,
    jobs: Vec<QueueState>,
    seq: u64,
}

impl Tiresias {
    fn stamp(&mut self, t: f64) -> (f64, u64) {
        self.seq += 1;
        (t, self.seq)
    }

    fn level_for(&self, attained: f64) -> usize {
        self.thresholds.iter().filter(|t| attained >= **t).count()
    }

    /// Reasons: each walked job's queue, attained service and turn, and
    /// the demotion or promotion that moved it this call.
    fn explain(&self, view: &View, out: &mut Decision, turns: &[Turn], moved: &[(u32, usize)]) {
        explain_turns(
            out,
            turns,
            |t| {
                let level = self.jobs[t.job as usize].level;
                match moved.iter().find(|(j, _)| *j == t.job) {
                    Some((_, from)) if level > *from => &DEMOTED,
                    Some(_) => &PROMOTED,
                    None if t.placed => &RUNS,
                    None => &WAITS,
                }
            },
            |place, t| {
                let q = &self.jobs[t.job as usize];
                let from = moved
                    .iter()
                    .find(|(j, _)| *j == t.job)
                    .map_or(q.level, |m| m.1);
                // The threshold ahead, or the one just crossed on a demotion.
                let threshold = if q.level > from {
                    self.thresholds[q.level - 1]
                } else {
                    self.thresholds
                        .get(q.level)
                        .copied()
                        .unwrap_or(f64::INFINITY)
                };
                let waited = if q.pending_since.is_finite() {
                    view.now() - q.pending_since
                } else {
                    0.0
                };
                vec![
                    Val::from(q.level),
                    Val::from(from),
                    Val::from(place),
                    Val::from(view.attained_gpu_s(t.job) - q.offset),
                    Val::from(threshold),
                    Val::from(t.need),
                    Val::from(t.free),
                    Val::from(waited),
                    Val::from(view.executed_s(t.job)),
                ]
            },
        );
    }
}

const FIELDS: &[Field] = &[
    field("queue", Unit::Count),
    field("from", Unit::Count),
    field("place", Unit::Count),
    field("attained", Unit::GpuSeconds),
    field("threshold", Unit::GpuSeconds),
    field("need", Unit::Gpus),
    field("free", Unit::Gpus),
    field("waited", Unit::Seconds),
    field("executed", Unit::Seconds),
];

/// Runs: its place in the queues' order and its attained service.
pub static RUNS: Rule = Rule {
    id: "tiresias.runs",
    words: "runs: in queue Q{queue}, #{place} in the order of the queues; attained service {attained} of the next threshold {threshold}; {need} GPUs needed and placed ({free} unclaimed at its turn)",
    fields: FIELDS,
    key: Some("queue"),
};

/// Waits: the jobs ahead took the GPUs it needs.
pub static WAITS: Rule = Rule {
    id: "tiresias.waits",
    words: "waits: in queue Q{queue}, #{place} in the order of the queues; attained service {attained} of the next threshold {threshold}; {need} GPUs needed, which do not fit ({free} unclaimed at its turn)",
    fields: FIELDS,
    key: Some("queue"),
};

/// Demoted this call: its attained service reached a threshold.
pub static DEMOTED: Rule = Rule {
    id: "tiresias.demoted",
    words: "demoted from Q{from} to Q{queue}: attained service {attained} reached the threshold {threshold}; now #{place} in the order of the queues, needing {need} GPUs ({free} unclaimed at its turn)",
    fields: FIELDS,
    key: Some("queue"),
};

/// Promoted back to Q0 by the starvation knob.
pub static PROMOTED: Rule = Rule {
    id: "tiresias.promoted",
    words: "promoted from Q{from} to Q{queue}: it waited {waited}, past the starvation knob times its {executed} of execution; now #{place}, needing {need} GPUs ({free} unclaimed at its turn)",
    fields: FIELDS,
    key: Some("queue"),
};

impl Policy for Tiresias {
    fn name(&self) -> &str {
        "tiresias"
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(self.round_s)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        if self.jobs.len() < view.id_bound() {
            self.jobs.resize(view.id_bound(), QueueState::default());
        }
        let now = view.now();
        // Queue moves of this call, for reasons: (job, level before).
        let mut moved: Option<Vec<(u32, usize)>> = view.want_reasons().then(Vec::new);
        for &j in view.active().iter() {
            if !self.jobs[j as usize].seen {
                let stamp = self.stamp(view.spec(j).arrival);
                let q = &mut self.jobs[j as usize];
                q.seen = true;
                q.stamp = stamp;
                q.pending_since = now;
            }
            let attained = view.attained_gpu_s(j) - self.jobs[j as usize].offset;
            let level = self.level_for(attained);
            if level > self.jobs[j as usize].level {
                if let Some(m) = moved.as_mut() {
                    m.push((j, self.jobs[j as usize].level));
                }
                let stamp = self.stamp(now);
                let q = &mut self.jobs[j as usize];
                q.level = level;
                q.stamp = stamp;
            }
            let q = &self.jobs[j as usize];
            if self.knob > 0.0 && q.level > 0 && !view.is_running(j) && q.pending_since.is_finite()
            {
                let executed = view.executed_s(j);
                if now - q.pending_since >= executed * self.knob {
                    if let Some(m) = moved.as_mut() {
                        m.push((j, q.level));
                    }
                    let stamp = self.stamp(now);
                    let q = &mut self.jobs[j as usize];
                    q.level = 0;
                    q.offset = view.attained_gpu_s(j);
                    q.stamp = stamp;
                }
            }
        }
        let mut order: Vec<u32> = view.active().iter().copied().collect();
        schedlab_core::sorting::sort_by(&mut order, |a, b| {
            let (qa, qb) = (&self.jobs[*a as usize], &self.jobs[*b as usize]);
            qa.level
                .cmp(&qb.level)
                .then(qa.stamp.0.total_cmp(&qb.stamp.0))
                .then(qa.stamp.1.cmp(&qb.stamp.1))
        });
        let peak = self.peak;
        let mut turns = turns_if_wanted(view);
        let (plan, placed) = gang_plan_turns(
            view,
            &order,
            true,
            &|j| gang_request(view, j, peak),
            turns.as_mut(),
        );
        out.apply_plan(view, plan);
        if let (Some(turns), Some(moved)) = (&turns, &moved) {
            self.explain(view, out, turns, moved);
        }
        let placed_set: std::collections::BTreeSet<u32> = placed.iter().copied().collect();
        let mut next_wake = f64::INFINITY;
        for &j in &order {
            if placed_set.contains(&j) {
                self.jobs[j as usize].pending_since = f64::NAN;
                // Wake when this job's attained service crosses its next threshold.
                let q = &self.jobs[j as usize];
                let attained = view.attained_gpu_s(j) - q.offset;
                if let Some(t) = self.thresholds.get(q.level) {
                    let gpus = gang_request(view, j, peak) as f64;
                    next_wake = next_wake.min(now + (t - attained).max(1e-6) / gpus);
                }
            } else {
                if self.pending_to_tail {
                    let stamp = self.stamp(now);
                    self.jobs[j as usize].stamp = stamp;
                }
                let q = &mut self.jobs[j as usize];
                if !q.pending_since.is_finite() {
                    q.pending_since = now;
                }
                if self.knob > 0.0 && q.level > 0 {
                    let executed = view.executed_s(j);
                    next_wake =
                        next_wake.min((q.pending_since + executed * self.knob).max(now + 1e-6));
                }
            }
        }
        if next_wake.is_finite() && self.round_s == 0.0 {
            out.wake_at(next_wake);
        }
    }
}
