//! One table from a sweep's results: a row per run of the manifest, in
//! manifest order, with its inputs, status and metrics.

use super::manifest::Manifest;
use super::store::{read_result, Status, Stored};
use schedlab_core::error::{Error, Result};
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::Path;

/// The merged table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Table {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Runs without a complete result.
    #[serde(skip)]
    pub pending: usize,
}

/// Joins the results of `manifest` in `dir`; `timings` adds the wall time.
pub fn merge(dir: &Path, manifest: &Manifest, timings: bool) -> Table {
    let params: BTreeSet<&str> = manifest
        .runs
        .iter()
        .flat_map(|r| r.set.iter().map(|(k, _)| k.as_str()))
        .collect();
    let tags: BTreeSet<&str> = manifest
        .runs
        .iter()
        .flat_map(|r| r.tags.keys().map(String::as_str))
        .collect();
    let mut columns: Vec<String> = ["id", "trace", "cluster", "policy", "seed"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    columns.extend(params.iter().map(|p| p.to_string()));
    columns.extend(tags.iter().map(|t| format!("tag:{t}")));
    columns.extend(["status", "error"].iter().map(|s| s.to_string()));
    columns.extend(metric_keys().map(|s| s.to_string()));
    columns.extend(["mean_queue", "mean_ce"].iter().map(|s| s.to_string()));
    if timings {
        columns.push("wall_s".into());
    }
    let mut pending = 0;
    let rows = manifest
        .runs
        .iter()
        .map(|r| {
            let mut row = vec![
                r.id.clone(),
                r.trace.label(),
                r.cluster.clone(),
                r.policy.clone(),
                r.seed.to_string(),
            ];
            for p in &params {
                row.push(
                    r.set
                        .iter()
                        .find(|(k, _)| k == p)
                        .map_or(String::new(), |(_, v)| v.clone()),
                );
            }
            for t in &tags {
                row.push(r.tags.get(*t).cloned().unwrap_or_default());
            }
            let stored = read_result(dir, &r.id);
            let res = match &stored {
                Stored::Done(res) => Some(res),
                _ => {
                    pending += 1;
                    None
                }
            };
            row.push(match res {
                Some(x) if x.status == Status::Ok => "ok".into(),
                Some(_) => "failed".into(),
                None => "pending".into(),
            });
            row.push(res.and_then(|x| x.error.clone()).unwrap_or_default());
            let metrics = res
                .and_then(|x| x.metrics.as_ref())
                .and_then(|m| serde_json::to_value(m).ok());
            for name in metric_keys() {
                row.push(
                    metrics
                        .as_ref()
                        .and_then(|m| m.get(name))
                        .map_or(String::new(), cell),
                );
            }
            let num = |v: Option<f64>| v.map_or(String::new(), |x| x.to_string());
            row.push(num(res.and_then(|x| x.mean_queue)));
            row.push(num(res.and_then(|x| x.mean_ce)));
            if timings {
                row.push(num(res.map(|x| x.wall_s)));
            }
            row
        })
        .collect();
    Table {
        columns,
        rows,
        pending,
    }
}

/// The summary metrics, in the page's table order (one declaration:
/// `metrics::catalog::METRICS`, which a test keeps equal to `metrics::Summary`).
fn metric_keys() -> impl Iterator<Item = &'static str> {
    schedlab_metrics::catalog::METRICS.iter().map(|m| m.key)
}

/// A metric's cell: its number, or "–" when it does not apply to the run.
fn cell(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => schedlab_metrics::catalog::ABSENT.to_string(),
        other => other.to_string(),
    }
}

impl Table {
    /// CSV with a header line (through the one CSV writer: a trace named
    /// `=1+2.csv` is written as text, not a formula).
    pub fn to_csv(&self) -> Result<String> {
        let mut w = schedlab_core::csvout::CsvOut::new();
        w.row(&self.columns);
        for row in &self.rows {
            w.row(row);
        }
        Ok(w.finish())
    }

    /// `{"columns": [...], "rows": [[...], ...]}`.
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string_pretty(self).map_err(|e| Error::Internal(format!("merge: {e}")))
    }
}
