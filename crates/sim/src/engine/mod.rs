//! The simulation loop: the event queue, arrivals and completions, and
//! when the policy is called. How a decision changes job state lives in
//! `changes`, what a run reports in `outcome`, and the checks of a trace
//! against the cluster and zoo in `resolve`.

mod changes;
mod delay;
mod fork;
mod occupancy;
mod outcome;
mod resolve;

use delay::PendingDecision;
use occupancy::Occupancy;
pub(crate) use resolve::resolve_jobs;

pub use fork::Forecast;
pub use outcome::{JobResult, Outcome, Progress, TypeTime};

use super::config::EngineConfig;
use super::events::{EventKind, EventQueue};
use super::pools::PoolLedger;
use super::recorder::Recorder;
use super::state::{JobState, Phase};
use super::store::JobStore;
use super::timeline::RoundStat;
use super::view::{Decision, View};
use crate::{Policy, Trigger};
use schedlab_core::error::{Error, Result};
use schedlab_model::cluster::Cluster;
use schedlab_model::perf::ModelZoo;
use schedlab_model::workload::{JobSpec, Trace};
use std::collections::BTreeSet;
use std::sync::Arc;

/// A runnable (and forkable) simulation.
#[derive(Clone)]
pub struct Simulation {
    cfg: EngineConfig,
    cluster: Arc<Cluster>,
    zoo: Arc<ModelZoo>,
    /// Goodput models' rates already computed (shared with forks).
    rates: Arc<schedlab_model::perf::EpochRates>,
    specs: Arc<Vec<JobSpec>>,
    /// None only while the policy is deciding (it is lent to the call so
    /// that the call's `View` can borrow the whole simulation for forks).
    policy: Option<Box<dyn Policy>>,
    trigger: Trigger,
    jobs: JobStore,
    now: f64,
    next_arrival: usize,
    queue: EventQueue,
    active: BTreeSet<u32>,
    waiting: BTreeSet<u32>,
    running: BTreeSet<u32>,
    /// GPUs held whole or in slices, to check decisions.
    occupancy: Occupancy,
    /// GPUs held per pool, peaks and borrowed GPU-seconds.
    pools: PoolLedger,
    /// Pools' home cells under `engine.placement=cells` (`cluster::cells`).
    homes: Option<Arc<schedlab_model::cluster::cells::Homes>>,
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
    /// Policy calls so far and the wall-clock seconds they took (benchmarks).
    policy_calls: u64,
    policy_seconds: f64,
    /// Timeline and per-call stats (a fork's records nothing).
    recorder: Recorder,
    /// The reasons buffers of the last call, emptied, lent to the next
    /// call's decision (so a call with reasons allocates nothing new).
    spare_reasons: crate::reason::Reasons,
    /// The changes of the last call with reasons, by job (emptied, reused:
    /// a call allocates nothing to look up what its decision gives a job).
    spare_changed: Vec<(u32, f64)>,
    /// A fork made inside a policy call repeats that call first (with its
    /// round-tick flag) before any time passes.
    pending_call: Option<bool>,
    /// A decision waiting for the scheduler delay (`delay`), the token of
    /// its event, and whether a call fell due meanwhile.
    pending_decision: Option<PendingDecision>,
    decision_token: u64,
    deferred_call: bool,
    stop_reason: Option<String>,
    /// Adjustments made to the input (clamped requests), reported with the outcome.
    notes: Vec<String>,
    /// The policy declared oracle knowledge of job lengths (`View::oracle`).
    oracle: bool,
    /// The watchdog: where simulated time last moved by [`MIN_ADVANCE_S`]
    /// and how many events have passed since.
    stall_mark: f64,
    stall_events: u64,
    /// The last round call changed nothing and the policy is `steady`:
    /// the rounds until the next event are skipped.
    quiet: bool,
    /// Rounds skipped since the policy's last call (told before the next).
    skipped: u64,
    /// A fork (`fork`): only its jobs' completion times are read, so its
    /// stale events are dropped instead of each taking a step
    /// (`View::in_forecast` tells a policy).
    pub(crate) is_fork: bool,
}

/// Draws each job's true work around its declared work (`engine.length_noise`):
/// a mean-one log-normal factor per job, from a stream keyed by the run's
/// seed and the job's id, so a job's length does not depend on the others.
fn hide_lengths(jobs: &mut [JobState], sigma: f64, seed: u64) {
    if sigma <= 0.0 {
        return;
    }
    for (id, st) in jobs.iter_mut().enumerate() {
        let mut rng = schedlab_core::rng::Sampler::derive(seed, &format!("length-{id}"));
        let factor = schedlab_core::num::exp(sigma * rng.normal() - sigma * sigma / 2.0);
        st.work = st.declared_work * factor;
    }
}

