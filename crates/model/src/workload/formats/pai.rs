//! Alibaba PAI 2020 (alibaba/clusterdata `cluster-trace-gpu-v2020`; Weng et
//! al., NSDI'22). The published CSVs have no header; the README names the
//! columns:
//! - `pai_task_table.csv`: job_name, task_name, inst_num, status,
//!   start_time, end_time, plan_cpu, plan_mem, plan_gpu, gpu_type
//!   (`plan_gpu` in percent of one GPU per instance; times in seconds);
//! - `pai_job_table.csv`: job_name, inst_id, user, status, start_time, end_time.
//!
//! The task table is the trace (it has the GPU requests); the job table,
//! given as the second (aux) file, adds the user as tenant, the job's own
//! submission time as arrival, and its status. A job's GPUs = ceil(sum over
//! tasks of inst_num x plan_gpu / 100); its run time = last task end - first
//! task start. `gpu_type` records where the task ran (not a constraint), so
//! it does not pin the job (reported).

use super::{for_each_record, Out, Raw};
use crate::workload::job::JobSpec;
use schedlab_core::error::{Error, Result};
use schedlab_core::textio::{csv_error, Columns, Row};
use std::collections::BTreeMap;

const TASK_COLUMNS: &[&str] = &[
    "job_name",
    "task_name",
    "inst_num",
    "status",
    "start_time",
    "end_time",
    "plan_cpu",
    "plan_mem",
    "plan_gpu",
    "gpu_type",
];
const JOB_COLUMNS: &[&str] = &[
    "job_name",
    "inst_id",
    "user",
    "status",
    "start_time",
    "end_time",
];

/// Statuses of work that has not ended.
const UNFINISHED: &[&str] = &["running", "waiting"];

/// A headerless-or-not CSV: returns the reader positioned on the first data
/// record and the columns (from the header row if it names `job_name`,
/// else the documented positional layout).
fn open<'a>(
    file: &str,
    text: &'a str,
    positional: &[&str],
) -> Result<(csv::Reader<&'a [u8]>, Columns)> {
    let builder = || {
        let mut b = csv::ReaderBuilder::new();
        b.comment(Some(b'#'))
            .trim(csv::Trim::All)
            .flexible(true)
            .has_headers(false);
        b
    };
    let mut probe = builder().from_reader(text.as_bytes());
    let mut first = csv::StringRecord::new();
    let has_header = match probe.read_record(&mut first) {
        Ok(true) => first.get(0).is_some_and(|c| {
            c.trim_start_matches('\u{feff}')
                .eq_ignore_ascii_case("job_name")
        }),
        Ok(false) => false,
        Err(e) => return Err(csv_error(file, &e)),
    };
    if has_header {
        let mut rdr = builder().has_headers(true).from_reader(text.as_bytes());
        let header = rdr.headers().map_err(|e| csv_error(file, &e))?.clone();
        Ok((rdr, Columns::new(&header)))
    } else {
        let header = csv::StringRecord::from(positional.to_vec());
        Ok((
            builder().from_reader(text.as_bytes()),
            Columns::new(&header),
        ))
    }
}

/// One job assembled from its tasks.
struct Agg {
    line: usize,
    start: f64,
    end: f64,
    gpu_pct: f64,
    incomplete: bool,
}

/// The job table's facts about a job.
struct JobRow {
    user: String,
    status: String,
    submit: Option<f64>,
}

