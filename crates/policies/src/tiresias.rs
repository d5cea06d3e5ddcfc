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
use crate::helpers::common::gang_plan_walk;
use crate::helpers::explain::{explain_turns, turns_if_wanted, Turn};
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::settings::Settings;
use schedlab_sim::{field, Decision, Field, Rule, Unit, View};
use std::collections::BTreeSet;

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
        queues: Vec::new(),
        by_size: BySize::default(),
        next_ord: 0,
        held: Vec::new(),
    }))
}

/// The queued jobs grouped by the GPU count they ask (their trace
/// request), each group in the order of the queues: (count, [(key, job)])
/// by count, the keys those of `Tiresias::queues`. A walk merges the
/// groups that still fit, so it never visits a job asking more GPUs than
/// are left.
#[derive(Clone, Default)]
struct BySize(Vec<(u32, Vec<Entry>)>);

/// An entry of the queues: (key, job).
type Entry = (u32, u32);

impl BySize {
    fn add(&mut self, gpus: u32, key: u32, job: u32) {
        let g = match self.0.binary_search_by_key(&gpus, |e| e.0) {
            Ok(g) => g,
            Err(g) => {
                self.0.insert(g, (gpus, Vec::new()));
                g
            }
        };
        let group = &mut self.0[g].1;
        let at = group.partition_point(|e| e.0 < key);
        group.insert(at, (key, job));
    }

    /// Writes the stretch `new` of the queues (keys kept, jobs moved among
    /// them) into the groups: each group holds as many of the stretch's
    /// keys as before (a job keeps its count), so its share of the stretch
    /// is overwritten in place.
    fn rewrite(&mut self, new: &[Entry], gpus: impl Fn(u32) -> u32) {
        let Some(&(first, _)) = new.first() else {
            return;
        };
        let mut at: Vec<usize> = self
            .0
            .iter()
            .map(|(_, group)| group.partition_point(|e| e.0 < first))
            .collect();
        for &(key, job) in new {
            if let Ok(g) = self.0.binary_search_by_key(&gpus(job), |e| e.0) {
                self.0[g].1[at[g]] = (key, job);
                at[g] += 1;
            }
        }
    }

    fn remove(&mut self, gpus: u32, key: u32) {
        if let Ok(g) = self.0.binary_search_by_key(&gpus, |e| e.0) {
            let group = &mut self.0[g].1;
            if let Ok(i) = group.binary_search_by_key(&key, |e| e.0) {
                group.remove(i);
            }
            if group.is_empty() {
                self.0.remove(g);
            }
        }
    }
}

/// One walk over the queues in their order that leaves out the jobs asking
/// more GPUs than are unclaimed, except running ones (their turn releases
/// their reservation), and ends once no job left asks few enough
/// (`gang_plan_walk` says why the plan is that of the whole order).
struct SizeWalk<'q> {
    /// Each group's jobs and the index of its first one not walked.
    groups: Vec<(u32, &'q [Entry], usize)>,
    /// Running jobs (key, job) in the order of the queues.
    running: Vec<Entry>,
    next_running: usize,
    /// The key of the last job walked.
    at: Option<u32>,
}

impl<'q> SizeWalk<'q> {
    fn new(by_size: &'q BySize, running: Vec<Entry>) -> Self {
        SizeWalk {
            groups: by_size
                .0
                .iter()
                .map(|(g, v)| (*g, v.as_slice(), 0))
                .collect(),
            running,
            next_running: 0,
            at: None,
        }
    }

