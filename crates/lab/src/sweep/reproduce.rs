//! Paper reproductions as sweeps: `reproduce afs --sweep DIR` writes the
//! reproduction's runs as a manifest (to run anywhere `sweep run` runs), and
//! `reproduce afs --from DIR` prints the same report from their results.
//! Each run carries tags (`target`, `trace`, `label`, and the report's
//! headings) that put it back in its place.

use super::manifest::{sha256_hex, Manifest, RunSpec, TraceSource, ZooSpec};
use super::spec::DEFAULT_TIMEOUT_S;
use super::store::{read_result, Status, Stored};
use crate::repro::afs::{self, RunRow, AFS_TRACE_GENERATOR, TABLE3, VARIANTS};
use schedlab_core::error::{Error, Result};
use std::collections::BTreeMap;
use std::path::Path;

/// (path made absolute, SHA-256) of a file the runs will read.
fn pinned(path: &str) -> Result<(String, String)> {
    let bytes =
        std::fs::read(path).map_err(|e| Error::input(path, 0, "", format!("cannot read: {e}")))?;
    let abs =
        std::path::absolute(path).map_or(path.to_string(), |p| p.to_string_lossy().into_owned());
    Ok((abs, sha256_hex(&bytes)))
}

/// Settings given as sorted `OWNER.KEY` pairs, the last of repeated keys winning.
fn flatten(settings: &schedlab_run::report::RunSettings) -> Vec<(String, String)> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    for (owner, pairs) in settings.given() {
        for (k, v) in pairs {
            out.insert(format!("{owner}.{k}"), v.clone());
        }
    }
    out.into_iter().collect()
}

/// The AFS reproduction's runs as a sweep manifest.
pub fn afs_manifest(opts: &afs::Options) -> Result<Manifest> {
    let philly = match &opts.philly {
        Some(p) => Some(pinned(&p.file)?),
        None => None,
    };
    let zoo = ZooSpec {
        name: "builtin".into(),
        afs_tables: match &opts.afs_tables {
            Some((file, _)) => Some(pinned(file)?),
            None => None,
        },
    };
    let mut runs = Vec::new();
    for id in afs::trace_ids(opts) {
        let (_, vc, table3) = *TABLE3
            .iter()
            .find(|t| t.0 == id)
            .ok_or_else(|| Error::config(format!("AFS trace id {id}: expected 1..11")))?;
        let trace = match &philly {
            Some((path, sha256)) => TraceSource::File {
                path: path.clone(),
                format: None,
                tenant: Some(vc.to_string()),
                max_jobs: (opts.max_jobs != usize::MAX).then_some(opts.max_jobs),
                sha256: sha256.clone(),
            },
            None => TraceSource::Generator {
                name: AFS_TRACE_GENERATOR.into(),
                jobs: Some(table3.min(opts.max_jobs)),
                seed: afs::trace_seed(opts.seed, id),
                params: afs::trace_params(id),
            },
        };
        for v in VARIANTS {
            let tags: BTreeMap<String, String> = [
                ("target", "afs".to_string()),
                ("trace", id.to_string()),
                ("label", v.label.to_string()),
                ("generator", afs::generator_label(opts)),
                ("models", afs::models_label(opts)),
                ("max_jobs", opts.max_jobs.to_string()),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
            let mut run = RunSpec {
                id: String::new(),
                trace: trace.clone(),
                cluster: "afs-64".into(),
                policy: v.policy.into(),
                set: flatten(&afs::variant_settings(opts, v)?),
                seed: opts.seed,
                zoo: zoo.clone(),
                timeout_s: DEFAULT_TIMEOUT_S,
                tags,
            };
            run.id = run.compute_id();
            runs.push(run);
        }
    }
    Ok(Manifest {
        name: "reproduce-afs".into(),
        spec: "schedlab reproduce afs --sweep".into(),
        runs,
    })
}

/// The AFS report from a sweep directory planned by [`afs_manifest`].
pub fn afs_report_from(dir: &Path) -> Result<afs::AfsReport> {
    let m = Manifest::read(dir)?;
    let runs: Vec<&RunSpec> = m
        .runs
        .iter()
        .filter(|r| r.tags.get("target").is_some_and(|t| t == "afs"))
        .collect();
    let first = runs.first().ok_or_else(|| {
        Error::config(format!(
            "{}: no run of `reproduce afs --sweep` in this sweep",
            dir.display()
        ))
    })?;
    let tag = |r: &RunSpec, k: &str| r.tags.get(k).cloned().unwrap_or_default();
    let mut by_trace: Vec<(u32, Vec<RunRow>, usize)> = Vec::new();
    for r in &runs {
        let id: u32 = tag(r, "trace")
            .parse()
            .map_err(|_| Error::config(format!("run {}: bad trace tag", r.id)))?;
        let res = match read_result(dir, &r.id) {
            Stored::Done(x) if x.status == Status::Ok => x,
            Stored::Done(x) => {
                return Err(Error::config(format!(
                    "run {} (trace {id}, {}) failed: {}",
                    r.id,
                    tag(r, "label"),
                    x.error.unwrap_or_default()
                )))
            }
            _ => {
                return Err(Error::config(format!(
                    "run {} (trace {id}, {}) has no result yet: `schedlab sweep run {}` (see `sweep status`)",
                    r.id,
                    tag(r, "label"),
                    dir.display()
                )))
            }
        };
        let metrics = res
            .metrics
            .clone()
            .ok_or_else(|| Error::config(format!("run {}: no metrics", r.id)))?;
        let row = RunRow {
            label: tag(r, "label"),
            completed: metrics.completed,
            avg_jct_s: metrics.avg_jct_s,
            p99_jct_s: metrics.p99_jct_s,
            mean_ql: res.mean_queue.unwrap_or(f64::NAN),
            mean_ce: res.mean_ce.unwrap_or(f64::NAN),
            wall_s: res.wall_s,
            summary: Some(metrics.clone()),
        };
        match by_trace.iter_mut().find(|t| t.0 == id) {
            Some(t) => t.1.push(row),
            None => by_trace.push((id, vec![row], metrics.jobs)),
        }
    }
    let max_jobs: usize = tag(first, "max_jobs").parse().unwrap_or(usize::MAX);
    let is_philly = matches!(first.trace, TraceSource::File { .. });
    let opts = afs::Options {
        max_jobs,
        philly: None,
        afs_tables: None,
        traces: Vec::new(),
        seed: first.seed,
        settings: Default::default(),
    };
    let traces = by_trace
        .into_iter()
        .map(|(id, rows, jobs)| {
            let mut row = afs::trace_row(&opts, id, jobs, rows);
            if is_philly {
                row.params.clear();
            }
            row
        })
        .collect();
    let mut report = afs::report(&opts, traces);
    report.generator = tag(first, "generator");
    report.models = tag(first, "models");
    Ok(report)
}
