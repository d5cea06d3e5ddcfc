//! Reading throughput and gradient-statistics profiles in the layout of the
//! Pollux (OSDI'21) and Sia (SOSP'23) artifacts (spec seed004-sia.md §3.2):
//!
//! ```text
//! <app>/placements[-TYPE].csv    placement,local_bsz,step_time,sync_time
//! <app>/scalability[-TYPE].csv   num_nodes,num_replicas,local_bsz,step_time,sync_time
//! <app>/validation-<bsz>.csv     progress,iteration,metric,grad_sqr,grad_var
//! seed/<app>.csv                 gpu_type,local_bsz,placement,step_time,sync_time (1-GPU profiles)
//! profiles/<app>.csv             the same columns: the largest local batch per type
//! ```
//!
//! Columns are found by name (the Sia files order them differently).
//! A placement is a digit string of replicas per node (`4444`, `88`; a
//! `0` digit is an empty node and is dropped, as in the simulators). Files
//! without a `-TYPE` suffix are the Pollux artifact's T4 data (label `aws`).
//! Every error names the file, line and field.

use super::goodput::efficiency::ValidationRow;
use super::goodput::Observation;
use crate::cluster::GpuKind;
use schedlab_core::error::{Error, Result};
use schedlab_core::textio::{CsvTable, Row};

/// Label of profile files without a type suffix (Pollux's g4dn.12xlarge, T4).
pub const DEFAULT_LABEL: &str = "aws";

/// Profile rows of one application on one GPU type label.
#[derive(Debug, Clone, Default)]
pub struct TypeRows {
    /// The file suffix (`aws`, `rtx`, `dgx-ext`, `dgx`, `quad`, `azure`).
    pub label: String,
    /// `placements*.csv` rows (measured placements).
    pub placements: Vec<Observation>,
    /// `scalability*.csv` rows (large-scale points).
    pub scalability: Vec<Observation>,
    pub files: Vec<String>,
}

impl TypeRows {
    /// The simulator's GPU type for this label (None if unknown).
    pub fn kind(&self) -> Option<GpuKind> {
        GpuKind::by_name(&self.label)
    }

    /// All rows (placements first).
    pub fn all(&self) -> Vec<Observation> {
        let mut v = self.placements.clone();
        v.extend_from_slice(&self.scalability);
        v
    }
}

/// Everything known about one application.
#[derive(Debug, Clone, Default)]
pub struct AppProfile {
    pub name: String,
    /// One entry per type label, sorted by label.
    pub types: Vec<TypeRows>,
    /// `validation-<bsz>.csv` runs, sorted by batch size.
    pub validation: Vec<(u32, Vec<ValidationRow>)>,
    /// `seed/<app>.csv`: 1-GPU profile rows with their type label.
    pub seed: Vec<(String, Observation)>,
    /// `profiles/<app>.csv`: largest local batch per type label.
    pub max_local: Vec<(String, u32)>,
}

impl AppProfile {
    fn type_mut(&mut self, label: &str) -> &mut TypeRows {
        if let Some(i) = self.types.iter().position(|t| t.label == label) {
            return &mut self.types[i];
        }
        self.types.push(TypeRows {
            label: label.to_string(),
            ..TypeRows::default()
        });
        schedlab_core::sorting::sort_by(&mut self.types, |a, b| a.label.cmp(&b.label));
        let i = self
            .types
            .iter()
            .position(|t| t.label == label)
            .unwrap_or(0);
        &mut self.types[i]
    }
}

/// A set of application profiles (one directory or several merged).
#[derive(Debug, Clone, Default)]
pub struct ProfileSet {
    /// Sorted by name.
    pub apps: Vec<AppProfile>,
    /// Files read.
    pub files: usize,
}

/// What kind of profile file a relative path names.
#[derive(Debug, Clone, PartialEq, Eq)]
enum FileKind {
    Placements { app: String, label: String },
    Scalability { app: String, label: String },
    Validation { app: String, batch: u32 },
    Seed { app: String },
    MaxLocal { app: String },
}

