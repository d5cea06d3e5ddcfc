//! What a simulation is run on: the cluster ([`cluster`]: GPU types, nodes,
//! placement, pools, locality cells), the performance models and the model zoo
//! ([`perf`]) and the workload ([`workload`]: job specs, trace formats, fill rules,
//! generators, bundled traces).

pub mod cluster;
pub mod perf;
pub mod workload;
