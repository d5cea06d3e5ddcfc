//! Knowledge (issue 15, item 1): the engine keeps true job lengths from
//! policies that do not declare oracle knowledge; hidden random lengths
//! (`engine.length_noise`) make the difference observable.

use crate::common;

use common::rigid;
use schedlab::cluster::parse_cluster;
use schedlab::perf::ModelZoo;
use schedlab::policy::{self, Knowledge, Policy, Trigger};
use schedlab::sim::{Decision, EngineConfig, Simulation, View};
use schedlab::workload::Trace;
use std::sync::{Arc, Mutex};

/// What a probe policy saw of each active job: (declared remaining,
/// what it may know, the oracle's answer if it got one).
type Seen = Arc<Mutex<Vec<(f64, f64, Option<f64>)>>>;

#[derive(Clone)]
struct Probe {
    knowledge: Knowledge,
    seen: Seen,
}

impl Policy for Probe {
    fn name(&self) -> &str {
        "probe" // not in the registry: its knowledge is what it declares here
    }
    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(0.0)
    }
    fn knowledge(&self) -> Knowledge {
        self.knowledge
    }
    fn schedule(&mut self, view: &View<'_>, _out: &mut Decision) {
        let oracle = view.oracle();
        for &j in view.active() {
            self.seen.lock().unwrap().push((
                view.declared_remaining_work(j),
                view.known_remaining_work(j),
                oracle.map(|o| o.remaining_work(j)),
            ));
        }
    }
}

fn trace() -> Trace {
    let jobs = (0..40)
        .map(|i| rigid(&format!("j{i}"), i as f64, 1, 1000.0 + 10.0 * i as f64))
        .collect();
    Trace::from_jobs("probe", jobs).unwrap()
}

fn observe(knowledge: Knowledge, noise: f64) -> Vec<(f64, f64, Option<f64>)> {
    let seen: Seen = Arc::default();
    let probe = Box::new(Probe {
        knowledge,
        seen: seen.clone(),
    });
    let mut cfg =
        EngineConfig::from_overrides(&[("length_noise".into(), noise.to_string())]).unwrap();
    cfg.seed = 7;
    let cluster = parse_cluster("homog-64").unwrap();
    let mut sim = Simulation::new(&trace(), &cluster, &ModelZoo::builtin(), probe, cfg).unwrap();
    sim.run_until(100.0).unwrap();
    let out = seen.lock().unwrap().clone();
    assert!(!out.is_empty());
    out
}

#[test]
fn a_policy_without_oracle_knowledge_cannot_read_true_work() {
    let seen = observe(Knowledge::Declared, 0.8);
    assert!(
        seen.iter().all(|(_, _, oracle)| oracle.is_none()),
        "the oracle answered a non-oracle policy"
    );
    assert!(seen.iter().all(|(declared, known, _)| declared == known));
}

#[test]
fn an_oracle_policy_sees_the_hidden_truth() {
    let seen = observe(Knowledge::Oracle, 0.8);
    assert!(seen
        .iter()
        .all(|(_, known, oracle)| Some(*known) == *oracle));
    let differ = seen.iter().filter(|(d, _, o)| Some(*d) != *o).count();
    assert!(
        differ > seen.len() / 2,
        "with length_noise 0.8 the truth should differ from the declared work"
    );
    // Without noise the truth is what was declared.
    let plain = observe(Knowledge::Oracle, 0.0);
    assert!(plain.iter().all(|(d, _, o)| Some(*d) == *o));
}

#[test]
fn hidden_lengths_are_mean_one_seeded_and_per_job() {
    let cluster = parse_cluster("homog-64").unwrap();
    let zoo = ModelZoo::builtin();
    let run = |noise: &str, seed: u64| {
        let (p, _) = policy::build("fifo", &[], 1).unwrap();
        let mut cfg =
            EngineConfig::from_overrides(&[("length_noise".into(), noise.into())]).unwrap();
        cfg.seed = seed;
        let mut sim = Simulation::new(&trace(), &cluster, &zoo, p, cfg).unwrap();
        let out = sim.run(&mut |_| true).unwrap();
        out.jobs.iter().map(|j| j.work).collect::<Vec<f64>>()
    };
    let declared = run("0", 1);
    let a = run("0.5", 1);
    assert_eq!(a, run("0.5", 1), "same seed, same lengths");
    assert_ne!(a, run("0.5", 2), "another seed, other lengths");
    let ratios: Vec<f64> = a.iter().zip(&declared).map(|(t, d)| t / d).collect();
    let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
    assert!((0.75..1.25).contains(&mean), "mean factor {mean}");
    assert!(ratios.iter().any(|r| *r < 0.9) && ratios.iter().any(|r| *r > 1.1));
}

#[test]
fn the_registry_declares_the_length_aware_policies_as_oracles() {
    let oracles: Vec<&str> = policy::registry()
        .iter()
        .filter(|p| p.knowledge == Knowledge::Oracle)
        .map(|p| p.name)
        .collect();
    // The anticipatory policies' predictors (perfect, noisy, random) and
    // references are built on the truth; the SSF baselines use true run
    // times as their paper does.
    assert_eq!(
        oracles,
        [
            "srtf",
            "srsf",
            "afs-l",
            "optimus",
            "srtf-e",
            "srsf-e",
            "anticipatory",
            "anticipatory-vc",
            "anticipatory-oracle",
            "pool-ssf",
            "gssf",
            "themis-rtc"
        ]
    );
    for info in policy::registry() {
        let (p, _) = policy::build(info.name, &[], 1).unwrap();
        assert_eq!(p.knowledge(), info.knowledge, "{}", info.name);
    }
}
