//! Scheduling policies: the `Policy` trait, shared helpers and the registry.
//!
//! A policy is one file under `crates/policies/src/` plus one entry in [`registry`],
//! with its parameters declared once so that the CLI, the page and the docs
//! all come from the same declaration.

pub mod helpers;

pub mod afs;
pub mod anticipatory;
mod fifo;
pub mod gavel;
mod maxmin;
mod optimus;
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

#[cfg(test)]
mod declarations;

pub use helpers::common::{
    claim_count, claim_elastic, claim_in_quota, claim_rigid, claim_rigid_within, claim_shared,
    gang_plan, gang_request, gang_walk, kinds_for, Request, REQUEST_PARAM,
};

use schedlab_core::error::{Error, Result};
use schedlab_core::params::{ParamSpec, Params};
use schedlab_sim::{Decision, View};
use serde::Serialize;

pub use schedlab_sim::{Knowledge, Policy, Trigger};

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
    pub build: BuildFn,
}

/// Every policy schedlab has.
pub fn registry() -> &'static [PolicyInfo] {
    REGISTRY
}

static REGISTRY: &[PolicyInfo] = &[
    fifo::INFO,
    srtf::SRTF_INFO,
    srtf::SRSF_INFO,
    tiresias::INFO,
    maxmin::INFO,
    afs::afs_l::INFO,
    afs::afs_p::INFO,
    afs::afs_s::INFO,
    full_package(optimus::INFO),
    full_package(themis::INFO),
    full_package(srtf_e::SRTF_E_INFO),
    full_package(srtf_e::SRSF_E_INFO),
    full_package(sia::INFO),
    full_package(pollux::INFO),
    full_package(gavel::INFO),
    full_package(gavel::ftf::INFO),
    full_package(shockwave::INFO),
    pool_fcfs::INFO,
    pcs::INFO,
    full_package(themis_pcs::INFO),
    full_package(sts::sts::INFO),
    full_package(sts::edf::INFO),
    full_package(sts::edf::AVG_INFO),
    full_package(sts::rg::INFO),
    full_package(sts::rg::AVG_INFO),
    full_package(sts::dp::INFO),
    full_package(sts::dp::AVG_INFO),
    full_package(anticipatory::asia::INFO),
    full_package(anticipatory::vc::INFO),
    full_package(anticipatory::oracle::INFO),
    full_package(anticipatory::ssf::POOL_INFO),
    full_package(anticipatory::ssf::GLOBAL_INFO),
    full_package(anticipatory::maxmin::INFO),
    full_package(anticipatory::hived::INFO),
    full_package(anticipatory::themis::INFO),
];

/// The signature of a registry entry's constructor.
pub type BuildFn = fn(&Params, u64) -> Result<Box<dyn Policy>>;

/// Marks a policy the page's core wasm package leaves out (it needs the LP/MILP
/// solver or is large). Built with the `page-core` feature, the entry keeps its
/// declarations (the page lists the policy and its controls) but its constructor
/// is [`in_full_package`], so none of its code is compiled in; the page runs it in
/// the full package, fetched on first use. Everywhere else it changes nothing.
const fn full_package(info: PolicyInfo) -> PolicyInfo {
    #[cfg(feature = "page-core")]
    {
        PolicyInfo {
            build: in_full_package,
            ..info
        }
    }
    #[cfg(not(feature = "page-core"))]
    {
        info
    }
}

/// The constructor of a policy the core package lists but cannot run.
fn in_full_package(_: &Params, _: u64) -> Result<Box<dyn Policy>> {
    Err(Error::config(
        "this policy is in the page's full wasm package (pkg-full), not in its core package",
    ))
}

impl PolicyInfo {
    /// Whether this build can run the policy (false only for the policies
    /// the page's core package leaves out).
    pub fn in_this_package(&self) -> bool {
        !std::ptr::fn_addr_eq(self.build, in_full_package as BuildFn)
    }
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
    let params = Params::resolve(name, info(name)?.params, overrides)?;
    Ok((build_resolved(name, &params, seed)?, params))
}

/// Builds a policy from parameters already resolved against its
/// declaration (`Params::resolve` with its `params`) and a seed.
pub fn build_resolved(name: &str, params: &Params, seed: u64) -> Result<Box<dyn Policy>> {
    let info = info(name)?;
    let inner = (info.build)(params, seed)?;
    Ok(Box::new(Registered {
        inner,
        knowledge: info.knowledge,
    }))
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
        self.inner.schedule(view, out);
        if view.want_reasons() {
            // Runs with pools: quota and queue for the jobs the policy left unexplained.
            helpers::explain::pool_reasons(view, out);
        }
    }
    fn steady(&self) -> bool {
        self.inner.steady()
    }
    fn skipped(&mut self, rounds: u64) {
        self.inner.skipped(rounds)
    }
    fn steady_to_the_end(&self) -> bool {
        self.inner.steady_to_the_end()
    }
}

/// The common `round_s` parameter: 0 means "call me on every arrival and
/// completion". A positive round is at least [`SHORTEST_ROUND_S`].
pub const ROUND_PARAM_EVENTS: ParamSpec = ParamSpec::period(
    "round_s",
    "0",
    SHORTEST_ROUND_S,
    86_400.0,
    "Scheduling interval in seconds; 0 = re-schedule at every arrival and completion; else at least 1 s (traces are in seconds, restarts cost tens of them, and a shorter round only multiplies policy calls: 1e-300 would stall simulated time)",
);

/// The shortest round, lease or time-slice a policy accepts (the engine's).
pub const SHORTEST_ROUND_S: f64 = schedlab_sim::SHORTEST_ROUND_S;
