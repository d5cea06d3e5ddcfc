//! Gavel's measured throughputs (Narayanan et al., OSDI'20, §6 and the
//! artifact's `scheduler/simulation_throughputs.json`, MIT licence) as zoo
//! entries, so Gavel traces run with per-GPU-type speeds.
//!
//! Gavel measures, for each of 26 job types and scale factors 1, 2, 4 and 8,
//! the steps per second of the whole job running alone ("null" co-location
//! key) on K80, P100 and V100 GPUs. A Gavel job is rigid at its scale
//! factor, so there is one zoo entry per (job type, scale factor),
//! `gavel/<job type>-x<scale>`, built so that its rate is exactly the
//! measurement at its scale factor on every measured type:
//! - the speedup curve for 1..scale GPUs is the V100 measurement normalised to
//!   1 GPU (linear between the measured 1, 2, 4, 8), flat above the scale;
//! - the per-type speed is measurement(type, scale) / curve(scale).
//!
//! Work is in steps (the trace's `total_steps`). Types Gavel did not measure
//! use the V100 speed; a measured 0 (the job does not fit, e.g. ResNet-50
//! batch 128 on several K80s) stays 0: the job makes no progress there.
//! The table below is the JSON's isolated measurements to 6 significant
//! digits; a test re-reads the JSON and checks it.

use super::{Behaviour, ModelInfo, SpeedupCurve};
use crate::cluster::{GpuKind, CATALOG};
use schedlab_core::error::{Error, Result};
use std::collections::BTreeMap;

/// Not measured (the job type has no such scale factor).
const NA: f64 = f64::NAN;

/// Worker types of the measurements, in table order.
const TYPES: [&str; 3] = ["k80", "p100", "v100"];
/// Scale factors of the measurements, in table order.
const SCALES: [u32; 4] = [1, 2, 4, 8];

