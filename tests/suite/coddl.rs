//! CoDDL's reconfiguration model (AFS §4.3, spec seed003 §2.9), network
//! packing (§2.10) and "overestimate first" measurement (§2.11), driven by
//! a scripted policy so that every number can be computed by hand.

use crate::common;
use common::*;
use schedlab::cluster::{netpack, parse_cluster};
use schedlab::perf::ModelZoo;
use schedlab::policy::{claim_count, Policy, Trigger};
use schedlab::sim::{Decision, EngineConfig, Simulation, View};
use schedlab::workload::{gen::generate, Trace};

/// Sets job shares at given times: (time, job, GPUs).
#[derive(Clone)]
struct Script {
    steps: Vec<(f64, u32, u32)>,
    shares: Vec<u32>,
    done: usize,
}

impl Policy for Script {
    fn name(&self) -> &str {
        "script"
    }
    fn trigger(&self) -> Trigger {
        Trigger {
            on_events: true,
            round_s: None,
        }
    }
    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        if self.shares.len() < view.id_bound() {
            self.shares.resize(view.id_bound(), 0);
        }
        while self.done < self.steps.len() && self.steps[self.done].0 <= view.now() {
            let (_, j, g) = self.steps[self.done];
            self.shares[j as usize] = g;
            self.done += 1;
        }
        let mut packer = view.packer_replan();
        let mut plan = Vec::new();
        for &j in view.active().iter() {
            let g = self.shares[j as usize];
            if g > 0 {
                if let Some(p) = claim_count(&mut packer, view, j, g) {
                    plan.push((j, p, None));
                }
            }
        }
        out.apply_plan(view, plan);
        if let Some(s) = self.steps.get(self.done) {
            out.wake_at(s.0);
        }
    }
}

fn scripted(
    jobs: Vec<schedlab::workload::JobSpec>,
    gpus: &str,
    steps: &[(f64, u32, u32)],
    engine: &[(&str, &str)],
) -> (Vec<schedlab::metrics::JobMetrics>, schedlab::sim::Outcome) {
    let trace = Trace::from_jobs("script", jobs).unwrap();
    let cluster = parse_cluster(gpus).unwrap();
    let zoo = ModelZoo::builtin();
    let set: Vec<(String, String)> = engine
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let cfg = EngineConfig::from_overrides(&set).unwrap();
    let pol = Script {
        steps: steps.to_vec(),
        shares: Vec::new(),
        done: 0,
    };
    let mut sim = Simulation::new(&trace, &cluster, &zoo, Box::new(pol), cfg).unwrap();
    let out = sim.run(&mut |_| true).unwrap();
    let (_, jobs) = schedlab::metrics::evaluate(&out, &trace.jobs, &cluster, &zoo);
    (jobs, out)
}

const CODDL: &[(&str, &str)] = &[
    ("reconfig", "coddl"),
    ("init_s", "10"),
    ("switch_s", "0.004"),
    ("charge_first_start", "false"),
];

fn with(extra: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let mut v = CODDL.to_vec();
    for (k, val) in extra {
        v.retain(|(x, _)| x != k);
        v.push((k, val));
    }
    v
}

/// Expansion 2 -> 4 GPUs at t = 100 of a linear job with 1000 units.
#[test]
fn expansion_overlaps_with_training() {
    let job = || vec![elastic("A", 0.0, "linear", 2, 1000.0)];
    let steps = [(0.0, 0, 2), (100.0, 0, 4)];
    // Ideal: 200 done at t = 100, 800 more at rate 4.
    let (j, _) = scripted(job(), "t4:1x4", &steps, &[]);
    assert!(close(jct(&j, "A"), 300.0), "{}", jct(&j, "A"));
    // ES: keeps training on 2 GPUs while the new ones load (10 s), then
    // switches in 4 ms: 220 done at 110, 780 at rate 4 from 110.004.
    let (j, out) = scripted(job(), "t4:1x4", &steps, CODDL);
    assert!(close(jct(&j, "A"), 110.004 + 195.0), "{}", jct(&j, "A"));
    assert_eq!(out.jobs[0].restarts, 1);
    // No ES: a full stop and restart of 10 s: 200 done, 800 at rate 4 from 110.
    let (j, _) = scripted(job(), "t4:1x4", &steps, &with(&[("coddl_es", "false")]));
    assert!(close(jct(&j, "A"), 310.0), "{}", jct(&j, "A"));
}

