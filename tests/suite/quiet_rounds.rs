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

/// Asserts that `policy` finishes the issue's case (20 jobs and a job of
/// 1e9 s) in under 20,000 calls: its events, not its millions of rounds.
fn assert_the_issue_case_costs_events_not_rounds(label: &str, policy: Box<dyn Policy>) {
    let (out, calls) = run(&issue_case(), policy);
    eprintln!("{label}: {calls} calls, {}", out.stop_reason);
    assert_eq!(out.incomplete, 0, "{label}: {}", out.stop_reason);
    assert!(calls < 20_000, "{label}: {calls} policy calls");
}

/// Asserts that a run skipping rounds and one calling every round gave
/// every job the same start, finish, GPU time, restarts and migrations, and
/// the same end and GPU time, to the bit.
fn assert_same_runs(label: &str, skipping: &Outcome, all: &Outcome) {
    for (a, b) in skipping.jobs.iter().zip(&all.jobs) {
        assert_eq!(
            (a.start, a.finish, a.gpu_s, a.restarts, a.migrations),
            (b.start, b.finish, b.gpu_s, b.restarts, b.migrations),
            "{label}: job {}",
            a.name
        );
    }
    assert_eq!(skipping.end_time, all.end_time, "{label}");
    assert_eq!(skipping.gpu_time, all.gpu_time, "{label}");
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
        assert_same_runs(name, &skipping, &all);
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

/// The first 20 jobs of sia-philly and `extra` trace lines.
fn sia_trace(extra: &[String]) -> Trace {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/traces/sia-philly.csv");
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines: Vec<String> = text.lines().take(22).map(str::to_string).collect();
    lines.extend(extra.iter().cloned());
    Trace::parse("long.csv", &lines.join("\n"), None).unwrap()
}

/// A trace line: `name`, arrival, model, GPUs, batch, duration, and
/// `kind` = "adaptivity,preemptible".
fn line(name: &str, at: f64, model: &str, gpus: u32, batch: u32, dur: f64, kind: &str) -> String {
    format!("{name},{at},,{model},{gpus},,,,{batch},,,{dur},{kind},,,")
}

/// Extra trace lines and Sia settings.
type Case<'a> = (Vec<String>, Vec<(&'a str, &'a str)>);

/// Runs `sia` with `set` on `trace` skipping and calling every round;
/// asserts the same results to the bit and returns the two call counts.
fn sia_both_ways(trace: &Trace, set: &[(&str, &str)]) -> (u64, u64) {
    let set: Vec<(String, String)> = set
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let (p, _) = policy::build("sia", &set, 1).unwrap();
    let every = Box::new(EveryRound(p.clone_box()));
    let (skipping, few) = run(trace, p);
    let (all, many) = run(trace, every);
    assert_eq!(skipping.incomplete, 0, "{set:?}: {}", skipping.stop_reason);
    assert_same_runs(&format!("{set:?}"), &skipping, &all);
    (few, many)
}

/// Sia skips the rounds of a job alone in its best configuration, with the
/// results of calling every round (differential, several small traces):
/// adaptive, rigid, strong-scaling and non-preemptible long jobs, two long
/// jobs (overlapping, then alone one after the other), a job arriving
/// after the quiet stretch, and settings that move the weights (p > 0, no
/// restart factor, the exact solver, the artifact's profiling).
#[test]
fn sia_skipping_quiet_rounds_changes_no_result() {
    let long = |dur: f64| line("long", 500.0, "cifar10", 4, 2048, dur, "adaptive,true");
    // The long job runs on about 12 GPUs' worth: 1e7 s take about 9e5 s,
    // so the late job arrives during its quiet stretch.
    let late = line(
        "late",
        400_000.0,
        "cifar10",
        4,
        2048,
        50_000.0,
        "adaptive,true",
    );
    let cases: Vec<Case> = vec![
        (vec![long(1e7), late.clone()], vec![]),
        (vec![long(3e6), late.clone()], vec![("p", "0.5")]),
        (
            vec![long(3e6)],
            vec![("restart_factor", "false"), ("solver", "exact")],
        ),
        (vec![long(3e6)], vec![("profiling", "artifact")]),
        (
            vec![
                line("rigid", 900.0, "imagenet", 8, 3200, 2e6, "rigid,true"),
                late.clone(),
            ],
            vec![],
        ),
        (
            vec![line(
                "strong",
                900.0,
                "cifar10",
                6,
                2048,
                3e6,
                "strong-scaling,true",
            )],
            vec![],
        ),
        (
            vec![line(
                "pinned",
                700.0,
                "cifar10",
                4,
                2048,
                1e6,
                "adaptive,false",
            )],
            vec![],
        ),
        (
            vec![
                long(2e6),
                line(
                    "second",
                    1000.0,
                    "deepspeech2",
                    8,
                    640,
                    2e6,
                    "adaptive,true",
                ),
            ],
            vec![],
        ),
    ];
    let counts: Vec<(u64, u64)> = cases
        .iter()
        .map(|(extra, set)| sia_both_ways(&sia_trace(extra), set))
        .collect();
    // The first case has about 15,000 rounds, most of one job alone.
    let (f, m) = counts[0];
    assert!(f * 10 < m, "sia: {f} calls against {m} (nothing skipped)");
    let (few, many) = counts.iter().fold((0, 0), |(a, b), (f, m)| (a + f, b + m));
    assert!(
        few * 5 < many,
        "sia: {few} calls against {many} over the cases"
    );
}

/// Issue 47's case: 20 jobs of sia-philly and one adaptive job of 1e9 s
/// arriving at 500 s.
fn issue_case() -> Trace {
    sia_trace(&[line(
        "long",
        500.0,
        "cifar10",
        4,
        2048,
        1e9,
        "adaptive,true",
    )])
}

#[test]
fn a_job_of_a_billion_seconds_costs_sia_its_events_not_its_rounds() {
    let (p, _) = policy::build("sia", &[], 1).unwrap();
    assert_the_issue_case_costs_events_not_rounds("sia", p);
}

/// The issue's case itself, both ways (about a million rounds called one by
/// one: minutes, so on demand: `cargo test --profile quick -p schedlab
/// --test suite quiet_rounds -- --ignored`).
#[test]
#[ignore]
fn sia_on_the_issues_billion_second_job_gives_the_results_of_every_round() {
    let trace = issue_case();
    let (few, many) = sia_both_ways(&trace, &[]);
    eprintln!("sia: {few} calls skipping, {many} calling every round");
    assert!(few * 1000 < many, "sia: {few} calls against {many}");
}

/// A label, extra trace lines and settings.
type LabelledCase<'a> = (&'a str, Vec<String>, Vec<(&'a str, &'a str)>);

