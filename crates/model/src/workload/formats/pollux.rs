//! Pollux/Sia workload CSV: `name,time,application,num_replicas,batch_size`
//! (optional `category` = adaptive | scale-gpus | rigid, from the Sia
//! limited-adaptivity experiments).

use super::Out;
use crate::workload::job::{Adaptivity, JobSpec};
use schedlab_core::error::Result;
use schedlab_core::textio::CsvTable;

pub(super) fn read(table: &mut CsvTable, out: &mut Out) -> Result<()> {
    let jobs = &mut out.jobs;
    table.rows(|row| {
        let line = row.line;
        let mut job = JobSpec::new(
            row.required_text("name")?,
            row.f64("time")?,
            row.required_text("application")?,
            row.u32("num_replicas")?,
        );
        job.batch_size = row
            .positive_u32_opt("batch_size")?
            .ok_or_else(|| row.error("batch_size", "missing value"))?;
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

/// Writes jobs as a Pollux/Sia workload CSV (`name,time,application,
/// num_replicas,batch_size`, plus `category` when any job is not adaptive):
/// the shape TunedJobs workloads are published in.
pub fn write_pollux(jobs: &[JobSpec]) -> String {
    let categories = jobs.iter().any(|j| j.adaptivity != Adaptivity::Adaptive);
    let mut w = schedlab_core::csvout::CsvOut::new();
    let mut header = vec!["name", "time", "application", "num_replicas", "batch_size"];
    if categories {
        header.push("category");
    }
    w.row(&header);
    for j in jobs {
        let mut rec = vec![
            j.name.clone(),
            j.arrival.to_string(),
            j.model.clone(),
            j.gpus.to_string(),
            j.batch_size.to_string(),
        ];
        if categories {
            rec.push(
                match j.adaptivity {
                    Adaptivity::Adaptive => "adaptive",
                    Adaptivity::StrongScaling => "scale-gpus",
                    Adaptivity::Rigid => "rigid",
                }
                .to_string(),
            );
        }
        w.row(&rec);
    }
    w.finish()
}
