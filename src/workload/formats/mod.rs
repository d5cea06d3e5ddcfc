//! Trace file formats. Each importer turns its format into `JobSpec`s; the
//! format is chosen by the header unless the user names it.
//! Column mappings are documented in `docs/TRACE_FORMAT.md`.

mod duration;
mod native;
mod pollux;

pub use native::write_native;
pub use pollux::write_pollux;

use super::csvrow::{csv_error, reader, Columns};
use super::job::JobSpec;
use crate::error::{Error, Result};

/// A supported trace format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// schedlab's own CSV (`name,arrival,model,gpus,...`).
    Native,
    /// Pollux/Sia workloads (`name,time,application,num_replicas,batch_size`).
    Pollux,
    /// Duration-based (`job_id,num_gpus,submit_time,duration[,model,...]`), e.g. Blox.
    Duration,
}

impl Format {
    pub const ALL: &'static [(Format, &'static str, &'static str)] = &[
        (
            Format::Native,
            "native",
            "schedlab CSV: name,arrival,model,gpus,... (docs/TRACE_FORMAT.md)",
        ),
        (
            Format::Pollux,
            "pollux",
            "Pollux/Sia workload CSV: name,time,application,num_replicas,batch_size",
        ),
        (
            Format::Duration,
            "duration",
            "duration-based CSV: job_id,num_gpus,submit_time,duration[,model,batch_size]",
        ),
    ];

    pub fn by_name(name: &str) -> Option<Format> {
        Self::ALL
            .iter()
            .find(|(_, n, _)| *n == name)
            .map(|(f, _, _)| *f)
    }

    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(f, _, _)| *f == self)
            .map(|(_, n, _)| *n)
            .unwrap_or("?")
    }

    /// Chooses the format from the header's column names.
    pub fn detect(cols: &Columns) -> Option<Format> {
        if cols.has_all(&["arrival", "gpus"]) {
            Some(Format::Native)
        } else if cols.has_all(&["name", "time", "application", "num_replicas", "batch_size"]) {
            Some(Format::Pollux)
        } else if cols.has_all(&["job_id", "num_gpus", "submit_time", "duration"]) {
            Some(Format::Duration)
        } else {
            None
        }
    }
}

/// What an importer produced: the jobs and how many rows it skipped on purpose.
pub struct Imported {
    pub jobs: Vec<JobSpec>,
    pub format: Format,
    pub skipped: usize,
    pub notes: Vec<String>,
}

/// Parses trace text in the given (or detected) format.
pub fn import(file: &str, text: &str, format: Option<Format>) -> Result<Imported> {
    let mut rdr = reader(text);
    let header = rdr.headers().map_err(|e| csv_error(file, &e))?.clone();
    let cols = Columns::new(&header);
    let format = match format {
        Some(f) => f,
        None => Format::detect(&cols).ok_or_else(|| {
            Error::input(
                file,
                1,
                "",
                format!(
                    "unrecognised trace header '{}'; expected one of: {}",
                    cols.names().join(","),
                    Format::ALL
                        .iter()
                        .map(|(_, _, d)| *d)
                        .collect::<Vec<_>>()
                        .join(" | ")
                ),
            )
        })?,
    };
    match format {
        Format::Native => native::read(file, &mut rdr, &cols),
        Format::Pollux => pollux::read(file, &mut rdr, &cols),
        Format::Duration => duration::read(file, &mut rdr, &cols),
    }
    .map(|(jobs, skipped, notes)| Imported {
        jobs,
        format,
        skipped,
        notes,
    })
}

/// Iterates records with their 1-based line numbers.
pub(crate) fn for_each_record(
    file: &str,
    rdr: &mut csv::Reader<&[u8]>,
    mut f: impl FnMut(usize, &csv::StringRecord) -> Result<()>,
) -> Result<()> {
    let mut rec = csv::StringRecord::new();
    loop {
        match rdr.read_record(&mut rec) {
            Ok(false) => return Ok(()),
            Ok(true) => {
                let line = rec.position().map_or(0, |p| p.line() as usize);
                if rec.iter().all(|c| c.trim().is_empty()) {
                    continue;
                }
                f(line, &rec)?;
            }
            Err(e) => return Err(csv_error(file, &e)),
        }
    }
}
