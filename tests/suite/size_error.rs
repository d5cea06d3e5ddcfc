//! Job-size estimation error (`engine.size_error`, PCS Fig. 10, issue 50):
//! each job's estimated size is its true size times a factor from
//! U[1-p, 1+p] drawn per job from the run's seed; policies and predictions
//! see the estimate, the run itself the truth.

use crate::common::rigid;
use schedlab::cluster::parse_cluster;
use schedlab::perf::ModelZoo;
use schedlab::policy::{self, Knowledge, Policy, Trigger};
use schedlab::sim::{Decision, EngineConfig, Outcome, Simulation, View};
use schedlab::workload::Trace;
use std::sync::{Arc, Mutex};

/// 40 one-GPU jobs on a 4-GPU cluster: a queue forms, so forks run several jobs.
fn trace() -> Trace {
    let jobs = (0..40)
        .map(|i| {
            rigid(
                &format!("j{i}"),
                30.0 * i as f64,
                1,
                1000.0 + 10.0 * i as f64,
            )
        })
        .collect();
    Trace::from_jobs("size-error", jobs).unwrap()
}

fn run(policy: &str, engine: &[(&str, &str)], seed: u64) -> Outcome {
    run_set(policy, &[], engine, seed)
}

fn run_set(policy: &str, set: &[(&str, &str)], engine: &[(&str, &str)], seed: u64) -> Outcome {
    let own = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(k, x)| (k.to_string(), x.to_string()))
            .collect()
    };
    let (p, _) = policy::build(policy, &own(set), 1).unwrap();
    let mut cfg = EngineConfig::from_overrides(&own(engine)).unwrap();
    cfg.seed = seed;
    let cluster = parse_cluster("v100:1x4").unwrap();
    let mut sim = Simulation::new(&trace(), &cluster, &ModelZoo::builtin(), p, cfg).unwrap();
    sim.run(&mut |_| true).unwrap()
}

/// Each job's (true work, declared work, finish, predicted finish).
fn rows(o: &Outcome) -> Vec<(f64, f64, Option<f64>, Option<f64>)> {
    o.jobs
        .iter()
        .map(|j| (j.work, j.declared_work, j.finish, j.predicted_finish))
        .collect()
}

#[test]
fn the_factor_is_in_range_seeded_and_changes_only_estimates() {
    let p = 0.3;
    let plain = run("fifo", &[("predict", "true")], 5);
    let a = run("fifo", &[("predict", "true"), ("size_error", "0.3")], 5);
    assert_eq!(
        rows(&a),
        rows(&run(
            "fifo",
            &[("predict", "true"), ("size_error", "0.3")],
            5
        ))
    );
    let other_seed = run("fifo", &[("predict", "true"), ("size_error", "0.3")], 6);
    let factors =
        |o: &Outcome| -> Vec<f64> { o.jobs.iter().map(|j| j.declared_work / j.work).collect() };
    let f = factors(&a);
    assert_ne!(f, factors(&other_seed), "another seed, other factors");
    assert!(
        f.iter()
            .all(|x| (1.0 - p - 1e-12..=1.0 + p + 1e-12).contains(x)),
        "a factor outside [0.7, 1.3]: {f:?}"
    );
    assert!(
        f.iter().any(|x| *x < 0.9) && f.iter().any(|x| *x > 1.1),
        "{f:?}"
    );
    for (e, t) in a.jobs.iter().zip(&plain.jobs) {
        // The truth is untouched: FIFO's order does not depend on sizes,
        // so every job finishes as without the error.
        assert_eq!(e.work, t.work);
        assert_eq!(e.finish, t.finish);
    }
    // FIFO's predictions are exact with known sizes and not with the error.
    let exact = |o: &Outcome| {
        o.jobs
            .iter()
            .filter(|j| j.predicted_finish == j.finish)
            .count()
    };
    assert_eq!(exact(&plain), plain.jobs.len());
    assert!(
        exact(&a) < a.jobs.len() / 4,
        "{} exact of {}",
        exact(&a),
        a.jobs.len()
    );
}

