//! Running policies and reporting on them: the one path from a trace, cluster and
//! policy list to results ([`report`]), finish-time-fairness references from isolated
//! runs ([`isolated`]), multi-objective search over scheduler configurations
//! ([`search`]) and fidelity checks against other simulators ([`validate`]).

pub mod explain;
pub mod isolated;
pub mod report;
pub mod search;
pub mod setup;
pub mod validate;
