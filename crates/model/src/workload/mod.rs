//! Workloads: `JobSpec`, traces, importers, generators and bundled traces.

mod bundled;
pub mod fill;
pub mod formats;
pub mod gen;
mod job;
mod timestamp;
pub mod tune;

pub use bundled::{bundled_trace, bundled_traces, BundledTrace};
pub use fill::Fill;
pub use formats::{write_native, write_pollux, Format, ImportOptions};
pub use job::{Adaptivity, JobSpec};

use crate::cluster::Pools;
use schedlab_core::error::{Error, Result};
use serde::Serialize;

/// Largest trace text accepted (a clear error instead of exhausting memory).
pub const MAX_TRACE_BYTES: usize = schedlab_core::textio::MAX_INPUT_BYTES;

/// A list of jobs sorted by arrival, with where they came from.
#[derive(Debug, Clone, Serialize)]
pub struct Trace {
    pub name: String,
    pub format: String,
    pub jobs: Vec<JobSpec>,
    /// Rows the importer skipped on purpose (counted, reported).
    pub skipped: usize,
    pub notes: Vec<String>,
    /// Pools (tenants with GPU quotas) the trace declares in a
    /// `# pools: NAME=GPUS,...` comment line; empty when it declares none.
    /// `--pools` overrides them.
    #[serde(skip_serializing_if = "Pools::is_empty")]
    pub pools: Pools,
}

impl Trace {
    /// Parses trace text; `file` names it in error messages.
    pub fn parse(file: &str, text: &str, format: Option<Format>) -> Result<Trace> {
        Trace::parse_with(
            file,
            text,
            &ImportOptions {
                format,
                ..ImportOptions::default()
            },
        )
    }

    /// Parses trace text with explicit import options (format, fill rule,
    /// second table).
    pub fn parse_with(file: &str, text: &str, opts: &ImportOptions) -> Result<Trace> {
        let aux_len = opts.aux.map_or(0, |(_, t)| t.len());
        if text.len() > MAX_TRACE_BYTES || aux_len > MAX_TRACE_BYTES {
            return Err(Error::input(
                file,
                0,
                "",
                format!(
                    "file is {} MB; the limit is {} MB",
                    text.len() >> 20,
                    MAX_TRACE_BYTES >> 20
                ),
            ));
        }
        let imported = formats::import(file, text, opts)?;
        let mut trace = Trace {
            name: file.to_string(),
            format: imported.format.name().to_string(),
            jobs: imported.jobs,
            skipped: imported.skipped,
            notes: imported.notes,
            pools: pools_directive(file, text)?,
        };
        trace.finish(file)?;
        Ok(trace)
    }

    /// Builds a trace from jobs made in code (generators, tests).
    pub fn from_jobs(name: &str, jobs: Vec<JobSpec>) -> Result<Trace> {
        let mut trace = Trace {
            name: name.to_string(),
            format: "generated".into(),
            jobs,
            skipped: 0,
            notes: Vec::new(),
            pools: Pools::default(),
        };
        trace.finish(name)?;
        Ok(trace)
    }

    /// Validates every job, sorts by arrival (stable) and numbers them.
    fn finish(&mut self, file: &str) -> Result<()> {
        if self.jobs.is_empty() {
            return Err(Error::input(file, 0, "", "the trace has no jobs"));
        }
        for (i, j) in self.jobs.iter().enumerate() {
            let line = if j.source_line > 0 {
                j.source_line as usize
            } else {
                0
            };
            let err = |field: &str, msg: String| {
                let what = if line == 0 {
                    format!("job {} ('{}'): {msg}", i, j.name)
                } else {
                    msg
                };
                Error::input(file, line, field, what)
            };
            if !j.arrival.is_finite() || j.arrival < 0.0 {
                return Err(err(
                    "arrival",
                    format!("arrival time {} is negative", j.arrival),
                ));
            }
            if j.gpus == 0 {
                return Err(err("gpus", "a job must request at least one GPU".into()));
            }
            if j.max_gpus > 0 && j.min_gpus > j.max_gpus {
                return Err(err(
                    "min_gpus",
                    format!("min_gpus {} exceeds max_gpus {}", j.min_gpus, j.max_gpus),
                ));
            }
            if let Some(d) = j.duration {
                if !(d > 0.0 && d.is_finite()) {
                    return Err(err("duration", format!("duration {d} must be positive")));
                }
            }
            if let Some(w) = j.work {
                if !(w > 0.0 && w.is_finite()) {
                    return Err(err("work", format!("work {w} must be positive")));
                }
            }
            if !(j.weight > 0.0 && j.weight.is_finite()) {
                return Err(err(
                    "weight",
                    format!("weight {} must be positive", j.weight),
                ));
            }
            if let Some(m) = j.mem_gb {
                if !(m > 0.0 && m.is_finite()) {
                    return Err(err(
                        "mem_gb",
                        format!("memory need {m} GB must be positive"),
                    ));
                }
            }
            if let Some(d) = j.due {
                if !d.is_finite() {
                    return Err(err("due", "due date must be finite".into()));
                }
                if d < j.arrival {
                    return Err(err(
                        "due",
                        format!("due date {d} is before the job's arrival {}", j.arrival),
                    ));
                }
            }
        }
        schedlab_core::sorting::sort_by(&mut self.jobs, |a, b| a.arrival.total_cmp(&b.arrival));
        for (i, j) in self.jobs.iter_mut().enumerate() {
            j.id = i as u32;
        }
        Ok(())
    }

