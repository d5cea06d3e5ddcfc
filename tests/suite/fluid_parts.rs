//! Fluid allocations (PCS's simulator, spec seed001 §2.1 and §7.7): whole
//! GPUs plus time-shared parts of other GPUs. The engine runs a job at its
//! throughput interpolated between the two whole counts, charges the GPU
//! time it holds, never lets a GPU's parts exceed one GPU, and records the
//! allocation as one segment per piece, opened and closed together. `pcs`
//! with `realise=fluid` (the default) runs the artifact's fluid shares.

use crate::common;

use common::zoo_with;
use schedlab::cluster::{parse_cluster, Cluster, NodeShare, Part, Placement};
use schedlab::perf::ModelZoo;
use schedlab::policy::{self, Policy, Trigger};
use schedlab::sim::{Decision, EngineConfig, Outcome, Simulation, View};
use schedlab::workload::{Adaptivity, JobSpec, Trace};

fn cluster() -> Cluster {
    parse_cluster("v100:1x4").unwrap()
}

/// An elastic job of `work` 1-GPU seconds that can use up to `gpus` GPUs.
fn elastic(name: &str, arrival: f64, model: &str, gpus: u32, work: f64) -> JobSpec {
    let mut j = JobSpec::new(name, arrival, model, gpus).with_work(work);
    j.max_gpus = gpus;
    j.min_gpus = 1;
    j.adaptivity = Adaptivity::StrongScaling;
    j
}

fn run(p: Box<dyn Policy>, trace: &Trace, zoo: &ModelZoo) -> schedlab::Result<Outcome> {
    let cfg = EngineConfig::from_overrides(&[("timeline".into(), "true".into())]).unwrap();
    Simulation::new(trace, &cluster(), zoo, p, cfg)?.run(&mut |_| true)
}

/// Gives job i, when it waits, whole GPUs `whole[i]` (a mask on node 0)
/// and the parts `parts[i]` (GPU on node 0, thousandths).
#[derive(Clone)]
struct Scripted {
    whole: Vec<u64>,
    parts: Vec<Vec<(u8, u16)>>,
}

impl Policy for Scripted {
    fn name(&self) -> &str {
        "scripted"
    }
    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(0.0)
    }
    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let kind = view.cluster().kinds[0];
        for &j in view.waiting() {
            let i = j as usize;
            let shares = match self.whole.get(i) {
                Some(&m) if m != 0 => vec![NodeShare { node: 0, mask: m }],
                _ => vec![],
            };
            let parts = self.parts.get(i).cloned().unwrap_or_default();
            let parts = parts
                .into_iter()
                .map(|(gpu, share)| Part {
                    node: 0,
                    gpu,
                    share,
                })
                .collect();
            out.assign(j, Placement::fluid(kind, shares, parts), None);
        }
    }
}

fn jct(o: &Outcome, i: usize) -> f64 {
    o.jobs[i].finish.unwrap() - o.jobs[i].arrival
}

#[test]
fn a_whole_gpu_and_half_of_another_run_at_the_interpolated_throughput() {
    // Speedups 1, 1.6, 2.1: on 1.5 GPUs the job runs at 1.3.
    let zoo = zoo_with("sub", &[1.0, 1.6, 2.1]);
    let trace = Trace::from_jobs("one", vec![elastic("a", 0.0, "sub", 3, 1300.0)]).unwrap();
    let fluid = run(
        Box::new(Scripted {
            whole: vec![0b1],
            parts: vec![vec![(1, 500)]],
        }),
        &trace,
        &zoo,
    )
    .unwrap();
    assert!((jct(&fluid, 0) - 1000.0).abs() < 1e-6, "{}", jct(&fluid, 0));
    // It holds 1.5 GPUs' time: 1,500 GPU-seconds.
    assert!((fluid.jobs[0].gpu_s - 1500.0).abs() < 1e-6);
    // A part alone (no whole GPU) runs at its fraction of the 1-GPU rate.
    let part_only = run(
        Box::new(Scripted {
            whole: vec![0],
            parts: vec![vec![(2, 250)]],
        }),
        &trace,
        &zoo,
    )
    .unwrap();
    assert!((jct(&part_only, 0) - 1300.0 / 0.25).abs() < 1e-6);
}

