//! Native-only experiments: each paper's reproduction behind `schedlab reproduce`
//! ([`repro`]) and sweeps of many runs, sharded over processes, Slurm or Kubernetes
//! ([`sweep`]).

pub mod repro;
pub mod sweep;
