//! Completion-time predictions at arrival for every policy (PCS §2.3,
//! `engine.predict`): FIFO's are exact, preemptive policies' are not, the
//! sampling bound keeps the first estimate, and predicting never changes
//! the run.

use schedlab::cluster::parse_cluster;
use schedlab::metrics::evaluate;
use schedlab::perf::ModelZoo;
use schedlab::policy;
use schedlab::sim::{EngineConfig, Outcome, Simulation};
use schedlab::workload::{load_named, Trace};

fn run(name: &str, trace: &Trace, set: &[(&str, &str)]) -> Outcome {
    let set: Vec<(String, String)> = set
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let (p, _) = policy::build(name, &[], 1).unwrap();
    let mut cfg = EngineConfig::from_overrides(&set).unwrap();
    cfg.seed = 1;
    Simulation::new(
        trace,
        &parse_cluster("afs-64").unwrap(),
        &ModelZoo::builtin(),
        p,
        cfg,
    )
    .unwrap()
    .run(&mut |_| true)
    .unwrap()
}

fn summary(
    out: &Outcome,
    trace: &Trace,
) -> (
    schedlab::metrics::Summary,
    Vec<schedlab::metrics::JobMetrics>,
) {
    evaluate(
        out,
        &trace.jobs,
        &parse_cluster("afs-64").unwrap(),
        &ModelZoo::builtin(),
    )
}

/// Under FIFO later arrivals never delay a job, so every prediction made at
/// a job's arrival is its actual completion (PCS: "FIFO always has 0% error").
#[test]
fn fifo_predictions_are_exact_and_preemptive_ones_are_not() {
    let trace = load_named("afs-mini").unwrap().unwrap();
    let out = run("fifo", &trace, &[("predict", "true")]);
    let (s, jobs) = summary(&out, &trace);
    assert_eq!(s.predicted_frac.unwrap(), 1.0);
    for j in &out.jobs {
        assert_eq!(
            j.predicted_finish.map(f64::to_bits),
            j.finish.map(f64::to_bits),
            "job {}",
            j.id
        );
    }
    assert!(jobs.iter().all(|j| j.pred_error_pct == Some(0.0)));
    assert_eq!(s.avg_pred_error_pct.unwrap(), 0.0);

    let out = run("tiresias", &trace, &[("predict", "true")]);
    let (s, _) = summary(&out, &trace);
    assert_eq!(s.predicted_frac.unwrap(), 1.0);
    assert!(
        s.avg_pred_error_pct.unwrap() > 0.5
            && s.p99_pred_error_pct.unwrap() > s.p50_pred_error_pct.unwrap(),
        "{s:?}"
    );
}

/// Predicting forks the run but never changes it.
#[test]
fn predicting_does_not_change_the_run() {
    let trace = load_named("afs-mini").unwrap().unwrap();
    for name in ["tiresias", "afs-l", "maxmin"] {
        let mut with = run(name, &trace, &[("predict", "true")]);
        let without = run(name, &trace, &[]);
        assert!(with.jobs.iter().all(|j| j.predicted_finish.is_some()));
        for j in &mut with.jobs {
            j.predicted_finish = None;
        }
        let strip = |o: &Outcome| {
            let mut o = o.clone();
            o.rounds.iter_mut().for_each(|r| {
                r.policy_s = 0.0;
                r.solver_s = 0.0;
            });
            serde_json::to_string(&o).unwrap()
        };
        assert!(
            strip(&with) == strip(&without),
            "{name}: predictions changed the run"
        );
    }
}

/// With at most `predict_max` expected forecasts only some arrivals fork;
/// jobs whose arrival was skipped get their first estimate from a later
/// forecast, and the sampled run is deterministic.
#[test]
fn sampled_predictions_keep_the_first_estimate() {
    let trace = load_named("afs-mini").unwrap().unwrap();
    let set = [("predict", "true"), ("predict_max", "30")];
    let a = run("tiresias", &trace, &set);
    let b = run("tiresias", &trace, &set);
    let full = run("tiresias", &trace, &[("predict", "true")]);
    let bits = |o: &Outcome| {
        o.jobs
            .iter()
            .map(|j| j.predicted_finish.map(f64::to_bits))
            .collect::<Vec<_>>()
    };
    assert_eq!(bits(&a), bits(&b), "sampling is not deterministic");
    let predicted = a
        .jobs
        .iter()
        .filter(|j| j.predicted_finish.is_some())
        .count();
    assert!(
        predicted > 30 && predicted < trace.jobs.len(),
        "{predicted} of {} predicted",
        trace.jobs.len()
    );
    let later = a
        .jobs
        .iter()
        .zip(&full.jobs)
        .filter(|(x, y)| x.predicted_finish.is_some() && x.predicted_finish != y.predicted_finish)
        .count();
    assert!(later > 0, "no job got its estimate from a later arrival");
}
