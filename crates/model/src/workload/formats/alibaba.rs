//! Alibaba GPU cluster trace 2023 (alibaba/clusterdata,
//! `cluster-trace-gpu-v2023/csv/openb_pod_list_*.csv`; Weng et al., ATC'23):
//! `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,
//! creation_time,deletion_time,scheduled_time`, times in seconds.
//!
//! A pod asks for `num_gpu` GPUs of which it uses `gpu_milli`/1000 each:
//! fractional requests (GPU sharing) are counted and reported; the engine
//! gives such a pod a whole GPU. `gpu_spec` names the GPU models a pod
//! accepts (`|`-separated); a single model the catalog knows pins the job's
//! GPU type, anything else leaves it free (reported).

use super::{Out, Raw};
use crate::cluster::GpuKind;
use crate::workload::job::JobSpec;
use schedlab_core::error::Result;
use schedlab_core::textio::CsvTable;
use std::collections::BTreeMap;

/// Alibaba's GPU model names mapped to the catalog (`V100M16`/`V100M32` are
/// 16 and 32 GB V100s).
fn catalog_name(spec: &str) -> Option<&'static str> {
    Some(match spec.trim().to_ascii_uppercase().as_str() {
        "T4" => "t4",
        "P100" => "p100",
        "V100" | "V100M16" | "V100M32" => "v100",
        "A100" => "a100",
        "K80" => "k80",
        _ => return None,
    })
}

pub(super) fn read(table: &mut CsvTable, out: &mut Out) -> Result<()> {
    out.shift_to_zero = true;
    let mut fractional = 0usize;
    let mut fractional_gpus = 0.0;
    let mut censored = 0usize;
    let mut unpinned: BTreeMap<String, usize> = BTreeMap::new();
    table.rows(|row| {
        let line = row.line;
        let name = row.required_text("name")?;
        let gpus = row.u32("num_gpu")?;
        if gpus == 0 {
            out.skip("CPU-only pod (num_gpu = 0)");
            return Ok(());
        }
        let milli = row.u32_opt("gpu_milli")?.unwrap_or(1000);
        if milli > 1000 {
            return Err(row.error("gpu_milli", format!("{milli} exceeds 1000 (one whole GPU)")));
        }
        let created = row.f64("creation_time")?;
        let Some(scheduled) = row.f64_opt("scheduled_time")? else {
            out.skip("never scheduled (no scheduled_time)");
            return Ok(());
        };
        let Some(deleted) = row.f64_opt("deletion_time")? else {
            out.skip("no deletion_time");
            return Ok(());
        };
        let duration = deleted - scheduled;
        if duration <= 0.0 {
            out.skip("run time <= 0");
            return Ok(());
        }
        if scheduled < created {
            return Err(row.error(
                "scheduled_time",
                format!("scheduled at {scheduled} before creation at {created}"),
            ));
        }
        if row
            .text("pod_phase")
            .is_some_and(|p| p.eq_ignore_ascii_case("running"))
        {
            censored += 1;
        }
        if milli < 1000 {
            fractional += 1;
            fractional_gpus += gpus as f64 * milli as f64 / 1000.0;
        }
        let mut job = JobSpec::new(name, created, "", gpus).with_duration(duration);
        if let Some(spec) = row.text("gpu_spec") {
            match catalog_name(spec).and_then(GpuKind::by_name) {
                Some(k) if !spec.contains('|') => job.gpu_type = Some(k.name().to_string()),
                _ => *unpinned.entry(spec.to_string()).or_default() += 1,
            }
        }
        job.tenant = row.text("qos").unwrap_or("").to_string();
        job.source_line = line as u32;
        out.raw.push(Raw {
            job,
            model: String::new(),
            key: name.to_string(),
        });
        Ok(())
    })?;
    if fractional > 0 {
        out.notes.push(format!(
            "{fractional} pods request a fraction of a GPU ({fractional_gpus:.2} GPUs in all); each runs on whole GPUs here"
        ));
    }
    if censored > 0 {
        out.notes.push(format!(
            "{censored} pods were still running when the trace ended; their run time stops at deletion_time"
        ));
    }
    if !unpinned.is_empty() {
        let list: Vec<String> = unpinned.iter().map(|(k, v)| format!("{k} x{v}")).collect();
        out.notes.push(format!(
            "gpu_spec values not pinned (several or unknown models): {}",
            list.join(", ")
        ));
    }
    Ok(())
}
