//! When Sia's rounds may be skipped (issue 47, "cost follows change"): one
//! job alone whose configuration is the round's strict optimum against
//! every configuration at its undiscounted weight keeps it every round
//! until an event (an arrival, a completion, an epoch boundary of the job:
//! each is an engine event that ends the skip).
//!
//! Why every skipped round decides the same, term by term (rows in
//! `Sia::row`), given a round that kept the job where it is:
//! - **Throughput model.** `bank.observe` saw this placement this round:
//!   the observation's key is known (no refit), the replica count and the
//!   type's state are already recorded, the noise ratio is that of the same
//!   epoch and batch (the job's epoch changes only at its rate-change
//!   event, its batch choice only when its rate is refreshed). So the
//!   estimator is at a fixed point: every goodput, hence every normalised
//!   goodput `g`, is the same to the bit.
//! - **Candidates.** The 2x growth cap reads the most GPUs the job ran on,
//!   which already counts the current allocation; the other bounds are the
//!   trace's. `forced` is set only for a pinned job (restarting jobs are
//!   excluded: their restart can end between events).
//! - **Weights.** The current configuration's weight has no restart
//!   discount (r = 1) and the penalty lambda is fixed (`timeshare_tau` = 0),
//!   so it is the same every round. Only the other configurations' discount
//!   `r` moves with age, and r <= 1, so (weights rise with r·g, and r·g <= g
//!   in floating point too) each of them stays at most its weight at r = 1.
//! - **Solve.** With one item, the exact method proving optimality, and the
//!   current weight above every bound and above leaving the job out (0),
//!   by a margin that covers any last-bit rounding of `pow`, the current
//!   configuration is the unique optimum of every skipped round's problem.
//!   A pinned job is forced into it.
//! - **Placement.** The placer gets the same target on the same cluster
//!   state, so it plans the same: no change.
//! - **Bookkeeping.** `max_run_gpus` already holds the current count and
//!   `served` is unused without time-sharing: nothing to bring up.
//!
//! Not claimed (the round runs): several jobs (capacity couples their
//! discounts), a configuration that could win once its discount ages
//! (the job may move with no event), time-sharing, measured rates,
//! solvers other than the exact one, a restart in progress. One case is
//! left to rounding: a round tick within a few ulps before the job's epoch
//! boundary could read the job's progress past it (progress is summed from
//! the rate, the boundary's time divided from it), see the next epoch one
//! round early when called every round, and not when skipped; the ticks
//! are multiples of the round and the boundary falls anywhere, so this
//! needs a tick within about 1e-9 s of it.

use super::{weight, Config, Row, Sia, SiaSolver};
use schedlab_sim::View;
use schedlab_solve::{MckResult, Method};

/// Relative margin by which the kept configuration must beat every bound:
/// far above the few ulps `pow` may be off, far below any real difference.
const MARGIN: f64 = 1e-9;

impl Sia {
    /// Whether this round's decision (already made, with no change) holds
    /// for every round until the next event; see the module docs.
    pub(super) fn decision_holds(&self, view: &View, rows: &[Row], result: &MckResult) -> bool {
        if self.tau > 0.0 || view.measures_rates() {
            return false;
        }
        if !matches!(self.solver, SiaSolver::Auto | SiaSolver::Exact) {
            return false;
        }
        if view.active().len() != 1
            || result.method != Method::Exact
            || !result.optimal
            || result.fallback.is_some()
        {
            return false;
        }
        let ([row], [Some(pick)]) = (rows, result.pick.as_slice()) else {
            return false;
        };
        let pick = *pick;
        let Some(p) = view.placement(row.job) else {
            return false;
        };
        if view.restarting(row.job) {
            return false;
        }
        let current = Config {
            kind: p.kind,
            nodes: p.nodes(),
            gpus: p.gpus(),
        };
        if row.configs[pick] != current {
            return false;
        }
        if row.forced == Some(pick) {
            return true;
        }
        keeps_the_lead(row, pick, self.p, self.lambda)
    }
}

/// The kept configuration's weight beats leaving the job out and every
/// other configuration at its undiscounted weight (r = 1), by the margin.
fn keeps_the_lead(row: &Row, pick: usize, p: f64, lambda: f64) -> bool {
    let kept = row.weights[pick];
    let margin = MARGIN * kept.abs().max(1.0);
    kept > margin
        && row
            .norm
            .iter()
            .enumerate()
            .all(|(i, g)| i == pick || weight(*g, 1.0, p, lambda) < kept - margin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::cluster::GpuKind;

    fn row(norm: &[f64], pick: usize, r: f64) -> Row {
        let (p, lambda) = (-0.5, 1.1);
        let configs: Vec<Config> = (0..norm.len() as u32)
            .map(|i| Config {
                kind: GpuKind(0),
                nodes: 1,
                gpus: i + 1,
            })
            .collect();
        let weights = norm
            .iter()
            .enumerate()
            .map(|(i, g)| weight(*g, if i == pick { 1.0 } else { r }, p, lambda))
            .collect();
        Row {
            job: 0,
            configs,
            weights,
            forced: None,
            raw: norm.to_vec(),
            norm: norm.to_vec(),
            restart: r,
        }
    }

    #[test]
    fn the_best_configuration_keeps_the_lead_whatever_the_discount() {
        // Kept: 4 GPUs at goodput 3.5; others at most 3.0 even undiscounted.
        assert!(keeps_the_lead(
            &row(&[1.0, 1.9, 3.0, 3.5], 3, 0.2),
            3,
            -0.5,
            1.1
        ));
    }

    #[test]
    fn a_better_configuration_held_back_by_the_discount_is_not_steady() {
        // 8 GPUs would be better once the restart discount ages out.
        assert!(!keeps_the_lead(
            &row(&[1.0, 1.9, 3.0, 3.5], 2, 0.5),
            2,
            -0.5,
            1.1
        ));
        // A tie is not a lead either.
        assert!(!keeps_the_lead(
            &row(&[1.0, 2.0, 2.0], 1, 0.5),
            1,
            -0.5,
            1.1
        ));
    }

    #[test]
    fn a_configuration_worse_than_leaving_the_job_out_is_not_steady() {
        // p = -0.5, lambda = 1.1: w = 1.1 - g^-0.5 < 0 for g < 0.83.
        assert!(!keeps_the_lead(&row(&[0.5], 0, 1.0), 0, -0.5, 1.1));
    }
}
