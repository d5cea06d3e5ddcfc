//! AFS (NSDI'21) acceptance tests: Appendix A, rule (3), Algorithm 1's two
//! stages, AFS-P's processor sharing, and hand-checked baselines.

use crate::common;
use common::*;
use proptest::prelude::*;
use schedlab::cluster::parse_cluster;
use schedlab::perf::ModelZoo;
use schedlab::policy::afs::rule::{gain, longer_wins, saved};
use schedlab::workload::{JobSpec, Trace};

/// Appendix A with the stream of future jobs (spec seed003 §2.2): A and B
/// at t = 0 on 2 GPUs (2 h on one GPU; on two, A takes 1 h, B 1.5 h), then
/// identical jobs taking 2 h on one GPU and x h on two, the first at 1 h and
/// then every x h. The equal split (each job one GPU) beats SRTF for every
/// x in (1, 2); so does AFS-L, which splits here because its rule (3) sees
/// the contention. Without the stream SRTF's 1.75 h is optimal.
#[test]
fn appendix_a_equal_split_beats_srtf_once_future_jobs_arrive() {
    let h = 3600.0;
    for x in [1.1, 1.25, 1.4, 1.5, 1.6, 1.75, 1.9] {
        let mut zoo = zoo_with("toy-a", &[1.0, 2.0]);
        for (name, s2) in [("toy-b", 2.0 / 1.5), ("toy-f", 2.0 / x)] {
            let z = zoo_with(name, &[1.0, s2]);
            zoo.insert(z.get(z.lookup(name).unwrap()).clone());
        }
        let mut jobs = vec![
            elastic("A", 0.0, "toy-a", 2, 2.0 * h),
            elastic("B", 0.0, "toy-b", 2, 2.0 * h),
        ];
        for i in 0..40 {
            jobs.push(elastic(
                &format!("F{i}"),
                (1.0 + x * i as f64) * h,
                "toy-f",
                2,
                2.0 * h,
            ));
        }
        let trace = Trace::from_jobs("toy-stream", jobs).unwrap();
        let cluster = parse_cluster("gtx1080:1x2").unwrap();
        let (srtf, _, _) = run_with(&trace, &cluster, &zoo, "srtf", &[]);
        // The equal split: max-min with every job capped at one GPU.
        let mut split_jobs = trace.jobs.clone();
        for j in &mut split_jobs {
            j.max_gpus = 1;
            j.gpus = 1;
        }
        let split_trace = Trace::from_jobs("toy-split", split_jobs).unwrap();
        let (split, _, _) = run_with(&split_trace, &cluster, &zoo, "maxmin", &[]);
        assert_eq!(srtf.completed, 42);
        assert!(
            split.avg_jct_s < srtf.avg_jct_s,
            "x = {x}: equal split {:.3} h vs SRTF {:.3} h",
            split.avg_jct_s.unwrap() / h,
            srtf.avg_jct_s.unwrap() / h
        );
        let (afs, _, _) = run_with(&trace, &cluster, &zoo, "afs-l", &[]);
        assert!(
            afs.avg_jct_s < srtf.avg_jct_s,
            "x = {x}: AFS-L {:.3} h",
            afs.avg_jct_s.unwrap() / h
        );
    }
}

