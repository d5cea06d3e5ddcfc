//! The simulation loop.

use super::config::{EngineConfig, Reconfig};
use super::events::{EventKind, EventQueue};
use super::state::{JobState, Phase, RestartKinds};
use super::timeline::{RoundStat, Timeline};
use super::view::{Decision, View};
use crate::cluster::{Cluster, GpuKind, Placement};
use crate::error::{Error, Result};
use crate::perf::{BatchChoice, Behaviour, ModelZoo, RateQuery};
use crate::policy::{Policy, Trigger};
use crate::workload::{Adaptivity, JobSpec, Trace};
use serde::Serialize;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Progress report for callers (progress bars, the page's worker).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Progress {
    pub now: f64,
    pub completed: usize,
    pub total: usize,
    pub events: u64,
}

/// One job's result.
#[derive(Debug, Clone, Serialize)]
pub struct JobResult {
    pub id: u32,
    pub name: String,
    pub model: String,
    pub tenant: String,
    pub gpus_requested: u32,
    pub arrival: f64,
    pub start: Option<f64>,
    pub finish: Option<f64>,
    pub gpu_s: f64,
    pub run_s: f64,
    pub restarts: u32,
    /// The restarts by what changed (sums to `restarts`).
    pub restart_kinds: RestartKinds,
    pub preemptions: u32,
    pub restart_s: f64,
    /// Share changes that kept none of the job's GPUs.
    pub migrations: u32,
    /// In-flight reconfigurations cancelled by a newer order (CoDDL mode).
    pub cancelled: u32,
    /// Total work (model units).
    pub work: f64,
    /// Mean number of active jobs while this job was active.
    pub n_avg: f64,
    pub due: Option<f64>,
}

/// Everything a run produced.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub jobs: Vec<JobResult>,
    pub timeline: Timeline,
    pub rounds: Vec<RoundStat>,
    pub end_time: f64,
    pub events: u64,
    /// The run stopped with jobs unfinished (policy starved them or max_days hit).
    pub incomplete: usize,
    pub stop_reason: String,
    /// Adjustments the engine made to the input (e.g. clamped requests).
    pub notes: Vec<String>,
    /// Goodput models ran slowed by the Sia simulator's calibration
    /// (`engine.calibration=sia`); metrics scale their references alike.
    pub sia_calibration: bool,
}

/// A runnable (and forkable) simulation.
#[derive(Clone)]
pub struct Simulation {
    cfg: EngineConfig,
    cluster: Arc<Cluster>,
    zoo: Arc<ModelZoo>,
    specs: Arc<Vec<JobSpec>>,
    policy: Box<dyn Policy>,
    trigger: Trigger,
    jobs: Vec<JobState>,
    now: f64,
    next_arrival: usize,
    queue: EventQueue,
    active: BTreeSet<u32>,
    waiting: BTreeSet<u32>,
    running: BTreeSet<u32>,
    /// GPUs in use per node (bit masks), to check decisions.
    used: Vec<u64>,
    busy_gpus: u32,
    completed: usize,
    arrived_since: Vec<u32>,
    completed_since: Vec<u32>,
    timer_token: u64,
    timer_at: Option<f64>,
    next_tick: Option<f64>,
    /// Integral of the number of active jobs over time.
    contention: f64,
    contention_t: f64,
    idle_calls: u32,
    events: u64,
    timeline: Timeline,
    rounds: Vec<RoundStat>,
    /// Insight cells stored so far (bounded by `insight::MAX_CELLS_PER_RUN`).
    insight_cells: usize,
    stop_reason: Option<String>,
    /// Adjustments made to the input (clamped requests), reported with the outcome.
    notes: Vec<String>,
}

/// Calls with nothing running and nothing arriving before a round-based
/// run is declared stuck.
const STUCK_CALLS: u32 = 10_000;

impl Simulation {
    /// Checks the trace against the cluster and zoo, resolves each job's
    /// model and work, and sets up the run.
    pub fn new(
        trace: &Trace,
        cluster: &Cluster,
        zoo: &ModelZoo,
        policy: Box<dyn Policy>,
        cfg: EngineConfig,
    ) -> Result<Simulation> {
        Self::with_shared(
            trace,
            Arc::new(cluster.clone()),
            Arc::new(zoo.clone()),
            policy,
            cfg,
        )
    }

