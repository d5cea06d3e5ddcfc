//! What the page offers, read from the registries: bundled traces (the
//! manifest), built-in clusters, GPU types, policies with their `ParamSpec`
//! declarations, engine parameters, trace formats, models and how to show
//! each summary metric. The page builds every picker and control from this,
//! so a policy, trace or format added elsewhere appears without page edits.

use crate::cluster::{builtin_clusters, parse_cluster, GpuType, CATALOG};
use crate::error::Result;
use crate::params::ParamSpec;
use crate::perf::ModelZoo;
use crate::policy::{registry, PolicyInfo};
use crate::sim::ENGINE_PARAMS;
use crate::workload::gen::{generators, Generator};
use crate::workload::{bundled_traces, BundledTrace, Format};
use serde::Serialize;

/// Everything the page lists.
#[derive(Serialize)]
pub struct Catalog {
    pub version: &'static str,
    pub traces: Vec<BundledTrace>,
    pub clusters: Vec<ClusterEntry>,
    pub gpu_types: &'static [GpuType],
    pub policies: &'static [PolicyInfo],
    /// Policies this package lists but cannot run (the core package's
    /// `full_package` entries): the page runs them in `pkg-full`.
    pub full_package: Vec<&'static str>,
    pub engine: &'static [ParamSpec],
    pub formats: Vec<FormatEntry>,
    pub generators: &'static [Generator],
    pub models: Vec<ModelEntry>,
    pub metrics: &'static [MetricInfo],
}

/// A built-in cluster with its size.
#[derive(Serialize)]
pub struct ClusterEntry {
    pub name: &'static str,
    pub spec: &'static str,
    pub description: &'static str,
    pub gpus: u32,
}

#[derive(Serialize)]
pub struct FormatEntry {
    pub name: &'static str,
    pub description: &'static str,
}