/// Without future jobs SRTF's schedule (A on both GPUs, then B) gives
/// 1.75 h (the paper prints 1.25 h), while AFS-L's stage one splits the two
/// GPUs (n = M): 2 h. This is the corner case the paper concedes (§3.3):
/// when contention only falls, a greedier policy is better.
#[test]
fn appendix_a_afs_l_splits_when_no_future_jobs_come() {
    let mut zoo = zoo_with("toy-a", &[1.0, 2.0]);
    let zb = zoo_with("toy-b", &[1.0, 2.0 / 1.5]);
    zoo.insert(zb.get(zb.lookup("toy-b").unwrap()).clone());
    let trace = Trace::from_jobs(
        "toy",
        vec![
            elastic("A", 0.0, "toy-a", 2, 7200.0),
            elastic("B", 0.0, "toy-b", 2, 7200.0),
        ],
    )
    .unwrap();
    let cluster = parse_cluster("gtx1080:1x2").unwrap();
    let (s, j, _) = run_with(&trace, &cluster, &zoo, "afs-l", &[]);
    // Stage one gives each job one GPU; stage two has nothing left. When A
    // finishes (2 h), B gets both GPUs: JCTs 2 h and 2 h.
    assert!(close(jct(&j, "A"), 7200.0), "{}", jct(&j, "A"));
    assert!(close(jct(&j, "B"), 7200.0), "{}", jct(&j, "B"));
    assert!(close(s.avg_jct_s.unwrap(), 7200.0));
}

