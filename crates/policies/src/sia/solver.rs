//! How Sia solves a round's problem (`sia.solver`): the exact method, LP + shim,
//! the thesis's LP*, POP-K or COpter's continual solver (docs/COPTER.md), each
//! timed into the round's `Decision` (POP also its slowest part).

use super::{Row, Sia, SiaSolver};
use schedlab_core::rng::keyed_uniform;
use schedlab_sim::Decision;
use schedlab_solve::{solve_pop, ContinualMck, Mck, MckResult, Method, PpaSettings};

impl Sia {
    /// The round's pick, by the configured method; every answer is checked.
    pub(super) fn solve_round(
        &mut self,
        problem: &Mck,
        rows: &[Row],
        out: &mut Decision,
    ) -> MckResult {
        let exact_max_vars = self.exact_max_vars;
        let auto = move |vars: usize| {
            if vars <= exact_max_vars {
                Method::Exact
            } else {
                Method::LpShim
            }
        };
        let vars: usize = rows.iter().map(|r| r.configs.len()).sum();
        out.solver_vars = Some(vars as u32);
        let t0 = web_time::Instant::now();
        let result = match self.solver {
            SiaSolver::Copter => self.continual_round(problem, rows, out),
            SiaSolver::Pop => {
                // Each job's part is drawn once from the seed and the job (POP's random
                // assignment, kept for the job's life: no reshuffle between rounds).
                let part_of: Vec<usize> = rows
                    .iter()
                    .map(|r| {
                        (keyed_uniform(self.seed, &[r.job as u64]) * self.pop_k as f64) as usize
                    })
                    .collect();
                let pop = solve_pop(problem, self.pop_k, &part_of, auto, self.node_limit);
                out.solver_s = pop.total_s;
                out.solver_slowest_part_s = Some(pop.slowest_part_s);
                return pop.result;
            }
            SiaSolver::Exact => problem.solve(Method::Exact, self.node_limit),
            SiaSolver::LpShim => problem.solve(Method::LpShim, self.node_limit),
            SiaSolver::LpStar => problem.solve(Method::LpShimPlain, self.node_limit),
            SiaSolver::Greedy => problem.solve(Method::Greedy, self.node_limit),
            SiaSolver::Auto => problem.solve(auto(vars), self.node_limit),
        };
        out.solver_s = t0.elapsed().as_secs_f64();
        if self.paired && self.solver == SiaSolver::Copter {
            self.paired_solves(problem, rows, out);
        }
        result
    }

    /// The round's problem solved again, cold by COpter's solver and by LP*,
    /// each timed (with its shim) into `solver_paired` and its answer dropped:
    /// the attribution compares methods on the same problems, where separate
    /// runs drift apart after the first round (docs/COPTER.md).
    fn paired_solves(&self, problem: &Mck, rows: &[Row], out: &mut Decision) {
        let (item_keys, option_keys) = continual_keys(problem, rows);
        let t = web_time::Instant::now();
        let mut cold = ContinualMck::new(PpaSettings {
            warm_start: false,
            ..self.continual.settings
        });
        if let Some((values, _)) = cold.solve(problem, &item_keys, &option_keys) {
            let _ = problem.shim_values(&values, Method::LpShimPlain);
        }
        out.solver_paired
            .push(("copter-cold", t.elapsed().as_secs_f64()));
        let t = web_time::Instant::now();
        let _ = problem.solve(Method::LpShimPlain, self.node_limit);
        out.solver_paired
            .push(("lp-star", t.elapsed().as_secs_f64()));
    }

    /// COpter: the continual LP solver (state kept by job and configuration)
    /// and the thesis shim; LP + shim answers if it fails, and says so.
    fn continual_round(&mut self, problem: &Mck, rows: &[Row], out: &mut Decision) -> MckResult {
        let (item_keys, option_keys) = continual_keys(problem, rows);
        let (result, changed) = solve_continual(
            &mut self.continual,
            problem,
            &item_keys,
            &option_keys,
            self.node_limit,
        );
        out.solver_changed_vars = changed;
        result
    }
}

/// COpter's LP and the thesis shim, or LP + shim with the reason in
/// `fallback` when either fails; also the variables the solve moved.
fn solve_continual(
    continual: &mut ContinualMck,
    problem: &Mck,
    item_keys: &[u64],
    option_keys: &[Vec<u64>],
    node_limit: u64,
) -> (MckResult, Option<u32>) {
    let mut changed = None;
    let result = continual
        .solve(problem, item_keys, option_keys)
        .ok_or_else(|| "forced options exceed the capacity".to_string())
        .and_then(|(values, stats)| {
            changed = Some(stats.changed_vars as u32);
            problem.shim_values(&values, Method::LpShimPlain)
        })
        .unwrap_or_else(|why| {
            let mut r = problem.solve(Method::LpShim, node_limit);
            r.fallback = Some(format!("COpter solver failed ({why}); LP + shim answered"));
            r
        });
    (result, changed)
}

/// COpter's keys for a round: each item by its job, each option by its GPU
/// type, nodes and GPUs (the same configuration keeps its key across rounds).
fn continual_keys(problem: &Mck, rows: &[Row]) -> (Vec<u64>, Vec<Vec<u64>>) {
    let item_keys = rows.iter().map(|r| r.job as u64).collect();
    let option_keys = problem
        .items
        .iter()
        .zip(rows)
        .map(|(it, r)| {
            it.choices
                .iter()
                .zip(&r.configs)
                .map(|(ch, c)| {
                    let kind = ch.usage.first().map_or(0, |u| u.0 as u64);
                    kind << 48 | (c.nodes as u64) << 24 | c.gpus as u64
                })
                .collect()
        })
        .collect();
    (item_keys, option_keys)
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_solve::mck::{Choice, Item};

    fn item(choices: &[(f64, u32)], forced: Option<usize>) -> Item {
        Item {
            choices: choices
                .iter()
                .map(|&(weight, gpus)| Choice {
                    weight,
                    usage: vec![(0, gpus)],
                })
                .collect(),
            forced,
        }
    }

    /// Acceptance (issue 16): a COpter failure falls back to LP + shim, and the
    /// answer says so; a round COpter solves carries no fallback.
    #[test]
    fn a_copter_failure_falls_back_to_lp_and_shim_and_is_recorded() {
        let keys = |p: &Mck| -> Vec<Vec<u64>> {
            p.items
                .iter()
                .map(|it| (0..it.choices.len() as u64).collect())
                .collect()
        };
        let mut continual = ContinualMck::new(PpaSettings::default());
        let fits = Mck {
            items: vec![item(&[(1.0, 1), (1.5, 2)], None), item(&[(0.8, 1)], None)],
            capacity: vec![3],
        };
        let (ok, changed) = solve_continual(&mut continual, &fits, &[1, 2], &keys(&fits), 100);
        assert_eq!(ok.fallback, None);
        assert!(changed.is_some());
        fits.check(&ok.pick).unwrap();
        // A running job holds more than the cluster has left (forced): COpter
        // cannot start, LP + shim answers and the round records why.
        let overfull = Mck {
            items: vec![item(&[(1.0, 4)], Some(0)), item(&[(0.8, 1)], None)],
            capacity: vec![3],
        };
        let (r, changed) =
            solve_continual(&mut continual, &overfull, &[1, 2], &keys(&overfull), 100);
        let why = r.fallback.as_deref().unwrap_or("");
        assert!(
            why.starts_with("COpter solver failed (forced options exceed the capacity)"),
            "{why}"
        );
        assert_eq!(changed, None);
        assert_eq!(r.pick, overfull.solve(Method::LpShim, 100).pick);
    }
}
