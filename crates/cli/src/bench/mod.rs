//! `schedlab bench [--case A,B]`: the named whole-run cases (`suite.rs`).
//! `schedlab bench engine`: simulation throughput (jobs simulated per second).
//! `schedlab bench afs`: AFS-L on a 50,000-job trace on 1,024 GPUs (the
//! issue's target: under 10 s natively).
//! `schedlab bench fork`: what a fork and a forecast cost at an arrival
//! (PCS forecasts at every arrival), against the trace's size.

use clap::Args;
use schedlab_core::error::{Error, Result};
use schedlab_model::cluster::{parse_cluster, Cluster};
use schedlab_model::perf::ModelZoo;
use schedlab_model::workload::gen::generate;
use schedlab_model::workload::Trace;
use schedlab_sim::{EngineConfig, Simulation};
use std::sync::Arc;

mod suite;

#[derive(Args)]
pub struct BenchArgs {
    /// Nothing (the named cases of the suite), or engine | afs | fork
    pub what: Option<String>,
    /// Suite cases to run, comma-separated (default: all): sia-160, pollux-160, gavel-160,
    /// afs-l-50k, fifo-100k, tiresias-pollux, pcs-2000, sts-100, sts-1000, anticipatory-helios, sia-2048,
    /// fifo-10k, srtf-10k, srtf-3k, afs-l-5k, copter-10k
    #[arg(long)]
    pub case: Option<String>,
    /// Save the suite's measurements as JSON here.
    #[arg(long)]
    pub json: Option<String>,
    /// A JSON file saved by an earlier `--json`: print each case's speed-up and
    /// whether its results are the same.
    #[arg(long)]
    pub compare: Option<String>,
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
    /// Suite: keep every policy call's reasons (as the page and `explain` do),
    /// to measure what they cost.
    #[arg(long)]
    pub reasons: bool,
}

pub fn bench(a: BenchArgs) -> Result<()> {
    let a = &a;
    let Some(what) = a.what.as_deref() else {
        let names = match &a.case {
            Some(list) => schedlab_core::params::name_list("--case", list)?,
            None => Vec::new(),
        };
        return suite::suite(
            &names,
            a.seed,
            a.reasons,
            a.json.as_deref(),
            a.compare.as_deref(),
        );
    };
    let afs = match what {
        "engine" => false,
        "afs" => true,
        "fork" => return bench_fork(a),
        other => {
            return Err(Error::config(format!(
                "bench {other}: expected nothing (the suite), 'engine', 'afs' or 'fork'"
            )))
        }
    };
    let jobs = a.jobs.unwrap_or(if afs { 50_000 } else { 100_000 });
    let policies = schedlab_run::setup::parse_policies(
        "--policy",
        a.policy
            .as_deref()
            .unwrap_or(if afs { "afs-l" } else { "fifo,srtf" }),
    )?;
    let (cluster, zoo, trace) = bench_inputs(a, jobs)?;
    println!(
        "bench {}: {} jobs (afs-synthetic, offered load 0.9), cluster {} ({} GPUs), timeline {}{}",
        what,
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
    for name in &policies {
        let (pol, _) = schedlab_policies::build(name, &[], a.seed)?;
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

/// The bench cluster, the built-in zoo and `jobs` jobs of `afs-synthetic`
/// at offered load 0.9 on that cluster.
fn bench_inputs(a: &BenchArgs, jobs: usize) -> Result<(Arc<Cluster>, Arc<ModelZoo>, Trace)> {
    let cluster = Arc::new(parse_cluster(&a.cluster)?);
    let set = vec![
        ("gpus".to_string(), cluster.total_gpus.to_string()),
        ("load".to_string(), "0.9".to_string()),
    ];
    let trace = generate("afs-synthetic", Some(jobs), a.seed, &set)?;
    Ok((cluster, Arc::new(ModelZoo::builtin()), trace))
}

/// Forks at 200 arrivals spread over the run (FIFO, offered load 0.9) and
/// times three things: the fork itself, a forecast (fork + run to the end
/// of the jobs present), and a copy of every job's state (what a fork cost
/// before job states were shared copy-on-write). Run it at two trace sizes:
/// the fork's cost should follow the live jobs, not the trace.
fn bench_fork(a: &BenchArgs) -> Result<()> {
    let jobs = a.jobs.unwrap_or(20_000);
    let (cluster, zoo, trace) = bench_inputs(a, jobs)?;
    let build = || schedlab_policies::build(a.policy.as_deref().unwrap_or("fifo"), &[], a.seed);
    let cfg = EngineConfig::from_overrides(&[("timeline".into(), a.timeline.to_string())])?;
    let mut sim = Simulation::with_shared(&trace, cluster.clone(), zoo, build()?.0, cfg)?;
    let samples = 200.min(trace.jobs.len());
    let (mut fork_s, mut forecast_s, mut copy_s, mut live) = (vec![], vec![], vec![], 0usize);
    for k in 1..=samples {
        let at = trace.jobs[k * trace.jobs.len() / samples - 1].arrival;
        sim.run_until(at)?;
        if sim.is_finished() {
            break;
        }
        live += sim
            .jobs()
            .iter()
            .filter(|s| {
                matches!(
                    s.phase,
                    schedlab_sim::Phase::Waiting | schedlab_sim::Phase::Running
                )
            })
            .count();
        let t = std::time::Instant::now();
        let fork = sim.fork_without_arrivals();
        fork_s.push(t.elapsed().as_secs_f64());
        drop(fork);
        let t = std::time::Instant::now();
        let copy: Vec<_> = sim.jobs().iter().cloned().collect();
        copy_s.push(t.elapsed().as_secs_f64());
        drop(copy);
        let t = std::time::Instant::now();
        sim.forecast(build()?.0)?;
        forecast_s.push(t.elapsed().as_secs_f64());
    }
    let n = fork_s.len().max(1);
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    println!(
        "bench fork: {} jobs (afs-synthetic, load 0.9), cluster {} ({} GPUs), {} forks, mean {:.0} live jobs at a fork",
        trace.jobs.len(),
        cluster.name,
        cluster.total_gpus,
        fork_s.len(),
        live as f64 / n as f64
    );
    println!(
        "  fork (shared job states): median {:.1} us\n  copy of every job state:   median {:.1} us\n  forecast (fork + run):     median {:.2} ms",
        median(&mut fork_s) * 1e6,
        median(&mut copy_s) * 1e6,
        median(&mut forecast_s) * 1e3
    );
    Ok(())
}
