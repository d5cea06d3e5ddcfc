//! Jobs whose goodput is a table per (GPU type, GPU count), with a scale
//! unit per type: COpter's batch-inference jobs (units of `min_gpus`, at
//! most 16 units) and synthetic jobs (goodput listed per count). A job
//! given a count between table entries runs at the largest listed count
//! not above it (the extra GPUs idle); below the smallest, or on a type the
//! table lacks, it makes no progress.
//!
//! Table models are read from a JSON file (`run --table-models FILE`):
//!
//! ```json
//! [{"name": "bi-resnet50", "restart_s": 90, "work": 1431167,
//!   "types": {"v100": {"unit": 1, "counts": [1, 2, 4], "rates": [635, 1270, 2540]}}}]
//! ```
//!
//! `rates` are work units per second at each count; `work` is the default
//! length of a job of this model (iterations, samples: the unit of `rates`).
//! An optional `"epochs": [p0, p1, .., pmax]` gives the law of the number of
//! epochs a job runs before early stopping (STS); `work` is then the maximum
//! in epochs and `rates` are epochs per second.

use super::{Behaviour, ModelInfo};
use crate::cluster::GpuKind;
use schedlab_core::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One GPU type's rates.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TypeRates {
    pub kind: GpuKind,
    /// GPU counts are multiples of this (the scale unit).
    pub unit: u32,
    /// (GPU count, work per second), by increasing count.
    pub points: Vec<(u32, f64)>,
}

/// Goodput per (GPU type, GPU count).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GoodputTable {
    pub types: Vec<TypeRates>,
}

impl GoodputTable {
    fn of(&self, kind: GpuKind) -> Option<&TypeRates> {
        self.types.iter().find(|t| t.kind == kind)
    }

    /// Work per second on `gpus` GPUs of `kind`.
    pub fn rate(&self, kind: GpuKind, gpus: u32) -> f64 {
        let Some(t) = self.of(kind) else { return 0.0 };
        // Largest listed count <= gpus (points are sorted by count).
        match t.points.partition_point(|p| p.0 <= gpus) {
            0 => 0.0,
            i => t.points[i - 1].1,
        }
    }

    /// The GPU counts the table lists for `kind` (empty if it has none).
    pub fn counts(&self, kind: GpuKind) -> Vec<u32> {
        self.of(kind)
            .map_or(Vec::new(), |t| t.points.iter().map(|p| p.0).collect())
    }

    pub fn supports(&self, kind: GpuKind) -> bool {
        self.of(kind).is_some()
    }

