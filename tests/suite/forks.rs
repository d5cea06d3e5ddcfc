//! Forks and forecasts (`View::forecast`, `Simulation::forecast`): a
//! forecast under FIFO is exact, a fork leaves its parent unchanged, and a
//! fork copies only the job states it changes.

use schedlab::cluster::parse_cluster;
use schedlab::perf::ModelZoo;
use schedlab::policy::{self, Policy, Trigger};
use schedlab::sim::{Decision, EngineConfig, Forecast, Simulation, View};
use schedlab::workload::{load_named, Trace};
use std::sync::{Arc, Mutex};

fn bundled() -> Trace {
    load_named("afs-mini").unwrap().unwrap()
}

fn sim_with(policy: Box<dyn Policy>, trace: &Trace, overrides: &[(&str, &str)]) -> Simulation {
    let set: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Simulation::new(
        trace,
        &parse_cluster("afs-64").unwrap(),
        &ModelZoo::builtin(),
        policy,
        EngineConfig::from_overrides(&set).unwrap(),
    )
    .unwrap()
}

fn fifo() -> Box<dyn Policy> {
    policy::build("fifo", &[], 1).unwrap().0
}

/// Wraps a policy: at every call with arrivals it forecasts with a copy of
/// itself (as PCS does) and keeps the forecast, then decides as the inner
/// policy would.
#[derive(Clone)]
struct Forecasting {
    inner: Box<dyn Policy>,
    seen: Arc<Mutex<Vec<Forecast>>>,
}

impl Policy for Forecasting {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn trigger(&self) -> Trigger {
        self.inner.trigger()
    }
    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        if !view.arrived().is_empty() {
            let f = view.forecast(self.inner.clone()).unwrap();
            self.seen.lock().unwrap().push(f);
        }
        self.inner.schedule(view, out);
    }
}

/// Under FIFO without backfilling later arrivals never delay earlier jobs,
/// so every forecast made at an arrival, for every job present, is the
/// job's actual completion to the last bit.
#[test]
fn forecasts_under_fifo_equal_the_actual_completions() {
    let trace = bundled();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let policy = Forecasting {
        inner: fifo(),
        seen: seen.clone(),
    };
    let out = sim_with(Box::new(policy), &trace, &[])
        .run(&mut |_| true)
        .unwrap();
    assert_eq!(out.incomplete, 0);
    let seen = seen.lock().unwrap();
    assert!(seen.len() > 50, "forecasts made: {}", seen.len());
    let mut checked = 0;
    for f in seen.iter() {
        for (&job, &finish) in &f.finish {
            let actual = out.jobs[job as usize].finish.unwrap();
            assert_eq!(
                finish.map(f64::to_bits),
                Some(actual.to_bits()),
                "job {job} forecast at {}: {finish:?} against {actual}",
                f.at
            );
            checked += 1;
        }
    }
    assert!(checked > seen.len(), "checked {checked}");
}

/// A forecast by a policy that does not know true lengths runs on declared
/// work: with hidden lengths it differs from the truth, and an oracle
/// policy's forecast (the engine's) is exact again.
#[test]
fn forecasts_use_only_what_the_policy_knows() {
    let trace = bundled();
    let noisy = [("length_noise", "0.5")];
    let seen = Arc::new(Mutex::new(Vec::new()));
    let policy = Forecasting {
        inner: fifo(),
        seen: seen.clone(),
    };
    let out = sim_with(Box::new(policy), &trace, &noisy)
        .run(&mut |_| true)
        .unwrap();
    let seen = seen.lock().unwrap();
    let last = seen.last().unwrap();
    let wrong = last
        .finish
        .iter()
        .filter(|(&j, &f)| f != out.jobs[j as usize].finish)
        .count();
    assert!(
        wrong > 0,
        "a declared-knowledge forecast matched hidden lengths"
    );

    // The engine's own forecast (true lengths) after the last arrival is exact.
    let mut s = sim_with(fifo(), &trace, &noisy);
    s.run_until(trace.jobs.last().unwrap().arrival).unwrap();
    let f = s.forecast(fifo()).unwrap();
    assert!(!f.finish.is_empty());
    for (&job, &finish) in &f.finish {
        assert_eq!(finish, out.jobs[job as usize].finish, "job {job}");
    }
}

/// Forking and running the fork to its end changes nothing in the parent:
/// the parent's results so far and its continuation are the same as
/// without the fork.
#[test]
fn a_fork_leaves_its_parent_unchanged() {
    let trace = bundled();
    for name in ["fifo", "tiresias", "afs-l"] {
        let build = || policy::build(name, &[], 3).unwrap().0;
        let mid = trace.jobs[trace.jobs.len() / 2].arrival + 5.0;
        let mut parent = sim_with(build(), &trace, &[("timeline", "true")]);
        parent.run_until(mid).unwrap();
        let before = comparable(&parent.outcome());
        let mut fork = parent.fork_without_arrivals();
        fork.run(&mut |_| true).unwrap();
        parent.forecast(build()).unwrap();
        assert!(
            before == comparable(&parent.outcome()),
            "{name}: a fork changed its parent"
        );
        let forked = parent.run(&mut |_| true).unwrap();
        let plain = sim_with(build(), &trace, &[("timeline", "true")])
            .run(&mut |_| true)
            .unwrap();
        assert!(
            comparable(&forked) == comparable(&plain),
            "{name}: the parent's run changed after a fork"
        );
    }
}

/// A run's results without the wall-clock timings.
fn comparable(out: &schedlab::sim::Outcome) -> String {
    let mut out = out.clone();
    for r in &mut out.rounds {
        r.policy_s = 0.0;
        r.solver_s = 0.0;
    }
    serde_json::to_string(&out).unwrap()
}

/// A fork shares every job-state chunk it does not change with its parent:
/// running it to the end copies only chunks holding jobs live at the fork,
/// and it records no timeline.
#[test]
fn a_fork_copies_only_live_job_state() {
    let trace = bundled();
    let mut parent = sim_with(fifo(), &trace, &[("timeline", "true")]);
    parent
        .run_until(trace.jobs[trace.jobs.len() / 2].arrival)
        .unwrap();
    let live: Vec<u32> = parent
        .jobs()
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            matches!(
                s.phase,
                schedlab::sim::Phase::Waiting | schedlab::sim::Phase::Running
            )
        })
        .map(|(i, _)| i as u32)
        .collect();
    assert!(!live.is_empty());
    let mut fork = parent.fork_without_arrivals();
    assert_eq!(
        fork.jobs().shared_chunks(parent.jobs()),
        parent.jobs().chunk_count()
    );
    let out = fork.run(&mut |_| true).unwrap();
    assert!(out.timeline.segments.is_empty() && out.rounds.is_empty());
    let mut live_chunks: Vec<usize> = live.iter().map(|&j| j as usize / 64).collect();
    live_chunks.dedup();
    let shared = fork.jobs().shared_chunks(parent.jobs());
    assert_eq!(
        shared,
        parent.jobs().chunk_count() - live_chunks.len(),
        "chunks copied beyond those of the {} live jobs",
        live.len()
    );
}
