//! STS and its baselines (issue 18): the engine's early stops, GPU cost
//! meter and sharing under STS; STS against EDF with deterministic epochs;
//! bad input.

use crate::common;

use common::run_engine;
use schedlab::cluster::parse_cluster;
use schedlab::perf::price::gpu_price_usd_h;
use schedlab::perf::{ModelZoo, ZooSettings};
use schedlab::workload::gen::generate;
use schedlab::workload::Trace;
use schedlab_core::settings::Settings;

fn sts_trace(nodes: u32, arrivals: &str, seed: u64, widen: &str) -> Trace {
    let set = vec![
        ("nodes".to_string(), nodes.to_string()),
        ("arrivals".to_string(), arrivals.to_string()),
        ("due_widen".to_string(), widen.to_string()),
    ];
    generate("sts", None, seed, &set).unwrap()
}

#[test]
fn with_certain_epochs_sts_meets_every_due_date_edf_meets() {
    let zoo = ModelZoo::builtin();
    let cluster = parse_cluster("sts-10").unwrap();
    // Exponential arrivals (the paper's first pattern). Under the loaded
    // patterns with certain epochs STS misses more than EDF (docs/STS.md).
    for (arrivals, seed) in [("exponential", 1), ("exponential", 2), ("exponential", 3)] {
        let trace = sts_trace(10, arrivals, seed, "1");
        let certain = [("early_stop", "false")];
        let (edf, edf_jobs, _) = run_engine(&trace, &cluster, &zoo, "edf", &[], &certain);
        let (sts, sts_jobs, _) = run_engine(&trace, &cluster, &zoo, "sts", &[], &certain);
        assert_eq!(sts.completed, trace.jobs.len());
        for (a, b) in edf_jobs.iter().zip(&sts_jobs) {
            if a.tardiness_s == Some(0.0) {
                assert_eq!(
                    b.tardiness_s,
                    Some(0.0),
                    "{arrivals}: {} late under STS only",
                    b.name
                );
            }
        }
        // And costs no more GPU time than EDF's choices.
        assert!(
            sts.gpu_cost_usd <= edf.gpu_cost_usd * 1.05,
            "{arrivals}: {} vs {}",
            sts.gpu_cost_usd,
            edf.gpu_cost_usd
        );
    }
}

#[test]
fn early_stops_are_hidden_draws_shared_by_every_policy() {
    let zoo = ModelZoo::builtin();
    let cluster = parse_cluster("sts-10").unwrap();
    let trace = sts_trace(10, "exponential", 5, "1");
    let (_, _, a) = run_engine(&trace, &cluster, &zoo, "sts", &[], &[]);
    let (_, _, b) = run_engine(&trace, &cluster, &zoo, "edf", &[], &[]);
    let (_, _, full) = run_engine(
        &trace,
        &cluster,
        &zoo,
        "edf",
        &[],
        &[("early_stop", "false")],
    );
    let mut stopped = 0;
    for ((x, y), z) in a.jobs.iter().zip(&b.jobs).zip(&full.jobs) {
        assert_eq!(x.work, y.work, "common random numbers");
        assert!(x.work <= z.work && x.work >= 11.0, "{} epochs", x.work);
        assert!((x.work - x.work.round()).abs() < 1e-9, "whole epochs");
        stopped += (x.work < z.work) as u32;
    }
    assert!(stopped > 50, "{stopped} of 100 stopped early");
}

