//! A small LP/MILP model over microlp whose answers are checked against the
//! model as written before anyone uses them.
//!
//! Policies build a `Model` (variables with bounds and objective
//! coefficients, sparse constraint rows), call `solve`, and get a
//! `ModelSolution` that has already passed `Model::check`. Branch-and-bound
//! is limited by a node budget, not by wall time, so that results stay
//! deterministic (a time limit would make a run depend on machine load).

use serde::Serialize;

/// Index of a variable in a [`Model`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Var(pub usize);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Le,
    Ge,
    Eq,
}

#[derive(Debug, Clone)]
struct VarDef {
    obj: f64,
    lo: f64,
    hi: f64,
    integer: bool,
}

#[derive(Debug, Clone)]
struct Row {
    coeffs: Vec<(Var, f64)>,
    cmp: Cmp,
    rhs: f64,
}

/// Whether to maximise or minimise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sense {
    Maximize,
    Minimize,
}

/// An LP or MILP.
#[derive(Debug, Clone)]
pub struct Model {
    sense: Sense,
    vars: Vec<VarDef>,
    rows: Vec<Row>,
}

/// Solve settings.
#[derive(Debug, Clone, Copy)]
pub struct SolveOptions {
    /// Treat integer variables as continuous (the LP relaxation).
    pub relax: bool,
    /// Branch-and-bound node budget (deterministic); `None` = unlimited.
    pub node_limit: Option<u64>,
    /// Relative MIP gap accepted.
    pub mip_gap: f64,
    /// Feasibility tolerance used by `Model::check`.
    pub check_tol: f64,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            relax: false,
            node_limit: Some(20_000),
            mip_gap: 1e-6,
            check_tol: 1e-6,
        }
    }
}

/// A checked solution.
#[derive(Debug, Clone, Serialize)]
pub struct ModelSolution {
    pub values: Vec<f64>,
    pub objective: f64,
    /// Optimal within the requested MIP gap (false: stopped at the node budget with an incumbent).
    pub optimal: bool,
}

impl ModelSolution {
    pub fn value(&self, v: Var) -> f64 {
        self.values[v.0]
    }
}

/// Why a solve gave no usable answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum SolveFailure {
    Infeasible,
    Unbounded,
    /// Node budget exhausted without an incumbent.
    Interrupted,
    /// The solver failed numerically.
    Numerical(String),
    /// The solver answered but the answer violates the model.
    CheckFailed(String),
}

impl std::fmt::Display for SolveFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SolveFailure::Infeasible => write!(f, "infeasible"),
            SolveFailure::Unbounded => write!(f, "unbounded"),
            SolveFailure::Interrupted => write!(f, "node budget exhausted without a solution"),
            SolveFailure::Numerical(m) => write!(f, "solver failure: {m}"),
            SolveFailure::CheckFailed(m) => write!(f, "solver answer rejected: {m}"),
        }
    }
}

impl Model {
    pub fn new(sense: Sense) -> Model {
        Model {
            sense,
            vars: Vec::new(),
            rows: Vec::new(),
        }
    }

    pub fn num_vars(&self) -> usize {
        self.vars.len()
    }

    pub fn num_rows(&self) -> usize {
        self.rows.len()
    }

    /// A continuous variable in [lo, hi] with objective coefficient `obj`.
    pub fn var(&mut self, obj: f64, lo: f64, hi: f64) -> Var {
        self.vars.push(VarDef {
            obj,
            lo,
            hi,
            integer: false,
        });
        Var(self.vars.len() - 1)
    }

    /// A binary variable.
    pub fn binary(&mut self, obj: f64) -> Var {
        self.vars.push(VarDef {
            obj,
            lo: 0.0,
            hi: 1.0,
            integer: true,
        });
        Var(self.vars.len() - 1)
    }

    /// An integer variable in [lo, hi].
    pub fn integer(&mut self, obj: f64, lo: i32, hi: i32) -> Var {
        self.vars.push(VarDef {
            obj,
            lo: lo as f64,
            hi: hi as f64,
            integer: true,
        });
        Var(self.vars.len() - 1)
    }

    pub fn constraint(&mut self, coeffs: Vec<(Var, f64)>, cmp: Cmp, rhs: f64) {
        self.rows.push(Row { coeffs, cmp, rhs });
    }

    /// Objective value of an assignment.
    pub fn objective_of(&self, x: &[f64]) -> f64 {
        self.vars.iter().zip(x).map(|(v, x)| v.obj * x).sum()
    }

