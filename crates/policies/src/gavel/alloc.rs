//! Gavel's allocation programs over time fractions x_jk (Narayanan et al.,
//! OSDI'20; as used by Sia's baselines, thesis §3.4.3, spec seed004 §3.4
//! and §3.6):
//! - max-sum-throughput (E21): max sum_jk T_jk x_jk s.t. sum_j s_j x_jk <= N_k,
//!   sum_k x_jk <= 1, x >= 0;
//! - finish-time fairness (E23, Themis as the spec recommends): minimise the
//!   largest rho_j(x) = (t_j + rem_j / sum_k T_jk x_jk) / D_j. The problem is
//!   quasi-convex, so we bisect on rho; each step is an LP feasibility check
//!   of sum_k T_jk x_jk >= rem_j / (rho D_j - t_j), and among the feasible x
//!   of the final rho we take the one with the most throughput.
//!
//! Every LP answer is checked by `solve::Model`; when the solver fails, a
//! greedy allocation answers and the reason is returned for the round stats.

use crate::helpers::throughput_matrix::Matrix;
use schedlab_solve::{Cmp, Model, Sense, SolveFailure, SolveOptions, Var};

/// An allocation: x[j][k] = fraction of time job j should spend on type k.
#[derive(Debug, Clone, PartialEq)]
pub struct Alloc {
    pub x: Vec<Vec<f64>>,
    /// Set when the LP failed and the greedy allocation answered.
    pub fallback: Option<String>,
}

/// The (E21) constraints with the throughput objective; returns the model
/// and the variable of each (job, type) pair that can run.
fn base_model(m: &Matrix) -> (Model, Vec<Vec<Option<Var>>>) {
    let mut model = Model::new(Sense::Maximize);
    // Scale each row's objective by the largest throughput in the matrix so
    // that coefficients stay near 1 (microlp dislikes badly scaled problems).
    let scale =
        m.t.iter()
            .flatten()
            .fold(0.0f64, |a, b| a.max(*b))
            .max(1e-300);
    let vars: Vec<Vec<Option<Var>>> =
        m.t.iter()
            .map(|row| {
                row.iter()
                    .map(|&t| (t > 0.0).then(|| model.var(t / scale, 0.0, f64::INFINITY)))
                    .collect()
            })
            .collect();
    for row in &vars {
        let coeffs: Vec<(Var, f64)> = row.iter().flatten().map(|v| (*v, 1.0)).collect();
        if !coeffs.is_empty() {
            model.constraint(coeffs, Cmp::Le, 1.0);
        }
    }
    for (k, &cap) in m.caps.iter().enumerate() {
        let coeffs: Vec<(Var, f64)> = vars
            .iter()
            .zip(&m.gpus)
            .filter_map(|(row, &s)| row[k].map(|v| (v, s as f64)))
            .collect();
        if !coeffs.is_empty() {
            model.constraint(coeffs, Cmp::Le, cap as f64);
        }
    }
    (model, vars)
}

fn read_x(vars: &[Vec<Option<Var>>], values: &[f64]) -> Vec<Vec<f64>> {
    vars.iter()
        .map(|row| {
            row.iter()
                .map(|v| v.map_or(0.0, |v| values[v.0].max(0.0)))
                .collect()
        })
        .collect()
}

/// (E21) max-sum-throughput.
pub fn max_sum_throughput(m: &Matrix) -> Alloc {
    if m.is_empty() {
        return Alloc {
            x: Vec::new(),
            fallback: None,
        };
    }
    let (model, vars) = base_model(m);
    let opts = SolveOptions {
        relax: true,
        ..SolveOptions::default()
    };
    match model.solve(&opts) {
        Ok(sol) => Alloc {
            x: read_x(&vars, &sol.values),
            fallback: None,
        },
        Err(e) => Alloc {
            x: greedy(m),
            fallback: Some(format!("max-sum-throughput LP: {e}; greedy allocation")),
        },
    }
}

