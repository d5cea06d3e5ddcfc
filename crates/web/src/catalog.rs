//! What the page offers, read from the registries: bundled traces (the
//! manifest), built-in clusters, GPU types, policies with their `ParamSpec`
//! declarations, engine parameters, trace formats, models and how to show
//! each summary metric. The page builds every picker and control from this,
//! so a policy, trace or format added elsewhere appears without page edits.

use schedlab_core::error::Result;
use schedlab_core::params::ParamSpec;
use schedlab_metrics::catalog::{MetricInfo, METRICS};
use schedlab_model::cluster::{builtin_clusters, parse_cluster, GpuType, CATALOG};
use schedlab_model::perf::ModelZoo;
use schedlab_model::workload::gen::{generators, Generator};
use schedlab_model::workload::{bundled_traces, BundledTrace, Format};
use schedlab_policies::{registry, PolicyInfo};
use schedlab_sim::ENGINE_PARAMS;
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

/// The catalog, built from the registries.
/// The prose the wasm build leaves out (`schedlab_core::prose`): per policy its
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
    use schedlab_metrics::Summary;

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
        let s = Summary::default();
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
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/catalog-text.json");
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
