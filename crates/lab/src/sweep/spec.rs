//! The sweep spec (TOML or JSON) and its expansion into a manifest.
//!
//! ```toml
//! name = "afs-small"
//! policies = ["fifo", "srtf", "afs-l"]
//! clusters = ["afs-64"]            # optional when every trace is bundled
//! traces = ["afs-mini"]            # bundled names or trace files
//! seeds = [1, 2]                   # default [1]
//! timeout_s = 600                  # per run; default 3600
//!
//! [[files]]                        # a trace file cut by tenant (one trace per tenant)
//! path = "philly.csv"
//! tenants = ["e13805", "2869ce"]
//! max_jobs = 200
//!
//! [[generators]]                   # generated traces: a list is a grid axis
//! name = "afs-synthetic"
//! jobs = 100
//! params = { load = [0.8, 1.2], gpus = 64 }
//!
//! [params.engine]                  # OWNER.KEY: a scalar is fixed, a list a grid axis
//! placement = "any"
//! [params.afs-l]                   # applies to the runs of that policy only
//! quantum = [...]
//! ```
//!
//! Everything is checked at plan time (policies, parameters and their
//! values, clusters, generators, files), and an error names the spec line.

use super::manifest::{sha256_hex, Manifest, RunSpec, TraceSource, ZooSpec};
use schedlab_core::error::{Error, Result};
use schedlab_core::params::Params;
use schedlab_model::cluster::parse_cluster;
use schedlab_model::perf::ZOO_PARAMS;
use schedlab_model::workload::{bundled_trace, gen};
use schedlab_sim::ENGINE_PARAMS;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A parameter value as written: a scalar, or a list (a grid axis).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Values {
    List(Vec<Scalar>),
    One(Scalar),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
}

impl Scalar {
    fn text(&self) -> String {
        match self {
            Scalar::Bool(b) => b.to_string(),
            Scalar::Int(i) => i.to_string(),
            Scalar::Float(f) => f.to_string(),
            Scalar::Text(s) => s.clone(),
        }
    }
}

impl Values {
    fn texts(&self) -> Vec<String> {
        match self {
            Values::List(v) => v.iter().map(Scalar::text).collect(),
            Values::One(s) => vec![s.text()],
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecFile {
    #[serde(default)]
    name: Option<String>,
    policies: Vec<String>,
    #[serde(default)]
    clusters: Vec<String>,
    #[serde(default)]
    traces: Vec<String>,
    #[serde(default)]
    files: Vec<FileSpec>,
    #[serde(default)]
    generators: Vec<GeneratorSpec>,
    #[serde(default)]
    seeds: Option<Vec<u64>>,
    #[serde(default)]
    timeout_s: Option<f64>,
    #[serde(default)]
    params: BTreeMap<String, BTreeMap<String, Values>>,
    /// `builtin` (default) or `pollux-osdi21`.
    #[serde(default)]
    zoo: Option<String>,
    /// The AFS authors' measured speedup tables (schedsim `models.csv`).
    #[serde(default)]
    afs_models: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    path: String,
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    tenants: Vec<String>,
    #[serde(default)]
    max_jobs: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GeneratorSpec {
    name: String,
    #[serde(default)]
    jobs: Option<usize>,
    #[serde(default)]
    params: BTreeMap<String, Values>,
}

/// Default per-run timeout.
pub const DEFAULT_TIMEOUT_S: f64 = 3600.0;

/// The spec text with its file name, for errors that name a line.
struct Source<'a> {
    file: &'a str,
    text: &'a str,
}

impl Source<'_> {
    /// The 1-based line of the first occurrence of `tokens` in order (each
    /// after the previous), matching whole quoted or bare words; 0 if absent.
    fn line_of(&self, tokens: &[&str]) -> usize {
        let mut from = 0;
        let mut line = 0;
        for tok in tokens {
            match find_token(&self.text[from..], tok) {
                Some(at) => {
                    from += at + tok.len();
                    line = self.text[..from].matches('\n').count() + 1;
                }
                None => return line,
            }
        }
        line
    }

    fn error(&self, tokens: &[&str], field: &str, message: impl Into<String>) -> Error {
        Error::input(self.file, self.line_of(tokens), field, message)
    }
}

/// Byte offset of `tok` in `text` as a whole word (not inside a longer name).
fn find_token(text: &str, tok: &str) -> Option<usize> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '/';
    let mut start = 0;
    while let Some(i) = text[start..].find(tok) {
        let at = start + i;
        let before = text[..at].chars().next_back();
        let after = text[at + tok.len()..].chars().next();
        if !before.is_some_and(word) && !after.is_some_and(word) {
            return Some(at);
        }
        start = at + tok.len().max(1);
    }
    None
}

/// Parses a spec (TOML, or JSON when it starts with `{`); `file` names it in errors.
fn parse(file: &str, text: &str) -> Result<SpecFile> {
    if text.trim_start().starts_with('{') {
        serde_json::from_str(text).map_err(|e| Error::input(file, e.line(), "", e.to_string()))
    } else {
        toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(0, |s| {
                text[..s.start.min(text.len())].matches('\n').count() + 1
            });
            Error::input(file, line, "", e.message().to_string())
        })
    }
}

