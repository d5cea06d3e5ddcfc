//! Engine behaviour: forking, determinism, rounds, bookkeeping.

use crate::common;
use common::*;
use schedlab::cluster::parse_cluster;
use schedlab::perf::ModelZoo;
use schedlab::policy;
use schedlab::sim::{EngineConfig, Simulation};
use schedlab::workload::{load_named, JobSpec, Trace};

fn bundled() -> Trace {
    load_named("afs-mini").unwrap().unwrap()
}

fn sim(policy_name: &str, trace: &Trace) -> Simulation {
    let (p, _) = policy::build(policy_name, &[], 3).unwrap();
    Simulation::new(
        trace,
        &parse_cluster("afs-64").unwrap(),
        &ModelZoo::builtin(),
        p,
        EngineConfig::default(),
    )
    .unwrap()
}

/// A fork taken mid-run, run to the end, finishes exactly like the original.
#[test]
fn a_fork_finishes_like_the_original() {
    let trace = bundled();
    for name in ["fifo", "srtf", "tiresias", "maxmin"] {
        let mut original = sim(name, &trace);
        let mid = trace.jobs[trace.jobs.len() / 2].arrival + 17.0;
        original.run_until(mid).unwrap();
        assert!(original.now() > 0.0 && !original.is_finished());
        let mut fork = original.clone();
        let a = original.run(&mut |_| true).unwrap();
        let b = fork.run(&mut |_| true).unwrap();
        assert_eq!(a.incomplete, 0);
        for (x, y) in a.jobs.iter().zip(&b.jobs) {
            assert_eq!(
                x.finish.map(f64::to_bits),
                y.finish.map(f64::to_bits),
                "{name}: job {}",
                x.id
            );
            assert_eq!(x.restarts, y.restarts);
        }
    }
}

/// Without future arrivals, a fork finishes the jobs already present, and
/// never later than in the full run for a policy that only gains from
/// fewer competitors (FIFO: later arrivals never delay earlier ones).
#[test]
fn fork_without_arrivals_forecasts_present_jobs() {
    let trace = bundled();
    let mut original = sim("fifo", &trace);
    let mid = trace.jobs[60].arrival;
    original.run_until(mid).unwrap();
    let present: Vec<u32> = (0..trace.jobs.len() as u32)
        .filter(|j| trace.jobs[*j as usize].arrival <= mid)
        .collect();
    let mut fork = original.fork_without_arrivals();
    let f = fork.run(&mut |_| true).unwrap();
    let full = original.run(&mut |_| true).unwrap();
    assert_eq!(f.incomplete, trace.jobs.len() - present.len());
    for j in present {
        let (a, b) = (
            f.jobs[j as usize].finish.unwrap(),
            full.jobs[j as usize].finish.unwrap(),
        );
        assert!(a <= b + 1e-6, "job {j}: forecast {a} later than actual {b}");
    }
}

#[test]
fn runs_are_deterministic() {
    let trace = bundled();
    for info in policy::registry() {
        let a = sim(info.name, &trace).run(&mut |_| true).unwrap();
        let b = sim(info.name, &trace).run(&mut |_| true).unwrap();
        let bits = |o: &schedlab::sim::Outcome| {
            o.jobs
                .iter()
                .map(|j| j.finish.unwrap().to_bits())
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(&a), bits(&b), "{}", info.name);
    }
}

