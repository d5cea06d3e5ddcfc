//! Shockwave's plan-ahead program (Zheng et al., NSDI'23; as run by Sia's
//! simulator, spec seed004 §3.5): which rigid jobs run in each of the next
//! F rounds.
//!
//! Variables: binary y_jf (job j runs in future round f), planned run time
//! q_j (in rounds) with q_j <= sum_f y_jf and q_j <= the job's remaining
//! time, the job's utility z_j and the largest remaining time R. Per round,
//! sum_j s_j y_jf <= N. The objective (E22) is
//!   max sum_j w_j logapx(u_j) / (|J| F) - k R / R0,
//! with u_j = (done_j + planned progress) / total_j, logapx the piecewise-
//! linear log through {0, .2, .4, .6, .8, 1} (log 0 := log 1e-6) and R0 the
//! largest remaining time at the start of the round. Because logapx is
//! concave and maximised, z_j <= each segment's line is exact: no SOS2
//! binaries are needed. Optional finish-time-fairness rows cap each job's
//! remaining time after the window (the policy computes the caps).
//!
//! Solved exactly by branch-and-bound (`solve::Model`, node budget) on small
//! rounds, with the rounds' loads ordered to break the symmetry between
//! rounds; beyond that, the LP relaxation (in its aggregated form, see
//! `relaxed_model`) is rounded: each job gets the
//! whole rounds its LP value covers, packed into the emptiest rounds it fits,
//! then the largest fractional remainders get one more round.

use schedlab_solve::{Cmp, Model, Sense, SolveFailure, SolveOptions, Var};

/// Breakpoints of the piecewise-linear log.
const BREAKS: [f64; 6] = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0];
/// log 0 is taken as log of this.
const LOG_FLOOR: f64 = 1e-6;

/// One job as the planner sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlanJob {
    /// GPUs the job needs (s_j).
    pub gpus: u32,
    /// Remaining run time in rounds at its configuration.
    pub remaining: f64,
    /// Fraction of the job already done (u at the start of the window).
    pub done: f64,
    /// Run time of the whole job in rounds (so u grows by q / total).
    pub total: f64,
    /// Priority multiplier on the log utility (1 unless re-weighted).
    pub weight: f64,
    /// Largest remaining time (rounds) allowed after the window by the
    /// finish-time-fairness constraint; None = unconstrained.
    pub ftf_cap: Option<f64>,
}

/// The program of one scheduling round.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanInput {
    pub jobs: Vec<PlanJob>,
    /// GPUs in the cluster (N).
    pub capacity: u32,
    /// Future rounds planned (F).
    pub rounds: usize,
    /// Weight of the makespan term (k).
    pub k: f64,
}

/// How to solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanMethod {
    /// Branch-and-bound within a node budget.
    Exact { node_limit: u64 },
    /// LP relaxation and rounding.
    Relaxed,
}

/// A plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// y[j][f].
    pub y: Vec<Vec<bool>>,
    /// Objective of the plan (planned run time set to its best value for y).
    pub objective: f64,
    /// Proven optimal (exact method only).
    pub optimal: bool,
    /// The plan meets every finish-time-fairness cap it was given.
    pub meets_ftf: bool,
}

/// log through the breakpoints, linear in between.
pub fn logapx(u: f64) -> f64 {
    let u = u.clamp(0.0, 1.0);
    let v = |b: f64| schedlab_core::num::ln(b.max(LOG_FLOOR));
    for w in BREAKS.windows(2) {
        if u <= w[1] {
            let t = (u - w[0]) / (w[1] - w[0]);
            return v(w[0]) + t * (v(w[1]) - v(w[0]));
        }
    }
    0.0
}

/// (slope, intercept) of each segment of `logapx`.
fn segments() -> Vec<(f64, f64)> {
    let v = |b: f64| schedlab_core::num::ln(b.max(LOG_FLOOR));
    BREAKS
        .windows(2)
        .map(|w| {
            let a = (v(w[1]) - v(w[0])) / (w[1] - w[0]);
            (a, v(w[0]) - a * w[0])
        })
        .collect()
}

