//! Sweeps: many simulations planned once, run anywhere, merged into one table.
//!
//! A sweep spec (TOML or JSON, [`spec`]) expands into a manifest of runs with
//! stable ids ([`manifest`]): the id is a hash of everything that determines a
//! run's result, so re-planning the same sweep gives the same ids and a
//! changed input gives a new one. `sweep run` executes a share of the
//! manifest ([`shard`]: a shard I/N, one index, or the share a Slurm array
//! task or Kubernetes Indexed Job pod is given by its environment), one
//! result file per run written atomically and verified by a checksum when
//! read back ([`store`]), so a crashed or pre-empted worker is resumed by
//! running it again; workers sharing a directory without shards claim each run
//! first ([`claim`]), so none is done twice. [`merge`] joins the results into one table;
//! [`backends`] writes the Slurm job-array script and the Kubernetes
//! Indexed Job manifest. The cluster engine schedules; schedlab does not.
//! Native only (the page runs single simulations).

pub mod backends;
pub mod claim;
pub mod exec;
pub mod manifest;
pub mod merge;
pub mod reproduce;
pub mod shard;
pub mod spec;
pub mod store;

pub use manifest::{Manifest, RunSpec, TraceSource, ZooSpec};
pub use spec::{plan, plan_with, MAX_RUNS};
