//! What a policy sees (`View`, read-only) and what it returns (`Decision`).

use super::engine::{Forecast, Simulation};
use super::insight::RoundInsight;
use super::state::{JobState, Phase};
use super::store::JobStore;
use schedlab_model::cluster::{Cluster, GpuKind, Packer, Placement, PlacementRule};
use schedlab_model::perf::{BatchChoice, ModelInfo, ModelZoo, RateQuery};
use schedlab_model::workload::{Adaptivity, JobSpec};
use std::collections::BTreeSet;

/// A read-only snapshot of the simulation at a scheduling point.
pub struct View<'a> {
    pub now: f64,
    pub cluster: &'a Cluster,
    pub zoo: &'a ModelZoo,
    pub specs: &'a [JobSpec],
    pub jobs: &'a JobStore,
    /// Arrived, unfinished jobs in arrival order (ids are arrival-sorted).
    pub active: &'a BTreeSet<u32>,
    /// Active jobs without GPUs.
    pub waiting: &'a BTreeSet<u32>,
    /// Active jobs with GPUs.
    pub running: &'a BTreeSet<u32>,
    pub rule: PlacementRule,
    /// Jobs that arrived / completed since the previous call.
    pub arrived: &'a [u32],
    pub completed: &'a [u32],
    /// True when this call is a round tick (round-based policies).
    pub round_tick: bool,
    /// Throughput is learnt by measurement (`engine.measure=overestimate`).
    pub measure: bool,
    /// Jobs stop early by their models' epoch laws (`engine.early_stop`);
    /// when not, every job runs its maximum and policies are told so.
    pub early_stop: bool,
    /// The engine records a per-round diagnostic (`Decision::insight`); see [`View::want_insight`].
    pub insight: bool,
    /// The engine keeps per-job reasons (`Decision::explain`); see [`View::want_reasons`].
    pub reasons: bool,
    /// The policy declared oracle knowledge of job lengths (its registry
    /// entry's [`crate::Knowledge`]); only then does [`View::oracle`] answer.
    pub(crate) oracle: bool,
    /// The simulation itself, for forks ([`View::forecast`]); private so a
    /// policy reaches the truth only through the guarded accessors.
    pub(crate) sim: &'a Simulation,
}

/// True job lengths, for policies that declare oracle knowledge (SRTF,
/// Optimus, AFS-L and the other "length-aware" policies of their papers).
/// Everyone else sees what a real scheduler is told: declared work and the
/// progress so far ([`View::declared_remaining_work`]).
#[derive(Clone, Copy)]
pub struct Oracle<'v, 'a> {
    view: &'v View<'a>,
}

impl<'a> Oracle<'_, 'a> {
    /// True total work of the job.
    pub fn work(&self, job: u32) -> f64 {
        self.view.jobs[job as usize].work
    }

    /// True work still to do.
    pub fn remaining_work(&self, job: u32) -> f64 {
        let s = &self.view.jobs[job as usize];
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

    /// True remaining time at `gpus` GPUs (infinite at zero GPUs).
    pub fn remaining_time(&self, job: u32, gpus: u32) -> f64 {
        let r = self.view.rate(job, gpus);
        if r > 0.0 {
            self.remaining_work(job) / r
        } else {
            f64::INFINITY
        }
    }
}

impl<'a> View<'a> {
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

