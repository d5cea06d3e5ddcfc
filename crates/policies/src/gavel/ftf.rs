//! Themis (Mahajan et al., NSDI'20) as Sia's homogeneous-cluster baseline
//! (thesis §3.5.2; spec seed004 §3.6). The artifact has no Themis code; the
//! spec's reading, used here, is Gavel's finish-time-fairness policy (E23)
//! inside Gavel's round mechanism (360 s rounds, TunedJobs). Themis' own
//! partial-allocation auction is not modelled.
//!
//! rho_j(x) = (t_j + rem_j / sum_k T_jk x_jk) / (overhead_j + W_j / T_j^iso),
//! with t_j the time since submission, W_j the total work, T_j^iso the
//! throughput on the isolated share x_jk = (N_k/|J|)/s_j (row scaled to sum
//! <= 1) and overhead_j = delta - (submit_j mod delta) + the restart delay.
//! min_x max_j rho_j is found by bisection on rho with LP feasibility checks.

use super::alloc::{finish_time_fairness, isolated_throughput, rho_of, FtfJob};
use super::rounds::{run_round_explained, Ledger};
use crate::helpers::throughput_matrix::Matrix;
use crate::{Policy, PolicyInfo, Trigger};
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::settings::Settings;
use schedlab_sim::{Decision, View};

schedlab_core::settings! {
    /// Gavel-FTF's settings (`--set gavel-ftf.KEY=VALUE`).
    pub struct GavelFtfSettings {
        round_s: f64 = float("360", 1.0, 86_400.0, "Round length in seconds (the thesis runs Themis at 360 s)"),
        tol: f64 = float("0.001", 1e-9, 0.5, "Relative tolerance of the bisection on rho"),
        max_checks: u32 = int("60", 2, 10_000, "Most LP feasibility checks per round (bracketing and bisection)"),
    }
}

const PARAMS: &[ParamSpec] = <GavelFtfSettings as Settings>::SPECS;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "gavel-ftf",
    title: "Themis+TJ (Gavel's finish-time-fairness policy)",
    source: schedlab_core::prose::doc("Themis (NSDI'20) as Sia's baseline: Gavel's FTF policy; thesis §3.5.2; spec seed004 §3.6"),
    description: schedlab_core::prose::doc("Rigid jobs: minimise the worst finish-time-fairness ratio rho over time fractions per GPU type (bisection on rho, LP checks), realised by Gavel's round priorities (360 s)."),
    params: PARAMS,
    knowledge: crate::Knowledge::Declared,
    build,
};

fn build(p: &Params, _seed: u64) -> Result<Box<dyn Policy>> {
    let s = GavelFtfSettings::from_params(p);
    Ok(Box::new(GavelFtf {
        round_s: s.round_s,
        tol: s.tol,
        max_checks: s.max_checks,
        ledger: Ledger::default(),
        alone: false,
    }))
}

/// Themis+TJ, Sia's homogeneous baseline (`gavel-ftf`): Gavel's finish-time-fairness
/// policy in Gavel's rounds (this crate's other Themis readings: `themis`,
/// `themis-pcs`, `themis-rtc`).
#[derive(Clone)]
pub struct GavelFtf {
    round_s: f64,
    tol: f64,
    max_checks: u32,
    ledger: Ledger,
    /// The last round had one active job.
    alone: bool,
}

/// Themis' view of each job (E23 terms).
pub fn ftf_jobs(view: &View, m: &Matrix, round_s: f64) -> Vec<FtfJob> {
    m.jobs
        .iter()
        .enumerate()
        .map(|(r, &j)| {
            let spec = view.spec(j);
            let iso = isolated_throughput(&m.t[r], m.gpus[r], &m.caps, m.len());
            let overhead = round_s - spec.arrival.rem_euclid(round_s) + view.restart_delay(j);
            FtfJob {
                since_start: (view.now() - spec.arrival).max(0.0),
                remaining: view.known_remaining_work(j),
                isolated: if iso > 0.0 {
                    overhead + view.declared_work(j) / iso
                } else {
                    f64::INFINITY
                },
            }
        })
        .collect()
}

impl Policy for GavelFtf {
    fn name(&self) -> &str {
        "gavel-ftf"
    }

    fn trigger(&self) -> Trigger {
        Trigger {
            on_events: false,
            round_s: Some(self.round_s),
        }
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let jobs: Vec<u32> = view.active().iter().copied().collect();
        let m = Matrix::build(view, &jobs);
        let f = ftf_jobs(view, &m, self.round_s);
        let t0 = web_time::Instant::now();
        let a = finish_time_fairness(&m, &f, self.tol, self.max_checks);
        out.solver_s = t0.elapsed().as_secs_f64();
        out.fallback = a.alloc.fallback;
        let rho: Option<Vec<f64>> = view.want_reasons().then(|| {
            (0..m.len())
                .map(|r| rho_of(&m, &f, &a.alloc.x, r))
                .collect()
        });
        run_round_explained(
            view,
            out,
            &m,
            &a.alloc.x,
            &mut self.ledger,
            self.round_s,
            rho.as_deref(),
        );
        // The FTF allocation moves with time (ages, remaining work) unless
        // one job is alone: then it goes to that job's best type.
        self.alone = m.jobs.len() == 1;
    }

    fn steady(&self) -> bool {
        self.alone && self.ledger.steady
    }

    fn skipped(&mut self, rounds: u64) {
        self.ledger.replay(rounds, self.round_s);
    }
}