#[test]
fn gpu_cost_is_the_price_of_busy_gpus_and_shared_gpus_count_once() {
    let zoo = ModelZoo::builtin();
    let cluster = parse_cluster("sts-a100-4").unwrap();
    let trace = sts_trace(4, "high", 7, "1.2");
    let (plain, _, po) = run_engine(&trace, &cluster, &zoo, "sts", &[], &[]);
    let price = gpu_price_usd_h(cluster.kinds[0]).unwrap();
    let t = &po.gpu_time[0];
    assert!((plain.gpu_cost_usd - price * t.busy_gpu_h).abs() < 1e-6 * plain.gpu_cost_usd);
    // Every job runs on whole GPUs without sharing: busy time = GPU time.
    assert!((t.busy_gpu_h - plain.gpu_hours).abs() < 1e-6 * plain.gpu_hours);
    let (shared, _, so) = run_engine(&trace, &cluster, &zoo, "sts", &[("sharing", "true")], &[]);
    let slices = so
        .timeline
        .segments
        .iter()
        .filter(|s| s.share < 1.0)
        .count();
    assert!(slices > 0, "some jobs share GPUs");
    // At no instant do the slices on one GPU add up to more than the GPU.
    let mut events: Vec<(u32, f64, f64)> = Vec::new(); // (gpu, time, +/- share)
    for sg in so.timeline.segments.iter().filter(|s| s.share < 1.0) {
        for g in so.timeline.gpus_of(sg) {
            events.push((*g, sg.start, sg.share));
            events.push((*g, sg.end, -sg.share));
        }
    }
    // Ends before starts at the same instant.
    events.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then(a.1.total_cmp(&b.1))
            .then(a.2.total_cmp(&b.2))
    });
    let (mut gpu, mut load, mut most) = (u32::MAX, 0.0f64, 0.0f64);
    for (g, _, d) in events {
        if g != gpu {
            gpu = g;
            load = 0.0;
        }
        load += d;
        most = most.max(load);
    }
    assert!(most <= 1.0 + 1e-9 && most > 0.1, "{most}");
    // A shared GPU is paid once: busy GPU-hours below the summed shares' time
    // would be impossible, and fewer than if every slice paid a whole GPU.
    assert!(so.gpu_time[0].busy_gpu_h >= shared.gpu_hours - 1e-9);
    assert_eq!(shared.completed, trace.jobs.len());
}

#[test]
fn idle_gpus_on_powered_nodes_cost_theta_of_their_price() {
    let zoo = ModelZoo::builtin();
    let cluster = parse_cluster("sts-a100-2").unwrap();
    let trace = sts_trace(2, "exponential", 9, "1");
    let (s0, _, o) = run_engine(&trace, &cluster, &zoo, "edf", &[], &[]);
    let (s1, _, _) = run_engine(&trace, &cluster, &zoo, "edf", &[], &[("idle_price", "0.5")]);
    let price = gpu_price_usd_h(cluster.kinds[0]).unwrap();
    let idle = o.gpu_time[0].idle_on_gpu_h;
    assert!(idle > 0.0);
    assert!(
        (s1.gpu_cost_usd - s0.gpu_cost_usd - 0.5 * price * idle).abs() < 1e-6 * s1.gpu_cost_usd
    );
}

#[test]
fn every_sts_policy_finishes_a_high_load_trace() {
    let zoo = ModelZoo::builtin();
    let cluster = parse_cluster("sts-10").unwrap();
    let trace = sts_trace(10, "high", 11, "1");
    let mut costs = Vec::new();
    for p in ["sts", "edf", "avg-edf", "rg", "avg-rg", "dp", "avg-dp"] {
        let set: &[(&str, &str)] = if p.ends_with("rg") {
            &[("iterations", "10")]
        } else {
            &[]
        };
        let (s, _, _) = run_engine(&trace, &cluster, &zoo, p, set, &[]);
        assert_eq!(s.completed, trace.jobs.len(), "{p}");
        assert!(
            s.total_cost_usd >= s.gpu_cost_usd && s.gpu_cost_usd > 0.0,
            "{p}"
        );
        costs.push((p, s.total_cost_usd, s.due_missed_frac));
    }
    // STS plans for the full run: no due date missed on this trace.
    assert_eq!(costs[0].2, 0.0, "{costs:?}");
}

/// The zoo's knobs for the placeholder profiles (`--set zoo.KEY`) and the
/// generator's, which must match.
fn profiled(knobs: &[(&str, &str)]) -> ModelZoo {
    let mut zoo = ModelZoo::builtin();
    let pairs: Vec<(String, String)> = knobs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    zoo.apply_settings(&ZooSettings::resolve("zoo", &pairs).unwrap());
    zoo
}

