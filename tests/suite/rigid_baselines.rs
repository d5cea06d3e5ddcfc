//! Sia's rigid baselines by hand: Gavel's LP (E21) on instances with a
//! known optimum, Themis' bisection (E23) against a brute-force min-max,
//! Shockwave's plan on toys where the plan is obvious, whole simulations
//! where the schedule can be worked out, and TunedJobs on hand-made models.

use crate::common;

use common::{close, run_with};
use schedlab::cluster::{parse_cluster, GpuKind};
use schedlab::perf::{Behaviour, ModelInfo, ModelZoo, SpeedupCurve};
use schedlab::policy::gavel::{finish_time_fairness, max_sum_throughput, rho_of, FtfJob};
use schedlab::policy::helpers::throughput_matrix::Matrix;
use schedlab::policy::shockwave::{logapx, PlanInput, PlanJob, PlanMethod, VirtualView};
use schedlab::rng::Sampler;
use schedlab::solve::SolveFailure;
use schedlab::workload::tune::{tune_job, tune_trace, TuneOptions};
use schedlab::workload::{Adaptivity, JobSpec, Trace};

fn kind(name: &str) -> GpuKind {
    GpuKind::by_name(name).unwrap()
}

fn matrix(t: Vec<Vec<f64>>, gpus: Vec<u32>, caps: Vec<u32>) -> Matrix {
    let n = t.len();
    Matrix {
        jobs: (0..n as u32).collect(),
        gpus,
        batch: vec![0; n],
        kinds: [kind("t4"), kind("a100"), kind("rtx")][..caps.len()].to_vec(),
        caps,
        steps: t.clone(),
        t,
    }
}

fn objective(m: &Matrix, x: &[Vec<f64>]) -> f64 {
    m.t.iter()
        .zip(x)
        .map(|(t, x)| t.iter().zip(x).map(|(a, b)| a * b).sum::<f64>())
        .sum()
}

#[test]
fn gavel_lp_two_jobs_two_types() {
    // Type 0 has 2 GPUs, type 1 one GPU. Job A needs 2 GPUs (so only type 0),
    // job B one GPU. A on type 0 (10) + B on type 1 (2) = 12 beats any split
    // (A half the time on type 0 and B on type 0 the rest: 5 + 3 + ...).
    let m = matrix(
        vec![vec![10.0, 0.0], vec![3.0, 2.0]],
        vec![2, 1],
        vec![2, 1],
    );
    let a = max_sum_throughput(&m);
    assert!(a.fallback.is_none());
    assert!(close(objective(&m, &a.x), 12.0), "{:?}", a.x);
    assert!(close(a.x[0][0], 1.0) && close(a.x[1][1], 1.0), "{:?}", a.x);
}

#[test]
fn gavel_lp_fractional_optimum() {
    // One type, 3 GPUs; two 2-GPU jobs at 10 and 8: the better one runs all
    // the time, the other half of it (2 x 1 + 2 x 0.5 = 3 GPUs): 10 + 4 = 14.
    let m = matrix(vec![vec![10.0], vec![8.0]], vec![2, 2], vec![3]);
    let a = max_sum_throughput(&m);
    assert!(close(objective(&m, &a.x), 14.0));
    assert!(close(a.x[0][0], 1.0) && close(a.x[1][0], 0.5), "{:?}", a.x);
}

fn worst_rho(m: &Matrix, f: &[FtfJob], x: &[Vec<f64>]) -> f64 {
    (0..m.len()).map(|j| rho_of(m, f, x, j)).fold(0.0, f64::max)
}