/// Greedy allocation: (job, type) pairs by throughput per GPU, best first,
/// each taking as much time as its row and the type's capacity allow.
pub fn greedy(m: &Matrix) -> Vec<Vec<f64>> {
    let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
    for (j, row) in m.t.iter().enumerate() {
        for (k, &t) in row.iter().enumerate() {
            if t > 0.0 {
                pairs.push((t / m.gpus[j] as f64, j, k));
            }
        }
    }
    schedlab_core::sorting::sort_by(&mut pairs, |a, b| {
        b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2))
    });
    let mut x = vec![vec![0.0; m.kinds.len()]; m.len()];
    let mut row_left = vec![1.0f64; m.len()];
    let mut cap_left: Vec<f64> = m.caps.iter().map(|c| *c as f64).collect();
    for (_, j, k) in pairs {
        let s = m.gpus[j] as f64;
        let take = row_left[j].min(cap_left[k] / s);
        if take > 1e-12 {
            x[j][k] = take;
            row_left[j] -= take;
            cap_left[k] -= take * s;
        }
    }
    x
}

/// What Themis' rho needs about one job (spec §3.6, E23).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FtfJob {
    /// t_j: seconds since the job was submitted.
    pub since_start: f64,
    /// Work still to do (zoo units).
    pub remaining: f64,
    /// D_j: the job's finish time alone on its isolated share, in seconds
    /// (overhead + total work / isolated throughput).
    pub isolated: f64,
}

/// The finish-time-fairness allocation and the rho it achieves.
#[derive(Debug, Clone, PartialEq)]
pub struct FtfAlloc {
    pub alloc: Alloc,
    /// The smallest worst-case rho found (upper end of the final bracket).
    pub rho: f64,
    /// LP feasibility checks made.
    pub checks: u32,
}

/// Isolated throughput of one job: x_jk = (N_k / n_jobs) / s_j on every
/// type, the row scaled down to sum at most 1 (spec §3.6).
pub fn isolated_throughput(t_row: &[f64], s: u32, caps: &[u32], n_jobs: usize) -> f64 {
    let x: Vec<f64> = caps
        .iter()
        .zip(t_row)
        .map(|(&n, &t)| {
            if t > 0.0 {
                n as f64 / n_jobs.max(1) as f64 / s.max(1) as f64
            } else {
                0.0
            }
        })
        .collect();
    let sum: f64 = x.iter().sum();
    let scale = if sum > 1.0 { 1.0 / sum } else { 1.0 };
    x.iter().zip(t_row).map(|(x, t)| x * scale * t).sum()
}

/// The isolated allocation of every job (feasible for E21).
fn isolated_alloc(m: &Matrix) -> Vec<Vec<f64>> {
    m.t.iter()
        .zip(&m.gpus)
        .map(|(row, &s)| {
            let x: Vec<f64> = m
                .caps
                .iter()
                .zip(row)
                .map(|(&n, &t)| {
                    if t > 0.0 {
                        n as f64 / m.len().max(1) as f64 / s.max(1) as f64
                    } else {
                        0.0
                    }
                })
                .collect();
            let sum: f64 = x.iter().sum();
            let scale = if sum > 1.0 { 1.0 / sum } else { 1.0 };
            x.iter().map(|v| v * scale).collect()
        })
        .collect()
}

/// rho_j of an allocation (infinite if the job gets no throughput).
pub fn rho_of(m: &Matrix, jobs: &[FtfJob], x: &[Vec<f64>], j: usize) -> f64 {
    let f = &jobs[j];
    if f.remaining <= 0.0 {
        return f.since_start / f.isolated;
    }
    let tput: f64 = m.t[j].iter().zip(&x[j]).map(|(t, x)| t * x).sum();
    if tput <= 0.0 {
        return f64::INFINITY;
    }
    (f.since_start + f.remaining / tput) / f.isolated
}