    fn next(&mut self, free: u32) -> Option<u32> {
        let after = |key: u32, at: Option<u32>| at.is_none_or(|at| key > at);
        // The first job not walked among those asking at most `free`.
        let mut best: Option<(u32, u32, usize)> = None;
        for (g, (gpus, jobs, i)) in self.groups.iter_mut().enumerate() {
            if *gpus > free {
                break;
            }
            while *i < jobs.len() && !after(jobs[*i].0, self.at) {
                *i += 1;
            }
            if let Some(&(key, job)) = jobs.get(*i) {
                if best.is_none_or(|b| key < b.0) {
                    best = Some((key, job, g));
                }
            }
        }
        let (key, job, g) = best?;
        while self.next_running < self.running.len()
            && !after(self.running[self.next_running].0, self.at)
        {
            self.next_running += 1;
        }
        // A running job ahead of it takes its turn first.
        if let Some(&(rkey, rjob)) = self.running.get(self.next_running) {
            if rkey < key {
                self.next_running += 1;
                self.at = Some(rkey);
                return Some(rjob);
            }
        }
        self.groups[g].2 += 1;
        self.at = Some(key);
        Some(job)
    }
}

/// Per-job queue bookkeeping.
#[derive(Clone, Default)]
struct QueueState {
    seen: bool,
    level: usize,
    /// Position inside its queue (smaller first; see `Tiresias::queues`).
    ord: u32,
    /// Attained service forgiven by a promotion.
    offset: f64,
    /// Its trace request (its group in `Tiresias::by_size`), kept so
    /// that moving it between groups needs no view read.
    gpus: u32,
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
    /// The active jobs in the order of the queues, kept from call to call:
    /// (queue, position) and job, sorted, the key packed by [`slot`] (a
    /// sorted vector rather than a map keeps the core wasm package small;
    /// the queues hold thousands of jobs at most, so moving entries is cheap). The order is that of the paper's stamps
    /// (time of entering the queue, then sequence): a job entering a queue
    /// (arrival, demotion, promotion) goes behind every job already there,
    /// because its stamp is later than theirs (a job active now arrived
    /// after the last call), so positions only need to be increasing; jobs
    /// of one call are ordered among themselves by their stamps.
    queues: Vec<(u32, u32)>,
    /// The queued jobs by the GPU count they ask: the walk visits only
    /// jobs that can fit (and running ones), and stops once every job not
    /// yet walked asks for more GPUs than are left.
    by_size: BySize,
    next_ord: u32,
    /// Jobs running or placed at the last call: the only ones whose
    /// attained service can have grown since (a demotion needs service).
    held: Vec<u32>,
}

/// Bits of a queue key holding the position (the queue is above them).
const ORD_BITS: u32 = 30;

/// The key of position `ord` in queue `level` (at most 4 queues).
fn slot(level: usize, ord: u32) -> u32 {
    ((level as u32) << ORD_BITS) | ord
}

impl Tiresias {
    /// Moves `job` to `level`, behind the jobs there (or enters it).
    fn enqueue(&mut self, job: u32, level: usize, gpus: u32) {
        if self.next_ord == 1 << ORD_BITS {
            self.renumber();
        }
        let q = &mut self.jobs[job as usize];
        let old = slot(q.level, q.ord);
        match self.queues.binary_search_by_key(&old, |e| e.0) {
            Ok(i) if self.queues[i].1 == job => {
                self.queues.remove(i);
                self.by_size.remove(q.gpus, old);
            }
            _ => {}
        }
        q.level = level;
        q.gpus = gpus;
        q.ord = self.next_ord;
        self.next_ord += 1;
        let key = slot(level, q.ord);
        let at = self.queues.partition_point(|e| e.0 < key);
        self.queues.insert(at, (key, job));
        self.by_size.add(gpus, key, job);
    }

    /// Positions run out after 2^30 entries into queues: number the queued
    /// jobs again from 0, in their order.
    fn renumber(&mut self) {
        for (ord, e) in self.queues.iter_mut().enumerate() {
            e.0 = slot((e.0 >> ORD_BITS) as usize, ord as u32);
            self.jobs[e.1 as usize].ord = ord as u32;
        }
        self.next_ord = self.queues.len() as u32;
        self.regroup();
    }

    /// Groups the queued jobs by count again, from the queues.
    fn regroup(&mut self) {
        self.by_size = BySize::default();
        for &(key, j) in &self.queues {
            self.by_size.add(self.jobs[j as usize].gpus, key, j);
        }
    }

    fn level_for(&self, attained: f64) -> usize {
        self.thresholds.iter().filter(|t| attained >= **t).count()
    }