#[test]
fn themis_bisection_equals_brute_force_one_type() {
    // Three one-GPU jobs share one GPU: x1 + x2 + x3 <= 1.
    let m = matrix(
        vec![vec![2.0], vec![1.0], vec![3.0]],
        vec![1, 1, 1],
        vec![1],
    );
    let f = [
        FtfJob {
            since_start: 100.0,
            remaining: 400.0,
            isolated: 900.0,
        },
        FtfJob {
            since_start: 0.0,
            remaining: 300.0,
            isolated: 1500.0,
        },
        FtfJob {
            since_start: 50.0,
            remaining: 900.0,
            isolated: 1200.0,
        },
    ];
    let a = finish_time_fairness(&m, &f, 1e-6, 200);
    assert!(a.alloc.fallback.is_none());
    let achieved = worst_rho(&m, &f, &a.alloc.x);
    assert!(achieved <= a.rho * (1.0 + 1e-6), "{achieved} vs {}", a.rho);
    let mut best = f64::INFINITY;
    let steps = 1000;
    for i in 0..=steps {
        for k in 0..=(steps - i) {
            let x1 = i as f64 / steps as f64;
            let x2 = k as f64 / steps as f64;
            let x = vec![vec![x1], vec![x2], vec![(1.0 - x1 - x2).max(0.0)]];
            best = best.min(worst_rho(&m, &f, &x));
        }
    }
    // Bisection is at least as good as the grid, and the grid (step 1e-3)
    // comes within 1% of it.
    assert!(
        a.rho <= best * (1.0 + 1e-6),
        "bisection {} grid {best}",
        a.rho
    );
    assert!(best <= a.rho * 1.01, "bisection {} grid {best}", a.rho);
}

#[test]
fn themis_bisection_equals_brute_force_two_types() {
    // Two one-GPU jobs, two types with one GPU each.
    let m = matrix(vec![vec![3.0, 1.0], vec![2.0, 2.0]], vec![1, 1], vec![1, 1]);
    let f = [
        FtfJob {
            since_start: 200.0,
            remaining: 1000.0,
            isolated: 700.0,
        },
        FtfJob {
            since_start: 0.0,
            remaining: 1200.0,
            isolated: 900.0,
        },
    ];
    let a = finish_time_fairness(&m, &f, 1e-6, 200);
    let steps = 40;
    let g = |i: u32| i as f64 / steps as f64;
    let mut best = f64::INFINITY;
    for a1 in 0..=steps {
        for a2 in 0..=(steps - a1) {
            for b1 in 0..=(steps - a1) {
                for b2 in 0..=(steps - b1).min(steps - a2) {
                    let x = vec![vec![g(a1), g(a2)], vec![g(b1), g(b2)]];
                    best = best.min(worst_rho(&m, &f, &x));
                }
            }
        }
    }
    assert!(
        a.rho <= best * (1.0 + 1e-6),
        "bisection {} grid {best}",
        a.rho
    );
    assert!(best <= a.rho * 1.05, "bisection {} grid {best}", a.rho);
    assert!(worst_rho(&m, &f, &a.alloc.x) <= a.rho * (1.0 + 1e-6));
}

#[test]
fn shockwave_runs_the_job_with_most_to_gain() {
    // One GPU, one planned round: a fresh job gains far more log-utility
    // from a round than a half-done one.
    let input = PlanInput {
        jobs: vec![
            PlanJob {
                gpus: 1,
                remaining: 5.0,
                done: 0.5,
                total: 10.0,
                weight: 1.0,
                ftf_cap: None,
            },
            PlanJob {
                gpus: 1,
                remaining: 10.0,
                done: 0.0,
                total: 10.0,
                weight: 1.0,
                ftf_cap: None,
            },
        ],
        capacity: 1,
        rounds: 1,
        k: 0.0,
    };
    for method in [PlanMethod::Exact { node_limit: 1000 }, PlanMethod::Relaxed] {
        let p = input.solve(false, method).unwrap();
        assert_eq!(p.y, vec![vec![false], vec![true]], "{method:?}");
    }
    assert!(logapx(0.1) - logapx(0.0) > logapx(0.6) - logapx(0.5));
    assert!(close(logapx(1.0), 0.0) && close(logapx(0.4), (0.4f64).ln()));
}