    /// As `new`, sharing an already reference-counted cluster and zoo.
    pub fn with_shared(
        trace: &Trace,
        cluster: Arc<Cluster>,
        zoo: Arc<ModelZoo>,
        policy: Box<dyn Policy>,
        cfg: EngineConfig,
    ) -> Result<Simulation> {
        let mut specs = trace.jobs.clone();
        let mut notes = Vec::new();
        let jobs = resolve_jobs(trace, &mut specs, &cluster, &zoo, &mut notes)?;
        let trigger = policy.trigger();
        let first = trace.jobs.first().map_or(0.0, |j| j.arrival);
        let next_tick = trigger.round_s.map(|r| (first / r).ceil() * r);
        Ok(Simulation {
            used: vec![0; cluster.nodes.len()],
            cfg,
            policy,
            trigger,
            jobs,
            now: first,
            next_arrival: 0,
            queue: EventQueue::default(),
            active: BTreeSet::new(),
            waiting: BTreeSet::new(),
            running: BTreeSet::new(),
            busy_gpus: 0,
            completed: 0,
            arrived_since: Vec::new(),
            completed_since: Vec::new(),
            timer_token: 0,
            timer_at: None,
            next_tick,
            contention: 0.0,
            contention_t: first,
            idle_calls: 0,
            events: 0,
            timeline: Timeline::default(),
            rounds: Vec::new(),
            insight_cells: 0,
            stop_reason: None,
            specs: Arc::new(specs),
            notes,
            cluster,
            zoo,
        })
    }

    pub fn now(&self) -> f64 {
        self.now
    }

    pub fn jobs(&self) -> &[JobState] {
        &self.jobs
    }

    pub fn specs(&self) -> &[JobSpec] {
        &self.specs
    }

    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    pub fn zoo(&self) -> &ModelZoo {
        &self.zoo
    }

    pub fn policy_name(&self) -> &str {
        self.policy.name()
    }

    pub fn is_finished(&self) -> bool {
        self.stop_reason.is_some()
    }

    /// Keeps policies' per-round diagnostics (`RoundStat::insight`) while
    /// the timeline is recorded, within `insight::MAX_CELLS_PER_RUN`.
    pub fn set_record_insight(&mut self, on: bool) {
        self.cfg.record_insight = on;
    }

    fn want_insight(&self) -> bool {
        self.cfg.record_insight
            && self.cfg.record_timeline
            && self.insight_cells < super::insight::MAX_CELLS_PER_RUN
    }

    /// A copy of this simulation that will see no further arrivals
    /// (and records no timeline): PCS's "what if nothing else came" forecast.
    pub fn fork_without_arrivals(&self) -> Simulation {
        let mut f = self.clone();
        f.next_arrival = f.specs.len();
        f.cfg.record_timeline = false;
        f.timeline = Timeline::default();
        f.rounds = Vec::new();
        f
    }

    /// Runs to the end. `progress` is called now and then; returning false
    /// cancels the run.
    pub fn run(&mut self, progress: &mut dyn FnMut(&Progress) -> bool) -> Result<Outcome> {
        let mut n = 0u32;
        while self.step()? {
            n += 1;
            if n % 512 == 0 && !progress(&self.progress()) {
                return Err(Error::Cancelled);
            }
        }
        progress(&self.progress());
        Ok(self.outcome())
    }

    /// Runs until simulated time reaches `t` or the run ends.
    pub fn run_until(&mut self, t: f64) -> Result<()> {
        while !self.is_finished() && self.next_event_time().is_some_and(|n| n <= t) {
            self.step()?;
        }
        Ok(())
    }

    pub fn progress(&self) -> Progress {
        Progress {
            now: self.now,
            completed: self.completed,
            total: self.jobs.len(),
            events: self.events,
        }
    }

