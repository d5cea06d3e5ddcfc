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

/// Largest trace text accepted by default (a clear error instead of
/// exhausting memory; `textio::input_limit` is the limit in force).
pub const MAX_TRACE_BYTES: usize = schedlab_core::textio::MAX_INPUT_BYTES;

/// The engine's horizon: 100 years of simulated time. A job longer than
/// this alone, or arriving this long after the first, could never finish
/// within any run (`engine.max_days` goes up to the same horizon), and
/// times near 2^32 or 1e19 s are corrupt values, not workloads.
pub const HORIZON_S: f64 = 100.0 * 365.0 * 86_400.0;

/// Formats whose files are production logs: a repeated job id there is the
/// log's own (a resubmission), so it is counted and reported, not refused.
const LOG_FORMATS: &[Format] = &[Format::Philly, Format::Helios, Format::Alibaba, Format::Pai];

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
        schedlab_core::textio::check_size(file, text.len())?;
        if let Some((aux_file, aux_text)) = opts.aux {
            schedlab_core::textio::check_size(aux_file, aux_text.len())?;
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
    /// Errors name the file's own column (`num_replicas`, not `gpus`).
    fn finish(&mut self, file: &str) -> Result<()> {
        if self.jobs.is_empty() {
            return Err(Error::input(file, 0, "", "the trace has no jobs"));
        }
        let format = Format::by_name(&self.format);
        let first = self
            .jobs
            .iter()
            .map(|j| j.arrival)
            .fold(f64::INFINITY, f64::min);
        for (i, j) in self.jobs.iter().enumerate() {
            check_job(file, format, i, j, first)?;
        }
        self.check_names(file, format)?;
        schedlab_core::sorting::sort_by(&mut self.jobs, |a, b| a.arrival.total_cmp(&b.arrival));
        for (i, j) in self.jobs.iter_mut().enumerate() {
            j.id = i as u32;
        }
        Ok(())
    }

    /// Refuses two jobs of one name (results are reported by name), except
    /// in production logs, where repeats are counted in a note.
    fn check_names(&mut self, file: &str, format: Option<Format>) -> Result<()> {
        let mut seen: std::collections::HashMap<&str, u32> =
            std::collections::HashMap::with_capacity(self.jobs.len());
        let mut repeats = 0usize;
        let mut first_repeat = None;
        for j in &self.jobs {
            if let Some(line) = seen.insert(j.name.as_str(), j.source_line) {
                repeats += 1;
                first_repeat.get_or_insert((j, line));
            }
        }
        let Some((j, earlier)) = first_repeat else {
            return Ok(());
        };
        if format.is_some_and(|f| LOG_FORMATS.contains(&f)) {
            self.notes.push(format!(
                "{repeats} jobs repeat an earlier job's id (the log's resubmissions); each is run as its own job"
            ));
            return Ok(());
        }
        let column = format.map_or("name", |f| f.column("name"));
        let earlier = if earlier > 0 {
            format!(" (first on line {earlier})")
        } else {
            String::new()
        };
        Err(Error::input(
            file,
            j.source_line as usize,
            column,
            format!(
                "job '{}' is named twice{earlier}; {repeats} repeated name{} in all: give every job its own name",
                schedlab_core::textio::clip(&j.name),
                if repeats > 1 { "s" } else { "" }
            ),
        ))
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

/// Checks one job's values (`i` its position in the file, `first` the
/// earliest arrival), naming the file's column for the field at fault.
fn check_job(file: &str, format: Option<Format>, i: usize, j: &JobSpec, first: f64) -> Result<()> {
    let line = j.source_line as usize;
    let err = |field: &str, msg: String| {
        let what = if line == 0 {
            format!(
                "job {i} ('{}'): {msg}",
                schedlab_core::textio::clip(&j.name)
            )
        } else {
            msg
        };
        let column = format.map_or(field, |f| f.column(field));
        Error::input(file, line, column, what)
    };
    let years = |s: f64| s / (365.0 * 86_400.0);
    if !j.arrival.is_finite() || j.arrival < 0.0 {
        return Err(err(
            "arrival",
            format!("arrival time {} is negative", j.arrival),
        ));
    }
    if j.arrival - first > HORIZON_S {
        return Err(err(
            "arrival",
            format!(
                "arrival {:e} s is {:.0} years after the first job's: beyond the engine's horizon of {:.0} years",
                j.arrival,
                years(j.arrival - first),
                years(HORIZON_S)
            ),
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
    if j.max_gpus > 0 && j.gpus > j.max_gpus {
        return Err(err(
            "gpus",
            format!(
                "the request of {} GPUs exceeds max_gpus {}",
                j.gpus, j.max_gpus
            ),
        ));
    }
    if j.min_gpus > 0 && j.gpus < j.min_gpus {
        return Err(err(
            "gpus",
            format!(
                "the request of {} GPUs is below min_gpus {}",
                j.gpus, j.min_gpus
            ),
        ));
    }
    if j.max_batch_size > 0 && j.batch_size > j.max_batch_size {
        return Err(err(
            "batch_size",
            format!(
                "batch size {} exceeds max_batch_size {}",
                j.batch_size, j.max_batch_size
            ),
        ));
    }
    if let Some(d) = j.duration {
        if !(d > 0.0 && d.is_finite()) {
            return Err(err("duration", format!("duration {d} must be positive")));
        }
        if d > HORIZON_S {
            return Err(err(
                "duration",
                format!(
                    "duration {d:e} s is {:.3e} years: beyond the engine's horizon of {:.0} years",
                    years(d),
                    years(HORIZON_S)
                ),
            ));
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
    Ok(())
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
