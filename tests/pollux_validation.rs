//! Acceptance: engine fidelity against the Pollux OSDI'21 simulator.
//! Tiresias configured as that simulator ran it (2 queues, 16 GPU-hours,
//! 60 s rounds, rigid replicas and batch from the workload, 30 s restarts),
//! on the Pollux-simulator variant of the built-in zoo, on `homog-64`:
//! per workload the average JCT is within 25% of the published one and the
//! per-job Spearman rank correlation is at least 0.7.

use schedlab::validate::{compare_pollux, published_jcts};
use schedlab::workload::Trace;

const DATA: &str = "../shared/data/pollux";

#[test]
fn tiresias_matches_the_pollux_simulator_on_all_eight_workloads() {
    let summary_path = format!("{DATA}/results-jobload/tiresias-1.0/summary.json");
    let text = std::fs::read_to_string(&summary_path)
        .unwrap_or_else(|e| panic!("{summary_path}: {e} (the tests need ../shared/data)"));
    let summary: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut report = String::new();
    let mut bad = Vec::new();
    for n in 1..=8 {
        let name = format!("workload-{n}");
        let path = format!("{DATA}/workloads/{name}.csv");
        let trace = Trace::parse(&path, &std::fs::read_to_string(&path).unwrap(), None).unwrap();
        let published = published_jcts(&summary, &name).unwrap();
        let row = compare_pollux(&name, &trace, &published).unwrap();
        report.push_str(&format!(
            "{name}: ours {:.0} s, theirs {:.0} s, ratio {:.3}, spearman {:.3}\n",
            row.ours_avg_s, row.theirs_avg_s, row.ratio, row.spearman
        ));
        assert_eq!(row.matched, 160, "{name}: every job matched by name");
        if !((0.75..=1.25).contains(&row.ratio) && row.spearman >= 0.7) {
            bad.push(name);
        }
    }
    assert!(bad.is_empty(), "outside the thresholds: {bad:?}\n{report}");
}
