//! Shockwave (Zheng et al., NSDI'23) as Sia's rigid, fairness-aware
//! baseline (CMU thesis CMU-CS-25-136 §3.5.2/§3.5.5; spec seed004 §3.5).
//!
//! Every 360 s round Shockwave plans the next F rounds (`plan`): which
//! TunedJobs jobs run when, maximising the jobs' log-progress utility minus
//! a makespan penalty, under finish-time-fairness constraints. When those
//! constraints cannot all be met they are dropped and the log-utility of
//! every job whose estimated rho exceeds rho_max is multiplied by rho^lambda
//! (rho^100 if it could finish within this round). The plan's rounds are
//! re-ranked so the round holding the most unfair jobs runs now; idle GPUs
//! then go to the jobs with the longest remaining time (work-conserving).
//! As in Sia's simulator, Shockwave is heterogeneity-unaware: a job's
//! iteration time is the mean over GPU types, and its GPUs are chosen on
//! 4-GPU virtual nodes and repaired onto the majority type (`vnodes`).
//!
//! Fairness bookkeeping ([I], see docs/SIA.md): a job's fair share is
//! min(1, N / (|J| s_j)) of its GPUs; its fair finish-time estimate is its
//! whole run time divided by that share, averaged with momentum 0.9 over the
//! rounds; rho = (age + remaining / share) / estimate; the constraint asks
//! that (age at the end of the window + remaining after it / share) <=
//! rho_max * estimate.

mod plan;
mod vnodes;

pub use plan::{logapx, Plan, PlanInput, PlanJob, PlanMethod};
pub use vnodes::VirtualView;

use super::{Policy, PolicyInfo, Trigger};
use crate::helpers::throughput_matrix::Matrix;
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::settings::Settings;
use schedlab_model::cluster::Placement;
use schedlab_model::perf::BatchChoice;
use schedlab_sim::{field, Decision, Field, Rule, Unit, Val, View};

const FIELDS: &[Field] = &[
    field("rho", Unit::Ratio),
    field("planned", Unit::Count),
    field("rounds", Unit::Count),
    field("weight", Unit::Ratio),
    field("remaining", Unit::Seconds),
    field("need", Unit::Gpus),
];

/// Runs: the plan schedules it in the round that runs now.
pub static PLANNED: Rule = Rule {
    id: "shockwave.planned",
    words: "runs: the plan over the next {rounds} rounds gives it {planned} of them, this one included (the planned round with the most unfairness runs now); its rho = {rho}, utility weight {weight}",
    fields: FIELDS,
    key: Some("rho"),
};

/// Runs on GPUs the plan left idle.
pub static FILL: Rule = Rule {
    id: "shockwave.fill",
    words: "runs on GPUs the plan leaves idle this round: the work-conserving fill goes to the longest remaining time first ({remaining}); rho = {rho}, planned in {planned} of the next {rounds} rounds",
    fields: FIELDS,
    key: Some("rho"),
};

/// Waits: not planned for this round.
pub static LATER: Rule = Rule {
    id: "shockwave.later",
    words: "waits this round: the plan gives it {planned} of the next {rounds} rounds, not the one that runs now, and the fill had no room for its {need} GPUs; rho = {rho}, utility weight {weight}",
    fields: FIELDS,
    key: Some("rho"),
};

schedlab_core::settings! {
    /// Shockwave's settings (`--set shockwave.KEY=VALUE`).
    pub struct ShockwaveSettings {
        round_s: f64 = float("360", 1.0, 86_400.0, "Round length in seconds (the thesis runs Shockwave at 360 s)"),
        future_rounds: usize = int("10", 1, 100, "F: rounds planned ahead (the thesis' '(10, 1e-1)' read as F = 10; the artifact's CLI default is 5)"),
        k: f64 = float("0.1", 0.0, 1000.0, "Weight of the makespan term (largest remaining time, relative to its value at the round start); the artifact uses 1e-9"),
        lambda: f64 = float("12", 0.0, 100.0, "Priority exponent: a job with rho > rho_max has its log-utility multiplied by rho^lambda when the fairness constraints are dropped"),
        rho_max: f64 = float("1", 0.01, 100.0, "Largest finish-time-fairness ratio the plan must respect"),
        momentum: f64 = float("0.9", 0.0, 1.0, "Momentum of the fair finish-time estimates"),
        vnode_gpus: u32 = int("4", 1, 64, "Size of the virtual nodes of the heterogeneity-unaware view"),
        solver: ShockwaveSolver = choice("auto", "auto: exact branch-and-bound when the plan has at most exact_max_vars binaries, else the LP relaxation rounded"),
        exact_max_vars: usize = int("40", 0, 100_000, "Largest plan (jobs x future rounds) solved exactly under solver=auto"),
        node_limit: u64 = int("500", 1, 10_000_000, "Branch-and-bound node budget per round (deterministic)"),
    }
}