    fn next_event_time(&self) -> Option<f64> {
        let mut t = f64::INFINITY;
        if let Some(j) = self.specs.get(self.next_arrival) {
            t = t.min(j.arrival);
        }
        if let Some(q) = self.queue.peek_time() {
            t = t.min(q);
        }
        if let Some(tick) = self.next_tick {
            if !self.active.is_empty() {
                t = t.min(tick);
            }
        }
        t.is_finite().then_some(t)
    }

    /// Processes the next instant with events. Returns false when the run is over.
    pub fn step(&mut self) -> Result<bool> {
        if self.stop_reason.is_some() {
            return Ok(false);
        }
        if self.completed == self.jobs.len() {
            self.stop("all jobs completed");
            return Ok(false);
        }
        let Some(t) = self.next_event_time() else {
            self.stop("no further events: the policy left waiting jobs unscheduled");
            return Ok(false);
        };
        if t > self.cfg.max_time {
            self.stop("max_days reached");
            return Ok(false);
        }
        self.set_time(t);
        self.events += 1;

        // Completions and rate changes first (a freed GPU is free for arrivals at the same time).
        let mut woke = false;
        while let Some((_, ev)) = self.queue.pop_due(t) {
            match ev {
                EventKind::Complete { job, version } => {
                    if self.jobs[job as usize].version == version {
                        self.complete(job);
                    }
                }
                EventKind::RateChange { job, version } => {
                    if self.jobs[job as usize].version == version {
                        self.refresh_rate(job, true);
                    }
                }
                EventKind::Timer { token } => {
                    if token == self.timer_token {
                        self.timer_at = None;
                        woke = true;
                    }
                }
                EventKind::Reconfig { job, token } => {
                    let st = &self.jobs[job as usize];
                    if st.reconfig_token == token && st.phase == Phase::Running {
                        self.reconfig_ready(job);
                    }
                }
                EventKind::Measured { job, token, gpus } => {
                    let st = &mut self.jobs[job as usize];
                    if st.measure_token == token && st.phase == Phase::Running {
                        st.measured_gpus = st.measured_gpus.max(gpus.min(st.gpus()));
                        woke = true;
                    }
                }
            }
        }
        while let Some(spec) = self.specs.get(self.next_arrival) {
            if spec.arrival > t {
                break;
            }
            let id = spec.id;
            self.next_arrival += 1;
            self.arrive(id);
        }
        let tick = self.next_tick.is_some_and(|k| k <= t);
        if let (true, Some(r)) = (tick, self.trigger.round_s) {
            // Next tick: the next multiple of the round; skip idle stretches.
            let mut next = self.next_tick.unwrap_or(t) + r;
            if self.active.is_empty() {
                if let Some(a) = self.specs.get(self.next_arrival) {
                    next = next.max((a.arrival / r).ceil() * r);
                }
            }
            self.next_tick = Some(next);
        }
        let churn = !self.arrived_since.is_empty() || !self.completed_since.is_empty();
        let call = (tick || (self.trigger.on_events && churn) || woke) && !self.active.is_empty();
        if call {
            self.call_policy(tick)?;
        }
        if self.completed == self.jobs.len() {
            self.stop("all jobs completed");
            return Ok(false);
        }
        Ok(true)
    }

    fn stop(&mut self, why: &str) {
        if self.stop_reason.is_none() {
            let now = self.now;
            for id in self.running.clone() {
                let st = &mut self.jobs[id as usize];
                st.advance(now);
                if let Some(seg) = st.open_segment.take() {
                    self.timeline.close(seg, now, st.done_fraction());
                }
            }
            self.stop_reason = Some(why.to_string());
        }
    }

    fn set_time(&mut self, t: f64) {
        if t > self.contention_t {
            self.contention += self.active.len() as f64 * (t - self.contention_t);
            self.contention_t = t;
        }
        if t > self.now {
            self.now = t;
        }
    }

    fn arrive(&mut self, id: u32) {
        let now = self.now;
        let st = &mut self.jobs[id as usize];
        st.phase = Phase::Waiting;
        st.t_mark = now;
        st.contention_mark = self.contention;
        self.active.insert(id);
        self.waiting.insert(id);
        self.arrived_since.push(id);
    }

