//! Trace file formats. Each importer turns its format into `JobSpec`s; the
//! format is chosen from the text (JSON, tab-separated, CSV header) unless
//! the user names it. Column mappings, fill rules and skip rules are
//! documented per format in `docs/TRACE_FORMAT.md`.

mod alibaba;
mod copter;
mod duration;
mod gavel;
mod helios;
mod native;
mod pai;
mod pcs;
mod philly;
mod philly_csv;
mod pollux;
mod tiresias;

pub use native::write_native;
pub use pollux::write_pollux;

use super::fill::{self, Fill, FillReport};
use super::job::JobSpec;
use schedlab_core::error::{Error, Result};
use schedlab_core::textio::{clip, Columns, CsvTable};
use std::collections::BTreeMap;

/// A supported trace format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// schedlab's own CSV (`name,arrival,model,gpus,...`).
    Native,
    /// Pollux/Sia workloads (`name,time,application,num_replicas,batch_size`).
    Pollux,
    /// Blox / duration-based CSV (`job_id,num_gpus,submit_time,duration[,model,batch_size]`).
    Duration,
    /// Microsoft Philly `cluster_job_log` JSON.
    Philly,
    /// SenseTime Helios `cluster_log.csv`.
    Helios,
    /// Alibaba PAI 2020 task table (optionally joined with the job table).
    Pai,
    /// Alibaba GPU 2023 (`openb_pod_list_*.csv`).
    Alibaba,
    /// Gavel trace TSV (`scheduler/traces/*.trace`).
    Gavel,
    /// The Pollux authors' Philly job list (`timestamp,duration,num_gpus,gpu_time,cluster`).
    PhillyCsv,
    /// Tiresias simulator CSV (`job_id,num_gpu,submit_time,iterations,model_name,duration,interval`).
    Tiresias,
    /// PCS artifact traces (`app_id,submit_time,service,num_jobs,sleep_time,model_name`).
    Pcs,
    /// COpter simulator workloads (`name,time,category,application`).
    Copter,
}