const PARAMS: &[ParamSpec] = <ShockwaveSettings as Settings>::SPECS;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "shockwave",
    title: "Shockwave",
    source: schedlab_core::prose::doc("Shockwave (NSDI'23) as Sia's baseline: thesis §3.5.2; spec seed004 §3.5"),
    description: schedlab_core::prose::doc("Rigid jobs, plan-ahead: every 360 s a program over the next F rounds maximises log progress minus a makespan penalty under finish-time fairness; heterogeneity-unaware (virtual 4-GPU nodes, majority-type repair)."),
    params: PARAMS,
    knowledge: crate::Knowledge::Declared,
    build,
};

schedlab_core::choice! {
    /// `solver`: how a round's plan is solved.
    pub enum ShockwaveSolver {
        /// Exact when the plan has at most `exact_max_vars` binaries, else relaxed.
        Auto = "auto",
        Exact = "exact",
        Relaxed = "relaxed",
        Greedy = "greedy",
    }
}

fn build(p: &Params, _seed: u64) -> Result<Box<dyn Policy>> {
    let s = ShockwaveSettings::from_params(p);
    Ok(Box::new(Shockwave {
        round_s: s.round_s,
        future: s.future_rounds,
        k: s.k,
        lambda: s.lambda,
        rho_max: s.rho_max,
        momentum: s.momentum,
        vnode_gpus: s.vnode_gpus,
        solver: s.solver,
        exact_max_vars: s.exact_max_vars,
        node_limit: s.node_limit,
        fair: Vec::new(),
        lone: None,
    }))
}

#[derive(Clone)]
pub struct Shockwave {
    round_s: f64,
    future: usize,
    k: f64,
    lambda: f64,
    rho_max: f64,
    momentum: f64,
    vnode_gpus: u32,
    solver: ShockwaveSolver,
    exact_max_vars: usize,
    node_limit: u64,
    /// Momentum-averaged fair finish-time estimate per job id (NaN: unseen).
    fair: Vec<f64>,
    /// Set after a round in which one job was alone and kept its GPUs: the
    /// job and its fair finish-time estimate of that round (see `steady`).
    lone: Option<(u32, f64)>,
}

/// Priority weight of a job when the fairness rows are dropped.
fn priority(rho: f64, rho_max: f64, lambda: f64, finishes_now: bool) -> f64 {
    if rho <= rho_max {
        return 1.0;
    }
    let e = if finishes_now { 100.0 } else { lambda };
    schedlab_core::num::pow(rho, e).min(1e6)
}

impl Shockwave {
    fn solve(&self, input: &PlanInput, with_ftf: bool) -> (Plan, Option<String>) {
        let vars = input.jobs.len() * input.rounds;
        let exact = match self.solver {
            ShockwaveSolver::Exact => true,
            ShockwaveSolver::Relaxed => false,
            ShockwaveSolver::Greedy => return (input.greedy(), None),
            ShockwaveSolver::Auto => vars <= self.exact_max_vars,
        };
        let mut note = None;
        if exact {
            match input.solve(
                with_ftf,
                PlanMethod::Exact {
                    node_limit: self.node_limit,
                },
            ) {
                Ok(p) => return (p, None),
                Err(schedlab_solve::SolveFailure::Infeasible) if with_ftf => {
                    return (input.greedy(), Some("infeasible".into()))
                }
                Err(e) => note = Some(format!("exact plan: {e}; LP relaxation rounded")),
            }
        }
        match input.solve(with_ftf, PlanMethod::Relaxed) {
            Ok(p) => (p, note),
            Err(schedlab_solve::SolveFailure::Infeasible) if with_ftf => {
                (input.greedy(), Some("infeasible".into()))
            }
            Err(e) => {
                let why = format!("plan LP: {e}; greedy plan");
                (
                    input.greedy(),
                    Some(note.map_or(why.clone(), |n| format!("{n}; {why}"))),
                )
            }
        }
    }
}

impl Policy for Shockwave {
    fn name(&self) -> &str {
        "shockwave"
    }