    fn complete(&mut self, id: u32) {
        let now = self.now;
        self.release(id);
        let arrival = self.specs[id as usize].arrival;
        let st = &mut self.jobs[id as usize];
        st.advance(now);
        st.progress = st.work;
        st.phase = Phase::Done;
        st.eff = None;
        st.finish = Some(now);
        st.version += 1;
        let span = now - arrival;
        st.n_avg = if span > 0.0 {
            (self.contention - st.contention_mark) / span
        } else {
            1.0
        };
        if let Some(seg) = st.open_segment.take() {
            self.timeline.close(seg, now, 1.0);
        }
        let placement = st.placement.take();
        if placement.is_some() {
            self.running.remove(&id);
        }
        self.active.remove(&id);
        self.waiting.remove(&id);
        self.completed += 1;
        self.completed_since.push(id);
    }

    /// Frees the GPUs of a job in the usage map (its state is untouched).
    fn release(&mut self, id: u32) {
        if let Some(p) = &self.jobs[id as usize].placement {
            for s in &p.shares {
                self.used[s.node as usize] &= !s.mask;
            }
            self.busy_gpus -= p.gpus();
        }
    }

    fn call_policy(&mut self, tick: bool) -> Result<()> {
        let started = web_time::Instant::now();
        let mut decision = Decision::default();
        let want_insight = self.want_insight();
        {
            let view = View {
                now: self.now,
                cluster: &self.cluster,
                zoo: &self.zoo,
                specs: &self.specs,
                jobs: &self.jobs,
                active: &self.active,
                waiting: &self.waiting,
                running: &self.running,
                rule: self.cfg.placement,
                arrived: &self.arrived_since,
                completed: &self.completed_since,
                round_tick: tick,
                measure: self.cfg.measure,
                insight: want_insight,
            };
            self.policy.schedule(&view, &mut decision);
        }
        let policy_s = started.elapsed().as_secs_f64();
        self.arrived_since.clear();
        self.completed_since.clear();
        let changes = decision.changes.len() as u32;
        self.apply(&decision)?;
        if let Some(w) = decision.wake_at {
            if w > self.now && self.timer_at.is_none_or(|t| t != w) {
                self.timer_token += 1;
                self.timer_at = Some(w);
                self.queue.push(
                    w,
                    EventKind::Timer {
                        token: self.timer_token,
                    },
                );
            }
        }
        // Round-based policies tick forever: stop one that never places anything.
        let idle = self.running.is_empty()
            && self.next_arrival >= self.specs.len()
            && self.timer_at.is_none();
        if self.trigger.round_s.is_some() && idle {
            self.idle_calls += 1;
            if self.idle_calls >= STUCK_CALLS {
                self.stop("the policy left waiting jobs unscheduled for 10,000 rounds");
            }
        } else {
            self.idle_calls = 0;
        }
        if self.cfg.record_timeline {
            let insight = decision.insight.take().filter(|_| want_insight);
            self.insight_cells += insight.as_ref().map_or(0, |i| i.cells());
            self.rounds.push(RoundStat {
                t: self.now,
                busy_gpus: self.busy_gpus,
                running: self.running.len() as u32,
                waiting: self.waiting.len() as u32,
                changes,
                policy_s,
                solver_s: decision.solver_s,
                fallback: decision.fallback.clone(),
                insight,
            });
        }
        Ok(())
    }