/// Shrink 4 -> 2 GPUs at t = 100: 4 ms with ES, a restart without.
#[test]
fn shrinking_costs_four_milliseconds() {
    let job = || vec![elastic("A", 0.0, "linear", 4, 1000.0)];
    let steps = [(0.0, 0, 4), (100.0, 0, 2)];
    let (j, _) = scripted(job(), "t4:1x4", &steps, CODDL);
    assert!(close(jct(&j, "A"), 100.004 + 300.0), "{}", jct(&j, "A"));
    let (j, _) = scripted(job(), "t4:1x4", &steps, &with(&[("coddl_es", "false")]));
    assert!(close(jct(&j, "A"), 110.0 + 300.0), "{}", jct(&j, "A"));
}

/// A second order (1 -> 3) arrives at t = 105 while the first (1 -> 2,
/// ordered at 100) is still loading. With cancelling it replaces the first
/// at once; without, it starts when the first would have finished.
#[test]
fn cancelling_outdated_reconfigurations() {
    let job = || vec![elastic("A", 0.0, "linear", 1, 1000.0)];
    let steps = [(0.0, 0, 1), (100.0, 0, 2), (105.0, 0, 3)];
    // RC: trains on 1 GPU until 115 (115 done), switch, 885 at rate 3.
    let (j, out) = scripted(job(), "t4:1x4", &steps, CODDL);
    assert!(close(jct(&j, "A"), 115.004 + 295.0), "{}", jct(&j, "A"));
    assert_eq!(out.jobs[0].cancelled, 1);
    // No RC: the second order waits for the first (done at 110.004), then
    // loads for 10 s: 1 GPU until 120.004, switch, the rest at rate 3.
    let (j, out) = scripted(job(), "t4:1x4", &steps, &with(&[("coddl_rc", "false")]));
    let want = 120.008 + (1000.0 - 120.004) / 3.0;
    assert!(close(jct(&j, "A"), want), "{} vs {want}", jct(&j, "A"));
    assert_eq!(out.jobs[0].cancelled, 0);
    // No RC / ES: two full restarts back to back.
    let (j, _) = scripted(
        job(),
        "t4:1x4",
        &steps,
        &with(&[("coddl_rc", "false"), ("coddl_es", "false")]),
    );
    // 100 done at 100; restart until 110; the second restart queues until 120; then rate 3.
    assert!(close(jct(&j, "A"), 120.0 + 900.0 / 3.0), "{}", jct(&j, "A"));
}

/// With zero reconfiguration cost the CoDDL mode is the idealised run,
/// job by job, for every elastic policy on a generated trace.
#[test]
fn zero_cost_coddl_equals_the_idealised_run() {
    let trace = generate(
        "afs-synthetic",
        Some(150),
        5,
        &[("load".into(), "1.5".into())],
    )
    .unwrap();
    let cluster = parse_cluster("afs-64").unwrap();
    let zoo = ModelZoo::builtin();
    for p in ["afs-l", "afs-p", "maxmin", "optimus", "themis", "srtf"] {
        let (ideal, jobs_a, _) =
            run_engine(&trace, &cluster, &zoo, p, &[], &[("placement", "any")]);
        for (es, rc) in [("true", "true"), ("false", "false"), ("true", "false")] {
            let (coddl, jobs_b, _) = run_engine(
                &trace,
                &cluster,
                &zoo,
                p,
                &[],
                &[
                    ("placement", "any"),
                    ("reconfig", "coddl"),
                    ("init_s", "0"),
                    ("switch_s", "0"),
                    ("coddl_es", es),
                    ("coddl_rc", rc),
                ],
            );
            assert_eq!(ideal.completed, coddl.completed);
            for (a, b) in jobs_a.iter().zip(&jobs_b) {
                assert_eq!(a.jct_s, b.jct_s, "{p} es={es} rc={rc} job {}", a.name);
            }
        }
        // A real cost makes a difference.
        let (costly, _, _) = run_engine(
            &trace,
            &cluster,
            &zoo,
            p,
            &[],
            &[("placement", "any"), ("reconfig", "coddl")],
        );
        assert!(costly.avg_jct_s > ideal.avg_jct_s, "{p}");
    }
}

