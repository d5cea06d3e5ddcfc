//! `schedlab tune-jobs`: writes the TunedJobs version of a workload (spec
//! seed004 §3.7), the input of Sia's rigid baselines.

use super::write_out;
use clap::Args;
use schedlab_core::error::{Error, Result};
use schedlab_model::cluster::{parse_cluster, GpuKind};
use schedlab_model::perf::ZooSettings;
use schedlab_model::workload::tune::{tune_trace, TuneOptions};
use schedlab_model::workload::{write_native, write_pollux};
use schedlab_run::setup::ZooSource;
use std::collections::BTreeMap;

#[derive(Args)]
pub struct TuneArgs {
    /// The workload to tune (a bundled trace name or a file; Pollux/Sia CSVs included).
    pub input: String,
    /// Trace format of the input; detected from the header when omitted.
    #[arg(long = "trace-format")]
    pub trace_format: Option<String>,
    /// Output file; stdout when omitted.
    #[arg(long)]
    pub out: Option<String>,
    /// GPU type the profiles come from (the thesis uses rtx, the smallest-memory type).
    #[arg(long = "profile-type", default_value = "rtx")]
    pub profile_type: String,
    /// GPUs per node of the profile type.
    #[arg(long = "gpus-per-node", default_value_t = 8)]
    pub gpus_per_node: u32,
    /// Largest GPU count tried: 16 for the heterogeneous and physical clusters, 64 for the homogeneous one.
    #[arg(long = "max-gpus", default_value_t = 16)]
    pub max_gpus: u32,
    /// Longest solo run kept, in hours.
    #[arg(long = "max-hours", default_value_t = 12.0)]
    pub max_hours: f64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output format: pollux (name,time,application,num_replicas,batch_size) or native.
    #[arg(long, default_value = "pollux")]
    pub format: String,
    /// Model zoo: builtin, or pollux-osdi21 (as for `run`).
    #[arg(long, default_value = "builtin")]
    pub zoo: String,
    /// Profile directory in the Pollux/Sia layout whose fitted models replace the built-in
    /// ones of the same name (as for `run`); repeatable.
    #[arg(long)]
    pub profiles: Vec<String>,
}

pub fn tune(a: TuneArgs) -> Result<()> {
    if !["pollux", "native"].contains(&a.format.as_str()) {
        return Err(Error::config(format!(
            "--format {}: expected pollux or native",
            a.format
        )));
    }
    let kind = GpuKind::by_name(&a.profile_type).ok_or_else(|| {
        Error::config(format!(
            "--profile-type {}: unknown GPU type",
            a.profile_type
        ))
    })?;
    // Validate the per-node size the same way cluster specs are.
    parse_cluster(&format!("{}:1x{}", kind.name(), a.gpus_per_node))
        .map_err(|e| Error::config(format!("--gpus-per-node {}: {e}", a.gpus_per_node)))?;
    if a.max_gpus == 0 || a.max_gpus > 4096 {
        return Err(Error::config("--max-gpus must be in 1..=4096"));
    }
    if !(a.max_hours > 0.0 && a.max_hours.is_finite()) {
        return Err(Error::config("--max-hours must be positive"));
    }
    let trace = super::commands::load_trace(&super::commands::TraceArgs {
        name: &a.input,
        format: a.trace_format.as_deref(),
        fill: None,
        aux: None,
    })?;
    let zoo = ZooSource {
        name: a.zoo.clone(),
        profiles: if a.profiles.is_empty() {
            None
        } else {
            Some((
                super::models::read_profiles(&a.profiles)?,
                a.profiles.join(", "),
            ))
        },
        ..ZooSource::default()
    }
    .build(&ZooSettings::default())?;
    let opts = TuneOptions {
        kind,
        gpus_per_node: a.gpus_per_node,
        max_gpus: a.max_gpus,
        max_jct_s: a.max_hours * 3600.0,
        seed: a.seed,
        ..TuneOptions::default()
    };
    let (tuned, chosen) = tune_trace(&trace, &zoo, &opts)?;
    let text = if a.format == "pollux" {
        write_pollux(&tuned.jobs)
    } else {
        write_native(
            &tuned.jobs,
            &format!(
                "TunedJobs of {} (profile {} x{}/node, K <= {}, JCT < {} h, seed {})",
                trace.name,
                kind.name(),
                a.gpus_per_node,
                a.max_gpus,
                a.max_hours,
                a.seed
            ),
        )
    };
    write_out(a.out.as_deref(), &text)?;
    // Summary on stderr: per model, the chosen (K, M) counts and fallbacks.
    let mut per: BTreeMap<String, BTreeMap<(u32, u32), usize>> = BTreeMap::new();
    let mut fallbacks = 0;
    for (spec, t) in tuned.jobs.iter().zip(&chosen) {
        *per.entry(spec.model.clone())
            .or_default()
            .entry((t.gpus, t.batch))
            .or_default() += 1;
        fallbacks += t.fallback as usize;
    }
    eprintln!(
        "tuned {} jobs ({} fell back to 1 GPU)",
        chosen.len(),
        fallbacks
    );
    for (model, m) in per {
        let list: Vec<String> = m.iter().map(|((k, b), n)| format!("{k}x{b}:{n}")).collect();
        eprintln!("  {model:<14} GPUs x batch: {}", list.join(" "));
    }
    Ok(())
}
