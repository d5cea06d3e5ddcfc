//! The STS authors' data (`--sts-data DIR`; `../shared/data/sts`, whose
//! README describes the files): the profiles of 15 PyTorch AlexNet jobs on
//! K80 and M60 at 1-8 GPUs, six early-termination distributions, the node
//! costs of their `datacenter` scenario and the GPU-sharing slots. From the
//! `STochasticScheduler` branch of `GPUScheduler` at 0f0ccf6 (Apache-2.0).
//!
//! Read as engine features any policy can use, not as STS's own inputs:
//! - job types: one table model per (profile, distribution), 15 x 6 = 90,
//!   named `sts-data/JOB-FAMILY` (e.g. `sts-data/j3-py_resnet`): rates in
//!   epochs per second (the job's `Epochs` / `ExecutionTime`) on
//!   `k80-board` and `m60-board` at 1-8 GPUs; its epoch law is the family's
//!   column, stop after i % of the maximum epochs with probability row i
//!   (the authors' generator gives each job one column, uniformly, and
//!   scales its time by the realised i / 100; here the engine draws i);
//! - node costs (`GPU-cost_server.csv`): the zoo's price table for K80 and
//!   M60, dollars per hour by busy GPU count (the A100 keeps Table III);
//! - sharing (`fractions.csv`): the zoo's slots for K80 and M60, each at
//!   the mean of the authors' per-job draw U(1.01, inflate_max).
//!
//! The `GTX 1080Ti` and `Quadro P600` rows are checked and left out, as the
//! authors' datacenter scenario always leaves them out (no such node).
//! `GPU-cost.csv` (the `regular` scenario's VM prices), the in-house
//! server's files (the `ANDREAS` scenario, types TESLA and TURING) and
//! `fractions_A100.csv` (its rows are labelled K80) are not read.

use super::epochs::EpochDistribution;
use super::sharing::Slot;
use super::table::{GoodputTable, TypeRates};
use super::{Behaviour, ModelInfo, ModelZoo};
use crate::cluster::GpuKind;
use schedlab_core::error::{Error, Result};
use schedlab_core::textio::{csv_error, reader, Columns, Row};

pub const PROFILES_FILE: &str = "data_2d10d_filtered.csv";
pub const DISTRIBUTIONS_FILE: &str = "distributions.csv";
pub const COSTS_FILE: &str = "GPU-cost_server.csv";
pub const FRACTIONS_FILE: &str = "fractions.csv";

/// The authors' GPU type names and the catalog's (a K80 or M60 board, as
/// the paper counts them: 24 and 16 GB, which `fractions.csv` confirms).
const TYPES: &[(&str, &str)] = &[("K80", "k80-board"), ("M60", "m60-board")];
/// Types the authors' datacenter scenario always leaves out.
const LEFT_OUT: &[&str] = &["GTX 1080Ti", "Quadro P600"];
/// Rows of `distributions.csv`: stop after 1 % ... 100 % of the epochs.
const PERCENTS: usize = 100;
/// Prefix of the job types' model names.
pub const MODEL_PREFIX: &str = "sts-data/";

/// One profiled job: what it needs and how long its maximum epochs take.
#[derive(Debug, Clone, PartialEq)]
pub struct JobProfile {
    /// The authors' id (`J1` ... `J16`).
    pub id: String,
    pub epochs: u32,
    pub batch: u32,
    pub memory_gb: f64,
    /// (type, GPUs, seconds for all `epochs`), by type then count.
    pub times: Vec<(GpuKind, u32, f64)>,
}

impl JobProfile {
    /// Seconds for all epochs on every configuration of `kinds`.
    pub fn full_times(&self, kinds: &[GpuKind]) -> impl Iterator<Item = &(GpuKind, u32, f64)> {
        let kinds = kinds.to_vec();
        self.times.iter().filter(move |t| kinds.contains(&t.0))
    }
}

/// One early-termination distribution (a column of `distributions.csv`).
#[derive(Debug, Clone, PartialEq)]
pub struct EpochFamily {
    /// The column's name (`TF_alexnet`, `PY`, `PY_resnet`, ...).
    pub name: String,
    /// P(stop after i % of the maximum epochs), i = 0..=100 (0 at i = 0).
    pub pmf_pct: Vec<f64>,
}

