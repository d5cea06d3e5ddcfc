//! Scheduler delay (`engine.scheduler_delay`): a decision takes effect
//! some seconds after the policy call that made it, as in the COpter
//! authors' simulator, so that a slow solver costs the jobs simulated time.
//! Meanwhile jobs keep their GPUs, no further call is made, and the next
//! round starts that much later. Jobs that finish in the gap are dropped
//! from the decision (their GPUs are free already); jobs that arrive wait
//! for the next call.

use super::Simulation;
use crate::config::SchedulerDelay;
use crate::events::EventKind;
use crate::view::Decision;
use schedlab_core::error::Result;

/// A decision made but not yet in effect.
#[derive(Clone)]
pub(super) struct PendingDecision {
    token: u64,
    decision: Decision,
}

impl Simulation {
    /// Seconds before `d`, made by a call of `policy_s` wall-clock seconds,
    /// takes effect.
    pub(super) fn decision_delay(&self, policy_s: f64, d: &Decision) -> f64 {
        match self.cfg.scheduler_delay {
            SchedulerDelay::None => 0.0,
            SchedulerDelay::Fixed(s) => s,
            SchedulerDelay::Measured(scale) => {
                // POP's parts are independent: with one core each, the
                // slowest part is the solve's wall-clock time, not their sum.
                let wall = match d.solver_slowest_part_s {
                    Some(slowest) => policy_s - d.solver_s + slowest,
                    None => policy_s,
                };
                wall.max(0.0) * scale
            }
        }
    }

    /// Holds `decision` back until `delay` seconds from now and moves the
    /// next round tick back as much.
    pub(super) fn defer_decision(&mut self, decision: Decision, delay: f64) {
        self.decision_token += 1;
        let token = self.decision_token;
        self.queue
            .push(self.now + delay, EventKind::Decision { token });
        self.pending_decision = Some(PendingDecision { token, decision });
        if let Some(tick) = &mut self.next_tick {
            *tick += delay;
        }
    }

    /// Whether a decision is waiting for its delay to pass.
    pub(super) fn decision_pending(&self) -> bool {
        self.pending_decision.is_some()
    }

    /// Puts the pending decision with `token` into effect, without the
    /// jobs that completed while it waited.
    pub(super) fn apply_pending(&mut self, token: u64) -> Result<()> {
        let Some(pending) = self.pending_decision.take_if(|p| p.token == token) else {
            return Ok(());
        };
        let mut decision = pending.decision;
        decision
            .changes
            .retain(|(job, _)| self.active.contains(job));
        self.put_into_effect(decision)
    }
}
