//! Pollux/Sia workload CSV: `name,time,application,num_replicas,batch_size`
//! (optional `category` = adaptive | scale-gpus | rigid, from the Sia
//! limited-adaptivity experiments).

use super::{for_each_record, Csv, Out};
use crate::error::Result;
use crate::workload::csvrow::Row;
use crate::workload::job::{Adaptivity, JobSpec};

pub(super) fn read(csv: Csv, out: &mut Out) -> Result<()> {
    let Csv { file, rdr, cols } = csv;
    let jobs = &mut out.jobs;
    for_each_record(file, rdr, |line, rec| {
        let row = Row {
            file,
            line,
            cols,
            rec,
        };
        let mut job = JobSpec::new(
            row.required_text("name")?,
            row.f64("time")?,
            row.required_text("application")?,
            row.u32("num_replicas")?,
        );
        job.batch_size = row.u32("batch_size")?;
        if let Some(c) = row.text("category") {
            job.adaptivity = Adaptivity::parse(c).ok_or_else(|| {
                row.error(
                    "category",
                    format!("'{c}' is not adaptive, scale-gpus or rigid"),
                )
            })?;
        }
        job.source_line = line as u32;
        jobs.push(job);
        Ok(())
    })
}
