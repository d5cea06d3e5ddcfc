//! PCS's preference solver (spec seed001 §2.4-2.5): the WFQ(T, W, ζ, δ)
//! search space, the objective names, and one evaluation = one simulation
//! of the training workload under `pcs` with predictions at every arrival.

use super::front::Point;
use crate::cluster::Cluster;
use crate::error::{Error, Result};
use crate::metrics::{evaluate, JobMetrics};
use crate::perf::{ModelZoo, Share};
use crate::policy::pcs::heuristic::{max_running_cv2, thresholds_from_cv2, weights_from_decay};
use crate::sim::{natural_batch, EngineConfig, Simulation};
use crate::workload::Trace;
use std::sync::Arc;

/// What an objective measures per job.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Metric {
    Jct,
    PredError,
    Unfairness,
}

/// One objective: a statistic of a per-job metric, minimised.
#[derive(Debug, Clone, PartialEq)]
pub struct Objective {
    pub name: String,
    metric: Metric,
    /// None: the mean; Some(q): the q-th percentile (linear interpolation).
    percentile: Option<f64>,
}

impl Objective {
    /// `avg_jct`, `p99_pred_error`, `avg_unfairness`, ... (the artifact's names).
    pub fn parse(name: &str) -> Result<Objective> {
        let bad = || {
            Error::config(format!(
                "unknown objective '{name}': expected avg_ or pNN_ (NN in 1..99) followed by jct, pred_error or unfairness, e.g. avg_jct, p99_pred_error"
            ))
        };
        let (stat, what) = name.trim().split_once('_').ok_or_else(bad)?;
        let metric = match what {
            "jct" => Metric::Jct,
            "pred_error" => Metric::PredError,
            "unfairness" => Metric::Unfairness,
            _ => return Err(bad()),
        };
        let percentile = match stat {
            "avg" => None,
            p => {
                let q: f64 = p
                    .strip_prefix('p')
                    .and_then(|q| q.parse().ok())
                    .ok_or_else(bad)?;
                if !(q > 0.0 && q < 100.0) {
                    return Err(bad());
                }
                Some(q)
            }
        };
        Ok(Objective {
            name: name.trim().to_string(),
            metric,
            percentile,
        })
    }

    /// The objective's value over a run's jobs (JCT in seconds, errors in
    /// percent, unfairness as a fraction as the artifact's search does).
    pub fn value(&self, jobs: &[JobMetrics]) -> f64 {
        let mut v: Vec<f64> = jobs
            .iter()
            .filter_map(|j| match self.metric {
                Metric::Jct => j.jct_s,
                Metric::PredError => j.pred_error_pct,
                // PCS: max(0, JCT / fair finish time - 1).
                Metric::Unfairness => j.ftf_rho.map(|r| (r - 1.0).max(0.0)),
            })
            .collect();
        if v.is_empty() {
            return f64::INFINITY;
        }
        match self.percentile {
            None => v.iter().sum::<f64>() / v.len() as f64,
            Some(q) => {
                crate::sorting::sort_by(&mut v, f64::total_cmp);
                let at = q / 100.0 * (v.len() - 1) as f64;
                let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
                v[lo] + (v[hi] - v[lo]) * (at - lo as f64)
            }
        }
    }
}

/// A WFQ configuration in the `pcs` policy's parameter terms.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct WfqPoint {
    pub thresholds: Vec<f64>,
    pub weights: Vec<f64>,
    pub clip: f64,
    pub delta: f64,
}

impl WfqPoint {
    /// The `--set pcs.*` overrides that run this configuration.
    pub fn overrides(&self) -> Vec<(String, String)> {
        crate::policy::pcs::config::overrides(
            &self.thresholds,
            &self.weights,
            self.clip,
            self.delta,
        )
    }

    /// The artifact's configuration file format (`PCS_config_*.json`).
    pub fn artifact_json(&self) -> serde_json::Value {
        let mut thresholds: Vec<serde_json::Value> = self
            .thresholds
            .iter()
            .map(|t| serde_json::json!(t))
            .collect();
        thresholds.push(serde_json::json!("inf"));
        serde_json::json!({
            "num_classes": self.weights.len(),
            "class_thresholds": thresholds,
            "class_rates": self.weights,
            "clip_demand_factor": self.clip,
            "delta": self.delta,
        })
    }
}