impl PlanInput {
    /// Largest remaining time at the start (R0, the makespan scale).
    fn r0(&self) -> f64 {
        self.jobs
            .iter()
            .map(|j| j.remaining)
            .fold(0.0, f64::max)
            .max(1e-9)
    }

    /// Planned run time of job j given its number of rounds.
    fn q_of(&self, j: usize, rounds: usize) -> f64 {
        (rounds as f64).min(self.jobs[j].remaining)
    }

    /// E22 for a schedule (planned time at its best for y).
    pub fn objective(&self, y: &[Vec<bool>]) -> f64 {
        let n = self.jobs.len().max(1) as f64 * self.rounds.max(1) as f64;
        let mut util = 0.0;
        let mut worst = 0.0f64;
        for (j, job) in self.jobs.iter().enumerate() {
            let q = self.q_of(j, y[j].iter().filter(|b| **b).count());
            let u = job.done + q / job.total.max(1e-12);
            util += job.weight * logapx(u);
            worst = worst.max(job.remaining - q);
        }
        util / n - self.k * worst / self.r0()
    }

    /// Capacity per round and every finish-time-fairness cap.
    pub fn check(&self, y: &[Vec<bool>]) -> Result<bool, String> {
        for f in 0..self.rounds {
            let load: u32 = self
                .jobs
                .iter()
                .zip(y)
                .filter(|(_, row)| row[f])
                .map(|(j, _)| j.gpus)
                .sum();
            if load > self.capacity {
                return Err(format!("round {f} uses {load} GPUs of {}", self.capacity));
            }
        }
        Ok(self.jobs.iter().enumerate().all(|(j, job)| {
            let q = self.q_of(j, y[j].iter().filter(|b| **b).count());
            job.ftf_cap
                .is_none_or(|cap| job.remaining - q <= cap + 1e-9)
        }))
    }

    /// Rounds job j can use at most (it needs no more than its remaining time).
    fn useful_rounds(&self, j: usize) -> usize {
        (self.jobs[j].remaining.ceil() as usize).min(self.rounds)
    }

    fn model(&self, with_ftf: bool) -> Result<(Model, Vec<Vec<Var>>), SolveFailure> {
        let f_n = self.rounds;
        let n = self.jobs.len().max(1) as f64 * f_n.max(1) as f64;
        let r0 = self.r0();
        let mut m = Model::new(Sense::Maximize);
        let y: Vec<Vec<Var>> = self
            .jobs
            .iter()
            .map(|_| (0..f_n).map(|_| m.binary(0.0)).collect())
            .collect();
        let big_r = m.var(-self.k / r0, 0.0, f64::INFINITY);
        let segs = segments();
        let floor = schedlab_core::num::ln(LOG_FLOOR);
        for (j, job) in self.jobs.iter().enumerate() {
            let q = m.var(0.0, 0.0, job.remaining.max(0.0));
            let z = m.var(job.weight / n, floor, 0.0);
            // q <= sum_f y_jf.
            let mut row = vec![(q, 1.0)];
            row.extend(y[j].iter().map(|v| (*v, -1.0)));
            m.constraint(row, Cmp::Le, 0.0);
            // z <= a (done + q / total) + b.
            let per = 1.0 / job.total.max(1e-12);
            for &(a, b) in &segs {
                m.constraint(vec![(z, 1.0), (q, -a * per)], Cmp::Le, a * job.done + b);
            }
            // R >= remaining - q.
            m.constraint(vec![(big_r, 1.0), (q, 1.0)], Cmp::Ge, job.remaining);
            if with_ftf {
                if let Some(cap) = job.ftf_cap {
                    if cap < 0.0 {
                        return Err(SolveFailure::Infeasible);
                    }
                    // remaining - q <= cap.
                    m.constraint(vec![(q, 1.0)], Cmp::Ge, job.remaining - cap);
                }
            }
        }
        for f in 0..f_n {
            let row: Vec<(Var, f64)> = y
                .iter()
                .zip(&self.jobs)
                .map(|(yj, job)| (yj[f], job.gpus as f64))
                .collect();
            m.constraint(row, Cmp::Le, self.capacity as f64);
        }
        // Symmetry: rounds are interchangeable, so order them by load.
        for f in 1..f_n {
            let mut row: Vec<(Var, f64)> = Vec::new();
            for (yj, job) in y.iter().zip(&self.jobs) {
                row.push((yj[f - 1], job.gpus as f64));
                row.push((yj[f], -(job.gpus as f64)));
            }
            m.constraint(row, Cmp::Ge, 0.0);
        }
        Ok((m, y))
    }