pub(super) fn read(file: &str, text: &str, aux: Option<(&str, &str)>, out: &mut Out) -> Result<()> {
    out.shift_to_zero = true;
    let (mut rdr, cols) = open(file, text, TASK_COLUMNS)?;
    for need in ["job_name", "inst_num", "plan_gpu", "start_time", "end_time"] {
        if !cols.has(need) {
            return Err(Error::input(
                file,
                1,
                need,
                "column missing from the task table header",
            ));
        }
    }
    let mut order: Vec<String> = Vec::new();
    let mut jobs: BTreeMap<String, Agg> = BTreeMap::new();
    let mut types: BTreeMap<String, usize> = BTreeMap::new();
    for_each_record(file, &mut rdr, |line, rec| {
        let row = Row {
            file,
            line,
            cols: &cols,
            rec,
        };
        let name = row.required_text("job_name")?;
        let inst = row.f64_opt("inst_num")?.unwrap_or(1.0);
        let pct = row.f64_opt("plan_gpu")?.unwrap_or(0.0);
        if inst < 0.0 || pct < 0.0 {
            let field = if inst < 0.0 { "inst_num" } else { "plan_gpu" };
            return Err(row.error(field, "must not be negative"));
        }
        let start = row.f64_opt("start_time")?;
        let end = row.f64_opt("end_time")?;
        let unfinished = row
            .text("status")
            .is_some_and(|s| UNFINISHED.contains(&s.to_ascii_lowercase().as_str()));
        if pct > 0.0 {
            if let Some(t) = row.text("gpu_type") {
                *types.entry(t.to_string()).or_default() += 1;
            }
        }
        let agg = jobs.entry(name.to_string()).or_insert_with(|| {
            order.push(name.to_string());
            Agg {
                line,
                start: f64::INFINITY,
                end: f64::NEG_INFINITY,
                gpu_pct: 0.0,
                incomplete: false,
            }
        });
        agg.gpu_pct += inst * pct;
        match (start, end) {
            (Some(s), Some(e)) if !unfinished => {
                agg.start = agg.start.min(s);
                agg.end = agg.end.max(e);
            }
            _ => agg.incomplete = true,
        }
        Ok(())
    })?;

    let table = match aux {
        Some((jfile, jtext)) => Some(read_jobs(jfile, jtext)?),
        None => None,
    };
    let mut fractional = 0usize;
    let mut not_in_job_table = 0usize;
    for name in order {
        let Some(a) = jobs.remove(&name) else {
            continue;
        };
        let info = table.as_ref().and_then(|t| t.get(&name));
        if table.is_some() && info.is_none() {
            not_in_job_table += 1;
        }
        if let Some(j) = info {
            if UNFINISHED.contains(&j.status.to_ascii_lowercase().as_str()) {
                out.skip("job not finished (job status Running/Waiting)");
                continue;
            }
        }
        if a.gpu_pct <= 0.0 {
            out.skip("CPU-only job (plan_gpu = 0 in every task)");
            continue;
        }
        if a.incomplete {
            out.skip("a task without start or end time, or still running");
            continue;
        }
        let duration = a.end - a.start;
        if duration.is_nan() || duration <= 0.0 {
            out.skip("run time <= 0");
            continue;
        }
        let whole = (a.gpu_pct / 100.0 - 1e-9).ceil().max(1.0);
        if (a.gpu_pct / 100.0 - whole).abs() > 1e-9 {
            fractional += 1;
        }
        let gpus = if whole > u32::MAX as f64 {
            u32::MAX
        } else {
            whole as u32
        };
        let arrival = info.and_then(|j| j.submit).unwrap_or(a.start);
        let mut job = JobSpec::new(name.clone(), arrival, "", gpus).with_duration(duration);
        job.tenant = info.map(|j| j.user.clone()).unwrap_or_default();
        job.source_line = u32::try_from(a.line).unwrap_or(u32::MAX);
        out.raw.push(Raw {
            job,
            model: String::new(),
            key: name,
        });
    }
    if fractional > 0 {
        out.notes.push(format!(
            "{fractional} jobs request a fractional GPU total; rounded up to whole GPUs"
        ));
    }
    if not_in_job_table > 0 {
        out.notes.push(format!(
            "{not_in_job_table} jobs of the task table are missing from the job table; kept with task times"
        ));
    }
    if !types.is_empty() {
        let list: Vec<String> = types.iter().map(|(k, v)| format!("{k} x{v}")).collect();
        out.notes.push(format!(
            "GPU types the tasks ran on (not used as constraints): {}",
            list.join(", ")
        ));
    }
    Ok(())
}

/// Reads the job table into job_name -> facts.
fn read_jobs(file: &str, text: &str) -> Result<BTreeMap<String, JobRow>> {
    let (mut rdr, cols) = open(file, text, JOB_COLUMNS)?;
    if !cols.has("job_name") {
        return Err(Error::input(
            file,
            1,
            "job_name",
            "column missing from the job table header",
        ));
    }
    let mut map = BTreeMap::new();
    for_each_record(file, &mut rdr, |line, rec| {
        let row = Row {
            file,
            line,
            cols: &cols,
            rec,
        };
        let name = row.required_text("job_name")?;
        map.insert(
            name.to_string(),
            JobRow {
                user: row.text("user").unwrap_or("").to_string(),
                status: row.text("status").unwrap_or("").to_string(),
                submit: row.f64_opt("start_time")?,
            },
        );
        Ok(())
    })?;
    Ok(map)
}