impl EpochFamily {
    /// The law in epochs for a job of `epochs` maximum epochs: stopping
    /// after i % is stopping after round(i x epochs / 100) epochs.
    pub fn law(&self, epochs: u32) -> Result<EpochDistribution> {
        let mut pmf = vec![0.0; epochs as usize + 1];
        for (i, p) in self.pmf_pct.iter().enumerate() {
            let e = ((i as f64 * epochs as f64) / PERCENTS as f64).round() as usize;
            pmf[e.min(epochs as usize)] += p;
        }
        EpochDistribution::from_weights(&pmf)
    }
}

/// Everything read from an STS data directory.
#[derive(Debug, Clone, PartialEq)]
pub struct StsData {
    /// Where it was read from (for provenance).
    pub source: String,
    pub profiles: Vec<JobProfile>,
    pub families: Vec<EpochFamily>,
    /// Node cost per hour by busy count (index k - 1), per type.
    pub costs: Vec<(GpuKind, Vec<f64>)>,
    pub slots: Vec<Slot>,
}

/// The four files' texts, by name.
pub struct Files<'a> {
    pub profiles: &'a str,
    pub distributions: &'a str,
    pub costs: &'a str,
    pub fractions: &'a str,
}

impl StsData {
    /// Reads the four files of `dir`; errors name the file, line and field.
    pub fn read_dir(dir: &str) -> Result<StsData> {
        let path = |f: &str| format!("{}/{f}", dir.trim_end_matches('/'));
        if !std::path::Path::new(dir).is_dir() {
            return Err(Error::config(format!(
                "--sts-data {dir}: not a directory (expected the STS authors' data, e.g. ../shared/data/sts)"
            )));
        }
        let read = |f: &str| schedlab_core::textio::read_text(&path(f));
        let (p, d, c, f) = (
            read(PROFILES_FILE)?,
            read(DISTRIBUTIONS_FILE)?,
            read(COSTS_FILE)?,
            read(FRACTIONS_FILE)?,
        );
        StsData::parse(
            dir,
            &Files {
                profiles: &p,
                distributions: &d,
                costs: &c,
                fractions: &f,
            },
        )
    }

    /// Parses the files' texts; `dir` prefixes the file names in errors.
    pub fn parse(dir: &str, files: &Files) -> Result<StsData> {
        let name = |f: &str| format!("{}/{f}", dir.trim_end_matches('/'));
        Ok(StsData {
            source: dir.to_string(),
            profiles: parse_profiles(&name(PROFILES_FILE), files.profiles)?,
            families: parse_distributions(&name(DISTRIBUTIONS_FILE), files.distributions)?,
            costs: parse_costs(&name(COSTS_FILE), files.costs)?,
            slots: parse_fractions(&name(FRACTIONS_FILE), files.fractions)?,
        })
    }

    /// The GPU types the data profiles (K80 and M60 boards).
    pub fn kinds() -> Vec<GpuKind> {
        TYPES.iter().map(|(_, ours)| kind(ours)).collect()
    }

    /// The model name of a job type: `sts-data/j3-py_resnet`.
    pub fn model_name(profile: &JobProfile, family: &EpochFamily) -> String {
        format!("{MODEL_PREFIX}{}-{}", profile.id, family.name).to_ascii_lowercase()
    }

    /// Every (profile, distribution) job type as a zoo model.
    pub fn models(&self) -> Result<Vec<ModelInfo>> {
        let mut out = Vec::with_capacity(self.profiles.len() * self.families.len());
        for p in &self.profiles {
            for fam in &self.families {
                let mut types: Vec<TypeRates> = Vec::new();
                for &(k, gpus, secs) in &p.times {
                    let point = (gpus, p.epochs as f64 / secs);
                    match types.iter_mut().find(|t| t.kind == k) {
                        Some(t) => t.points.push(point),
                        None => types.push(TypeRates {
                            kind: k,
                            unit: 1,
                            points: vec![point],
                        }),
                    }
                }
                out.push(ModelInfo {
                    name: StsData::model_name(p, fam),
                    aliases: Vec::new(),
                    family: "sts".into(),
                    description: format!(
                        "PyTorch AlexNet job {} on 130,000 images: at most {} epochs, batch {}, {} GB; early stopping as the authors' {} runs",
                        p.id, p.epochs, p.batch, p.memory_gb, fam.name
                    ),
                    provenance: format!(
                        "STS authors' data (GPUScheduler branch STochasticScheduler, 0f0ccf6; Apache-2.0) read from {}: {PROFILES_FILE} job {}, {DISTRIBUTIONS_FILE} column {}",
                        self.source, p.id, fam.name
                    ),
                    default_batch: p.batch,
                    max_batch: p.batch,
                    max_gpus: types
                        .iter()
                        .filter_map(|t| t.points.last().map(|x| x.0))
                        .max()
                        .unwrap_or(0),
                    restart_s: 0.0,
                    mem_gb: p.memory_gb,
                    default_work: Some(p.epochs as f64),
                    epochs: Some(fam.law(p.epochs)?),
                    behaviour: Behaviour::Table(Box::new(GoodputTable { types })),
                });
            }
        }
        Ok(out)
    }