    /// The LP relaxation in aggregated form. Rounds are interchangeable, so
    /// any relaxed y can be spread evenly over them: the relaxation is
    /// exactly "planned time q_j <= min(F, remaining_j), sum_j s_j q_j <= N F".
    fn relaxed_model(&self, with_ftf: bool) -> Result<(Model, Vec<Var>), SolveFailure> {
        let f_n = self.rounds as f64;
        let n = self.jobs.len().max(1) as f64 * f_n.max(1.0);
        let r0 = self.r0();
        let mut m = Model::new(Sense::Maximize);
        let big_r = m.var(-self.k / r0, 0.0, f64::INFINITY);
        let segs = segments();
        let floor = schedlab_core::num::ln(LOG_FLOOR);
        let mut qs = Vec::with_capacity(self.jobs.len());
        for job in &self.jobs {
            let q = m.var(0.0, 0.0, job.remaining.clamp(0.0, f_n));
            let z = m.var(job.weight / n, floor, 0.0);
            let per = 1.0 / job.total.max(1e-12);
            for &(a, b) in &segs {
                m.constraint(vec![(z, 1.0), (q, -a * per)], Cmp::Le, a * job.done + b);
            }
            m.constraint(vec![(big_r, 1.0), (q, 1.0)], Cmp::Ge, job.remaining);
            if with_ftf {
                if let Some(cap) = job.ftf_cap {
                    if cap < 0.0 || job.remaining - cap > f_n.min(job.remaining) + 1e-9 {
                        return Err(SolveFailure::Infeasible);
                    }
                    m.constraint(vec![(q, 1.0)], Cmp::Ge, job.remaining - cap);
                }
            }
            qs.push(q);
        }
        let row: Vec<(Var, f64)> = qs
            .iter()
            .zip(&self.jobs)
            .map(|(q, job)| (*q, job.gpus as f64))
            .collect();
        m.constraint(row, Cmp::Le, self.capacity as f64 * f_n);
        Ok((m, qs))
    }

    /// Solves the program (with or without the fairness rows).
    pub fn solve(&self, with_ftf: bool, method: PlanMethod) -> Result<Plan, SolveFailure> {
        if self.jobs.is_empty() || self.rounds == 0 {
            return Ok(Plan {
                y: vec![vec![false; self.rounds]; self.jobs.len()],
                objective: 0.0,
                optimal: true,
                meets_ftf: true,
            });
        }
        let (y, optimal) = match method {
            PlanMethod::Exact { node_limit } => {
                let (model, vars) = self.model(with_ftf)?;
                // Binaries the solver leaves within its integrality tolerance
                // (about 1e-5) are rounded before the check, and q may have
                // used that sliver; q is recomputed from the rounded y below
                // and `check` re-verifies capacity exactly, so the rows get
                // a 1e-4 tolerance here.
                let opts = SolveOptions {
                    node_limit: Some(node_limit),
                    mip_gap: 1e-6,
                    check_tol: 1e-4,
                    ..SolveOptions::default()
                };
                let sol = model.solve(&opts)?;
                let y = vars
                    .iter()
                    .map(|row| row.iter().map(|v| sol.value(*v) > 0.5).collect())
                    .collect();
                (y, sol.optimal)
            }
            PlanMethod::Relaxed => {
                let (model, qs) = self.relaxed_model(with_ftf)?;
                let opts = SolveOptions {
                    relax: true,
                    ..SolveOptions::default()
                };
                let sol = model.solve(&opts)?;
                let n: Vec<f64> = qs.iter().map(|q| sol.value(*q)).collect();
                (self.round_counts(&n), false)
            }
        };
        let meets_ftf = self.check(&y).map_err(SolveFailure::CheckFailed)?;
        Ok(Plan {
            objective: self.objective(&y),
            y,
            optimal,
            meets_ftf: meets_ftf || !with_ftf,
        })
    }