#[test]
fn a_fluid_allocation_is_recorded_piece_by_piece_and_closed_at_once() {
    let zoo = ModelZoo::builtin();
    let trace = Trace::from_jobs("one", vec![elastic("a", 0.0, "linear", 3, 1200.0)]).unwrap();
    // 1 + 0.3 + 0.2 = 1.5 GPUs: the fraction split over GPUs 1 and 2.
    let out = run(
        Box::new(Scripted {
            whole: vec![0b1],
            parts: vec![vec![(1, 300), (2, 200)]],
        }),
        &trace,
        &zoo,
    )
    .unwrap();
    let segs = &out.timeline.segments;
    assert_eq!(segs.len(), 3);
    assert!(!segs[0].continued && segs[1].continued && segs[2].continued);
    assert_eq!(out.timeline.gpus_of(&segs[0]), &[0]);
    assert_eq!(out.timeline.gpus_of(&segs[1]), &[1]);
    assert!((segs[1].share - 0.3).abs() < 1e-12 && (segs[2].share - 0.2).abs() < 1e-12);
    for s in segs {
        assert!((s.end - 800.0).abs() < 1e-6, "closed at {}", s.end);
        assert_eq!(s.progress_end, 1.0);
    }
}

#[test]
fn the_engine_refuses_parts_that_oversubscribe_a_gpu() {
    let zoo = ModelZoo::builtin();
    let two = Trace::from_jobs(
        "two",
        vec![
            elastic("a", 0.0, "linear", 2, 1000.0),
            elastic("b", 0.0, "linear", 2, 1000.0),
        ],
    )
    .unwrap();
    let refuse = |p: Scripted, why: &str| {
        let e = run(Box::new(p), &two, &zoo).unwrap_err().to_string();
        assert!(e.contains(why) && e.contains("policy 'scripted'"), "{e}");
    };
    let ok = Scripted {
        whole: vec![0b01, 0b10],
        parts: vec![vec![(2, 600)], vec![(2, 400)]],
    };
    assert_eq!(run(Box::new(ok), &two, &zoo).unwrap().incomplete, 0);
    refuse(
        Scripted {
            whole: vec![0, 0],
            parts: vec![vec![(2, 600)], vec![(2, 600)]],
        },
        "> 1000",
    );
    refuse(
        Scripted {
            whole: vec![0b01, 0b100],
            parts: vec![vec![(2, 500)], vec![]],
        },
        "time-shared parts share",
    );
    refuse(
        Scripted {
            whole: vec![0b01],
            parts: vec![vec![(0, 500)]],
        },
        "held whole",
    );
    refuse(
        Scripted {
            whole: vec![0],
            parts: vec![vec![(1, 700), (2, 700)]],
        },
        "at most 1000",
    );
    refuse(
        Scripted {
            whole: vec![0],
            parts: vec![vec![(1, 300), (1, 300)]],
        },
        "two parts",
    );
}

