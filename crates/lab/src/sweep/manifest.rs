//! The manifest: every run of a sweep with its full inputs and stable id.

use schedlab_core::error::{Error, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// File name of the manifest inside a sweep directory.
pub const MANIFEST_FILE: &str = "manifest.json";

/// Where a run's trace comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum TraceSource {
    /// A bundled trace by name.
    Bundled { name: String },
    /// A trace file in any importable format; optionally only one tenant's
    /// (virtual cluster's) jobs and at most `max_jobs` of them, the first by
    /// submission, shifted so the first arrives at 0.
    File {
        path: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        format: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tenant: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_jobs: Option<usize>,
        /// SHA-256 of the file when planned: a changed file is a new run.
        sha256: String,
    },
    /// A generator run (`schedlab gen`).
    Generator {
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        jobs: Option<usize>,
        seed: u64,
        params: Vec<(String, String)>,
    },
}

impl TraceSource {
    /// Short label for tables and progress lines.
    pub fn label(&self) -> String {
        match self {
            TraceSource::Bundled { name } => name.clone(),
            TraceSource::File { path, tenant, .. } => {
                let base = Path::new(path)
                    .file_name()
                    .map_or(path.clone(), |f| f.to_string_lossy().into_owned());
                match tenant {
                    Some(t) => format!("{base}[{t}]"),
                    None => base,
                }
            }
            TraceSource::Generator { name, params, .. } => {
                if params.is_empty() {
                    name.clone()
                } else {
                    let p: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    format!("{name}({})", p.join(","))
                }
            }
        }
    }
}

/// The model zoo a run uses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ZooSpec {
    /// `builtin` or `pollux-osdi21`.
    pub name: String,
    /// The AFS authors' measured speedup tables (path, SHA-256), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub afs_tables: Option<(String, String)>,
}

/// One simulation of the sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    /// Hash of the inputs below (not of `timeout_s` or `tags`).
    pub id: String,
    pub trace: TraceSource,
    pub cluster: String,
    pub policy: String,
    /// Parameter overrides `OWNER.KEY` -> value, sorted by key.
    pub set: Vec<(String, String)>,
    pub seed: u64,
    pub zoo: ZooSpec,
    pub timeout_s: f64,
    /// Labels that do not change the result (reproductions name their runs).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tags: BTreeMap<String, String>,
}

/// What the id hashes: every input that can change the result.
#[derive(Serialize)]
struct IdInputs<'a> {
    trace: &'a TraceSource,
    cluster: &'a str,
    policy: &'a str,
    set: &'a [(String, String)],
    seed: u64,
    zoo: &'a ZooSpec,
    version: &'a str,
}

/// Hex SHA-256 of bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

impl RunSpec {
    /// The stable id: the first 20 hex digits of the SHA-256 of the run's
    /// inputs as canonical JSON (and the crate version, since a new version
    /// may simulate differently).
    pub fn compute_id(&self) -> String {
        let inputs = IdInputs {
            trace: &self.trace,
            cluster: &self.cluster,
            policy: &self.policy,
            set: &self.set,
            seed: self.seed,
            zoo: &self.zoo,
            version: env!("CARGO_PKG_VERSION"),
        };
        let json = serde_json::to_string(&inputs).expect("run inputs serialise");
        sha256_hex(json.as_bytes())[..20].to_string()
    }

    /// The overrides grouped by owner, as `report::run_policy` takes them.
    pub fn overrides(&self) -> schedlab_run::report::Overrides {
        let mut out = schedlab_run::report::Overrides::new();
        for (k, v) in &self.set {
            let (owner, key) = k.split_once('.').unwrap_or(("", k));
            out.entry(owner.to_string())
                .or_default()
                .push((key.to_string(), v.clone()));
        }
        out
    }
}

/// A planned sweep.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    pub name: String,
    /// The spec file it was planned from.
    pub spec: String,
    pub runs: Vec<RunSpec>,
}

impl Manifest {
    pub fn path(dir: &Path) -> PathBuf {
        dir.join(MANIFEST_FILE)
    }

    /// Reads `DIR/manifest.json` and checks every id against its inputs.
    pub fn read(dir: &Path) -> Result<Manifest> {
        let path = Manifest::path(dir);
        let name = path.display().to_string();
        if !path.exists() {
            return Err(Error::input(
                &name,
                0,
                "",
                "no manifest here; run `schedlab sweep plan SPEC --out DIR` first",
            ));
        }
        let text = schedlab_core::textio::read_text(&name)?;
        let m: Manifest = serde_json::from_str(&text)
            .map_err(|e| Error::input(&name, e.line(), "", e.to_string()))?;
        for (i, r) in m.runs.iter().enumerate() {
            if r.compute_id() != r.id {
                return Err(Error::input(
                    &name,
                    0,
                    "id",
                    format!("run {i} ('{}') does not match its inputs: the manifest was edited or made by another schedlab version; plan the sweep again", r.id),
                ));
            }
        }
        Ok(m)
    }

    /// Writes `DIR/manifest.json` atomically.
    pub fn write(&self, dir: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| Error::Internal(format!("manifest: {e}")))?;
        super::store::write_atomic(&Manifest::path(dir), text.as_bytes())
    }
}
