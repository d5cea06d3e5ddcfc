//! What a policy sees (`View`, read-only) and what it returns (`Decision`).
//!
//! The view is the policy's only door to the run, and it keeps the
//! contract (docs/ARCHITECTURE.md):
//! - a policy sees only jobs that have arrived: asking about another job
//!   is a breach, and the engine fails the run with an error naming the
//!   policy and the job (the view answers nothing about the trace as a
//!   whole, not even its length);
//! - the truth a real scheduler does not know (true work, the true rate
//!   when the run measures rates, future jobs) is behind [`View::oracle`],
//!   which opens only for policies registered as oracles (`Knowledge`);
//! - the engine's rules come from `rules`, the same functions the engine
//!   applies ([`View::pinned`], [`View::restart_delay`], the batch rules).
//!
//! The compiler keeps the rest out of reach (these examples are tests):
//!
//! ```compile_fail,E0616
//! fn trace_length(view: &schedlab_sim::View) -> usize {
//!     view.specs.len() // private: nothing can be sized by the trace
//! }
//! ```
//!
//! ```compile_fail,E0599
//! fn true_work(view: &schedlab_sim::View, job: u32) -> f64 {
//!     view.state(job).done_fraction() // no job state: the truth is behind the door
//! }
//! ```
//!
//! ```
//! fn known_work(view: &schedlab_sim::View, job: u32) -> f64 {
//!     view.oracle().map_or(view.declared_work(job), |door| door.work(job))
//! }
//! ```

use super::engine::{Forecast, Simulation};
use super::insight::RoundInsight;
use super::rules::{self, Rules};
use super::state::{JobState, Phase};
use super::store::JobStore;
use schedlab_model::cluster::{Cluster, GpuKind, Packer, Placement, PlacementRule};
use schedlab_model::perf::{BatchChoice, ModelId, ModelInfo, ModelZoo, Rate, RateQuery};
use schedlab_model::workload::JobSpec;
use std::cell::RefCell;
use std::collections::BTreeSet;

/// A read-only snapshot of the simulation at a scheduling point. Its
/// fields are the engine's; a policy reads them through the methods.
pub struct View<'a> {
    pub(crate) now: f64,
    pub(crate) cluster: &'a Cluster,
    pub(crate) zoo: &'a ModelZoo,
    pub(crate) specs: &'a [JobSpec],
    pub(crate) jobs: &'a JobStore,
    pub(crate) active: &'a BTreeSet<u32>,
    pub(crate) waiting: &'a BTreeSet<u32>,
    pub(crate) running: &'a BTreeSet<u32>,
    pub(crate) rule: PlacementRule,
    pub(crate) arrived: &'a [u32],
    pub(crate) completed: &'a [u32],
    pub(crate) round_tick: bool,
    pub(crate) measure: bool,
    pub(crate) early_stop: bool,
    pub(crate) insight: bool,
    /// The engine keeps per-job reasons (`Decision::explain`); see [`View::want_reasons`].
    pub(crate) reasons: bool,
    pub(crate) rules: Rules,
    /// The policy is registered as an oracle ([`crate::Knowledge`]): only
    /// then does [`View::oracle`] answer and may it read future jobs.
    pub(crate) oracle: bool,
    /// The simulation itself, for forks ([`View::forecast`]); private so a
    /// policy reaches the truth only through the guarded accessors.
    pub(crate) sim: &'a Simulation,
    /// The first breach of the contract during this call (a job read
    /// before it arrived); the engine turns it into an error.
    pub(crate) breach: RefCell<Option<String>>,
}

/// The oracle door: true job lengths, true rates and the jobs still to
/// come, for policies registered as oracles (SRTF, Optimus, AFS-L, the
/// anticipatory references and the other "length-aware" policies of their
/// papers). Everyone else sees what a real scheduler is told: declared
/// work, the progress so far and measured rates.
#[derive(Clone, Copy)]
pub struct Oracle<'v, 'a> {
    view: &'v View<'a>,
}

