//! Finish-time fairness against simulated isolated runs (`isolated`; the
//! Sia artifact's ftf_simulator, spec seed004 §3.5.5):
//! - a job that was alone on a one-type cluster for its whole life has
//!   N_avg = 1, so its isolated run is the run itself: rho = 1 exactly;
//! - on two types, the reference is the GPU-share-weighted mean of the job's
//!   JCTs alone on each type with at most v GPUs, each one an ordinary run;
//! - with several jobs, rhos and the summary's worst rho / unfair fraction
//!   agree, and every completed job gets a rho.

use schedlab::cluster::{parse_cluster, Cluster};
use schedlab::isolated::apply_simulated_ftf;
use schedlab::perf::ModelZoo;
use schedlab::report::{run_policy, RunSettings};
use schedlab::workload::{JobSpec, Trace};
use std::sync::Arc;

fn trace(jobs: Vec<JobSpec>) -> Trace {
    let jobs = jobs
        .into_iter()
        .enumerate()
        .map(|(i, mut j)| {
            j.id = i as u32;
            j
        })
        .collect();
    Trace {
        name: "ftf-test".into(),
        format: "native".into(),
        jobs,
        skipped: 0,
        notes: Vec::new(),
        pools: Default::default(),
    }
}

fn sia_setting() -> RunSettings {
    RunSettings::default()
        .with("engine", "calibration", "sia")
        .unwrap()
}

#[test]
fn a_job_alone_all_along_has_rho_one() {
    let zoo = Arc::new(ModelZoo::builtin());
    let cluster = Arc::new(parse_cluster("t4:2x4").unwrap());
    let ov = sia_setting();
    for policy in ["sia", "pollux"] {
        // Arrives within the first round, so the isolated copy keeps its time.
        let t = trace(vec![JobSpec::new("c", 25.0, "cifar10", 1)]);
        let mut run = run_policy(&t, &cluster, &zoo, policy, &ov, 1, &mut |_| true).unwrap();
        apply_simulated_ftf(&mut run, &t, &cluster, &zoo, &ov, 1).unwrap();
        assert_eq!(run.ftf_reference, "simulated");
        let rho = run.jobs[0].ftf_rho.expect("a rho");
        assert!((rho - 1.0).abs() < 1e-9, "{policy}: rho {rho}");
        assert!((run.metrics.ftf_rho_max - rho).abs() < 1e-12);
        assert_eq!(run.metrics.ftf_unfair_frac, 0.0);
    }
}

#[test]
fn two_types_weight_the_isolated_times_by_their_gpus() {
    let zoo = Arc::new(ModelZoo::builtin());
    let both = Arc::new(parse_cluster("t4:2x4,a100:1x4").unwrap());
    let ov = sia_setting();
    let job = JobSpec::new("c", 10.0, "cifar10", 1);
    let t = trace(vec![job.clone()]);
    let mut run = run_policy(&t, &both, &zoo, "sia", &ov, 1, &mut |_| true).unwrap();
    let jct = run.jobs[0].jct_s.unwrap();
    apply_simulated_ftf(&mut run, &t, &both, &zoo, &ov, 1).unwrap();
    // Alone (N_avg = 1): v = 12 GPUs, capped at each type's 8 and 4.
    let alone = |spec: &str, cap: u32| -> f64 {
        let c: Arc<Cluster> = Arc::new(parse_cluster(spec).unwrap());
        let mut j = job.clone();
        j.max_gpus = cap;
        let r = run_policy(&trace(vec![j]), &c, &zoo, "sia", &ov, 1, &mut |_| true).unwrap();
        r.jobs[0].jct_s.unwrap()
    };
    let reference = 8.0 / 12.0 * alone("t4:2x4", 8) + 4.0 / 12.0 * alone("a100:1x4", 4);
    let rho = run.jobs[0].ftf_rho.unwrap();
    assert!(
        (rho - jct / reference).abs() < 1e-9,
        "{rho} vs {}",
        jct / reference
    );
    // On both types at once the job does at least as well as the weighted
    // mean of each alone: sharing nothing, it cannot be treated unfairly.
    assert!(rho <= 1.0 + 1e-9, "{rho}");
}

#[test]
fn every_completed_job_gets_a_rho_and_the_summary_follows() {
    let zoo = Arc::new(ModelZoo::builtin());
    let cluster = Arc::new(parse_cluster("t4:2x4,rtx:1x8").unwrap());
    let ov = sia_setting();
    let jobs = (0..6)
        .map(|i| {
            let model = ["cifar10", "bert", "deepspeech2"][i % 3];
            JobSpec::new(format!("j{i}"), 40.0 * i as f64, model, 1 + (i as u32 % 2))
        })
        .collect();
    let t = trace(jobs);
    let mut run = run_policy(&t, &cluster, &zoo, "sia", &ov, 3, &mut |_| true).unwrap();
    let analytic: Vec<Option<f64>> = run.jobs.iter().map(|j| j.ftf_rho).collect();
    apply_simulated_ftf(&mut run, &t, &cluster, &zoo, &ov, 3).unwrap();
    let rhos: Vec<f64> = run.jobs.iter().filter_map(|j| j.ftf_rho).collect();
    assert_eq!(rhos.len(), run.metrics.completed);
    assert!(rhos.iter().all(|r| r.is_finite() && *r > 0.0));
    let worst = rhos.iter().copied().fold(0.0, f64::max);
    assert_eq!(run.metrics.ftf_rho_max, worst);
    let unfair = rhos.iter().filter(|r| **r > 1.0).count() as f64 / rhos.len() as f64;
    assert_eq!(run.metrics.ftf_unfair_frac, unfair);
    // Alone under Sia a job pays its profiling, round alignment and growth
    // ramp, which the analytic reference leaves out: its rho is lower.
    for (j, a) in run.jobs.iter().zip(analytic) {
        if let (Some(s), Some(a)) = (j.ftf_rho, a) {
            assert!(s < a, "{}: simulated {s} >= analytic {a}", j.name);
        }
    }
}