    pub fn spec(&self, job: u32) -> &'a JobSpec {
        &self.specs[job as usize]
    }

    pub fn state(&self, job: u32) -> &'a JobState {
        &self.jobs[job as usize]
    }

    pub fn placement(&self, job: u32) -> Option<&'a Placement> {
        self.jobs[job as usize].placement.as_ref()
    }

    /// Memory the job needs on a GPU, in MB (0 if unknown): what a slice
    /// of a shared GPU must reserve for it.
    pub fn memory_need_mb(&self, job: u32) -> u32 {
        memory_need_mb(self.spec(job), self.zoo.get(self.jobs[job as usize].model))
    }

    /// The declared pools (tenants with GPU quotas); empty if none.
    pub fn pools(&self) -> &'a schedlab_model::cluster::Pools {
        &self.cluster.pools
    }

    /// The job's pool (`NO_POOL` when the run declares none).
    pub fn pool_of(&self, job: u32) -> schedlab_model::cluster::PoolId {
        self.jobs[job as usize].pool
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
        self.jobs[job as usize].gpus()
    }

    /// When each active job would finish if the run went on from this
    /// point under `policy` with no further arrivals (PCS's prediction at
    /// an arrival). The fork starts with this very call (same round flag),
    /// so passing a copy of the calling policy predicts its own decision.
    /// Job lengths are what the calling policy may know: declared work
    /// unless it declared oracle knowledge. Costs the live jobs' state,
    /// not the run's history (see `sim/store.rs`).
    pub fn forecast(
        &self,
        policy: Box<dyn crate::Policy>,
    ) -> schedlab_core::error::Result<Forecast> {
        let knows = if self.oracle {
            crate::Knowledge::Oracle
        } else {
            crate::Knowledge::Declared
        };
        self.sim
            .forecast_with(policy, Some(self.round_tick), knows, None)
    }

    /// True job lengths, if the policy declared oracle knowledge; None
    /// otherwise (the guard that keeps the truth from other policies).
    pub fn oracle(&self) -> Option<Oracle<'_, 'a>> {
        self.oracle.then_some(Oracle { view: self })
    }

    /// Remaining work as this policy may know it: the truth for declared
    /// oracles, declared work minus progress for everyone else.
    pub fn known_remaining_work(&self, job: u32) -> f64 {
        match self.oracle() {
            Some(o) => o.remaining_work(job),
            None => self.declared_remaining_work(job),
        }
    }

    /// [`View::known_remaining_work`] at `gpus` GPUs of the job's default
    /// type (infinite at zero GPUs).
    pub fn known_remaining_time(&self, job: u32, gpus: u32) -> f64 {
        let r = self.rate(job, gpus);
        if r > 0.0 {
            self.known_remaining_work(job) / r
        } else {
            f64::INFINITY
        }
    }

    /// The work the job was submitted with.
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
        self.zoo.get(self.jobs[job as usize].model).epochs.as_ref()
    }

    pub fn declared_work(&self, job: u32) -> f64 {
        self.jobs[job as usize].declared_work
    }

    /// Declared work minus the progress so far (0 once a job has run past
    /// its declared length, which happens when lengths are hidden).
    pub fn declared_remaining_work(&self, job: u32) -> f64 {
        let s = &self.jobs[job as usize];
        (s.declared_work - s.progress_at(self.now)).max(0.0)
    }

    /// GPU-seconds the job has held (Tiresias' attained service).
    pub fn attained_gpu_s(&self, job: u32) -> f64 {
        self.jobs[job as usize].gpu_s_at(self.now)
    }

    /// Seconds the job has held GPUs.
    pub fn executed_s(&self, job: u32) -> f64 {
        self.jobs[job as usize].run_s_at(self.now)
    }

    /// The GPU type a job must run on when it cannot choose: its pinned
    /// type, else the cluster's first type.
    pub fn default_kind(&self, job: u32) -> GpuKind {
        self.spec(job)
            .gpu_type
            .as_deref()
            .and_then(GpuKind::by_name)
            .filter(|k| self.cluster.kinds.contains(k))
            .unwrap_or(self.cluster.kinds[0])
    }

    /// The batch choice a job makes on its own (from its adaptivity).
    pub fn natural_batch(&self, job: u32) -> BatchChoice {
        natural_batch(self.spec(job), self.zoo.get(self.jobs[job as usize].model))
    }

    /// The trace's (rigid) batch size, or the model default.
    pub fn rigid_batch(&self, job: u32) -> u32 {
        rigid_batch(self.spec(job), self.zoo.get(self.jobs[job as usize].model))
    }

    /// Largest useful GPU count (job limit, else model peak, else the cluster).
    pub fn max_useful_gpus(&self, job: u32) -> u32 {
        max_useful_gpus(
            self.spec(job),
            self.zoo.get(self.jobs[job as usize].model),
            self.cluster.total_gpus,
        )
    }

    /// Progress rate the job would have with `gpus` GPUs of `kind`, packed
    /// on as few nodes as possible, with the given batch choice.
    pub fn rate_with(&self, job: u32, kind: GpuKind, gpus: u32, batch: BatchChoice) -> f64 {
        if gpus == 0 {
            return 0.0;
        }
        let per_node = self.cluster.max_node_gpus(kind).max(1);
        let q = RateQuery {
            kind,
            gpus,
            nodes: gpus.div_ceil(per_node),
            batch,
            progress: self.jobs[job as usize].progress_at(self.now),
        };
        self.zoo.rate(self.jobs[job as usize].model, &q).per_s
    }

    /// Rate at `gpus` GPUs of the job's default type with its natural batch.
    pub fn rate(&self, job: u32, gpus: u32) -> f64 {
        self.rate_with(job, self.default_kind(job), gpus, self.natural_batch(job))
    }

    /// The throughput a policy *believes* the job has on `gpus` GPUs. Equal
    /// to [`View::rate`] unless the engine models CoDDL's "overestimate
    /// first, re-adjust later" measurement (`engine.measure`), where a job
    /// is believed linear beyond the largest share it has been measured on.
    pub fn est_rate(&self, job: u32, gpus: u32) -> f64 {
        let st = &self.jobs[job as usize];
        if !self.measure || gpus <= 1 || gpus <= st.measured_gpus {
            return self.rate(job, gpus);
        }
        // Linear extrapolation from the last measured unit (1 GPU if none).
        let m = st.measured_gpus.max(1);
        self.rate(job, m) * gpus as f64 / m as f64
    }

    /// A rate function equal to `est_rate(job, ·)`, resolved once so that
    /// allocation loops can call it cheaply (speed x curve for count-only
    /// models under perfect knowledge; the general query otherwise).
    pub fn rate_fn(&self, job: u32) -> RateFn<'a> {
        if !self.measure {
            let kind = self.default_kind(job);
            if let Some((curve, speed)) = self.zoo.fixed_curve(self.jobs[job as usize].model, kind)
            {
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
        if self.measure && self.jobs[job as usize].measured_gpus == 0 {
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
        self.jobs[job as usize].phase == Phase::Running
    }
}

/// A job's throughput as a function of its GPU count (see `View::rate_fn`).
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
            RateFn::General(job) => view.est_rate(*job, gpus),
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
    pub reasons: Vec<crate::reason::Reason>,
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
    pub fn explain(
        &mut self,
        job: u32,
        rule: &'static crate::reason::Rule,
        rank: Option<u32>,
        values: Vec<crate::reason::Val>,
    ) {
        debug_assert_eq!(values.len(), rule.fields.len(), "{}", rule.id);
        self.reasons.push(crate::reason::Reason {
            job,
            rule,
            rank,
            values,
        });
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
        for &job in view.running {
            if planned.binary_search(&job).is_err() {
                self.preempt(job);
            }
        }
    }
}