impl Format {
    pub const ALL: &'static [(Format, &'static str, &'static str)] = &[
        (
            Format::Native,
            "native",
            schedlab_core::prose::doc("schedlab CSV: name,arrival,model,gpus,... (docs/TRACE_FORMAT.md)"),
        ),
        (
            Format::Pollux,
            "pollux",
            schedlab_core::prose::doc("Pollux/Sia workload CSV: name,time,application,num_replicas,batch_size"),
        ),
        (
            Format::Duration,
            "blox",
            schedlab_core::prose::doc("Blox / duration-based CSV: job_id,num_gpus,submit_time,duration[,model,batch_size] (alias: duration)"),
        ),
        (
            Format::Philly,
            "philly",
            schedlab_core::prose::doc("Microsoft Philly cluster_job_log JSON (status, vc, jobid, submitted_time, attempts[])"),
        ),
        (
            Format::PhillyCsv,
            "philly-csv",
            schedlab_core::prose::doc("Pollux artifact's Philly job list CSV: timestamp,duration,num_gpus,gpu_time,cluster (cluster = virtual-cluster id)"),
        ),
        (
            Format::Helios,
            "helios",
            schedlab_core::prose::doc("SenseTime Helios cluster_log.csv: job_id,user,vc,gpu_num,...,state,submit_time,...,duration"),
        ),
        (
            Format::Pai,
            "pai",
            schedlab_core::prose::doc("Alibaba PAI 2020 pai_task_table.csv (header optional); the job table joins via the aux file"),
        ),
        (
            Format::Alibaba,
            "alibaba-2023",
            schedlab_core::prose::doc("Alibaba GPU 2023 pod list: name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,...,creation_time,deletion_time,scheduled_time"),
        ),
        (
            Format::Gavel,
            "gavel",
            schedlab_core::prose::doc("Gavel trace TSV: job_type, command, dir, steps_arg, needs_data, total_steps, scale_factor, priority, SLO, arrival"),
        ),
        (
            Format::Tiresias,
            "tiresias",
            schedlab_core::prose::doc("Tiresias simulator CSV: job_id,num_gpu,submit_time,iterations,model_name,duration,interval"),
        ),
        (
            Format::Pcs,
            "pcs",
            schedlab_core::prose::doc("PCS artifact trace CSV: app_id,submit_time,service,num_jobs[,sleep_time,model_name] (service = 1-GPU seconds, num_jobs = GPU demand)"),
        ),
        (
            Format::Copter,
            "copter",
            schedlab_core::prose::doc("COpter workload CSV: name,time,category,application (category = SiaJob, BatchInferenceJob or SyntheticSinglePhaseJob)"),
        ),
    ];

    pub fn by_name(name: &str) -> Option<Format> {
        let key = name.trim().to_ascii_lowercase();
        let key = match key.as_str() {
            "duration" => "blox",
            "alibaba" | "alibaba2023" | "alibaba-gpu-2023" => "alibaba-2023",
            "pai-2020" | "pai2020" => "pai",
            other => other,
        };
        Self::ALL
            .iter()
            .find(|(_, n, _)| *n == key)
            .map(|(f, _, _)| *f)
    }

    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(f, _, _)| *f == self)
            .map(|(_, n, _)| *n)
            .unwrap_or("?")
    }

    /// The fill rule used when the user names none (None: the format gives
    /// models itself and takes no fill rule).
    pub fn default_fill(self) -> Option<Fill> {
        match self {
            Format::Native | Format::Pollux | Format::Gavel | Format::Pcs | Format::Copter => None,
            _ => Some(Fill::Afs),
        }
    }

    /// The columns that identify each CSV format, in the order they are
    /// tried (the first whose columns are all present wins).
    const SIGNATURES: &'static [(Format, &'static [&'static str])] = &[
        (Format::Native, &["arrival", "gpus"]),
        (
            Format::Pcs,
            &["app_id", "submit_time", "service", "num_jobs"],
        ),
        (Format::Copter, &["name", "time", "category", "application"]),
        (
            Format::Pollux,
            &["name", "time", "application", "num_replicas", "batch_size"],
        ),
        (
            Format::Duration,
            &["job_id", "num_gpus", "submit_time", "duration"],
        ),
        (
            Format::Tiresias,
            &["job_id", "num_gpu", "submit_time", "duration"],
        ),
        (
            Format::PhillyCsv,
            &["timestamp", "duration", "num_gpus", "cluster"],
        ),
        (
            Format::Helios,
            &["job_id", "gpu_num", "submit_time", "duration"],
        ),
        (
            Format::Pai,
            &["job_name", "task_name", "inst_num", "plan_gpu"],
        ),
        (
            Format::Alibaba,
            &["num_gpu", "gpu_milli", "creation_time", "deletion_time"],
        ),
    ];

    /// Chooses a CSV format from the header's column names.
    pub fn detect(cols: &Columns) -> Option<Format> {
        Self::SIGNATURES
            .iter()
            .filter(|(f, need)| {
                // A COpter workload never has Pollux's replica counts.
                cols.has_all(need) && !(*f == Format::Copter && cols.has("num_replicas"))
            })
            .map(|(f, _)| *f)
            .next()
    }

    /// For a header no format matches: the (at most two) formats sharing
    /// the most columns with it, each with the columns it lacks.
    pub fn closest(cols: &Columns) -> String {
        let mut scored: Vec<(usize, Format, Vec<&str>)> = Self::SIGNATURES
            .iter()
            .map(|(f, need)| {
                let missing: Vec<&str> = need.iter().copied().filter(|n| !cols.has(n)).collect();
                (need.len() - missing.len(), *f, missing)
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.2.len().cmp(&b.2.len())));
        let near: Vec<String> = scored
            .iter()
            .filter(|(shared, _, _)| *shared > 0)
            .take(2)
            .map(|(_, f, missing)| format!("'{}' (lacks {})", f.name(), missing.join(", ")))
            .collect();
        if near.is_empty() {
            "no format shares a column with it; see `schedlab list formats`".into()
        } else {
            format!(
                "closest: {}; see `schedlab list formats` or name one with --trace-format",
                near.join(", ")
            )
        }
    }

    /// The file's own name for a job field, for checks made after import
    /// (`gpus` is `num_replicas` in a Pollux workload).
    pub fn column(self, field: &str) -> &'static str {
        use Format::*;
        let map: &[(&str, &'static str)] = match self {
            Native => &[],
            Pollux => &[
                ("arrival", "time"),
                ("gpus", "num_replicas"),
                ("model", "application"),
            ],
            Duration => &[
                ("arrival", "submit_time"),
                ("gpus", "num_gpus"),
                ("name", "job_id"),
            ],
            Tiresias => &[
                ("arrival", "submit_time"),
                ("gpus", "num_gpu"),
                ("model", "model_name"),
                ("name", "job_id"),
            ],
            PhillyCsv => &[
                ("arrival", "timestamp"),
                ("gpus", "num_gpus"),
                ("tenant", "cluster"),
            ],
            Helios => &[
                ("arrival", "submit_time"),
                ("gpus", "gpu_num"),
                ("name", "job_id"),
                ("tenant", "vc"),
            ],
            Pai => &[
                ("arrival", "start_time"),
                ("gpus", "plan_gpu"),
                ("name", "job_name"),
                ("tenant", "user"),
                ("duration", "end_time"),
            ],
            Alibaba => &[
                ("arrival", "creation_time"),
                ("gpus", "num_gpu"),
                ("duration", "deletion_time"),
                ("gpu_type", "gpu_spec"),
                ("tenant", "qos"),
            ],
            Gavel => &[
                ("arrival", "arrival_time"),
                ("gpus", "scale_factor"),
                ("work", "total_steps"),
                ("weight", "priority_weight"),
                ("model", "job_type"),
            ],
            Pcs => &[
                ("arrival", "submit_time"),
                ("gpus", "num_jobs"),
                ("work", "service"),
                ("model", "model_name"),
                ("name", "app_id"),
            ],
            Copter => &[("arrival", "time"), ("model", "application")],
            Philly => &[
                ("arrival", "submitted_time"),
                ("gpus", "attempts.detail.gpus"),
                ("duration", "attempts"),
                ("name", "jobid"),
                ("tenant", "vc"),
            ],
        };
        map.iter()
            .find(|(f, _)| *f == field)
            .map(|(_, c)| *c)
            .unwrap_or_else(|| native_column(field))
    }

    /// Chooses the format from the text: JSON (Philly), tab-separated
    /// (Gavel), or a CSV header.
    fn sniff(text: &str) -> Option<Format> {
        let first = text
            .lines()
            .map(|l| l.trim_start_matches('\u{feff}').trim())
            .find(|l| !l.is_empty() && !l.starts_with('#'))?;
        if first.starts_with('[') || first.starts_with('{') {
            Some(Format::Philly)
        } else if first.split('\t').count() >= 10 {
            Some(Format::Gavel)
        } else {
            None
        }
    }
}