    /// Adds the job types to `zoo` and sets its prices and sharing slots
    /// for the types the data covers.
    pub fn apply(&self, zoo: &mut ModelZoo) -> Result<()> {
        for m in self.models()? {
            zoo.insert(m);
        }
        let source = format!("STS authors' {COSTS_FILE} ({})", self.source);
        for (k, per_count) in &self.costs {
            zoo.prices_mut().set(*k, per_count.clone(), &source);
        }
        for k in StsData::kinds() {
            let slots: Vec<Slot> = self.slots.iter().filter(|s| s.kind == k).copied().collect();
            zoo.sharing_mut().set(k, slots);
        }
        Ok(())
    }
}

fn kind(ours: &str) -> GpuKind {
    GpuKind::by_name(ours).expect("catalog type")
}

/// The catalog type of an authors' type name; None for the left-out ones.
fn their_type(row: &Row, field: &str) -> Result<Option<GpuKind>> {
    let name = row.required_text(field)?;
    if let Some((_, ours)) = TYPES.iter().find(|(t, _)| *t == name) {
        return Ok(Some(kind(ours)));
    }
    if LEFT_OUT.contains(&name) {
        return Ok(None);
    }
    let known: Vec<&str> = TYPES
        .iter()
        .map(|t| t.0)
        .chain(LEFT_OUT.iter().copied())
        .collect();
    Err(row.error(
        field,
        format!("unknown GPU type '{name}' (known: {})", known.join(", ")),
    ))
}

/// Every record of a CSV text with its line, through `each`.
fn for_rows(
    file: &str,
    text: &str,
    required: &[&str],
    mut each: impl FnMut(&Row) -> Result<()>,
) -> Result<Columns> {
    let mut rdr = reader(text);
    let cols = Columns::new(rdr.headers().map_err(|e| csv_error(file, &e))?);
    for name in required {
        if !cols.has(name) {
            return Err(Error::input(
                file,
                1,
                *name,
                format!("missing column (found: {})", cols.names().join(", ")),
            ));
        }
    }
    for rec in rdr.records() {
        let rec = rec.map_err(|e| csv_error(file, &e))?;
        let line = schedlab_core::textio::record_line(text, &rec);
        each(&Row {
            file,
            line,
            cols: &cols,
            rec: &rec,
        })?;
    }
    Ok(cols)
}

fn positive(row: &Row, field: &str) -> Result<f64> {
    let v = row.f64(field)?;
    if v > 0.0 {
        Ok(v)
    } else {
        Err(row.error(field, format!("{v} must be positive")))
    }
}

/// Checks that `counts` (sorted) are 1, 2, ..., n.
fn complete(counts: &[u32]) -> bool {
    counts.iter().enumerate().all(|(i, c)| *c == i as u32 + 1)
}

