//! Tiresias keeps its queues ordered from call to call and walks them only
//! until the cluster is full (issue 47, scale). This checks that it decides
//! exactly as the direct reading of the paper does: every call, stamp new
//! and demoted jobs, sort the whole active set by (queue, stamp), walk all
//! of it, restamp every pending job to the tail. The reference below is
//! that code (reasons left out), run side by side with the registered
//! policy on overloaded traces under each setting that changes the order.

use schedlab::cluster::parse_cluster;
use schedlab::perf::ModelZoo;
use schedlab::policy::{self, gang_plan, gang_request, Policy, Trigger};
use schedlab::sim::{Decision, EngineConfig, Outcome, Simulation, View};
use schedlab::workload::{gen, Trace};

#[derive(Clone, Default)]
struct QueueState {
    seen: bool,
    level: usize,
    stamp: (f64, u64),
    offset: f64,
    pending_since: f64,
}

/// Tiresias as it was written before the queues were kept ordered.
#[derive(Clone)]
struct Reference {
    thresholds: Vec<f64>,
    knob: f64,
    pending_to_tail: bool,
    peak: bool,
    round_s: f64,
    jobs: Vec<QueueState>,
    seq: u64,
}

impl Reference {
    fn stamp(&mut self, t: f64) -> (f64, u64) {
        self.seq += 1;
        (t, self.seq)
    }
}

impl Policy for Reference {
    fn name(&self) -> &str {
        "tiresias"
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(self.round_s)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        if self.jobs.len() < view.id_bound() {
            self.jobs.resize(view.id_bound(), QueueState::default());
        }
        let now = view.now();
        for &j in view.active().iter() {
            if !self.jobs[j as usize].seen {
                let stamp = self.stamp(view.spec(j).arrival);
                let q = &mut self.jobs[j as usize];
                q.seen = true;
                q.stamp = stamp;
                q.pending_since = now;
            }
            let attained = view.attained_gpu_s(j) - self.jobs[j as usize].offset;
            let level = self.thresholds.iter().filter(|t| attained >= **t).count();
            if level > self.jobs[j as usize].level {
                let stamp = self.stamp(now);
                let q = &mut self.jobs[j as usize];
                q.level = level;
                q.stamp = stamp;
            }
            let q = &self.jobs[j as usize];
            if self.knob > 0.0 && q.level > 0 && !view.is_running(j) && q.pending_since.is_finite()
            {
                let executed = view.executed_s(j);
                if now - q.pending_since >= executed * self.knob {
                    let stamp = self.stamp(now);
                    let q = &mut self.jobs[j as usize];
                    q.level = 0;
                    q.offset = view.attained_gpu_s(j);
                    q.stamp = stamp;
                }
            }
        }
        let mut order: Vec<u32> = view.active().iter().copied().collect();
        order.sort_by(|a, b| {
            let (qa, qb) = (&self.jobs[*a as usize], &self.jobs[*b as usize]);
            qa.level
                .cmp(&qb.level)
                .then(qa.stamp.0.total_cmp(&qb.stamp.0))
                .then(qa.stamp.1.cmp(&qb.stamp.1))
        });
        let peak = self.peak;
        let (plan, placed) = gang_plan(view, &order, true, &|j| gang_request(view, j, peak));
        out.apply_plan(view, plan);
        let placed: std::collections::BTreeSet<u32> = placed.into_iter().collect();
        let mut next_wake = f64::INFINITY;
        for &j in &order {
            if placed.contains(&j) {
                self.jobs[j as usize].pending_since = f64::NAN;
                let q = &self.jobs[j as usize];
                let attained = view.attained_gpu_s(j) - q.offset;
                if let Some(t) = self.thresholds.get(q.level) {
                    let gpus = gang_request(view, j, peak) as f64;
                    next_wake = next_wake.min(now + (t - attained).max(1e-6) / gpus);
                }
            } else {
                if self.pending_to_tail {
                    let stamp = self.stamp(now);
                    self.jobs[j as usize].stamp = stamp;
                }
                let q = &mut self.jobs[j as usize];
                if !q.pending_since.is_finite() {
                    q.pending_since = now;
                }
                if self.knob > 0.0 && q.level > 0 {
                    let executed = view.executed_s(j);
                    next_wake =
                        next_wake.min((q.pending_since + executed * self.knob).max(now + 1e-6));
                }
            }
        }
        if next_wake.is_finite() && self.round_s == 0.0 {
            out.wake_at(next_wake);
        }
    }
}

fn reference(set: &[(&str, &str)]) -> Reference {
    let get = |k: &str, d: &str| {
        set.iter()
            .find(|(key, _)| *key == k)
            .map_or(d.to_string(), |(_, v)| v.to_string())
    };
    Reference {
        thresholds: vec![3250.0, 7200.0],
        knob: get("promote_knob", "0").parse().unwrap(),
        pending_to_tail: get("pending_to_tail", "true") == "true",
        peak: get("request", "trace") == "peak",
        round_s: get("round_s", "0").parse().unwrap(),
        jobs: Vec::new(),
        seq: 0,
    }
}

/// An overloaded `afs-synthetic` trace (a queue of hundreds), every
/// seventh job non-preemptible.
fn trace() -> Trace {
    let load = [("load".to_string(), "1.3".to_string())];
    let mut t = gen::generate("afs-synthetic", Some(1500), 7, &load).unwrap();
    for j in t.jobs.iter_mut().step_by(7) {
        j.preemptible = false;
    }
    t
}

fn run(trace: &Trace, engine: &[(&str, &str)], policy: Box<dyn Policy>) -> Outcome {
    let cluster = parse_cluster("afs-64").unwrap();
    let zoo = ModelZoo::builtin();
    let engine: Vec<(String, String)> = engine
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let cfg = EngineConfig::from_overrides(&engine).unwrap();
    let mut sim = Simulation::new(trace, &cluster, &zoo, policy, cfg).unwrap();
    sim.run(&mut |_| true).unwrap()
}

/// `KEY=VALUE` pairs of a policy or the engine.
type Pairs<'a> = &'a [(&'a str, &'a str)];

#[test]
fn kept_queues_decide_as_sorting_every_call() {
    let trace = trace();
    let cases: &[(Pairs, Pairs)] = &[
        (&[], &[]),
        (&[("pending_to_tail", "false")], &[]),
        (&[("promote_knob", "2")], &[]),
        (&[("round_s", "60")], &[]),
        (&[("request", "peak")], &[]),
        (
            &[],
            &[("scheduler_delay", "fixed"), ("scheduler_delay_s", "30")],
        ),
    ];
    for (set, engine) in cases {
        let overrides: Vec<(String, String)> = set
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let (kept, _) = policy::build("tiresias", &overrides, 1).unwrap();
        let a = run(&trace, engine, kept);
        let b = run(&trace, engine, Box::new(reference(set)));
        assert!(
            a.jobs.iter().filter(|j| j.finish.is_some()).count() > 1000,
            "{set:?}: too few jobs finished to compare"
        );
        for (x, y) in a.jobs.iter().zip(&b.jobs) {
            assert_eq!(
                (x.start, x.finish, x.gpu_s, x.restarts, x.migrations),
                (y.start, y.finish, y.gpu_s, y.restarts, y.migrations),
                "{set:?} {engine:?}: job {}",
                x.name
            );
        }
        assert_eq!(a.end_time, b.end_time, "{set:?} {engine:?}");
    }
}