/// The allocation with every rho_j <= rho and the most throughput, if any.
fn feasible_at(m: &Matrix, jobs: &[FtfJob], rho: f64) -> Result<Vec<Vec<f64>>, SolveFailure> {
    let (mut model, vars) = base_model(m);
    for (j, f) in jobs.iter().enumerate() {
        if f.remaining <= 0.0 {
            continue;
        }
        let slack = rho * f.isolated - f.since_start;
        if slack <= 0.0 {
            return Err(SolveFailure::Infeasible);
        }
        let need = f.remaining / slack;
        let tmax = m.t[j].iter().fold(0.0f64, |a, b| a.max(*b));
        if tmax <= 0.0 {
            continue;
        }
        // Normalised by the row's best throughput: need/tmax > 1 can never be met.
        if need / tmax > 1.0 + 1e-12 {
            return Err(SolveFailure::Infeasible);
        }
        let coeffs: Vec<(Var, f64)> = vars[j]
            .iter()
            .zip(&m.t[j])
            .filter_map(|(v, t)| v.map(|v| (v, t / tmax)))
            .collect();
        model.constraint(coeffs, Cmp::Ge, (need / tmax).min(1.0));
    }
    let opts = SolveOptions {
        relax: true,
        ..SolveOptions::default()
    };
    model.solve(&opts).map(|sol| read_x(&vars, &sol.values))
}

/// (E23) by bisection on rho to a relative tolerance `tol`.
pub fn finish_time_fairness(m: &Matrix, jobs: &[FtfJob], tol: f64, max_checks: u32) -> FtfAlloc {
    let fallback = |why: String, checks: u32| {
        let a = max_sum_throughput(m);
        let rho = (0..m.len())
            .map(|j| rho_of(m, jobs, &a.x, j))
            .fold(0.0, f64::max);
        FtfAlloc {
            alloc: Alloc {
                x: a.x,
                fallback: Some(a.fallback.map_or(why.clone(), |f| format!("{why}; {f}"))),
            },
            rho,
            checks,
        }
    };
    if m.is_empty() {
        return FtfAlloc {
            alloc: Alloc {
                x: Vec::new(),
                fallback: None,
            },
            rho: 0.0,
            checks: 0,
        };
    }
    // Lower bound: each job alone on its best type.
    let mut lo = 0.0f64;
    for (j, f) in jobs.iter().enumerate() {
        let tmax = m.t[j].iter().fold(0.0f64, |a, b| a.max(*b));
        if f.remaining > 0.0 && tmax > 0.0 {
            lo = lo.max((f.since_start + f.remaining / tmax) / f.isolated);
        }
    }
    // Upper bound without an LP: the isolated shares are themselves feasible.
    let iso = isolated_alloc(m);
    let hi0 = (0..m.len())
        .map(|j| rho_of(m, jobs, &iso, j))
        .fold(lo, f64::max);
    let mut checks = 0u32;
    let mut best: Option<(f64, Vec<Vec<f64>>)> = None;
    let mut failure: Option<SolveFailure> = None;
    let mut try_at = |rho: f64, checks: &mut u32| -> Option<Vec<Vec<f64>>> {
        *checks += 1;
        match feasible_at(m, jobs, rho) {
            Ok(x) => Some(x),
            Err(SolveFailure::Infeasible) => None,
            Err(e) => {
                failure = Some(e);
                None
            }
        }
    };
    if let Some(x) = try_at(lo, &mut checks) {
        best = Some((lo, x));
    } else {
        // Bracket: the isolated bound when finite (a little slack for the
        // LP's tolerances), else doubling.
        let mut hi = if hi0.is_finite() {
            hi0 * (1.0 + 1e-9) + 1e-12
        } else {
            lo.max(1e-9) * 2.0
        };
        while checks < max_checks {
            if let Some(x) = try_at(hi, &mut checks) {
                best = Some((hi, x));
                break;
            }
            lo = hi;
            hi *= 2.0;
        }
        if let Some((mut hi, mut x_hi)) = best.take() {
            while checks < max_checks && hi - lo > tol * hi {
                let mid = 0.5 * (lo + hi);
                match try_at(mid, &mut checks) {
                    Some(x) => {
                        hi = mid;
                        x_hi = x;
                    }
                    None => lo = mid,
                }
            }
            best = Some((hi, x_hi));
        }
    }
    match (best, failure) {
        (Some((rho, x)), _) => FtfAlloc {
            alloc: Alloc { x, fallback: None },
            rho,
            checks,
        },
        (None, Some(e)) => fallback(format!("finish-time-fairness LP: {e}"), checks),
        (None, None) => fallback(
            format!("finish-time-fairness: no feasible rho found in {checks} checks"),
            checks,
        ),
    }
}