/// Misestimates each job's size (`engine.size_error` = p, PCS Fig. 10): a
/// factor from U[1-p, 1+p] per job, from a stream keyed by the run's seed and
/// the job's id (so the same job gets the same factor under every policy),
/// scales the declared work; the true work is untouched. The factor is kept,
/// so the estimated remaining work stays factor x true remaining work
/// (`View::declared_remaining_work`), the artifact's reading.
fn misestimate_sizes(jobs: &mut [JobState], p: f64, seed: u64) {
    if p <= 0.0 {
        return;
    }
    for (id, st) in jobs.iter_mut().enumerate() {
        let mut rng = schedlab_core::rng::Sampler::derive(seed, &format!("size-{id}"));
        let factor = 1.0 - p + 2.0 * p * rng.uniform();
        st.declared_work *= factor;
        st.size_factor = factor;
    }
}

/// Draws how many epochs each job runs when its model has an epoch law
/// (`engine.early_stop`): the true work becomes W / max of the declared
/// work, W from a stream keyed by the run's seed and the job's id, so every
/// policy sees the same draws (common random numbers).
fn draw_early_stops(jobs: &mut [JobState], zoo: &ModelZoo, seed: u64) {
    for (id, st) in jobs.iter_mut().enumerate() {
        let Some(law) = &zoo.get(st.model).epochs else {
            continue;
        };
        let mut rng = schedlab_core::rng::Sampler::derive(seed, &format!("stop-{id}"));
        let w = law.quantile(rng.uniform()).max(1);
        st.work *= w as f64 / law.max_epochs as f64;
    }
}

/// Calls with nothing running and nothing arriving before a round-based
/// run is declared stuck.
const STUCK_CALLS: u32 = 10_000;

/// The watchdog's step: simulated time must move by this much (1 ms, far
/// below any trace's resolution or round) within [`stall_budget`] events.
const MIN_ADVANCE_S: f64 = 1e-3;