    /// The jobs of one tenant (all when None), the first `max_jobs` by
    /// arrival, shifted so the first arrives at 0: one virtual cluster of a
    /// production trace (AFS's Philly VCs, sweeps' `tenants`).
    pub fn subset(&self, name: &str, tenant: Option<&str>, max_jobs: usize) -> Result<Trace> {
        let mut jobs: Vec<JobSpec> = self
            .jobs
            .iter()
            .filter(|j| tenant.is_none_or(|t| j.tenant == t))
            .take(max_jobs)
            .cloned()
            .collect();
        let Some(first) = jobs.first().map(|j| j.arrival) else {
            return Err(Error::input(
                &self.name,
                0,
                "tenant",
                format!("no job of tenant '{}' in the trace", tenant.unwrap_or("")),
            ));
        };
        for j in &mut jobs {
            j.arrival -= first;
        }
        let mut t = Trace::from_jobs(name, jobs)?;
        t.format = self.format.clone();
        Ok(t)
    }

    /// Total GPU-seconds requested (for offered-load reports).
    pub fn span(&self) -> f64 {
        let first = self.jobs.first().map_or(0.0, |j| j.arrival);
        let last = self.jobs.last().map_or(0.0, |j| j.arrival);
        last - first
    }
}

/// Loads a trace by bundled name or from text (the CLI reads the file).
pub fn load_named(name: &str) -> Option<Result<Trace>> {
    bundled_trace(name).map(|b| {
        let mut t = Trace::parse(b.file, &b.text()?, None)?;
        t.name = b.name.to_string();
        Ok(t)
    })
}

/// The comment line that declares a trace's pools.
pub const POOLS_DIRECTIVE: &str = "pools:";

/// Reads the pools a trace declares in a comment line `# pools: a=8,b=16`
/// (before the first data line), so that a trace of pooled jobs carries its
/// quotas wherever it goes (the page, the CLI without `--pools`).
fn pools_directive(file: &str, text: &str) -> Result<Pools> {
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_start_matches('\u{feff}').trim();
        let Some(comment) = line.strip_prefix('#') else {
            if line.is_empty() {
                continue;
            }
            break;
        };
        if let Some(list) = comment.trim().strip_prefix(POOLS_DIRECTIVE) {
            return Pools::parse_list(list)
                .map_err(|e| Error::input(file, i + 1, "pools", e.to_string()));
        }
    }
    Ok(Pools::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pollux_format_is_detected() {
        let t = Trace::parse(
            "w.csv",
            "name,time,application,num_replicas,batch_size\nb,20,bert,2,12\na,10,cifar10,4,128\n",
            None,
        )
        .unwrap();
        assert_eq!(t.format, "pollux");
        assert_eq!(t.jobs[0].name, "a");
        assert_eq!(t.jobs[0].id, 0);
        assert_eq!(t.jobs[1].batch_size, 12);
    }

    #[test]
    fn duration_format_is_detected() {
        let t = Trace::parse("b.csv", "job_id,num_gpus,submit_time,duration,model,batch_size\n1,2,5,100,resnet50,64\n2,1,6,0,resnet50,64\n", None).unwrap();
        assert_eq!(t.format, "blox");
        assert_eq!(t.jobs.len(), 1);
        assert_eq!(t.skipped, 1);
        assert_eq!(t.jobs[0].duration, Some(100.0));
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let text = "name,arrival,model,gpus,duration\na,0,linear,1,10\nb,x1,linear,1,10\n";
        let e = Trace::parse("t.csv", text, None).unwrap_err().to_string();
        assert!(e.contains("t.csv: line 3, field 'arrival'"), "{e}");
        let e = Trace::parse(
            "t.csv",
            "name,arrival,model,gpus,duration\na,0,linear,0,10\n",
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("line 2, field 'gpus'"), "{e}");
        let e = Trace::parse(
            "t.csv",
            "name,arrival,model,gpus,duration\na,-5,linear,1,10\n",
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("negative"), "{e}");
        let e = Trace::parse("t.csv", "name,arrival,model,gpus,duration\n", None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no jobs"), "{e}");
        let e = Trace::parse("t.csv", "foo,bar\n1,2\n", None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unrecognised trace header"), "{e}");
        let e = Trace::parse(
            "t.csv",
            "name,arrival,model,gpus\na,0,linear,1,5,6\n\"b,1",
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("t.csv"), "{e}");
    }

    #[test]
    fn native_round_trip() {
        let mut j = JobSpec::new("x", 3.5, "afs/vgg16", 4).with_duration(100.0);
        j.tenant = "vc1".into();
        j.due = Some(500.0);
        j.adaptivity = Adaptivity::Rigid;
        let text = write_native(&[j.clone()], "test trace\nseed 1");
        let t = Trace::parse("rt.csv", &text, None).unwrap();
        let mut back = t.jobs[0].clone();
        back.source_line = 0;
        assert_eq!(back, j);
    }
}