/// A model as the page's hover card shows it.
#[derive(Serialize)]
pub struct ModelEntry {
    pub name: String,
    pub family: String,
    pub description: String,
    pub default_batch: u32,
    pub max_gpus: u32,
    pub restart_s: f64,
}

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
        help: crate::prose::doc("Jobs that finished"),
    },
    MetricInfo {
        key: "jobs",
        label: "jobs",
        unit: "",
        scale: 1.0,
        digits: 0,
        better: "none",
        help: crate::prose::doc("Jobs in the trace"),
    },
    MetricInfo {
        key: "avg_jct_s",
        label: "avg JCT",
        unit: "h",
        scale: H,
        digits: 2,
        better: "lower",
        help: crate::prose::doc("Mean job completion time (finish - arrival)"),
    },
    MetricInfo {
        key: "p50_jct_s",
        label: "p50 JCT",
        unit: "h",
        scale: H,
        digits: 2,
        better: "lower",
        help: crate::prose::doc("Median JCT"),
    },
    MetricInfo {
        key: "p90_jct_s",
        label: "p90 JCT",
        unit: "h",
        scale: H,
        digits: 2,
        better: "lower",
        help: crate::prose::doc("90th percentile JCT"),
    },
    MetricInfo {
        key: "p99_jct_s",
        label: "p99 JCT",
        unit: "h",
        scale: H,
        digits: 2,
        better: "lower",
        help: crate::prose::doc("99th percentile JCT"),
    },
    MetricInfo {
        key: "makespan_s",
        label: "makespan",
        unit: "h",
        scale: H,
        digits: 2,
        better: "lower",
        help: crate::prose::doc("Last finish - first arrival"),
    },
    MetricInfo {
        key: "avg_queue_s",
        label: "avg queue",
        unit: "h",
        scale: H,
        digits: 2,
        better: "lower",
        help: crate::prose::doc("Mean time a job spent without GPUs"),
    },
    MetricInfo {
        key: "gpu_hours",
        label: "GPU-hours",
        unit: "GPU-h",
        scale: 1.0,
        digits: 1,
        better: "lower",
        help: crate::prose::doc("GPU time held by jobs, restart delays included"),
    },
    MetricInfo {
        key: "utilization",
        label: "utilisation",
        unit: "%",
        scale: 100.0,
        digits: 1,
        better: "higher",
        help: crate::prose::doc("GPU time held / (cluster GPUs x makespan)"),
    },
    MetricInfo {
        key: "avg_restarts",
        label: "restarts/job",
        unit: "",
        scale: 1.0,
        digits: 2,
        better: "lower",
        help: crate::prose::doc("Allocation changes after the first start, per job"),
    },
    MetricInfo {
        key: "ftf_rho_max",
        label: "max FTF",
        unit: "",
        scale: 1.0,
        digits: 2,
        better: "lower",
        help: crate::prose::doc("Worst finish-time fairness rho (JCT / isolated time on a 1/N share)"),
    },
    MetricInfo {
        key: "ftf_unfair_frac",
        label: "unfair (FTF > 1)",
        unit: "%",
        scale: 100.0,
        digits: 1,
        better: "lower",
        help: crate::prose::doc("Fraction of finished jobs with rho > 1"),
    },
    MetricInfo {
        key: "energy_kwh",
        label: "energy",
        unit: "kWh",
        scale: 1.0,
        digits: 1,
        better: "lower",
        help: crate::prose::doc("Cluster energy over the makespan: busy power of held GPUs, idle power of the others (approximate idle figures, docs/METRICS.md)"),
    },
    MetricInfo {
        key: "avg_tardiness_s",
        label: "tardiness",
        unit: "h",
        scale: H,
        digits: 2,
        better: "lower",
        help: crate::prose::doc("Mean time past the due date, over the jobs that have one (0 when none has)"),
    },
    MetricInfo {
        key: "due_missed_frac",
        label: "due missed",
        unit: "%",
        scale: 100.0,
        digits: 1,
        better: "lower",
        help: crate::prose::doc("Fraction of the jobs with a due date that finished after it or not at all"),
    },
    MetricInfo {
        key: "max_tardiness_s",
        label: "max tardiness",
        unit: "h",
        scale: H,
        digits: 2,
        better: "lower",
        help: crate::prose::doc("Largest time past the due date of any job (0 when none has a due date)"),
    },
    MetricInfo {
        key: "gpu_cost_usd",
        label: "GPU cost",
        unit: "$",
        scale: 1.0,
        digits: 0,
        better: "lower",
        help: crate::prose::doc("Price of the GPU time used (STS's energy cost): busy GPUs, a shared GPU once, at the STS paper's Table III prices per GPU-hour; 0 on GPU types without a price"),
    },
    MetricInfo {
        key: "tardiness_cost_usd",
        label: "tardiness cost",
        unit: "$",
        scale: 1.0,
        digits: 0,
        better: "lower",
        help: crate::prose::doc("Sum over jobs with a due date of weight x tardiness, the weight read as dollars per second late (STS's eta)"),
    },
    MetricInfo {
        key: "total_cost_usd",
        label: "total cost",
        unit: "$",
        scale: 1.0,
        digits: 0,
        better: "lower",
        help: crate::prose::doc("GPU cost plus tardiness cost (STS's objective)"),
    },
    MetricInfo {
        key: "predicted_frac",
        label: "predicted",
        unit: "%",
        scale: 100.0,
        digits: 1,
        better: "none",
        help: crate::prose::doc("Fraction of the jobs given a completion time at arrival (engine.predict: a fork of the run without future arrivals, PCS §2.3; 0 when off)"),
    },
    MetricInfo {
        key: "avg_pred_error_pct",
        label: "pred err",
        unit: "%",
        scale: 1.0,
        digits: 1,
        better: "lower",
        help: crate::prose::doc("Mean prediction error, 100 x |predicted JCT - JCT| / predicted JCT, over finished predicted jobs (PCS's definition; 0 without predictions)"),
    },
    MetricInfo {
        key: "p50_pred_error_pct",
        label: "p50 pred err",
        unit: "%",
        scale: 1.0,
        digits: 1,
        better: "lower",
        help: crate::prose::doc("Median prediction error (see pred err)"),
    },
    MetricInfo {
        key: "p95_pred_error_pct",
        label: "p95 pred err",
        unit: "%",
        scale: 1.0,
        digits: 1,
        better: "lower",
        help: crate::prose::doc("95th percentile of the prediction error (see pred err)"),
    },
    MetricInfo {
        key: "p99_pred_error_pct",
        label: "p99 pred err",
        unit: "%",
        scale: 1.0,
        digits: 1,
        better: "lower",
        help: crate::prose::doc("99th percentile of the prediction error (see pred err)"),
    },
    MetricInfo {
        key: "speedup_geo",
        label: "speedup",
        unit: "",
        scale: 1.0,
        digits: 2,
        better: "higher",
        help: crate::prose::doc("Geometric mean over jobs of JCT under per-pool FCFS without sharing / JCT here (runs with pools)"),
    },
    MetricInfo {
        key: "speedup_mean",
        label: "mean speedup",
        unit: "",
        scale: 1.0,
        digits: 2,
        better: "higher",
        help: crate::prose::doc("Arithmetic mean of the per-job speedups against per-pool FCFS"),
    },
    MetricInfo {
        key: "speedup_jct_ratio",
        label: "JCT ratio",
        unit: "",
        scale: 1.0,
        digits: 2,
        better: "higher",
        help: crate::prose::doc("Mean JCT under per-pool FCFS / mean JCT here"),
    },
    MetricInfo {
        key: "speedup_p5",
        label: "p5 speedup",
        unit: "",
        scale: 1.0,
        digits: 2,
        better: "higher",
        help: crate::prose::doc("5th percentile of the per-job speedups (below 1: slowed)"),
    },
    MetricInfo {
        key: "speedup_p95",
        label: "p95 speedup",
        unit: "",
        scale: 1.0,
        digits: 1,
        better: "higher",
        help: crate::prose::doc("95th percentile of the per-job speedups"),
    },
    MetricInfo {
        key: "slowed_frac",
        label: "slowed",
        unit: "%",
        scale: 100.0,
        digits: 2,
        better: "lower",
        help: crate::prose::doc("Jobs that finished more than 1 s later than under per-pool FCFS without sharing"),
    },
    MetricInfo {
        key: "slowdown_total_s",
        label: "total slowdown",
        unit: "min",
        scale: 1.0 / 60.0,
        digits: 0,
        better: "lower",
        help: crate::prose::doc("Sum over jobs of the minutes each finished later than under per-pool FCFS"),
    },
    MetricInfo {
        key: "slowdown_max_s",
        label: "max slowdown",
        unit: "min",
        scale: 1.0 / 60.0,
        digits: 0,
        better: "lower",
        help: crate::prose::doc("Most minutes a job finished later than under per-pool FCFS"),
    },
];

