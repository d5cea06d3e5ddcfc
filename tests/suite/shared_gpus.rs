//! Shared GPUs (issue 15, item 3): slices of one GPU with a fraction and
//! memory. Jobs sharing a GPU never exceed fraction 1 or its memory, the
//! engine refuses decisions that would, and a slice runs at the model's
//! interference-slowed rate and draws its fraction of the GPU's power.

use crate::common;

use common::rigid;
use schedlab::cluster::{gpu_mem_mb, parse_cluster, Cluster, NodeShare, Placement, Slice};
use schedlab::perf::ModelZoo;
use schedlab::policy::{self, Policy, Trigger};
use schedlab::sim::{Decision, EngineConfig, Outcome, Simulation, View};
use schedlab::workload::Trace;

/// Single-GPU jobs of 1, 2, 3 and 5 GB arriving faster than 4 GPUs serve them.
fn small_jobs() -> Trace {
    let jobs = (0..40)
        .map(|i| {
            let mut j = rigid(
                &format!("j{i}"),
                i as f64 * 30.0,
                1,
                600.0 + 37.0 * (i % 7) as f64,
            );
            j.mem_gb = Some([1.0, 2.0, 3.0, 5.0][i % 4]);
            j
        })
        .collect();
    Trace::from_jobs("small", jobs).unwrap()
}

fn cluster() -> Cluster {
    parse_cluster("gtx1080:1x4").unwrap()
}

fn run_policy(p: Box<dyn Policy>, trace: &Trace) -> schedlab::Result<Outcome> {
    let cfg = EngineConfig::from_overrides(&[("timeline".into(), "true".into())]).unwrap();
    Simulation::new(trace, &cluster(), &ModelZoo::builtin(), p, cfg)?.run(&mut |_| true)
}

#[test]
fn jobs_sharing_a_gpu_never_exceed_its_fraction_or_memory() {
    let trace = small_jobs();
    let (p, _) = policy::build("fifo", &[("share_gpus".into(), "true".into())], 1).unwrap();
    let out = run_policy(p, &trace).unwrap();
    assert_eq!(out.incomplete, 0, "{}", out.stop_reason);
    let tl = &out.timeline;
    let mem = gpu_mem_mb(cluster().kinds[0]) as f64;
    let mut instants: Vec<f64> = tl.segments.iter().map(|s| s.start).collect();
    instants.sort_by(f64::total_cmp);
    let mut most_sharing = 0;
    for &t in &instants {
        for g in 0..4u32 {
            let on: Vec<_> = tl
                .segments
                .iter()
                .filter(|s| s.start <= t && t < s.end && tl.gpus_of(s).contains(&g))
                .collect();
            let share: f64 = on.iter().map(|s| s.share).sum();
            let used: f64 = on
                .iter()
                .map(|s| trace.jobs[s.job as usize].mem_gb.unwrap() * 1024.0)
                .sum();
            assert!(share <= 1.0 + 1e-12, "GPU {g} at {t}: fractions {share}");
            assert!(used <= mem, "GPU {g} at {t}: {used} MB of {mem}");
            most_sharing = most_sharing.max(on.len());
        }
    }
    assert!(
        most_sharing >= 3,
        "at most {most_sharing} jobs ever shared a GPU"
    );
    // Sharing serves the same jobs sooner than whole GPUs.
    let whole = run_policy(policy::build("fifo", &[], 1).unwrap().0, &trace).unwrap();
    let mean = |o: &Outcome| {
        o.jobs
            .iter()
            .map(|j| j.finish.unwrap() - j.arrival)
            .sum::<f64>()
    };
    assert!(mean(&out) < mean(&whole));
}

/// Places every waiting job as the test says, to see what the engine refuses.
#[derive(Clone)]
struct Placer {
    slices: Vec<(u16, u32)>,
    whole_on_gpu0: Option<u32>,
}

