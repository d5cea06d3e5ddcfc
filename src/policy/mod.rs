//! Scheduling policies: the `Policy` trait, shared helpers and the registry.
//!
//! A policy is one file under `src/policy/` plus one entry in [`registry`],
//! with its parameters declared once so that the CLI, the page and the docs
//! all come from the same declaration.

pub mod admission;
pub mod afs;
pub mod alloc;
pub mod anticipatory;
mod common;
pub mod estimates;
mod fifo;
pub mod gavel;
mod maxmin;
mod optimus;
pub mod oracle;
pub mod pcs;
pub mod pollux;
mod pool_fcfs;
pub mod shockwave;
pub mod sia;
mod srtf;
mod srtf_e;
pub mod sts;
mod themis;
mod themis_pcs;
mod tiresias;

pub use common::{
    claim_count, claim_elastic, claim_rigid, claim_shared, gang_plan, gang_request, gang_walk,
    kinds_for, REQUEST_PARAM,
};

use crate::error::{Error, Result};
use crate::params::{ParamSpec, Params};
use crate::sim::{Decision, View};
use serde::Serialize;

pub use crate::sim::{Knowledge, Policy, Trigger};

/// A registry entry: what the CLI `list policies`, the page and the docs show.
#[derive(Serialize)]
pub struct PolicyInfo {
    pub name: &'static str,
    pub title: &'static str,
    /// Paper and section the policy implements.
    pub source: &'static str,
    pub description: &'static str,
    pub params: &'static [ParamSpec],
    /// Whether it reads true job lengths (the engine enforces it).
    pub knowledge: Knowledge,
    #[serde(skip)]
    pub build: fn(&Params, u64) -> Result<Box<dyn Policy>>,
}

/// Every policy schedlab has.
pub fn registry() -> &'static [PolicyInfo] {
    &[
        fifo::INFO,
        srtf::SRTF_INFO,
        srtf::SRSF_INFO,
        tiresias::INFO,
        maxmin::INFO,
        afs::afs_l::INFO,
        afs::afs_p::INFO,
        afs::afs_s::INFO,
        optimus::INFO,
        themis::INFO,
        srtf_e::SRTF_E_INFO,
        srtf_e::SRSF_E_INFO,
        sia::INFO,
        pollux::INFO,
        gavel::INFO,
        gavel::ftf::INFO,
        shockwave::INFO,
        pool_fcfs::INFO,
        pcs::INFO,
        themis_pcs::INFO,
        sts::sts::INFO,
        sts::edf::INFO,
        sts::edf::AVG_INFO,
        sts::rg::INFO,
        sts::rg::AVG_INFO,
        sts::dp::INFO,
        sts::dp::AVG_INFO,
        anticipatory::asia::INFO,
        anticipatory::vc::INFO,
        anticipatory::oracle::INFO,
        anticipatory::ssf::POOL_INFO,
        anticipatory::ssf::GLOBAL_INFO,
        anticipatory::maxmin::INFO,
        anticipatory::hived::INFO,
        anticipatory::themis::INFO,
    ]
}

/// Looks a policy up by name.
pub fn info(name: &str) -> Result<&'static PolicyInfo> {
    registry().iter().find(|p| p.name == name).ok_or_else(|| {
        Error::config(format!(
            "unknown policy '{name}'; known: {}",
            registry()
                .iter()
                .map(|p| p.name)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

/// Builds a policy with parameter overrides and a seed.
pub fn build(
    name: &str,
    overrides: &[(String, String)],
    seed: u64,
) -> Result<(Box<dyn Policy>, Params)> {
    let info = info(name)?;
    let params = Params::resolve(name, info.params, overrides)?;
    let inner = (info.build)(&params, seed)?;
    let policy = Box::new(Registered {
        inner,
        knowledge: info.knowledge,
    });
    Ok((policy, params))
}

/// A policy built from the registry, carrying the knowledge its entry
/// declares (the one place a policy says it reads true job lengths).
#[derive(Clone)]
struct Registered {
    inner: Box<dyn Policy>,
    knowledge: Knowledge,
}

impl Policy for Registered {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn trigger(&self) -> Trigger {
        self.inner.trigger()
    }
    fn knowledge(&self) -> Knowledge {
        self.knowledge
    }
    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        self.inner.schedule(view, out)
    }
    fn clone_box(&self) -> Box<dyn Policy> {
        Box::new(self.clone())
    }
}

/// The common `round_s` parameter: 0 means "call me on every arrival and completion".
pub const ROUND_PARAM_EVENTS: ParamSpec = ParamSpec::float(
    "round_s",
    "0",
    0.0,
    86_400.0,
    "Scheduling interval in seconds; 0 = re-schedule at every arrival and completion",
);