/// (job type, steps/s at scale 1, 2, 4, 8 on k80, p100, v100).
#[rustfmt::skip]
const TABLE: &[(&str, [[f64; 4]; 3])] = &[
    ("ResNet-18 (batch size 16)", [[4.79529, 8.75823, 16.1213, 26.9184], [35.8692, 60.9106, 94.3208, 130.089], [32.3534, 100.142, 123.854, 382.597]]),
    ("ResNet-18 (batch size 32)", [[7.17582, 13.1804, 22.5293, 43.9193], [35.8254, 57.5189, 97.0363, 141.995], [29.9472, 94.2489, 114.733, 340.038]]),
    ("ResNet-18 (batch size 64)", [[7.05208, 12.4955, 21.6256, 42.6441], [22.3049, 41.4822, 74.9906, 120.037], [24.0932, 74.1359, 95.5881, 255.829]]),
    ("ResNet-18 (batch size 128)", [[1.80653, 3.63145, 6.9817, 13.6636], [11.6755, 24.2274, 45.3507, 85.0794], [17.9949, 23.9854, 69.9505, 162.092]]),
    ("ResNet-18 (batch size 256)", [[0.88558, 1.67382, 3.40519, 6.97527], [7.72278, 14.2288, 27.7293, 53.9568], [10.3003, 15.8828, 27.7821, 81.5066]]),
    ("ResNet-50 (batch size 16)", [[2.30052, 4.30071, 7.7041, 15.0561], [9.05299, 16.1914, 30.7984, 44.7625], [11.3961, 13.8598, 23.1956, 27.7991]]),
    ("ResNet-50 (batch size 32)", [[1.23657, 2.35334, 4.37916, 8.79227], [4.88832, 9.74901, 18.5499, 33.5676], [7.78726, 10.8346, 13.7632, 24.0674]]),
    ("ResNet-50 (batch size 64)", [[0.619028, 1.26364, 2.41223, 4.56873], [2.61947, 5.51599, 10.3647, 18.2212], [4.39477, 7.92205, 9.45195, 17.3032]]),
    ("ResNet-50 (batch size 128)", [[0.347224, 0.0, 0.0, 0.0], [1.58435, 2.8809, 5.19115, 9.93497], [2.49677, 4.22301, 7.02929, 10.2932]]),
    ("Transformer (batch size 16)", [[5.46738, 7.04748, 10.2733, 18.6184], [9.53725, 14.3053, 21.235, 29.0197], [11.0641, 14.1538, 20.085, 71.6517]]),
    ("Transformer (batch size 32)", [[3.50742, 5.09659, 7.98497, 13.9125], [7.86922, 11.2238, 18.1594, 26.224], [10.6209, 13.328, 22.8225, 63.9777]]),
    ("Transformer (batch size 64)", [[1.75223, 3.06308, 5.03098, 8.97622], [5.09183, 7.88675, 13.313, 19.943], [8.61776, 15.8765, 19.6596, 49.6507]]),
    ("Transformer (batch size 128)", [[0.981583, 1.65747, 2.86539, 5.25701], [3.07354, 5.08743, 8.77406, 13.684], [5.44611, 10.0692, 14.1745, 30.8835]]),
    ("Transformer (batch size 256)", [[0.458331, 0.849195, 1.51289, 2.92324], [1.6777, 2.9414, 5.24322, 9.25317], [1.59514, 2.88524, 4.76305, 9.71702]]),
    ("A3C", [[3.43877, NA, NA, NA], [5.68135, NA, NA, NA], [7.17577, NA, NA, NA]]),
    ("LM (batch size 5)", [[25.4855, 32.3855, 44.0895, 76.8631], [90.7759, 76.9219, 110.217, 133.524], [109.167, 185.724, 126.716, 698.773]]),
    ("LM (batch size 10)", [[23.7944, 29.9849, 42.9564, 75.5677], [77.0847, 72.5323, 105.182, 127.789], [81.6516, 163.129, 121.478, 615.093]]),
    ("LM (batch size 20)", [[17.1423, 23.7733, 35.7034, 61.4492], [58.1727, 62.3321, 93.8148, 116.649], [64.7425, 132.174, 110.997, 497.295]]),
    ("LM (batch size 40)", [[11.4997, 16.0697, 22.9856, 43.1465], [35.7664, 48.0418, 76.0517, 102.248], [45.2374, 91.5927, 96.0312, 359.307]]),
    ("LM (batch size 80)", [[6.0542, 10.0083, 16.3887, 28.2861], [21.1575, 31.8412, 54.9955, 82.9341], [28.24, 58.0915, 74.8073, 231.176]]),
    ("Recommendation (batch size 512)", [[32.8593, NA, NA, NA], [48.8824, NA, NA, NA], [23.3176, NA, NA, NA]]),
    ("Recommendation (batch size 1024)", [[20.05, NA, NA, NA], [30.7444, NA, NA, NA], [13.2826, NA, NA, NA]]),
    ("Recommendation (batch size 2048)", [[10.4412, NA, NA, NA], [16.5966, NA, NA, NA], [7.46963, NA, NA, NA]]),
    ("Recommendation (batch size 4096)", [[5.30025, NA, NA, NA], [8.89666, NA, NA, NA], [3.90605, NA, NA, NA]]),
    ("Recommendation (batch size 8192)", [[2.69878, NA, NA, NA], [5.54844, NA, NA, NA], [2.84151, NA, NA, NA]]),
    ("CycleGAN", [[0.504771, NA, NA, NA], [2.40267, NA, NA, NA], [4.42609, NA, NA, NA]]),
];

/// The zoo name of a Gavel job type at a scale factor:
/// `ResNet-18 (batch size 16)` at 2 -> `gavel/resnet-18-bs16-x2`.
pub fn gavel_model_name(job_type: &str, scale: u32) -> String {
    let lower = job_type
        .trim()
        .to_ascii_lowercase()
        .replace("(batch size ", "bs");
    let mut slug = String::new();
    for c in lower.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    format!("gavel/{slug}-x{scale}")
}