/// Every combination of the axes (key order, then value order).
fn grid(axes: &[(String, Vec<String>)]) -> Vec<Vec<(String, String)>> {
    let mut out: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for (key, values) in axes {
        out = out
            .into_iter()
            .flat_map(|combo| {
                values.iter().map(move |v| {
                    let mut c = combo.clone();
                    c.push((key.clone(), v.clone()));
                    c
                })
            })
            .collect();
    }
    out
}

/// A trace entry before seeds are applied (generators take the run's seed).
enum TraceTemplate {
    Fixed(TraceSource, Option<String>),
    Generator {
        name: String,
        jobs: Option<usize>,
        params: Vec<(String, String)>,
    },
}

/// Expands a spec into a manifest. `spec_path` locates relative trace files.
pub fn plan(spec_path: &str, text: &str) -> Result<Manifest> {
    let src = Source {
        file: spec_path,
        text,
    };
    let spec = parse(spec_path, text)?;
    let base = Path::new(spec_path)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    if spec.policies.is_empty() {
        return Err(src.error(&["policies"], "policies", "name at least one policy"));
    }
    for (i, p) in spec.policies.iter().enumerate() {
        schedlab_policies::info(p)
            .map_err(|e| src.error(&["policies", p], "policies", e.to_string()))?;
        if spec.policies[..i].contains(p) {
            return Err(src.error(
                &["policies", p, p],
                "policies",
                format!("'{p}' is named twice"),
            ));
        }
    }
    for c in &spec.clusters {
        parse_cluster(c).map_err(|e| src.error(&["clusters", c], "clusters", e.to_string()))?;
    }
    let seeds = spec.seeds.clone().unwrap_or_else(|| vec![1]);
    if seeds.is_empty() {
        return Err(src.error(&["seeds"], "seeds", "give at least one seed"));
    }
    let timeout_s = spec.timeout_s.unwrap_or(DEFAULT_TIMEOUT_S);
    if !(timeout_s > 0.0 && timeout_s.is_finite()) {
        return Err(src.error(
            &["timeout_s"],
            "timeout_s",
            "must be a positive number of seconds",
        ));
    }
    let zoo_name = spec.zoo.clone().unwrap_or_else(|| "builtin".into());
    if schedlab_model::perf::ModelZoo::named(&zoo_name).is_none() {
        return Err(src.error(
            &["zoo"],
            "zoo",
            format!("'{zoo_name}': expected builtin or pollux-osdi21"),
        ));
    }
    let afs_tables = match &spec.afs_models {
        Some(p) => {
            let path = absolute(&base, p);
            let bytes = read_bytes(&src, &["afs_models"], "afs_models", &path)?;
            let text = String::from_utf8_lossy(&bytes);
            let mut probe = schedlab_model::perf::ModelZoo::builtin();
            probe.add_afs_tables(&path, &text)?;
            Some((path, sha256_hex(&bytes)))
        }
        None => None,
    };
    let zoo = ZooSpec {
        name: zoo_name,
        afs_tables,
    };

    // Parameters: OWNER -> axes; every value checked against its declaration.
    let mut axes: BTreeMap<String, Vec<(String, Vec<String>)>> = BTreeMap::new();
    for (owner, keys) in &spec.params {
        let specs = if owner == "engine" {
            ENGINE_PARAMS
        } else if owner == "zoo" {
            ZOO_PARAMS
        } else if spec.policies.contains(owner) {
            schedlab_policies::info(owner)?.params
        } else {
            return Err(src.error(
                &["params", owner],
                owner,
                format!(
                    "'{owner}' is neither 'engine', 'zoo' nor one of the sweep's policies ({})",
                    spec.policies.join(", ")
                ),
            ));
        };
        for (key, values) in keys {
            let texts = values.texts();
            if texts.is_empty() {
                return Err(src.error(&[owner, key], key, "an empty list gives no runs"));
            }
            for v in &texts {
                Params::resolve(owner, specs, &[(key.clone(), v.clone())]).map_err(|e| {
                    src.error(&[owner, key], &format!("{owner}.{key}"), e.to_string())
                })?;
            }
            axes.entry(owner.clone())
                .or_default()
                .push((format!("{owner}.{key}"), texts));
        }
    }

    // Traces.
    let mut templates = Vec::new();
    for t in &spec.traces {
        if let Some(b) = bundled_trace(t) {
            templates.push(TraceTemplate::Fixed(
                TraceSource::Bundled { name: t.clone() },
                Some(b.cluster.to_string()),
            ));
        } else {
            let path = absolute(&base, t);
            let bytes = read_bytes(&src, &["traces", t], "traces", &path)?;
            templates.push(TraceTemplate::Fixed(
                TraceSource::File {
                    path,
                    format: None,
                    tenant: None,
                    max_jobs: None,
                    sha256: sha256_hex(&bytes),
                },
                None,
            ));
        }
    }
    for f in &spec.files {
        if let Some(fmt) = &f.format {
            if schedlab_model::workload::Format::by_name(fmt).is_none() {
                return Err(src.error(
                    &["files", fmt],
                    "format",
                    format!("unknown trace format '{fmt}'"),
                ));
            }
        }
        if f.max_jobs == Some(0) {
            return Err(src.error(
                &["files", &f.path, "max_jobs"],
                "max_jobs",
                "must be at least 1",
            ));
        }
        let path = absolute(&base, &f.path);
        let bytes = read_bytes(&src, &["files", &f.path], "path", &path)?;
        let sha256 = sha256_hex(&bytes);
        let tenants: Vec<Option<String>> = if f.tenants.is_empty() {
            vec![None]
        } else {
            f.tenants.iter().cloned().map(Some).collect()
        };
        for tenant in tenants {
            templates.push(TraceTemplate::Fixed(
                TraceSource::File {
                    path: path.clone(),
                    format: f.format.clone(),
                    tenant,
                    max_jobs: f.max_jobs,
                    sha256: sha256.clone(),
                },
                None,
            ));
        }
    }
    for g in &spec.generators {
        let info = gen::generators()
            .iter()
            .find(|x| x.name == g.name)
            .ok_or_else(|| {
                src.error(
                    &["generators", &g.name],
                    "generators",
                    format!("unknown generator '{}'", g.name),
                )
            })?;
        let mut gaxes = Vec::new();
        for (key, values) in &g.params {
            let texts = values.texts();
            for v in &texts {
                Params::resolve(&g.name, info.params, &[(key.clone(), v.clone())])
                    .map_err(|e| src.error(&[&g.name, key], key, e.to_string()))?;
            }
            gaxes.push((key.clone(), texts));
        }
        if g.jobs == Some(0) {
            return Err(src.error(&[&g.name, "jobs"], "jobs", "must be at least 1"));
        }
        for params in grid(&gaxes) {
            templates.push(TraceTemplate::Generator {
                name: g.name.clone(),
                jobs: g.jobs,
                params,
            });
        }
    }
    if templates.is_empty() {
        return Err(src.error(
            &["traces"],
            "traces",
            "name at least one trace, file or generator",
        ));
    }

    // Runs: trace x cluster x policy x parameter combination x seed.
    let mut runs = Vec::new();
    let mut seen = BTreeSet::new();
    for tpl in &templates {
        let clusters: Vec<String> = if !spec.clusters.is_empty() {
            spec.clusters.clone()
        } else {
            match tpl {
                TraceTemplate::Fixed(_, Some(c)) => vec![c.clone()],
                TraceTemplate::Fixed(t, None) => {
                    return Err(src.error(
                        &[&t.label()],
                        "clusters",
                        format!(
                            "give `clusters`: trace '{}' is a file and has no default cluster",
                            t.label()
                        ),
                    ))
                }
                TraceTemplate::Generator { name, .. } => {
                    return Err(src.error(
                        &["generators", name],
                        "clusters",
                        format!("give `clusters`: generator '{name}' has no default cluster"),
                    ))
                }
            }
        };
        for cluster in &clusters {
            for policy in &spec.policies {
                let mut run_axes = axes.get("engine").cloned().unwrap_or_default();
                run_axes.extend(axes.get("zoo").cloned().unwrap_or_default());
                run_axes.extend(axes.get(policy).cloned().unwrap_or_default());
                for mut set in grid(&run_axes) {
                    set.sort();
                    check_combination(&src, policy, &set)?;
                    for &seed in &seeds {
                        let trace = match tpl {
                            TraceTemplate::Fixed(t, _) => t.clone(),
                            TraceTemplate::Generator { name, jobs, params } => {
                                TraceSource::Generator {
                                    name: name.clone(),
                                    jobs: *jobs,
                                    seed,
                                    params: params.clone(),
                                }
                            }
                        };
                        let mut run = RunSpec {
                            id: String::new(),
                            trace,
                            cluster: cluster.clone(),
                            policy: policy.clone(),
                            set: set.clone(),
                            seed,
                            zoo: zoo.clone(),
                            timeout_s,
                            tags: BTreeMap::new(),
                        };
                        run.id = run.compute_id();
                        if seen.insert(run.id.clone()) {
                            runs.push(run);
                        }
                    }
                }
            }
        }
    }
    Ok(Manifest {
        name: spec.name.unwrap_or_else(|| {
            Path::new(spec_path)
                .file_stem()
                .map_or("sweep".into(), |s| s.to_string_lossy().into_owned())
        }),
        spec: spec_path.to_string(),
        runs,
    })
}

