//! The anticipatory oracle (spec seed000 §2.2, the paper's Fig 19): an
//! offline time-indexed MILP over the whole trace with perfect knowledge,
//! for small traces only (the paper uses it on synthetic ones).
//!
//! Time is cut into `slot_s` slots; job j (arrival slot a_j = ceil(s_j /
//! slot), run d_j = ceil(run time / slot) slots, width n_j) starts in
//! exactly one slot t in [a_j, m_j], where m_j is its start under per-pool
//! FCFS without sharing (the cutoff: no job is slowed). Capacity: for every
//! slot, the GPUs of the jobs running in it stay within the cluster's.
//! Objective: min sum_j (t - a_j) X_jt + beta sum_t alpha_t, where alpha_t
//! at least each pool's usage / quota in slot t (the optional fairness term, (13)).
//! The solution is checked against the model (`solve::Model`); the policy
//! then starts each job at its planned slot. Traces whose arrivals and run
//! times are multiples of the slot are solved exactly; otherwise times are
//! rounded conservatively (later arrival, longer run). Too large a model or
//! a solver failure falls back to the FCFS cutoffs and is recorded.

use super::vc::fcfs_starts;
use super::{forget_finished, ledger_pool, run_time, Ledger};
use crate::{Knowledge, Policy, PolicyInfo, Trigger};
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::settings::Settings;
use schedlab_sim::{Decision, View};
use schedlab_solve::model::{Cmp, Model, Sense, SolveOptions};
use std::collections::BTreeSet;

schedlab_core::settings! {
    /// The pool oracle's settings (`--set anticipatory-oracle.KEY=VALUE`).
    pub struct OracleSettings {
        slot_s: f64 = float("300", 1.0, 86_400.0, "Length of a time slot of the MILP"),
        beta: f64 = float("0", 0.0, 1e6, "Weight of the fairness term (the largest pool usage / quota per slot); 0 minimises waiting only"),
        max_vars: usize = int("20000", 10, 1_000_000, "Largest model solved; bigger traces fall back to the FCFS starts"),
    }
}

const PARAMS: &[ParamSpec] = <OracleSettings as Settings>::SPECS;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "anticipatory-oracle",
    title: "Anticipatory oracle (MILP)",
    source: schedlab_core::prose::doc("Anticipatory resource allocation, §4.1 and Appendix A (Fig 19); spec seed000 §2.2"),
    description: schedlab_core::prose::doc("Offline optimum with perfect knowledge for small traces: a time-indexed MILP chooses every job's start at or before its per-pool FCFS start, minimising total waiting within the cluster's GPUs. Non-preemptive."),
    params: PARAMS,
    knowledge: Knowledge::Oracle,
    build,
};

fn build(p: &Params, _seed: u64) -> Result<Box<dyn Policy>> {
    let s = OracleSettings::from_params(p);
    Ok(Box::new(OracleMilp {
        slot_s: s.slot_s,
        beta: s.beta,
        max_vars: s.max_vars,
        plan: None,
        note: None,
        opportunistic: BTreeSet::new(),
    }))
}

#[derive(Clone)]
struct OracleMilp {
    slot_s: f64,
    beta: f64,
    max_vars: usize,
    /// Planned start time per job id (computed at the first call).
    plan: Option<Vec<f64>>,
    /// Why the plan is the FCFS fallback, reported once.
    note: Option<String>,
    opportunistic: BTreeSet<u32>,
}

/// The oracle's plan for the whole trace: a start time per job.
pub struct OraclePlan {
    pub starts: Vec<f64>,
    /// Variables of the model (0 when it was not built).
    pub vars: usize,
    /// Set when the plan is the FCFS fallback.
    pub fallback: Option<String>,
}

