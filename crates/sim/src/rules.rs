//! The engine's rules, in one place: what a (re)allocation costs, how a
//! job's rate is scaled, which batch a job runs, how much work it has and
//! whether it may move. The engine applies them; metrics, searches,
//! reproductions and policies call these same functions (through
//! [`Rules`], carried by every `Outcome`, or through `View`) instead of
//! re-deriving them.

use crate::config::{EngineConfig, Reconfig};
use schedlab_core::error::Result;
use schedlab_model::cluster::{Cluster, GpuKind};
use schedlab_model::perf::{BatchChoice, Behaviour, ModelInfo, ModelZoo, RateQuery};
use schedlab_model::workload::{Adaptivity, JobSpec};
use serde::Serialize;

/// The engine settings that decide the rules' answers (from
/// [`EngineConfig`]): the restart delay and the rate calibration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rules {
    /// Multiplies every restart delay (`engine.restart_scale`).
    restart_scale: f64,
    /// A constant delay replacing the models' own (`engine.restart_s`).
    restart_s: Option<f64>,
    /// The first allocation pays the delay too (`engine.charge_first_start`).
    charge_first_start: bool,
    /// Under CoDDL reconfiguration (`engine.reconfig=coddl`) a start loads
    /// for this many seconds (`engine.init_s`) instead of the restart delay.
    coddl_init_s: Option<f64>,
    /// Goodput models run slowed by the Sia simulator's calibration
    /// (`engine.calibration=sia`).
    sia_calibration: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules::of(&EngineConfig::default())
    }
}

impl Rules {
    /// The rules a run under `cfg` follows.
    pub fn of(cfg: &EngineConfig) -> Rules {
        Rules {
            restart_scale: cfg.restart_scale,
            restart_s: cfg.restart_s,
            charge_first_start: cfg.charge_first_start,
            coddl_init_s: match cfg.reconfig {
                Reconfig::Coddl { .. } => Some(cfg.init_s),
                Reconfig::Restart => None,
            },
            sia_calibration: cfg.sia_calibration,
        }
    }

    /// Seconds without progress after a job of `model` is (re)placed on a
    /// new node set: `engine.restart_s` when set, else the model's own
    /// delay, times `engine.restart_scale`.
    pub fn restart_delay(&self, model: &ModelInfo) -> f64 {
        self.restart_s.unwrap_or(model.restart_s) * self.restart_scale
    }

    /// Seconds a job of `model` pays at its very first placement: nothing
    /// unless `engine.charge_first_start`, then the restart delay (CoDDL's
    /// load time `init_s` under `engine.reconfig=coddl`). A job alone pays
    /// exactly this once, so the finish-time-fairness reference adds it.
    pub fn first_start_delay(&self, model: &ModelInfo) -> f64 {
        if !self.charge_first_start {
            0.0
        } else {
            self.coddl_init_s
                .unwrap_or_else(|| self.restart_delay(model))
        }
    }

    /// The factor by which a job of `model` runs slower than its model's
    /// rate: the Sia simulator's per-model SLOWDOWN for goodput models
    /// under `engine.calibration=sia`, else 1. The engine divides rates by
    /// it; a time computed from the model's rates is multiplied by it.
    pub fn calibration_slowdown(&self, model: &ModelInfo) -> f64 {
        match &model.behaviour {
            Behaviour::Goodput(g) if self.sia_calibration && g.slowdown > 0.0 => g.slowdown,
            _ => 1.0,
        }
    }
}

/// The factor by which a job runs slower on a `fraction` of a
/// GPU shared with others (1 on whole GPUs; STS §2.7's interference).
pub fn sharing_slowdown(zoo: &ModelZoo, kind: GpuKind, fraction: f64) -> f64 {
    if fraction < 1.0 {
        zoo.sharing().slowdown(kind, fraction)
    } else {
        1.0
    }
}

/// Whether a job must keep its GPUs: it holds some and is not preemptible.
/// The engine refuses a decision that preempts, moves or resizes it.
pub fn pinned(spec: &JobSpec, holds_gpus: bool) -> bool {
    holds_gpus && !spec.preemptible
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

/// The trace's (rigid) batch size, or the model default.
pub fn rigid_batch(spec: &JobSpec, model: &ModelInfo) -> u32 {
    if spec.batch_size > 0 {
        spec.batch_size
    } else {
        model.default_batch
    }
}

/// The most GPUs a job can use: its own limit, else its model's peak, else
/// the whole cluster (at least 1).
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

/// Memory a job needs on a GPU, in MB: its own figure, else its model's
/// (0 when neither is known). The engine checks slices against it.
pub fn memory_need_mb(spec: &JobSpec, model: &ModelInfo) -> u32 {
    (spec.mem_gb.unwrap_or(model.mem_gb).max(0.0) * 1024.0).ceil() as u32
}

/// The GPU type a job runs on when it cannot choose: the type the trace
/// pins it to, else the cluster's first type.
pub fn default_kind(spec: &JobSpec, cluster: &Cluster) -> GpuKind {
    spec.gpu_type
        .as_deref()
        .and_then(GpuKind::by_name)
        .filter(|k| cluster.kinds.contains(k))
        .unwrap_or(cluster.kinds[0])
}

/// A job's declared work, in its model's units: the trace's `work`, else
/// its `duration` at its requested GPUs of `kind` with its rigid batch,
/// else the model's default length. Errors (as `(field, message)`) when
/// none applies or the job makes no progress at its request.
pub fn declared_work(
    spec: &JobSpec,
    model: schedlab_model::perf::ModelId,
    kind: GpuKind,
    cluster: &Cluster,
    zoo: &ModelZoo,
) -> std::result::Result<f64, (&'static str, String)> {
    let info = zoo.get(model);
    match (spec.work, spec.duration) {
        (Some(w), _) => Ok(w),
        (None, Some(d)) => {
            let per_node = cluster.max_node_gpus(kind).max(1);
            let q = RateQuery {
                kind,
                gpus: spec.gpus,
                nodes: spec.gpus.div_ceil(per_node),
                batch: BatchChoice::Fixed(rigid_batch(spec, info)),
                progress: 0.0,
            };
            let r = zoo.rate(model, &q).per_s;
            let work = zoo.work_for_duration(model, &q, d);
            if r <= 0.0 || !r.is_finite() || work.is_nan() || work <= 0.0 {
                return Err((
                    "model",
                    format!(
                        "model '{}' makes no progress on {} {} GPUs",
                        info.name,
                        spec.gpus,
                        kind.name()
                    ),
                ));
            }
            Ok(work)
        }
        (None, None) => info.default_work.ok_or_else(|| {
            (
                "duration",
                format!(
                    "no work or duration given and model '{}' has no default length",
                    info.name
                ),
            )
        }),
    }
}

/// Every job's declared work ([`declared_work`]) as the engine resolves
/// the trace on `cluster` (requests clamped, inputs checked, errors naming
/// file, line and field): what a search sizes jobs by, without running a
/// simulation.
pub fn declared_works(
    trace: &schedlab_model::workload::Trace,
    cluster: &Cluster,
    zoo: &ModelZoo,
) -> Result<Vec<f64>> {
    let mut specs = trace.jobs.clone();
    let jobs = crate::engine::resolve_jobs(trace, &mut specs, cluster, zoo, None, &mut Vec::new())?;
    Ok(jobs.iter().map(|st| st.declared_work).collect())
}
