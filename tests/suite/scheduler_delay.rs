//! Scheduler delay (`engine.scheduler_delay`): a decision takes effect
//! after the policy call's (fixed or measured) time; jobs keep their GPUs
//! meanwhile and the next round starts that much later.

use crate::common;
use common::*;
use schedlab::cluster::parse_cluster;
use schedlab::perf::ModelZoo;
use schedlab::workload::{load_named, Trace};

fn run_delayed(
    jobs: Vec<schedlab::workload::JobSpec>,
    policy: &str,
    set: &[(&str, &str)],
    delay_s: &str,
) -> Vec<schedlab::metrics::JobMetrics> {
    let trace = Trace::from_jobs("test", jobs).unwrap();
    let c = parse_cluster("t4:1x1").unwrap();
    let engine = [("scheduler_delay", "fixed"), ("scheduler_delay_s", delay_s)];
    run_engine(&trace, &c, &ModelZoo::builtin(), policy, set, &engine).1
}

/// Event-driven FIFO with a 100 s delay: a is decided at 10 and starts at
/// 110; b, arriving while that decision is pending, is considered at 110
/// (an empty decision, since a holds the GPU, in effect at 210), then at
/// a's completion at 210, and starts at 310.
#[test]
fn an_event_driven_decision_waits_and_calls_made_meanwhile_follow_it() {
    let jobs = vec![rigid("a", 10.0, 1, 100.0), rigid("b", 20.0, 1, 30.0)];
    let j = run_delayed(jobs.clone(), "fifo", &[], "100");
    assert!(close(jct(&j, "a"), 200.0), "{}", jct(&j, "a"));
    assert!(close(jct(&j, "b"), 320.0), "{}", jct(&j, "b"));
    // Zero delay is today's engine.
    let j = run_delayed(jobs, "fifo", &[], "0");
    assert!(close(jct(&j, "a"), 100.0) && close(jct(&j, "b"), 120.0));
}

/// Round-based FIFO (60 s rounds) with a 15 s delay: each round's decision
/// takes effect 15 s after its tick and the next tick comes 75 s later.
#[test]
fn rounds_are_longer_by_the_delay() {
    let jobs = vec![rigid("a", 10.0, 1, 100.0), rigid("b", 20.0, 1, 30.0)];
    let trace = Trace::from_jobs("test", jobs).unwrap();
    let c = parse_cluster("t4:1x1").unwrap();
    let engine = [("scheduler_delay", "fixed"), ("scheduler_delay_s", "15")];
    let (_, j, out) = run_engine(
        &trace,
        &c,
        &ModelZoo::builtin(),
        "fifo",
        &[("round_s", "60")],
        &engine,
    );
    // a: tick 60, runs 75-175; b: ticks 135 (blocked) and 210, runs 225-255.
    assert!(close(jct(&j, "a"), 165.0), "{}", jct(&j, "a"));
    assert!(close(jct(&j, "b"), 235.0), "{}", jct(&j, "b"));
    let ticks: Vec<f64> = out.rounds.iter().map(|r| r.t).collect();
    assert_eq!(ticks, vec![60.0, 135.0, 210.0]);
    assert!(out.rounds.iter().all(|r| r.delay_s == Some(15.0)));
}

/// A decision that names a job which completes before the decision takes
/// effect drops that job: SRTF at 105 preempts a (5 s left) for b (3 s);
/// a completes at 110, the decision lands at 115 and starts b alone.
#[test]
fn a_job_that_completes_during_the_delay_is_dropped_from_the_decision() {
    let jobs = vec![rigid("a", 0.0, 1, 100.0), rigid("b", 105.0, 1, 3.0)];
    let j = run_delayed(jobs, "srtf", &[], "10");
    assert!(close(jct(&j, "a"), 110.0), "{}", jct(&j, "a"));
    assert!(close(jct(&j, "b"), 13.0), "{}", jct(&j, "b"));
}

/// Whole runs under a delay finish every job, for event-driven and
/// round-based policies, and a longer delay costs the jobs time.
#[test]
fn whole_runs_finish_under_a_delay_and_pay_for_it() {
    let trace = load_named("afs-mini").unwrap().unwrap();
    let c = parse_cluster("afs-64").unwrap();
    let zoo = ModelZoo::builtin();
    for (policy, set) in [
        ("tiresias", vec![]),
        ("afs-l", vec![]),
        ("srtf", vec![("round_s", "60")]),
    ] {
        let avg = |d: &str| {
            let engine = [("scheduler_delay", "fixed"), ("scheduler_delay_s", d)];
            let (s, _, out) = run_engine(&trace, &c, &zoo, policy, &set, &engine);
            assert_eq!(out.incomplete, 0, "{policy} with delay {d}");
            s.avg_jct_s.unwrap()
        };
        let (none, slow) = (avg("0"), avg("120"));
        assert!(slow > none, "{policy}: {slow} <= {none}");
    }
}

/// The measured delay follows the call's wall-clock time: it is recorded
/// per round and the run still completes.
#[test]
fn a_measured_delay_is_recorded_per_round() {
    let trace = load_named("afs-mini").unwrap().unwrap();
    let c = parse_cluster("afs-64").unwrap();
    let engine = [
        ("scheduler_delay", "measured"),
        ("scheduler_delay_scale", "1000"),
    ];
    let (_, _, out) = run_engine(&trace, &c, &ModelZoo::builtin(), "gavel", &[], &engine);
    assert_eq!(out.incomplete, 0);
    let rounds = &out.rounds;
    assert!(rounds.iter().all(|r| r
        .delay_s
        .is_some_and(|d| (d - 1000.0 * r.policy_s).abs() < 1e-9)));
}
