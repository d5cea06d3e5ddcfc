//! Property tests over random traces and clusters, for every policy:
//! - never more GPUs than exist, no GPU held by two jobs, jobs only on GPUs
//!   of one type (checked after every engine step);
//! - no job runs before it arrives;
//! - every job finishes;
//! - work-conserving policies leave no GPU idle while a waiting job fits;
//! - the rigid baselines (Gavel, Themis, Shockwave: TunedJobs) give every
//!   job exactly its requested GPUs or none.

use proptest::prelude::*;
use schedlab::cluster::{parse_cluster, Cluster, Packer};
use schedlab::perf::ModelZoo;
use schedlab::policy::{self, registry};
use schedlab::sim::{EngineConfig, Phase, Simulation};
use schedlab::workload::{Adaptivity, JobSpec, Trace};

const MODELS: &[&str] = &["linear", "afs/vgg16", "afs/chatbot", "afs/resnet50"];

fn cluster_strategy() -> impl Strategy<Value = String> {
    let group = (
        prop_oneof![Just("t4"), Just("rtx"), Just("a100")],
        1u32..5,
        prop_oneof![Just(1u32), Just(2), Just(4), Just(8)],
    );
    prop::collection::vec(group, 1..3).prop_map(|gs| {
        gs.iter()
            .map(|(t, n, g)| format!("{t}:{n}x{g}"))
            .collect::<Vec<_>>()
            .join(",")
    })
}

fn jobs_strategy() -> impl Strategy<Value = Vec<(f64, u32, f64, usize, u8, bool)>> {
    prop::collection::vec(
        (
            0.0f64..2000.0,
            1u32..9,
            1.0f64..3000.0,
            0usize..MODELS.len(),
            0u8..3,
            prop::bool::weighted(0.9),
        ),
        1..30,
    )
}

fn build_trace(raw: &[(f64, u32, f64, usize, u8, bool)], cluster: &Cluster) -> Trace {
    let cap = cluster.max_gpus_one_type();
    let jobs = raw
        .iter()
        .enumerate()
        .map(|(i, (arr, g, dur, m, a, pre))| {
            let mut j = JobSpec::new(
                format!("j{i}"),
                (*arr * 10.0).round() / 10.0,
                MODELS[*m],
                (*g).min(cap),
            )
            .with_duration(*dur);
            j.adaptivity = [
                Adaptivity::Rigid,
                Adaptivity::StrongScaling,
                Adaptivity::Adaptive,
            ][*a as usize];
            j.preemptible = *pre;
            j
        })
        .collect();
    Trace::from_jobs("prop", jobs).unwrap()
}

/// The smallest request a waiting job could start with under a policy:
/// gang policies run jobs at their request, elastic ones from one GPU.
fn min_request(policy: &str, spec: &JobSpec) -> u32 {
    let elastic = matches!(policy, "maxmin" | "afs-l" | "afs-p" | "afs-s" | "optimus");
    if spec.adaptivity == Adaptivity::Rigid || !elastic {
        spec.gpus
    } else {
        1
    }
}

/// Policies that run every job at exactly the trace's GPU count.
fn rigid_only(name: &str) -> bool {
    matches!(name, "gavel" | "gavel-ftf" | "shockwave")
}

/// Settings that keep expensive searches short in property tests (the
/// invariants do not depend on search effort).
fn fast(policy: &str) -> Vec<(String, String)> {
    match policy {
        "pollux" => vec![
            ("population".into(), "8".into()),
            ("generations".into(), "3".into()),
        ],
        "gavel-ftf" => vec![("tol".into(), "0.05".into())],
        "shockwave" => vec![
            ("exact_max_vars".into(), "20".into()),
            ("node_limit".into(), "200".into()),
        ],
        _ => Vec::new(),
    }
}

/// Policies that never leave a GPU idle while a waiting job fits.
fn work_conserving(name: &str, params: &[(String, String)]) -> bool {
    match name {
        "fifo" => params.iter().any(|(k, v)| k == "backfill" && v == "true"),
        "srtf" | "srsf" | "tiresias" | "maxmin" | "afs-l" | "afs-p" | "afs-s" | "optimus"
        | "srtf-e" | "srsf-e" => true,
        _ => false,
    }
}