    /// Checks bounds, integrality (unless `relaxed`) and every row within `tol`
    /// (relative to the row's magnitude).
    pub fn check(&self, x: &[f64], relaxed: bool, tol: f64) -> Result<(), String> {
        if x.len() != self.vars.len() {
            return Err(format!(
                "{} values for {} variables",
                x.len(),
                self.vars.len()
            ));
        }
        for (i, (v, &xi)) in self.vars.iter().zip(x).enumerate() {
            if !xi.is_finite() || xi < v.lo - tol || xi > v.hi + tol {
                return Err(format!("variable {i} = {xi} outside [{}, {}]", v.lo, v.hi));
            }
            if v.integer && !relaxed && (xi - xi.round()).abs() > tol {
                return Err(format!("integer variable {i} = {xi}"));
            }
        }
        for (k, r) in self.rows.iter().enumerate() {
            let lhs: f64 = r.coeffs.iter().map(|(v, c)| c * x[v.0]).sum();
            let scale = r
                .coeffs
                .iter()
                .map(|(v, c)| (c * x[v.0]).abs())
                .fold(r.rhs.abs(), f64::max)
                .max(1.0);
            let slack = tol * scale;
            let ok = match r.cmp {
                Cmp::Le => lhs <= r.rhs + slack,
                Cmp::Ge => lhs >= r.rhs - slack,
                Cmp::Eq => (lhs - r.rhs).abs() <= slack,
            };
            if !ok {
                return Err(format!("row {k}: {lhs} {:?} {}", r.cmp, r.rhs));
            }
        }
        Ok(())
    }

    /// Solves with microlp and checks the answer. Integer values within the
    /// integrality tolerance are rounded before the check.
    pub fn solve(&self, opts: &SolveOptions) -> Result<ModelSolution, SolveFailure> {
        use microlp::{ComparisonOp, OptimizationDirection, Problem};
        let mut p = Problem::new(match self.sense {
            Sense::Maximize => OptimizationDirection::Maximize,
            Sense::Minimize => OptimizationDirection::Minimize,
        });
        let mvars: Vec<microlp::Variable> = self
            .vars
            .iter()
            .map(|v| {
                if v.integer && !opts.relax {
                    if v.lo == 0.0 && v.hi == 1.0 {
                        p.add_binary_var(v.obj)
                    } else {
                        p.add_integer_var(v.obj, (v.lo as i32, v.hi as i32))
                    }
                } else {
                    p.add_var(v.obj, (v.lo, v.hi))
                }
            })
            .collect();
        for r in &self.rows {
            let expr: Vec<(microlp::Variable, f64)> =
                r.coeffs.iter().map(|(v, c)| (mvars[v.0], *c)).collect();
            let op = match r.cmp {
                Cmp::Le => ComparisonOp::Le,
                Cmp::Ge => ComparisonOp::Ge,
                Cmp::Eq => ComparisonOp::Eq,
            };
            p.add_constraint(expr.as_slice(), op, r.rhs);
        }
        let mut options = microlp::SolveOptions::default();
        options.node_limit = opts.node_limit;
        options.mip_gap = opts.mip_gap;
        let outcome = p.solve_with(options).map_err(|e| match e {
            microlp::Error::Infeasible => SolveFailure::Infeasible,
            microlp::Error::Unbounded => SolveFailure::Unbounded,
            other => SolveFailure::Numerical(other.to_string()),
        })?;
        // Within the requested gap counts as optimal (the gap is ours to set).
        let optimal = matches!(
            outcome.termination_reason(),
            microlp::TerminationReason::ProvenOptimal | microlp::TerminationReason::MipGap
        );
        let sol = outcome
            .into_solution()
            .map_err(|_| SolveFailure::Interrupted)?;
        let mut values: Vec<f64> = mvars.iter().map(|v| sol.var_value(*v)).collect();
        if !opts.relax {
            for (x, v) in values.iter_mut().zip(&self.vars) {
                if v.integer {
                    *x = x.round();
                }
            }
        }
        self.check(&values, opts.relax, opts.check_tol)
            .map_err(SolveFailure::CheckFailed)?;
        Ok(ModelSolution {
            objective: self.objective_of(&values),
            values,
            optimal,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_milp_and_its_relaxation() {
        // max x + 2y, x + y <= 4, 2x + y >= 2, y integer in [0, 3].
        let mut m = Model::new(Sense::Maximize);
        let x = m.var(1.0, 0.0, f64::INFINITY);
        let y = m.integer(2.0, 0, 3);
        m.constraint(vec![(x, 1.0), (y, 1.0)], Cmp::Le, 4.0);
        m.constraint(vec![(x, 2.0), (y, 1.0)], Cmp::Ge, 2.0);
        let s = m.solve(&SolveOptions::default()).unwrap();
        assert!((s.objective - 7.0).abs() < 1e-6 && s.optimal);
        assert_eq!(s.value(y), 3.0);
    }

    #[test]
    fn infeasible_and_check() {
        let mut m = Model::new(Sense::Minimize);
        let x = m.binary(1.0);
        m.constraint(vec![(x, 1.0)], Cmp::Ge, 2.0);
        assert_eq!(
            m.solve(&SolveOptions::default()).unwrap_err(),
            SolveFailure::Infeasible
        );
        assert!(m.check(&[1.0], false, 1e-9).is_err());
        assert!(m.check(&[0.5], true, 1e-9).is_err());
    }
}
