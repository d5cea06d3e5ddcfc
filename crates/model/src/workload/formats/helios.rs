//! SenseTime Helios `cluster_log.csv` (S-Lab-System-Group/HeliosData; Hu et
//! al., SC'21): `job_id,user,vc,[jobname,]gpu_num,cpu_num,node_num,state,
//! submit_time,start_time,end_time,duration,queue`. Times are date strings
//! (or seconds); `duration` is the run time in seconds. Preprocessing as in
//! the anticipatory spec (seed000 §4.2): GPU jobs only, every terminal
//! state kept (failed and cancelled jobs still held their GPUs), tenant =
//! virtual cluster (the pools), arrivals shifted so the first job is at 0.

use super::{Out, Raw};
use crate::workload::job::JobSpec;
use crate::workload::timestamp::parse_time;
use schedlab_core::error::Result;
use schedlab_core::textio::CsvTable;

/// Slurm states of jobs that have not finished: no run time yet.
const UNFINISHED: &[&str] = &["PENDING", "RUNNING", "REQUEUED", "SUSPENDED"];

pub(super) fn read(table: &mut CsvTable, out: &mut Out) -> Result<()> {
    out.shift_to_zero = true;
    table.rows(|row| {
        let line = row.line;
        let id = row.required_text("job_id")?;
        let gpus = row.u32("gpu_num")?;
        if gpus == 0 {
            out.skip("CPU-only job (gpu_num = 0)");
            return Ok(());
        }
        if let Some(state) = row.text("state") {
            if UNFINISHED.contains(&state.to_ascii_uppercase().as_str()) {
                out.skip("job not finished (state PENDING/RUNNING/...)");
                return Ok(());
            }
        }
        let submit = row.required_text("submit_time")?;
        let arrival = parse_time(submit).ok_or_else(|| {
            row.error(
                "submit_time",
                format!("'{submit}' is neither a date-time (YYYY-MM-DD HH:MM:SS) nor seconds"),
            )
        })?;
        let duration = match row.f64_opt("duration")? {
            Some(d) => d,
            None => {
                out.skip("no duration");
                return Ok(());
            }
        };
        if duration <= 0.0 {
            out.skip("duration <= 0");
            return Ok(());
        }
        let mut job =
            JobSpec::new(format!("helios-{id}"), arrival, "", gpus).with_duration(duration);
        job.tenant = row
            .text("vc")
            .or(row.text("user"))
            .unwrap_or("")
            .to_string();
        job.source_line = line as u32;
        out.raw.push(Raw {
            job,
            model: String::new(),
            key: id.to_string(),
        });
        Ok(())
    })
}