/// Network packing: every share is 1, 2, 4 or a multiple of 4 on 4-GPU
/// machines, on the fewest machines, with at most one job per machine
/// spanning machines; and jobs finish.
#[test]
fn network_packing_keeps_shares_compliant() {
    let trace = generate(
        "afs-synthetic",
        Some(120),
        9,
        &[("load".into(), "1.2".into())],
    )
    .unwrap();
    let cluster = parse_cluster("afs-64").unwrap();
    let zoo = ModelZoo::builtin();
    for p in ["afs-l", "afs-p", "afs-s", "maxmin", "optimus", "themis"] {
        let (pol, _) = schedlab::policy::build(p, &[], 1).unwrap();
        let cfg = EngineConfig::from_overrides(&[("placement".into(), "netpack".into())]).unwrap();
        let mut sim = Simulation::new(&trace, &cluster, &zoo, pol, cfg).unwrap();
        while sim.step().unwrap() {
            let mut spanning = vec![0u32; cluster.nodes.len()];
            for st in sim.jobs() {
                if let Some(pl) = &st.placement {
                    let r = pl.gpus();
                    assert!(netpack::is_compliant(r, 4), "{p}: share {r}");
                    assert_eq!(
                        pl.nodes(),
                        r.div_ceil(4),
                        "{p}: {r} GPUs on {} machines",
                        pl.nodes()
                    );
                    if pl.nodes() > 1 {
                        for s in &pl.shares {
                            spanning[s.node as usize] += 1;
                        }
                    }
                }
            }
            assert!(
                spanning.iter().all(|&c| c <= 1),
                "{p}: two multi-machine jobs share a machine"
            );
        }
        let out = sim.outcome();
        assert_eq!(out.incomplete, 0, "{p}");
    }
}

/// "Overestimate first, re-adjust later": a new job is believed linear and
/// capped at its fair share until measured; the measurement re-runs the
/// policy, so jobs change shares more often than with perfect knowledge.
#[test]
fn measurement_mode_readjusts_after_measuring() {
    let trace = Trace::from_jobs(
        "measure",
        vec![
            elastic("A", 0.0, "afs/inception-v4", 1, 1e6),
            elastic("B", 100.0, "afs/chatbot", 1, 2e5),
        ],
    )
    .unwrap();
    let cluster = parse_cluster("gtx1080:4x4").unwrap();
    let zoo = ModelZoo::builtin();
    let segs = |out: &schedlab::sim::Outcome, j: u32| {
        out.timeline.segments.iter().filter(|s| s.job == j).count()
    };
    let (_, _, perfect) = run_engine(
        &trace,
        &cluster,
        &zoo,
        "afs-p",
        &[],
        &[("placement", "any")],
    );
    let (s, _, est) = run_engine(
        &trace,
        &cluster,
        &zoo,
        "afs-p",
        &[],
        &[("placement", "any"), ("measure", "overestimate")],
    );
    assert_eq!(s.completed, 2);
    // B arrives believed linear with a fair-share cap of 8, then is measured.
    let b_first = est.timeline.segments.iter().find(|x| x.job == 1).unwrap();
    assert!(b_first.gpu_count <= 8);
    assert!(
        segs(&est, 1) > segs(&perfect, 1),
        "{} vs {}",
        segs(&est, 1),
        segs(&perfect, 1)
    );
}
