//! Performance models: how fast a job progresses on an allocation.
//!
//! The engine asks the [`ModelZoo`] for a job's progress rate (work units per
//! second) given GPU type, GPU count, node count, batch choice and progress.
//! Work units are per model: iterations at the model's reference batch for
//! speedup-curve models, M0-iterations (iterations at the initial batch) for
//! Pollux goodput models, whose rate changes at epoch boundaries
//! (`Rate::until_progress`). A trace that only gives a duration is converted
//! to work with the rates at the requested allocation, so the job takes
//! exactly that long if it always has its request.
//!
//! - [`goodput`]: the Pollux goodput model (throughput θ per GPU type,
//!   statistical efficiency, batch choice, fitting) and the scheduler-side
//!   estimator of Sia's bootstrapping;
//! - [`profiles`]: the Pollux/Sia profile directory reader; [`fitting`]:
//!   from profiles to zoo models and the generated built-in tables;
//! - [`optim`]: the bounded minimiser used by the fit;
//! - [`power`]: idle and busy watts per GPU type.

mod afs_tables;
pub mod apps;
mod builtin_fits;
pub mod copter;
mod curve;
pub mod epochs;
pub mod fitting;
mod gavel;
pub mod goodput;
pub mod optim;
pub mod pcs_tables;
pub mod power;
pub mod price;
pub mod profiles;
pub mod sharing;
pub mod sts_data;
pub mod sts_jobs;
pub mod table;
mod zoo;

pub use afs_tables::{parse_afs_tables, zoo_name as afs_zoo_name};
pub use curve::SpeedupCurve;
pub use gavel::{gavel_model_name, gavel_models, gavel_models_from_json};
pub use power::GpuPower;
pub use table::{table_models_from_json, GoodputTable};
pub use zoo::{
    Behaviour, EpochRates, ModelId, ModelInfo, ModelZoo, RateMemo, Share, ZooSettings, ZOO_PARAMS,
};

use crate::cluster::GpuKind;
use serde::Serialize;

/// How the batch size of an allocation is chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BatchChoice {
    /// Run at exactly this global batch (rigid and strong-scaling jobs).
    Fixed(u32),
    /// Let the job pick the goodput-optimal batch up to this global maximum.
    Optimize { max: u32 },
}

/// A question to the zoo: the rate of one job on one allocation.
#[derive(Debug, Clone, Copy)]
pub struct RateQuery {
    pub kind: GpuKind,
    pub gpus: u32,
    pub nodes: u32,
    pub batch: BatchChoice,
    /// Work done so far (goodput models' efficiency changes with progress).
    pub progress: f64,
}

/// The zoo's answer.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rate {
    /// Work units per second.
    pub per_s: f64,
    /// Global batch size the job runs at (0 if the model has no batch notion).
    pub batch: u32,
    /// Progress at which this rate stops being valid (next epoch boundary);
    /// `f64::INFINITY` if it is constant.
    pub until_progress: f64,
}