impl<'a> Oracle<'_, 'a> {
    /// True total work of the job.
    pub fn work(&self, job: u32) -> f64 {
        self.view.st(job).work
    }

    /// True work still to do.
    pub fn remaining_work(&self, job: u32) -> f64 {
        let s = self.view.st(job);
        (s.work - s.progress_at(self.view.now)).max(0.0)
    }

    /// The jobs that arrive in (`from`, `to`], in arrival order: the future
    /// a clairvoyant policy plans for (the anticipatory scheduler's perfect
    /// predictions, its A-SIA-VC and oracle references).
    pub fn arrivals_between(&self, from: f64, to: f64) -> &'a [JobSpec] {
        let specs = self.view.specs;
        let lo = specs.partition_point(|s| s.arrival <= from);
        let hi = specs.partition_point(|s| s.arrival <= to);
        &specs[lo..hi.max(lo)]
    }

    /// True rate at `gpus` GPUs of the job's default type with its natural
    /// batch (what [`View::rate`] says unless the run measures rates; 0 on
    /// no GPUs).
    pub fn rate(&self, job: u32, gpus: u32) -> f64 {
        if gpus == 0 {
            return 0.0;
        }
        let v = self.view;
        v.true_rate_on(job, v.default_kind(job), None, gpus, v.natural_batch(job))
            .per_s
    }

    /// True remaining time at `gpus` GPUs (infinite at zero GPUs).
    pub fn remaining_time(&self, job: u32, gpus: u32) -> f64 {
        let r = self.rate(job, gpus);
        if r > 0.0 {
            self.remaining_work(job) / r
        } else {
            f64::INFINITY
        }
    }
}