    fn trigger(&self) -> Trigger {
        Trigger {
            on_events: false,
            round_s: Some(self.round_s),
        }
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let delta = self.round_s;
        let jobs: Vec<u32> = view.active().iter().copied().collect();
        let m = Matrix::build(view, &jobs);
        let n_gpus = view.cluster().total_gpus;
        if self.fair.len() < view.id_bound() {
            self.fair.resize(view.id_bound(), f64::NAN);
        }
        // Heterogeneity-unaware iteration time: mean over the types it fits.
        let unit_s: Vec<f64> = m
            .t
            .iter()
            .map(|row| {
                let secs: Vec<f64> = row.iter().filter(|t| **t > 0.0).map(|t| 1.0 / t).collect();
                if secs.is_empty() {
                    f64::INFINITY
                } else {
                    secs.iter().sum::<f64>() / secs.len() as f64
                }
            })
            .collect();
        let runnable: Vec<usize> = (0..m.len()).filter(|&r| unit_s[r].is_finite()).collect();
        let n_jobs = runnable.len().max(1) as f64;
        let mut plan_jobs = Vec::with_capacity(runnable.len());
        let mut last_estimate = f64::NAN;
        let mut rho = Vec::with_capacity(runnable.len());
        let mut rem_s = Vec::with_capacity(runnable.len());
        for &r in &runnable {
            let j = m.jobs[r];
            let spec = view.spec(j);
            let share = (n_gpus as f64 / (n_jobs * m.gpus[r] as f64)).min(1.0);
            let total_s = view.declared_work(j) * unit_s[r];
            let remaining_s = view.known_remaining_work(j) * unit_s[r];
            let estimate = total_s / share;
            last_estimate = estimate;
            let h = &mut self.fair[j as usize];
            *h = if h.is_nan() {
                estimate
            } else {
                self.momentum * *h + (1.0 - self.momentum) * estimate
            };
            let age = (view.now() - spec.arrival).max(0.0);
            let rho_j = (age + remaining_s / share) / h.max(1e-9);
            let end_age = age + self.future as f64 * delta;
            let cap_s = (self.rho_max * *h - end_age) * share;
            plan_jobs.push(PlanJob {
                gpus: m.gpus[r],
                remaining: remaining_s / delta,
                done: (view.declared_work(j) - view.known_remaining_work(j))
                    / view.declared_work(j).max(1e-12),
                total: total_s / delta,
                weight: 1.0,
                ftf_cap: Some(cap_s / delta),
            });
            rho.push(rho_j);
            rem_s.push(remaining_s);
        }
        let mut input = PlanInput {
            jobs: plan_jobs,
            capacity: n_gpus,
            rounds: self.future,
            k: self.k,
        };
        let t0 = web_time::Instant::now();
        let (mut plan, mut note) = self.solve(&input, true);
        let dropped = note.as_deref() == Some("infeasible") || !plan.meets_ftf;
        if dropped {
            for (i, job) in input.jobs.iter_mut().enumerate() {
                job.weight = priority(rho[i], self.rho_max, self.lambda, rem_s[i] <= delta);
                job.ftf_cap = None;
            }
            let (p, n) = self.solve(&input, false);
            plan = p;
            note = n;
        }
        out.solver_s = t0.elapsed().as_secs_f64();
        out.fallback = note;
        // Re-rank the planned rounds: the one with the most unfairness runs now.
        let score = |f: usize| -> f64 {
            (0..input.jobs.len())
                .filter(|&i| plan.y[i][f])
                .map(|i| rho[i] * input.jobs[i].weight)
                .sum()
        };
        let now_round = (0..self.future)
            .map(|f| (f, score(f)))
            .fold(None::<(usize, f64)>, |best, (f, s)| match best {
                Some((_, bs)) if bs >= s => best,
                _ => Some((f, s)),
            })
            .map_or(0, |(f, _)| f);
        let in_round: Vec<bool> = (0..input.jobs.len())
            .map(|i| plan.y.get(i).is_some_and(|row| row[now_round]))
            .collect();
        // Placement: non-preemptible jobs and planned running jobs keep their
        // GPUs; planned new jobs go through the unaware view, largest first;
        // then the work-conserving fill, longest remaining time first.
        let mut packer = view.packer_replan();
        let mut vview = VirtualView::new(view.cluster(), self.vnode_gpus);
        let mut plan_out: Vec<(u32, Placement, Option<BatchChoice>)> = Vec::new();
        let mut placed = vec![false; m.len()];
        let batch = |r: usize| Some(BatchChoice::Fixed(m.batch[r]));
        let keep = |r: usize,
                    packer: &mut schedlab_model::cluster::Packer,
                    vview: &mut VirtualView,
                    plan_out: &mut Vec<(u32, Placement, Option<BatchChoice>)>|
         -> bool {
            let j = m.jobs[r];
            match view.placement(j) {
                Some(p) if packer.claim_exact(j, p) => {
                    vview.take(p);
                    plan_out.push((j, p.clone(), batch(r)));
                    true
                }
                _ => false,
            }
        };
        for (r, &j) in m.jobs.iter().enumerate() {
            if view.pinned(j) {
                placed[r] = keep(r, &mut packer, &mut vview, &mut plan_out);
            }
        }
        for (i, &r) in runnable.iter().enumerate() {
            if in_round[i] && !placed[r] && view.placement(m.jobs[r]).is_some() {
                placed[r] = keep(r, &mut packer, &mut vview, &mut plan_out);
            }
        }
        let mut new_jobs: Vec<usize> = runnable
            .iter()
            .enumerate()
            .filter(|(i, &r)| in_round[*i] && !placed[r])
            .map(|(_, &r)| r)
            .collect();
        schedlab_core::sorting::sort_by_key(&mut new_jobs, |&r| {
            (std::cmp::Reverse(m.gpus[r]), m.jobs[r])
        });
        for r in new_jobs {
            if let Some(p) = vview.place(&mut packer, m.jobs[r], m.gpus[r]) {
                plan_out.push((m.jobs[r], p, batch(r)));
                placed[r] = true;
            }
        }
        let by_plan = view.want_reasons().then(|| placed.clone());
        let mut fill: Vec<usize> = (0..runnable.len())
            .filter(|&i| !placed[runnable[i]])
            .collect();
        schedlab_core::sorting::sort_by(&mut fill, |&a, &b| {
            rem_s[b]
                .total_cmp(&rem_s[a])
                .then(m.jobs[runnable[a]].cmp(&m.jobs[runnable[b]]))
        });
        for i in fill {
            let r = runnable[i];
            if m.gpus[r] > vview.free_total() {
                continue;
            }
            if keep(r, &mut packer, &mut vview, &mut plan_out) {
                continue;
            }
            if let Some(p) = vview.place(&mut packer, m.jobs[r], m.gpus[r]) {
                plan_out.push((m.jobs[r], p, batch(r)));
            }
        }
        if let Some(by_plan) = by_plan {
            let held: std::collections::BTreeSet<u32> =
                plan_out.iter().map(|(j, _, _)| *j).collect();
            for (i, &r) in runnable.iter().enumerate() {
                let j = m.jobs[r];
                let planned = plan
                    .y
                    .get(i)
                    .map_or(0, |row| row.iter().filter(|y| **y).count());
                let rule = if by_plan[r] {
                    &PLANNED
                } else if held.contains(&j) {
                    &FILL
                } else {
                    &LATER
                };
                out.explain(
                    j,
                    rule,
                    None,
                    [
                        Val::from(rho[i]),
                        Val::from(planned),
                        Val::from(self.future),
                        Val::from(input.jobs[i].weight),
                        Val::from(rem_s[i]),
                        Val::from(m.gpus[r]),
                    ],
                );
            }
        }
        // One job alone that keeps its GPUs keeps them every round until
        // an event (see `steady`).
        self.lone = match (m.jobs.as_slice(), plan_out.as_slice()) {
            ([j], [(k, p, _)])
                if j == k
                    && runnable.len() == 1
                    && view.placement(*j) == Some(p)
                    && !view.measures_rates() =>
            {
                Some((*j, last_estimate))
            }
            _ => None,
        };
        out.apply_plan(view, plan_out);
    }

    /// Quiet rounds: with one active job, which holds GPUs, every round
    /// keeps it where it is, whatever the plan says. Planned for this round,
    /// it keeps its placement (`keep`, on an otherwise empty cluster);
    /// not planned, the work-conserving fill reaches it (nothing else holds
    /// a GPU, so its GPUs are free) and keeps it too. Its batch is the
    /// trace's. So nothing changes until an arrival, a completion or an
    /// epoch's rate change. What moves meanwhile is its momentum-averaged
    /// estimate, whose input (run time over fair share, with one job) is
    /// the same every round: `skipped` replays it. Not with
    /// `engine.measure=overestimate`, where the rates are beliefs that
    /// change as they are measured.
    fn steady(&self) -> bool {
        self.lone.is_some()
    }

    fn skipped(&mut self, rounds: u64) {
        if let Some((j, estimate)) = self.lone {
            let h = &mut self.fair[j as usize];
            for _ in 0..rounds {
                *h = self.momentum * *h + (1.0 - self.momentum) * estimate;
            }
        }
    }
}
