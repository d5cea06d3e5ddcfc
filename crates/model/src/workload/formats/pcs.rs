//! PCS artifact traces (abdullahfsm/PCS `simulation/traces/trace_<vc>.csv`,
//! one file per Philly virtual cluster): `app_id,submit_time,service,
//! num_jobs,sleep_time,model_name`. One row is one app, run as one elastic
//! job as the artifact's simulator does (spec seed001 §2.1):
//!
//! - `service` is the work in 1-GPU seconds (the job's `work`: a curve
//!   model's rate at one GPU is 1);
//! - `num_jobs` is the GPU demand (request and most GPUs), strong-scaling;
//! - `model_name` is one of the artifact's nine classes (`VggnetModel256`,
//!   ...) and maps to the zoo's `pcs/*` model, the artifact's measured
//!   table for that class (`perf::pcs_tables`), as its simulator uses it;
//!   `LinearModel` or no column means `linear`;
//! - `sleep_time` (the gap since the previous submission) is implied by
//!   `submit_time` and not read.

use super::Out;
use crate::perf::pcs_tables;
use crate::workload::job::{Adaptivity, JobSpec};
use schedlab_core::error::Result;
use schedlab_core::textio::CsvTable;

pub(super) fn read(table: &mut CsvTable, out: &mut Out) -> Result<()> {
    table.rows(|row| {
        let line = row.line;
        let id = row.required_text("app_id")?;
        let arrival = row.f64("submit_time")?;
        let service = row.f64("service")?;
        let demand = row.u32("num_jobs")?;
        if service.is_nan() || service <= 0.0 {
            return Err(row.error(
                "service",
                format!("{service}: an app needs positive work (1-GPU seconds)"),
            ));
        }
        if demand == 0 {
            return Err(row.error("num_jobs", "an app needs at least one GPU"));
        }
        if arrival < 0.0 {
            return Err(row.error("submit_time", format!("{arrival} is negative")));
        }
        let class = row.text("model_name").unwrap_or("").trim();
        let model = if class.is_empty() || class.starts_with("Linear") {
            "linear".to_string()
        } else {
            pcs_tables::zoo_name(class).ok_or_else(|| {
                row.error(
                    "model_name",
                    format!("'{class}' is not a model of the PCS artifact (VggnetModel256, GooglenetModel128, Inception4Model256, Resnet50Model128, DcganModel256, VideopredictionModel64, ChatbotModel256, DeepspeechModel64, TransformerModel256, LinearModel)"),
                )
            })?
        };
        let mut job = JobSpec::new(format!("app-{id}"), arrival, model, demand).with_work(service);
        job.max_gpus = demand;
        job.min_gpus = 1;
        job.adaptivity = Adaptivity::StrongScaling;
        job.source_line = line as u32;
        out.jobs.push(job);
        Ok(())
    })
}
