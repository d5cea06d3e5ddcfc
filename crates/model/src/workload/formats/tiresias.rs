//! Tiresias simulator CSV (SymbioticLab/Tiresias, `trace-data/*.csv`):
//! `job_id,num_gpu,submit_time,iterations,model_name,duration,interval`.
//! Times in seconds; `duration` is the run time at `num_gpu` GPUs;
//! `iterations` and `interval` are not used (the run time already fixes the
//! work). Model names the AFS zoo knows (vgg16, resnet50, googlenet,
//! inception4) are kept; the others are filled by the fill rule.

use super::{Out, Raw};
use crate::workload::job::JobSpec;
use schedlab_core::error::Result;
use schedlab_core::textio::CsvTable;

pub(super) fn read(table: &mut CsvTable, out: &mut Out) -> Result<()> {
    table.rows(|row| {
        let line = row.line;
        let id = row.required_text("job_id")?;
        let gpus = row.u32("num_gpu")?;
        let arrival = row.f64("submit_time")?;
        let duration = row.f64("duration")?;
        if gpus == 0 {
            out.skip("no GPUs requested");
            return Ok(());
        }
        if duration <= 0.0 {
            out.skip("duration <= 0");
            return Ok(());
        }
        let mut job = JobSpec::new(format!("job-{id}"), arrival, "", gpus).with_duration(duration);
        job.source_line = line as u32;
        out.raw.push(Raw {
            job,
            model: row.text("model_name").unwrap_or("").to_string(),
            key: id.to_string(),
        });
        Ok(())
    })
}
