//! Gavel (Narayanan et al., OSDI'20) as Sia's heterogeneity-aware rigid
//! baseline (CMU thesis CMU-CS-25-136 §3.4.3; spec seed004 §3.4): every
//! 360 s round, the max-sum-throughput LP (E21) over time fractions of each
//! rigid TunedJobs job on each GPU type, then Gavel's priority mechanism
//! picks which jobs run this round (`rounds`). Jobs run at the trace's
//! `num_replicas` and `batch_size`; time-sharing costs are the engine's
//! restart delays (a job that is descheduled and resumed, or moved, pays its
//! model's checkpoint-restore).
//!
//! Themis (`gavel-ftf`, in `ftf.rs`) is the same mechanism with the finish-time-fairness
//! program (E23) in place of E21, as the spec recommends (§3.6).

mod alloc;
pub mod ftf;
mod rounds;

pub use alloc::{
    finish_time_fairness, greedy, isolated_throughput, max_sum_throughput, rho_of, Alloc, FtfAlloc,
    FtfJob,
};
pub use rounds::Ledger;

use super::{Policy, PolicyInfo, Trigger};
use crate::helpers::throughput_matrix::Matrix;
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::settings::Settings;
use schedlab_sim::{Decision, View};

schedlab_core::settings! {
    /// Gavel's settings (`--set gavel.KEY=VALUE`).
    pub struct GavelSettings {
        round_s: f64 = float("360", 1.0, 86_400.0, "Round length in seconds (the thesis runs Gavel, Themis and Shockwave at 360 s)"),
        units: Units = choice("iterations", "Throughput unit of the LP objective: training iterations per second (the artifact; favours short-iteration jobs) or progress per second (iterations times the statistical-efficiency gain of the job's batch)"),
    }
}

const PARAMS: &[ParamSpec] = <GavelSettings as Settings>::SPECS;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "gavel",
    title: "Gavel (max-sum-throughput)",
    source: schedlab_core::prose::doc("Gavel (OSDI'20) as Sia's baseline: thesis §3.4.3; spec seed004 §3.4"),
    description: schedlab_core::prose::doc("Heterogeneity-aware rigid jobs: a max-sum-throughput LP over time fractions per GPU type, realised round by round by Gavel's priorities (360 s rounds, time-sharing)."),
    params: PARAMS,
    knowledge: crate::Knowledge::Declared,
    build,
};

schedlab_core::choice! {
    /// `units`: the throughput unit of the LP objective.
    pub enum Units {
        Iterations = "iterations",
        Progress = "progress",
    }
}

fn build(p: &Params, _seed: u64) -> Result<Box<dyn Policy>> {
    let s = GavelSettings::from_params(p);
    Ok(Box::new(Gavel {
        round_s: s.round_s,
        iterations: match s.units {
            Units::Iterations => true,
            Units::Progress => false,
        },
        ledger: Ledger::default(),
    }))
}

#[derive(Clone)]
pub struct Gavel {
    round_s: f64,
    /// Objective in iterations/s (else progress/s).
    iterations: bool,
    ledger: Ledger,
}

impl Policy for Gavel {
    fn name(&self) -> &str {
        "gavel"
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
        let t0 = web_time::Instant::now();
        let a = if self.iterations {
            let by_steps = Matrix {
                t: m.steps.clone(),
                ..m.clone()
            };
            max_sum_throughput(&by_steps)
        } else {
            max_sum_throughput(&m)
        };
        out.solver_s = t0.elapsed().as_secs_f64();
        out.fallback = a.fallback;
        rounds::run_round(view, out, &m, &a.x, &mut self.ledger, self.round_s);
    }
}
