//! `schedlab bench engine`: simulation throughput (jobs simulated per second).

use crate::cluster::parse_cluster;
use crate::error::{Error, Result};
use crate::perf::ModelZoo;
use crate::policy;
use crate::sim::{EngineConfig, Simulation};
use crate::workload::gen::generate;
use clap::Args;
use std::sync::Arc;

#[derive(Args)]
pub struct BenchArgs {
    /// What to benchmark: engine
    pub what: String,
    #[arg(long, default_value_t = 100_000)]
    pub jobs: usize,
    #[arg(long, default_value = "bench-1024")]
    pub cluster: String,
    #[arg(long, default_value = "fifo,srtf")]
    pub policy: String,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also record the timeline (as the page does).
    #[arg(long)]
    pub timeline: bool,
}

pub fn bench(a: BenchArgs) -> Result<()> {
    if a.what != "engine" {
        return Err(Error::config(format!(
            "bench {}: expected 'engine'",
            a.what
        )));
    }
    let cluster = Arc::new(parse_cluster(&a.cluster)?);
    let zoo = Arc::new(ModelZoo::builtin());
    let set = vec![
        ("gpus".to_string(), cluster.total_gpus.to_string()),
        ("load".to_string(), "0.9".to_string()),
    ];
    let trace = generate("afs-synthetic", Some(a.jobs), a.seed, &set)?;
    println!(
        "bench engine: {} jobs (afs-synthetic, offered load 0.9), cluster {} ({} GPUs), timeline {}",
        trace.jobs.len(),
        cluster.name,
        cluster.total_gpus,
        if a.timeline { "on" } else { "off" }
    );
    for name in a.policy.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (pol, _) = policy::build(name, &[], a.seed)?;
        let cfg = EngineConfig::from_overrides(&[("timeline".into(), a.timeline.to_string())])?;
        let mut sim = Simulation::with_shared(&trace, cluster.clone(), zoo.clone(), pol, cfg)?;
        let t0 = std::time::Instant::now();
        let out = sim.run(&mut |_| true)?;
        let secs = t0.elapsed().as_secs_f64();
        let done = out.jobs.len() - out.incomplete;
        println!(
            "{name:>10}: {done} jobs in {secs:.3} s = {:.0} jobs/s ({} events, {:.0} events/s)",
            done as f64 / secs,
            out.events,
            out.events as f64 / secs
        );
    }
    Ok(())
}