/// Classifies `dir/file.csv` (the last two path components).
fn classify(path: &str) -> Option<FileKind> {
    let norm = path.replace('\\', "/");
    let mut parts = norm.rsplit('/');
    let file = parts.next()?;
    let dir = parts.next()?.to_string();
    let stem = file.strip_suffix(".csv")?;
    if dir == "seed" {
        return Some(FileKind::Seed {
            app: stem.to_string(),
        });
    }
    if dir == "profiles" {
        return Some(FileKind::MaxLocal {
            app: stem.to_string(),
        });
    }
    let label = |rest: &str| -> String {
        match rest.strip_prefix('-') {
            Some(l) if !l.is_empty() => l.to_ascii_lowercase(),
            _ => DEFAULT_LABEL.to_string(),
        }
    };
    if let Some(rest) = stem.strip_prefix("placements") {
        return Some(FileKind::Placements {
            app: dir,
            label: label(rest),
        });
    }
    if let Some(rest) = stem.strip_prefix("scalability") {
        return Some(FileKind::Scalability {
            app: dir,
            label: label(rest),
        });
    }
    if let Some(b) = stem.strip_prefix("validation-") {
        let batch: u32 = b.parse().ok()?;
        return Some(FileKind::Validation { app: dir, batch });
    }
    None
}

/// Parses a placement digit string into (nodes, replicas).
fn parse_placement(row: &Row, field: &str) -> Result<(u32, u32)> {
    let text = row.required_text(field)?;
    // Some writers store placements as floats ("4.0").
    let digits = text.strip_suffix(".0").unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(row.error(
            field,
            format!("'{text}' is not a digit string of replicas per node"),
        ));
    }
    let per_node: Vec<u32> = digits
        .bytes()
        .map(|b| (b - b'0') as u32)
        .filter(|d| *d > 0)
        .collect();
    if per_node.is_empty() {
        return Err(row.error(field, format!("'{text}' places no replica")));
    }
    Ok((per_node.len() as u32, per_node.iter().sum()))
}

fn positive(row: &Row, field: &str) -> Result<f64> {
    let v = row.f64(field)?;
    if v <= 0.0 {
        return Err(row.error(field, format!("{v} is not positive")));
    }
    Ok(v)
}

fn non_negative(row: &Row, field: &str) -> Result<f64> {
    let v = row.f64(field)?;
    if v < 0.0 {
        return Err(row.error(field, format!("{v} is negative")));
    }
    Ok(v)
}

/// Reads a profile CSV's rows after checking its columns; a file without
/// rows is an error (it would silently leave the built-in model in use).
fn for_rows(
    file: &str,
    text: &str,
    need: &[&str],
    mut f: impl FnMut(&Row) -> Result<()>,
) -> Result<()> {
    let mut table = CsvTable::open(file, text)?;
    table.require(need, "a profile file")?;
    let mut rows = 0usize;
    table.rows(|row| {
        rows += 1;
        f(row)
    })?;
    if rows == 0 {
        return Err(Error::input(
            file,
            table.header_line(),
            "",
            "the file has a header but no rows: no profile to fit",
        ));
    }
    Ok(())
}

fn placement_row(row: &Row) -> Result<Observation> {
    let (nodes, replicas) = parse_placement(row, "placement")?;
    Ok(Observation {
        nodes,
        replicas,
        local_bsz: positive(row, "local_bsz")?,
        step_time: positive(row, "step_time")?,
        sync_time: non_negative(row, "sync_time")?,
    })
}

impl ProfileSet {
    fn app_mut(&mut self, name: &str) -> &mut AppProfile {
        if !self.apps.iter().any(|a| a.name == name) {
            self.apps.push(AppProfile {
                name: name.to_string(),
                ..AppProfile::default()
            });
            schedlab_core::sorting::sort_by(&mut self.apps, |a, b| a.name.cmp(&b.name));
        }
        let i = self.apps.iter().position(|a| a.name == name).unwrap_or(0);
        &mut self.apps[i]
    }