    /// Rounds a relaxed plan: whole rounds first (emptiest round that
    /// fits), then one more round for the largest fractional remainders.
    pub fn round_counts(&self, n: &[f64]) -> Vec<Vec<bool>> {
        let f_n = self.rounds;
        let mut y = vec![vec![false; f_n]; self.jobs.len()];
        let mut free = vec![self.capacity as i64; f_n];
        let mut order: Vec<usize> = (0..self.jobs.len()).collect();
        schedlab_core::sorting::sort_by(&mut order, |&a, &b| {
            self.jobs[b]
                .weight
                .total_cmp(&self.jobs[a].weight)
                .then(n[b].total_cmp(&n[a]))
                .then(a.cmp(&b))
        });
        let place = |y: &mut Vec<Vec<bool>>, free: &mut Vec<i64>, j: usize| -> bool {
            let s = self.jobs[j].gpus as i64;
            let best = (0..f_n)
                .filter(|&f| !y[j][f] && free[f] >= s)
                .max_by_key(|&f| (free[f], std::cmp::Reverse(f)));
            if let Some(f) = best {
                y[j][f] = true;
                free[f] -= s;
                true
            } else {
                false
            }
        };
        for &j in &order {
            let whole = (n[j] + 1e-6).floor().max(0.0) as usize;
            for _ in 0..whole.min(self.useful_rounds(j)) {
                if !place(&mut y, &mut free, j) {
                    break;
                }
            }
        }
        let mut frac: Vec<(f64, usize)> = order
            .iter()
            .map(|&j| (n[j] - (n[j] + 1e-6).floor(), j))
            .filter(|(r, _)| *r > 1e-6)
            .collect();
        schedlab_core::sorting::sort_by(&mut frac, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, j) in frac {
            let have = y[j].iter().filter(|b| **b).count();
            if have < self.useful_rounds(j) {
                place(&mut y, &mut free, j);
            }
        }
        y
    }

    /// A plan without a solver: jobs by weight, then least done first, fill
    /// each round (the fallback when the LP fails).
    pub fn greedy(&self) -> Plan {
        let f_n = self.rounds;
        let mut order: Vec<usize> = (0..self.jobs.len()).collect();
        schedlab_core::sorting::sort_by(&mut order, |&a, &b| {
            self.jobs[b]
                .weight
                .total_cmp(&self.jobs[a].weight)
                .then(self.jobs[a].done.total_cmp(&self.jobs[b].done))
                .then(a.cmp(&b))
        });
        let mut y = vec![vec![false; f_n]; self.jobs.len()];
        for f in 0..f_n {
            let mut free = self.capacity as i64;
            for &j in &order {
                let have = y[j].iter().filter(|b| **b).count();
                let s = self.jobs[j].gpus as i64;
                if have < self.useful_rounds(j) && s <= free {
                    y[j][f] = true;
                    free -= s;
                }
            }
        }
        let meets_ftf = self.check(&y).unwrap_or(false);
        Plan {
            objective: self.objective(&y),
            y,
            optimal: false,
            meets_ftf,
        }
    }
}