    /// Moves the jobs left pending to the tail of their queue, as the
    /// paper's restamping does: in each queue the jobs that hold GPUs now
    /// come first, then the pending ones, each group in its old order. Only
    /// the stretch up to the queue's last placed job changes, its positions
    /// reused; behind it every job is pending and keeps its place (the jobs
    /// entering later still go behind them).
    fn move_pending_back(&mut self, placed: &BTreeSet<u32>) {
        // The last placed job of each queue.
        let mut last: [Option<usize>; 4] = [None; 4];
        for &j in placed {
            let q = &self.jobs[j as usize];
            if let Ok(i) = self
                .queues
                .binary_search_by_key(&slot(q.level, q.ord), |e| e.0)
            {
                last[q.level] = last[q.level].max(Some(i));
            }
        }
        for (level, last) in last.into_iter().enumerate() {
            let Some(last) = last else { continue };
            // Only the stretch from the first pending job ahead of a placed
            // one to the last placed one changes; around it the order holds.
            let lo = self.queues.partition_point(|e| e.0 < slot(level, 0));
            let Some(first) = (lo..last).find(|&i| !placed.contains(&self.queues[i].1)) else {
                continue;
            };
            let stretch = &self.queues[first..=last];
            let holding = stretch.iter().filter(|e| placed.contains(&e.1));
            let pending = stretch.iter().filter(|e| !placed.contains(&e.1));
            let order: Vec<u32> = holding.chain(pending).map(|e| e.1).collect();
            for (e, j) in self.queues[first..=last].iter_mut().zip(order) {
                e.1 = j;
                self.jobs[j as usize].ord = e.0 & ((1 << ORD_BITS) - 1);
            }
            self.by_size
                .rewrite(&self.queues[first..=last], |j| self.jobs[j as usize].gpus);
        }
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
                [
                    q.level as f64,
                    from as f64,
                    place as f64,
                    view.attained_gpu_s(t.job) - q.offset,
                    threshold,
                    t.need as f64,
                    t.free as f64,
                    waited,
                    view.executed_s(t.job),
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
        let active = view.active();
        // Reasons and the starvation knob look at every job; otherwise only
        // what can have changed since the last call is visited, and the
        // walk stops where the cluster is full.
        let mut full = self.knob > 0.0 || view.want_reasons();
        for &j in view.completed() {
            let q = &self.jobs[j as usize];
            if let Ok(i) = self
                .queues
                .binary_search_by_key(&slot(q.level, q.ord), |e| e.0)
            {
                self.queues.remove(i);
                self.by_size.remove(q.gpus, slot(q.level, q.ord));
            }
        }
        let unseen = view
            .arrived()
            .iter()
            .filter(|j| !self.jobs[**j as usize].seen && active.contains(j))
            .count();
        if self.queues.len() + unseen != active.len() {
            // Jobs left or came by another way (never in the engine as it
            // is): drop the ones gone and visit every job.
            self.queues.retain(|e| active.contains(&e.1));
            self.regroup();
            full = true;
        }
        let candidates: Vec<u32> = if full {
            active.iter().copied().collect()
        } else {
            let mut c: Vec<u32> = view
                .arrived()
                .iter()
                .chain(&self.held)
                .chain(view.running().iter())
                .copied()
                .filter(|j| active.contains(j))
                .collect();
            schedlab_core::sorting::sort(&mut c);
            c.dedup();
            c
        };
        // Queue moves of this call, for reasons: (job, level before).
        let mut moved: Option<Vec<(u32, usize)>> = view.want_reasons().then(Vec::new);
        // This call's stamps (time, sequence, job, level): the paper's
        // order among the jobs entering a queue now.
        let mut stamps: Vec<(f64, u64, u32, usize)> = Vec::new();
        let mut seq = 0u64;
        for &j in &candidates {
            let mut level = self.jobs[j as usize].level;
            let mut entered: Option<f64> = None;
            if !self.jobs[j as usize].seen {
                let q = &mut self.jobs[j as usize];
                q.seen = true;
                q.level = 0;
                q.pending_since = now;
                level = 0;
                entered = Some(view.spec(j).arrival);
            }
            let attained = view.attained_gpu_s(j) - self.jobs[j as usize].offset;
            let by_service = self.level_for(attained);
            if by_service > level {
                if let Some(m) = moved.as_mut() {
                    m.push((j, level));
                }
                level = by_service;
                entered = Some(now);
            }
            let q = &self.jobs[j as usize];
            if self.knob > 0.0 && level > 0 && !view.is_running(j) && q.pending_since.is_finite() {
                let executed = view.executed_s(j);
                if now - q.pending_since >= executed * self.knob {
                    if let Some(m) = moved.as_mut() {
                        m.push((j, level));
                    }
                    self.jobs[j as usize].offset = view.attained_gpu_s(j);
                    level = 0;
                    entered = Some(now);
                }
            }
            if let Some(t) = entered {
                seq += 1;
                stamps.push((t, seq, j, level));
            } else {
                self.jobs[j as usize].level = level;
            }
        }
        schedlab_core::sorting::sort_by(&mut stamps, |a, b| {
            a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
        });
        for &(_, _, j, level) in &stamps {
            self.enqueue(j, level, view.spec(j).gpus);
        }
        let peak = self.peak;
        let mut turns = turns_if_wanted(view);
        // With trace requests the walk visits only jobs that can fit (and
        // running ones); with `request=peak` a job's count is read at its
        // turn, so the walk goes in order and stops only when no GPU is left.
        let mut in_order = self.queues.iter().map(|e| e.1);
        let mut by_size = (!full && !peak).then(|| {
            let mut running: Vec<(u32, u32)> = view
                .running()
                .iter()
                .map(|&j| {
                    let q = &self.jobs[j as usize];
                    (slot(q.level, q.ord), j)
                })
                .collect();
            schedlab_core::sorting::sort(&mut running);
            SizeWalk::new(&self.by_size, running)
        });
        let mut next = |packer: &schedlab_model::cluster::Packer| match by_size.as_mut() {
            Some(walk) => walk.next(packer.free_total()),
            None if !full && packer.free_total() == 0 => None,
            None => in_order.next(),
        };
        let (plan, placed, _) = gang_plan_walk(
            view,
            &mut next,
            true,
            &|j| gang_request(view, j, peak),
            turns.as_mut(),
        );
        out.apply_plan(view, plan);
        if let (Some(turns), Some(moved)) = (&turns, &moved) {
            self.explain(view, out, turns, moved);
        }
        let placed_set: BTreeSet<u32> = placed.iter().copied().collect();
        if self.pending_to_tail {
            self.move_pending_back(&placed_set);
        }
        let mut next_wake = f64::INFINITY;
        for &j in &placed {
            self.jobs[j as usize].pending_since = f64::NAN;
            // Wake when this job's attained service crosses its next threshold.
            let q = &self.jobs[j as usize];
            let attained = view.attained_gpu_s(j) - q.offset;
            if let Some(t) = self.thresholds.get(q.level) {
                let gpus = gang_request(view, j, peak) as f64;
                next_wake = next_wake.min(now + (t - attained).max(1e-6) / gpus);
            }
        }
        // Jobs that held GPUs and lost them become pending now (the others
        // have been pending since they arrived or last lost their GPUs).
        let visit: Vec<u32> = if full {
            active.iter().copied().collect()
        } else {
            candidates
        };
        for &j in &visit {
            if placed_set.contains(&j) {
                continue;
            }
            let q = &mut self.jobs[j as usize];
            if !q.pending_since.is_finite() {
                q.pending_since = now;
            }
            if self.knob > 0.0 && q.level > 0 {
                let executed = view.executed_s(j);
                next_wake = next_wake.min((q.pending_since + executed * self.knob).max(now + 1e-6));
            }
        }
        self.held = view.running().iter().copied().chain(placed).collect();
        if next_wake.is_finite() && self.round_s == 0.0 {
            out.wake_at(next_wake);
        }
    }
}
