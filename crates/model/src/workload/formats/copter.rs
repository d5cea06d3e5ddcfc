//! COpter workload CSV (the authors' simulator, `../shared/data/copter/workloads/*`):
//! `name,time,category,application`. `time` is the submission in seconds; `category`
//! is `SiaJob` (the zoo's `bert`, `cifar10`, ... models), `BatchInferenceJob` or
//! `SyntheticSinglePhaseJob` (the zoo's `copter/*` table models, `perf/copter.rs`).
//! Every job is adaptive and runs its model's whole work (the rows give no GPU count:
//! the request is the smallest configuration that runs on every type).

use super::Out;
use crate::perf::copter::row_model;
use crate::workload::job::JobSpec;
use schedlab_core::error::Result;
use schedlab_core::textio::CsvTable;

pub(super) fn read(table: &mut CsvTable, out: &mut Out) -> Result<()> {
    table.rows(|row| {
        let line = row.line;
        let arrival = row.f64("time")?;
        if arrival < 0.0 || !arrival.is_finite() {
            return Err(row.error(
                "time",
                format!("{arrival}: a submission time is a finite number of seconds >= 0"),
            ));
        }
        let category = row.required_text("category")?.trim();
        let application = row.required_text("application")?.trim();
        let (model, gpus) =
            row_model(category, application).map_err(|(field, why)| row.error(field, why))?;
        let mut job = JobSpec::new(row.required_text("name")?, arrival, model, gpus);
        job.source_line = line as u32;
        out.jobs.push(job);
        Ok(())
    })
}