#[test]
fn a_lone_jobs_prediction_is_its_factor_times_its_run_time() {
    // The first job runs alone from its arrival: its prediction is the
    // estimated size over the rate, so predicted / actual run time = factor.
    let o = run("fifo", &[("predict", "true"), ("size_error", "0.4")], 11);
    let j = &o.jobs[0];
    let factor = j.declared_work / j.work;
    let predicted = j.predicted_finish.unwrap() - j.arrival;
    let actual = j.finish.unwrap() - j.arrival;
    assert!(
        (predicted / actual - factor).abs() < 1e-9,
        "predicted {predicted}, actual {actual}, factor {factor}"
    );
}

#[test]
fn error_zero_is_the_run_without_the_parameter() {
    for policy in ["fifo", "srsf", "afs-l", "pcs"] {
        let none = run(policy, &[("predict", "true")], 3);
        let zero = run(policy, &[("predict", "true"), ("size_error", "0")], 3);
        assert_eq!(rows(&none), rows(&zero), "{policy}");
    }
}

#[test]
fn size_aware_policies_decide_on_the_estimates() {
    // PCS classes jobs by estimated size: with a class bound at 1,200 s
    // (the sizes are 1,000-1,390 s) a 40% error moves jobs between classes,
    // so some job finishes at another time than with known sizes.
    let set = [("thresholds", "1200"), ("weights", "0.9,0.1")];
    let finishes = |o: Outcome| o.jobs.iter().map(|j| j.finish).collect::<Vec<_>>();
    let known = finishes(run_set("pcs", &set, &[], 2));
    assert_ne!(
        known,
        finishes(run_set("pcs", &set, &[("size_error", "0.4")], 2))
    );
    // Oracle policies (srsf, afs-l) decide on the truth: only their
    // predictions see the estimates.
    let truth = |e: &[(&str, &str)]| finishes(run("srsf", e, 2));
    assert_eq!(truth(&[]), truth(&[("size_error", "0.4")]));
}

#[test]
fn a_bad_size_error_is_refused_naming_the_key() {
    for bad in ["1", "-0.1", "x"] {
        let e = EngineConfig::from_overrides(&[("size_error".into(), bad.into())])
            .unwrap_err()
            .to_string();
        assert!(e.contains("size_error"), "{e}");
    }
}

/// What a probe saw at each call: (job, estimated remaining, oracle's true remaining).
type Seen = Arc<Mutex<Vec<(u32, f64, f64)>>>;

/// FIFO, watched: the probe records what it may see and what the oracle says.
#[derive(Clone)]
struct Probe {
    seen: Seen,
    inner: Box<dyn Policy>,
}

impl Policy for Probe {
    fn name(&self) -> &str {
        "probe" // not in the registry: its knowledge is what it declares here
    }
    fn trigger(&self) -> Trigger {
        self.inner.trigger()
    }
    fn knowledge(&self) -> Knowledge {
        Knowledge::Oracle
    }
    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let oracle = view.oracle().expect("declared oracle");
        for &j in view.active() {
            self.seen.lock().unwrap().push((
                j,
                view.declared_remaining_work(j),
                oracle.remaining_work(j),
            ));
        }
        self.inner.schedule(view, out);
    }
}

#[test]
fn the_estimated_remaining_work_stays_factor_times_the_true_one() {
    let seen: Seen = Arc::default();
    let (inner, _) = policy::build("fifo", &[], 1).unwrap();
    let probe = Box::new(Probe {
        seen: seen.clone(),
        inner,
    });
    let mut cfg = EngineConfig::from_overrides(&[("size_error".into(), "0.4".into())]).unwrap();
    cfg.seed = 9;
    let cluster = parse_cluster("v100:1x4").unwrap();
    let mut sim = Simulation::new(&trace(), &cluster, &ModelZoo::builtin(), probe, cfg).unwrap();
    let out = sim.run(&mut |_| true).unwrap();
    let seen = seen.lock().unwrap();
    let partly_done = seen
        .iter()
        .filter(|(j, _, t)| *t < out.jobs[*j as usize].work - 1.0 && *t > 1.0)
        .count();
    assert!(partly_done > 20, "only {partly_done} looks at running jobs");
    for (j, est, truth) in seen.iter() {
        let r = &out.jobs[*j as usize];
        let factor = r.declared_work / r.work;
        assert!((0.6 - 1e-9..=1.4 + 1e-9).contains(&factor));
        assert!(
            (est - factor * truth).abs() <= 1e-9 * r.work,
            "job {j}: estimate {est}, truth {truth}, factor {factor}"
        );
    }
}
