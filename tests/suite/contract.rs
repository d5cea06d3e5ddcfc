//! The policy contract (issue 51, item 2), each invariant with a policy that
//! tries to break it and is stopped:
//! - a policy sees only jobs that have arrived: reading another job, or a
//!   decision naming one (even a decision the scheduler delay holds back),
//!   is an engine error naming the policy and the job;
//! - the truth is behind the oracle door: under measured rates a declared
//!   policy's view says what was measured, only the door says the truth;
//! - `View::pinned` says which jobs may not move, and the engine refuses
//!   a decision that moves one;
//! - policies learn none of this on their own: no policy reads
//!   `spec.preemptible` or declares its own knowledge (the registry does).
//!
//! That a policy cannot reach job states or the trace at all is checked by
//! the compiler (`compile_fail` examples on `View` in crates/sim/src/view.rs).

use crate::common;

use common::rigid;
use schedlab::cluster::{parse_cluster, Packer};
use schedlab::perf::ModelZoo;
use schedlab::policy::{Knowledge, Policy, Trigger};
use schedlab::sim::{Decision, EngineConfig, Outcome, Simulation, View};
use schedlab::workload::Trace;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// How a test policy tries to cheat.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Cheat {
    /// Plays fair: starts every waiting job on 2 idle GPUs.
    None,
    /// Reads the spec of the next job to arrive.
    ReadFuture,
    /// Asks for a job id past the trace.
    ReadMissing,
    /// Starts the next job to arrive.
    NameFuture,
    /// Preempts job 0 once it has finished.
    NameFinished,
    /// Puts the next job to arrive in a group (recorded only).
    GroupFuture,
    /// Preempts job 0 (non-preemptible) when job 1 arrives, though
    /// `View::pinned` says it may not move.
    MovePinned,
    /// Forecasts under a copy of itself that reads a future job.
    CheatInForecast,
    /// Forecasts under a copy of itself that claims the oracle door.
    OracleInForecast,
}

#[derive(Clone)]
struct Cheater {
    cheat: Cheat,
    knowledge: Knowledge,
    /// Set in the copy a forecast runs.
    in_fork: bool,
    /// What `View::pinned(0)` said at each call where job 0 held GPUs.
    pinned_seen: Arc<Mutex<Vec<bool>>>,
    /// Whether the oracle door opened, at each call in a forecast.
    door_in_fork: Arc<Mutex<Vec<bool>>>,
}

impl Cheater {
    fn new(cheat: Cheat) -> Cheater {
        Cheater {
            cheat,
            knowledge: Knowledge::Declared,
            in_fork: false,
            pinned_seen: Arc::default(),
            door_in_fork: Arc::default(),
        }
    }
}

impl Policy for Cheater {
    fn name(&self) -> &str {
        "cheater"
    }
    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(0.0)
    }
    fn knowledge(&self) -> Knowledge {
        self.knowledge
    }
    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let next = view.id_bound() as u32;
        if view.placement(0).is_some() {
            self.pinned_seen.lock().unwrap().push(view.pinned(0));
        }
        match self.cheat {
            // (The trace has 3 jobs: every read names one that exists.)
            Cheat::ReadFuture if next < 3 => {
                let _ = view.spec(next).arrival;
            }
            Cheat::ReadMissing => {
                let _ = view.declared_work(1_000);
            }
            Cheat::CheatInForecast if self.in_fork && next < 3 => {
                let _ = view.spec(next).arrival;
            }
            Cheat::CheatInForecast => {
                let mut copy = self.clone();
                copy.in_fork = true;
                // The policy ignores the failed forecast: the run still fails.
                let _ = view.forecast(Box::new(copy));
            }
            Cheat::OracleInForecast if self.in_fork => {
                self.door_in_fork
                    .lock()
                    .unwrap()
                    .push(view.oracle().is_some());
            }
            Cheat::OracleInForecast => {
                let mut copy = self.clone();
                copy.in_fork = true;
                copy.knowledge = Knowledge::Oracle;
                view.forecast(Box::new(copy)).unwrap();
            }
            _ => {}
        }
        let mut packer: Packer = view.packer_idle();
        for &j in view.waiting() {
            if let Some(p) = packer.claim(j, view.cluster().kinds[0], 2) {
                out.assign(j, p, None);
            }
        }
        match self.cheat {
            Cheat::NameFuture if next < 3 => {
                if let Some(p) = packer.claim(next, view.cluster().kinds[0], 2) {
                    out.assign(next, p, None);
                }
            }
            Cheat::NameFinished if view.active().contains(&2) => out.preempt(0),
            Cheat::GroupFuture if next < 3 => out.set_group(next, 1),
            Cheat::MovePinned if view.arrived().contains(&1) => out.preempt(0),
            _ => {}
        }
    }
}

