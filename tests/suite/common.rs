//! Helpers shared by the integration tests.
#![allow(dead_code)]

use schedlab::cluster::{parse_cluster, Cluster};
use schedlab::metrics::{evaluate, JobMetrics, Summary};
use schedlab::perf::{Behaviour, ModelInfo, ModelZoo, SpeedupCurve};
use schedlab::policy;
use schedlab::sim::{EngineConfig, Outcome, Simulation};
use schedlab::workload::{Adaptivity, JobSpec, Trace};

/// A zoo with the built-ins plus a model with a given speedup table.
pub fn zoo_with(name: &str, speedups: &[f64]) -> ModelZoo {
    let mut zoo = ModelZoo::builtin();
    zoo.insert(ModelInfo {
        name: name.into(),
        aliases: vec![],
        family: "test".into(),
        description: "test model".into(),
        provenance: "test".into(),
        default_batch: 0,
        max_batch: 0,
        max_gpus: speedups.len() as u32,
        restart_s: 0.0,
        mem_gb: 0.0,
        default_work: None,
        epochs: None,
        behaviour: Behaviour::Curve {
            curve: SpeedupCurve::Table {
                s: speedups.to_vec(),
            },
            type_speed: vec![],
        },
    });
    zoo
}

/// A rigid linear job: `gpus` GPUs, `secs` seconds at that size.
pub fn rigid(name: &str, arrival: f64, gpus: u32, secs: f64) -> JobSpec {
    let mut j = JobSpec::new(name, arrival, "linear", gpus).with_duration(secs);
    j.adaptivity = Adaptivity::Rigid;
    j
}

pub fn run_with(
    trace: &Trace,
    cluster: &Cluster,
    zoo: &ModelZoo,
    policy: &str,
    set: &[(&str, &str)],
) -> (Summary, Vec<JobMetrics>, Outcome) {
    let overrides: Vec<(String, String)> = set
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let (p, _) = policy::build(policy, &overrides, 1).unwrap();
    let mut sim = Simulation::new(trace, cluster, zoo, p, EngineConfig::default()).unwrap();
    let out = sim.run(&mut |_| true).unwrap();
    let (s, jobs) = evaluate(&out, &trace.jobs, cluster, zoo);
    (s, jobs, out)
}

/// As `run_with`, with engine overrides.
pub fn run_engine(
    trace: &Trace,
    cluster: &Cluster,
    zoo: &ModelZoo,
    policy: &str,
    set: &[(&str, &str)],
    engine: &[(&str, &str)],
) -> (Summary, Vec<JobMetrics>, Outcome) {
    let own = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(k, x)| (k.to_string(), x.to_string()))
            .collect()
    };
    let (p, _) = policy::build(policy, &own(set), 1).unwrap();
    let cfg = EngineConfig::from_overrides(&own(engine)).unwrap();
    let mut sim = Simulation::new(trace, cluster, zoo, p, cfg).unwrap();
    let out = sim.run(&mut |_| true).unwrap();
    let (s, jobs) = evaluate(&out, &trace.jobs, cluster, zoo);
    (s, jobs, out)
}

/// An elastic job (strong scaling) of `model` with `work` units.
pub fn elastic(name: &str, arrival: f64, model: &str, gpus: u32, work: f64) -> JobSpec {
    let mut j = JobSpec::new(name, arrival, model, gpus).with_work(work);
    j.adaptivity = Adaptivity::StrongScaling;
    j
}

pub fn run(
    jobs: Vec<JobSpec>,
    cluster: &str,
    policy: &str,
    set: &[(&str, &str)],
) -> (Summary, Vec<JobMetrics>) {
    let trace = Trace::from_jobs("test", jobs).unwrap();
    let c = parse_cluster(cluster).unwrap();
    let (s, j, _) = run_with(&trace, &c, &ModelZoo::builtin(), policy, set);
    (s, j)
}

pub fn jct(jobs: &[JobMetrics], name: &str) -> f64 {
    jobs.iter()
        .find(|j| j.name == name)
        .and_then(|j| j.jct_s)
        .expect("job finished")
}

pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}