/// GPU-seconds per job equal the sum of its timeline segments, and the
/// timeline never double-books a GPU.
#[test]
fn timeline_agrees_with_job_accounting() {
    let trace = bundled();
    for name in ["srtf", "maxmin"] {
        let out = sim(name, &trace).run(&mut |_| true).unwrap();
        let mut per_job = vec![0.0; trace.jobs.len()];
        for s in &out.timeline.segments {
            per_job[s.job as usize] += (s.end - s.start) * s.gpu_count as f64;
        }
        for (j, r) in out.jobs.iter().enumerate() {
            assert!(
                close(per_job[j], r.gpu_s),
                "{name} job {j}: timeline {} vs {}",
                per_job[j],
                r.gpu_s
            );
        }
        // Sweep each GPU's segments: no overlaps.
        let mut by_gpu: Vec<Vec<(f64, f64)>> = vec![Vec::new(); 64];
        for s in &out.timeline.segments {
            for g in out.timeline.gpus_of(s) {
                by_gpu[*g as usize].push((s.start, s.end));
            }
        }
        for (g, mut v) in by_gpu.into_iter().enumerate() {
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
            for w in v.windows(2) {
                assert!(w[1].0 >= w[0].1 - 1e-9, "{name}: GPU {g} double-booked");
            }
        }
    }
}

/// Round-based calls: a job arriving at 10 s is first seen at the 60 s tick
/// (as in the Pollux simulator), and a completion mid-round leaves the GPU
/// idle until the next tick.
#[test]
fn rounds_delay_decisions_to_ticks() {
    let jobs = vec![rigid("a", 10.0, 1, 100.0), rigid("b", 20.0, 1, 30.0)];
    let (_, j) = run(jobs, "t4:1x1", "fifo", &[("round_s", "60")]);
    // a: starts at 60, ends 160; b: seen at 60 but blocked, starts at the 180 tick.
    assert!(close(jct(&j, "a"), 150.0), "{}", jct(&j, "a"));
    assert!(close(jct(&j, "b"), 190.0), "{}", jct(&j, "b"));
}

#[test]
fn impossible_requests_are_refused_with_the_line() {
    let text = "name,arrival,model,gpus,duration\na,0,linear,4,10\nb,1,linear,65,10\n";
    let trace = Trace::parse("big.csv", text, None).unwrap();
    let (p, _) = policy::build("fifo", &[], 1).unwrap();
    let e = Simulation::new(
        &trace,
        &parse_cluster("homog-64").unwrap(),
        &ModelZoo::builtin(),
        p,
        EngineConfig::default(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(
        e.contains("big.csv: line 3, field 'gpus'") && e.contains("65 GPUs"),
        "{e}"
    );
    let trace = Trace::parse(
        "m.csv",
        "name,arrival,model,gpus,duration\na,0,gpt9,1,10\n",
        None,
    )
    .unwrap();
    let (p, _) = policy::build("fifo", &[], 1).unwrap();
    let e = Simulation::new(
        &trace,
        &parse_cluster("homog-64").unwrap(),
        &ModelZoo::builtin(),
        p,
        EngineConfig::default(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(
        e.contains("line 2, field 'model'") && e.contains("unknown model 'gpt9'"),
        "{e}"
    );
}

/// A policy that never schedules anything.
#[derive(Clone)]
struct Never(Option<f64>);

impl schedlab::policy::Policy for Never {
    fn name(&self) -> &str {
        "never"
    }
    fn trigger(&self) -> schedlab::policy::Trigger {
        schedlab::policy::Trigger {
            on_events: self.0.is_none(),
            round_s: self.0,
        }
    }
    fn schedule(&mut self, _: &schedlab::sim::View<'_>, _: &mut schedlab::sim::Decision) {}
}

/// A policy that starves jobs leaves the run stopped and reported, not hung,
/// whether it is event-driven or round-based.
#[test]
fn a_starved_run_stops_and_reports() {
    let trace = Trace::from_jobs(
        "t",
        vec![JobSpec::new("x", 0.0, "linear", 1).with_duration(10.0)],
    )
    .unwrap();
    for round in [None, Some(60.0)] {
        let mut sim = Simulation::new(
            &trace,
            &parse_cluster("t4:1x1").unwrap(),
            &ModelZoo::builtin(),
            Box::new(Never(round)),
            EngineConfig::default(),
        )
        .unwrap();
        let out = sim.run(&mut |_| true).unwrap();
        assert_eq!(out.incomplete, 1);
        assert!(
            out.stop_reason.contains("unscheduled"),
            "{}",
            out.stop_reason
        );
    }
}