#[test]
fn the_profiles_knobs_change_the_models_and_the_due_dates() {
    let a100 = schedlab::cluster::GpuKind::by_name("a100-80").unwrap();
    let k80 = schedlab::cluster::GpuKind::by_name("k80-board").unwrap();
    let rate = |zoo: &ModelZoo, kind, gpus| {
        let id = zoo.lookup("sts/pytorch-resnet-bs32-sgd").unwrap();
        let schedlab::perf::Behaviour::Table(t) = &zoo.get(id).behaviour else {
            panic!("a table model")
        };
        t.rate(kind, gpus)
    };
    let base = ModelZoo::builtin();
    let slow = profiled(&[("sts_a100_speed", "3"), ("sts_beta_scale", "3")]);
    assert!((rate(&base, a100, 1) / rate(&base, k80, 1) - 6.0).abs() < 1e-9);
    assert!((rate(&slow, a100, 1) / rate(&slow, k80, 1) - 3.0).abs() < 1e-9);
    // Poorer scaling: 8 GPUs buy less over one.
    let gain = |zoo: &ModelZoo| rate(zoo, k80, 8) / rate(zoo, k80, 1);
    assert!(gain(&slow) < gain(&base) - 1.0);
    // Slower A100s leave later due dates (they come from the fastest configuration).
    let gen = |knob: &str| {
        let set = vec![("sts_a100_speed".to_string(), knob.to_string())];
        generate("sts", Some(50), 4, &set).unwrap()
    };
    let (fast, slow_t) = (gen("6"), gen("3"));
    for (a, b) in fast.jobs.iter().zip(&slow_t.jobs) {
        assert_eq!(a.model, b.model);
        assert!(b.due.unwrap() - b.arrival > a.due.unwrap() - a.arrival);
    }
    let bad = vec![("sts_a100_speed".to_string(), "0.5".to_string())];
    let err = ZooSettings::resolve("zoo", &bad).unwrap_err().to_string();
    assert!(err.contains("sts_a100_speed"), "{err}");
}

#[test]
fn sts_does_not_bounce_shared_jobs_between_types() {
    // Poor multi-GPU scaling: a K80 board cannot match an M60's speed at any
    // count. Ranking such a step down by cost alone made jobs alternate
    // between a K80 shared slot and an M60, ever faster (650 moves per job,
    // 52 s for 300 jobs); now they move about 4 times.
    let zoo = profiled(&[("sts_beta_scale", "3")]);
    let cluster = parse_cluster("sts-k80m60-30").unwrap();
    let set = vec![
        ("nodes".to_string(), "30".to_string()),
        ("family".to_string(), "k80m60".to_string()),
        ("arrivals".to_string(), "high".to_string()),
        ("due_widen".to_string(), "1.2".to_string()),
        ("sts_beta_scale".to_string(), "3".to_string()),
    ];
    let trace = generate("sts", None, 1, &set).unwrap();
    let sharing = [("sharing".to_string(), "true".to_string())];
    let (policy, _) = schedlab::policy::build("sts", &sharing, 1).unwrap();
    let mut sim =
        schedlab::sim::Simulation::new(&trace, &cluster, &zoo, policy, Default::default()).unwrap();
    // Stop early rather than spin if it comes back (it took over 10^6 events).
    let limit = 100_000;
    let out = sim
        .run(&mut |p| p.events < limit)
        .unwrap_or_else(|e| panic!("{e}: more than {limit} events"));
    assert!(out.jobs.iter().all(|j| j.finish.is_some()));
    let moves = out.jobs.iter().map(|j| j.restarts as f64).sum::<f64>() / out.jobs.len() as f64;
    assert!(moves < 20.0, "{moves} restarts per job");
}