/// The catalog, built from the registries.
/// The prose the wasm build leaves out (`crate::prose`): per policy its
/// description, source and parameter help; engine parameter help; metric
/// help; cluster, bundled-trace and trace-format descriptions. Written to `www/catalog-text.json` (kept in
/// sync by a test); the page merges it into the wasm catalog at boot.
#[cfg(not(target_arch = "wasm32"))]
pub fn prose() -> serde_json::Value {
    use serde_json::{json, Map, Value};
    let params = |list: &[ParamSpec]| -> Value {
        Value::Object(
            list.iter()
                .map(|p| (p.name.to_string(), json!(p.help)))
                .collect::<Map<_, _>>(),
        )
    };
    let policies: Map<String, Value> = registry()
        .iter()
        .map(|p| {
            (
                p.name.to_string(),
                json!({ "description": p.description, "source": p.source, "params": params(p.params) }),
            )
        })
        .collect();
    json!({
        "policies": policies,
        "engine": params(ENGINE_PARAMS),
        "metrics": METRICS.iter().map(|m| (m.key.to_string(), json!(m.help))).collect::<Map<_, _>>(),
        "clusters": builtin_clusters().iter().map(|c| (c.name.to_string(), json!(c.description))).collect::<Map<_, _>>(),
        "traces": bundled_traces().iter().map(|t| (t.name.to_string(), json!({ "description": t.description, "source": t.source }))).collect::<Map<_, _>>(),
        "formats": Format::ALL.iter().map(|(_, name, description)| (name.to_string(), json!(description))).collect::<Map<_, _>>(),
    })
}

pub fn catalog() -> Catalog {
    let zoo = ModelZoo::builtin();
    Catalog {
        version: env!("CARGO_PKG_VERSION"),
        traces: bundled_traces(),
        clusters: builtin_clusters()
            .iter()
            .map(|c| ClusterEntry {
                name: c.name,
                spec: c.spec,
                description: c.description,
                gpus: parse_cluster(c.name).map_or(0, |x| x.total_gpus),
            })
            .collect(),
        gpu_types: CATALOG,
        policies: registry(),
        full_package: registry()
            .iter()
            .filter(|p| !p.in_this_package())
            .map(|p| p.name)
            .collect(),
        engine: ENGINE_PARAMS,
        formats: Format::ALL
            .iter()
            .map(|(_, name, description)| FormatEntry { name, description })
            .collect(),
        generators: generators(),
        models: zoo
            .models()
            .iter()
            .map(|m| ModelEntry {
                name: m.name.clone(),
                family: m.family.clone(),
                description: m.description.clone(),
                default_batch: m.default_batch,
                max_gpus: m.max_gpus,
                restart_s: m.restart_s,
            })
            .collect(),
        metrics: METRICS,
    }
}

/// A cluster as the GPU map draws it: nodes grouped by GPU type.
#[derive(Debug, Serialize)]
pub struct Layout {
    pub name: String,
    pub spec: String,
    pub total_gpus: u32,
    pub groups: Vec<LayoutGroup>,
}

