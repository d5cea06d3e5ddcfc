//! Reasons (issue 49), family by family: on a small trace worked out by
//! hand, the reason the engine recorded names the rule that decided and
//! the numbers the paper's rule compares. Where a family's numbers come
//! out of a solver (Gavel's LP, Sia's ILP, Pollux's GA, STS's plans), the
//! test checks the rule the reason states against its own numbers and
//! the run (a job said to run holds GPUs, a plan said on time ends by its
//! due date, the fittest allocation is at least as fit as the alternative).

use crate::common;
use common::*;
use schedlab::cluster::{parse_cluster, Cluster};
use schedlab::explain::{call_reasons, explain, reason_out, ReasonOut};
use schedlab::perf::ModelZoo;
use schedlab::policy;
use schedlab::sim::{EngineConfig, Outcome, Simulation};
use schedlab::workload::{load_named, Adaptivity, JobSpec, Trace};

/// Runs `policy` keeping every call's reasons.
fn run_reasons(
    trace: &Trace,
    cluster: &Cluster,
    zoo: &ModelZoo,
    policy: &str,
    set: &[(&str, &str)],
    engine: &[(&str, &str)],
) -> Outcome {
    let own = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(k, x)| (k.to_string(), x.to_string()))
            .collect()
    };
    let (p, _) = policy::build(policy, &own(set), 1).unwrap();
    let mut cfg = EngineConfig::from_overrides(&own(engine)).unwrap();
    cfg.seed = 1;
    let mut sim = Simulation::new(trace, cluster, zoo, p, cfg).unwrap();
    sim.set_record_reasons(true, None);
    sim.run(&mut |_| true).unwrap()
}

fn rigid_run(jobs: Vec<JobSpec>, cluster: &str, policy: &str, set: &[(&str, &str)]) -> Outcome {
    let trace = Trace::from_jobs("test", jobs).unwrap();
    let c = parse_cluster(cluster).unwrap();
    run_reasons(&trace, &c, &ModelZoo::builtin(), policy, set, &[])
}

/// The job's reasons over its life (as `schedlab explain` prints them).
fn life(o: &Outcome, job: u32) -> Vec<ReasonOut> {
    explain(o, "test", job, None).unwrap().reasons
}

/// The job's reason in the call at time `t`.
fn at(o: &Outcome, job: u32, t: f64) -> ReasonOut {
    life(o, job)
        .into_iter()
        .find(|r| close(r.t, t))
        .unwrap_or_else(|| panic!("job {job} has no reason at t = {t}"))
}

/// Every reason of the run, in call order.
fn all(o: &Outcome) -> Vec<ReasonOut> {
    let log = &o.reasons;
    (0..log.calls.len())
        .flat_map(|c| {
            let t = log.calls[c].t;
            log.records_of_call(c)
                .iter()
                .map(move |r| reason_out(log, t, r))
        })
        .collect()
}

fn num(r: &ReasonOut, field: &str) -> f64 {
    r.values
        .get(field)
        .and_then(|v| v.as_f64())
        .unwrap_or_else(|| panic!("{} has no number '{field}': {:?}", r.rule, r.values))
}