/// Job 0 (non-preemptible, 0-1000 s), job 1 (10-110 s), job 2 (5000 s on).
fn trace() -> Trace {
    let mut a = rigid("a", 0.0, 2, 1000.0);
    a.preemptible = false;
    let jobs = vec![a, rigid("b", 10.0, 2, 100.0), rigid("c", 5000.0, 2, 100.0)];
    Trace::from_jobs("contract", jobs).unwrap()
}

fn run_with(policy: Cheater, engine: &[(&str, &str)]) -> schedlab::Result<Outcome> {
    let set: Vec<(String, String)> = engine
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let cfg = EngineConfig::from_overrides(&set).unwrap();
    let cluster = parse_cluster("homog-64").unwrap();
    let mut sim = Simulation::new(
        &trace(),
        &cluster,
        &ModelZoo::builtin(),
        Box::new(policy),
        cfg,
    )?;
    sim.run(&mut |_| true)
}

fn run(cheat: Cheat) -> schedlab::Result<Outcome> {
    run_with(Cheater::new(cheat), &[])
}

/// The error of a cheating run, checked to name the policy and `job`.
fn refused(cheat: Cheat, job: u32) -> String {
    let e = run(cheat)
        .err()
        .unwrap_or_else(|| panic!("{cheat:?} was not stopped"))
        .to_string();
    assert!(
        e.contains("policy 'cheater'") && e.contains(&format!("job {job}")),
        "{cheat:?}: {e}"
    );
    e
}

#[test]
fn a_fair_policy_runs_to_the_end() {
    let out = run(Cheat::None).unwrap();
    assert_eq!(out.incomplete, 0);
}

#[test]
fn reading_a_job_that_has_not_arrived_fails_the_run() {
    let e = refused(Cheat::ReadFuture, 1);
    assert!(e.contains("before it arrived"), "{e}");
    let e = refused(Cheat::ReadMissing, 1000);
    assert!(e.contains("does not exist"), "{e}");
}

#[test]
fn an_oracle_may_read_jobs_to_come() {
    let mut oracle = Cheater::new(Cheat::ReadFuture);
    oracle.knowledge = Knowledge::Oracle;
    assert_eq!(run_with(oracle, &[]).unwrap().incomplete, 0);
}

#[test]
fn a_breach_inside_a_forecast_fails_the_run() {
    let e = refused(Cheat::CheatInForecast, 1);
    assert!(
        e.contains("in a forecast") && e.contains("before it arrived"),
        "{e}"
    );
}

#[test]
fn a_forecast_never_opens_a_door_its_caller_lacks() {
    let cheat = Cheater::new(Cheat::OracleInForecast);
    let doors = cheat.door_in_fork.clone();
    assert_eq!(run_with(cheat, &[]).unwrap().incomplete, 0);
    let doors = doors.lock().unwrap().clone();
    assert!(!doors.is_empty() && doors.iter().all(|d| !d), "{doors:?}");
    // An oracle's forecast under an oracle copy keeps its door.
    let mut oracle = Cheater::new(Cheat::OracleInForecast);
    oracle.knowledge = Knowledge::Oracle;
    let doors = oracle.door_in_fork.clone();
    run_with(oracle, &[]).unwrap();
    assert!(doors.lock().unwrap().iter().all(|d| *d));
}

#[test]
fn a_decision_naming_a_job_that_is_not_active_is_an_engine_error() {
    let e = refused(Cheat::NameFuture, 1);
    assert!(e.contains("has not arrived"), "{e}");
    let e = refused(Cheat::NameFinished, 0);
    assert!(e.contains("has finished"), "{e}");
    let e = refused(Cheat::GroupFuture, 1);
    assert!(e.contains("group") && e.contains("has not arrived"), "{e}");
}

#[test]
fn a_delayed_decision_naming_a_future_job_is_refused_when_made() {
    // Job 1 arrives at 10 s, before the decision made at 0 s takes effect
    // at 20 s: the decision is refused all the same, not applied or dropped.
    let e = run_with(
        Cheater::new(Cheat::NameFuture),
        &[("scheduler_delay", "fixed"), ("scheduler_delay_s", "20")],
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("policy 'cheater'") && e.contains("job 1") && e.contains("not arrived"),
        "{e}"
    );
}

#[test]
fn the_view_says_which_jobs_are_pinned_and_the_engine_holds_them() {
    let fair = Cheater::new(Cheat::None);
    let seen = fair.pinned_seen.clone();
    run_with(fair, &[]).unwrap();
    let seen = seen.lock().unwrap().clone();
    assert!(!seen.is_empty() && seen.iter().all(|p| *p), "{seen:?}");
    let e = refused(Cheat::MovePinned, 0);
    assert!(e.contains("not preemptible"), "{e}");
}

/// What a probe saw of job 0's rate on 8 GPUs: (view, oracle door).
type Rates = Arc<Mutex<Vec<(f64, Option<f64>)>>>;

