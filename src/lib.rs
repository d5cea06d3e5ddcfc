//! schedlab: a GPU-cluster scheduling lab for deep-learning training jobs.
//!
//! One crate holds the discrete-event simulator ([`sim`]), the cluster and
//! workload models ([`cluster`], [`workload`]), the performance models
//! ([`perf`]), every scheduling policy ([`policy`]), the LP/MILP layer
//! ([`solve`]) and the metrics ([`metrics`]). It builds natively (the
//! `schedlab` CLI) and as WebAssembly (the static page in `www/`).
//!
//! The data flow is `Trace + Cluster + ModelZoo + Policy -> Simulation ->
//! Outcome -> Summary`; see `docs/ARCHITECTURE.md`.

pub mod cluster;
pub mod error;
pub mod isolated;
pub mod metrics;
pub mod num;
pub mod params;
pub mod perf;
pub mod policy;
pub mod prose;
pub mod report;
// Paper reproductions run from the CLI only (threads, files).
#[cfg(not(target_arch = "wasm32"))]
pub mod repro;
pub mod search;
pub mod sim;
pub mod solve;
pub mod sorting;
#[cfg(not(target_arch = "wasm32"))]
pub mod sweep;
pub mod textio;
pub mod validate;
pub mod web;
pub mod workload;

#[cfg(not(target_arch = "wasm32"))]
pub mod cli;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use error::{Error, Result};