/// Random concave throughput curves: p(0) = 0 < p(1) < ... with falling
/// increments.
fn curve() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(0.0f64..1.0, 2..12).prop_map(|incs| {
        let mut sorted = incs.clone();
        sorted.sort_by(|a, b| b.total_cmp(a));
        let mut p = vec![0.0];
        for d in sorted {
            let last = *p.last().unwrap();
            p.push(last + d.max(1e-3));
        }
        p
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Appendix C: with lengths a < b < c, if b beats a and c beats b under
    /// rule (3), then c beats a.
    #[test]
    fn rule_3_is_transitive_along_increasing_lengths(
        ca in curve(), cb in curve(), cc in curve(),
        ka in 1usize..10, kb in 1usize..10, kc in 1usize..10,
    ) {
        let at = |p: &Vec<f64>, k: usize| (p[k.min(p.len() - 2)], p[k.min(p.len() - 2) + 1]);
        let (pa, pa1) = at(&ca, ka);
        let (pb, pb1) = at(&cb, kb);
        let (pc, pc1) = at(&cc, kc);
        // "b beats a": a is shorter, so b wins iff (3) holds for (a, b).
        let b_beats_a = longer_wins(pa, pa1, pb, pb1);
        let c_beats_b = longer_wins(pb, pb1, pc, pc1);
        if b_beats_a && c_beats_b {
            prop_assert!(longer_wins(pa, pa1, pc, pc1));
        }
    }

    /// After the AFS substitution p'_{a,2} = p_{a,1}, p'_{b,2} = p'_{b,1},
    /// equations (1) and (2) become the same expression, positive exactly
    /// when (3) holds (spec §2.2).
    #[test]
    fn equations_1_and_2_reduce_to_rule_3(
        ca in curve(), cb in curve(), k in 1usize..8, wa in 1.0f64..1e4, extra in 0.0f64..1e4,
    ) {
        let at = |p: &Vec<f64>| (p[k.min(p.len() - 2)], p[k.min(p.len() - 2) + 1]);
        let (pa, pa1) = at(&ca);
        let (pb, pb1) = at(&cb);
        let wb = wa + extra;
        let (pa2, pb2) = (pa, pb1);
        let eq1 = wa / pa1 - wa / pa + wa / (2.0 * pb2) * (pb1 / pa - pb / pa1);
        let eq2 = wa / pa1 - wb / pb1 + pb / (2.0 * pb2) * (wb / pb - wa / pa1)
            - pa / (2.0 * pa2) * (wa / pa - wb / pb1);
        let reduced = wa * (1.0 / pa1 - 1.0 / (2.0 * pa) - pb / (2.0 * pa1 * pb1));
        let scale = wa / pa + wb / pb;
        prop_assert!((eq1 - reduced).abs() <= 1e-9 * scale, "{} vs {}", eq1, reduced);
        prop_assert!((eq2 - reduced).abs() <= 1e-9 * scale, "{} vs {}", eq2, reduced);
        if reduced.abs() > 1e-9 * scale {
            prop_assert_eq!(reduced > 0.0, saved(pb, pb1) > gain(pa, pa1));
        }
    }
}

/// The shares a policy gives right after t = 0 (from the timeline).
fn shares_at_zero(out: &schedlab::sim::Outcome, n: usize) -> Vec<u32> {
    let mut v = vec![0; n];
    for s in &out.timeline.segments {
        if s.start == 0.0 {
            v[s.job as usize] = s.gpu_count;
        }
    }
    v
}

/// Stage one: with more jobs than GPUs the shortest ones (on one GPU) get
/// one GPU each, whatever their scalability.
#[test]
fn afs_l_stage_one_serves_the_shortest_jobs() {
    let lens = [500.0, 100.0, 300.0, 200.0, 600.0, 400.0];
    let jobs: Vec<JobSpec> = lens
        .iter()
        .enumerate()
        .map(|(i, w)| {
            elastic(
                &format!("j{i}"),
                0.0,
                if i % 2 == 0 {
                    "afs/vgg16"
                } else {
                    "afs/resnet50"
                },
                1,
                *w,
            )
        })
        .collect();
    let trace = Trace::from_jobs("stage1", jobs).unwrap();
    let cluster = parse_cluster("gtx1080:1x4").unwrap();
    let (_, _, out) = run_engine(
        &trace,
        &cluster,
        &ModelZoo::builtin(),
        "afs-l",
        &[],
        &[("placement", "any")],
    );
    assert_eq!(shares_at_zero(&out, 6), vec![0, 1, 1, 1, 0, 1]);
}

/// Stage two: with fewer jobs than GPUs every job gets one GPU, the rest
/// goes by rule (3): the nearly saturated short job (Chatbot, peak at 4)
/// stops at its peak while the long scalable one (Inception-v4) takes
/// the rest.
#[test]
fn afs_l_stage_two_favours_long_efficient_jobs() {
    let trace = Trace::from_jobs(
        "stage2",
        vec![
            elastic("short", 0.0, "afs/chatbot", 1, 100.0),
            elastic("long", 0.0, "afs/inception-v4", 1, 100_000.0),
        ],
    )
    .unwrap();
    let cluster = parse_cluster("gtx1080:4x4").unwrap();
    let (_, _, out) = run_engine(
        &trace,
        &cluster,
        &ModelZoo::builtin(),
        "afs-l",
        &[],
        &[("placement", "any")],
    );
    let s = shares_at_zero(&out, 2);
    assert!(s[0] >= 1 && s[1] >= 1, "{s:?}");
    assert!(s[0] <= 4, "chatbot capped at its peak: {s:?}");
    assert_eq!(s[0] + s[1], 16, "{s:?}");
    assert!(s[1] > s[0], "{s:?}");
}

/// AFS-P with more jobs than GPUs: processor sharing with a quantum. Three
/// 150 s jobs on one GPU, quantum 100 s: round robin by counters.
#[test]
fn afs_p_time_shares_with_a_quantum() {
    let jobs: Vec<JobSpec> = (0..3)
        .map(|i| elastic(&format!("j{i}"), 0.0, "afs/vgg16", 1, 150.0))
        .collect();
    let trace = Trace::from_jobs("ps", jobs).unwrap();
    let cluster = parse_cluster("gtx1080:1x1").unwrap();
    let (_, j, _) = run_engine(
        &trace,
        &cluster,
        &ModelZoo::builtin(),
        "afs-p",
        &[("quantum_s", "100")],
        &[],
    );
    assert!(close(jct(&j, "j0"), 350.0), "{}", jct(&j, "j0"));
    assert!(close(jct(&j, "j1"), 400.0), "{}", jct(&j, "j1"));
    assert!(close(jct(&j, "j2"), 450.0), "{}", jct(&j, "j2"));
    // The quantum scales with the trace: 2 h x 0.01 = 72 s.
    let (_, j, _) = run_engine(
        &trace,
        &cluster,
        &ModelZoo::builtin(),
        "afs-p",
        &[("time_scale", "0.01")],
        &[],
    );
    // Two rounds of three 72 s quanta, then j0's last 6 s.
    assert!(close(jct(&j, "j0"), 72.0 * 6.0 + 6.0), "{}", jct(&j, "j0"));
}

/// Optimus (spec §3.5): one GPU each, then the largest drop in remaining
/// time: B (4x the work) gets both spare GPUs.
#[test]
fn optimus_gives_spare_gpus_to_the_largest_time_saving() {
    let trace = Trace::from_jobs(
        "opt",
        vec![
            elastic("A", 0.0, "linear", 1, 100.0),
            elastic("B", 0.0, "linear", 1, 400.0),
        ],
    )
    .unwrap();
    let cluster = parse_cluster("t4:1x4").unwrap();
    let (_, j, _) = run_with(&trace, &cluster, &ModelZoo::builtin(), "optimus", &[]);
    // A on 1 GPU: 100 s; B on 3 GPUs: 300 done by then, 100 left on 4 GPUs.
    assert!(close(jct(&j, "A"), 100.0), "{}", jct(&j, "A"));
    assert!(close(jct(&j, "B"), 125.0), "{}", jct(&j, "B"));
}

/// SRTF-E (spec §3.7): SRTF first, then the spare GPUs raise the scheduled
/// jobs toward their peak in SRTF order.
#[test]
fn srtf_e_hands_spare_gpus_to_the_shortest_scheduled_job() {
    let mk = |name: &str, work: f64| {
        let mut j = elastic(name, 0.0, "afs/chatbot", 1, work);
        j.max_gpus = 3;
        j
    };
    let trace = Trace::from_jobs("srtfe", vec![mk("long", 1000.0), mk("short", 100.0)]).unwrap();
    let cluster = parse_cluster("gtx1080:1x4").unwrap();
    let (_, _, out) = run_with(&trace, &cluster, &ModelZoo::builtin(), "srtf-e", &[]);
    let s = shares_at_zero(&out, 2);
    assert_eq!(
        s,
        vec![1, 3],
        "short raised to its cap of 3, long keeps its request"
    );
}

/// Themis (spec §3.6): GPUs are leased; a job arriving while the only GPU
/// is leased waits for the lease to end, then wins it (rho = infinity).
#[test]
fn themis_respects_leases() {
    let trace = Trace::from_jobs(
        "themis",
        vec![
            elastic("A", 0.0, "linear", 1, 5000.0),
            elastic("B", 1.0, "linear", 1, 100.0),
        ],
    )
    .unwrap();
    let cluster = parse_cluster("t4:1x1").unwrap();
    let (_, j, _) = run_with(
        &trace,
        &cluster,
        &ModelZoo::builtin(),
        "themis",
        &[("lease_s", "600")],
    );
    let b = j.iter().find(|x| x.name == "B").unwrap();
    assert!(close(b.start.unwrap(), 600.0), "{:?}", b.start);
    assert!(close(jct(&j, "B"), 699.0), "{}", jct(&j, "B"));
}

/// The max-GPU variants (spec §3.8) run jobs at their peak GPU count.
#[test]
fn max_gpu_variants_request_the_peak() {
    let trace = Trace::from_jobs("peak", vec![elastic("v", 0.0, "afs/vgg16", 1, 100.0)]).unwrap();
    let cluster = parse_cluster("gtx1080:4x4").unwrap();
    for p in ["srtf", "srsf", "tiresias"] {
        let (_, _, out) = run_with(
            &trace,
            &cluster,
            &ModelZoo::builtin(),
            p,
            &[("request", "peak")],
        );
        assert_eq!(shares_at_zero(&out, 1), vec![8], "{p}");
        let (_, _, out) = run_with(&trace, &cluster, &ModelZoo::builtin(), p, &[]);
        assert_eq!(shares_at_zero(&out, 1), vec![1], "{p}");
    }
}

/// The blocking index is exactly 0 when the only pending jobs have just
/// arrived: the running sums it is computed from cancel, and what rounding
/// leaves of them (about 1e-17 on a Sia run) is not reported as waiting.
/// Any real value is far above 1e-12 (that would take 1e12 s of work left).
#[test]
fn blocking_index_has_no_rounding_residue() {
    let trace = schedlab::workload::load_named("sia-philly")
        .unwrap()
        .unwrap();
    let cluster = parse_cluster("sia-hetero-64").unwrap();
    let zoo = ModelZoo::builtin();
    let (_, _, out) = run_with(&trace, &cluster, &zoo, "sia", &[]);
    let ts = schedlab::metrics::time_series(&out, &trace.jobs, &cluster, &zoo);
    let tiny: Vec<f64> = ts
        .bi
        .iter()
        .copied()
        .filter(|b| *b != 0.0 && b.abs() < 1e-12)
        .collect();
    assert!(
        tiny.is_empty(),
        "{} residues, e.g. {:?}",
        tiny.len(),
        &tiny[..tiny.len().min(5)]
    );
    assert!(
        ts.bi.iter().any(|b| *b > 0.0),
        "some job waits on sia-philly"
    );
}

/// QL, CE and BI (spec §5) on a hand-computed SRTF schedule on one GPU:
/// J0 (100 s) at 0, J1 (50 s) at 10 preempts it, J2 (200 s) arrives at 30;
/// J1 ends at 60, J0 at 150, J2 at 350.
#[test]
fn queue_length_efficiency_and_blocking_index_over_time() {
    let jobs = vec![
        rigid("J0", 0.0, 1, 100.0),
        rigid("J1", 10.0, 1, 50.0),
        rigid("J2", 30.0, 1, 200.0),
    ];
    let trace = Trace::from_jobs("bi", jobs).unwrap();
    let cluster = parse_cluster("t4:1x1").unwrap();
    let zoo = ModelZoo::builtin();
    let (_, _, out) = run_with(&trace, &cluster, &zoo, "srtf", &[]);
    let ts = schedlab::metrics::time_series(&out, &trace.jobs, &cluster, &zoo);
    assert_eq!(ts.t, vec![0.0, 10.0, 30.0, 60.0, 150.0, 350.0]);
    assert_eq!(ts.queue, vec![0, 1, 2, 1, 0, 0]);
    assert_eq!(ts.running, vec![1, 1, 1, 1, 1, 0]);
    assert_eq!(ts.busy_gpus, vec![1, 1, 1, 1, 1, 0]);
    assert_eq!(ts.ce, vec![1.0, 1.0, 1.0, 1.0, 1.0, 0.0]);
    // t = 30: J0 waited 20 s with 90 s left, J2 0 s with 200: (20/90 + 0) / 2.
    let want = [0.0, 0.0, 20.0 / 90.0 / 2.0, 30.0 / 200.0, 0.0, 0.0];
    for (a, b) in ts.bi.iter().zip(want) {
        assert!((a - b).abs() < 1e-12, "{:?}", ts.bi);
    }
    // Time-weighted mean queue over [0, 350]: (20·1 + 30·2 + 90·1) / 350.
    let ql: Vec<f64> = ts.queue.iter().map(|&q| q as f64).collect();
    assert!((ts.time_mean(&ql) - 170.0 / 350.0).abs() < 1e-12);
    let d = ts.downsample(3);
    assert_eq!(d.t, vec![0.0, 175.0, 350.0]);
    assert_eq!(d.queue, vec![0, 0, 0]);
}

/// CE counts speedup on the share, not GPUs: VGG16 on 4 GPUs runs 3.37x
/// faster than on one, so CE on a 4-GPU cluster is 3.37 / 4.
#[test]
fn cluster_efficiency_uses_the_speedup_curve() {
    let trace = Trace::from_jobs("ce", vec![elastic("v", 0.0, "afs/vgg16", 4, 1000.0)]).unwrap();
    let cluster = parse_cluster("gtx1080:1x4").unwrap();
    let zoo = ModelZoo::builtin();
    let (_, _, out) = run_with(&trace, &cluster, &zoo, "srtf", &[]);
    let ts = schedlab::metrics::time_series(&out, &trace.jobs, &cluster, &zoo);
    let s4 = schedlab::perf::SpeedupCurve::bsp(8, 0.0).at(4.0);
    assert!((ts.ce[0] - s4 / 4.0).abs() < 1e-12, "{}", ts.ce[0]);
}

/// The per-job share timeline: max-min gives A and B 2 GPUs each, then A
/// all 4 when B ends at 100 s; A ends at 150 s.
#[test]
fn share_steps_follow_every_change() {
    let trace = Trace::from_jobs(
        "steps",
        vec![
            elastic("A", 0.0, "linear", 1, 400.0),
            elastic("B", 0.0, "linear", 1, 200.0),
        ],
    )
    .unwrap();
    let cluster = parse_cluster("t4:1x4").unwrap();
    let (_, _, out) = run_with(&trace, &cluster, &ModelZoo::builtin(), "maxmin", &[]);
    let s = schedlab::metrics::share_steps(&out);
    let got: Vec<(f64, u32, u32)> = (0..s.t.len())
        .map(|i| (s.t[i], s.job[i], s.gpus[i]))
        .collect();
    assert_eq!(
        got,
        vec![
            (0.0, 0, 2),
            (0.0, 1, 2),
            (100.0, 0, 4),
            (100.0, 1, 0),
            (150.0, 0, 0)
        ]
    );
}

/// Reduction rates, blowup and Fig 10's per-length bins.
#[test]
fn comparisons_between_runs() {
    use schedlab::metrics::{blowup, length_bins, reduction, tail_reduction};
    let jobs = || {
        (0..6)
            .map(|i| {
                elastic(
                    &format!("j{i}"),
                    10.0 * i as f64,
                    "afs/resnet50",
                    2,
                    500.0 * (i + 1) as f64,
                )
            })
            .collect::<Vec<_>>()
    };
    let trace = Trace::from_jobs("cmp", jobs()).unwrap();
    let cluster = parse_cluster("gtx1080:1x4").unwrap();
    let zoo = ModelZoo::builtin();
    let (srtf, js, _) = run_with(&trace, &cluster, &zoo, "srtf", &[]);
    let (afs, ja, _) = run_with(&trace, &cluster, &zoo, "afs-l", &[]);
    assert!(
        (reduction(&srtf, &afs) - srtf.avg_jct_s.unwrap() / afs.avg_jct_s.unwrap()).abs() < 1e-12
    );
    assert!(
        (tail_reduction(&srtf, &afs) - srtf.p99_jct_s.unwrap() / afs.p99_jct_s.unwrap()).abs()
            < 1e-12
    );
    assert!((blowup(&srtf, &afs) - srtf.avg_jct_s.unwrap() / afs.avg_jct_s.unwrap()).abs() < 1e-12);
    let bins = length_bins(&js, &ja, 3);
    assert_eq!(bins.len(), 3);
    assert!(bins.iter().all(|b| b.jobs == 2));
    assert!(bins
        .windows(2)
        .all(|w| w[0].baseline_jct_s <= w[1].baseline_jct_s));
    let mut per_job: Vec<(f64, f64)> = js
        .iter()
        .zip(&ja)
        .map(|(b, a)| (b.jct_s.unwrap(), b.jct_s.unwrap() / a.jct_s.unwrap()))
        .collect();
    per_job.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert!((bins[0].reduction - (per_job[0].1 + per_job[1].1) / 2.0).abs() < 1e-12);
}
