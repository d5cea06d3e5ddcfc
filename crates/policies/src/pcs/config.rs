//! WFQ configurations as files: the PCS artifact's stored picks
//! (`PCS_config_<workload>_<pick>.json`: `class_thresholds` with a final
//! `"inf"`, `class_rates`, `clip_demand_factor`, `delta`) and the front our
//! search writes. `--set pcs.config=FILE` turns a file into the `pcs.*`
//! parameters it stands for (later `--set pcs.*` entries still win).

use schedlab_core::error::{Error, Result};
use serde_json::Value;
use std::collections::BTreeMap;

/// The `pcs` parameter overrides a configuration file stands for.
pub fn overrides_from_json(path: &str, text: &str) -> Result<Vec<(String, String)>> {
    let bad = |field: &str, why: &str| Error::input(path, 0, field, why.to_string());
    let v: Value = serde_json::from_str(text)
        .map_err(|e| Error::input(path, e.line(), "", format!("not JSON: {e}")))?;
    let numbers = |field: &str| -> Result<Vec<f64>> {
        let list = v
            .get(field)
            .and_then(Value::as_array)
            .ok_or_else(|| bad(field, "missing (expected a list of numbers)"))?;
        list.iter()
            .map(|x| match x {
                Value::Number(n) => n.as_f64().ok_or_else(|| bad(field, "not a number")),
                Value::String(s) if s.trim().eq_ignore_ascii_case("inf") => Ok(f64::INFINITY),
                _ => Err(bad(field, &format!("{x} is not a number"))),
            })
            .collect()
    };
    let number = |field: &str| -> Result<f64> {
        v.get(field)
            .and_then(Value::as_f64)
            .ok_or_else(|| bad(field, "missing (expected a number)"))
    };
    let mut thresholds = numbers("class_thresholds")?;
    // The artifact lists the last class's bound as "inf"; ours is implicit.
    if thresholds.last() == Some(&f64::INFINITY) {
        thresholds.pop();
    }
    if thresholds.iter().any(|t| !t.is_finite()) {
        return Err(bad(
            "class_thresholds",
            "only the last threshold may be inf",
        ));
    }
    let weights = numbers("class_rates")?;
    if let Some(k) = v.get("num_classes").and_then(Value::as_u64) {
        if k as usize != weights.len() {
            return Err(bad(
                "num_classes",
                &format!("says {k} but class_rates has {}", weights.len()),
            ));
        }
    }
    Ok(overrides(
        &thresholds,
        &weights,
        number("clip_demand_factor")?,
        number("delta")?,
    ))
}

/// The `pcs.*` parameter overrides of a configuration (thresholds without
/// the last, unbounded class; weights one per class).
pub fn overrides(
    thresholds: &[f64],
    weights: &[f64],
    clip: f64,
    delta: f64,
) -> Vec<(String, String)> {
    let join = |xs: &[f64]| {
        xs.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    vec![
        ("thresholds".into(), join(thresholds)),
        ("weights".into(), join(weights)),
        ("clip".into(), clip.to_string()),
        ("delta".into(), delta.to_string()),
    ]
}

/// Replaces every `pcs.config=FILE` entry of split `--set` overrides by the
/// parameters the file stands for, in place (so later entries still win).
pub fn expand_config_files(
    overrides: &mut BTreeMap<String, Vec<(String, String)>>,
    read: impl Fn(&str) -> Result<String>,
) -> Result<()> {
    let Some(list) = overrides.get_mut("pcs") else {
        return Ok(());
    };
    let mut out = Vec::with_capacity(list.len());
    for (key, value) in list.drain(..) {
        if key == "config" {
            out.extend(overrides_from_json(&value, &read(&value)?)?);
        } else {
            out.push((key, value));
        }
    }
    *list = out;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_artifact_pick_becomes_parameters() {
        let text = r#"{"num_classes": 3, "class_thresholds": [1627, 969473, "inf"],
            "class_rates": [0.95, 0.048, 0.002], "clip_demand_factor": 0.598, "delta": 0.23536}"#;
        let o = overrides_from_json("a.json", text).unwrap();
        assert_eq!(o[0], ("thresholds".into(), "1627,969473".into()));
        assert_eq!(o[1], ("weights".into(), "0.95,0.048,0.002".into()));
        assert_eq!(o[2], ("clip".into(), "0.598".into()));
        assert_eq!(o[3], ("delta".into(), "0.23536".into()));
    }

    #[test]
    fn errors_name_file_and_field() {
        let e = overrides_from_json("b.json", r#"{"class_thresholds": ["inf"]}"#).unwrap_err();
        assert!(
            e.to_string().contains("b.json") && e.to_string().contains("class_rates"),
            "{e}"
        );
        let e = overrides_from_json(
            "c.json",
            r#"{"num_classes": 3, "class_thresholds": ["inf"], "class_rates": [1]}"#,
        )
        .unwrap_err();
        assert!(e.to_string().contains("num_classes"), "{e}");
        let e = overrides_from_json("d.json", "{").unwrap_err();
        assert!(e.to_string().contains("not JSON"), "{e}");
    }

    #[test]
    fn a_config_file_expands_in_place() {
        let mut o = BTreeMap::new();
        o.insert(
            "pcs".to_string(),
            vec![
                ("config".to_string(), "x.json".to_string()),
                ("clip".to_string(), "0.5".to_string()),
            ],
        );
        expand_config_files(&mut o, |_| {
            Ok(
                r#"{"class_thresholds": [100, "inf"], "class_rates": [0.5, 0.5],
                "clip_demand_factor": 0.01, "delta": 0.01}"#
                    .to_string(),
            )
        })
        .unwrap();
        let keys: Vec<&str> = o["pcs"].iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["thresholds", "weights", "clip", "delta", "clip"]);
    }
}