    /// Applies a decision: frees what changes, checks and claims the new
    /// placements, charges restarts and reschedules completions.
    fn apply(&mut self, d: &Decision) -> Result<()> {
        let name = self.policy.name().to_string();
        let bad = |msg: String| Err(Error::Internal(format!("policy '{name}': {msg}")));
        // Pass 1: validate targets and release the GPUs of every changed job.
        let mut seen = BTreeSet::new();
        for (job, _) in &d.changes {
            if (*job as usize) >= self.jobs.len() || !self.active.contains(job) {
                return bad(format!("decision names job {job}, which is not active"));
            }
            if !seen.insert(*job) {
                return bad(format!("decision names job {job} twice"));
            }
            self.release(*job);
        }
        // Pass 2: claim new placements.
        for (job, a) in &d.changes {
            if let Some(a) = a {
                let p = &a.placement;
                if p.gpus() == 0 {
                    return bad(format!("job {job} assigned zero GPUs"));
                }
                for s in &p.shares {
                    let Some(node) = self.cluster.nodes.get(s.node as usize) else {
                        return bad(format!(
                            "job {job} placed on node {} which does not exist",
                            s.node
                        ));
                    };
                    if node.kind != p.kind || s.mask & !crate::cluster::node_mask(node.gpus) != 0 {
                        return bad(format!(
                            "job {job} placed on GPUs node {} does not have",
                            s.node
                        ));
                    }
                    if self.used[s.node as usize] & s.mask != 0 {
                        return bad(format!(
                            "job {job} placed on GPUs of node {} that are already in use",
                            s.node
                        ));
                    }
                    self.used[s.node as usize] |= s.mask;
                }
                self.busy_gpus += p.gpus();
            }
        }
        // Pass 3: update job states.
        for (job, a) in &d.changes {
            match a {
                None => self.stop_running(*job, true),
                Some(a) => self.start_or_change(*job, a.placement.clone(), a.batch),
            }
        }
        Ok(())
    }

    fn stop_running(&mut self, id: u32, preempted: bool) {
        let now = self.now;
        let st = &mut self.jobs[id as usize];
        if st.phase != Phase::Running {
            return;
        }
        st.advance(now);
        st.placement = None;
        st.eff = None;
        st.reconfig_until = f64::NEG_INFINITY;
        st.reconfig_token += 1;
        st.measure_token += 1;
        st.phase = Phase::Waiting;
        st.version += 1;
        if preempted {
            st.preemptions += 1;
        }
        if let Some(seg) = st.open_segment.take() {
            self.timeline.close(seg, now, st.done_fraction());
        }
        self.running.remove(&id);
        self.waiting.insert(id);
    }

    fn batch_choice(&self, id: u32, requested: Option<BatchChoice>) -> BatchChoice {
        if let Some(b) = requested {
            return b;
        }
        let spec = &self.specs[id as usize];
        let m = self.zoo.get(self.jobs[id as usize].model);
        match spec.adaptivity {
            Adaptivity::Adaptive => BatchChoice::Optimize {
                max: if spec.max_batch_size > 0 {
                    spec.max_batch_size
                } else {
                    m.max_batch
                },
            },
            _ => BatchChoice::Fixed(if spec.batch_size > 0 {
                spec.batch_size
            } else {
                m.default_batch
            }),
        }
    }

    fn start_or_change(&mut self, id: u32, placement: Placement, batch: Option<BatchChoice>) {
        let now = self.now;
        let choice = self.batch_choice(id, batch);
        let restart_cost = self
            .cfg
            .restart_s
            .unwrap_or(self.zoo.get(self.jobs[id as usize].model).restart_s)
            * self.cfg.restart_scale;
        let gpu_ids = if self.cfg.record_timeline {
            placement.gpu_ids(&self.cluster)
        } else {
            Vec::new()
        };
        let st = &mut self.jobs[id as usize];
        st.advance(now);
        if let Some(old) = &st.placement {
            if !old.overlaps(&placement) {
                st.migrations += 1;
            }
        }
        if let Reconfig::Coddl { es, rc } = self.cfg.reconfig {
            self.coddl_change(id, placement, choice, es, rc, gpu_ids);
            return;
        }
        let moved = st
            .placement
            .as_ref()
            .is_none_or(|old| !old.same_nodes(&placement));
        if moved {
            let first = st.first_start.is_none();
            if !first {
                st.count_restart(&placement);
            }
            let delay = if first && !self.cfg.charge_first_start {
                0.0
            } else {
                restart_cost
            };
            st.busy_until = now + delay;
            st.restart_s += delay;
            st.first_start.get_or_insert(now);
        }
        if st.phase == Phase::Waiting {
            self.waiting.remove(&id);
            self.running.insert(id);
        }
        st.phase = Phase::Running;
        st.placement = Some(placement);
        if let Some(seg) = st.open_segment.take() {
            self.timeline.close(seg, now, st.done_fraction());
        }
        self.refresh_rate_with(id, choice, false);
        let ready = self.jobs[id as usize].busy_until.max(now);
        self.after_change(id, ready, &gpu_ids);
    }

