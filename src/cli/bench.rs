//! `schedlab bench engine`: simulation throughput (jobs simulated per second).
//! `schedlab bench afs`: AFS-L on a 50,000-job trace on 1,024 GPUs (the
//! issue's target: under 10 s natively).

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
    /// What to benchmark: engine | afs
    pub what: String,
    /// Jobs in the trace (default: 100,000 for engine, 50,000 for afs).
    #[arg(long)]
    pub jobs: Option<usize>,
    #[arg(long, default_value = "bench-1024")]
    pub cluster: String,
    /// Policies (default: fifo,srtf for engine, afs-l for afs).
    #[arg(long)]
    pub policy: Option<String>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also record the timeline (as the page does).
    #[arg(long)]
    pub timeline: bool,
}

pub fn bench(a: BenchArgs) -> Result<()> {
    let afs = match a.what.as_str() {
        "engine" => false,
        "afs" => true,
        other => {
            return Err(Error::config(format!(
                "bench {other}: expected 'engine' or 'afs'"
            )))
        }
    };
    let jobs = a.jobs.unwrap_or(if afs { 50_000 } else { 100_000 });
    let policies = a
        .policy
        .clone()
        .unwrap_or_else(|| if afs { "afs-l" } else { "fifo,srtf" }.to_string());
    let cluster = Arc::new(parse_cluster(&a.cluster)?);
    let zoo = Arc::new(ModelZoo::builtin());
    let set = vec![
        ("gpus".to_string(), cluster.total_gpus.to_string()),
        ("load".to_string(), "0.9".to_string()),
    ];
    let trace = generate("afs-synthetic", Some(jobs), a.seed, &set)?;
    println!(
        "bench {}: {} jobs (afs-synthetic, offered load 0.9), cluster {} ({} GPUs), timeline {}{}",
        a.what,
        trace.jobs.len(),
        cluster.name,
        cluster.total_gpus,
        if a.timeline { "on" } else { "off" },
        if afs {
            ", count-based placement (engine.placement=any)"
        } else {
            ""
        }
    );
    for name in policies.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (pol, _) = policy::build(name, &[], a.seed)?;
        let mut set = vec![("timeline".to_string(), a.timeline.to_string())];
        if afs {
            set.push(("placement".into(), "any".into()));
        }
        let cfg = EngineConfig::from_overrides(&set)?;
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