/// Checks one run's settings together, as the run will (a policy's own
/// checks, such as Tiresias' increasing thresholds, see every value).
fn check_combination(src: &Source, policy: &str, set: &[(String, String)]) -> Result<()> {
    let mut by_owner = schedlab_run::setup::Overrides::new();
    for (k, v) in set {
        let (owner, key) = k.split_once('.').unwrap_or(("", k));
        by_owner
            .entry(owner.to_string())
            .or_default()
            .push((key.to_string(), v.clone()));
    }
    schedlab_run::setup::RunSettings::from_overrides(&by_owner, &[policy.to_string()])
        .map(|_| ())
        .map_err(|e| {
            let shown: Vec<String> = set.iter().map(|(k, v)| format!("{k}={v}")).collect();
            src.error(
                &["params", policy],
                policy,
                format!("{e} (in the run with {})", shown.join(", ")),
            )
        })
}

/// `p` against the spec's directory, made absolute (workers may start elsewhere).
fn absolute(base: &Path, p: &str) -> String {
    let path = if Path::new(p).is_absolute() {
        PathBuf::from(p)
    } else {
        base.join(p)
    };
    std::path::absolute(&path)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

fn read_bytes(src: &Source, tokens: &[&str], field: &str, path: &str) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| {
        src.error(
            tokens,
            field,
            format!("'{path}' is neither a bundled trace nor a readable file ({e})"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_axes_multiply_only_their_policy() {
        let text = r#"
policies = ["fifo", "srtf"]
traces = ["afs-mini"]
seeds = [1, 2]
[params.engine]
placement = ["any", "packed"]
[params.srtf]
request = ["trace", "peak"]
"#;
        let m = plan("s.toml", text).unwrap();
        // fifo: 2 placements x 2 seeds; srtf: 2 x 2 requests x 2 seeds.
        assert_eq!(m.runs.len(), 4 + 8);
        assert!(m.runs.iter().all(|r| r.cluster == "afs-64"));
        let again = plan("s.toml", text).unwrap();
        assert_eq!(
            m.runs.iter().map(|r| &r.id).collect::<Vec<_>>(),
            again.runs.iter().map(|r| &r.id).collect::<Vec<_>>()
        );
        let ids: BTreeSet<_> = m.runs.iter().map(|r| r.id.clone()).collect();
        assert_eq!(ids.len(), m.runs.len());
    }

    #[test]
    fn zoo_axes_apply_to_every_policy_and_lists_are_checked() {
        let text = "policies = [\"fifo\", \"srtf\"]\ntraces = [\"afs-mini\"]\n[params.zoo]\nsts_a100_speed = [3, 6]\n";
        let m = plan("s.toml", text).unwrap();
        assert_eq!(m.runs.len(), 4);
        assert!(m.runs.iter().all(|r| r.set[0].0 == "zoo.sts_a100_speed"));
        let text = "policies = [\"fifo\",\n \"fifo\"]\ntraces = [\"afs-mini\"]\n";
        let e = plan("s.toml", text).unwrap_err().to_string();
        assert!(
            e.contains("line 2") && e.contains("'fifo' is named twice"),
            "{e}"
        );
        let text = "policies = [\"tiresias\"]\ntraces = [\"afs-mini\"]\n[params.tiresias]\nt1 = [100, 9000]\nt2 = 5000\n";
        let e = plan("s.toml", text).unwrap_err().to_string();
        assert!(
            e.contains("t1 < t2 < t3 must increase")
                && e.contains("tiresias.t1=9000, tiresias.t2=5000"),
            "{e}"
        );
    }

    #[test]
    fn errors_name_the_spec_line() {
        let text = "policies = [\"fifo\",\n  \"nosuch\"]\ntraces = [\"afs-mini\"]\n";
        let e = plan("s.toml", text).unwrap_err().to_string();
        assert!(
            e.contains("s.toml") && e.contains("line 2") && e.contains("nosuch"),
            "{e}"
        );
        let text =
            "policies = [\"fifo\"]\ntraces = [\"afs-mini\"]\n[params.engine]\nplacment = \"any\"\n";
        let e = plan("s.toml", text).unwrap_err().to_string();
        assert!(e.contains("line 4") && e.contains("placment"), "{e}");
        let text = "policies = [\"fifo\"]\ntraces = [\"afs-mini\"]\n[params.engine]\nplacement = [\"any\", \"everywhere\"]\n";
        let e = plan("s.toml", text).unwrap_err().to_string();
        assert!(e.contains("line 4") && e.contains("everywhere"), "{e}");
        let json = "{\n \"policies\": [\"fifo\"],\n \"traces\": [\"afs-mini\"],\n \"params\": {\"srtf\": {\"request\": \"peak\"}}\n}";
        let e = plan("s.json", json).unwrap_err().to_string();
        assert!(
            e.contains("s.json") && e.contains("line 4") && e.contains("srtf"),
            "{e}"
        );
        let e = plan(
            "s.toml",
            "policies = [\"fifo\"]\ntraces = [\"afs-mini\"]\nseed = 3\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("line 3") && e.contains("seed"), "{e}");
    }
}
