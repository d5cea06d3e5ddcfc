//! The contract between the engine and a scheduling policy: when it is
//! called ([`Trigger`]), what it may know ([`Knowledge`]) and the
//! [`Policy`] trait itself. It lives beside the engine so that the engine
//! depends on no policy; `policy/` implements it and re-exports it.

use super::view::{Decision, View};
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
    /// What the policy may know of job lengths. Registered policies get
    /// what their registry entry declares (`policy::build`); any other
    /// policy knows declared lengths only. The engine opens `View::oracle`
    /// only to `Oracle`.
    fn knowledge(&self) -> Knowledge {
        Knowledge::Declared
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