/// The batch size written in a Gavel job type name, or 0.
fn batch_of(job_type: &str) -> u32 {
    job_type
        .split("batch size ")
        .nth(1)
        .and_then(|r| r.trim_end_matches(')').trim().parse().ok())
        .unwrap_or(0)
}

/// One job type's measurements: steps/s by (type index, scale index).
type Measured = [[f64; 4]; 3];

/// The zoo entries of one job type (one per measured scale factor).
fn entries(job_type: &str, m: &Measured, source: &str) -> Vec<ModelInfo> {
    let reference = 2; // v100
    let mut out = Vec::new();
    for (si, &scale) in SCALES.iter().enumerate() {
        if !TYPES
            .iter()
            .enumerate()
            .any(|(ti, _)| m[ti][si].is_finite())
        {
            continue;
        }
        // Reference curve at the measured scales <= this one, normalised.
        let base = m[reference][0];
        let at = |k: u32| -> f64 {
            let pts: Vec<(u32, f64)> = SCALES
                .iter()
                .enumerate()
                .filter(|(i, s)| **s <= scale && m[reference][*i].is_finite())
                .map(|(i, s)| (*s, m[reference][i] / base))
                .collect();
            let mut prev = (0u32, 0.0);
            for &(s, v) in &pts {
                if k == s {
                    return v;
                }
                if k < s {
                    let f = (k - prev.0) as f64 / (s - prev.0) as f64;
                    return prev.1 + (v - prev.1) * f;
                }
                prev = (s, v);
            }
            prev.1
        };
        let curve_ok = base.is_finite() && base > 0.0;
        let s: Vec<f64> = if curve_ok {
            (1..=scale).map(at).collect()
        } else {
            (1..=scale).map(|k| k as f64).collect()
        };
        let at_scale = s.last().copied().unwrap_or(1.0);
        let mut speeds: Vec<(GpuKind, f64)> = Vec::new();
        for kind in (0..CATALOG.len()).map(|i| GpuKind(i as u8)) {
            let ti = TYPES.iter().position(|t| *t == kind.name());
            let v = match ti.map(|i| m[i][si]) {
                Some(v) if v.is_finite() => v,
                _ => m[reference][si],
            };
            if v.is_finite() {
                speeds.push((kind, v / at_scale));
            }
        }
        let batch = batch_of(job_type);
        out.push(ModelInfo {
            name: gavel_model_name(job_type, scale),
            aliases: Vec::new(),
            family: "gavel".into(),
            description: format!("Gavel job type '{job_type}' on {scale} GPU(s); work in steps"),
            provenance: format!(
                "{source}: isolated steps/s at scale factor {scale} on k80/p100/v100 (exact at {scale} GPUs); curve below {scale} GPUs from the V100 measurements; unmeasured GPU types use the V100 speed"
            ),
            default_batch: batch,
            max_batch: batch,
            max_gpus: scale,
            restart_s: 0.0,
            mem_gb: 0.0,
            default_work: None,
            epochs: None,
            behaviour: Behaviour::Curve {
                curve: SpeedupCurve::Table { s },
                type_speed: speeds,
            },
        });
    }
    out
}

/// The built-in Gavel entries (from the table above).
pub fn gavel_models() -> Vec<ModelInfo> {
    TABLE
        .iter()
        .flat_map(|(name, m)| {
            entries(
                name,
                m,
                "Gavel (OSDI'20) artifact scheduler/simulation_throughputs.json (MIT), 6 significant digits",
            )
        })
        .collect()
}

