//! The metric catalog: how each summary metric (a field of [`crate::Summary`]) is
//! named, scaled, rounded and read (which way is better), and when it applies,
//! declared once for the CLI's table, CSV and JSON, the sweeps' merged table
//! and the page. A metric that does not apply to a run is null there ("–").

use serde::Serialize;

use schedlab_core::prose::doc;

/// How the page shows one summary metric (a field of `metrics::Summary`).
#[derive(Debug, Serialize)]
pub struct MetricInfo {
    pub key: &'static str,
    pub label: &'static str,
    /// Unit after scaling (`h`, `GPU-h`, or empty).
    pub unit: &'static str,
    /// Displayed value = raw value x scale.
    pub scale: f64,
    /// Decimals shown (the CLI table's precision).
    pub digits: u32,
    /// `lower`, `higher` or `none`: which way is better.
    pub better: &'static str,
    pub help: &'static str,
    /// When the metric applies (empty: always); otherwise it is null.
    pub applies: &'static str,
    /// Where the CLI's text report shows it (CSV and JSON have every metric).
    pub table: Table,
}

/// The CLI text report's table a metric is a column of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Table {
    /// The per-policy table, always ("–" where it does not apply).
    Main,
    /// The per-policy table when some run has a value (due dates, prices,
    /// predictions).
    WhenApplies,
    /// The table of speedups against per-pool FCFS (runs with pools).
    Speedup,
    /// CSV and JSON only.
    None,
}

/// The metric `key` of the catalog.
pub fn metric(key: &str) -> Option<&'static MetricInfo> {
    METRICS.iter().find(|m| m.key == key)
}

/// The text a table or CSV cell shows for a metric that does not apply.
pub const ABSENT: &str = "–";

impl MetricInfo {
    /// A value as the CLI's table shows it: scaled, with the catalog's
    /// decimals, or [`ABSENT`].
    pub fn show(&self, v: Option<f64>) -> String {
        match v {
            Some(x) => format!("{:.*}", self.digits as usize, x * self.scale),
            None => ABSENT.to_string(),
        }
    }

    /// The column header: the label and the unit (unless the label names it).
    pub fn header(&self) -> String {
        if self.unit.is_empty() || self.label.contains(self.unit) {
            self.label.to_string()
        } else {
            format!("{} {}", self.label, self.unit)
        }
    }
}

const H: f64 = 1.0 / 3600.0;