#[test]
fn shockwave_balances_identical_jobs() {
    // Two GPUs, ten rounds, three identical one-GPU jobs with more work than
    // the window: concave utility splits the 20 slots 7/7/6.
    let job = PlanJob {
        gpus: 1,
        remaining: 30.0,
        done: 0.0,
        total: 30.0,
        weight: 1.0,
        ftf_cap: None,
    };
    let input = PlanInput {
        jobs: vec![job; 3],
        capacity: 2,
        rounds: 10,
        k: 0.0,
    };
    for method in [
        PlanMethod::Exact { node_limit: 20_000 },
        PlanMethod::Relaxed,
    ] {
        let p = input.solve(false, method).unwrap();
        let mut n: Vec<usize> =
            p.y.iter()
                .map(|r| r.iter().filter(|b| **b).count())
                .collect();
        n.sort();
        assert_eq!(n, vec![6, 7, 7], "{method:?}");
        assert!(input.check(&p.y).is_ok());
    }
}

#[test]
fn shockwave_fairness_rows() {
    // A cap below zero cannot be met; a cap that needs 4 rounds forces them.
    let mut job = PlanJob {
        gpus: 1,
        remaining: 10.0,
        done: 0.0,
        total: 10.0,
        weight: 1.0,
        ftf_cap: Some(-1.0),
    };
    let other = PlanJob {
        ftf_cap: None,
        ..job
    };
    let mut input = PlanInput {
        jobs: vec![job, other],
        capacity: 1,
        rounds: 5,
        k: 0.0,
    };
    assert_eq!(
        input
            .solve(true, PlanMethod::Exact { node_limit: 1000 })
            .unwrap_err(),
        SolveFailure::Infeasible
    );
    job.ftf_cap = Some(6.0);
    // Make the other job the more attractive one without the cap.
    input.jobs = vec![
        job,
        PlanJob {
            done: 0.0,
            remaining: 10.0,
            total: 100.0,
            ..other
        },
    ];
    let free = input
        .solve(false, PlanMethod::Exact { node_limit: 5000 })
        .unwrap();
    let capped = input
        .solve(true, PlanMethod::Exact { node_limit: 5000 })
        .unwrap();
    let rounds = |p: &schedlab::policy::shockwave::Plan| p.y[0].iter().filter(|b| **b).count();
    assert!(rounds(&free) < 4, "{:?}", free.y);
    assert!(rounds(&capped) >= 4 && capped.meets_ftf, "{:?}", capped.y);
}

/// A linear model whose speed depends on the GPU type.
fn typed_model(name: &str, speeds: &[(&str, f64)], restart_s: f64) -> ModelInfo {
    ModelInfo {
        name: name.into(),
        aliases: vec![],
        family: "test".into(),
        description: "test".into(),
        provenance: "test".into(),
        default_batch: 0,
        max_batch: 0,
        max_gpus: 0,
        restart_s,
        mem_gb: 0.0,
        default_work: None,
        epochs: None,
        behaviour: Behaviour::Curve {
            curve: SpeedupCurve::Linear,
            type_speed: speeds.iter().map(|(k, s)| (kind(k), *s)).collect(),
        },
    }
}

fn rigid(name: &str, arrival: f64, model: &str, gpus: u32, work: f64) -> JobSpec {
    let mut j = JobSpec::new(name, arrival, model, gpus).with_work(work);
    j.adaptivity = Adaptivity::Rigid;
    j
}

#[test]
fn gavel_puts_each_job_on_its_best_type() {
    let mut zoo = ModelZoo::builtin();
    zoo.insert(typed_model(
        "a100-lover",
        &[("a100", 4.0), ("t4", 1.0)],
        0.0,
    ));
    zoo.insert(typed_model("flat", &[], 0.0));
    let cluster = parse_cluster("t4:1x2,a100:1x2").unwrap();
    // A: 7200 units = 900 s on 2 a100 (rate 8); B: 7200 units = 3600 s anywhere.
    let trace = Trace::from_jobs(
        "t",
        vec![
            rigid("A", 0.0, "a100-lover", 2, 7200.0),
            rigid("B", 0.0, "flat", 2, 7200.0),
        ],
    )
    .unwrap();
    let (_, jobs, out) = run_with(&trace, &cluster, &zoo, "gavel", &[]);
    assert!(close(common::jct(&jobs, "A"), 900.0));
    assert!(close(common::jct(&jobs, "B"), 3600.0));
    for s in &out.timeline.segments {
        let want = if s.job == 0 { "a100" } else { "t4" };
        assert_eq!(s.kind.name(), want);
    }
    assert!(out.rounds.iter().all(|r| r.fallback.is_none()));
}