/// The search problem: a training workload on a cluster, the objectives,
/// and the engine settings of every evaluation.
pub struct WfqProblem {
    pub trace: Trace,
    pub cluster: Arc<Cluster>,
    pub zoo: Arc<ModelZoo>,
    pub engine: Vec<(String, String)>,
    pub objectives: Vec<Objective>,
    /// The training apps' sizes (1-GPU seconds), for the thresholds.
    pub sizes: Vec<f64>,
    /// Replicate the artifact's threshold quirk (spec §7.5).
    pub artifact_quirk: bool,
}

impl WfqProblem {
    pub fn new(
        trace: Trace,
        cluster: Cluster,
        zoo: ModelZoo,
        engine: Vec<(String, String)>,
        objectives: Vec<Objective>,
    ) -> Result<WfqProblem> {
        if objectives.is_empty() {
            return Err(Error::config("--objectives: name at least one objective"));
        }
        let (cluster, zoo) = (Arc::new(cluster), Arc::new(zoo));
        // Sizes from the engine's own reading of the trace (work at one GPU).
        let (policy, _) = crate::policy::build("fifo", &[], 1)?;
        let sim = Simulation::with_shared(
            &trace,
            cluster.clone(),
            zoo.clone(),
            policy,
            EngineConfig::default(),
        )?;
        let kind = cluster.kinds[0];
        let per_node = cluster.max_node_gpus(kind);
        let sizes = sim
            .outcome()
            .jobs
            .iter()
            .zip(&trace.jobs)
            .map(|(r, spec)| {
                let id = zoo.lookup(&r.model).expect("the engine resolved the model");
                let share = Share {
                    kind,
                    share: 1.0,
                    per_node,
                    batch: natural_batch(spec, zoo.get(id)),
                };
                r.work / zoo.rate_at_share(id, &share, 0.0)
            })
            .collect();
        Ok(WfqProblem {
            trace,
            cluster,
            zoo,
            engine,
            objectives,
            sizes,
            artifact_quirk: true,
        })
    }

    /// Bounds of (T, W, ζ, δ): T up to the largest running C² plus one.
    pub fn bounds(&self) -> Vec<(f64, f64)> {
        vec![
            (0.001, max_running_cv2(&self.sizes) + 1.0),
            (-3.0, 3.0),
            (0.0, 1.0),
            (0.01, 0.9),
        ]
    }

    /// The configuration a point stands for; None when a weight rounds to 0.
    pub fn config(&self, x: &[f64]) -> Option<WfqPoint> {
        let thresholds = thresholds_from_cv2(&self.sizes, x[0], self.artifact_quirk);
        let weights = weights_from_decay(thresholds.len() + 1, x[1])?;
        Some(WfqPoint {
            thresholds,
            weights,
            clip: x[2],
            delta: x[3],
        })
    }

    /// Objectives of one configuration (+∞ for an invalid one or a failed run).
    pub fn evaluate_config(&self, cfg: &WfqPoint) -> Result<Vec<f64>> {
        let (policy, _) = crate::policy::build("pcs", &cfg.overrides(), 1)?;
        let mut engine = self.engine.clone();
        engine.push(("predict".into(), "true".into()));
        let ecfg = EngineConfig::from_overrides(&engine)?;
        let out = Simulation::with_shared(
            &self.trace,
            self.cluster.clone(),
            self.zoo.clone(),
            policy,
            ecfg,
        )?
        .run(&mut |_| true)?;
        let (_, jobs) = evaluate(&out, &self.trace.jobs, &self.cluster, &self.zoo);
        Ok(self.objectives.iter().map(|o| o.value(&jobs)).collect())
    }

    /// Objectives of a search point.
    pub fn evaluate(&self, x: &[f64]) -> Vec<f64> {
        let inf = vec![f64::INFINITY; self.objectives.len()];
        match self.config(x) {
            Some(cfg) => self.evaluate_config(&cfg).unwrap_or(inf),
            None => inf,
        }
    }

    /// A point with its configuration, for reports.
    pub fn describe(&self, p: &Point) -> Option<WfqPoint> {
        self.config(&p.x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objective_names() {
        assert!(Objective::parse("avg_jct").is_ok());
        assert!(Objective::parse("p99_pred_error").is_ok());
        assert!(Objective::parse("avg_unfairness").is_ok());
        for bad in ["avg_speed", "p100_jct", "jct", "q99_jct"] {
            let e = Objective::parse(bad).unwrap_err().to_string();
            assert!(e.contains(&format!("unknown objective '{bad}'")), "{e}");
        }
    }
}
