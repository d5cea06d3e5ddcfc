//! Engine rules in one place (issue 51, item 1): the metrics, the PCS search
//! and the policies apply the engine's own rules (`sim::rules`), so they
//! agree with what the engine did under every setting.

use crate::common;

use common::{rigid, run_engine};
use schedlab::cluster::parse_cluster;
use schedlab::perf::{Behaviour, ModelInfo, ModelZoo, SpeedupCurve};
use schedlab::sim::{EngineConfig, Rules, Simulation};
use schedlab::workload::Trace;

/// The built-in zoo plus `slow-start`: linear scaling, 40 s restart delay.
fn zoo() -> ModelZoo {
    let mut zoo = ModelZoo::builtin();
    zoo.insert(ModelInfo {
        name: "slow-start".into(),
        aliases: vec![],
        family: "test".into(),
        description: "linear, 40 s restart delay".into(),
        provenance: "test".into(),
        default_batch: 0,
        max_batch: 0,
        max_gpus: 0,
        restart_s: 40.0,
        mem_gb: 0.0,
        default_work: None,
        epochs: None,
        behaviour: Behaviour::Curve {
            curve: SpeedupCurve::Linear,
            type_speed: vec![],
        },
    });
    zoo
}

/// A job alone pays exactly one first-start delay, so its finish-time
/// fairness is 1 whatever the engine charges: the reference adds the delay
/// the engine charged (`Rules::first_start_delay`), not the model's own.
/// Before the rules were shared, `restart_scale=0` gave rho = 1000/1040.
#[test]
fn a_job_alone_is_exactly_fair_under_every_restart_setting() {
    let mut job = rigid("alone", 0.0, 4, 1000.0);
    job.model = "slow-start".into();
    let trace = Trace::from_jobs("alone", vec![job]).unwrap();
    let cluster = parse_cluster("homog-64").unwrap();
    let zoo = zoo();
    let cases: &[(&[(&str, &str)], f64)] = &[
        (&[], 1040.0),
        (&[("restart_scale", "0")], 1000.0),
        (&[("restart_scale", "2.5")], 1100.0),
        (&[("restart_s", "10")], 1010.0),
        (&[("charge_first_start", "false")], 1000.0),
        (&[("reconfig", "coddl"), ("init_s", "25")], 1025.0),
    ];
    for (engine, jct) in cases {
        let (summary, jobs, _) = run_engine(&trace, &cluster, &zoo, "fifo", &[], engine);
        let got = jobs[0].jct_s.unwrap();
        assert!(
            (got - jct).abs() < 1e-6,
            "{engine:?}: JCT {got}, expected {jct}"
        );
        let rho = jobs[0].ftf_rho.unwrap();
        assert!((rho - 1.0).abs() < 1e-9, "{engine:?}: rho {rho}");
        assert_eq!(summary.ftf_unfair_frac, 0.0, "{engine:?}");
    }
}

#[test]
fn the_outcome_carries_the_rules_the_run_followed() {
    let trace = Trace::from_jobs("one", vec![rigid("a", 0.0, 1, 10.0)]).unwrap();
    let cluster = parse_cluster("homog-64").unwrap();
    let zoo = zoo();
    let set = [("restart_scale", "3"), ("calibration", "sia")];
    let (_, _, out) = run_engine(&trace, &cluster, &zoo, "fifo", &[], &set);
    let cfg =
        EngineConfig::from_overrides(&set.map(|(k, v)| (k.to_string(), v.to_string()))).unwrap();
    assert_eq!(out.rules, Rules::of(&cfg));
    assert_ne!(out.rules, Rules::default());
    let model = zoo.get(zoo.lookup("slow-start").unwrap());
    assert_eq!(out.rules.restart_delay(model), 120.0);
}

/// The PCS search sizes jobs by the engine's reading of the trace, without
/// running it: the same declared work the engine starts a run with.
#[test]
fn declared_works_are_the_engines() {
    let cluster = parse_cluster("sia-hetero-64").unwrap();
    let zoo = ModelZoo::builtin();
    let trace = schedlab::workload::load_named("sia-philly")
        .unwrap()
        .unwrap();
    let works = schedlab::sim::rules::declared_works(&trace, &cluster, &zoo).unwrap();
    let (policy, _) = schedlab::policy::build("fifo", &[], 1).unwrap();
    let cfg = EngineConfig::from_overrides(&[("early_stop".into(), "false".into())]).unwrap();
    let sim = Simulation::new(&trace, &cluster, &zoo, policy, cfg).unwrap();
    let engine: Vec<f64> = sim.outcome().jobs.iter().map(|j| j.declared_work).collect();
    assert_eq!(works.len(), trace.jobs.len());
    assert_eq!(works, engine);
    // A trace the engine refuses is refused the same way.
    let mut bad = trace.clone();
    bad.jobs[3].model = "no-such-model".into();
    let e = schedlab::sim::rules::declared_works(&bad, &cluster, &zoo)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no-such-model") && e.contains("model"), "{e}");
}