/// Events allowed without time moving by [`MIN_ADVANCE_S`]: every job can
/// arrive, start, change rate and finish at one instant, plus a margin.
fn stall_budget(jobs: usize) -> u64 {
    10_000 + 8 * jobs as u64
}

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
        // Pools' home cells under locality (`engine.placement=cells`), once
        // the quotas are known to fit the cluster at all.
        cluster.pools.check(&cluster.name, cluster.total_gpus)?;
        let homes = if cfg.placement == schedlab_model::cluster::PlacementRule::Cells
            && !cluster.pools.is_empty()
        {
            Some(Arc::new(schedlab_model::cluster::cells::Homes::bind(
                &cluster,
                &cluster.pools,
            )?))
        } else {
            None
        };
        let mut jobs = resolve_jobs(
            trace,
            &mut specs,
            &cluster,
            &zoo,
            homes.as_deref(),
            &mut notes,
        )?;
        hide_lengths(&mut jobs, cfg.length_noise, cfg.seed);
        if cfg.early_stop {
            draw_early_stops(&mut jobs, &zoo, cfg.seed);
        }
        misestimate_sizes(&mut jobs, cfg.size_error, cfg.seed);
        let trigger = policy.trigger();
        if let Some(r) = trigger.round_s.filter(|r| !(*r >= crate::SHORTEST_ROUND_S)) {
            return Err(Error::config(format!(
                "policy {}: a round of {r} s is shorter than the engine's shortest of {} s",
                policy.name(),
                crate::SHORTEST_ROUND_S
            )));
        }
        let oracle = policy.knowledge() == crate::Knowledge::Oracle;
        let first = trace.jobs.first().map_or(0.0, |j| j.arrival);
        let next_tick = trigger.round_s.map(|r| (first / r).ceil() * r);
        let jobs = JobStore::from_vec(jobs);
        Ok(Simulation {
            homes,
            occupancy: Occupancy::new(&cluster, zoo.prices()),
            recorder: Recorder::new(cfg.record_timeline, cfg.record_insight),
            spare_reasons: Default::default(),
            spare_changed: Vec::new(),
            pending_call: None,
            pending_decision: None,
            decision_token: 0,
            deferred_call: false,
            cfg,
            policy: Some(policy),
            trigger,
            jobs,
            now: first,
            next_arrival: 0,
            queue: EventQueue::default(),
            active: BTreeSet::new(),
            waiting: BTreeSet::new(),
            running: BTreeSet::new(),
            pools: PoolLedger::new(&cluster.pools, first),
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
            policy_calls: 0,
            policy_seconds: 0.0,
            stop_reason: None,
            specs: Arc::new(specs),
            rates: Arc::default(),
            notes,
            oracle,
            stall_mark: first,
            stall_events: 0,
            quiet: false,
            skipped: 0,
            is_fork: false,
            cluster,
            zoo,
        })
    }

    /// The latest simulated time the run reaches (`engine.max_days`).
    pub fn stop_time(&self) -> f64 {
        self.cfg.max_time
    }

    /// The pool's home cells (GPU masks per node) under
    /// `engine.placement=cells`; `None` otherwise or for jobs without a pool.
    pub fn home_cells(&self, pool: schedlab_model::cluster::PoolId) -> Option<&[u64]> {
        self.homes.as_ref().and_then(|h| h.of(pool as usize))
    }

    pub fn now(&self) -> f64 {
        self.now
    }

    pub fn jobs(&self) -> &JobStore {
        &self.jobs
    }

    pub fn specs(&self) -> &[JobSpec] {
        &self.specs
    }

    /// GPUs the jobs of a pool hold now (0 for `NO_POOL`).
    pub fn pool_used(&self, pool: schedlab_model::cluster::PoolId) -> u32 {
        self.pools.used(pool)
    }

    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    pub fn zoo(&self) -> &ModelZoo {
        &self.zoo
    }

    pub fn policy_name(&self) -> &str {
        self.policy.as_ref().map_or("", |p| p.name())
    }

    /// Policy calls so far and the wall-clock seconds they took (recorded
    /// whether or not the timeline is; `schedlab bench` splits a run's time
    /// with them).
    pub fn policy_time(&self) -> (u64, f64) {
        (self.policy_calls, self.policy_seconds)
    }

    pub fn is_finished(&self) -> bool {
        self.stop_reason.is_some()
    }

    /// Keeps policies' per-round diagnostics (`RoundStat::insight`) while
    /// the timeline is recorded, within `insight::MAX_CELLS_PER_RUN`.
    pub fn set_record_insight(&mut self, on: bool) {
        self.cfg.record_insight = on;
        self.recorder.set_insight(on);
    }

    /// Keeps policies' per-job reasons (`sim::reason`), all jobs' or only
    /// `only_job`'s, within `reason_log::MAX_REASON_VALUES`. Independent of
    /// the timeline; a fork never keeps them.
    pub fn set_record_reasons(&mut self, on: bool, only_job: Option<u32>) {
        self.recorder.set_reasons(on, only_job);
    }

    /// Runs to the end. `progress` is called now and then; returning false
    /// cancels the run. The outcome takes the run's reasons (see below).
    pub fn run(&mut self, progress: &mut dyn FnMut(&Progress) -> bool) -> Result<Outcome> {
        let mut n = 0u32;
        while self.step()? {
            n += 1;
            if n.is_multiple_of(512) && !progress(&self.progress()) {
                return Err(Error::Cancelled);
            }
        }
        progress(&self.progress());
        // The run is over: its reasons move to the outcome instead of being
        // copied (a full log is tens of MB, and copying it costs about as
        // much as writing it did); `outcome()` after this has none.
        let reasons = self.recorder.take_reasons();
        let mut outcome = self.outcome();
        outcome.reasons = reasons;
        Ok(outcome)
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
        if self.active.is_empty() && self.next_arrival >= self.specs.len() {
            // A fork sees no further arrivals: its jobs are all done.
            self.stop("all arrived jobs completed");
            return Ok(false);
        }
        if let Some(tick) = self.pending_call.take() {
            self.call_policy(tick)?;
            return Ok(true);
        }
        if self.is_fork && self.pending_decision.is_none() && !self.deferred_call {
            self.drop_stale_events();
        }
        let Some(t) = self.next_event_time() else {
            self.stop("no further events: the policy left waiting jobs unscheduled");
            return Ok(false);
        };
        if t > self.cfg.max_time {
            // The run goes on to its horizon: jobs holding GPUs keep
            // accruing GPU time and progress until it (metrics count it).
            self.set_time(self.cfg.max_time);
            self.stop("max_days reached");
            return Ok(false);
        }
        self.set_time(t);
        self.events += 1;
        self.watchdog()?;

        // Completions and rate changes first (a freed GPU is free for arrivals at the same time).
        let mut woke = false;
        let mut due_decision = None;
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
                EventKind::Decision { token } => due_decision = Some(token),
            }
        }
        // After this instant's completions, so that the jobs they ended are dropped.
        if let Some(token) = due_decision {
            self.apply_pending(token)?;
        }
        let first_arrival = self.next_arrival;
        while let Some(spec) = self.specs.get(self.next_arrival) {
            if spec.arrival > t {
                break;
            }
            let id = spec.id;
            self.next_arrival += 1;
            self.arrive(id);
        }
        let arrived = self.next_arrival > first_arrival;
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
        let due = tick || (self.trigger.on_events && churn) || woke || self.deferred_call;
        if due && self.decision_pending() {
            // One decision in flight at a time: call once it is in effect.
            self.deferred_call = true;
        } else if due && !self.active.is_empty() {
            self.deferred_call = false;
            self.call_policy(tick)?;
            if tick && self.quiet {
                self.skip_quiet_rounds();
            }
        }
        if arrived && self.cfg.predict {
            self.predict_at_arrival(first_arrival as u32)?;
        }
        if self.completed == self.jobs.len() {
            self.stop("all jobs completed");
            return Ok(false);
        }
        Ok(true)
    }

    /// Moves the next round tick past every round before the next event
    /// (the policy said nothing changes until one): ticks stay the same
    /// multiples of the round, summed one by one as when every round runs,
    /// so the call after the event sees the same time to the bit.
    fn skip_quiet_rounds(&mut self) {
        let (Some(r), Some(mut tick)) = (self.trigger.round_s, self.next_tick) else {
            return;
        };
        let mut next_event = self.queue.peek_time().unwrap_or(f64::INFINITY);
        if let Some(a) = self.specs.get(self.next_arrival) {
            next_event = next_event.min(a.arrival);
        }
        // Past the horizon the run stops anyway.
        let until = next_event.min(self.cfg.max_time + r);
        if !until.is_finite() {
            return;
        }
        // The tick just taken is the one after the call: not skipped.
        let mut rounds = 0u64;
        while tick < until {
            tick += r;
            rounds += 1;
        }
        self.skipped += rounds;
        self.next_tick = Some(tick);
    }

    /// Refuses to go on when simulated time has not moved by
    /// [`MIN_ADVANCE_S`] over [`stall_budget`] events: a run that cannot
    /// make progress (a policy waking itself 1e-300 s ahead) would
    /// otherwise spin until memory runs out.
    fn watchdog(&mut self) -> Result<()> {
        if self.now >= self.stall_mark + MIN_ADVANCE_S {
            self.stall_mark = self.now;
            self.stall_events = 0;
            return Ok(());
        }
        self.stall_events += 1;
        if self.stall_events <= stall_budget(self.jobs.len()) {
            return Ok(());
        }
        let name = self.policy_name().to_string();
        let cause = match self.trigger.round_s {
            Some(r) if r < 1.0 => format!("its round of {r} s ({name}.round_s)"),
            _ => format!("its wake-ups (a lease, quantum or tick setting of {name})"),
        };
        Err(Error::config(format!(
            "policy {name}: simulated time stayed at t = {:.3} s for {} events, so the run cannot make progress; check {cause}",
            self.now, self.stall_events
        )))
    }

    fn stop(&mut self, why: &str) {
        if self.stop_reason.is_none() {
            let now = self.now;
            for id in self.running.clone() {
                let st = &mut self.jobs[id as usize];
                st.advance(now);
                if let Some(seg) = st.open_segment.take() {
                    self.recorder.close(seg, now, st.done_fraction());
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
            self.recorder.close(seg, now, 1.0);
        }
        let placement = st.set_placement(None);
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
            self.occupancy.release(p, self.now);
            let (pool, gpus) = (self.jobs[id as usize].pool, p.gpus());
            self.pools.release(pool, gpus, self.now);
            self.record_cost_rate();
        }
    }

    /// Notes the GPUs' cost rate after a change of what is held (recorded
    /// runs on priced GPU types only).
    fn record_cost_rate(&mut self) {
        if !self.recorder.is_on() {
            return;
        }
        if let Some(rate) = self.occupancy.cost_rate_usd_h(self.cfg.idle_price) {
            self.recorder.cost_rate(self.now, rate);
        }
    }

    fn call_policy(&mut self, tick: bool) -> Result<()> {
        let started = web_time::Instant::now();
        let mut decision = Decision::default();
        let want_insight = self.recorder.wants_insight();
        let want_reasons = self.recorder.wants_reasons();
        if want_reasons {
            decision.reasons = std::mem::take(&mut self.spare_reasons);
        }
        let mut policy = self.policy.take().expect("the policy is not lent out");
        let breach;
        if self.skipped > 0 {
            policy.skipped(std::mem::take(&mut self.skipped));
        }
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
                early_stop: self.cfg.early_stop,
                insight: want_insight,
                reasons: want_reasons,
                rules: crate::rules::Rules::of(&self.cfg),
                oracle: self.oracle,
                sim: self,
                breach: Default::default(),
            };
            policy.schedule(&view, &mut decision);
            breach = view.take_breach();
        }
        let no_arrival_left = self.next_arrival >= self.specs.len();
        self.quiet = tick
            && decision.changes.is_empty()
            && decision.wake_at.is_none()
            && (policy.steady() || (no_arrival_left && policy.steady_to_the_end()));
        self.policy = Some(policy);
        if let Some(why) = breach {
            return Err(Error::Internal(format!(
                "policy '{}': {why}",
                self.policy_name()
            )));
        }
        // A decision may name only jobs active at this call, even if it
        // takes effect later (`engine.scheduler_delay`).
        self.check_names(&decision)?;
        // Paired solves only measure other methods: not the policy's time.
        let paired_s: f64 = decision.solver_paired.iter().map(|(_, s)| s).sum();
        let policy_s = (started.elapsed().as_secs_f64() - paired_s).max(0.0);
        self.policy_calls += 1;
        self.policy_seconds += policy_s;
        self.arrived_since.clear();
        self.completed_since.clear();
        let changes = decision.changes.len() as u32;
        if !decision.reasons.is_empty() {
            self.keep_reasons(&mut decision);
        }
        if !decision.gauges.is_empty() {
            let readings = std::mem::take(&mut decision.gauges);
            self.recorder.gauges(self.now, readings);
        }
        let insight = decision.insight.take();
        let (solver_s, slowest_part_s) = (decision.solver_s, decision.solver_slowest_part_s);
        let (solver_vars, solver_changed_vars) =
            (decision.solver_vars, decision.solver_changed_vars);
        let solver_paired = std::mem::take(&mut decision.solver_paired);
        let fallback = decision.fallback.clone();
        let delay = self.decision_delay(policy_s, &decision);
        // A decision that takes effect later is not a quiet round.
        self.quiet &= delay <= 0.0;
        if delay > 0.0 {
            self.defer_decision(decision, delay);
        } else {
            self.put_into_effect(decision)?;
        }
        // Round-based policies tick forever: stop one that never places anything.
        let idle = self.running.is_empty()
            && !self.decision_pending()
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
        self.recorder.round(
            RoundStat {
                t: self.now,
                busy_gpus: self.occupancy.busy_gpus(),
                running: self.running.len() as u32,
                waiting: self.waiting.len() as u32,
                changes,
                policy_s,
                solver_s,
                solver_slowest_part_s: slowest_part_s,
                solver_vars,
                solver_changed_vars,
                solver_paired,
                delay_s: (delay > 0.0).then_some(delay),
                fallback,
                insight: None,
            },
            insight,
        );
        Ok(())
    }

    /// Hands the decision's reasons to the recorder with the GPUs the
    /// decision gives each job (its new placement, else what it holds).
    fn keep_reasons(&mut self, decision: &mut Decision) {
        let mut reasons = std::mem::take(&mut decision.reasons);
        // The changes sorted by job (stable: a job changed twice gets its
        // last change, as the decision applies them), searched per reason.
        let mut changed = std::mem::take(&mut self.spare_changed);
        changed.extend(
            decision
                .changes
                .iter()
                .map(|(j, a)| (*j, a.as_ref().map_or(0.0, |a| a.placement.gpu_equiv()))),
        );
        changed.sort_by_key(|(j, _)| *j);
        let jobs = &self.jobs;
        // What a job holds is kept with its placement (`JobState::gpu_equiv`).
        let held = |j: u32| jobs.get(j as usize).map_or(0.0, |s| s.gpu_equiv());
        self.recorder.reasons(self.now, &reasons, |j| {
            match changed.partition_point(|(c, _)| *c <= j).checked_sub(1) {
                Some(i) if changed[i].0 == j => changed[i].1,
                _ => held(j),
            }
        });
        reasons.clear();
        self.spare_reasons = reasons;
        changed.clear();
        self.spare_changed = changed;
    }

    /// Applies a decision now: its changes, announced plans and groups, and wake-up.
    fn put_into_effect(&mut self, mut decision: Decision) -> Result<()> {
        self.apply(&decision)?;
        for (job, done, steps) in std::mem::take(&mut decision.plans) {
            self.recorder.plan(job, self.now, done, steps);
        }
        for (job, group) in std::mem::take(&mut decision.groups) {
            self.recorder.group(job, self.now, group);
        }
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
        Ok(())
    }
}
