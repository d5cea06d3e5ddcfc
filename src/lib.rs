//! schedlab: a GPU-cluster scheduling lab for deep-learning training jobs.
//!
//! This package is the facade the `schedlab` binary and the WebAssembly package build
//! from; the code lives in layer crates under `crates/` (docs/ARCHITECTURE.md), each
//! re-exported here under its layer's name so that `schedlab::sim::Simulation`,
//! `schedlab::policy::build` and the rest read as one library.
//!
//! The data flow is `Trace + Cluster + ModelZoo + Policy -> Simulation ->
//! Outcome -> Summary`.

pub use schedlab_core::{error, num, params, prose, rng, sorting, textio};
pub use schedlab_core::{Error, Result};
pub use schedlab_metrics as metrics;
pub use schedlab_model::{cluster, perf, workload};
pub use schedlab_policies as policy;
pub use schedlab_run::{explain, isolated, report, search, validate};
pub use schedlab_sim as sim;
pub use schedlab_solve as solve;
pub use schedlab_web as web;

#[cfg(not(target_arch = "wasm32"))]
pub use schedlab_cli as cli;
#[cfg(not(target_arch = "wasm32"))]
pub use schedlab_lab::{repro, sweep};

#[cfg(target_arch = "wasm32")]
pub mod wasm;