#[derive(Clone)]
struct RateProbe {
    knowledge: Knowledge,
    seen: Rates,
}

impl Policy for RateProbe {
    fn name(&self) -> &str {
        "rate-probe"
    }
    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(0.0)
    }
    fn knowledge(&self) -> Knowledge {
        self.knowledge
    }
    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        for &j in view.active() {
            let door = view.oracle().map(|o| o.rate(j, 8));
            self.seen.lock().unwrap().push((view.rate(j, 8), door));
            if view.placement(j).is_none() {
                if let Some(p) = view.packer_idle().claim(j, view.cluster().kinds[0], 2) {
                    out.assign(j, p, None);
                }
            }
        }
    }
}

fn probe_rates(knowledge: Knowledge, measure: &str) -> Vec<(f64, Option<f64>)> {
    let seen: Rates = Arc::default();
    let probe = RateProbe {
        knowledge,
        seen: seen.clone(),
    };
    let mut job = schedlab::workload::JobSpec::new("j", 0.0, "afs/vgg16", 2).with_duration(600.0);
    job.adaptivity = schedlab::workload::Adaptivity::StrongScaling;
    let trace = Trace::from_jobs("rates", vec![job]).unwrap();
    let cfg = EngineConfig::from_overrides(&[("measure".into(), measure.into())]).unwrap();
    let cluster = parse_cluster("homog-64").unwrap();
    let mut sim =
        Simulation::new(&trace, &cluster, &ModelZoo::builtin(), Box::new(probe), cfg).unwrap();
    sim.run(&mut |_| true).unwrap();
    let out = seen.lock().unwrap().clone();
    assert!(!out.is_empty());
    out
}

#[test]
fn measured_rates_hide_the_true_rate_behind_the_oracle_door() {
    // Rates known: the view and the door agree.
    let known = probe_rates(Knowledge::Oracle, "perfect");
    assert!(known.iter().all(|(v, door)| Some(*v) == *door));
    // Rates measured: an unmeasured job is believed linear beyond what was
    // measured, and only the door says the truth (a sublinear curve).
    let measured = probe_rates(Knowledge::Oracle, "overestimate");
    let (believed, truth) = measured[0];
    let truth = truth.unwrap();
    assert!(believed > truth * 1.01, "believed {believed}, true {truth}");
    assert_eq!(truth, known[0].0);
    // A declared policy sees the belief and no door.
    let declared = probe_rates(Knowledge::Declared, "overestimate");
    assert_eq!(declared[0], (believed, None));
}

/// The Rust files under `dir`, recursively, as (path, text).
fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            out.push((path.display().to_string(), text));
        }
    }
    out
}

/// Whether `code` contains `needle` not followed by more of an identifier.
fn has_token(code: &str, needle: &str) -> bool {
    code.match_indices(needle).any(|(at, _)| {
        !code[at + needle.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
    })
}

/// Lines of code (comments dropped) containing `needle` as a token.
fn code_lines_with<'a>(files: &'a [(String, String)], needle: &str) -> Vec<String> {
    files
        .iter()
        .flat_map(|(path, text)| {
            text.lines()
                .enumerate()
                .filter(|(_, l)| !l.trim_start().starts_with("//"))
                .filter(|(_, l)| has_token(l.split("//").next().unwrap_or(""), needle))
                .map(move |(i, l)| format!("{path}:{}: {}", i + 1, l.trim()))
        })
        .collect()
}

#[test]
fn no_policy_re_derives_what_the_view_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let policies = sources(&root.join("crates/policies/src"));
    assert!(policies.len() > 30);
    let found = code_lines_with(&policies, ".preemptible");
    assert!(
        found.is_empty(),
        "policies read `preemptible` (use View::pinned): {found:#?}"
    );
    // Knowledge is declared by the registry entry (`PolicyInfo::knowledge`),
    // which the registry's wrapper reports; no policy says it in code.
    let found: Vec<String> = code_lines_with(&policies, "fn knowledge")
        .into_iter()
        .filter(|l| !l.contains("policies/src/lib.rs"))
        .collect();
    assert!(
        found.is_empty(),
        "policies declare their knowledge in code: {found:#?}"
    );
}

#[test]
fn no_metrics_code_re_derives_an_engine_rule() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let metrics = sources(&root.join("crates/metrics/src"));
    // The restart delay, the calibration, the batch and pinning rules are
    // `sim::rules`; metrics read the run's `Outcome::rules`.
    for needle in [
        ".restart_s",
        ".slowdown",
        "batch_size > 0",
        ".default_batch",
        ".preemptible",
    ] {
        let found = code_lines_with(&metrics, needle);
        assert!(
            found.is_empty(),
            "metrics re-derive an engine rule ({needle}): {found:#?}"
        );
    }
}