/// Pollux with a small search (cheap rounds, the same proof) and `set`.
fn pollux(set: &[(&str, &str)]) -> Box<dyn Policy> {
    let mut all: Vec<(String, String)> = vec![
        ("population".into(), "12".into()),
        ("generations".into(), "6".into()),
    ];
    all.extend(set.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    policy::build("pollux", &all, 1).unwrap().0
}

/// Runs `policy` on `trace` skipping and calling every round; asserts the
/// same results to the bit and returns the two call counts.
fn both_ways(label: &str, trace: &Trace, policy: Box<dyn Policy>) -> (u64, u64) {
    let every = Box::new(EveryRound(policy.clone_box()));
    let (skipping, few) = run(trace, policy);
    let (all, many) = run(trace, every);
    assert_eq!(skipping.incomplete, 0, "{label}: {}", skipping.stop_reason);
    assert_same_runs(label, &skipping, &all);
    (few, many)
}

/// The first `n` jobs of sia-philly and `extra` trace lines.
fn philly(n: usize, extra: &[String]) -> Trace {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/traces/sia-philly.csv");
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines: Vec<String> = text.lines().take(n + 2).map(str::to_string).collect();
    lines.extend(extra.iter().cloned());
    Trace::parse("long.csv", &lines.join("\n"), None).unwrap()
}

/// Pollux skips the rounds of a long job left alone once its search
/// provably returns the same row at every remaining round (its stream and
/// warm start no longer matter), with the results of calling every round
/// (differential, small traces): an adaptive job whose fittest row asks
/// for GPUs of another type (the issue's case), rigid and non-preemptible
/// jobs, NSGA-II survival, the oracle model; and cases where the proof
/// must wait or fail: a job arriving after the long one is alone (nothing
/// is skipped before it has arrived), a restart penalty so deep that
/// another row wins once it ages, NSGA-II with the fittest row elsewhere.
#[test]
fn pollux_skipping_rounds_to_the_end_changes_no_result() {
    let long = |dur: f64| line("long", 500.0, "cifar10", 4, 2048, dur, "adaptive,true");
    // The long job is alone and settled from about 73,000 s on.
    let late = line(
        "late",
        150_000.0,
        "cifar10",
        4,
        2048,
        20_000.0,
        "adaptive,true",
    );
    let cases: Vec<LabelledCase> = vec![
        ("adaptive", vec![long(4e6)], vec![]),
        ("late arrival", vec![long(1.5e6), late], vec![]),
        (
            "deep restart penalty",
            vec![long(3e5)],
            vec![("restart_s", "3600")],
        ),
        ("nsga2", vec![long(1e6)], vec![("survival", "nsga2")]),
        (
            "oracle model",
            vec![long(3e5)],
            vec![("knowledge", "oracle")],
        ),
        (
            "rigid",
            vec![line("rigid", 900.0, "imagenet", 4, 800, 3e5, "rigid,true")],
            vec![("survival", "nsga2")],
        ),
        (
            "pinned",
            vec![line(
                "pinned",
                700.0,
                "cifar10",
                4,
                2048,
                1e5,
                "adaptive,false",
            )],
            vec![],
        ),
    ];
    let counts: Vec<(u64, u64)> = cases
        .iter()
        .map(|(label, extra, set)| {
            let started = std::time::Instant::now();
            let (few, many) = both_ways(label, &philly(8, extra), pollux(set));
            eprintln!(
                "pollux {label}: {few} calls skipping, {many} every round ({:.1} s)",
                started.elapsed().as_secs_f64()
            );
            (few, many)
        })
        .collect();
    // The first case is mostly the long job alone.
    let (f, m) = counts[0];
    assert!(f * 5 < m, "pollux: {f} calls against {m} (nothing skipped)");
    // Nothing is skipped while a job is still to come (2,500 rounds), though
    // the long job is settled long before it arrives (the first case).
    assert!(
        counts[1].0 > 2_400,
        "pollux: skipped before the late arrival"
    );
    // Each case skips: the proof waits (for the late job to arrive and
    // finish, for the penalty to age) but is reached.
    for ((label, ..), (f, m)) in cases.iter().zip(&counts) {
        assert!(f < m, "pollux {label}: {f} calls against {m}");
    }
}

/// The issue's case (20 jobs of sia-philly and a job of 1e9 s) with the
/// small search: millions of rounds without skipping.
#[test]
fn a_job_of_a_billion_seconds_costs_pollux_its_events_not_its_rounds() {
    assert_the_issue_case_costs_events_not_rounds("pollux", pollux(&[]));
}

/// The issue's own case with Pollux's own search, both ways, to a stop at
/// three days (every round of the whole run would take about 47 hours):
/// minutes, so on demand (`-- --ignored`).
#[test]
#[ignore]
fn pollux_on_the_issues_billion_second_job_gives_the_results_of_every_round() {
    let trace = issue_case();
    let cluster = parse_cluster("sia-hetero-64").unwrap();
    let zoo = ModelZoo::builtin();
    let cfg = EngineConfig {
        max_time: 3.0 * 86_400.0,
        ..EngineConfig::default()
    };
    let run = |policy: Box<dyn Policy>| {
        let mut sim = Simulation::new(&trace, &cluster, &zoo, policy, cfg.clone()).unwrap();
        let out = sim.run(&mut |_| true).unwrap();
        (out, sim.policy_time().0)
    };
    let (p, _) = policy::build("pollux", &[], 1).unwrap();
    let (all, many) = run(Box::new(EveryRound(p.clone_box())));
    let (skipping, few) = run(p);
    eprintln!("pollux: {few} calls skipping, {many} calling every round");
    assert_same_runs("pollux", &skipping, &all);
    assert!(few * 5 < many, "pollux: {few} calls against {many}");
}