/// Two linear jobs of one GPU each on one GPU, one per PCS class with
/// weights 1/2 and 1/2. The artifact's fluid simulator gives each half the
/// GPU: the small job (50 s) ends at 100 s, the large one (300 s) at
/// 50 + 300 = 350 s. The testbed's rotation instead hands the whole GPU to
/// one job at a time.
#[test]
fn pcs_runs_the_artifacts_fluid_shares() {
    let trace = Trace::from_jobs(
        "pair",
        vec![
            elastic("small", 0.0, "linear", 1, 50.0),
            elastic("large", 0.0, "linear", 1, 300.0),
        ],
    )
    .unwrap();
    let one_gpu = parse_cluster("v100:1x1").unwrap();
    let zoo = ModelZoo::builtin();
    let pcs = |realise: &str| {
        let set: Vec<(String, String)> = [
            ("thresholds", "100"),
            ("weights", "0.5,0.5"),
            ("realise", realise),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let (p, _) = policy::build("pcs", &set, 1).unwrap();
        let cfg = EngineConfig::from_overrides(&[("predict".into(), "true".into())]).unwrap();
        Simulation::new(&trace, &one_gpu, &zoo, p, cfg)
            .unwrap()
            .run(&mut |_| true)
            .unwrap()
    };
    let fluid = pcs("fluid");
    assert!((jct(&fluid, 0) - 100.0).abs() < 1e-6, "{}", jct(&fluid, 0));
    assert!((jct(&fluid, 1) - 350.0).abs() < 1e-6, "{}", jct(&fluid, 1));
    // The second arrival's fork holds both jobs and nothing arrives later,
    // so its prediction is exact.
    assert_eq!(fluid.jobs[1].predicted_finish, fluid.jobs[1].finish);
    let rotate = pcs("rotate");
    assert!((jct(&rotate, 0) - 100.0).abs() > 1.0, "{}", jct(&rotate, 0));
    assert!((jct(&rotate, 1) - 350.0).abs() < 1e-6);
}

/// `maxmin` with `fluid` (the PCS artifact's FS): four linear one-GPU jobs
/// on three GPUs get 3/4 of a GPU each, so the three 100-second ones end
/// together at 133.3 s; the fourth (200 s) then runs alone on a whole GPU:
/// 100 of its seconds are done by then, so it ends 100 s later. Whole-GPU
/// max-min makes the fourth wait instead.
#[test]
fn fluid_maxmin_shares_gpus_exactly() {
    let trace = Trace::from_jobs(
        "four",
        vec![
            elastic("a", 0.0, "linear", 1, 100.0),
            elastic("b", 0.0, "linear", 1, 100.0),
            elastic("c", 0.0, "linear", 1, 100.0),
            elastic("d", 0.0, "linear", 1, 200.0),
        ],
    )
    .unwrap();
    let three = parse_cluster("v100:1x3").unwrap();
    let zoo = ModelZoo::builtin();
    let run_maxmin = |fluid: &str| {
        let (p, _) = policy::build("maxmin", &[("fluid".into(), fluid.into())], 1).unwrap();
        Simulation::new(&trace, &three, &zoo, p, EngineConfig::default())
            .unwrap()
            .run(&mut |_| true)
            .unwrap()
    };
    let fluid = run_maxmin("true");
    let third = 400.0 / 3.0;
    for (i, want) in [third, third, third, third + 100.0].into_iter().enumerate() {
        assert!(
            (jct(&fluid, i) - want).abs() < 1e-6,
            "job {i}: {}",
            jct(&fluid, i)
        );
    }
    let whole = run_maxmin("false");
    assert!((jct(&whole, 0) - 100.0).abs() < 1e-6);
    assert!((jct(&whole, 3) - 300.0).abs() < 1e-6);
}

/// Placements share a GPU when one holds it whole or in part and so does
/// the other (the engine counts a migration only when none is shared).
#[test]
fn parts_count_as_shared_gpus() {
    let kind = cluster().kinds[0];
    let part = |gpu: u8| Part {
        node: 0,
        gpu,
        share: 500,
    };
    let whole0 = Placement::whole(kind, vec![NodeShare { node: 0, mask: 0b1 }]);
    let part0 = Placement::fluid(kind, vec![], vec![part(0)]);
    let part1 = Placement::fluid(kind, vec![], vec![part(1)]);
    let part12 = Placement::fluid(kind, vec![], vec![part(1), part(2)]);
    assert!(whole0.overlaps(&part0) && part0.overlaps(&whole0));
    assert!(part1.overlaps(&part12));
    assert!(!part0.overlaps(&part1) && !whole0.overlaps(&part1));
}