    /// Opens the timeline segment of a new allocation and, in measurement
    /// mode, schedules the measurement of a share larger than any measured.
    /// `ready` is when the job trains on its whole allocation.
    fn after_change(&mut self, id: u32, ready: f64, gpu_ids: &[u32]) {
        let now = self.now;
        if self.cfg.record_timeline {
            let st = &mut self.jobs[id as usize];
            let p = st.placement.as_ref().map_or(GpuKind(0), |p| p.kind);
            let seg = self.timeline.open(
                id,
                p,
                now,
                ready,
                st.batch,
                gpu_ids,
                st.done_fraction(),
                st.restarts,
            );
            self.jobs[id as usize].open_segment = Some(seg);
        }
        if self.cfg.measure {
            let st = &mut self.jobs[id as usize];
            let g = st.gpus();
            if g > st.measured_gpus {
                st.measure_token += 1;
                let ev = EventKind::Measured {
                    job: id,
                    token: st.measure_token,
                    gpus: g,
                };
                self.queue.push(ready + self.cfg.measure_s, ev);
            }
        }
    }

    /// A share change under CoDDL's reconfiguration model (AFS §4.3, spec
    /// seed003 §2.9). GPU ownership changes at once (the usage map follows
    /// the decision); what the job *trains on* follows the mechanisms:
    ///
    /// - `es` (concurrent expansion): the job keeps training on the GPUs it
    ///   keeps (its effective set ∩ the new placement) while the new GPUs
    ///   load for `init_s`, then switches in `switch_s`; a pure shrink costs
    ///   `switch_s`; a job that keeps none of its GPUs (start, resume,
    ///   migration) trains after `init_s`. Without `es` every change is a
    ///   full stop and restart of `init_s`.
    /// - `rc` (cancelling): a newer order replaces an in-flight one at once.
    ///   Without it the new order starts when the previous one would have
    ///   completed (orders run back to back, each paying its full delay);
    ///   meanwhile the job trains on what it keeps.
    fn coddl_change(
        &mut self,
        id: u32,
        placement: Placement,
        choice: BatchChoice,
        es: bool,
        rc: bool,
        gpu_ids: Vec<u32>,
    ) {
        let now = self.now;
        let (init_s, switch_s) = (self.cfg.init_s, self.cfg.switch_s);
        let charge_first = self.cfg.charge_first_start;
        let st = &mut self.jobs[id as usize];
        let first = st.first_start.is_none();
        if !first {
            st.count_restart(&placement);
        }
        st.first_start.get_or_insert(now);
        let pending = st.phase == Phase::Running && st.reconfig_until > now;
        if pending && rc {
            st.cancelled += 1;
        }
        let start = if pending && !rc {
            st.reconfig_until
        } else {
            now
        };
        let kept = if st.phase == Phase::Running {
            st.eff.as_ref().and_then(|e| e.intersect(&placement))
        } else {
            None
        };
        let eff_changed = st.eff.as_ref() != kept.as_ref();
        let load = if first && !charge_first { 0.0 } else { init_s };
        st.reconfig_token += 1;
        // (stage-one GPUs, time the whole placement is ready, busy until)
        let (stage_one, ready_at, busy_until) = match kept {
            Some(k) if es => {
                let expanding = !k.contains(&placement);
                let t_a = if expanding { start + init_s } else { start };
                let pause = if eff_changed { switch_s } else { 0.0 };
                if t_a <= now {
                    (None, now + pause, now + pause)
                } else {
                    (Some(k), t_a, now + pause)
                }
            }
            _ => (None, start + load, start + load),
        };
        if st.phase == Phase::Waiting {
            self.waiting.remove(&id);
            self.running.insert(id);
        }
        let st = &mut self.jobs[id as usize];
        st.phase = Phase::Running;
        st.placement = Some(placement);
        if let Some(seg) = st.open_segment.take() {
            self.timeline.close(seg, now, st.done_fraction());
        }
        let whole_ready = match &stage_one {
            Some(k) => {
                st.eff = Some(k.clone());
                st.busy_until = busy_until;
                let token = st.reconfig_token;
                self.queue
                    .push(ready_at, EventKind::Reconfig { job: id, token });
                ready_at + switch_s
            }
            None => {
                st.eff = st.placement.clone();
                st.busy_until = busy_until;
                busy_until
            }
        };
        let st = &mut self.jobs[id as usize];
        st.restart_s += (busy_until - now).max(0.0);
        st.reconfig_until = whole_ready;
        self.refresh_rate_with(id, choice, false);
        self.after_change(id, whole_ready, &gpu_ids);
    }