fn text(r: &ReasonOut, field: &str) -> String {
    r.values[field].as_str().unwrap().to_string()
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// FIFO, 4 GPUs: J0 (2 GPUs) runs; J1 (4 GPUs, t = 1) is first in line and
/// does not fit beside it (2 idle), so without backfilling J2 (t = 2) is
/// never looked at; with backfilling J2 (1 GPU) starts as #2 with 2 idle.
#[test]
fn fifo_names_the_blocker_and_the_backfill() {
    let jobs = || {
        vec![
            rigid("J0", 0.0, 2, 100.0),
            rigid("J1", 1.0, 4, 50.0),
            rigid("J2", 2.0, 1, 10.0),
        ]
    };
    let o = rigid_run(jobs(), "t4:1x4", "fifo", &[]);
    let r = at(&o, 0, 0.0);
    assert_eq!((r.rule, r.rank), ("fifo.starts", Some(0)));
    assert_eq!((num(&r, "need"), num(&r, "free")), (2.0, 4.0));
    let r = at(&o, 1, 2.0);
    assert_eq!((r.rule, num(&r, "place")), ("fifo.blocked", 1.0));
    assert_eq!((num(&r, "need"), num(&r, "free")), (4.0, 2.0));
    assert!(
        life(&o, 2).iter().all(|r| r.t >= 100.0),
        "FIFO looks at no job behind the blocker"
    );

    let o = rigid_run(jobs(), "t4:1x4", "fifo", &[("backfill", "true")]);
    assert_eq!(at(&o, 1, 2.0).rule, "fifo.skipped");
    let r = at(&o, 2, 2.0);
    assert_eq!((r.rule, r.rank, r.gpus), ("fifo.starts", Some(1), 1.0));
    assert_eq!((num(&r, "place"), num(&r, "free")), (2.0, 2.0));
}

/// SRTF ranks by remaining time, SRSF by remaining service (time x GPUs):
/// big (4 GPUs, 100 s, service 400) and small (1 GPU, 150 s, service 150).
#[test]
fn srtf_and_srsf_give_their_keys() {
    let jobs = || vec![rigid("big", 0.0, 4, 100.0), rigid("small", 0.0, 1, 150.0)];
    let o = rigid_run(jobs(), "t4:1x4", "srtf", &[]);
    let (b, s) = (at(&o, 0, 0.0), at(&o, 1, 0.0));
    assert_eq!(
        (b.rule, b.rank, num(&b, "remaining")),
        ("srtf.runs", Some(0), 100.0)
    );
    assert_eq!(
        (s.rule, s.rank, num(&s, "remaining")),
        ("srtf.waits", Some(1), 150.0)
    );
    assert_eq!(num(&s, "free"), 0.0, "big took all four GPUs");
    assert_eq!(b.key, Some("remaining"));

    let o = rigid_run(jobs(), "t4:1x4", "srsf", &[]);
    let (b, s) = (at(&o, 0, 0.0), at(&o, 1, 0.0));
    assert_eq!(
        (s.rule, s.rank, num(&s, "service")),
        ("srsf.runs", Some(0), 150.0)
    );
    assert_eq!(
        (b.rule, b.rank, num(&b, "service")),
        ("srsf.waits", Some(1), 400.0)
    );
    assert_eq!((num(&b, "need"), num(&b, "free")), (4.0, 3.0));
}

/// The page's queue in the policy's order (`call_reasons`): SRTF on one
/// 4-GPU node with three jobs at t = 0 ranks them by remaining time, 50 s
/// (mid) before 100 s (big) before 150 s (small); the call at or before
/// t = 10 is the one at 0, and there is none before the first call.
#[test]
fn call_reasons_list_a_call_in_rank_order() {
    let jobs = vec![
        rigid("big", 0.0, 4, 100.0),
        rigid("small", 0.0, 1, 150.0),
        rigid("mid", 0.0, 2, 50.0),
    ];
    let o = rigid_run(jobs, "t4:1x4", "srtf", &[]);
    let c = call_reasons(&o.reasons, 10.0).expect("a call at t = 0");
    assert_eq!(c.call_t, 0.0);
    let order: Vec<(u32, Option<u32>)> = c.reasons.iter().map(|r| (r.job, r.rank)).collect();
    // Job ids are in arrival order, ties by trace order: big 0, small 1, mid 2.
    assert_eq!(order, vec![(2, Some(0)), (0, Some(1)), (1, Some(2))]);
    let rem: Vec<f64> = c.reasons.iter().map(|r| num(r, "remaining")).collect();
    assert_eq!(rem, vec![50.0, 100.0, 150.0]);
    assert!(c.reasons.iter().all(|r| r.key == Some("remaining")));
    // The same order as each job's `ahead` list in `explain --at`.
    let e = explain(&o, "srtf", 1, Some(10.0)).unwrap();
    let ahead: Vec<u32> = e.at.unwrap().ahead.iter().map(|r| r.job).collect();
    assert_eq!(ahead, vec![2, 0]);
    assert!(call_reasons(&o.reasons, -1.0).is_none());
}

/// Tiresias, two queues, t1 = 100 GPU-s, one GPU: J1 (t = 50) waits in Q0
/// behind J0; J0 is demoted to Q1 at exactly t = 100 with 100 GPU-s
/// attained, and J1 (Q0) then runs ahead of it.
#[test]
fn tiresias_demotes_at_exactly_the_threshold() {
    let jobs = vec![rigid("J0", 0.0, 1, 300.0), rigid("J1", 50.0, 1, 60.0)];
    let o = rigid_run(
        jobs,
        "t4:1x1",
        "tiresias",
        &[("queues", "2"), ("t1", "100")],
    );
    let w = at(&o, 1, 50.0);
    assert_eq!(
        (w.rule, num(&w, "queue"), num(&w, "place")),
        ("tiresias.waits", 0.0, 2.0)
    );
    assert_eq!((num(&w, "attained"), num(&w, "threshold")), (0.0, 100.0));

    let demotions: Vec<_> = life(&o, 0)
        .into_iter()
        .filter(|r| r.rule == "tiresias.demoted")
        .collect();
    assert_eq!(demotions.len(), 1, "one demotion: {demotions:?}");
    let d = &demotions[0];
    assert!(close(d.t, 100.0), "demoted at {}", d.t);
    assert_eq!((num(d, "from"), num(d, "queue")), (0.0, 1.0));
    assert!(close(num(d, "attained"), 100.0) && num(d, "threshold") == 100.0);
    assert_eq!((num(d, "place"), d.gpus), (2.0, 0.0), "J1 in Q0 goes first");
    let r = at(&o, 1, 100.0);
    assert_eq!((r.rule, r.rank, r.gpus), ("tiresias.runs", Some(0), 1.0));
}

/// AFS-L, 5 GPUs, two elastic jobs: A (100 units, speedups 1, 1.5, 1.6, ..)
/// is shorter than B (1000 units, 1, 1.9, 2.7, ..). Stage one gives each
/// one GPU. GPU 3: A's gain g = 0.5 beats B's saved h = 0.9/1.9 = 0.474.
/// GPU 4: h_B = 0.474 > g_A = 0.1/1.5. GPU 5: h_B = 0.8/2.7 = 0.296 >
/// g_A = 0.067, so B, the job with the larger ratio, gets the 5th GPU.
#[test]
fn afs_gives_the_fifth_gpu_to_the_larger_ratio() {
    let mut zoo = zoo_with("toy-a", &[1.0, 1.5, 1.6, 1.65, 1.7]);
    let zb = zoo_with("toy-b", &[1.0, 1.9, 2.7, 3.4, 4.0]);
    zoo.insert(zb.get(zb.lookup("toy-b").unwrap()).clone());
    let job = |name: &str, model: &str, work: f64| {
        let mut j = JobSpec::new(name, 0.0, model, 1).with_work(work);
        j.adaptivity = Adaptivity::StrongScaling;
        j
    };
    let trace = Trace::from_jobs(
        "toy",
        vec![job("A", "toy-a", 100.0), job("B", "toy-b", 1000.0)],
    )
    .unwrap();
    let o = run_reasons(
        &trace,
        &parse_cluster("gtx1080:1x5").unwrap(),
        &zoo,
        "afs-l",
        &[],
        &[],
    );
    let (a, b) = (at(&o, 0, 0.0), at(&o, 1, 0.0));
    assert_eq!((a.gpus, b.gpus), (2.0, 3.0));
    assert_eq!(b.rule, "afs-l.longer_won");
    assert_eq!((num(&b, "gpus"), num(&b, "rival")), (3.0, 0.0));
    assert!(near(num(&b, "h"), 0.8 / 2.7), "{:?}", b.values);
    assert!(near(num(&b, "rival_g"), 0.1 / 1.5), "{:?}", b.values);
    assert!(num(&b, "h") > num(&b, "rival_g"));
    assert!(near(num(&b, "len"), 1000.0 / 1.9) && near(num(&b, "rival_len"), 100.0 / 1.5));
    // A's last GPU (its 2nd) won the other way: g_A = 0.5 against h_B.
    assert_eq!(
        (a.rule, num(&a, "gpus"), num(&a, "rival")),
        ("afs-l.shorter_won", 2.0, 1.0)
    );
    assert!(near(num(&a, "g"), 0.5) && near(num(&a, "rival_h"), 0.9 / 1.9));
    assert_eq!(
        (a.rank, b.rank),
        (Some(0), Some(1)),
        "stage one: shortest first"
    );
}

/// Max-min, 4 GPUs, two elastic linear jobs: 2 + 2, the level 2.
#[test]
fn maxmin_states_the_water_level() {
    let mk = |name: &str, work: f64| elastic(name, 0.0, "linear", 1, work);
    let o = rigid_run(
        vec![mk("A", 400.0), mk("B", 200.0)],
        "t4:1x4",
        "maxmin",
        &[],
    );
    for j in [0, 1] {
        let r = at(&o, j, 0.0);
        assert_eq!(r.rule, "maxmin.share");
        assert_eq!(
            (num(&r, "share"), num(&r, "level"), r.gpus),
            (2.0, 2.0, 2.0)
        );
        assert_eq!((num(&r, "jobs"), num(&r, "total")), (2.0, 4.0));
    }
    // B ends at 100 s; A alone then holds all four.
    let r = at(&o, 0, 100.0);
    assert_eq!((r.gpus, num(&r, "jobs")), (4.0, 1.0));
}

/// Optimus, 4 GPUs: A (100 units, 1, 2, 2.5, 2.6) and B (100 units, 1,
/// 1.2, 1.3, 1.35) start on one GPU each. A's 2nd GPU saves 100 (1 − 1/2)
/// = 50 s, B's 100 (1 − 1/1.2) = 16.7 s: GPU 3 to A. A's 3rd would save
/// 100 (1/2 − 1/2.5) = 10 s < 16.7 s: GPU 4 to B. The smallest winner is
/// B's 16.7 s.
#[test]
fn optimus_gives_each_gpu_to_the_largest_saving() {
    let mut zoo = zoo_with("toy-a", &[1.0, 2.0, 2.5, 2.6]);
    let zb = zoo_with("toy-b", &[1.0, 1.2, 1.3, 1.35]);
    zoo.insert(zb.get(zb.lookup("toy-b").unwrap()).clone());
    let trace = Trace::from_jobs(
        "toy",
        vec![
            elastic("A", 0.0, "toy-a", 1, 100.0),
            elastic("B", 0.0, "toy-b", 1, 100.0),
        ],
    )
    .unwrap();
    let o = run_reasons(
        &trace,
        &parse_cluster("t4:1x4").unwrap(),
        &zoo,
        "optimus",
        &[],
        &[],
    );
    let (a, b) = (at(&o, 0, 0.0), at(&o, 1, 0.0));
    assert_eq!(
        (a.rule, a.gpus, b.rule, b.gpus),
        ("optimus.grew", 2.0, "optimus.grew", 2.0)
    );
    assert!(near(num(&a, "saved_last"), 50.0) && near(num(&a, "saved_next"), 10.0));
    assert!(near(num(&b, "saved_last"), 100.0 / 6.0));
    assert!(near(num(&b, "saved_next"), 100.0 * (1.0 / 1.2 - 1.0 / 1.3)));
    assert!(near(num(&a, "cutoff"), 100.0 / 6.0) && near(num(&b, "cutoff"), 100.0 / 6.0));
}

/// PCS with one class (weight 1) on the Fig. 1 toy (one GPU): the class
/// gets the GPU and serves it first come first served. At t = 1, J1 holds
/// it (#1 of 3) while J2 (#2) and J3 (#3) wait.
#[test]
fn pcs_one_class_is_first_come_first_served() {
    let trace = schedlab::repro::pcs::toy_trace();
    let one = [("thresholds", ""), ("weights", "1")];
    let o = run_reasons(
        &trace,
        &parse_cluster("v100:1x1").unwrap(),
        &ModelZoo::builtin(),
        "pcs",
        &one,
        &[("predict", "true")],
    );
    let r = at(&o, 0, 1.0);
    assert_eq!((r.rule, r.gpus, num(&r, "class")), ("pcs.share", 1.0, 0.0));
    assert_eq!(
        (
            num(&r, "class_share"),
            num(&r, "weight"),
            num(&r, "class_jobs")
        ),
        (1.0, 1.0, 3.0)
    );
    for (j, place) in [(1, 2.0), (2, 3.0)] {
        let r = at(&o, j, 1.0);
        assert_eq!(
            (r.rule, r.gpus, num(&r, "place")),
            ("pcs.waits", 0.0, place)
        );
    }
}

/// Themis: in each auction the reasons rank the jobs by rho, the largest
/// first, and the winners take no more than the GPUs offered.
#[test]
fn themis_ranks_by_rho_and_the_auction_adds_up() {
    let trace = load_named("afs-mini").unwrap().unwrap();
    let o = run_reasons(
        &trace,
        &parse_cluster("afs-64").unwrap(),
        &ModelZoo::builtin(),
        "themis",
        &[],
        &[],
    );
    let reasons = all(&o);
    assert!(reasons.iter().any(|r| r.rule == "themis.won"));
    let log = &o.reasons;
    for c in 0..log.calls.len() {
        let mut rs: Vec<_> = log
            .records_of_call(c)
            .iter()
            .map(|r| reason_out(log, log.calls[c].t, r))
            .filter(|r| r.rule.starts_with("themis."))
            .collect();
        rs.sort_by(|a, b| num(a, "place").total_cmp(&num(b, "place")));
        for w in rs.windows(2) {
            assert!(
                rho(&w[0]) >= rho(&w[1]),
                "rho order at {}: {:?}",
                w[0].t,
                (&w[0], &w[1])
            );
        }
        let won: f64 = rs
            .iter()
            .filter(|r| r.rule == "themis.won")
            .map(|r| num(r, "won"))
            .sum();
        if let Some(r) = rs.first() {
            assert!(
                won <= num(r, "offered") + 1e-9,
                "won {won} of {}",
                num(r, "offered")
            );
        }
        for r in rs
            .iter()
            .filter(|r| r.rule == "themis.lost" || r.rule == "themis.waits")
        {
            assert_eq!(r.gpus, 0.0, "{r:?}");
            assert!(
                num(r, "offered") > 0.0,
                "nothing offered is its own rule: {r:?}"
            );
        }
    }
}

/// A job's rho: infinite (JSON null) while it holds nothing yet.
fn rho(r: &ReasonOut) -> f64 {
    r.values["rho"].as_f64().unwrap_or(f64::INFINITY)
}

/// The first `n` jobs of a bundled trace.
fn head(name: &str, n: usize) -> Trace {
    let t = load_named(name).unwrap().unwrap();
    Trace::from_jobs(name, t.jobs.into_iter().take(n).collect()).unwrap()
}

/// Gavel and gavel-ftf: a job said to run this round holds GPUs, and the
/// priority given is that of the pair it ran on (0 exactly when the
/// allocation gives it no time there); one said to wait holds none.
#[test]
fn gavel_runs_only_what_its_allocation_gives_time() {
    let trace = head("sia-philly", 24);
    let c = parse_cluster("sia-hetero-64").unwrap();
    for p in ["gavel", "gavel-ftf"] {
        let o = run_reasons(&trace, &c, &ModelZoo::builtin(), p, &[], &[]);
        let rs = all(&o);
        assert!(rs.iter().any(|r| r.rule.ends_with(".runs")), "{p}");
        for r in &rs {
            match r.rule {
                "gavel.runs" | "gavel-ftf.runs" => {
                    // The pair it ran on: priority x / received, so 0 exactly
                    // when its share there is 0 (a fill of idle GPUs).
                    assert!(r.gpus > 0.0, "{r:?}");
                    assert_eq!(num(r, "x") > 1e-9, num(r, "priority") > 0.0, "{r:?}");
                    assert!(num(r, "x") <= num(r, "x_total") + 1e-9, "{r:?}");
                }
                "gavel.waits" | "gavel-ftf.waits" => assert_eq!(r.gpus, 0.0, "{r:?}"),
                _ => {}
            }
        }
    }
}

/// Sia (and COpter): a chosen configuration holds GPUs; a job the ILP
/// leaves out holds none.
#[test]
fn sia_reasons_match_the_allocation() {
    let trace = head("sia-philly", 24);
    let c = parse_cluster("sia-hetero-64").unwrap();
    for set in [&[][..], &[("solver", "copter")][..]] {
        let o = run_reasons(&trace, &c, &ModelZoo::builtin(), "sia", set, &[]);
        let rs = all(&o);
        assert!(rs.iter().any(|r| r.rule == "sia.chosen"), "{set:?}");
        for r in &rs {
            match r.rule {
                "sia.chosen" => {
                    assert!(r.gpus > 0.0 && num(r, "configs") >= 1.0, "{r:?}");
                    assert!(r.words.contains(&text(r, "config")));
                }
                "sia.left_out" | "sia.unplaced" | "sia.profiling" => {
                    assert_eq!(r.gpus, 0.0, "{r:?}")
                }
                _ => {}
            }
        }
    }
}

/// Pollux: the GA's fittest allocation is at least as fit as the best
/// one that changes a job's GPUs; a job it leaves out holds none.
#[test]
fn pollux_fittest_beats_the_alternative() {
    let trace = head("sia-philly", 12);
    let c = parse_cluster("sia-hetero-64").unwrap();
    let o = run_reasons(
        &trace,
        &c,
        &ModelZoo::builtin(),
        "pollux",
        &[("generations", "10")],
        &[],
    );
    let rs = all(&o);
    assert!(rs.iter().any(|r| r.rule == "pollux.holds"));
    for r in &rs {
        if let (Some(f), Some(alt)) = (
            r.values.get("fitness").and_then(|v| v.as_f64()),
            r.values.get("alt_fitness").and_then(|v| v.as_f64()),
        ) {
            assert!(f >= alt - 1e-9, "{r:?}");
        }
        match r.rule {
            // The GA's row may span GPU types; the job runs on the GPUs of
            // the row's majority type, which the reason gives as `placed`.
            "pollux.holds" => {
                assert!(
                    r.gpus == num(r, "placed") && r.gpus <= num(r, "gpus"),
                    "{r:?}"
                )
            }
            "pollux.left_out" => assert_eq!(r.gpus, 0.0, "{r:?}"),
            _ => {}
        }
    }
}

/// STS: a plan said to be on time ends by its due date, a late one after.
#[test]
fn sts_on_time_means_before_the_due_date() {
    let trace = schedlab::workload::gen::generate("sts", Some(20), 1, &[]).unwrap();
    let c = parse_cluster("sts-10").unwrap();
    let o = run_reasons(&trace, &c, &ModelZoo::builtin(), "sts", &[], &[]);
    let rs = all(&o);
    assert!(rs.iter().any(|r| r.rule == "sts.on_time"));
    for r in &rs {
        match r.rule {
            "sts.on_time" => assert!(
                num(r, "finish") <= num(r, "due") + 1e-6 && r.gpus > 0.0,
                "{r:?}"
            ),
            // The planner decides in time left; the absolute times may
            // round to equal at the boundary.
            "sts.late" => assert!(num(r, "finish") >= num(r, "due") * (1.0 - 1e-12), "{r:?}"),
            "sts.waits" => assert_eq!(r.gpus, 0.0, "{r:?}"),
            _ => {}
        }
    }
}

/// Shockwave: a job planned into this round or filled runs; one left for
/// a later round holds no GPU.
#[test]
fn shockwave_runs_what_its_plan_or_fill_gives() {
    let trace = head("sia-philly-homog", 16);
    let o = run_reasons(
        &trace,
        &parse_cluster("homog-64").unwrap(),
        &ModelZoo::builtin(),
        "shockwave",
        &[],
        &[],
    );
    let rs = all(&o);
    assert!(rs.iter().any(|r| r.rule == "shockwave.planned"));
    for r in &rs {
        match r.rule {
            "shockwave.planned" => assert!(r.gpus > 0.0 && num(r, "planned") >= 1.0, "{r:?}"),
            "shockwave.fill" => assert!(r.gpus > 0.0, "{r:?}"),
            "shockwave.later" => assert_eq!(r.gpus, 0.0, "{r:?}"),
            _ => {}
        }
    }
}

/// Pools (the anticipatory Fig. 1 example): under per-pool FCFS a job
/// starts within its quota and the first waiting job of a pool is its
/// head; A-SIA lends GPUs only when the reservation leaves room.
#[test]
fn pool_and_anticipatory_reasons_state_quota_and_lending() {
    let trace = schedlab::workload::gen::generate("anticipatory-fig1", None, 1, &[]).unwrap();
    let mut c = parse_cluster("v100:1x8").unwrap();
    c.adopt_pools(&trace.pools).unwrap();
    let o = run_reasons(&trace, &c, &ModelZoo::builtin(), "pool-fcfs", &[], &[]);
    let rs = all(&o);
    assert!(rs.iter().any(|r| r.rule == "pool.within_quota"));
    assert!(rs.iter().any(|r| r.rule == "pool.head_waits"));
    for r in &rs {
        match r.rule {
            "pool.within_quota" => {
                assert!(num(r, "used") <= num(r, "quota") && r.gpus > 0.0, "{r:?}")
            }
            "pool.head_waits" => assert_eq!(r.rank, Some(0)),
            "pool.borrows" => panic!("per-pool FCFS never lends: {r:?}"),
            _ => {}
        }
    }
    let o = run_reasons(
        &trace,
        &c,
        &ModelZoo::builtin(),
        "anticipatory",
        &[("windows_min", "20,40")],
        &[],
    );
    let lent: Vec<_> = all(&o)
        .into_iter()
        .filter(|r| r.rule == "anticipatory.lent")
        .collect();
    assert!(!lent.is_empty(), "A-SIA lends in Fig. 1");
    for r in &lent {
        assert!(
            num(r, "usable") >= num(r, "need") && num(r, "used") > num(r, "quota"),
            "{r:?}"
        );
        assert!(r.gpus > 0.0);
    }
}
