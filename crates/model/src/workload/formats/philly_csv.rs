//! The Pollux authors' Philly job list (petuum/adaptdl, osdi21-artifact,
//! `simulator/philly/philly.csv`): `timestamp,duration,num_gpus,gpu_time,cluster`,
//! one row per job of the Microsoft Philly trace with a complete record.
//! `timestamp` is the submission time (date-time), `duration` the run time in
//! seconds on `num_gpus` GPUs, `cluster` the virtual-cluster id (the ids of
//! the AFS paper's Table 3), kept as the job's tenant. Arrivals are shifted
//! so the first job of the file arrives at 0; the file has no job ids, so a
//! job is named after its line.

use super::{Out, Raw};
use crate::workload::job::JobSpec;
use crate::workload::timestamp::parse_time;
use schedlab_core::error::Result;
use schedlab_core::textio::CsvTable;

pub(super) fn read(table: &mut CsvTable, out: &mut Out) -> Result<()> {
    out.shift_to_zero = true;
    table.rows(|row| {
        let line = row.line;
        let submit = row.required_text("timestamp")?;
        let arrival = parse_time(submit).ok_or_else(|| {
            row.error(
                "timestamp",
                format!("'{submit}' is neither a date-time (YYYY-MM-DD HH:MM:SS) nor seconds"),
            )
        })?;
        let duration = row.f64("duration")?;
        let gpus = row.u32("num_gpus")?;
        let vc = row.text("cluster").unwrap_or("").trim();
        if duration <= 0.0 {
            out.skip("duration <= 0");
            return Ok(());
        }
        if gpus == 0 {
            out.skip("no GPUs requested");
            return Ok(());
        }
        let mut job =
            JobSpec::new(format!("philly-{line}"), arrival, "", gpus).with_duration(duration);
        job.tenant = vc.to_string();
        job.source_line = line as u32;
        out.raw.push(Raw {
            job,
            model: String::new(),
            key: format!("{vc}-{line}"),
        });
        Ok(())
    })
}