/// The batch choice a job makes when no policy picks one: adaptive jobs
/// optimise up to their (or their model's) largest batch, the others run
/// their trace batch.
pub fn natural_batch(spec: &JobSpec, model: &ModelInfo) -> BatchChoice {
    match spec.adaptivity {
        Adaptivity::Adaptive => BatchChoice::Optimize {
            max: if spec.max_batch_size > 0 {
                spec.max_batch_size
            } else {
                model.max_batch
            },
        },
        _ => BatchChoice::Fixed(rigid_batch(spec, model)),
    }
}

/// The engine's rule for the most GPUs a job can use: its own limit, else
/// its model's peak, else the whole cluster (at least 1). Metrics use it too.
pub fn max_useful_gpus(spec: &JobSpec, model: &ModelInfo, cluster_gpus: u32) -> u32 {
    let cap = if spec.max_gpus > 0 {
        spec.max_gpus
    } else if model.max_gpus > 0 {
        model.max_gpus
    } else {
        cluster_gpus
    };
    cap.min(cluster_gpus).max(1)
}

/// The trace's (rigid) batch size, or the model default.
pub fn rigid_batch(spec: &JobSpec, model: &ModelInfo) -> u32 {
    if spec.batch_size > 0 {
        spec.batch_size
    } else {
        model.default_batch
    }
}

/// Memory a job needs on a GPU, in MB: its own figure, else its model's
/// (0 when neither is known). The engine checks slices against it.
pub fn memory_need_mb(spec: &JobSpec, model: &ModelInfo) -> u32 {
    (spec.mem_gb.unwrap_or(model.mem_gb).max(0.0) * 1024.0).ceil() as u32
}