/// Display rules for the summary metrics, in table order. Metrics missing
/// here are still shown by the page (raw value, 3 decimals).
pub const METRICS: &[MetricInfo] = &[
    MetricInfo {
        key: "completed",
        label: "done",
        unit: "",
        scale: 1.0,
        digits: 0,
        better: "higher",
        help: doc("Jobs that finished"),
        applies: "",
        table: Table::Main,
    },
    MetricInfo {
        key: "jobs",
        label: "jobs",
        unit: "",
        scale: 1.0,
        digits: 0,
        better: "none",
        help: doc("Jobs in the trace"),
        applies: "",
        table: Table::Main,
    },
    MetricInfo {
        key: "avg_jct_s",
        label: "avg JCT",
        unit: "h",
        scale: H,
        digits: 2,
        better: "lower",
        help: doc("Mean job completion time (finish - arrival)"),
        applies: "runs with a completed job",
        table: Table::Main,
    },
    MetricInfo {
        key: "p50_jct_s",
        label: "p50 JCT",
        unit: "h",
        scale: H,
        digits: 2,
        better: "lower",
        help: doc("Median JCT"),
        applies: "runs with a completed job",
        table: Table::Main,
    },
    MetricInfo {
        key: "p90_jct_s",
        label: "p90 JCT",
        unit: "h",
        scale: H,
        digits: 2,
        better: "lower",
        help: doc("90th percentile JCT"),
        applies: "runs with a completed job",
        table: Table::Main,
    },
    MetricInfo {
        key: "p99_jct_s",
        label: "p99 JCT",
        unit: "h",
        scale: H,
        digits: 2,
        better: "lower",
        help: doc("99th percentile JCT"),
        applies: "runs with a completed job",
        table: Table::Main,
    },
    MetricInfo {
        key: "makespan_s",
        label: "makespan",
        unit: "h",
        scale: H,
        digits: 2,
        better: "lower",
        help: doc("Last finish - first arrival (when every job finished)"),
        applies: "runs in which every job finished",
        table: Table::Main,
    },
    MetricInfo {
        key: "avg_queue_s",
        label: "avg queue",
        unit: "h",
        scale: H,
        digits: 2,
        better: "lower",
        help: doc("Mean time a job spent without GPUs"),
        applies: "runs with a completed job",
        table: Table::Main,
    },
    MetricInfo {
        key: "gpu_hours",
        label: "GPU-hours",
        unit: "GPU-h",
        scale: 1.0,
        digits: 1,
        better: "lower",
        help: doc("GPU time held by jobs, finished or not, restart delays included"),
        applies: "",
        table: Table::Main,
    },
    MetricInfo {
        key: "utilization",
        label: "utilisation",
        unit: "%",
        scale: 100.0,
        digits: 1,
        better: "higher",
        help: doc("GPU time held / (cluster GPUs x the run's span: the makespan, or up to the end of a run that stopped early)"),
        applies: "runs of positive length",
        table: Table::Main,
    },
    MetricInfo {
        key: "avg_restarts",
        label: "restarts/job",
        unit: "",
        scale: 1.0,
        digits: 2,
        better: "lower",
        help: doc("Allocation changes after the first start, per job"),
        applies: "",
        table: Table::Main,
    },
    MetricInfo {
        key: "ftf_rho_max",
        label: "max FTF",
        unit: "",
        scale: 1.0,
        digits: 2,
        better: "lower",
        help: doc("Worst finish-time fairness rho (JCT / isolated time on a 1/N share)"),
        applies: "runs with a completed job that has a fair-share reference",
        table: Table::Main,
    },
    MetricInfo {
        key: "ftf_unfair_frac",
        label: "unfair (FTF > 1)",
        unit: "%",
        scale: 100.0,
        digits: 1,
        better: "lower",
        help: doc("Fraction of finished jobs with rho > 1"),
        applies: "runs with a completed job that has a fair-share reference",
        table: Table::None,
    },
    MetricInfo {
        key: "energy_kwh",
        label: "energy",
        unit: "kWh",
        scale: 1.0,
        digits: 1,
        better: "lower",
        help: doc("Cluster energy over the run's span: busy power of held GPUs, idle power of the others (approximate idle figures, docs/METRICS.md)"),
        applies: "",
        table: Table::Main,
    },
    MetricInfo {
        key: "avg_tardiness_s",
        label: "tardiness",
        unit: "h",
        scale: H,
        digits: 2,
        better: "lower",
        help: doc("Mean time past the due date, over the jobs that have one"),
        applies: "traces with due dates",
        table: Table::WhenApplies,
    },
    MetricInfo {
        key: "due_missed_frac",
        label: "due missed",
        unit: "%",
        scale: 100.0,
        digits: 1,
        better: "lower",
        help: doc("Fraction of the jobs with a due date that finished after it or not at all"),
        applies: "traces with due dates",
        table: Table::WhenApplies,
    },
    MetricInfo {
        key: "max_tardiness_s",
        label: "max tardiness",
        unit: "h",
        scale: H,
        digits: 2,
        better: "lower",
        help: doc("Largest time past the due date of any job with one"),
        applies: "traces with due dates",
        table: Table::None,
    },
    MetricInfo {
        key: "gpu_cost_usd",
        label: "GPU cost",
        unit: "$",
        scale: 1.0,
        digits: 0,
        better: "lower",
        help: doc("Price of the GPU time used (STS's energy cost): busy GPUs, a shared GPU once, at the STS paper's Table III prices per GPU-hour"),
        applies: "clusters with a priced GPU type",
        table: Table::WhenApplies,
    },
    MetricInfo {
        key: "tardiness_cost_usd",
        label: "tardiness cost",
        unit: "$",
        scale: 1.0,
        digits: 0,
        better: "lower",
        help: doc("Sum over jobs with a due date of weight x tardiness, the weight read as dollars per second late (STS's eta)"),
        applies: "traces with due dates",
        table: Table::WhenApplies,
    },
    MetricInfo {
        key: "total_cost_usd",
        label: "total cost",
        unit: "$",
        scale: 1.0,
        digits: 0,
        better: "lower",
        help: doc("GPU cost plus tardiness cost (STS's objective)"),
        applies: "traces with due dates or clusters with a priced GPU type",
        table: Table::WhenApplies,
    },
    MetricInfo {
        key: "predicted_frac",
        label: "predicted",
        unit: "%",
        scale: 100.0,
        digits: 1,
        better: "none",
        help: doc("Fraction of the jobs given a completion time at arrival (engine.predict: a fork of the run without future arrivals, PCS §2.3)"),
        applies: "runs with engine.predict",
        table: Table::None,
    },
    MetricInfo {
        key: "avg_pred_error_pct",
        label: "pred err",
        unit: "%",
        scale: 1.0,
        digits: 1,
        better: "lower",
        help: doc("Mean prediction error, 100 x |predicted JCT - JCT| / predicted JCT, over finished predicted jobs (PCS's definition)"),
        applies: "runs with engine.predict and a finished predicted job",
        table: Table::WhenApplies,
    },
    MetricInfo {
        key: "p50_pred_error_pct",
        label: "p50 pred err",
        unit: "%",
        scale: 1.0,
        digits: 1,
        better: "lower",
        help: doc("Median prediction error (see pred err)"),
        applies: "runs with engine.predict and a finished predicted job",
        table: Table::None,
    },
    MetricInfo {
        key: "p95_pred_error_pct",
        label: "p95 pred err",
        unit: "%",
        scale: 1.0,
        digits: 1,
        better: "lower",
        help: doc("95th percentile of the prediction error (see pred err)"),
        applies: "runs with engine.predict and a finished predicted job",
        table: Table::WhenApplies,
    },
    MetricInfo {
        key: "p99_pred_error_pct",
        label: "p99 pred err",
        unit: "%",
        scale: 1.0,
        digits: 1,
        better: "lower",
        help: doc("99th percentile of the prediction error (see pred err)"),
        applies: "runs with engine.predict and a finished predicted job",
        table: Table::WhenApplies,
    },
    MetricInfo {
        key: "speedup_geo",
        label: "speedup",
        unit: "",
        scale: 1.0,
        digits: 2,
        better: "higher",
        help: doc("Geometric mean over jobs of JCT under per-pool FCFS without sharing / JCT here (runs with pools)"),
        applies: "runs with pools and a job finished in both runs",
        table: Table::Speedup,
    },
    MetricInfo {
        key: "speedup_mean",
        label: "mean speedup",
        unit: "",
        scale: 1.0,
        digits: 2,
        better: "higher",
        help: doc("Arithmetic mean of the per-job speedups against per-pool FCFS"),
        applies: "runs with pools and a job finished in both runs",
        table: Table::Speedup,
    },
    MetricInfo {
        key: "speedup_jct_ratio",
        label: "JCT ratio",
        unit: "",
        scale: 1.0,
        digits: 2,
        better: "higher",
        help: doc("Mean JCT under per-pool FCFS / mean JCT here"),
        applies: "runs with pools and a job finished in both runs",
        table: Table::Speedup,
    },
    MetricInfo {
        key: "speedup_p5",
        label: "p5 speedup",
        unit: "",
        scale: 1.0,
        digits: 2,
        better: "higher",
        help: doc("5th percentile of the per-job speedups (below 1: slowed)"),
        applies: "runs with pools and a job finished in both runs",
        table: Table::Speedup,
    },
    MetricInfo {
        key: "speedup_p95",
        label: "p95 speedup",
        unit: "",
        scale: 1.0,
        digits: 1,
        better: "higher",
        help: doc("95th percentile of the per-job speedups"),
        applies: "runs with pools and a job finished in both runs",
        table: Table::Speedup,
    },
    MetricInfo {
        key: "slowed_frac",
        label: "slowed",
        unit: "%",
        scale: 100.0,
        digits: 2,
        better: "lower",
        help: doc("Jobs that finished more than 1 s later than under per-pool FCFS without sharing"),
        applies: "runs with pools and a job finished in both runs",
        table: Table::Speedup,
    },
    MetricInfo {
        key: "slowdown_total_s",
        label: "total slowdown",
        unit: "min",
        scale: 1.0 / 60.0,
        digits: 0,
        better: "lower",
        help: doc("Sum over jobs of the minutes each finished later than under per-pool FCFS"),
        applies: "runs with pools and a job finished in both runs",
        table: Table::Speedup,
    },
    MetricInfo {
        key: "slowdown_max_s",
        label: "max slowdown",
        unit: "min",
        scale: 1.0 / 60.0,
        digits: 0,
        better: "lower",
        help: doc("Most minutes a job finished later than under per-pool FCFS"),
        applies: "runs with pools and a job finished in both runs",
        table: Table::Speedup,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_summary_metric_is_declared_once() {
        let json = serde_json::to_value(crate::Summary::default()).unwrap();
        let mut fields: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        let mut keys: Vec<&str> = METRICS.iter().map(|m| m.key).collect();
        fields.sort_unstable();
        keys.sort_unstable();
        let n = keys.len();
        keys.dedup();
        assert_eq!(keys.len(), n, "a metric declared twice");
        assert_eq!(fields, keys, "Summary fields and catalog keys differ");
        // A metric that may be absent says when it applies.
        for (m, v) in crate::Summary::default().values() {
            if v.is_none() {
                assert!(
                    !m.applies.is_empty(),
                    "{} may be null but says not when",
                    m.key
                );
            }
        }
    }
}
