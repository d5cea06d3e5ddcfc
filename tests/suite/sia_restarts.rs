//! Sia restarts jobs less often than Pollux on the heterogeneous cluster
//! (issue 21). The thesis's "about half" is not a target: the Sia artifact
//! itself, unmodified, restarts its Sia jobs 4.12 / 4.26 times per job on its
//! saturn / philly workload-1 (thesis table 2.9-3.4; docs/SIA.md), so only
//! the ordering is checked, on the first 60 jobs of the bundled Sia/Philly
//! trace in the Sia simulator's calibration.

use schedlab::cluster::parse_cluster;
use schedlab::perf::ModelZoo;
use schedlab::report::{run_policy, RunSettings};
use schedlab::workload::{load_named, Trace};
use std::sync::Arc;

fn restarts_per_job(policy: &str, trace: &Trace) -> f64 {
    let cluster = Arc::new(parse_cluster("sia-hetero-64").unwrap());
    let zoo = Arc::new(ModelZoo::builtin());
    let ov = RunSettings::default()
        .with("engine", "calibration", "sia")
        .unwrap();
    let r = run_policy(trace, &cluster, &zoo, policy, &ov, 1, &mut |_| true).unwrap();
    assert_eq!(
        r.metrics.completed,
        trace.jobs.len(),
        "{policy} left jobs unfinished"
    );
    r.metrics.avg_restarts
}

#[test]
fn sia_restarts_fewer_times_per_job_than_pollux_on_the_heterogeneous_cluster() {
    let full = load_named("sia-philly").unwrap().unwrap();
    let jobs = full.jobs.into_iter().take(60).collect();
    let trace = Trace::from_jobs("sia-philly-60", jobs).unwrap();
    let sia = restarts_per_job("sia", &trace);
    let pollux = restarts_per_job("pollux", &trace);
    eprintln!("restarts per job: sia {sia:.2}, pollux {pollux:.2}");
    assert!(
        sia > 0.0,
        "Sia never restarted a job: the check would be vacuous"
    );
    assert!(
        sia < pollux,
        "Sia {sia:.2} restarts per job, Pollux {pollux:.2}"
    );
}