fn parse_profiles(file: &str, text: &str) -> Result<Vec<JobProfile>> {
    let mut out: Vec<JobProfile> = Vec::new();
    let required = [
        "jobs",
        "epochs",
        "batchsize",
        "gputype",
        "gpunumber",
        "executiontime",
        "memory",
    ];
    for_rows(file, text, &required, |row| {
        let id = row.required_text("jobs")?.to_string();
        let epochs = row.u32("epochs")?;
        if epochs == 0 {
            return Err(row.error("epochs", "a job needs at least one epoch"));
        }
        let batch = row.u32("batchsize")?;
        let memory_gb = positive(row, "memory")?;
        let gpus = row.u32("gpunumber")?;
        if !(1..=64).contains(&gpus) {
            return Err(row.error("gpunumber", format!("{gpus} GPUs: expected 1 to 64")));
        }
        let secs = positive(row, "executiontime")?;
        let Some(k) = their_type(row, "gputype")? else {
            return Ok(());
        };
        let job = match out.iter_mut().position(|p| p.id == id) {
            Some(i) => &mut out[i],
            None => {
                out.push(JobProfile {
                    id: id.clone(),
                    epochs,
                    batch,
                    memory_gb,
                    times: Vec::new(),
                });
                out.last_mut().expect("just pushed")
            }
        };
        for (field, same) in [
            ("epochs", job.epochs == epochs),
            ("batchsize", job.batch == batch),
            ("memory", job.memory_gb == memory_gb),
        ] {
            if !same {
                return Err(row.error(
                    field,
                    format!("job {id} has another {field} on an earlier row"),
                ));
            }
        }
        if job.times.iter().any(|t| t.0 == k && t.1 == gpus) {
            return Err(row.error(
                "gpunumber",
                format!("job {id} lists {gpus} {} GPUs twice", k.name()),
            ));
        }
        job.times.push((k, gpus, secs));
        Ok(())
    })?;
    if out.is_empty() {
        return Err(Error::input(file, 0, "", "no job profiles on K80 or M60"));
    }
    for p in &mut out {
        schedlab_core::sorting::sort_by(&mut p.times, |a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
        for k in StsData::kinds() {
            let counts: Vec<u32> = p.times.iter().filter(|t| t.0 == k).map(|t| t.1).collect();
            if counts.is_empty() || !complete(&counts) {
                return Err(Error::input(
                    file,
                    0,
                    "GpuNumber",
                    format!(
                        "job {} has {} GPU counts {:?} on {}; expected 1, 2, ..., n",
                        p.id,
                        counts.len(),
                        counts,
                        k.name()
                    ),
                ));
            }
        }
    }
    Ok(out)
}

fn parse_distributions(file: &str, text: &str) -> Result<Vec<EpochFamily>> {
    let mut rdr = reader(text);
    let names: Vec<String> = rdr
        .headers()
        .map_err(|e| csv_error(file, &e))?
        .iter()
        .map(|h| h.trim().trim_start_matches('\u{feff}').to_string())
        .collect();
    if names.is_empty() || names.iter().any(|n| n.is_empty()) {
        return Err(Error::input(
            file,
            1,
            "",
            "every column needs a workload family name",
        ));
    }
    let mut families: Vec<EpochFamily> = names
        .iter()
        .map(|n| EpochFamily {
            name: n.clone(),
            pmf_pct: vec![0.0],
        })
        .collect();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| csv_error(file, &e))?;
        let line = schedlab_core::textio::record_line(text, &rec);
        if rec.len() != names.len() {
            return Err(Error::input(
                file,
                line,
                "",
                format!(
                    "{} values; the header has {} columns",
                    rec.len(),
                    names.len()
                ),
            ));
        }
        for (fam, cell) in families.iter_mut().zip(rec.iter()) {
            let v: f64 = cell.trim().parse().map_err(|_| {
                Error::input(file, line, &fam.name, format!("'{cell}' is not a number"))
            })?;
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::input(
                    file,
                    line,
                    &fam.name,
                    format!("{v} is not a probability"),
                ));
            }
            fam.pmf_pct.push(v);
        }
    }
    for fam in &families {
        let rows = fam.pmf_pct.len() - 1;
        if rows != PERCENTS {
            return Err(Error::input(
                file,
                0,
                &fam.name,
                format!(
                    "{rows} rows; expected {PERCENTS} (stop after 1 % ... 100 % of the epochs)"
                ),
            ));
        }
        let total: f64 = fam.pmf_pct.iter().sum();
        if (total - 1.0).abs() > 1e-6 {
            return Err(Error::input(
                file,
                0,
                &fam.name,
                format!("the column sums to {total}, not 1"),
            ));
        }
    }
    Ok(families)
}

