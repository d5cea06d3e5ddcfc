//! The engine enforces non-preemption (issue 15, item 5): a decision that
//! preempts, moves or resizes a running non-preemptible job is refused
//! with an error naming the policy and the job, whatever the policy.

use crate::common;

use common::rigid;
use schedlab::cluster::{parse_cluster, Packer};
use schedlab::perf::ModelZoo;
use schedlab::policy::{Policy, Trigger};
use schedlab::sim::{Decision, EngineConfig, Simulation, View};
use schedlab::workload::Trace;

/// Starts every waiting job on 2 idle GPUs; with `evict`, preempts (or,
/// with `shrink`, resizes) job 0 as soon as job 1 arrives.
#[derive(Clone)]
struct Bully {
    evict: bool,
    shrink: bool,
}

impl Policy for Bully {
    fn name(&self) -> &str {
        "bully"
    }
    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(0.0)
    }
    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let mut packer: Packer = view.packer_idle();
        for &j in view.waiting() {
            if let Some(p) = packer.claim(j, view.cluster().kinds[0], 2) {
                out.assign(j, p, None);
            }
        }
        if self.evict && view.arrived().contains(&1) && view.placement(0).is_some() {
            if self.shrink {
                let mut p = view.placement(0).unwrap().clone();
                p.shares[0].mask &= p.shares[0].mask - 1; // drop one GPU
                out.assign(0, p, None);
            } else {
                out.preempt(0);
            }
        }
    }
}

fn run(preemptible: bool, evict: bool, shrink: bool) -> schedlab::Result<schedlab::sim::Outcome> {
    let mut a = rigid("a", 0.0, 2, 1000.0);
    a.preemptible = preemptible;
    let trace = Trace::from_jobs("np", vec![a, rigid("b", 10.0, 2, 100.0)]).unwrap();
    let cluster = parse_cluster("homog-64").unwrap();
    let mut sim = Simulation::new(
        &trace,
        &cluster,
        &ModelZoo::builtin(),
        Box::new(Bully { evict, shrink }),
        EngineConfig::default(),
    )?;
    sim.run(&mut |_| true)
}

#[test]
fn the_engine_rejects_preempting_a_non_preemptible_job() {
    let e = run(false, true, false).unwrap_err().to_string();
    assert!(
        e.contains("bully")
            && e.contains("job 0")
            && e.contains("not preemptible")
            && e.contains("preempts"),
        "{e}"
    );
    let e = run(false, true, true).unwrap_err().to_string();
    assert!(e.contains("moves or resizes"), "{e}");
    // The same decisions are fine for a preemptible job, and leaving the
    // job alone is fine for a non-preemptible one.
    assert_eq!(run(true, true, false).unwrap().incomplete, 0);
    assert_eq!(run(true, true, true).unwrap().incomplete, 0);
    let out = run(false, false, false).unwrap();
    assert_eq!(out.incomplete, 0);
    assert_eq!(out.jobs[0].restarts, 0);
}
