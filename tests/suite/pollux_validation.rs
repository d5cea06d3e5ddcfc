//! Acceptance: engine fidelity against the Pollux OSDI'21 simulator.
//! Tiresias configured as that simulator ran it (2 queues, 16 GPU-hours,
//! 60 s rounds, rigid replicas and batch from the workload, 30 s restarts),
//! on the Pollux-simulator variant of the built-in zoo, on `homog-64`:
//! per workload the average JCT is within 25% of the published one and the
//! per-job Spearman rank correlation is at least 0.7.
//!
//! Pollux itself (the Sia baseline's genetic search, on its home setting):
//! per workload within 15% and Spearman at least 0.9 (measured 2026-11-22:
//! ratios 0.94-1.00, Spearman 0.977-0.996).

use schedlab::validate::{compare_pollux, published_jcts};
use schedlab::workload::Trace;

const DATA: &str = "../shared/data/pollux";

/// Runs `policy` on all eight workloads (two at a time) and checks every
/// row against the thresholds.
fn check_all_eight(policy: &str, dir: &str, max_rel_err: f64, min_spearman: f64) {
    let summary_path = format!("{DATA}/results-jobload/{dir}/summary.json");
    let text = std::fs::read_to_string(&summary_path)
        .unwrap_or_else(|e| panic!("{summary_path}: {e} (the tests need ../shared/data)"));
    let summary: serde_json::Value = serde_json::from_str(&text).unwrap();
    let compare = |n: usize| {
        let name = format!("workload-{n}");
        let path = format!("{DATA}/workloads/{name}.csv");
        let trace = Trace::parse(&path, &std::fs::read_to_string(&path).unwrap(), None).unwrap();
        let published = published_jcts(&summary, &name).unwrap();
        compare_pollux(policy, &name, &trace, &published).unwrap()
    };
    let rows: Vec<_> = std::thread::scope(|s| {
        let other = s.spawn(|| (1..=8).step_by(2).map(compare).collect::<Vec<_>>());
        let even: Vec<_> = (2..=8).step_by(2).map(compare).collect();
        let mut all = other.join().unwrap();
        all.extend(even);
        all
    });
    let mut report = String::new();
    let mut bad = Vec::new();
    for row in &rows {
        report.push_str(&format!(
            "{policy} {}: ours {:.0} s, theirs {:.0} s, ratio {:.3}, spearman {:.3}\n",
            row.workload, row.ours_avg_s, row.theirs_avg_s, row.ratio, row.spearman
        ));
        assert_eq!(
            row.matched, 160,
            "{}: every job matched by name",
            row.workload
        );
        if (row.ratio - 1.0).abs() > max_rel_err || row.spearman < min_spearman {
            bad.push(row.workload.clone());
        }
    }
    assert_eq!(rows.len(), 8);
    assert!(bad.is_empty(), "outside the thresholds: {bad:?}\n{report}");
}

#[test]
fn tiresias_matches_the_pollux_simulator_on_all_eight_workloads() {
    check_all_eight("tiresias", "tiresias-1.0", 0.25, 0.7);
}

#[test]
fn pollux_matches_the_pollux_simulator_on_all_eight_workloads() {
    check_all_eight("pollux", "pollux-1.0", 0.15, 0.9);
}
