//! Gavel trace TSV (stanford-futuredata/gavel, `scheduler/traces/`;
//! Narayanan et al., OSDI'20), one job per line, ten tab-separated fields as
//! `utils.parse_trace` reads them: job_type, command, working_directory,
//! num_steps_arg, needs_data_dir, total_steps, scale_factor,
//! priority_weight, SLO, arrival_time.
//!
//! A Gavel job is rigid: `scale_factor` GPUs for `total_steps` steps. Its
//! model is the zoo entry `gavel/<job type>-x<scale factor>`, whose per-GPU-type
//! speeds are Gavel's measured steps/s (`perf::gavel`), so the work is
//! `total_steps` directly. `SLO` (-1 = none) is not used (reported).

use super::Out;
use crate::perf::gavel_model_name;
use crate::workload::job::{Adaptivity, JobSpec};
use schedlab_core::error::{Error, Result};

const FIELDS: &[&str] = &[
    "job_type",
    "command",
    "working_directory",
    "num_steps_arg",
    "needs_data_dir",
    "total_steps",
    "scale_factor",
    "priority_weight",
    "SLO",
    "arrival_time",
];

pub(super) fn read(file: &str, text: &str, out: &mut Out) -> Result<()> {
    let mut slo = 0usize;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim_end_matches('\r').trim_start_matches('\u{feff}');
        if l.trim().is_empty() || l.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() != FIELDS.len() {
            return Err(Error::input(
                file,
                line,
                "",
                format!(
                    "expected {} tab-separated fields ({}), found {}",
                    FIELDS.len(),
                    FIELDS.join(", "),
                    f.len()
                ),
            ));
        }
        let num = |k: usize| -> Result<f64> {
            let t = f[k].trim();
            t.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    Error::input(file, line, FIELDS[k], format!("'{t}' is not a number"))
                })
        };
        let int = |k: usize| -> Result<u32> {
            let t = f[k].trim();
            t.parse::<u32>().map_err(|_| {
                Error::input(
                    file,
                    line,
                    FIELDS[k],
                    format!("'{t}' is not a non-negative integer"),
                )
            })
        };
        let job_type = f[0].trim();
        if job_type.is_empty() {
            return Err(Error::input(file, line, "job_type", "missing value"));
        }
        let steps = int(5)?;
        let scale = int(6)?;
        if scale == 0 {
            return Err(Error::input(
                file,
                line,
                "scale_factor",
                "must be at least 1",
            ));
        }
        let weight = num(7)?;
        let deadline = num(8)?;
        let arrival = num(9)?;
        if steps == 0 {
            out.skip("total_steps = 0");
            continue;
        }
        if deadline >= 0.0 {
            slo += 1;
        }
        let mut job = JobSpec::new(
            format!("gavel-{}", out.jobs.len()),
            arrival,
            gavel_model_name(job_type, scale),
            scale,
        )
        .with_work(steps as f64);
        job.weight = weight;
        job.adaptivity = Adaptivity::Rigid;
        job.source_line = u32::try_from(line).unwrap_or(u32::MAX);
        out.jobs.push(job);
    }
    if slo > 0 {
        out.notes
            .push(format!("{slo} jobs give an SLO; SLOs are not used"));
    }
    Ok(())
}
