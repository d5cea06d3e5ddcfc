//! PCS's preference search on the page (issue 17, item 5): the same SPEA2
//! and the same evaluations as `schedlab pcs search`, split so that the page
//! can spread a generation over a pool of Web Workers. The page's main
//! thread holds a [`PageSearch`] (the SPEA2 state: it asks for a batch of
//! points and is told their objectives); each worker holds a
//! [`PageProblem`] on the same trace and settings and evaluates the points
//! it is sent. Both are built by [`problem`], so a worker's objectives are
//! the ones the CLI would compute, and the front equals the CLI's for the
//! same seed (a Node test checks it).

use super::runner::load_trace;
use schedlab_core::error::{Error, Result};
use schedlab_model::perf::ModelZoo;
use schedlab_run::report::cluster_for;
use schedlab_run::search::front::{non_dominated, picks, Point};
use schedlab_run::search::pcs::{Objective, WfqProblem};
use schedlab_run::search::spea2::{Settings, Spea2};
use serde::Serialize;

/// The search problem of a page: `trace` (a bundled name, or `text` named
/// `trace`), `cluster` (name or spec), objective names (comma-separated) and
/// the page's `engine.*` settings (other owners are ignored: the search
/// chooses `pcs.*`); the search trains on the first `apps` apps (0: all), as
/// `schedlab pcs search --apps` does.
pub fn problem(
    trace: &str,
    text: &str,
    cluster: &str,
    objectives: &str,
    sets: &[String],
    apps: usize,
) -> Result<WfqProblem> {
    let objectives = Objective::parse_list(objectives)?;
    let engine_sets: Vec<String> = sets
        .iter()
        .filter(|s| s.trim_start().starts_with("engine."))
        .cloned()
        .collect();
    let settings = super::runner::page_settings(&[], &engine_sets)?;
    let full = load_trace(trace, text)?;
    let keep = if apps == 0 { full.jobs.len() } else { apps };
    let trace = full.subset(&full.name, None, keep)?;
    let cluster = cluster_for(cluster, &trace, None)?;
    WfqProblem::new(trace, cluster, ModelZoo::builtin(), settings, objectives)
}

/// A worker's side: evaluates points of the search space.
pub struct PageProblem {
    problem: WfqProblem,
}

impl PageProblem {
    pub fn new(problem: WfqProblem) -> PageProblem {
        PageProblem { problem }
    }

    /// The problem, for a [`PageSearch`] on the main thread.
    pub fn into_problem(self) -> WfqProblem {
        self.problem
    }

    /// Objectives of `xs` (a flat list of points of `bounds().len()` values),
    /// flat in the same order (+inf for an invalid configuration).
    pub fn evaluate(&self, xs: &[f64]) -> Result<Vec<f64>> {
        let n = self.problem.bounds().len();
        if !xs.len().is_multiple_of(n) {
            return Err(Error::config(format!(
                "search points: {} values is not a multiple of {n}",
                xs.len()
            )));
        }
        Ok(xs
            .chunks(n)
            .flat_map(|x| self.problem.evaluate(x))
            .collect())
    }
}

/// A point of the front as the page shows it.
#[derive(Debug, Clone, Serialize)]
pub struct FrontPoint {
    /// (T, W, ζ, δ).
    pub x: Vec<f64>,
    /// The objectives, in the order asked.
    pub f: Vec<f64>,
    /// `pcs.*=VALUE` settings that run this configuration.
    pub sets: Vec<String>,
    /// Number of WFQ classes.
    pub classes: usize,
    /// `jct`, `bal` or `pred` when the point is one of the named picks.
    pub pick: Vec<&'static str>,
}

/// What the page learns after each batch.
#[derive(Debug, Clone, Serialize)]
pub struct SearchState {
    pub objectives: Vec<String>,
    pub evaluations: usize,
    pub budget: usize,
    pub done: bool,
    /// Every point evaluated so far (x and objectives), for the scatter's cloud.
    pub evaluated: Vec<Point>,
    /// The non-dominated points among the current population.
    pub front: Vec<FrontPoint>,
}

/// The main thread's side: SPEA2 asked and told in batches.
pub struct PageSearch {
    problem: WfqProblem,
    spea2: Spea2,
    budget: usize,
    evaluated: Vec<Point>,
}

impl PageSearch {
    pub fn new(problem: WfqProblem, settings: Settings, seed: u64) -> Result<PageSearch> {
        if settings.evaluations == 0 || settings.population == 0 || settings.offspring == 0 {
            return Err(Error::config(
                "search: evaluations, population and offspring must be at least 1",
            ));
        }
        let spea2 = Spea2::new(&problem.bounds(), &settings, seed);
        Ok(PageSearch {
            problem,
            spea2,
            budget: settings.evaluations,
            evaluated: Vec::new(),
        })
    }

