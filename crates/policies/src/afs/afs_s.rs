//! AFS-S (AFS, NSDI'21 Appendix D; spec seed003 §2.5): the sensitivity
//! variant that knows only each job's peak-throughput GPU count, not its
//! throughput curve. Without throughputs rule (3) cannot be evaluated, so
//! it "ends up distributing the resources by the max-min fairness", capped
//! at each job's peak count; when jobs outnumber GPUs it uses AFS-P's
//! processor sharing.

use super::super::{Policy, PolicyInfo, ROUND_PARAM_EVENTS};
use super::afs_p::{AfsP, Shares, QUANTUM_S, TIME_SCALE};
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::settings::Settings;

schedlab_core::settings! {
    /// AFS-S's settings (`--set afs-s.KEY=VALUE`).
    pub struct AfsSSettings {
        quantum_s: f64 = shared(QUANTUM_S),
        time_scale: f64 = shared(TIME_SCALE),
        round_s: f64 = shared(ROUND_PARAM_EVENTS),
    }
}

const PARAMS: &[ParamSpec] = <AfsSSettings as Settings>::SPECS;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "afs-s",
    title: "AFS-S",
    source: schedlab_core::prose::doc("AFS (NSDI'21) Appendix D; spec seed003 §2.5"),
    description: schedlab_core::prose::doc("AFS-P knowing only each job's peak GPU count: max-min shares capped at the peak, processor sharing with a 2 h quantum when jobs outnumber GPUs."),
    params: PARAMS,
    knowledge: crate::Knowledge::Declared,
    build,
};

fn build(p: &Params, seed: u64) -> Result<Box<dyn Policy>> {
    let s = AfsSSettings::from_params(p);
    Ok(Box::new(AfsP::new(
        s.quantum_s * s.time_scale,
        s.round_s,
        seed,
        Shares::MaxMin,
    )))
}