    /// CoDDL: the new GPUs have loaded; the job switches to its whole
    /// placement after `switch_s`.
    fn reconfig_ready(&mut self, id: u32) {
        let now = self.now;
        let switch_s = self.cfg.switch_s;
        let st = &mut self.jobs[id as usize];
        st.advance(now);
        st.eff = st.placement.clone();
        st.busy_until = st.busy_until.max(now + switch_s);
        st.restart_s += switch_s;
        self.refresh_rate(id, false);
    }

    /// Recomputes a running job's rate at an epoch boundary with the batch
    /// choice of its allocation (a rigid batch stays fixed; adaptive jobs
    /// re-optimise for the new epoch's efficiency).
    fn refresh_rate(&mut self, id: u32, at_boundary: bool) {
        let choice = match self.jobs[id as usize].choice {
            Some(c) => c,
            None => self.batch_choice(id, None),
        };
        self.refresh_rate_with(id, choice, at_boundary);
    }

    fn refresh_rate_with(&mut self, id: u32, choice: BatchChoice, at_boundary: bool) {
        let now = self.now;
        let st = &mut self.jobs[id as usize];
        st.advance(now);
        if at_boundary && st.rate_until.is_finite() {
            st.progress = st.progress.max(st.rate_until).min(st.work);
        }
        let Some(p) = st.eff.as_ref().or(st.placement.as_ref()) else {
            return;
        };
        let q = RateQuery {
            kind: p.kind,
            gpus: p.gpus(),
            nodes: p.nodes(),
            batch: choice,
            progress: st.progress,
        };
        let r = self.zoo.rate(st.model, &q);
        let calibration = match (&self.zoo.get(st.model).behaviour, self.cfg.sia_calibration) {
            (Behaviour::Goodput(g), true) if g.slowdown > 0.0 => 1.0 / g.slowdown,
            _ => 1.0,
        };
        st.rate = (r.per_s * calibration).max(0.0);
        st.batch = r.batch;
        st.choice = Some(choice);
        st.rate_until = if r.until_progress > st.progress {
            r.until_progress
        } else {
            f64::INFINITY
        };
        st.version += 1;
        let version = st.version;
        if let Some((t, completes)) = st.next_change(now) {
            let kind = if completes {
                EventKind::Complete { job: id, version }
            } else {
                EventKind::RateChange { job: id, version }
            };
            self.queue.push(t.max(now), kind);
        }
    }

    /// The results so far (complete once `run` has returned).
    pub fn outcome(&self) -> Outcome {
        let now = self.now;
        let jobs = self
            .specs
            .iter()
            .zip(&self.jobs)
            .map(|(spec, st)| JobResult {
                id: spec.id,
                name: spec.name.clone(),
                model: self.zoo.get(st.model).name.clone(),
                tenant: spec.tenant.clone(),
                gpus_requested: spec.gpus,
                arrival: spec.arrival,
                start: st.first_start,
                finish: st.finish,
                gpu_s: st.gpu_s_at(now),
                run_s: st.run_s_at(now),
                restarts: st.restarts,
                restart_kinds: st.restart_kinds,
                preemptions: st.preemptions,
                restart_s: st.restart_s,
                migrations: st.migrations,
                cancelled: st.cancelled,
                work: st.work,
                n_avg: st.n_avg,
                due: spec.due,
            })
            .collect();
        let mut timeline = self.timeline.clone();
        for s in &mut timeline.segments {
            if s.end.is_nan() {
                s.end = now;
                let st = &self.jobs[s.job as usize];
                s.progress_end = if st.work > 0.0 {
                    (st.progress_at(now) / st.work).clamp(0.0, 1.0)
                } else {
                    0.0
                };
            }
        }
        Outcome {
            jobs,
            timeline,
            rounds: self.rounds.clone(),
            end_time: now,
            events: self.events,
            incomplete: self.jobs.len() - self.completed,
            stop_reason: self.stop_reason.clone().unwrap_or_else(|| "running".into()),
            notes: self.notes.clone(),
            sia_calibration: self.cfg.sia_calibration,
        }
    }
}