impl Policy for Placer {
    fn name(&self) -> &str {
        "placer"
    }
    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(0.0)
    }
    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let kind = view.cluster().kinds[0];
        for &j in view.waiting() {
            let gpu0 = vec![NodeShare { node: 0, mask: 1 }];
            if Some(j) == self.whole_on_gpu0 {
                out.assign(j, Placement::whole(kind, gpu0), None);
            } else if let Some(&(share, mem_mb)) = self.slices.get(j as usize) {
                let mut p = Placement::whole(kind, gpu0);
                p.slice = Some(Slice { share, mem_mb });
                out.assign(j, p, None);
            }
        }
    }
}

fn two_jobs(mem_gb: f64) -> Trace {
    let jobs = (0..2)
        .map(|i| {
            let mut j = rigid(&format!("j{i}"), i as f64, 1, 1000.0);
            j.mem_gb = Some(mem_gb);
            j
        })
        .collect();
    Trace::from_jobs("two", jobs).unwrap()
}

#[test]
fn the_engine_refuses_oversubscribed_gpus() {
    let trace = two_jobs(1.0);
    let refuse = |p: Placer, trace: &Trace, why: &str| {
        let e = run_policy(Box::new(p), trace).unwrap_err().to_string();
        assert!(e.contains(why) && e.contains("policy 'placer'"), "{e}");
    };
    let ok = Placer {
        slices: vec![(500, 1024), (500, 1024)],
        whole_on_gpu0: None,
    };
    assert_eq!(run_policy(Box::new(ok), &trace).unwrap().incomplete, 0);
    refuse(
        Placer {
            slices: vec![(600, 1024), (600, 1024)],
            whole_on_gpu0: None,
        },
        &trace,
        "> 1000",
    );
    refuse(
        Placer {
            slices: vec![(300, 6000), (300, 6000)],
            whole_on_gpu0: None,
        },
        &trace,
        "would reserve",
    );
    refuse(
        Placer {
            slices: vec![(300, 1024)],
            whole_on_gpu0: Some(1),
        },
        &trace,
        "slices or time-shared parts share",
    );
    refuse(
        Placer {
            slices: vec![(300, 512), (300, 512)],
            whole_on_gpu0: None,
        },
        &trace,
        "needs 1024 MB",
    );
}

/// A job alone on half a GPU runs at its 1-GPU rate over the model's
/// slowdown for half a GPU, holds half the GPU-seconds and draws half the
/// busy power.
#[test]
fn a_slice_runs_at_the_interference_slowed_rate() {
    let mut trace = two_jobs(1.0);
    trace.jobs.truncate(1);
    let sliced = run_policy(
        Box::new(Placer {
            slices: vec![(500, 1024)],
            whole_on_gpu0: None,
        }),
        &trace,
    )
    .unwrap();
    let whole = run_policy(
        Box::new(Placer {
            slices: vec![],
            whole_on_gpu0: Some(0),
        }),
        &trace,
    )
    .unwrap();
    let zoo = ModelZoo::builtin();
    let b = zoo.get(zoo.lookup("linear").unwrap()).share_slowdown(0.5);
    assert!(b > 1.0);
    let (s, w) = (&sliced.jobs[0], &whole.jobs[0]);
    let ratio = (s.finish.unwrap() - s.arrival) / (w.finish.unwrap() - w.arrival);
    assert!(
        (ratio - b).abs() < 1e-9,
        "slowdown {ratio} against the model's {b}"
    );
    assert!(
        (s.gpu_s - 0.5 * s.run_s).abs() < 1e-6,
        "{} GPU-s over {} s",
        s.gpu_s,
        s.run_s
    );
    let per_s = |j: &schedlab::sim::JobResult| j.energy_j / j.run_s;
    assert!((per_s(s) - 0.5 * per_s(w)).abs() < 1e-6);
    assert_eq!(sliced.timeline.segments[0].share, 0.5);
}