/// Builds and solves the MILP for the trace the view's oracle reveals.
pub fn plan(view: &View, quota: &[u32], slot: f64, beta: f64, max_vars: usize) -> OraclePlan {
    let cutoff = fcfs_starts(view, quota);
    let fallback = |why: String| OraclePlan {
        starts: cutoff.clone(),
        vars: 0,
        fallback: Some(why),
    };
    let Some(oracle) = view.oracle() else {
        return fallback("the oracle MILP needs oracle knowledge".into());
    };
    let jobs = oracle.arrivals_between(f64::NEG_INFINITY, f64::INFINITY);
    let origin = jobs.first().map_or(0.0, |s| s.arrival);
    let slot_of = |t: f64| ((t - origin) / slot - 1e-9).ceil().max(0.0) as usize;
    let mut windows = Vec::with_capacity(jobs.len());
    for s in jobs {
        let a = slot_of(s.arrival);
        let m = (((cutoff[s.id as usize] - origin) / slot) + 1e-9)
            .floor()
            .max(a as f64) as usize;
        let d = ((run_time(view, s.id) / slot) - 1e-9).ceil().max(1.0) as usize;
        windows.push((a, m, d));
    }
    let vars: usize = windows.iter().map(|w| w.1 - w.0 + 1).sum();
    if vars > max_vars {
        return fallback(format!(
            "oracle MILP: {vars} start variables exceed max_vars {max_vars}; FCFS starts used"
        ));
    }
    let horizon = windows.iter().map(|w| w.1 + w.2).max().unwrap_or(0);
    let mut model = Model::new(Sense::Minimize);
    // x[j] = (first slot, variables of its start slots).
    let x: Vec<(usize, Vec<schedlab_solve::model::Var>)> = windows
        .iter()
        .map(|&(a, m, _)| (a, (a..=m).map(|t| model.binary((t - a) as f64)).collect()))
        .collect();
    for (_, v) in &x {
        model.constraint(v.iter().map(|&v| (v, 1.0)).collect(), Cmp::Eq, 1.0);
    }
    // Usage rows per slot, and per pool for the fairness term.
    let pools = quota.len();
    let mut usage: Vec<Vec<(schedlab_solve::model::Var, f64)>> = vec![Vec::new(); horizon];
    let mut by_pool: Vec<Vec<Vec<(schedlab_solve::model::Var, f64)>>> =
        vec![vec![Vec::new(); pools]; if beta > 0.0 { horizon } else { 0 }];
    for (k, s) in jobs.iter().enumerate() {
        let (a, _, d) = windows[k];
        let n = s.gpus as f64;
        let q = ledger_pool(view, s.id);
        for (i, &v) in x[k].1.iter().enumerate() {
            for slot_t in usage.iter_mut().skip(a + i).take(d) {
                slot_t.push((v, n));
            }
            for per_pool in by_pool.iter_mut().skip(a + i).take(d) {
                per_pool[q].push((v, n));
            }
        }
    }
    let capacity = view.cluster().total_gpus as f64;
    for row in usage.into_iter().filter(|r| !r.is_empty()) {
        model.constraint(row, Cmp::Le, capacity);
    }
    for per_pool in by_pool {
        let alpha = model.var(beta, 0.0, f64::INFINITY);
        for (q, mut row) in per_pool.into_iter().enumerate() {
            if row.is_empty() {
                continue;
            }
            row.push((alpha, -(quota[q] as f64)));
            model.constraint(row, Cmp::Le, 0.0);
        }
    }
    match model.solve(&SolveOptions::default()) {
        Ok(sol) => {
            let starts = jobs
                .iter()
                .enumerate()
                .map(|(k, s)| {
                    let (a, vars) = &x[k];
                    let t = vars.iter().position(|&v| sol.value(v) > 0.5).unwrap_or(0);
                    (origin + (a + t) as f64 * slot).max(s.arrival)
                })
                .collect();
            OraclePlan {
                starts,
                vars,
                fallback: (!sol.optimal)
                    .then(|| "oracle MILP: node budget reached; best plan found used".into()),
            }
        }
        Err(e) => fallback(format!("oracle MILP: {e}; FCFS starts used")),
    }
}

impl Policy for OracleMilp {
    fn name(&self) -> &str {
        "anticipatory-oracle"
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(0.0)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        forget_finished(view, &mut self.opportunistic);
        let mut ledger = Ledger::new(view, &self.opportunistic);
        if self.plan.is_none() {
            let p = plan(view, &ledger.quota, self.slot_s, self.beta, self.max_vars);
            self.note = p.fallback;
            self.plan = Some(p.starts);
            out.fallback = self.note.clone();
        }
        let plan = self.plan.as_ref().expect("set above");
        let mut packer = view.packer_idle();
        let due: Vec<u32> = view
            .waiting()
            .iter()
            .copied()
            .filter(|&j| plan[j as usize] <= view.now() + 1e-6)
            .collect();
        for j in due {
            if ledger.start(view, &mut packer, out, j, false) {
                self.opportunistic.insert(j);
            }
        }
        let next = view
            .waiting()
            .iter()
            .map(|&j| plan[j as usize])
            .filter(|&t| t > view.now() + 1e-6)
            .reduce(f64::min);
        if let Some(t) = next {
            out.wake_at(t);
        }
    }
}