impl<'a> View<'a> {
    /// The job's state, if the policy may see the job: it has arrived, or
    /// the policy is an oracle. Any other job is a breach the engine
    /// reports after the call (the answer given meanwhile is never used).
    fn st(&self, job: u32) -> &'a JobState {
        let i = self.seen(job);
        &self.jobs[i]
    }

    /// The job's spec, under the same guard as [`View::st`].
    fn sp(&self, job: u32) -> &'a JobSpec {
        &self.specs[self.seen(job)]
    }

    /// The job's index once the guard has passed (or recorded a breach).
    fn seen(&self, job: u32) -> usize {
        let i = job as usize;
        let visible = match self.jobs.get(i) {
            Some(st) => self.oracle || st.phase != Phase::Future,
            None => false,
        };
        if !visible {
            let why = if i < self.jobs.len() {
                "before it arrived (only oracle policies see jobs to come)"
            } else {
                "which does not exist"
            };
            self.breach
                .borrow_mut()
                .get_or_insert_with(|| format!("it asked about job {job} {why}"));
        }
        i.min(self.jobs.len().saturating_sub(1))
    }

    /// The breach recorded during the call, if any (for the engine).
    pub(crate) fn take_breach(&self) -> Option<String> {
        self.breach.borrow_mut().take()
    }

    /// Whether this call is inside a forecast (a prediction's fork, which
    /// sees no further arrivals) rather than the run itself. For a policy
    /// whose published simulator copies its state into the snapshot
    /// differently from the run (`themis-pcs`); nothing else should depend
    /// on it.
    pub fn in_forecast(&self) -> bool {
        self.sim.is_fork
    }

    /// Simulated time of this call.
    pub fn now(&self) -> f64 {
        self.now
    }

    /// The cluster: its nodes, GPU types and pools.
    pub fn cluster(&self) -> &'a Cluster {
        self.cluster
    }

    /// Arrived, unfinished jobs in arrival order (ids are arrival-sorted).
    pub fn active(&self) -> &'a BTreeSet<u32> {
        self.active
    }

    /// Active jobs without GPUs.
    pub fn waiting(&self) -> &'a BTreeSet<u32> {
        self.waiting
    }

    /// Active jobs with GPUs.
    pub fn running(&self) -> &'a BTreeSet<u32> {
        self.running
    }

    /// Jobs that arrived since the previous call.
    pub fn arrived(&self) -> &'a [u32] {
        self.arrived
    }

    /// Jobs that completed since the previous call.
    pub fn completed(&self) -> &'a [u32] {
        self.completed
    }

    /// One more than the largest id that has arrived: ids are given in
    /// arrival order, so per-job state indexed by id grows to this (a
    /// policy cannot size anything by the trace, which it does not see).
    pub fn id_bound(&self) -> usize {
        let last_active = self.active.last().copied();
        let last_done = self.completed.iter().copied().max();
        let last_arrived = self.arrived.iter().copied().max();
        [last_active, last_done, last_arrived]
            .into_iter()
            .flatten()
            .max()
            .map_or(0, |j| j as usize + 1)
    }

    /// How a claim packs GPUs (`engine.placement`).
    pub fn placement_rule(&self) -> PlacementRule {
        self.rule
    }

    /// True when this call is a round tick (round-based policies).
    pub fn round_tick(&self) -> bool {
        self.round_tick
    }

    /// The latest simulated time the run reaches (`engine.max_days`): a
    /// bound on the age of every job for proofs over the rest of a run
    /// (`Policy::steady_to_the_end`).
    pub fn stop_time(&self) -> f64 {
        self.sim.stop_time()
    }

    /// True when throughput is learnt by measurement
    /// (`engine.measure=overestimate`): the view's rates are then beliefs.
    pub fn measures_rates(&self) -> bool {
        self.measure
    }

    /// True when the engine will keep a [`RoundInsight`] from this call.
    /// Policies build one only then: it must never change a decision, and
    /// runs that do not record it (benchmarks, the CLI) pay nothing.
    pub fn want_insight(&self) -> bool {
        self.insight
    }

    /// True when the engine will keep the reasons of this call
    /// ([`Decision::explain`]). Policies build them only then: a reason
    /// never changes a decision, and runs that do not record them pay nothing.
    pub fn want_reasons(&self) -> bool {
        self.reasons
    }

    /// What the job was submitted with (an arrived job's; see the module doc).
    pub fn spec(&self, job: u32) -> &'a JobSpec {
        self.sp(job)
    }

    /// The job's model (its declared description: batch limits, profiles).
    pub fn model(&self, job: u32) -> &'a ModelInfo {
        self.zoo.get(self.st(job).model)
    }

    /// The job's model id (a key for per-model tables).
    pub fn model_id(&self, job: u32) -> ModelId {
        self.st(job).model
    }

    pub fn placement(&self, job: u32) -> Option<&'a Placement> {
        self.st(job).placement.as_ref()
    }

    /// Work the job has done so far, in its model's units.
    pub fn progress(&self, job: u32) -> f64 {
        self.st(job).progress_at(self.now)
    }

    /// The batch choice of the job's current allocation, if it holds GPUs
    /// (a rigid batch stays fixed, adaptive jobs re-optimise).
    pub fn batch_choice(&self, job: u32) -> Option<BatchChoice> {
        self.st(job).choice
    }

    /// Allocation changes after the job's first start.
    pub fn restarts(&self, job: u32) -> u32 {
        self.st(job).restarts
    }

    /// True while the job holds GPUs but is still paying its restart
    /// (checkpoint-restore) delay.
    pub fn restarting(&self, job: u32) -> bool {
        let st = self.st(job);
        st.placement.is_some() && st.busy_until > self.now
    }

    /// True when the job may not move: it holds GPUs and is not
    /// preemptible (`rules::pinned`); the engine refuses a decision that
    /// preempts, moves or resizes it.
    pub fn pinned(&self, job: u32) -> bool {
        rules::pinned(self.sp(job), self.st(job).placement.is_some())
    }

    /// Seconds the job pays after a move to a new node set
    /// (`rules::Rules::restart_delay`, as the engine charges it).
    pub fn restart_delay(&self, job: u32) -> f64 {
        self.rules.restart_delay(self.model(job))
    }

    /// How much slower a job runs on a `fraction` of a shared GPU of
    /// `kind` (`rules::sharing_slowdown`: the zoo's sharing table).
    pub fn sharing_slowdown(&self, kind: GpuKind, fraction: f64) -> f64 {
        rules::sharing_slowdown(self.zoo, kind, fraction)
    }

    /// What a node's busy GPUs cost per hour, by type and count (the
    /// zoo's price table; the same prices the engine's cost meter uses).
    pub fn prices(&self) -> &'a schedlab_model::perf::price::PriceTable {
        self.zoo.prices()
    }

    /// The slices a GPU of `kind` can be shared into (fraction and
    /// slowdown), from the zoo's sharing table.
    pub fn sharing_slots(
        &self,
        kind: GpuKind,
    ) -> impl Iterator<Item = &'a schedlab_model::perf::sharing::Slot> {
        self.zoo.sharing().slots(kind)
    }

    /// Memory the job needs on a GPU, in MB (0 if unknown): what a slice
    /// of a shared GPU must reserve for it.
    pub fn memory_need_mb(&self, job: u32) -> u32 {
        rules::memory_need_mb(self.sp(job), self.model(job))
    }

    /// The declared pools (tenants with GPU quotas); empty if none.
    pub fn pools(&self) -> &'a schedlab_model::cluster::Pools {
        &self.cluster.pools
    }

    /// The job's pool (`NO_POOL` when the run declares none).
    pub fn pool_of(&self, job: u32) -> schedlab_model::cluster::PoolId {
        self.st(job).pool
    }

    /// The pool's home cells (GPUs per node) under `engine.placement=cells`:
    /// where its in-quota jobs go (`cluster::cells`); `None` otherwise.
    pub fn home_cells(&self, pool: schedlab_model::cluster::PoolId) -> Option<&'a [u64]> {
        self.sim.home_cells(pool)
    }

    /// GPUs the pool's jobs hold now.
    pub fn pool_used(&self, pool: schedlab_model::cluster::PoolId) -> u32 {
        self.sim.pool_used(pool)
    }

    /// GPUs the job holds now.
    pub fn gpus_of(&self, job: u32) -> u32 {
        self.st(job).gpus()
    }

    /// When each active job would finish if the run went on from this
    /// point under `policy` with no further arrivals (PCS's prediction at
    /// an arrival). The fork starts with this very call (same round flag),
    /// so passing a copy of the calling policy predicts its own decision.
    /// Job lengths are what the calling policy may know: declared work
    /// unless it is an oracle. A breach inside the fork is this call's
    /// breach too. Costs the live jobs' state, not the run's history (see
    /// `sim/store.rs`).
    pub fn forecast(
        &self,
        policy: Box<dyn crate::Policy>,
    ) -> schedlab_core::error::Result<Forecast> {
        let knows = if self.oracle {
            crate::Knowledge::Oracle
        } else {
            crate::Knowledge::Declared
        };
        let forecast = self
            .sim
            .forecast_with(policy, Some(self.round_tick), knows, None);
        if let Err(schedlab_core::error::Error::Internal(why)) = &forecast {
            self.breach
                .borrow_mut()
                .get_or_insert_with(|| format!("in a forecast: {why}"));
        }
        forecast
    }

    /// The oracle door ([`Oracle`]), if the policy is registered as an
    /// oracle; None otherwise (the guard that keeps the truth from others).
    pub fn oracle(&self) -> Option<Oracle<'_, 'a>> {
        self.oracle.then_some(Oracle { view: self })
    }

    /// Remaining work as this policy may know it: the truth for oracles,
    /// declared work minus progress for everyone else.
    pub fn known_remaining_work(&self, job: u32) -> f64 {
        match self.oracle() {
            Some(o) => o.remaining_work(job),
            None => self.declared_remaining_work(job),
        }
    }

    /// [`View::known_remaining_work`] at [`View::rate`] on `gpus` GPUs of
    /// the job's default type (infinite at zero GPUs).
    pub fn known_remaining_time(&self, job: u32, gpus: u32) -> f64 {
        let r = self.rate(job, gpus);
        if r > 0.0 {
            self.known_remaining_work(job) / r
        } else {
            f64::INFINITY
        }
    }

    /// The law of the number of epochs the job will run, if early stopping
    /// makes it random (its declared work is then the maximum, in epochs).
    /// None when the engine runs every job to its maximum (`engine.early_stop=false`).
    pub fn epoch_law(
        &self,
        job: u32,
    ) -> Option<&'a schedlab_model::perf::epochs::EpochDistribution> {
        if !self.early_stop {
            return None;
        }
        self.model(job).epochs.as_ref()
    }

    /// The work the job was submitted with.
    pub fn declared_work(&self, job: u32) -> f64 {
        self.st(job).declared_work
    }

    /// Declared work minus the progress so far (0 once a job has run past
    /// its declared length, which happens when lengths are hidden). Under
    /// `engine.size_error` the progress counts at the job's estimation
    /// factor: the estimate is then that factor times the true remaining work.
    pub fn declared_remaining_work(&self, job: u32) -> f64 {
        let s = self.st(job);
        (s.declared_work - s.size_factor * s.progress_at(self.now)).max(0.0)
    }

    /// GPU-seconds the job has held (Tiresias' attained service).
    pub fn attained_gpu_s(&self, job: u32) -> f64 {
        self.st(job).gpu_s_at(self.now)
    }

    /// Seconds the job has held GPUs.
    pub fn executed_s(&self, job: u32) -> f64 {
        self.st(job).run_s_at(self.now)
    }

    /// The GPU type a job must run on when it cannot choose: its pinned
    /// type, else the cluster's first type (`rules::default_kind`).
    pub fn default_kind(&self, job: u32) -> GpuKind {
        rules::default_kind(self.sp(job), self.cluster)
    }

    /// The batch choice a job makes on its own (`rules::natural_batch`).
    pub fn natural_batch(&self, job: u32) -> BatchChoice {
        rules::natural_batch(self.sp(job), self.model(job))
    }

    /// The trace's (rigid) batch size, or the model default (`rules::rigid_batch`).
    pub fn rigid_batch(&self, job: u32) -> u32 {
        rules::rigid_batch(self.sp(job), self.model(job))
    }

    /// Largest useful GPU count (`rules::max_useful_gpus`).
    pub fn max_useful_gpus(&self, job: u32) -> u32 {
        rules::max_useful_gpus(self.sp(job), self.model(job), self.cluster.total_gpus)
    }

    /// The model's rate for the job at its progress now on `gpus` GPUs of
    /// `kind` over `nodes` nodes (None: as few as possible).
    fn true_rate_on(
        &self,
        job: u32,
        kind: GpuKind,
        nodes: Option<u32>,
        gpus: u32,
        batch: BatchChoice,
    ) -> Rate {
        let st = self.st(job);
        let q = RateQuery {
            kind,
            gpus,
            nodes: nodes.unwrap_or_else(|| gpus.div_ceil(self.cluster.max_node_gpus(kind).max(1))),
            batch,
            progress: st.progress_at(self.now),
        };
        self.zoo.rate(st.model, &q)
    }

    /// The rate the policy may know for the job on `gpus` GPUs of `kind`
    /// over `nodes` nodes (None: as few as possible) with `batch`: the
    /// model's rate, except when the run measures rates
    /// (`engine.measure=overestimate`, CoDDL's "overestimate first,
    /// re-adjust later"): beyond the largest share the job has been
    /// measured on it is believed linear from that share (from 1 GPU if
    /// none). The truth is then behind the oracle door.
    pub fn rate_on(
        &self,
        job: u32,
        kind: GpuKind,
        nodes: Option<u32>,
        gpus: u32,
        batch: BatchChoice,
    ) -> Rate {
        let measured = self.st(job).measured_gpus;
        if !self.measure || gpus <= 1 || gpus <= measured {
            return self.true_rate_on(job, kind, nodes, gpus, batch);
        }
        // Linear extrapolation from the last measured unit (1 GPU if none).
        let m = measured.max(1);
        let at_m = self.true_rate_on(job, kind, None, m, batch);
        Rate {
            per_s: at_m.per_s * gpus as f64 / m as f64,
            ..at_m
        }
    }

    /// [`View::rate_on`]'s rate packed on as few nodes as possible (0 on
    /// no GPUs).
    pub fn rate_with(&self, job: u32, kind: GpuKind, gpus: u32, batch: BatchChoice) -> f64 {
        if gpus == 0 {
            return 0.0;
        }
        self.rate_on(job, kind, None, gpus, batch).per_s
    }

    /// The rate the policy may know at `gpus` GPUs of the job's default
    /// type with its natural batch ([`View::rate_on`]).
    pub fn rate(&self, job: u32, gpus: u32) -> f64 {
        self.rate_with(job, self.default_kind(job), gpus, self.natural_batch(job))
    }

    /// A rate function equal to `rate(job, ·)`, resolved once so that
    /// allocation loops can call it cheaply (speed x curve for count-only
    /// models when rates are not measured; the general query otherwise).
    pub fn rate_fn(&self, job: u32) -> RateFn<'a> {
        if !self.measure {
            let kind = self.default_kind(job);
            if let Some((curve, speed)) = self.zoo.fixed_curve(self.st(job).model, kind) {
                return RateFn::Curve(curve, speed);
            }
        }
        RateFn::General(job)
    }

    /// The most GPUs a policy should give the job: its useful maximum, and,
    /// while it has not been measured (`engine.measure`), at most its fair
    /// share ⌊M/n⌋ (at least 1), as CoDDL's initial share.
    pub fn est_cap(&self, job: u32) -> u32 {
        let cap = self.max_useful_gpus(job);
        if self.measure && self.st(job).measured_gpus == 0 {
            let fair = (self.cluster.total_gpus / (self.active.len().max(1) as u32)).max(1);
            cap.min(fair)
        } else {
            cap
        }
    }

    /// A packer where only idle GPUs can be claimed (non-preemptive policies).
    pub fn packer_idle(&self) -> Packer<'a> {
        Packer::idle_only(
            self.cluster,
            self.rule,
            self.running
                .iter()
                .filter_map(|j| self.jobs[*j as usize].placement.as_ref()),
        )
    }

    /// A packer where everything is up for grabs but running jobs have their
    /// current GPUs reserved (preemptive policies that re-plan each time).
    pub fn packer_replan(&self) -> Packer<'a> {
        Packer::replanning(
            self.cluster,
            self.rule,
            self.running
                .iter()
                .filter_map(|j| self.jobs[*j as usize].placement.as_ref().map(|p| (*j, p))),
        )
    }

    pub fn is_running(&self, job: u32) -> bool {
        self.st(job).phase == Phase::Running
    }
}

