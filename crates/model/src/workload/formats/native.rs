//! schedlab's native CSV trace format (see `docs/TRACE_FORMAT.md`).

use super::Out;
use crate::workload::job::{Adaptivity, JobSpec};
use schedlab_core::error::Result;
use schedlab_core::textio::CsvTable;

/// Column order written by [`write_native`]; readers accept any order.
pub const NATIVE_COLUMNS: &[&str] = &[
    "name",
    "arrival",
    "tenant",
    "model",
    "gpus",
    "min_gpus",
    "max_gpus",
    "gpu_type",
    "batch_size",
    "max_batch_size",
    "work",
    "duration",
    "adaptivity",
    "preemptible",
    "due",
    "weight",
    "mem_gb",
];

pub(super) fn read(table: &mut CsvTable, out: &mut Out) -> Result<()> {
    let jobs = &mut out.jobs;
    table.rows(|row| {
        let line = row.line;
        let name = row
            .text("name")
            .map(str::to_string)
            .unwrap_or_else(|| format!("job-{}", jobs.len()));
        let mut job = JobSpec::new(
            name,
            row.f64("arrival")?,
            row.text("model").unwrap_or(""),
            row.u32("gpus")?,
        );
        job.tenant = row.text("tenant").unwrap_or("").to_string();
        job.min_gpus = row.positive_u32_opt("min_gpus")?.unwrap_or(0);
        job.max_gpus = row.positive_u32_opt("max_gpus")?.unwrap_or(0);
        job.gpu_type = row.text("gpu_type").map(str::to_string);
        job.batch_size = row.positive_u32_opt("batch_size")?.unwrap_or(0);
        job.max_batch_size = row.positive_u32_opt("max_batch_size")?.unwrap_or(0);
        job.work = row.f64_opt("work")?;
        job.duration = row.f64_opt("duration")?;
        if let Some(a) = row.text("adaptivity") {
            job.adaptivity = Adaptivity::parse(a).ok_or_else(|| {
                row.error(
                    "adaptivity",
                    format!("'{a}' is not rigid, strong-scaling or adaptive"),
                )
            })?;
        }
        job.preemptible = row.bool_opt("preemptible")?.unwrap_or(true);
        job.due = row.f64_opt("due")?;
        job.weight = row.f64_opt("weight")?.unwrap_or(1.0);
        job.mem_gb = row.f64_opt("mem_gb")?;
        job.source_line = line as u32;
        jobs.push(job);
        Ok(())
    })
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

fn nz(v: u32) -> String {
    if v == 0 {
        String::new()
    } else {
        v.to_string()
    }
}

/// Writes jobs in the native format (round-trips through the reader).
pub fn write_native(jobs: &[JobSpec], header_comment: &str) -> String {
    let mut out = String::new();
    for line in header_comment.lines() {
        out.push_str("# ");
        out.push_str(line);
        out.push('\n');
    }
    let mut w = schedlab_core::csvout::CsvOut::new();
    w.row(NATIVE_COLUMNS);
    for j in jobs {
        w.row([
            j.name.clone(),
            j.arrival.to_string(),
            j.tenant.clone(),
            j.model.clone(),
            j.gpus.to_string(),
            nz(j.min_gpus),
            nz(j.max_gpus),
            j.gpu_type.clone().unwrap_or_default(),
            nz(j.batch_size),
            nz(j.max_batch_size),
            opt(j.work),
            opt(j.duration),
            j.adaptivity.as_str().to_string(),
            j.preemptible.to_string(),
            opt(j.due),
            if j.weight == 1.0 {
                String::new()
            } else {
                j.weight.to_string()
            },
            opt(j.mem_gb),
        ]);
    }
    out.push_str(&w.finish());
    out
}
