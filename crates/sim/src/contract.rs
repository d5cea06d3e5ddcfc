//! The contract between the engine and a scheduling policy: when it is
//! called ([`Trigger`]), what it may know ([`Knowledge`]) and the
//! [`Policy`] trait itself. It lives beside the engine so that the engine
//! depends on no policy; `policy/` implements it and re-exports it.

use super::view::{Decision, View};
use serde::Serialize;

/// The shortest round, lease or time-slice the engine runs, in seconds: the
/// resolution of every trace's times; below it a run only multiplies policy
/// calls (and at 1e-300 s simulated time stops advancing). Policies declare
/// their round and lease parameters with it as the lower bound.
pub const SHORTEST_ROUND_S: f64 = 1.0;

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
/// engine does everything else. Policies must be cloneable (forks): a
/// `#[derive(Clone)]` is all it takes ([`PolicyClone`] follows from it).
pub trait Policy: PolicyClone + Send {
    fn name(&self) -> &str;
    fn trigger(&self) -> Trigger;
    /// What the policy may know. Registered policies get what their
    /// registry entry declares (`policies::build` wraps them; a policy's
    /// own code never says it); a policy from outside the registry knows
    /// declared lengths only. The engine opens `View::oracle` only to
    /// `Oracle`.
    fn knowledge(&self) -> Knowledge {
        Knowledge::Declared
    }
    fn schedule(&mut self, view: &View<'_>, out: &mut Decision);
    /// Asked after a round call that changed nothing: would every further
    /// round decide the same until something happens (an arrival, a
    /// completion, a rate change at an epoch boundary, a wake-up)? A policy
    /// that says so is not called again until then (the engine skips the
    /// quiet rounds, so a job of 1e9 s costs no more than its events); when
    /// next called, it brings its per-round bookkeeping up from the rounds
    /// that passed, so that results are those of calling every round. The
    /// default, false, keeps every round.
    fn steady(&self) -> bool {
        false
    }
    /// Tells a `steady` policy how many rounds the engine skipped since its
    /// last call (before the next call), to book them as if they had run.
    fn skipped(&mut self, _rounds: u64) {}
    /// Asked, like [`Policy::steady`], after a round call that changed
    /// nothing, but only when no job is left to arrive: would every further
    /// round of the run decide the same, whatever the state the policy
    /// carries from round to round (a random stream, a warm start)? Such
    /// state is an input of later rounds only, so skipping rounds moves it
    /// and is exact only when no later round's decision depends on it,
    /// which an arrival could end (Pollux's genetic search: `pollux/steady.rs`).
    /// The engine then skips the quiet rounds as for `steady` (calling
    /// `skipped` too). The default, false, keeps every round.
    fn steady_to_the_end(&self) -> bool {
        false
    }
}

/// Copies a policy behind a `Box<dyn Policy>` (a fork runs a copy). One
/// blanket impl covers every `Clone` policy, so no policy writes its own.
pub trait PolicyClone {
    fn clone_box(&self) -> Box<dyn Policy>;
}

impl<T: Policy + Clone + 'static> PolicyClone for T {
    fn clone_box(&self) -> Box<dyn Policy> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn Policy> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// What a policy may know of the truth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Knowledge {
    /// What a real scheduler is told: each arrived job's declared work and
    /// its progress (`View::declared_work`, `View::declared_remaining_work`).
    Declared,
    /// The truth too, through the oracle door (`View::oracle`: true
    /// lengths and rates, jobs still to come), as the "length-aware"
    /// policies' papers assume; the CLI and the page say "uses oracle job
    /// lengths".
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
