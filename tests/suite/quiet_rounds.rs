//! Cost follows change, not length (issue 47, item 2): a round-based
//! policy that says nothing can change until the next event (`steady`) is
//! not called on the quiet rounds in between, and its results are those of
//! calling it on every round, to the bit.

use schedlab::cluster::parse_cluster;
use schedlab::metrics::evaluate;
use schedlab::perf::ModelZoo;
use schedlab::policy::{self, Knowledge, Policy, Trigger};
use schedlab::sim::{Decision, EngineConfig, Outcome, Simulation, View};
use schedlab::workload::Trace;

/// The same policy, called on every round (never `steady`).
struct EveryRound(Box<dyn Policy>);

impl Clone for EveryRound {
    fn clone(&self) -> Self {
        EveryRound(self.0.clone_box())
    }
}

impl Policy for EveryRound {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn trigger(&self) -> Trigger {
        self.0.trigger()
    }
    fn knowledge(&self) -> Knowledge {
        self.0.knowledge()
    }
    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        self.0.schedule(view, out)
    }
}

/// The first 20 jobs of sia-philly, one long job arriving at 500 s and a
/// short one at 3e6 s.
fn trace(long_s: f64) -> Trace {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/traces/sia-philly.csv");
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines: Vec<String> = text.lines().take(22).map(str::to_string).collect();
    lines.push(format!(
        "long,500,,cifar10,4,,,,2048,,,{long_s},adaptive,true,,,"
    ));
    // Arrives after a long quiet stretch: its round reads what the skipped
    // rounds booked (Gavel's time ledger, Shockwave's fair estimates).
    lines.push("late,3000000,,cifar10,4,,,,2048,,,50000,adaptive,true,,,".to_string());
    Trace::parse("long.csv", &lines.join("\n"), None).unwrap()
}

/// The run's outcome and how many times the policy was called.
fn run(trace: &Trace, policy: Box<dyn Policy>) -> (Outcome, u64) {
    let cluster = parse_cluster("sia-hetero-64").unwrap();
    let zoo = ModelZoo::builtin();
    let mut sim = Simulation::new(trace, &cluster, &zoo, policy, EngineConfig::default()).unwrap();
    let out = sim.run(&mut |_| true).unwrap();
    (out, sim.policy_time().0)
}

#[test]
fn skipping_quiet_rounds_changes_no_result() {
    let trace = trace(4_000_000.0);
    let cluster = parse_cluster("sia-hetero-64").unwrap();
    let zoo = ModelZoo::builtin();
    for name in ["gavel", "gavel-ftf", "shockwave"] {
        let (p, _) = policy::build(name, &[], 1).unwrap();
        let every = Box::new(EveryRound(p.clone_box()));
        let (skipping, few) = run(&trace, p);
        let (all, many) = run(&trace, every);
        assert!(
            few * 10 < many,
            "{name}: {few} calls against {many} (nothing skipped)"
        );
        for (a, b) in skipping.jobs.iter().zip(&all.jobs) {
            assert_eq!(
                (a.start, a.finish, a.gpu_s, a.restarts, a.migrations),
                (b.start, b.finish, b.gpu_s, b.restarts, b.migrations),
                "{name}: job {}",
                a.name
            );
        }
        assert_eq!(skipping.end_time, all.end_time, "{name}");
        assert_eq!(skipping.gpu_time, all.gpu_time, "{name}");
        let (s, _) = evaluate(&skipping, &trace.jobs, &cluster, &zoo);
        let (e, _) = evaluate(&all, &trace.jobs, &cluster, &zoo);
        assert_eq!(s.avg_jct_s, e.avg_jct_s, "{name}");
        assert_eq!(s.utilization, e.utilization, "{name}");
    }
}

#[test]
fn a_job_of_a_billion_seconds_costs_its_events_not_its_rounds() {
    // 1e9 s is 2.8 million rounds of 360 s: without skipping, minutes.
    let trace = trace(1e9);
    for name in ["gavel", "gavel-ftf", "shockwave"] {
        let (p, _) = policy::build(name, &[], 1).unwrap();
        let (out, calls) = run(&trace, p);
        assert_eq!(out.incomplete, 0, "{name}: {}", out.stop_reason);
        assert!(calls < 20_000, "{name}: {calls} policy calls");
    }
}