fn check_run(
    policy_name: &str,
    params: &[(String, String)],
    cluster: &Cluster,
    trace: &Trace,
) -> Result<(), TestCaseError> {
    let zoo = ModelZoo::builtin();
    let (pol, _) = policy::build(policy_name, params, 7).unwrap();
    let event_driven = pol.trigger().round_s.is_none();
    let mut sim = Simulation::new(trace, cluster, &zoo, pol, EngineConfig::default()).unwrap();
    let mut steps = 0;
    while sim
        .step()
        .map_err(|e| TestCaseError::fail(format!("engine error: {e}")))?
    {
        steps += 1;
        prop_assert!(steps < 100_000, "runaway simulation");
        let now = sim.now();
        let mut used = vec![0u64; cluster.nodes.len()];
        let mut busy = 0;
        for (j, st) in sim.jobs().iter().enumerate() {
            if let Some(p) = &st.placement {
                prop_assert_eq!(st.phase, Phase::Running);
                prop_assert!(
                    sim.specs()[j].arrival <= now,
                    "job {} runs before it arrives",
                    j
                );
                for s in &p.shares {
                    prop_assert_eq!(
                        cluster.nodes[s.node as usize].kind,
                        p.kind,
                        "mixed GPU types"
                    );
                    prop_assert_eq!(used[s.node as usize] & s.mask, 0, "GPU held twice");
                    used[s.node as usize] |= s.mask;
                }
                busy += p.gpus();
                if rigid_only(policy_name) {
                    prop_assert_eq!(
                        p.gpus(),
                        sim.specs()[j].gpus,
                        "{} gave job {} a different GPU count",
                        policy_name,
                        j
                    );
                }
            }
        }
        prop_assert!(busy <= cluster.total_gpus);
        if event_driven && work_conserving(policy_name, params) {
            let running: Vec<_> = sim
                .jobs()
                .iter()
                .filter_map(|s| s.placement.as_ref())
                .collect();
            for (j, st) in sim.jobs().iter().enumerate() {
                if st.phase != Phase::Waiting {
                    continue;
                }
                let spec = &sim.specs()[j];
                let mut idle = Packer::idle_only(
                    cluster,
                    schedlab::cluster::PlacementRule::Packed,
                    running.iter().copied(),
                );
                let fits = cluster.kinds.iter().any(|k| {
                    idle.claim(j as u32, *k, min_request(policy_name, spec))
                        .is_some()
                });
                prop_assert!(
                    !fits,
                    "{}: job {} waits at t={} although {} GPUs of some type are idle and it fits",
                    policy_name,
                    j,
                    now,
                    min_request(policy_name, spec)
                );
            }
        }
    }
    let out = sim.outcome();
    prop_assert_eq!(
        out.incomplete,
        0,
        "{}: {} jobs unfinished ({})",
        policy_name,
        out.incomplete,
        out.stop_reason
    );
    for (r, spec) in out.jobs.iter().zip(sim.specs()) {
        let start = r.start.unwrap();
        prop_assert!(start >= spec.arrival);
        prop_assert!(r.finish.unwrap() > start);
        prop_assert_eq!(
            r.restart_kinds.total(),
            r.restarts,
            "{}: job {} restart kinds {:?}",
            policy_name,
            r.id,
            r.restart_kinds
        );
        prop_assert!(
            r.restart_kinds.resumed <= r.preemptions,
            "{}: job {} resumed more often than it was preempted",
            policy_name,
            r.id
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_policy_respects_the_invariants(spec in cluster_strategy(), raw in jobs_strategy()) {
        let cluster = parse_cluster(&spec).unwrap();
        let trace = build_trace(&raw, &cluster);
        for info in registry() {
            check_run(info.name, &fast(info.name), &cluster, &trace)?;
        }
        check_run("fifo", &[("backfill".into(), "true".into())], &cluster, &trace)?;
        check_run("tiresias", &[("t1".into(), "500".into()), ("t2".into(), "2000".into()), ("promote_knob".into(), "2".into())], &cluster, &trace)?;
    }

    #[test]
    fn round_based_policies_finish_too(spec in cluster_strategy(), raw in jobs_strategy()) {
        let cluster = parse_cluster(&spec).unwrap();
        let trace = build_trace(&raw, &cluster);
        for info in registry() {
            if info.params.iter().any(|p| p.name == "round_s") {
                let mut params = fast(info.name);
                params.push(("round_s".into(), "60".into()));
                check_run(info.name, &params, &cluster, &trace)?;
            }
        }
    }
}