/// How to import a trace.
#[derive(Debug, Clone, Copy, Default)]
pub struct ImportOptions<'a> {
    /// The format; detected from the text when None.
    pub format: Option<Format>,
    /// The fill rule for formats without models; the format's default when None.
    pub fill: Option<Fill>,
    /// A second table (file name, text) for formats that come in two files
    /// (PAI 2020: `pai_job_table.csv`).
    pub aux: Option<(&'a str, &'a str)>,
}

/// What an importer produced: the jobs and how many rows it skipped on purpose.
pub struct Imported {
    pub jobs: Vec<JobSpec>,
    pub format: Format,
    pub skipped: usize,
    pub notes: Vec<String>,
}

/// Parses trace text in the given (or detected) format.
pub fn import(file: &str, text: &str, opts: &ImportOptions) -> Result<Imported> {
    let format = match opts.format {
        Some(f) => f,
        None => match Format::sniff(text) {
            Some(f) => f,
            None => {
                let table = CsvTable::open(file, text)?;
                let cols = table.columns();
                Format::detect(cols).ok_or_else(|| {
                    Error::input(
                        file,
                        table.header_line(),
                        "",
                        format!(
                            "unrecognised trace header '{}'; {}",
                            clip(&cols.names().join(",")),
                            Format::closest(cols)
                        ),
                    )
                })?
            }
        },
    };
    let fill = match (format.default_fill(), opts.fill) {
        (None, Some(f)) => {
            return Err(Error::config(format!(
                "fill rule '{}' does not apply: format '{}' names each job's model",
                f.name(),
                format.name()
            )))
        }
        (d, f) => f.or(d).unwrap_or(Fill::Afs),
    };
    if opts.aux.is_some() && format != Format::Pai {
        return Err(Error::config(format!(
            "format '{}' reads one file; only 'pai' takes a second table",
            format.name()
        )));
    }
    let mut out = Out::default();
    match format {
        Format::Philly => philly::read(file, text, &mut out)?,
        Format::Gavel => gavel::read(file, text, &mut out)?,
        Format::Pai => pai::read(file, text, opts.aux, &mut out)?,
        _ => {
            let mut table = CsvTable::open(file, text)?;
            let t = &mut table;
            match format {
                Format::Native => native::read(t, &mut out)?,
                Format::Pollux => pollux::read(t, &mut out)?,
                Format::Duration => duration::read(t, &mut out)?,
                Format::Helios => helios::read(t, &mut out)?,
                Format::PhillyCsv => philly_csv::read(t, &mut out)?,
                Format::Alibaba => alibaba::read(t, &mut out)?,
                Format::Tiresias => tiresias::read(t, &mut out)?,
                Format::Pcs => pcs::read(t, &mut out)?,
                Format::Copter => copter::read(t, &mut out)?,
                Format::Philly | Format::Gavel | Format::Pai => unreachable_format(format)?,
            }
        }
    }
    Ok(out.finish(format, fill))
}

