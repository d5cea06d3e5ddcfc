//! Numbers that do not lie (issue 47, item 6), a property over random
//! traces, policies and early stops:
//! - a metric that does not apply is None, never 0: averages over no
//!   completed job, the makespan of a run that stopped early, due-date
//!   metrics without due dates, prediction errors without predictions,
//!   speedups without pools;
//! - utilisation is within [0, 1];
//! - GPU-hours count every busy GPU-second, finished or not: they equal the
//!   engine's own GPU ledger (`Outcome::gpu_time`) and, when the run stopped
//!   early at its horizon, include the jobs still holding GPUs then.

use proptest::prelude::*;
use schedlab::cluster::parse_cluster;
use schedlab::perf::ModelZoo;
use schedlab::report::{run_policy, RunSettings};
use schedlab::workload::{Adaptivity, JobSpec, Trace};
use std::sync::Arc;

const MODELS: &[&str] = &["linear", "afs/vgg16", "afs/chatbot", "afs/resnet50"];

/// Policies cheap enough for many cases, event-driven and round-based.
const POLICIES: &[&str] = &[
    "fifo", "srtf", "tiresias", "maxmin", "afs-l", "themis", "sia", "gavel",
];

type RawJob = (f64, u32, f64, usize, u8, bool, Option<f64>);

fn jobs_strategy() -> impl Strategy<Value = Vec<RawJob>> {
    prop::collection::vec(
        (
            0.0f64..5000.0,
            1u32..9,
            10.0f64..20_000.0,
            0usize..MODELS.len(),
            0u8..3,
            prop::bool::weighted(0.8),
            prop::option::weighted(0.3, 0.0f64..30_000.0),
        ),
        1..25,
    )
}

fn trace_of(raw: &[RawJob], with_due: bool) -> Trace {
    let jobs = raw
        .iter()
        .enumerate()
        .map(|(i, (arr, g, dur, m, a, pre, due))| {
            let mut j = JobSpec::new(format!("j{i}"), arr.round(), MODELS[*m], *g)
                .with_duration(dur.round());
            j.adaptivity = [
                Adaptivity::Rigid,
                Adaptivity::StrongScaling,
                Adaptivity::Adaptive,
            ][*a as usize];
            j.preemptible = *pre;
            if with_due {
                j.due = due.map(|d| arr.round() + d);
            }
            j
        })
        .collect();
    Trace::from_jobs("honest", jobs).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn metrics_are_absent_when_they_do_not_apply_and_bounded_when_they_do(
        raw in jobs_strategy(),
        policy in 0usize..POLICIES.len(),
        stop_h in prop::option::of(0.03f64..3.0),
        with_due in any::<bool>(),
    ) {
        let trace = trace_of(&raw, with_due);
        let cluster = Arc::new(parse_cluster("t4:2x4,a100:1x8").unwrap());
        let zoo = Arc::new(ModelZoo::builtin());
        let name = POLICIES[policy];
        let mut o = RunSettings::default();
        if let Some(h) = stop_h {
            o.set("engine", "max_days", &format!("{}", h / 24.0)).unwrap();
        }
        let run = run_policy(&trace, &cluster, &zoo, name, &o, 3, &mut |_| true).unwrap();
        let m = &run.metrics;
        let out = &run.outcome;
        let finished = out.jobs.iter().filter(|j| j.finish.is_some()).count();
        prop_assert_eq!(m.completed, finished);
        prop_assert_eq!(m.jobs - m.completed, out.incomplete);
        // Averages over completed jobs exist exactly when one completed.
        for (key, v) in [
            ("avg_jct_s", m.avg_jct_s),
            ("p50_jct_s", m.p50_jct_s),
            ("p99_jct_s", m.p99_jct_s),
            ("avg_queue_s", m.avg_queue_s),
        ] {
            prop_assert_eq!(v.is_some(), finished > 0, "{} {}: {:?}", name, key, v);
        }
        prop_assert_eq!(m.makespan_s.is_some(), out.incomplete == 0, "{}: makespan {:?}", name, m.makespan_s);
        if let Some(u) = m.utilization {
            prop_assert!((0.0..=1.0 + 1e-9).contains(&u), "{}: utilisation {}", name, u);
        }
        // GPU-hours: every busy GPU-second, by the engine's own ledger.
        let ledger_h: f64 = out.gpu_time.iter().map(|t| t.busy_gpu_h).sum();
        prop_assert!(
            (m.gpu_hours - ledger_h).abs() <= 1e-6 * ledger_h.max(1.0),
            "{}: GPU-hours {} but the GPUs were busy {} h", name, m.gpu_hours, ledger_h
        );
        let held_at_end = out.jobs.iter().any(|j| j.finish.is_none() && j.start.is_some());
        if held_at_end {
            prop_assert!(m.gpu_hours > 0.0, "{}: unfinished jobs held GPUs but GPU-hours are 0", name);
        }
        // Inapplicable metrics are absent, not 0.
        let due = trace.jobs.iter().any(|j| j.due.is_some());
        for v in [m.avg_tardiness_s, m.due_missed_frac, m.max_tardiness_s, m.tardiness_cost_usd] {
            prop_assert_eq!(v.is_some(), due);
        }
        prop_assert!(m.predicted_frac.is_none() && m.avg_pred_error_pct.is_none());
        prop_assert!(m.speedup.speedup_geo.is_none() && m.speedup.slowed_frac.is_none());
        prop_assert_eq!(
            m.total_cost_usd.is_some(),
            m.gpu_cost_usd.is_some() || m.tardiness_cost_usd.is_some()
        );
        if let Some(rho) = m.ftf_rho_max {
            prop_assert!(rho > 0.0 && rho.is_finite());
        }
        // Every metric the catalog shows says "–" when absent, never "0".
        for (info, v) in m.values() {
            prop_assert_eq!(info.show(v) == "–", v.is_none(), "{}", info.key);
        }
    }
}

#[test]
fn an_early_stop_counts_the_gpus_held_until_the_horizon() {
    // Two jobs of ten days on a 16-GPU cluster, stopped after one day:
    // 16 GPUs busy for 24 h.
    let jobs = vec![
        JobSpec::new("a", 0.0, "linear", 8).with_duration(864_000.0),
        JobSpec::new("b", 0.0, "linear", 8).with_duration(864_000.0),
    ];
    let trace = Trace::from_jobs("long", jobs).unwrap();
    let cluster = Arc::new(parse_cluster("v100:2x8").unwrap());
    let zoo = Arc::new(ModelZoo::builtin());
    let mut o = RunSettings::default();
    o.set("engine", "max_days", "1").unwrap();
    for policy in ["fifo", "tiresias"] {
        let run = run_policy(&trace, &cluster, &zoo, policy, &o, 1, &mut |_| true).unwrap();
        let m = &run.metrics;
        assert_eq!(m.completed, 0, "{policy}");
        assert_eq!(
            (m.avg_jct_s, m.makespan_s, m.ftf_rho_max),
            (None, None, None)
        );
        assert!(
            (m.gpu_hours - 16.0 * 24.0).abs() < 1.0,
            "{policy}: {} GPU-h",
            m.gpu_hours
        );
        let u = m.utilization.unwrap();
        assert!((0.95..=1.0).contains(&u), "{policy}: utilisation {u}");
    }
}
