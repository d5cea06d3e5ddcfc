//! Scheduling policies: the `Policy` trait, shared helpers and the registry.
//!
//! A policy is one file under `src/policy/` plus one entry in [`registry`],
//! with its parameters declared once so that the CLI, the page and the docs
//! all come from the same declaration.

pub mod afs;
pub mod alloc;
mod common;
pub mod estimates;
mod fifo;
pub mod gavel;
mod maxmin;
mod optimus;
pub mod oracle;
pub mod pollux;
pub mod shockwave;
pub mod sia;
mod srtf;
mod srtf_e;
mod themis;
mod tiresias;

pub use common::{
    claim_count, claim_elastic, claim_rigid, gang_plan, gang_request, gang_walk, kinds_for,
    REQUEST_PARAM,
};

use crate::error::{Error, Result};
use crate::params::{ParamSpec, Params};
use crate::sim::{Decision, View};
use serde::Serialize;

/// When the engine calls a policy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trigger {
    /// On every arrival and completion.
    pub on_events: bool,
    /// Every `round_s` seconds of simulated time (fixed rounds).
    pub round_s: Option<f64>,
}

impl Trigger {
    /// Event-driven when `round_s` is 0, else round-based only.
    pub fn events_or_rounds(round_s: f64) -> Trigger {
        if round_s > 0.0 {
            Trigger {
                on_events: false,
                round_s: Some(round_s),
            }
        } else {
            Trigger {
                on_events: true,
                round_s: None,
            }
        }
    }
}

/// A scheduling policy. It reads a [`View`] and writes a [`Decision`]; the
/// engine does everything else. Policies must be cloneable (forking).
pub trait Policy: Send {
    fn name(&self) -> &str;
    fn trigger(&self) -> Trigger;
    /// What the policy may know of job lengths: by default what its
    /// registry entry declares (policies outside the registry: declared
    /// lengths only). The engine opens `View::oracle` only to `Oracle`.
    fn knowledge(&self) -> Knowledge {
        info(self.name()).map_or(Knowledge::Declared, |i| i.knowledge)
    }
    fn schedule(&mut self, view: &View<'_>, out: &mut Decision);
    fn clone_box(&self) -> Box<dyn Policy>;
}

impl Clone for Box<dyn Policy> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// What a policy knows of job lengths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Knowledge {
    /// What a real scheduler is told: each arrived job's declared work and
    /// its progress (`View::declared_work`, `View::declared_remaining_work`).
    Declared,
    /// The true lengths too (`View::oracle`), as the "length-aware" policies'
    /// papers assume; the CLI and the page say "uses oracle job lengths".
    Oracle,
}

impl Knowledge {
    /// The note `list policies` and the page show (empty for `Declared`).
    pub fn note(self) -> &'static str {
        match self {
            Knowledge::Declared => "",
            Knowledge::Oracle => "uses oracle job lengths",
        }
    }
}

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
    let policy = (info.build)(&params, seed)?;
    Ok((policy, params))
}

/// The common `round_s` parameter: 0 means "call me on every arrival and completion".
pub const ROUND_PARAM_EVENTS: ParamSpec = ParamSpec::float(
    "round_s",
    "0",
    0.0,
    86_400.0,
    "Scheduling interval in seconds; 0 = re-schedule at every arrival and completion",
);