    /// The next batch, flat (empty once the budget is spent).
    pub fn ask(&mut self) -> Vec<f64> {
        self.spea2.ask().concat()
    }

    /// The objectives of the batch last asked, flat in its order.
    pub fn tell(&mut self, fs: &[f64]) -> Result<()> {
        let xs = self.spea2.ask();
        let k = self.problem.objectives.len();
        if fs.len() != xs.len() * k {
            return Err(Error::config(format!(
                "search: {} objective values for {} points of {k} objectives",
                fs.len(),
                xs.len()
            )));
        }
        let fs: Vec<Vec<f64>> = fs.chunks(k).map(<[f64]>::to_vec).collect();
        self.evaluated.extend(
            xs.into_iter()
                .zip(fs.iter().cloned())
                .map(|(x, f)| Point { x, f }),
        );
        self.spea2.tell(fs);
        Ok(())
    }

    pub fn state(&self) -> SearchState {
        let front = non_dominated(self.spea2.population());
        let chosen = if self.problem.objectives.len() >= 2 {
            picks(&front)
        } else {
            None
        };
        let names_of = |p: &Point| -> Vec<&'static str> {
            let Some(k) = &chosen else { return vec![] };
            [("jct", &k.jct), ("bal", &k.bal), ("pred", &k.pred)]
                .into_iter()
                .filter(|(_, q)| q.x == p.x)
                .map(|(n, _)| n)
                .collect()
        };
        SearchState {
            objectives: self
                .problem
                .objectives
                .iter()
                .map(|o| o.name.clone())
                .collect(),
            evaluations: self.spea2.evaluations(),
            budget: self.budget,
            done: self.spea2.done(),
            evaluated: self.evaluated.clone(),
            front: front
                .iter()
                .map(|p| {
                    let cfg = self.problem.describe(p);
                    FrontPoint {
                        x: p.x.clone(),
                        f: p.f.clone(),
                        sets: cfg.as_ref().map_or_else(Vec::new, |c| {
                            c.overrides()
                                .into_iter()
                                .map(|(k, v)| format!("pcs.{k}={v}"))
                                .collect()
                        }),
                        classes: cfg.map_or(0, |c| c.weights.len()),
                        pick: names_of(p),
                    }
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> WfqProblem {
        problem(
            "pcs-themis1",
            "",
            "pcs-64",
            "avg_jct,avg_pred_error",
            &["engine.max_days=2".into()],
            60,
        )
        .unwrap()
    }

    #[test]
    fn batches_evaluated_elsewhere_give_the_cli_search() {
        let settings = Settings {
            population: 6,
            offspring: 4,
            evaluations: 14,
            ..Settings::default()
        };
        // The CLI's way: one call that evaluates each batch itself.
        let reference = small();
        let direct = schedlab_run::search::spea2::run(
            &reference.bounds(),
            &settings,
            5,
            &mut |xs| xs.iter().map(|x| reference.evaluate(x)).collect(),
            &mut |_| true,
        );
        // The page's way: flat batches sent to a worker's problem.
        let mut search = PageSearch::new(small(), settings, 5).unwrap();
        let worker = PageProblem::new(small());
        let mut batches = 0;
        loop {
            let xs = search.ask();
            if xs.is_empty() {
                break;
            }
            let fs = worker.evaluate(&xs).unwrap();
            search.tell(&fs).unwrap();
            batches += 1;
        }
        assert_eq!(batches, 3); // 6, then 4 + 4
        let state = search.state();
        assert!(state.done);
        assert_eq!(state.evaluations, 14);
        assert_eq!(state.evaluated.len(), 14);
        let want: Vec<(Vec<f64>, Vec<f64>)> = non_dominated(&direct)
            .into_iter()
            .map(|p| (p.x, p.f))
            .collect();
        let got: Vec<(Vec<f64>, Vec<f64>)> = state
            .front
            .iter()
            .map(|p| (p.x.clone(), p.f.clone()))
            .collect();
        assert_eq!(got, want);
        assert!(state
            .front
            .iter()
            .all(|p| p.sets.iter().any(|s| s.starts_with("pcs.weights="))));
    }

    #[test]
    fn a_wrong_batch_is_an_error_not_a_panic() {
        let mut search = PageSearch::new(small(), Settings::default(), 1).unwrap();
        let xs = search.ask();
        assert_eq!(xs.len(), 70 * 4);
        let e = search.tell(&[1.0, 2.0, 3.0]).unwrap_err().to_string();
        assert!(e.contains("3 objective values for 70 points"), "{e}");
        let e = PageProblem::new(small()).evaluate(&[0.5; 5]).unwrap_err();
        assert!(e.to_string().contains("not a multiple of 4"), "{e}");
        let e = problem("pcs-themis1", "", "pcs-64", "avg_jct,avg_speed", &[], 0)
            .err()
            .unwrap();
        assert!(
            e.to_string().contains("unknown objective 'avg_speed'"),
            "{e}"
        );
    }
}
