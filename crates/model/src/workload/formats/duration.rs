//! Blox / duration-based CSV (`job_id,num_gpus,submit_time,duration[,model,batch_size]`),
//! as written by Blox (msr-fiddle/blox) and many Philly-derived traces: how
//! long each job ran on its GPUs, nothing about elasticity. Model names the
//! AFS zoo knows are kept; the others are filled by the fill rule.

use super::{Out, Raw};
use crate::workload::job::JobSpec;
use schedlab_core::error::Result;
use schedlab_core::textio::CsvTable;

pub(super) fn read(table: &mut CsvTable, out: &mut Out) -> Result<()> {
    table.rows(|row| {
        let line = row.line;
        let id = row.required_text("job_id")?;
        let duration = row.f64("duration")?;
        let gpus = row.u32("num_gpus")?;
        let arrival = row.f64("submit_time")?;
        if duration <= 0.0 {
            // Jobs that never ran carry no work.
            out.skip("duration <= 0");
            return Ok(());
        }
        if gpus == 0 {
            out.skip("no GPUs requested");
            return Ok(());
        }
        let mut job = JobSpec::new(format!("job-{id}"), arrival, "", gpus).with_duration(duration);
        job.batch_size = row.positive_u32_opt("batch_size")?.unwrap_or(0);
        job.tenant = row
            .text("user")
            .or(row.text("vc"))
            .unwrap_or("")
            .to_string();
        job.source_line = line as u32;
        out.raw.push(Raw {
            job,
            model: row.text("model").unwrap_or("").to_string(),
            key: id.to_string(),
        });
        Ok(())
    })
}
