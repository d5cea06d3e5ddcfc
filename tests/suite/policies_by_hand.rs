//! Hand-computed schedules, one or more per policy.

use crate::common;
use common::*;
use schedlab::cluster::parse_cluster;
use schedlab::workload::{Adaptivity, JobSpec, Trace};

/// AFS Appendix A (spec seed003 §2.2): two jobs, two GPUs. Each takes 2 h on
/// one GPU; on two GPUs A takes 1 h and B 1.5 h. SRTF runs A on both GPUs,
/// then B: JCTs 1 h and 2.5 h, average 1.75 h (the paper prints 1.25 h,
/// which forgets B's wait). The equal split gives 2 h.
#[test]
fn afs_appendix_a_toy() {
    let mut zoo = zoo_with("toy-a", &[1.0, 2.0]);
    let zb = zoo_with("toy-b", &[1.0, 2.0 / 1.5]);
    zoo.insert(zb.get(zb.lookup("toy-b").unwrap()).clone());
    let a = JobSpec::new("A", 0.0, "toy-a", 2).with_work(7200.0);
    let b = JobSpec::new("B", 0.0, "toy-b", 2).with_work(7200.0);
    let trace = Trace::from_jobs("toy", vec![a, b]).unwrap();
    let cluster = parse_cluster("gtx1080:1x2").unwrap();

    let (s, jobs, _) = run_with(&trace, &cluster, &zoo, "srtf", &[]);
    assert!(close(jct(&jobs, "A"), 3600.0));
    assert!(close(jct(&jobs, "B"), 2.5 * 3600.0));
    assert!(
        close(s.avg_jct_s.unwrap(), 1.75 * 3600.0),
        "{}",
        s.avg_jct_s.unwrap()
    );

    let (s, _, _) = run_with(&trace, &cluster, &zoo, "maxmin", &[]);
    assert!(
        close(s.avg_jct_s.unwrap(), 2.0 * 3600.0),
        "{}",
        s.avg_jct_s.unwrap()
    );
}

#[test]
fn fifo_blocks_at_the_head_and_backfills_when_asked() {
    let jobs = || {
        vec![
            rigid("J0", 0.0, 2, 100.0),
            rigid("J1", 1.0, 4, 50.0),
            rigid("J2", 2.0, 1, 10.0),
        ]
    };
    let (s, j) = run(jobs(), "t4:1x4", "fifo", &[]);
    assert!(close(jct(&j, "J0"), 100.0));
    assert!(close(jct(&j, "J1"), 149.0));
    assert!(close(jct(&j, "J2"), 158.0));
    assert!(close(s.avg_jct_s.unwrap(), (100.0 + 149.0 + 158.0) / 3.0));
    let (_, j) = run(jobs(), "t4:1x4", "fifo", &[("backfill", "true")]);
    assert!(close(jct(&j, "J2"), 10.0));
    assert!(close(jct(&j, "J1"), 149.0));
}

#[test]
fn srtf_and_srsf_rank_differently() {
    let jobs = || vec![rigid("big", 0.0, 4, 100.0), rigid("small", 0.0, 1, 150.0)];
    // SRTF: big (100 s) first; small cannot fit beside it.
    let (s, j) = run(jobs(), "t4:1x4", "srtf", &[]);
    assert!(close(jct(&j, "big"), 100.0) && close(jct(&j, "small"), 250.0));
    assert!(close(s.avg_jct_s.unwrap(), 175.0));
    // SRSF: small has less service (150 < 400) and goes first; big waits.
    let (s, j) = run(jobs(), "t4:1x4", "srsf", &[]);
    assert!(close(jct(&j, "small"), 150.0) && close(jct(&j, "big"), 250.0));
    assert!(close(s.avg_jct_s.unwrap(), 200.0));
}