    pub fn app(&self, name: &str) -> Option<&AppProfile> {
        self.apps.iter().find(|a| a.name == name)
    }

    /// Adds one file given its path (used to classify it by its last two
    /// components and to name it in errors) and text. Returns false for
    /// files that are not part of the layout (ignored).
    pub fn add_file(&mut self, path: &str, text: &str) -> Result<bool> {
        let Some(kind) = classify(path) else {
            return Ok(false);
        };
        match kind {
            FileKind::Placements { app, label } => {
                let mut rows = Vec::new();
                for_rows(
                    path,
                    text,
                    &["placement", "local_bsz", "step_time", "sync_time"],
                    |r| {
                        rows.push(placement_row(r)?);
                        Ok(())
                    },
                )?;
                let t = self.app_mut(&app).type_mut(&label);
                t.placements.extend(rows);
                t.files.push(path.to_string());
            }
            FileKind::Scalability { app, label } => {
                let mut rows = Vec::new();
                let need = [
                    "num_nodes",
                    "num_replicas",
                    "local_bsz",
                    "step_time",
                    "sync_time",
                ];
                for_rows(path, text, &need, |r| {
                    let nodes = r.u32("num_nodes")?;
                    let replicas = r.u32("num_replicas")?;
                    if nodes == 0 || replicas < nodes {
                        return Err(r.error(
                            "num_replicas",
                            format!("{replicas} replicas on {nodes} nodes"),
                        ));
                    }
                    rows.push(Observation {
                        nodes,
                        replicas,
                        local_bsz: positive(r, "local_bsz")?,
                        step_time: positive(r, "step_time")?,
                        sync_time: non_negative(r, "sync_time")?,
                    });
                    Ok(())
                })?;
                let t = self.app_mut(&app).type_mut(&label);
                t.scalability.extend(rows);
                t.files.push(path.to_string());
            }
            FileKind::Validation { app, batch } => {
                if batch == 0 {
                    return Err(Error::input(path, 0, "", "batch size 0 in the file name"));
                }
                let mut rows = Vec::new();
                for_rows(path, text, &["progress", "grad_sqr", "grad_var"], |r| {
                    let progress = non_negative(r, "progress")?;
                    if rows
                        .last()
                        .is_some_and(|p: &ValidationRow| progress < p.progress)
                    {
                        return Err(r.error("progress", "cumulative progress decreases"));
                    }
                    rows.push(ValidationRow {
                        progress,
                        grad_sqr: non_negative(r, "grad_sqr")?,
                        grad_var: non_negative(r, "grad_var")?,
                    });
                    Ok(())
                })?;
                if rows.is_empty() {
                    return Err(Error::input(path, 0, "", "no rows"));
                }
                let a = self.app_mut(&app);
                if a.validation.iter().any(|(b, _)| *b == batch) {
                    return Err(Error::input(
                        path,
                        0,
                        "",
                        format!("a second validation file for batch {batch} of {app}"),
                    ));
                }
                a.validation.push((batch, rows));
                schedlab_core::sorting::sort_by_key(&mut a.validation, |v| v.0);
            }
            FileKind::Seed { app } => {
                let mut rows = Vec::new();
                let need = [
                    "gpu_type",
                    "local_bsz",
                    "placement",
                    "step_time",
                    "sync_time",
                ];
                for_rows(path, text, &need, |r| {
                    let label = r.required_text("gpu_type")?.to_ascii_lowercase();
                    rows.push((label, placement_row(r)?));
                    Ok(())
                })?;
                self.app_mut(&app).seed.extend(rows);
            }
            FileKind::MaxLocal { app } => {
                let mut rows = Vec::new();
                for_rows(path, text, &["gpu_type", "local_bsz"], |r| {
                    let label = r.required_text("gpu_type")?.to_ascii_lowercase();
                    let m = r.f64("local_bsz")?;
                    if !(m >= 1.0 && m.fract() == 0.0 && m <= u32::MAX as f64) {
                        return Err(r.error("local_bsz", format!("{m} is not a positive integer")));
                    }
                    rows.push((label, m as u32));
                    Ok(())
                })?;
                self.app_mut(&app).max_local.extend(rows);
            }
        }
        self.files += 1;
        Ok(true)
    }

