//! Bundled traces: at least 8, listed by the CLI, each one run with FIFO on
//! its recommended cluster to completion, and each one reproducing its
//! manifest's generator statistics (regeneration is checked byte for byte in
//! `workload::bundled`).

use crate::common;

use schedlab::cluster::parse_cluster;
use schedlab::perf::ModelZoo;
use schedlab::workload::{bundled_traces, load_named};
use std::process::Command;

#[test]
fn at_least_eight_are_listed() {
    let out = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["list", "traces", "--json"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.len() >= 8, "{names:?}");
    for want in [
        "sia-philly",
        "sia-philly-homog",
        "pollux-philly",
        "afs-philly-9-1pct",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    // Small enough for the browser.
    for t in bundled_traces() {
        assert!(t.jobs <= 1000, "{} has {} jobs", t.name, t.jobs);
        assert!(!t.policies.is_empty());
        parse_cluster(t.cluster).unwrap();
    }
}

#[test]
fn each_runs_with_fifo_on_its_cluster_to_completion() {
    let zoo = ModelZoo::builtin();
    for b in bundled_traces() {
        let trace = load_named(b.name).unwrap().unwrap();
        assert_eq!(trace.jobs.len(), b.jobs, "{}", b.name);
        for j in &trace.jobs {
            assert!(
                zoo.lookup(&j.model).is_some(),
                "{}: unknown model {}",
                b.name,
                j.model
            );
        }
        let cluster = parse_cluster(b.cluster).unwrap();
        let (summary, jobs, out) = common::run_with(&trace, &cluster, &zoo, "fifo", &[]);
        assert_eq!(out.incomplete, 0, "{}: {}", b.name, out.stop_reason);
        assert_eq!(jobs.len(), b.jobs);
        assert!(
            summary.completed == b.jobs && summary.avg_jct_s.unwrap() > 0.0,
            "{}",
            b.name
        );
    }
}
