//! Traces shipped with schedlab (made by its own generators; see
//! `traces/manifest.json`, which records how to remake each one).
//!
//! Natively the files are compiled in. The wasm package instead remakes a
//! trace from its generator when asked (the same bytes: a test checks every
//! file against its generator), which keeps about 50 KB of compressed text
//! out of the page's download.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// One manifest entry (the trace text comes from [`BundledTrace::text`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BundledTrace {
    pub name: &'static str,
    pub file: &'static str,
    /// Empty in the wasm build (its manifest has no prose; the page reads
    /// `www/catalog-text.json`).
    #[serde(default)]
    pub description: &'static str,
    /// The statistics the generator reproduces and where they come from.
    #[serde(default)]
    pub source: &'static str,
    pub generator: &'static str,
    pub jobs: usize,
    pub seed: u64,
    #[serde(default)]
    pub set: BTreeMap<&'static str, &'static str>,
    pub cluster: &'static str,
    pub policies: Vec<&'static str>,
    /// Settings (`OWNER.KEY` -> value) the page applies with the trace,
    /// e.g. the Fig 1 example's windows of 2 and 4 time units.
    #[serde(default)]
    pub params: BTreeMap<&'static str, &'static str>,
}

impl BundledTrace {
    /// The trace file's text.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn text(&self) -> schedlab_core::error::Result<Cow<'static, str>> {
        file_text(self.file).map(Cow::Borrowed).ok_or_else(|| {
            schedlab_core::error::Error::Internal(format!(
                "bundled trace {} is not compiled in",
                self.file
            ))
        })
    }

    /// The trace file's text, remade by its generator.
    #[cfg(target_arch = "wasm32")]
    pub fn text(&self) -> schedlab_core::error::Result<Cow<'static, str>> {
        Ok(Cow::Owned(self.regenerate()?))
    }

    /// What the trace's generator makes today for the manifest's settings.
    pub fn regenerate(&self) -> schedlab_core::error::Result<String> {
        let set: Vec<(String, String)> = self
            .set
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        crate::workload::gen::generate_native_text(self.generator, Some(self.jobs), self.seed, &set)
            .map(|(text, _)| text)
    }
}

#[cfg(not(target_arch = "wasm32"))]
const MANIFEST: &str = include_str!("../../../../traces/manifest.json");
/// The manifest without its prose (written by `build.rs`).
#[cfg(target_arch = "wasm32")]
const MANIFEST: &str = include_str!(concat!(env!("OUT_DIR"), "/manifest-core.json"));

/// The trace files, by file name (kept in sync with the manifest by a test).
#[cfg(not(target_arch = "wasm32"))]
fn file_text(file: &str) -> Option<&'static str> {
    Some(match file {
        "afs-mini.csv" => include_str!("../../../../traces/afs-mini.csv"),
        "sia-philly.csv" => include_str!("../../../../traces/sia-philly.csv"),
        "sia-helios.csv" => include_str!("../../../../traces/sia-helios.csv"),
        "sia-newtrace.csv" => include_str!("../../../../traces/sia-newtrace.csv"),
        "sia-philly-homog.csv" => include_str!("../../../../traces/sia-philly-homog.csv"),
        "pollux-philly.csv" => include_str!("../../../../traces/pollux-philly.csv"),
        "sia-rate-40.csv" => include_str!("../../../../traces/sia-rate-40.csv"),
        "sia-spike-240.csv" => include_str!("../../../../traces/sia-spike-240.csv"),
        "afs-philly-9-1pct.csv" => include_str!("../../../../traces/afs-philly-9-1pct.csv"),
        "afs-philly-4.csv" => include_str!("../../../../traces/afs-philly-4.csv"),
        "pcs-gavel.csv" => include_str!("../../../../traces/pcs-gavel.csv"),
        "pcs-themis1.csv" => include_str!("../../../../traces/pcs-themis1.csv"),
        "pcs-vc-ee9e8c.csv" => include_str!("../../../../traces/pcs-vc-ee9e8c.csv"),
        "sts-mixed-10.csv" => include_str!("../../../../traces/sts-mixed-10.csv"),
        "anticipatory-synthetic.csv" => {
            include_str!("../../../../traces/anticipatory-synthetic.csv")
        }
        "anticipatory-fig1.csv" => include_str!("../../../../traces/anticipatory-fig1.csv"),
        _ => return None,
    })
}

/// Every bundled trace, in manifest order.
pub fn bundled_traces() -> Vec<BundledTrace> {
    serde_json::from_str(MANIFEST).unwrap_or_default()
}

/// A bundled trace by name.
pub fn bundled_trace(name: &str) -> Option<BundledTrace> {
    bundled_traces().into_iter().find(|t| t.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Trace;

    include!("manifest_prose.rs");

    /// The wasm build's prose-free manifest parses to the same entries.
    #[test]
    fn the_manifest_without_prose_keeps_every_entry() {
        let core: Vec<BundledTrace> =
            serde_json::from_str(Box::leak(strip_prose(MANIFEST).into_boxed_str())).unwrap();
        let full = bundled_traces();
        assert_eq!(core.len(), full.len());
        for (c, f) in core.iter().zip(&full) {
            assert_eq!(
                (c.name, c.generator, c.jobs, c.seed, c.cluster),
                (f.name, f.generator, f.jobs, f.seed, f.cluster)
            );
            assert_eq!((c.description, c.source), ("", ""));
            assert!(
                !f.description.is_empty() && !f.source.is_empty(),
                "{}",
                f.name
            );
        }
    }

    #[test]
    fn manifest_parses_and_every_file_is_compiled_in() {
        let list: Vec<BundledTrace> = serde_json::from_str(MANIFEST).expect("manifest.json parses");
        assert!(!list.is_empty());
        for t in &list {
            assert!(
                file_text(t.file).is_some(),
                "{} is in the manifest but not compiled in",
                t.file
            );
        }
    }

    /// Each bundled trace is exactly what its generator makes today.
    /// With `SCHEDLAB_REGEN=1` the test rewrites the files instead
    /// (`scripts/regen-traces.sh`).
    #[test]
    fn bundled_traces_are_regenerable() {
        let regen = std::env::var_os("SCHEDLAB_REGEN").is_some();
        for t in bundled_traces() {
            let text = t.regenerate().unwrap();
            if regen {
                let path = format!("{}/../../traces/{}", env!("CARGO_MANIFEST_DIR"), t.file);
                std::fs::write(&path, &text).expect("write trace");
                continue;
            }
            let trace = Trace::parse(t.file, &text, None).unwrap();
            assert_eq!(
                text,
                t.text().unwrap(),
                "{} differs from its generator's output; run scripts/regen-traces.sh",
                t.name
            );
            assert_eq!(trace.jobs.len(), t.jobs, "{}: manifest job count", t.name);
        }
    }
}