    /// Adds every application of `other` (rows of the same app and label
    /// are appended; validation runs must not repeat).
    pub fn merge(&mut self, other: ProfileSet) -> Result<()> {
        for app in other.apps {
            let name = app.name.clone();
            let a = self.app_mut(&name);
            for t in app.types {
                let mine = a.type_mut(&t.label);
                mine.placements.extend(t.placements);
                mine.scalability.extend(t.scalability);
                mine.files.extend(t.files);
            }
            for (b, rows) in app.validation {
                if a.validation.iter().any(|(x, _)| *x == b) {
                    return Err(Error::config(format!(
                        "profiles: two validation runs for batch {b} of {name}"
                    )));
                }
                a.validation.push((b, rows));
            }
            schedlab_core::sorting::sort_by_key(&mut a.validation, |v| v.0);
            a.seed.extend(app.seed);
            a.max_local.extend(app.max_local);
        }
        self.files += other.files;
        Ok(())
    }
}

/// Reads a profile directory: either a `traces`-style directory of
/// `<app>/` folders (with optional `seed/` and `profiles/` beside them),
/// a root holding `traces/` (plus `seed/`, `profiles/`), or one `<app>/`
/// folder. Native only (the page passes file contents to `add_file`).
#[cfg(not(target_arch = "wasm32"))]
pub fn read_dir(dir: &str) -> Result<ProfileSet> {
    use std::path::{Path, PathBuf};
    let root = Path::new(dir);
    if !root.is_dir() {
        return Err(Error::config(format!(
            "profile directory '{dir}' does not exist"
        )));
    }
    let list = |p: &Path| -> Result<Vec<PathBuf>> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(p)
            .map_err(|e| Error::input(p.display().to_string(), 0, "", format!("cannot list: {e}")))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        schedlab_core::sorting::sort(&mut v);
        Ok(v)
    };
    let mut app_dirs = Vec::new();
    let mut extra_dirs = Vec::new();
    let traces = root.join("traces");
    let base = if traces.is_dir() {
        traces
    } else {
        root.to_path_buf()
    };
    let has_csv = list(&base)?
        .iter()
        .any(|p| p.extension().is_some_and(|e| e == "csv"));
    if has_csv {
        app_dirs.push(base.clone());
    } else {
        for p in list(&base)? {
            if !p.is_dir() {
                continue;
            }
            match p.file_name().and_then(|n| n.to_str()) {
                Some("seed") | Some("profiles") => extra_dirs.push(p),
                _ => app_dirs.push(p),
            }
        }
    }
    for name in ["seed", "profiles"] {
        let p = root.join(name);
        if p.is_dir() && !extra_dirs.contains(&p) {
            extra_dirs.push(p);
        }
    }
    let mut set = ProfileSet::default();
    for d in app_dirs.iter().chain(extra_dirs.iter()) {
        for f in list(d)? {
            if f.extension().is_none_or(|e| e != "csv") {
                continue;
            }
            let path = f.display().to_string();
            let text = schedlab_core::textio::read_text(&path)?;
            set.add_file(&path, &text)?;
        }
    }
    if set.apps.is_empty() {
        return Err(Error::config(format!(
            "'{dir}' holds no profiles (expected <app>/placements[-TYPE].csv files)"
        )));
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_paths() {
        assert_eq!(
            classify("x/cifar10/placements.csv"),
            Some(FileKind::Placements {
                app: "cifar10".into(),
                label: "aws".into()
            })
        );
        assert_eq!(
            classify("cifar10/scalability-dgx-ext.csv"),
            Some(FileKind::Scalability {
                app: "cifar10".into(),
                label: "dgx-ext".into()
            })
        );
        assert_eq!(
            classify("a/bert/validation-384.csv"),
            Some(FileKind::Validation {
                app: "bert".into(),
                batch: 384
            })
        );
        assert_eq!(
            classify("seed/ncf.csv"),
            Some(FileKind::Seed { app: "ncf".into() })
        );
        assert_eq!(classify("bert/notes.txt"), None);
        assert_eq!(classify("bert/validation-x.csv"), None);
    }

    #[test]
    fn reads_each_file_kind_by_column_name() {
        let mut s = ProfileSet::default();
        s.add_file(
            "m/placements-rtx.csv",
            "local_bsz,step_time,sync_time,placement\n32,0.5,0.1,44\n64,0.9,0.1,404\n",
        )
        .unwrap();
        s.add_file(
            "m/scalability.csv",
            "num_nodes,num_replicas,local_bsz,step_time,sync_time\n6,24,32.0,1.0,0.5\n",
        )
        .unwrap();
        s.add_file(
            "m/validation-8.csv",
            "progress,iteration,metric,grad_sqr,grad_var\n10,10,0.1,1,2\n20,20,0.2,0,3\n",
        )
        .unwrap();
        s.add_file(
            "seed/m.csv",
            "gpu_type,local_bsz,placement,step_time,sync_time\nt4,4,1,0.2,0.001\n",
        )
        .unwrap();
        s.add_file("profiles/m.csv", "gpu_type,local_bsz\nrtx,64\n")
            .unwrap();
        let a = s.app("m").unwrap();
        let rtx = a.types.iter().find(|t| t.label == "rtx").unwrap();
        assert_eq!(rtx.placements.len(), 2);
        assert_eq!(
            (rtx.placements[0].nodes, rtx.placements[0].replicas),
            (2, 8)
        );
        // "404": the empty node is dropped.
        assert_eq!(
            (rtx.placements[1].nodes, rtx.placements[1].replicas),
            (2, 8)
        );
        assert_eq!(rtx.kind().unwrap().name(), "rtx");
        let aws = a.types.iter().find(|t| t.label == "aws").unwrap();
        assert_eq!(aws.kind().unwrap().name(), "t4");
        assert_eq!(aws.scalability[0].replicas, 24);
        assert_eq!(a.validation[0].0, 8);
        assert_eq!(a.seed[0].0, "t4");
        assert_eq!(a.max_local, vec![("rtx".to_string(), 64)]);
        assert_eq!(s.files, 5);
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let mut s = ProfileSet::default();
        let e = s
            .add_file(
                "d/m/placements.csv",
                "placement,local_bsz,step_time,sync_time\n4,32,0.1,0.01\n4x,32,0.1,0.01\n",
            )
            .unwrap_err();
        match e {
            Error::Input {
                file, line, field, ..
            } => {
                assert_eq!(file, "d/m/placements.csv");
                assert_eq!(line, 3);
                assert_eq!(field, "placement");
            }
            other => panic!("{other:?}"),
        }
        let e = s
            .add_file("m/scalability.csv", "num_nodes,local_bsz\n1,2\n")
            .unwrap_err();
        assert!(
            matches!(e, Error::Input { ref field, .. } if field == "num_replicas"),
            "{e:?}"
        );
        let e = s
            .add_file(
                "m/placements.csv",
                "placement,local_bsz,step_time,sync_time\n4,32,-1,0.01\n",
            )
            .unwrap_err();
        assert!(
            matches!(e, Error::Input { ref field, line: 2, .. } if field == "step_time"),
            "{e:?}"
        );
        let e = s
            .add_file(
                "m/validation-8.csv",
                "progress,grad_sqr,grad_var\n10,1,1\n5,1,1\n",
            )
            .unwrap_err();
        assert!(
            matches!(e, Error::Input { ref field, line: 3, .. } if field == "progress"),
            "{e:?}"
        );
    }
}