#[test]
fn srtf_preempts_for_a_shorter_arrival() {
    let (s, j) = run(
        vec![rigid("long", 0.0, 4, 100.0), rigid("short", 10.0, 4, 20.0)],
        "t4:1x4",
        "srtf",
        &[],
    );
    assert!(close(jct(&j, "short"), 20.0));
    assert!(close(jct(&j, "long"), 120.0));
    let long = j.iter().find(|x| x.name == "long").unwrap();
    assert_eq!(long.preemptions, 1);
    assert_eq!(long.restarts, 1, "resuming on new GPUs is a restart");
    assert!(close(s.avg_restarts, 0.5));
}

/// Two queues, demotion at 100 GPU-s, one GPU. J0 runs alone until it is
/// demoted at t = 100; J1 (Q0) then runs 100..160; J0 resumes 160..360.
#[test]
fn tiresias_demotes_on_attained_service() {
    let jobs = vec![rigid("J0", 0.0, 1, 300.0), rigid("J1", 50.0, 1, 60.0)];
    let (_, j) = run(
        jobs,
        "t4:1x1",
        "tiresias",
        &[("queues", "2"), ("t1", "100")],
    );
    assert!(close(jct(&j, "J1"), 110.0), "{}", jct(&j, "J1"));
    assert!(close(jct(&j, "J0"), 360.0), "{}", jct(&j, "J0"));
}

/// Same jobs, but the threshold is never reached: plain FIFO inside Q0.
#[test]
fn tiresias_is_fifo_within_a_queue() {
    let jobs = vec![rigid("J0", 0.0, 1, 300.0), rigid("J1", 50.0, 1, 60.0)];
    let (_, j) = run(
        jobs,
        "t4:1x1",
        "tiresias",
        &[("queues", "2"), ("t1", "1000")],
    );
    assert!(close(jct(&j, "J0"), 300.0));
    assert!(close(jct(&j, "J1"), 310.0));
}

/// Water-filling: two elastic linear jobs share 4 GPUs 2 + 2; when the
/// smaller finishes at 100 s the other takes all 4 GPUs.
#[test]
fn maxmin_shares_equally_then_expands() {
    let mk = |name: &str, work: f64| {
        let mut j = JobSpec::new(name, 0.0, "linear", 1).with_work(work);
        j.adaptivity = Adaptivity::StrongScaling;
        j
    };
    let (s, j) = run(
        vec![mk("A", 400.0), mk("B", 200.0)],
        "t4:1x4",
        "maxmin",
        &[],
    );
    assert!(close(jct(&j, "B"), 100.0));
    assert!(close(jct(&j, "A"), 150.0));
    assert!(close(s.avg_jct_s.unwrap(), 125.0));
    assert!(
        close(s.utilization.unwrap(), 1.0),
        "{}",
        s.utilization.unwrap()
    );
}

/// Restart delays are charged from the model: a 30 s restart on every
/// (re)allocation shifts completions by the delay.
#[test]
fn restart_cost_is_charged_per_allocation_change() {
    let mut zoo = zoo_with("slow-restart", &[1.0, 2.0, 3.0, 4.0]);
    let id = zoo.lookup("slow-restart").unwrap();
    let mut m = zoo.get(id).clone();
    m.restart_s = 30.0;
    zoo.insert(m);
    let mut long = JobSpec::new("long", 0.0, "slow-restart", 4).with_work(400.0);
    long.adaptivity = Adaptivity::Rigid;
    let mut short = JobSpec::new("short", 10.0, "slow-restart", 4).with_work(80.0);
    short.adaptivity = Adaptivity::Rigid;
    let trace = Trace::from_jobs("t", vec![long, short]).unwrap();
    let cluster = parse_cluster("t4:1x4").unwrap();
    let (_, j, _) = run_with(&trace, &cluster, &zoo, "srtf", &[]);
    // At t = 10 long is still restoring (0 of 400 work done, 100 s left);
    // short needs 80/4 = 20 s, so it preempts: 10..60 (30 s restore + 20 s).
    // long resumes at 60 with another 30 s restore: 60 + 30 + 100 = 190.
    assert!(close(jct(&j, "short"), 50.0), "{}", jct(&j, "short"));
    assert!(close(jct(&j, "long"), 190.0), "{}", jct(&j, "long"));
}
