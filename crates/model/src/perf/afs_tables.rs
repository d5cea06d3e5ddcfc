//! The AFS authors' measured speedup tables (chhwang/schedsim `models.csv`:
//! `model,total_iter_expr,gpus,time_per_iter_us`, one row per model and GPU
//! count), loaded at run time to replace the synthetic BSP curves of the
//! zoo's `afs/*` models. The file has no license, so it is never bundled:
//! users point `reproduce afs --afs-models` (or the library) at their copy.
//!
//! Speedup at k GPUs = time per iteration at 1 GPU / time at k GPUs; the
//! table's last row is the model's peak-throughput GPU count.

use super::{Behaviour, ModelZoo, SpeedupCurve};
use schedlab_core::error::{Error, Result};
use std::collections::BTreeMap;

/// Zoo name of a schedsim model class (`VggnetModel256` -> `afs/vgg16`);
/// None for classes outside the AFS paper's Table 4 (the Autoencoder).
pub fn zoo_name(class: &str) -> Option<&'static str> {
    let stem = class.trim_end_matches(|c: char| c.is_ascii_digit());
    let stem = stem.strip_suffix("Model").unwrap_or(stem);
    Some(match stem.to_ascii_lowercase().as_str() {
        "vggnet" => "afs/vgg16",
        "googlenet" => "afs/googlenet",
        "inception4" => "afs/inception-v4",
        "resnet50" => "afs/resnet50",
        "dcgan" => "afs/dcgan",
        "videoprediction" => "afs/video-prediction",
        "chatbot" => "afs/chatbot",
        "deepspeech" => "afs/deepspeech2",
        "transformer" => "afs/transformer",
        _ => return None,
    })
}

/// Per zoo model, the measured speedup table `s[k-1]`.
pub fn parse_afs_tables(file: &str, text: &str) -> Result<BTreeMap<&'static str, Vec<f64>>> {
    let mut rdr = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let header = rdr
        .headers()
        .map_err(|e| Error::input(file, 1, "", e.to_string()))?
        .clone();
    let col = |name: &str| {
        header.iter().position(|h| h == name).ok_or_else(|| {
            Error::input(
                file,
                1,
                name,
                "missing column (expected model,total_iter_expr,gpus,time_per_iter_us)",
            )
        })
    };
    let (c_model, c_gpus, c_time) = (col("model")?, col("gpus")?, col("time_per_iter_us")?);
    // (zoo name) -> times per iteration by GPU count, in file order.
    let mut times: BTreeMap<&'static str, Vec<(u32, f64, usize)>> = BTreeMap::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| {
            let line = e.position().map_or(0, |p| p.line() as usize);
            Error::input(file, line, "", e.to_string())
        })?;
        let line = rec.position().map_or(0, |p| p.line() as usize);
        let field = |i: usize| rec.get(i).unwrap_or("");
        let Some(name) = zoo_name(field(c_model)) else {
            continue;
        };
        let gpus: u32 = field(c_gpus).parse().map_err(|_| {
            Error::input(
                file,
                line,
                "gpus",
                format!("'{}' is not a GPU count", field(c_gpus)),
            )
        })?;
        let t: f64 = field(c_time)
            .parse()
            .ok()
            .filter(|t: &f64| *t > 0.0 && t.is_finite())
            .ok_or_else(|| {
                Error::input(
                    file,
                    line,
                    "time_per_iter_us",
                    format!("'{}' is not a positive time", field(c_time)),
                )
            })?;
        times.entry(name).or_default().push((gpus, t, line));
    }
    if times.is_empty() {
        return Err(Error::input(
            file,
            0,
            "model",
            "no AFS Table 4 model in the file",
        ));
    }
    let mut out = BTreeMap::new();
    for (name, mut rows) in times {
        schedlab_core::sorting::sort_by_key(&mut rows, |r| r.0);
        for (i, (g, _, line)) in rows.iter().enumerate() {
            if *g != i as u32 + 1 {
                return Err(Error::input(
                    file,
                    *line,
                    "gpus",
                    format!("{name}: GPU counts must run 1, 2, 3, ... without gaps or repeats"),
                ));
            }
        }
        let t1 = rows[0].1;
        out.insert(name, rows.iter().map(|r| t1 / r.1).collect());
    }
    Ok(out)
}

impl ModelZoo {
    /// Replaces the curves of the `afs/*` models with the measured tables of
    /// a schedsim `models.csv`; returns how many models changed.
    pub fn add_afs_tables(&mut self, file: &str, text: &str) -> Result<usize> {
        let tables = parse_afs_tables(file, text)?;
        let mut changed = 0;
        for (name, s) in tables {
            let Some(id) = self.lookup(name) else {
                continue;
            };
            let mut info = self.get(id).clone();
            info.max_gpus = s.len() as u32;
            info.provenance = format!(
                "AFS (NSDI'21) Table 4 model; speedup table measured by the AFS authors, read at run time from {file}"
            );
            info.behaviour = Behaviour::Curve {
                curve: SpeedupCurve::Table { s },
                type_speed: Vec::new(),
            };
            self.insert(info);
            changed += 1;
        }
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "model,total_iter_expr,gpus,time_per_iter_us\n\
        VggnetModel256,153740040 // 256,1,3000\n\
        VggnetModel256,153740040 // 256,2,1600\n\
        AutoencoderModel51200,1,1,10\n\
        ChatbotModel256,x,2,50\n\
        ChatbotModel256,x,1,80\n";

    #[test]
    fn speedups_are_time_ratios_and_unknown_classes_are_ignored() {
        let t = parse_afs_tables("m.csv", SAMPLE).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t["afs/vgg16"], vec![1.0, 3000.0 / 1600.0]);
        assert_eq!(t["afs/chatbot"], vec![1.0, 80.0 / 50.0]);
        let mut zoo = ModelZoo::builtin();
        assert_eq!(zoo.add_afs_tables("m.csv", SAMPLE).unwrap(), 2);
        let vgg = zoo.get(zoo.lookup("afs/vgg16").unwrap());
        assert_eq!(vgg.max_gpus, 2);
        assert!(vgg.provenance.contains("m.csv"));
    }

    #[test]
    fn bad_rows_name_line_and_field() {
        let bad = "model,total_iter_expr,gpus,time_per_iter_us\nVggnetModel256,1,1,0\n";
        let e = parse_afs_tables("m.csv", bad).unwrap_err().to_string();
        assert!(
            e.contains("m.csv") && e.contains('2') && e.contains("time_per_iter_us"),
            "{e}"
        );
        let gap = "model,total_iter_expr,gpus,time_per_iter_us\nVggnetModel256,1,1,5\nVggnetModel256,1,3,4\n";
        let e = parse_afs_tables("m.csv", gap).unwrap_err().to_string();
        assert!(e.contains("gpus") && e.contains('3'), "{e}");
        let e = parse_afs_tables("m.csv", "a,b\n1,2\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("missing column"), "{e}");
    }
}