#[test]
fn gavel_time_shares_a_fractional_allocation() {
    // Three GPUs on one node, two 2-GPU jobs: the LP must give them 1.5 job-
    // rounds per round between them, and only one fits at a time, so the
    // priorities alternate them and each resume pays the restart delay.
    let mut zoo = ModelZoo::builtin();
    zoo.insert(typed_model("m", &[], 30.0));
    let cluster = parse_cluster("t4:1x3").unwrap();
    let trace = Trace::from_jobs(
        "t",
        vec![
            rigid("A", 0.0, "m", 2, 2.0 * 3600.0),
            rigid("B", 0.0, "m", 2, 2.0 * 3600.0),
        ],
    )
    .unwrap();
    let (_, _, out) = run_with(&trace, &cluster, &zoo, "gavel", &[]);
    assert_eq!(out.incomplete, 0);
    for j in &out.jobs {
        assert!(j.preemptions >= 1, "{} never descheduled", j.name);
        assert!(j.restarts >= 1 && j.restart_s >= 60.0, "{j:?}");
    }
    // Time-sharing: neither finishes in its solo 1 h (+ the first start).
    let first = out
        .jobs
        .iter()
        .map(|j| j.finish.unwrap())
        .fold(f64::INFINITY, f64::min);
    assert!(first > 3600.0 + 30.0, "{first}");
}

#[test]
fn themis_shares_where_gavel_need_not() {
    // One GPU, two equal jobs: Themis' min-max rho splits the GPU, so the
    // jobs alternate and finish close together; both finish under Gavel too.
    let mut zoo = ModelZoo::builtin();
    zoo.insert(typed_model("m", &[], 0.0));
    let cluster = parse_cluster("t4:1x1").unwrap();
    let trace = Trace::from_jobs(
        "t",
        vec![
            rigid("A", 0.0, "m", 1, 3600.0),
            rigid("B", 0.0, "m", 1, 3600.0),
        ],
    )
    .unwrap();
    let (_, jobs, out) = run_with(&trace, &cluster, &zoo, "gavel-ftf", &[]);
    assert!(out.jobs.iter().all(|j| j.preemptions >= 1));
    let (a, b) = (common::jct(&jobs, "A"), common::jct(&jobs, "B"));
    assert!((a - b).abs() <= 720.0 + 1e-6, "{a} {b}");
    let (_, gj, _) = run_with(&trace, &cluster, &zoo, "gavel", &[]);
    assert!(close(
        common::jct(&gj, "A").max(common::jct(&gj, "B")),
        7200.0
    ));
}

#[test]
fn shockwave_repairs_onto_the_majority_type() {
    // Virtual nodes of t4:1x2,a100:1x2,rtx:1x8: t4[2], a100[2], rtx[4], rtx[4].
    let c = parse_cluster("t4:1x2,a100:1x2,rtx:1x8").unwrap();
    let v = VirtualView::new(&c, 4);
    assert_eq!(v.majority_kind(4), Some(kind("rtx")));
    // 10 GPUs: rtx 4 + 4, then t4 2 (the freest, lowest first): rtx.
    assert_eq!(v.majority_kind(10), Some(kind("rtx")));
    assert_eq!(v.majority_kind(13), None);
    // A tie goes to the more powerful type.
    let c2 = parse_cluster("t4:1x2,a100:1x2").unwrap();
    let v2 = VirtualView::new(&c2, 4);
    assert_eq!(v2.repair_order(4), vec![kind("a100"), kind("t4")]);
}

