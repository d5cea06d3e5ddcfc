//! PCS's preference solver (spec seed001 §2.4-2.5): the WFQ(T, W, ζ, δ)
//! search space, the objective names, and one evaluation = one simulation
//! of the training workload under `pcs` with predictions at every arrival.

use super::front::Point;
use crate::setup::RunSettings;
use schedlab_core::error::{Error, Result};
use schedlab_core::settings::Settings;
use schedlab_metrics::{evaluate, JobMetrics};
use schedlab_model::cluster::Cluster;
use schedlab_model::perf::{ModelZoo, Share};
use schedlab_model::workload::Trace;
use schedlab_policies::pcs::heuristic::{
    max_running_cv2, normalised_weights, thresholds_from_cv2, weights_from_decay,
};
use schedlab_policies::pcs::PcsSettings;
use schedlab_sim::rules::{declared_works, natural_batch};
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

    /// A comma-separated list of objectives (`--objectives`, the page's
    /// choice): at least one, none empty or named twice.
    pub fn parse_list(text: &str) -> Result<Vec<Objective>> {
        let names = schedlab_core::params::name_list("--objectives", text)?;
        let mut out: Vec<Objective> = Vec::new();
        for name in &names {
            let o = Objective::parse(name)?;
            // Two spellings of one objective (p01_jct, p1_jct) are one too.
            if out
                .iter()
                .any(|x| (x.metric, x.percentile) == (o.metric, o.percentile))
            {
                return Err(Error::config(format!(
                    "--objectives {text}: '{name}' is named twice"
                )));
            }
            out.push(o);
        }
        Ok(out)
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
                schedlab_core::sorting::sort_by(&mut v, f64::total_cmp);
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
        schedlab_policies::pcs::config::overrides(
            &self.thresholds,
            &self.weights,
            self.clip,
            self.delta,
        )
    }

    /// The `pcs` policy's settings that run this configuration.
    pub fn settings(&self) -> PcsSettings {
        PcsSettings {
            thresholds: self.thresholds.clone(),
            weights: self.weights.clone(),
            clip: self.clip,
            delta: self.delta,
            ..PcsSettings::default()
        }
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

/// Classes at most in the raw space (Fig. 9c: K = int(x0), x0 <= 5.5).
const RAW_CLASSES: usize = 5;

/// The search problem: a training workload on a cluster, the objectives,
/// and the settings of every evaluation (the engine's; the search chooses
/// the `pcs` policy's and turns predictions on).
pub struct WfqProblem {
    pub trace: Trace,
    pub cluster: Arc<Cluster>,
    pub zoo: Arc<ModelZoo>,
    pub settings: RunSettings,
    pub objectives: Vec<Objective>,
    /// The training apps' sizes (1-GPU seconds), for the thresholds.
    pub sizes: Vec<f64>,
    /// Replicate the artifact's threshold quirk (spec §7.5).
    pub artifact_quirk: bool,
    pub space: Space,
}

/// The search space: PCS's heuristic (T, W, ζ, δ) or the 13 raw variables
/// of its "search without heuristics" ablation (Fig. 9c, spec §2.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    Heuristic,
    /// K = int(x0) classes (x0 in [1, 5.5]); thresholds T1..T5 in [1, largest
    /// size]: the first K sorted, the last made unbounded; rates R1..R5 in
    /// [0, 1]: the first K normalised as the heuristic's; then ζ, δ.
    Raw,
}

impl Space {
    pub fn parse(name: &str) -> Result<Space> {
        match name {
            "heuristic" => Ok(Space::Heuristic),
            "raw" => Ok(Space::Raw),
            other => Err(Error::config(format!(
                "search space '{other}': expected heuristic (T, W, clip, delta) or raw (Fig. 9c's 13 variables)"
            ))),
        }
    }
}

impl WfqProblem {
    pub fn new(
        trace: Trace,
        cluster: Cluster,
        zoo: ModelZoo,
        settings: RunSettings,
        objectives: Vec<Objective>,
    ) -> Result<WfqProblem> {
        if objectives.is_empty() {
            return Err(Error::config("--objectives: name at least one objective"));
        }
        if let Some(owner) = settings.configured_policies().next() {
            return Err(Error::config(format!(
                "--set {owner}.*: only engine.* and zoo.* settings apply to a search (the search chooses pcs.*)"
            )));
        }
        let mut settings = settings;
        settings.set("engine", "predict", "true")?;
        let (cluster, zoo) = (Arc::new(cluster), Arc::new(zoo));
        // Sizes: each job's declared work as the engine reads the trace
        // (`rules::declared_works`), in seconds on one GPU.
        let works = declared_works(&trace, &cluster, &zoo)?;
        let kind = cluster.kinds[0];
        let per_node = cluster.max_node_gpus(kind);
        let sizes = works
            .iter()
            .zip(&trace.jobs)
            .map(|(work, spec)| {
                let id = zoo
                    .lookup(&spec.model)
                    .expect("the engine resolved the model");
                let share = Share {
                    kind,
                    share: 1.0,
                    per_node,
                    batch: natural_batch(spec, zoo.get(id)),
                };
                work / zoo.rate_at_share(id, &share, 0.0)
            })
            .collect();
        Ok(WfqProblem {
            trace,
            cluster,
            zoo,
            settings,
            objectives,
            sizes,
            artifact_quirk: true,
            space: Space::Heuristic,
        })
    }