#[test]
fn bad_sts_input_names_file_line_and_field() {
    let head = "name,arrival,model,gpus,due,weight,mem_gb\n";
    let early = format!("{head}a,100,sts/pytorch-resnet-bs32-sgd,1,50,0.03,4\n");
    let e = Trace::parse("early.csv", &early, None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("early.csv") && e.contains("line 2") && e.contains("due"),
        "{e}"
    );
    let huge = format!("{head}a,0,sts/pytorch-resnet-bs32-sgd,1,5000,0.03,200\n");
    let trace = Trace::parse("huge.csv", &huge, None).unwrap();
    let (p, _) = schedlab::policy::build("sts", &[], 1).unwrap();
    let e = schedlab::sim::Simulation::new(
        &trace,
        &parse_cluster("sts-10").unwrap(),
        &ModelZoo::builtin(),
        p,
        Default::default(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(
        e.contains("huge.csv") && e.contains("mem_gb") && e.contains("80"),
        "{e}"
    );
    let e = schedlab::perf::epochs::EpochDistribution::new(vec![0.0, 0.3, 0.3])
        .unwrap_err()
        .to_string();
    assert!(e.contains("not normalised"), "{e}");
}

#[test]
fn reproduce_sts_runs_every_method_and_reports_the_targets() {
    use schedlab::repro::sts::{reproduce, to_table, Options, METHODS};
    let opts = Options {
        sizes: vec![3],
        patterns: vec!["high".into()],
        instances: 1,
        timing_sizes: vec![3],
        settings: Default::default(),
        seed: 4,
        data: None,
    };
    let r = reproduce(&opts, &mut |_| {}).unwrap();
    assert!(
        r.placeholder,
        "results on the placeholder profiles are labelled"
    );
    assert_eq!(r.scenarios.len(), METHODS.len());
    for row in &r.scenarios {
        assert!(
            row.total_cost_usd >= row.gpu_cost_usd && row.gpu_cost_usd > 0.0,
            "{row:?}"
        );
    }
    // Sharing rows for both families; timing for sts, rg, edf at 2N and 4N jobs.
    assert_eq!(r.sharing.len(), 2);
    assert_eq!(r.timing.len(), 6);
    assert!(r.timing.iter().all(|t| t.call_ms > 0.0));
    for id in [
        "R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "R10", "R11", "R12",
    ] {
        assert!(r.targets.iter().any(|t| t.id == id), "{id} missing");
    }
    let text = to_table(&r);
    assert!(text.contains("R6") && text.contains("avg-dp"), "{text}");
    assert!(text.contains("PLACEHOLDER RESULTS"), "{text}");
    let bad = Options {
        patterns: vec!["bursty".into()],
        ..opts
    };
    assert!(reproduce(&bad, &mut |_| {}).is_err());
}

#[test]
fn table_models_bring_their_own_early_stopping_law() {
    // A user's profile (e.g. the paper's Zenodo data) as a table model with an epoch law.
    let json = r#"[{"name": "my-net", "work": 4, "epochs": [0, 0.5, 0, 0, 0.5],
        "types": {"a100-80": {"counts": [1, 2], "rates": [0.01, 0.018]}}}]"#;
    let mut zoo = ModelZoo::builtin();
    for m in schedlab::perf::table_models_from_json("mine.json", json).unwrap() {
        zoo.insert(m);
    }
    let jobs: Vec<_> = (0..40)
        .map(|i| {
            let mut j =
                schedlab::workload::JobSpec::new(format!("j{i}"), i as f64 * 1000.0, "my-net", 1);
            j.due = Some(i as f64 * 1000.0 + 800.0);
            j.weight = 0.03;
            j
        })
        .collect();
    let trace = Trace::from_jobs("mine", jobs).unwrap();
    let cluster = parse_cluster("sts-a100-1").unwrap();
    let (s, _, o) = run_engine(&trace, &cluster, &zoo, "sts", &[], &[]);
    assert_eq!(s.completed, 40);
    // Half the jobs stop after one epoch, the others run all four.
    let short = o
        .jobs
        .iter()
        .filter(|j| (j.work - 1.0).abs() < 1e-9)
        .count();
    assert!((10..=30).contains(&short), "{short}");
    assert!(o
        .jobs
        .iter()
        .all(|j| (j.work - 1.0).abs() < 1e-9 || (j.work - 4.0).abs() < 1e-9));
}

#[test]
fn sts_announces_its_staircases_and_the_timeline_keeps_them() {
    let zoo = ModelZoo::builtin();
    let cluster = parse_cluster("sts-10").unwrap();
    let trace = sts_trace(10, "exponential", 1, "1");
    let (_, _, o) = run_engine(&trace, &cluster, &zoo, "sts", &[], &[]);
    let plans = &o.timeline.plans;
    assert!(plans.len() >= trace.jobs.len(), "{} plans", plans.len());
    for p in plans {
        let declared = o.jobs[p.job as usize].declared_work;
        assert!((p.steps.last().unwrap().until - declared).abs() < 1e-6);
        assert!(p.from <= p.steps[0].until);
        for w in p.steps.windows(2) {
            // A staircase: more GPUs later, thresholds in order.
            assert!(w[0].gpus < w[1].gpus && w[0].until <= w[1].until, "{p:?}");
        }
    }
    // A repeated plan is not stored twice in a row.
    for w in plans.windows(2) {
        assert!(w[0].job != w[1].job || w[0].steps != w[1].steps);
    }
    let (_, _, fifo) = run_engine(&trace, &cluster, &zoo, "edf", &[], &[]);
    assert!(fifo.timeline.plans.is_empty());
}