    /// The largest count any type lists.
    pub fn max_gpus(&self) -> u32 {
        self.types
            .iter()
            .filter_map(|t| t.points.last().map(|p| p.0))
            .max()
            .unwrap_or(0)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TypeEntry {
    #[serde(default = "one")]
    unit: u32,
    counts: Vec<u32>,
    rates: Vec<f64>,
}

fn one() -> u32 {
    1
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelEntry {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    restart_s: f64,
    #[serde(default)]
    work: Option<f64>,
    /// P(the job stops after exactly e epochs), e = 0..=max: an early-stopping
    /// law (STS); `work` is then the maximum, in epochs.
    #[serde(default)]
    epochs: Option<Vec<f64>>,
    types: BTreeMap<String, TypeEntry>,
}

/// Reads table models from JSON; errors name the file, the model and the field.
pub fn table_models_from_json(file: &str, text: &str) -> Result<Vec<ModelInfo>> {
    let clip = schedlab_core::textio::clip;
    let entries: Vec<&serde_json::value::RawValue> = serde_json::from_str(text).map_err(|e| {
        Error::input(
            file,
            e.line(),
            "",
            format!("not a JSON list of table models: {}", clip(&e.to_string())),
        )
    })?;
    let lines = schedlab_core::textio::LineIndex::new(text);
    let base = text.as_ptr() as usize;
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for raw in entries {
        // The line the entry starts on, so errors point into the file.
        let line = lines.line_of((raw.get().as_ptr() as usize).saturating_sub(base));
        let m: ModelEntry = serde_json::from_str(raw.get()).map_err(|e| {
            Error::input(
                file,
                line + e.line().saturating_sub(1),
                "",
                clip(&e.to_string()),
            )
        })?;
        let err = |field: &str, msg: String| {
            Error::input(
                file,
                line,
                field,
                format!("model '{}': {msg}", clip(&m.name)),
            )
        };
        let key = m.name.trim().to_ascii_lowercase();
        if let Some(first) = seen.insert(key, line) {
            return Err(err(
                "name",
                format!("declared twice (first on line {first}); give each model its own name"),
            ));
        }
        if m.name.trim().is_empty() {
            return Err(Error::input(
                file,
                line,
                "name",
                "a table model needs a name",
            ));
        }
        if !(m.restart_s >= 0.0 && m.restart_s.is_finite()) {
            return Err(err(
                "restart_s",
                format!("{} is not a duration", m.restart_s),
            ));
        }
        if m.work.is_some_and(|w| !(w > 0.0 && w.is_finite())) {
            return Err(err("work", "must be positive".into()));
        }
        let mut types = Vec::new();
        for (tname, t) in &m.types {
            let kind = GpuKind::by_name(tname)
                .ok_or_else(|| err("types", format!("unknown GPU type '{tname}'")))?;
            if t.unit == 0 {
                return Err(err(
                    "unit",
                    format!("{tname}: the scale unit must be at least 1"),
                ));
            }
            if t.counts.len() != t.rates.len() || t.counts.is_empty() {
                return Err(err(
                    "rates",
                    format!("{tname}: give one rate per count (and at least one)"),
                ));
            }
            let mut points: Vec<(u32, f64)> = t
                .counts
                .iter()
                .copied()
                .zip(t.rates.iter().copied())
                .collect();
            schedlab_core::sorting::sort_by_key(&mut points, |p| p.0);
            for (i, (c, r)) in points.iter().enumerate() {
                if *c == 0 || c % t.unit != 0 {
                    return Err(err(
                        "counts",
                        format!(
                            "{tname}: count {c} is not a positive multiple of the unit {}",
                            t.unit
                        ),
                    ));
                }
                if i > 0 && points[i - 1].0 == *c {
                    return Err(err("counts", format!("{tname}: count {c} is listed twice")));
                }
                if !(*r >= 0.0 && r.is_finite()) {
                    return Err(err(
                        "rates",
                        format!("{tname}: rate {r} at {c} GPUs is not a rate"),
                    ));
                }
            }
            types.push(TypeRates {
                kind,
                unit: t.unit,
                points,
            });
        }
        if types.is_empty() {
            return Err(err("types", "no GPU type".into()));
        }
        let epochs = match &m.epochs {
            None => None,
            Some(pmf) => Some(
                super::epochs::EpochDistribution::new(pmf.clone())
                    .map_err(|e| err("epochs", e.to_string()))?,
            ),
        };
        let table = GoodputTable { types };
        out.push(ModelInfo {
            name: m.name.trim().to_ascii_lowercase(),
            aliases: Vec::new(),
            family: "table".into(),
            description: if m.description.is_empty() {
                "goodput tabulated per GPU type and count".into()
            } else {
                m.description.clone()
            },
            provenance: format!("table model read from {file}"),
            default_batch: 0,
            max_batch: 0,
            max_gpus: table.max_gpus(),
            restart_s: m.restart_s,
            mem_gb: 0.0,
            default_work: m.work,
            epochs,
            behaviour: Behaviour::Table(Box::new(table)),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = r#"[{"name": "BI", "restart_s": 90, "work": 1000,
        "types": {"v100": {"unit": 2, "counts": [4, 2], "rates": [30, 20]}}}]"#;

    #[test]
    fn reads_and_looks_up_by_largest_listed_count() {
        let m = table_models_from_json("t.json", T).unwrap();
        let Behaviour::Table(t) = &m[0].behaviour else {
            panic!()
        };
        let v100 = GpuKind::by_name("v100").unwrap();
        assert_eq!(
            (
                t.rate(v100, 1),
                t.rate(v100, 2),
                t.rate(v100, 3),
                t.rate(v100, 4),
                t.rate(v100, 9)
            ),
            (0.0, 20.0, 20.0, 30.0, 30.0)
        );
        assert_eq!(t.rate(GpuKind::by_name("t4").unwrap(), 4), 0.0);
        assert_eq!(t.counts(v100), vec![2, 4]);
        assert_eq!(
            (m[0].name.as_str(), m[0].max_gpus, m[0].restart_s),
            ("bi", 4, 90.0)
        );
    }

    #[test]
    fn bad_tables_name_the_field() {
        for (text, field) in [
            (T.replace("\"unit\": 2", "\"unit\": 3"), "counts"),
            (T.replace("[30, 20]", "[30]"), "rates"),
            (T.replace("v100", "h900"), "types"),
            (T.replace("\"work\": 1000", "\"work\": -1"), "work"),
            (
                T.replace("\"work\": 1000", "\"work\": 2, \"epochs\": [0, 0.5, 0.4]"),
                "not normalised",
            ),
        ] {
            let e = table_models_from_json("t.json", &text)
                .unwrap_err()
                .to_string();
            assert!(e.contains("t.json") && e.contains(field), "{e}");
        }
    }
}