/// A job's rate as a function of its GPU count (see `View::rate_fn`).
#[derive(Debug, Clone, Copy)]
pub enum RateFn<'a> {
    Curve(&'a schedlab_model::perf::SpeedupCurve, f64),
    General(u32),
}

impl RateFn<'_> {
    pub fn at(&self, view: &View, gpus: u32) -> f64 {
        match self {
            RateFn::Curve(c, speed) => {
                if gpus == 0 {
                    0.0
                } else {
                    speed * c.at_count(gpus)
                }
            }
            RateFn::General(job) => view.rate(*job, gpus),
        }
    }
}

/// One job's new allocation.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    pub placement: Placement,
    /// None: the job's natural batch choice (see `View::natural_batch`).
    pub batch: Option<BatchChoice>,
}

/// What a policy wants changed. Jobs not mentioned keep their allocation.
#[derive(Debug, Clone, Default)]
pub struct Decision {
    pub changes: Vec<(u32, Option<Assignment>)>,
    /// Call the policy again at this time even if nothing happens.
    pub wake_at: Option<f64>,
    /// Set when the policy fell back from its main method (solver failure).
    pub fallback: Option<String>,
    /// Seconds spent in an LP/MILP solver during this call.
    pub solver_s: f64,
    /// For a solver of independent parts (Sia's POP): the slowest part's
    /// seconds, i.e. the solver time with one core per part.
    pub solver_slowest_part_s: Option<f64>,
    /// Variables of the round's optimisation problem, and for a warm-started
    /// solver (Sia's COpter) how many moved from the previous answer.
    pub solver_vars: Option<u32>,
    pub solver_changed_vars: Option<u32>,
    /// Seconds other solver methods took on this same round problem, their
    /// answers unused (Sia's `copter_paired`): a paired comparison of
    /// methods. The engine takes them off the call's time.
    pub solver_paired: Vec<(&'static str, f64)>,
    /// What the policy saw this round, when asked (`View::want_insight`).
    pub insight: Option<Box<RoundInsight>>,
    /// Plans announced for jobs: (job, work done, steps); the timeline
    /// keeps them when it records (see [`Decision::announce_plan`]).
    pub plans: Vec<(u32, f64, Vec<crate::timeline::PlanStep>)>,
    /// Jobs' groups in the policy's own terms: (job, group); the timeline
    /// keeps changes when it records (see [`Decision::set_group`]).
    pub groups: Vec<(u32, u32)>,
    /// Why the policy did what it did, per job, when asked
    /// ([`View::want_reasons`]; see [`Decision::explain`]).
    pub reasons: crate::reason::Reasons,
    /// Numbers the policy computed for the page to plot (see [`Decision::gauge`]).
    pub gauges: Vec<(&'static str, u32, f64)>,
}

impl Decision {
    pub fn assign(&mut self, job: u32, placement: Placement, batch: Option<BatchChoice>) {
        self.changes
            .push((job, Some(Assignment { placement, batch })));
    }

    pub fn preempt(&mut self, job: u32) {
        self.changes.push((job, None));
    }

    /// Says which of the policy's groups `job` is in now (PCS's size class,
    /// a queue level; 0 = the first): recorded for the page, which draws the
    /// GPUs each group holds over time, and never binding. Policies report
    /// groups only when [`View::want_insight`], so other runs pay nothing.
    pub fn set_group(&mut self, job: u32, group: u32) {
        self.groups.push((job, group));
    }

    /// Announces what the policy means to give `job` over its remaining
    /// work (e.g. STS's staircase of GPU counts), from `done` work units:
    /// recorded for the page, never binding.
    pub fn announce_plan(&mut self, job: u32, done: f64, steps: Vec<crate::timeline::PlanStep>) {
        self.plans.push((job, done, steps));
    }

    /// Says why `job` gets what it gets in this call: the rule that decided,
    /// the job's rank in the policy's order if the rule ranks jobs, and one
    /// value per field of the rule. Recorded for `schedlab explain` and the
    /// page, never binding; call it only when [`View::want_reasons`].
    #[inline]
    pub fn explain(
        &mut self,
        job: u32,
        rule: &'static crate::reason::Rule,
        rank: Option<u32>,
        values: impl IntoIterator<Item = crate::reason::Val>,
    ) {
        self.reasons.push(job, rule, rank, values);
    }

    /// [`Decision::explain`] for a rule whose fields are all numbers (no
    /// text): the values are copied straight into the call's reasons.
    #[inline]
    pub fn explain_numbers(
        &mut self,
        job: u32,
        rule: &'static crate::reason::Rule,
        rank: Option<u32>,
        values: &[f64],
    ) {
        self.reasons.push_numbers(job, rule, rank, values);
    }

    /// Notes a number the policy computed this call, e.g. the load it
    /// predicts for pool `key`: kept with the reasons for the page to plot
    /// against what happened, never binding; only when [`View::want_reasons`].
    pub fn gauge(&mut self, name: &'static str, key: u32, value: f64) {
        self.gauges.push((name, key, value));
    }

    pub fn wake_at(&mut self, t: f64) {
        self.wake_at = Some(self.wake_at.map_or(t, |w| w.min(t)));
    }

    /// Turns a complete plan (every job that should hold GPUs, with its
    /// placement) into changes: running jobs absent from the plan are
    /// preempted, unchanged ones are left alone.
    pub fn apply_plan(&mut self, view: &View, plan: Vec<(u32, Placement, Option<BatchChoice>)>) {
        let mut planned: Vec<u32> = plan.iter().map(|(job, _, _)| *job).collect();
        planned.sort_unstable();
        for (job, placement, batch) in plan {
            let unchanged = view.placement(job).is_some_and(|p| *p == placement);
            if !unchanged {
                self.assign(job, placement, batch);
            }
        }
        for &job in view.running() {
            if planned.binary_search(&job).is_err() {
                self.preempt(job);
            }
        }
    }
}