/// Reads a Gavel `simulation_throughputs.json` (worker type -> "('job type',
/// scale)" -> {"null": steps/s, ...}) into zoo entries, for users with their
/// own measurements. Worker types other than k80/p100/v100 (such as the
/// `*_unconsolidated` variants) are ignored.
pub fn gavel_models_from_json(file: &str, text: &str) -> Result<Vec<ModelInfo>> {
    type Json = BTreeMap<String, BTreeMap<String, serde_json::Value>>;
    let data: Json = serde_json::from_str(text).map_err(|e| {
        Error::input(
            file,
            e.line(),
            "",
            format!("not a Gavel throughputs JSON (worker type -> job -> measurements): {e}"),
        )
    })?;
    let mut jobs: BTreeMap<String, Measured> = BTreeMap::new();
    for (ti, t) in TYPES.iter().enumerate() {
        let Some(per_job) = data.get(*t) else {
            continue;
        };
        for (key, v) in per_job {
            let (name, scale) = parse_key(key).ok_or_else(|| {
                Error::input(
                    file,
                    0,
                    format!("{t}.{key}"),
                    "expected a key like \"('Job type', 1)\"",
                )
            })?;
            let Some(si) = SCALES.iter().position(|s| *s == scale) else {
                continue;
            };
            let steps = v.get("null").and_then(|x| x.as_f64()).ok_or_else(|| {
                Error::input(
                    file,
                    0,
                    format!("{t}.{key}.null"),
                    "missing isolated throughput (the \"null\" entry)",
                )
            })?;
            if !(steps >= 0.0 && steps.is_finite()) {
                return Err(Error::input(
                    file,
                    0,
                    format!("{t}.{key}.null"),
                    format!("{steps} is not a throughput"),
                ));
            }
            jobs.entry(name).or_insert([[NA; 4]; 3])[ti][si] = steps;
        }
    }
    if jobs.is_empty() {
        return Err(Error::input(
            file,
            0,
            "",
            "no k80, p100 or v100 measurements found",
        ));
    }
    Ok(jobs
        .iter()
        .flat_map(|(name, m)| entries(name, m, file))
        .collect())
}

/// Splits `('ResNet-18 (batch size 16)', 2)` into its name and scale.
fn parse_key(key: &str) -> Option<(String, u32)> {
    let inner = key.trim().strip_prefix('(')?.strip_suffix(')')?;
    let (name, scale) = inner.rsplit_once(',')?;
    let name = name.trim().trim_matches(|c| c == '\'' || c == '"');
    Some((name.to_string(), scale.trim().parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::{BatchChoice, ModelZoo, RateQuery};

    #[test]
    fn names_and_keys() {
        assert_eq!(
            gavel_model_name("ResNet-18 (batch size 16)", 2),
            "gavel/resnet-18-bs16-x2"
        );
        assert_eq!(gavel_model_name("A3C", 1), "gavel/a3c-x1");
        assert_eq!(gavel_model_name("LM (batch size 5)", 8), "gavel/lm-bs5-x8");
        assert_eq!(
            parse_key("('Transformer (batch size 16)', 4)"),
            Some(("Transformer (batch size 16)".into(), 4))
        );
        assert_eq!(batch_of("Recommendation (batch size 8192)"), 8192);
    }

    #[test]
    fn rates_are_the_measurements_at_the_scale_factor() {
        let z = ModelZoo::builtin();
        let q = |name: &str, kind: &str, gpus: u32| {
            let id = z.lookup(name).unwrap();
            z.rate(
                id,
                &RateQuery {
                    kind: GpuKind::by_name(kind).unwrap(),
                    gpus,
                    nodes: 1,
                    batch: BatchChoice::Fixed(0),
                    progress: 0.0,
                },
            )
            .per_s
        };
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        assert!(close(q("gavel/resnet-18-bs16-x1", "k80", 1), 4.79529));
        assert!(close(q("gavel/resnet-18-bs16-x4", "p100", 4), 94.3208));
        assert!(close(q("gavel/lm-bs10-x8", "v100", 8), 615.093));
        assert!(close(q("gavel/lm-bs10-x8", "k80", 8), 75.5677));
        assert_eq!(q("gavel/resnet-50-bs128-x2", "k80", 2), 0.0);
        // Unmeasured types run at the V100 speed.
        assert!(close(
            q("gavel/a3c-x1", "a100", 1),
            q("gavel/a3c-x1", "v100", 1)
        ));
        // 26 job types: 7 single-GPU, 19 at four scale factors.
        assert_eq!(gavel_models().len(), 7 + 19 * 4);
    }
}