fn unreachable_format(format: Format) -> Result<()> {
    Err(Error::Internal(format!(
        "format {} is not a plain CSV format",
        format.name()
    )))
}

/// A job read from a duration-only trace, before the fill rule runs.
pub(crate) struct Raw {
    pub job: JobSpec,
    /// Model name the trace gives (may be empty).
    pub model: String,
    /// Stable identity of the row (seeds the fill draws).
    pub key: String,
}

/// What importers accumulate: complete jobs, raw jobs awaiting the fill
/// rule, skip counts by reason and notes.
#[derive(Default)]
pub(crate) struct Out {
    pub jobs: Vec<JobSpec>,
    pub raw: Vec<Raw>,
    pub skips: BTreeMap<&'static str, usize>,
    pub notes: Vec<String>,
    /// Shift arrivals so the first job arrives at 0 (production traces
    /// with absolute timestamps; AFS §4.3).
    pub shift_to_zero: bool,
}

impl Out {
    /// Counts a row skipped on purpose.
    pub fn skip(&mut self, reason: &'static str) {
        *self.skips.entry(reason).or_default() += 1;
    }

    fn finish(mut self, format: Format, fill: Fill) -> Imported {
        let mut report = FillReport::default();
        let mut dropped = 0;
        for mut r in std::mem::take(&mut self.raw) {
            let mut rng = fill::row_sampler(format.name(), &r.key);
            if fill::apply(fill, &mut r.job, &r.model, &mut rng, &mut report) {
                self.jobs.push(r.job);
            } else {
                dropped += 1;
            }
        }
        if self.shift_to_zero {
            let first = self
                .jobs
                .iter()
                .map(|j| j.arrival)
                .fold(f64::INFINITY, f64::min);
            if first.is_finite() && first != 0.0 {
                for j in &mut self.jobs {
                    j.arrival -= first;
                }
                self.notes.push(format!(
                    "arrivals shifted back by {first} s (the first submission) so the first job arrives at 0"
                ));
            }
        }
        let mut skipped = dropped;
        let mut notes = Vec::new();
        for (reason, n) in &self.skips {
            skipped += n;
            notes.push(format!("{n} rows skipped: {reason}"));
        }
        notes.append(&mut self.notes);
        if format.default_fill().is_some() {
            notes.extend(report.notes(fill));
        }
        Imported {
            jobs: self.jobs,
            format,
            skipped,
            notes,
        }
    }
}

/// A job field's column in the native format (the field's own name).
fn native_column(field: &str) -> &'static str {
    native::NATIVE_COLUMNS
        .iter()
        .find(|c| **c == field)
        .copied()
        .unwrap_or("")
}
