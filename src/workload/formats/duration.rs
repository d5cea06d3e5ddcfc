//! Duration-based CSV (`job_id,num_gpus,submit_time,duration[,model,batch_size,...]`),
//! as written by Blox and many Philly-derived traces. Jobs are rigid: the
//! trace says how long each ran on its GPUs, nothing about elasticity.

use super::for_each_record;
use crate::error::Result;
use crate::workload::csvrow::{Columns, Row};
use crate::workload::job::{Adaptivity, JobSpec};

pub(super) fn read(
    file: &str,
    rdr: &mut csv::Reader<&[u8]>,
    cols: &Columns,
) -> Result<(Vec<JobSpec>, usize, Vec<String>)> {
    let mut jobs = Vec::new();
    let mut skipped = 0;
    for_each_record(file, rdr, |line, rec| {
        let row = Row {
            file,
            line,
            cols,
            rec,
        };
        let id = row.required_text("job_id")?;
        let duration = row.f64("duration")?;
        if duration <= 0.0 {
            // Jobs that never ran carry no work: skipped on purpose, counted.
            skipped += 1;
            return Ok(());
        }
        let mut job = JobSpec::new(
            format!("job-{id}"),
            row.f64("submit_time")?,
            row.text("model").unwrap_or(""),
            row.u32("num_gpus")?,
        )
        .with_duration(duration);
        job.batch_size = row.u32_opt("batch_size")?.unwrap_or(0);
        job.tenant = row
            .text("user")
            .or(row.text("vc"))
            .unwrap_or("")
            .to_string();
        job.adaptivity = Adaptivity::Rigid;
        job.source_line = line as u32;
        jobs.push(job);
        Ok(())
    })?;
    let notes = if skipped > 0 {
        vec![format!("{skipped} rows with duration <= 0 skipped")]
    } else {
        Vec::new()
    };
    Ok((jobs, skipped, notes))
}