#[derive(Debug, Serialize)]
pub struct LayoutGroup {
    pub kind: &'static str,
    pub label: &'static str,
    pub gpus: u32,
    pub nodes: Vec<LayoutNode>,
}

#[derive(Debug, Serialize)]
pub struct LayoutNode {
    pub id: u32,
    pub first_gpu: u32,
    pub gpus: u32,
}

/// Parses a built-in name or spec string and groups its nodes by GPU type
/// (types in first-appearance order, nodes in id order).
pub fn layout(spec: &str) -> Result<Layout> {
    let c = parse_cluster(spec)?;
    let groups = c
        .kinds
        .iter()
        .map(|k| {
            let t = k.info();
            LayoutGroup {
                kind: t.name,
                label: t.label,
                gpus: c.gpus_of(*k),
                nodes: c
                    .nodes
                    .iter()
                    .filter(|n| n.kind == *k)
                    .map(|n| LayoutNode {
                        id: n.id,
                        first_gpu: n.first_gpu,
                        gpus: n.gpus,
                    })
                    .collect(),
            }
        })
        .collect();
    Ok(Layout {
        name: c.name.clone(),
        spec: c.spec_string(),
        total_gpus: c.total_gpus,
        groups,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Summary;

    #[test]
    fn catalog_comes_from_the_registries() {
        let c = catalog();
        assert_eq!(c.policies.len(), registry().len());
        assert_eq!(c.traces.len(), bundled_traces().len());
        assert_eq!(c.formats.len(), Format::ALL.len());
        assert!(c.clusters.iter().all(|x| x.gpus > 0));
        let v = serde_json::to_value(&c).unwrap();
        // Parameter declarations reach the page with their kind and range.
        let p = &v["policies"][0];
        assert!(p["params"].is_array(), "{p}");
        assert!(
            v["traces"][0]["text"].is_null(),
            "trace text is not shipped in the catalog"
        );
    }

    #[test]
    fn every_metric_rule_names_a_summary_field() {
        let s = Summary {
            jobs: 0,
            completed: 0,
            avg_jct_s: 0.0,
            p50_jct_s: 0.0,
            p90_jct_s: 0.0,
            p99_jct_s: 0.0,
            makespan_s: 0.0,
            avg_queue_s: 0.0,
            gpu_hours: 0.0,
            utilization: 0.0,
            avg_restarts: 0.0,
            ftf_rho_max: 0.0,
            ftf_unfair_frac: 0.0,
            energy_kwh: 0.0,
            avg_tardiness_s: 0.0,
            due_missed_frac: 0.0,
            max_tardiness_s: 0.0,
            gpu_cost_usd: 0.0,
            tardiness_cost_usd: 0.0,
            total_cost_usd: 0.0,
            predicted_frac: 0.0,
            avg_pred_error_pct: 0.0,
            p50_pred_error_pct: 0.0,
            p95_pred_error_pct: 0.0,
            p99_pred_error_pct: 0.0,
            speedup: Default::default(),
        };
        let v = serde_json::to_value(&s).unwrap();
        for m in METRICS {
            assert!(v.get(m.key).is_some(), "{} is not a Summary field", m.key);
        }
        // And every Summary field has a display rule.
        for k in v.as_object().unwrap().keys() {
            assert!(
                METRICS.iter().any(|m| m.key == k),
                "no display rule for {k}"
            );
        }
    }

    /// The page's prose file matches the catalog (regenerate with
    /// `SCHEDLAB_REGEN=1 cargo test --lib page_prose`).
    #[test]
    fn page_prose_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/www/catalog-text.json");
        let want = serde_json::to_string_pretty(&prose()).unwrap() + "\n";
        if std::env::var_os("SCHEDLAB_REGEN").is_some() {
            std::fs::write(path, &want).unwrap();
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            have == want,
            "www/catalog-text.json is stale: run SCHEDLAB_REGEN=1 cargo test --lib page_prose"
        );
    }

    #[test]
    fn layout_groups_nodes_by_type() {
        let l = layout("t4:2x4,rtx:1x8,t4:1x2").unwrap();
        assert_eq!(l.total_gpus, 18);
        assert_eq!(l.groups.len(), 2);
        assert_eq!(l.groups[0].kind, "t4");
        assert_eq!(l.groups[0].gpus, 10);
        let firsts: Vec<u32> = l.groups[0].nodes.iter().map(|n| n.first_gpu).collect();
        assert_eq!(firsts, vec![0, 4, 16]);
        assert_eq!(l.groups[1].nodes[0].first_gpu, 8);
        assert!(layout("zz:1x1").is_err());
    }
}