/// Resolves each job's model and total work, refusing jobs the cluster
/// can never run.
///
/// An elastic job whose request exceeds every GPU type (possible on a
/// heterogeneous cluster) has its request clamped to the largest type, with
/// a note; a rigid or type-pinned one is refused, as is any request larger
/// than the whole cluster.
fn resolve_jobs(
    trace: &Trace,
    specs: &mut [JobSpec],
    cluster: &Cluster,
    zoo: &ModelZoo,
    notes: &mut Vec<String>,
) -> Result<Vec<JobState>> {
    let file = trace.name.as_str();
    let mut out = Vec::with_capacity(specs.len());
    for spec in specs.iter_mut() {
        let line = spec.source_line as usize;
        let who = if line == 0 {
            format!("job '{}': ", spec.name)
        } else {
            String::new()
        };
        let err = |field: &str, msg: String| Error::input(file, line, field, format!("{who}{msg}"));
        let model = zoo.lookup(&spec.model).ok_or_else(|| {
            err(
                "model",
                format!(
                    "unknown model '{}' (known: {})",
                    spec.model,
                    zoo.names().join(", ")
                ),
            )
        })?;
        let kind = match &spec.gpu_type {
            Some(t) => {
                let k = GpuKind::by_name(t)
                    .ok_or_else(|| err("gpu_type", format!("unknown GPU type '{t}'")))?;
                if !cluster.kinds.contains(&k) {
                    return Err(err(
                        "gpu_type",
                        format!("cluster '{}' has no {t} GPUs", cluster.name),
                    ));
                }
                k
            }
            None => cluster.kinds[0],
        };
        let limit = if spec.gpu_type.is_some() {
            cluster.gpus_of(kind)
        } else {
            cluster.max_gpus_one_type()
        };
        let elastic = spec.adaptivity != Adaptivity::Rigid && spec.gpu_type.is_none();
        if spec.gpus > limit && elastic && spec.gpus <= cluster.total_gpus {
            notes.push(format!(
                "job '{}' requests {} GPUs but no GPU type of '{}' has that many: its request is clamped to {limit}",
                spec.name, spec.gpus, cluster.name
            ));
            spec.gpus = limit;
        }
        if spec.gpus > limit {
            return Err(err(
                "gpus",
                format!(
                    "job '{}' requests {} GPUs but cluster '{}' has at most {limit} of one type",
                    spec.name, spec.gpus, cluster.name
                ),
            ));
        }
        let info = zoo.get(model);
        let work = match (spec.work, spec.duration) {
            (Some(w), _) => w,
            (None, Some(d)) => {
                let batch = if spec.batch_size > 0 {
                    spec.batch_size
                } else {
                    info.default_batch
                };
                let per_node = cluster.max_node_gpus(kind).max(1);
                let q = RateQuery {
                    kind,
                    gpus: spec.gpus,
                    nodes: spec.gpus.div_ceil(per_node),
                    batch: BatchChoice::Fixed(batch),
                    progress: 0.0,
                };
                let r = zoo.rate(model, &q).per_s;
                let work = zoo.work_for_duration(model, &q, d);
                if r <= 0.0 || !r.is_finite() || work.is_nan() || work <= 0.0 {
                    return Err(err(
                        "model",
                        format!(
                            "model '{}' makes no progress on {} {} GPUs",
                            info.name,
                            spec.gpus,
                            kind.name()
                        ),
                    ));
                }
                work
            }
            (None, None) => info.default_work.ok_or_else(|| {
                err(
                    "duration",
                    format!(
                        "no work or duration given and model '{}' has no default length",
                        info.name
                    ),
                )
            })?,
        };
        out.push(JobState::new(model, work));
    }
    Ok(out)
}