fn parse_costs(file: &str, text: &str) -> Result<Vec<(GpuKind, Vec<f64>)>> {
    let mut rows: Vec<(GpuKind, u32, f64)> = Vec::new();
    for_rows(file, text, &["gputype", "ngpus", "cost"], |row| {
        let Some(k) = their_type(row, "gputype")? else {
            return Ok(());
        };
        let n = row.u32("ngpus")?;
        let cost = positive(row, "cost")?;
        if n == 0 || rows.iter().any(|r| r.0 == k && r.1 == n) {
            return Err(row.error("nGPUs", format!("{n} GPUs: zero or listed twice")));
        }
        rows.push((k, n, cost));
        Ok(())
    })?;
    let mut out = Vec::new();
    for k in StsData::kinds() {
        let mut mine: Vec<(u32, f64)> = rows
            .iter()
            .filter(|r| r.0 == k)
            .map(|r| (r.1, r.2))
            .collect();
        schedlab_core::sorting::sort_by(&mut mine, |a, b| a.0.cmp(&b.0));
        let counts: Vec<u32> = mine.iter().map(|r| r.0).collect();
        if counts.is_empty() || !complete(&counts) {
            return Err(Error::input(
                file,
                0,
                "nGPUs",
                format!(
                    "{} has costs for {:?} GPUs; expected 1, 2, ..., n",
                    k.name(),
                    counts
                ),
            ));
        }
        out.push((k, mine.into_iter().map(|r| r.1).collect()));
    }
    Ok(out)
}

/// Memory a slot may differ by from fraction x the board's memory (GB).
const SLOT_MEMORY_SLACK_GB: f64 = 0.5;

