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

use super::{Out, Raw};
use crate::workload::job::JobSpec;
use schedlab_core::error::Result;
use schedlab_core::textio::CsvTable;
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

/// A headerless-or-not CSV: the header row if the first line names
/// `job_name`, else the documented positional layout.
fn open<'a>(file: &'a str, text: &'a str, positional: &[&str]) -> Result<CsvTable<'a>> {
    let probe = CsvTable::open(file, text)?;
    if probe.columns().has("job_name") {
        Ok(probe)
    } else {
        Ok(CsvTable::positional(file, text, positional))
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
    let mut table = open(file, text, TASK_COLUMNS)?;
    table.require(
        &["job_name", "inst_num", "plan_gpu", "start_time", "end_time"],
        "the task table",
    )?;
    let mut order: Vec<String> = Vec::new();
    let mut jobs: BTreeMap<String, Agg> = BTreeMap::new();
    let mut types: BTreeMap<String, usize> = BTreeMap::new();
    table.rows(|row| {
        let line = row.line;
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
    let mut table = open(file, text, JOB_COLUMNS)?;
    table.require(&["job_name"], "the job table")?;
    let mut map = BTreeMap::new();
    table.rows(|row| {
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
