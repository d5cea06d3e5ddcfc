//! Energy and due dates (issue 15, item 4): every run accounts busy and
//! idle GPU power over time, per job and for the cluster, and reports
//! tardiness and missed due dates.

use crate::common;

use common::{rigid, run_with};
use schedlab::cluster::{parse_cluster, GpuKind};
use schedlab::perf::{power::gpu_power, ModelZoo};
use schedlab::workload::Trace;

const J_PER_KWH: f64 = 3.6e6;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn an_idle_cluster_draws_idle_power_and_held_gpus_busy_power() {
    // One 1-GPU job of 100 s, then 9,900 s with nothing running, then another.
    let mut a = rigid("a", 0.0, 1, 100.0);
    a.due = Some(50.0);
    let mut b = rigid("b", 10_000.0, 2, 100.0);
    b.due = Some(20_000.0);
    let trace = Trace::from_jobs("energy", vec![a, b]).unwrap();
    let cluster = parse_cluster("homog-64").unwrap();
    let (s, jobs, out) = run_with(&trace, &cluster, &ModelZoo::builtin(), "fifo", &[]);
    let t4 = gpu_power(GpuKind::by_name("t4").unwrap());
    assert!(t4.busy_w > t4.idle_w && t4.idle_w > 0.0);
    assert!(
        close(s.makespan_s.unwrap(), 10_100.0),
        "{}",
        s.makespan_s.unwrap()
    );
    // Each job: busy power x its GPU-time.
    for j in &jobs {
        assert!(
            close(j.energy_kwh * J_PER_KWH, t4.busy_w * j.gpu_s),
            "{j:?}"
        );
    }
    let gpu_s: f64 = jobs.iter().map(|j| j.gpu_s).sum();
    assert!(close(gpu_s, 100.0 + 200.0));
    // Cluster: idle power of all 64 GPUs over the makespan, plus the busy
    // surplus of the held GPU-seconds.
    let idle_only = t4.idle_w * 64.0 * s.makespan_s.unwrap();
    let want = idle_only + (t4.busy_w - t4.idle_w) * gpu_s;
    assert!(
        close(s.energy_kwh * J_PER_KWH, want),
        "{} kWh, want {}",
        s.energy_kwh,
        want / J_PER_KWH
    );
    // The 9,900 s gap costs exactly idle power x time: compare with a run
    // whose second job comes right after the first.
    let mut b2 = rigid("b", 100.0, 2, 100.0);
    b2.due = Some(20_000.0);
    let near = Trace::from_jobs("energy-near", vec![rigid("a", 0.0, 1, 100.0), b2]).unwrap();
    let (s2, _, _) = run_with(&near, &cluster, &ModelZoo::builtin(), "fifo", &[]);
    let gap_j = (s.energy_kwh - s2.energy_kwh) * J_PER_KWH;
    assert!(close(gap_j, t4.idle_w * 64.0 * 9_900.0), "{gap_j}");
    // Due dates: a finished at 100 (due 50): 50 s late; b on time.
    assert_eq!(jobs[0].tardiness_s, Some(50.0));
    assert_eq!(jobs[1].tardiness_s, Some(0.0));
    assert!(close(s.avg_tardiness_s.unwrap(), 25.0));
    assert!(close(s.due_missed_frac.unwrap(), 0.5));
    assert_eq!(out.incomplete, 0);
}

#[test]
fn runs_without_due_dates_report_no_tardiness() {
    let trace = Trace::from_jobs("plain", vec![rigid("a", 0.0, 4, 500.0)]).unwrap();
    let cluster = parse_cluster("sia-hetero-64").unwrap();
    let (s, jobs, _) = run_with(&trace, &cluster, &ModelZoo::builtin(), "fifo", &[]);
    assert_eq!(jobs[0].tardiness_s, None);
    assert_eq!((s.avg_tardiness_s, s.due_missed_frac), (None, None));
    // Heterogeneous cluster: every type's idle power over the makespan.
    let idle_w: f64 = cluster
        .kinds
        .iter()
        .map(|&k| gpu_power(k).idle_w * cluster.gpus_of(k) as f64)
        .sum();
    assert!(s.energy_kwh * J_PER_KWH > idle_w * s.makespan_s.unwrap());
}