fn parse_fractions(file: &str, text: &str) -> Result<Vec<Slot>> {
    let mut out: Vec<Slot> = Vec::new();
    for_rows(
        file,
        text,
        &["gputype", "memory", "gpuf", "inflate_max"],
        |row| {
            let Some(k) = their_type(row, "gputype")? else {
                return Ok(());
            };
            let fraction = row.f64("gpuf")?;
            if !(fraction > 0.0 && fraction < 1.0) {
                return Err(row.error("GPUf", format!("{fraction} is not a fraction in (0, 1)")));
            }
            let mem_gb = positive(row, "memory")?;
            let board = k.info().memory_gb;
            if (mem_gb - fraction * board).abs() > SLOT_MEMORY_SLACK_GB {
                return Err(row.error(
                    "Memory",
                    format!(
                        "{mem_gb} GB is not {fraction} of a {} GB {} GPU",
                        board,
                        k.name()
                    ),
                ));
            }
            let inflate_max = row.f64("inflate_max")?;
            if !(inflate_max >= 1.01 && inflate_max.is_finite()) {
                return Err(row.error(
                "inflate_max",
                format!("{inflate_max}: the slowdown is drawn from U(1.01, inflate_max), so it must be at least 1.01"),
            ));
            }
            if out.iter().any(|s| s.kind == k && s.fraction == fraction) {
                return Err(row.error("GPUf", format!("{fraction} of a {} listed twice", k.name())));
            }
            out.push(Slot {
                kind: k,
                fraction,
                mem_gb,
                slowdown: (1.01 + inflate_max) / 2.0,
            });
            Ok(())
        },
    )?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROFILES: &str = ",Unnamed: 0,Application,Images,Epochs,Batchsize,Jobs,GpuType,GpuNumber,ExecutionTime,min,max,Memory\n\
        0,0,pytorch_alexnet,130000,500,128,J1,K80,1,1000,0,0,4\n\
        1,1,pytorch_alexnet,130000,500,128,J1,K80,2,800,0,0,4\n\
        2,2,pytorch_alexnet,130000,500,128,J1,M60,1,1100,0,0,4\n\
        3,3,pytorch_alexnet,130000,500,128,J1,Quadro P600,1,3000,0,0,4\n\
        4,4,pytorch_alexnet,130000,500,128,J1,M60,2,900,0,0,4\n";
    const COSTS: &str = "GPUtype,nGPUs,cost\r\nK80,1,0.56\r\nK80,2,1.13\r\nM60,1,0.62\r\n";
    const FRACTIONS: &str = "GPUtype,Memory,GPUf,inflate_max,inflate\nK80,6,0.25,1.11,1\n";

    fn distributions() -> String {
        let mut t = String::from("A,B\r\n");
        for i in 1..=100 {
            let b = if i == 100 { 1.0 } else { 0.0 };
            let a = if i == 20 || i == 40 { 0.5 } else { 0.0 };
            t.push_str(&format!("{a},{b}\r\n"));
        }
        t
    }

    fn parse(p: &str, d: &str, c: &str, f: &str) -> Result<StsData> {
        StsData::parse(
            "dir",
            &Files {
                profiles: p,
                distributions: d,
                costs: c,
                fractions: f,
            },
        )
    }

    #[test]
    fn reads_profiles_laws_costs_and_slots() {
        let d = parse(PROFILES, &distributions(), COSTS, FRACTIONS).unwrap();
        assert_eq!(d.profiles.len(), 1);
        assert_eq!(d.profiles[0].times.len(), 4, "the Quadro row is left out");
        let models = d.models().unwrap();
        assert_eq!(models.len(), 2);
        let m = &models[0];
        assert_eq!(m.name, "sts-data/j1-a");
        let Behaviour::Table(t) = &m.behaviour else {
            panic!()
        };
        let k80 = kind("k80-board");
        assert!((t.rate(k80, 2) - 500.0 / 800.0).abs() < 1e-12);
        // Stop after 20 % or 40 % of 500 epochs.
        let law = m.epochs.as_ref().unwrap();
        assert_eq!(law.max_epochs, 500);
        assert!((law.pmf()[100] - 0.5).abs() < 1e-12 && (law.pmf()[200] - 0.5).abs() < 1e-12);
        assert_eq!(d.costs[0], (k80, vec![0.56, 1.13]));
        assert!((d.slots[0].slowdown - 1.06).abs() < 1e-12);
        let mut zoo = ModelZoo::builtin();
        d.apply(&mut zoo).unwrap();
        assert!(zoo.lookup("sts-data/J1-B").is_some());
        assert_eq!(zoo.prices().usd_h(k80, 2), Some(1.13));
        assert_eq!(zoo.sharing().slots(kind("m60-board")).count(), 0);
    }

    #[test]
    fn bad_files_name_the_file_line_and_field() {
        let err = |r: Result<StsData>| r.unwrap_err().to_string();
        let e = err(parse(
            &PROFILES.replace("J1,M60,2,900", "J1,M60,2,-9"),
            &distributions(),
            COSTS,
            FRACTIONS,
        ));
        assert!(
            e.contains("dir/data_2d10d_filtered.csv")
                && e.contains("line 6")
                && e.contains("executiontime"),
            "{e}"
        );
        let e = err(parse(
            &PROFILES.replace("J1,K80,2", "J1,V100,2"),
            &distributions(),
            COSTS,
            FRACTIONS,
        ));
        assert!(e.contains("line 3") && e.contains("V100"), "{e}");
        let e = err(parse(
            &PROFILES.replace("J1,K80,2", "J1,K80,3"),
            &distributions(),
            COSTS,
            FRACTIONS,
        ));
        assert!(e.contains("J1") && e.contains("[1, 3]"), "{e}");
        let e = err(parse(
            PROFILES,
            &distributions().replacen("0.5", "0.6", 1),
            COSTS,
            FRACTIONS,
        ));
        assert!(
            e.contains("distributions.csv") && e.contains("A") && e.contains("sums to"),
            "{e}"
        );
        let e = err(parse(
            PROFILES,
            &distributions().replacen("0,0", "x,0", 1),
            COSTS,
            FRACTIONS,
        ));
        assert!(e.contains("line 2") && e.contains("'x'"), "{e}");
        let e = err(parse(
            PROFILES,
            &distributions(),
            "GPUtype,nGPUs,cost\nK80,2,1\nM60,1,1\n",
            FRACTIONS,
        ));
        assert!(
            e.contains("GPU-cost_server.csv") && e.contains("[2]"),
            "{e}"
        );
        let e = err(parse(
            PROFILES,
            &distributions(),
            COSTS,
            "GPUtype,Memory,GPUf,inflate_max\nK80,8,0.1,1.17\n",
        ));
        assert!(
            e.contains("fractions.csv") && e.contains("line 2") && e.contains("Memory"),
            "{e}"
        );
        let e = err(parse(
            PROFILES,
            &distributions(),
            COSTS,
            "GPUtype,Memory,GPUf\nK80,6,0.25\n",
        ));
        assert!(
            e.contains("inflate_max") && e.contains("missing column"),
            "{e}"
        );
    }
}