    /// Bounds of (T, W, ζ, δ): T up to the largest running C² plus one; or
    /// the raw space's 13 variables.
    pub fn bounds(&self) -> Vec<(f64, f64)> {
        match self.space {
            Space::Heuristic => vec![
                (0.001, max_running_cv2(&self.sizes) + 1.0),
                (-3.0, 3.0),
                (0.0, 1.0),
                (0.01, 0.9),
            ],
            Space::Raw => {
                let largest = self.sizes.iter().copied().fold(1.0, f64::max);
                let mut b = vec![(1.0, 5.5)];
                b.extend([(1.0, largest); RAW_CLASSES]);
                b.extend([(0.0, 1.0); RAW_CLASSES]);
                b.extend([(0.0, 1.0), (0.01, 0.9)]);
                b
            }
        }
    }

    /// The configuration a point stands for; None when a weight rounds to 0
    /// (or, in the raw space, two thresholds coincide).
    pub fn config(&self, x: &[f64]) -> Option<WfqPoint> {
        let (thresholds, weights) = match self.space {
            Space::Heuristic => {
                let thresholds = thresholds_from_cv2(&self.sizes, x[0], self.artifact_quirk);
                let weights = weights_from_decay(thresholds.len() + 1, x[1])?;
                (thresholds, weights)
            }
            Space::Raw => {
                let k = (x[0] as usize).clamp(1, RAW_CLASSES);
                let mut t: Vec<f64> = x[1..1 + k].to_vec();
                t.sort_by(f64::total_cmp);
                t.pop(); // the last class is unbounded
                if t.windows(2).any(|w| w[1] <= w[0]) {
                    return None;
                }
                let rates = &x[1 + RAW_CLASSES..1 + RAW_CLASSES + k];
                (t, normalised_weights(rates)?)
            }
        };
        let n = x.len();
        Some(WfqPoint {
            thresholds,
            weights,
            clip: x[n - 2],
            delta: x[n - 1],
        })
    }

    /// Objectives of one configuration (+∞ for an invalid one or a failed run).
    pub fn evaluate_config(&self, cfg: &WfqPoint) -> Result<Vec<f64>> {
        let out = self
            .settings
            .simulation_with(
                &self.trace,
                &self.cluster,
                &self.zoo,
                "pcs",
                &cfg.settings().to_params(),
                // The search's seed has always been 0 for the engine (`pcs` takes none).
                0,
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
        assert_eq!(Objective::parse_list("avg_jct, p99_jct").unwrap().len(), 2);
        for (bad, want) in [
            ("avg_jct,avg_jct", "'avg_jct' is named twice"),
            ("avg_jct,,p99_jct", "entry 2 is empty"),
            ("p1_jct,p01_jct", "'p01_jct' is named twice"),
            ("avg_speed", "unknown objective"),
        ] {
            let e = Objective::parse_list(bad).unwrap_err().to_string();
            assert!(e.contains(want), "{bad}: {e}");
        }
    }

    #[test]
    fn the_raw_space_maps_13_variables_to_a_configuration() {
        let trace = schedlab_model::workload::load_named("pcs-themis1")
            .unwrap()
            .unwrap();
        let trace = trace.subset("t", None, 30).unwrap();
        let mut p = WfqProblem::new(
            trace,
            schedlab_model::cluster::parse_cluster("pcs-64").unwrap(),
            ModelZoo::builtin(),
            RunSettings::default(),
            vec![Objective::parse("avg_jct").unwrap()],
        )
        .unwrap();
        p.space = Space::Raw;
        let b = p.bounds();
        assert_eq!(b.len(), 13);
        assert_eq!(b[0], (1.0, 5.5));
        let largest = p.sizes.iter().copied().fold(0.0, f64::max);
        assert!(b[1..6]
            .iter()
            .all(|&(lo, hi)| lo == 1.0 && hi == largest.max(1.0)));
        // K = 3: thresholds 500 and 9000 of (9000, 500, 70000); rates 0.2, 0.2, 0.6.
        let x = [
            3.7, 9000.0, 500.0, 70000.0, 1.0, 1.0, 0.2, 0.2, 0.6, 0.9, 0.9, 0.3, 0.05,
        ];
        let c = p.config(&x).unwrap();
        assert_eq!(c.thresholds, vec![500.0, 9000.0]);
        assert_eq!(c.weights.len(), 3);
        assert!(
            (c.weights[2] - 0.6).abs() < 1e-12
                && (c.weights.iter().sum::<f64>() - 1.0).abs() < 1e-12
        );
        assert_eq!((c.clip, c.delta), (0.3, 0.05));
        // K = 1: one class, no threshold; equal thresholds or a zero rate are invalid.
        let mut one = x;
        one[0] = 1.2;
        assert_eq!(p.config(&one).unwrap().thresholds, Vec::<f64>::new());
        let mut same = x;
        same[2] = 9000.0;
        assert!(p.config(&same).is_none());
        let mut zero = x;
        zero[6] = 0.0;
        assert!(p.config(&zero).is_none());
        assert!(p.evaluate(&zero)[0].is_infinite());
        assert!(p.evaluate(&x)[0].is_finite());
        assert!(Space::parse("cubic").is_err());
    }
}