#[test]
fn shockwave_places_a_job_whose_majority_type_is_too_small() {
    // t4:1x4 + a100:1x8 -> virtual t4[4], a100[4], a100[4]. A 6-GPU job
    // takes t4 4 + a100 2: majority t4, where 6 GPUs do not exist; the
    // repair moves on to a100 instead of starving the job.
    let mut zoo = ModelZoo::builtin();
    zoo.insert(typed_model("m", &[], 0.0));
    let cluster = parse_cluster("t4:1x4,a100:1x8").unwrap();
    let v = VirtualView::new(&cluster, 4);
    assert_eq!(v.majority_kind(6), Some(kind("t4")));
    let trace = Trace::from_jobs("t", vec![rigid("A", 0.0, "m", 6, 6.0 * 600.0)]).unwrap();
    let (_, _, out) = run_with(&trace, &cluster, &zoo, "shockwave", &[]);
    assert_eq!(out.incomplete, 0);
    assert!(out
        .timeline
        .segments
        .iter()
        .all(|s| s.kind.name() == "a100"));
}

fn curve_model(name: &str, s: &[f64]) -> ModelInfo {
    ModelInfo {
        behaviour: Behaviour::Curve {
            curve: SpeedupCurve::Table { s: s.to_vec() },
            type_speed: vec![],
        },
        ..typed_model(name, &[], 0.0)
    }
}

#[test]
fn tunedjobs_keeps_the_50_to_80_percent_band() {
    let mut zoo = ModelZoo::builtin();
    // Efficiency s(K)/K: 2 -> 0.95, 4 -> 0.75, 6 -> 0.67, 8 -> 0.55, 10 -> 0.45.
    let s = [1.0, 1.9, 2.5, 3.0, 3.5, 4.0, 4.2, 4.4, 4.45, 4.5];
    let id = zoo.insert(curve_model("band", &s));
    let o = TuneOptions::default();
    // 24 h on one GPU: K = 4, 6, 8 qualify (8 h, 6 h, 5.5 h).
    let job = JobSpec::new("j", 0.0, "band", 1).with_work(24.0 * 3600.0);
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..64 {
        let mut rng = Sampler::new(seed);
        let t = tune_job(&zoo, id, &job, &o, &mut rng).unwrap();
        assert_eq!(
            t.candidates.iter().map(|c| c.0).collect::<Vec<_>>(),
            vec![4, 6, 8]
        );
        assert!(!t.fallback);
        let again = tune_job(&zoo, id, &job, &o, &mut Sampler::new(seed)).unwrap();
        assert_eq!(t, again, "deterministic per seed");
        seen.insert(t.gpus);
    }
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), vec![4, 6, 8]);
    // 48 h on one GPU: only K = 8 runs under 12 h (10.9 h; K = 6 is exactly 12 h).
    let long = JobSpec::new("j", 0.0, "band", 1).with_work(48.0 * 3600.0);
    let t = tune_job(&zoo, id, &long, &o, &mut Sampler::new(1)).unwrap();
    assert_eq!((t.gpus, t.candidates.len()), (8, 1));
    assert!(close(t.jct_s, 48.0 * 3600.0 / 4.4));
}

#[test]
fn tunedjobs_falls_back_to_one_gpu() {
    // Linear scaling is never in the 50-80% band: (1, best batch).
    let zoo = ModelZoo::builtin();
    let id = zoo.lookup("linear").unwrap();
    let mut job = JobSpec::new("j", 0.0, "linear", 4).with_work(3600.0);
    job.batch_size = 64;
    let t = tune_job(
        &zoo,
        id,
        &job,
        &TuneOptions::default(),
        &mut Sampler::new(1),
    )
    .unwrap();
    assert!(t.fallback && t.candidates.is_empty());
    assert_eq!((t.gpus, t.batch), (1, 64));
}

#[test]
fn tunedjobs_trace_errors_name_the_job() {
    let zoo = ModelZoo::builtin();
    let trace = Trace::from_jobs("w.csv", vec![JobSpec::new("j", 0.0, "nosuch", 1)]).unwrap();
    let e = tune_trace(&trace, &zoo, &TuneOptions::default()).unwrap_err();
    assert!(
        e.to_string().contains("nosuch") && e.to_string().contains("w.csv"),
        "{e}"
    );
    // A job with neither work nor duration on a model without a default length.
    let trace = Trace::from_jobs("w.csv", vec![JobSpec::new("j", 0.0, "linear", 1)]).unwrap();
    assert!(tune_trace(&trace, &zoo, &TuneOptions::default()).is_err());
}
