//! Sia's per-round insight (issue 5, "Page"): the recorded goodput matrix
//! has the right shape and E12 normalisation, each job's chosen
//! configuration is the one it actually holds after the round, and
//! recording it changes no decision.

use schedlab::cluster::{parse_cluster, Cluster};
use schedlab::perf::ModelZoo;
use schedlab::policy::{self, sia};
use schedlab::sim::{EngineConfig, Outcome, Simulation};
use schedlab::workload::{load_named, Adaptivity, Trace};

/// The first 60 jobs of the bundled Sia/Philly trace; every fifth one is
/// made rigid on 6 GPUs, which adds configurations outside Sia's table
/// (6 GPUs span two 4-GPU t4 nodes).
fn trace() -> Trace {
    let full = load_named("sia-philly").unwrap().unwrap();
    let mut jobs: Vec<_> = full.jobs.into_iter().take(60).collect();
    for (i, j) in jobs.iter_mut().enumerate() {
        if i % 5 == 4 {
            j.adaptivity = Adaptivity::Rigid;
            j.gpus = 6;
            j.min_gpus = 0;
            j.max_gpus = 0;
        }
    }
    Trace::from_jobs("sia-philly-60", jobs).unwrap()
}

fn run(trace: &Trace, cluster: &Cluster, insight: bool) -> Outcome {
    let (p, _) = policy::build("sia", &[], 1).unwrap();
    let mut sim = Simulation::new(
        trace,
        cluster,
        &ModelZoo::builtin(),
        p,
        EngineConfig::default(),
    )
    .unwrap();
    sim.set_record_insight(insight);
    sim.run(&mut |_| true).unwrap()
}

/// Everything a decision determines (wall-clock fields left out).
fn decisions(o: &Outcome) -> String {
    let rounds: Vec<_> = o
        .rounds
        .iter()
        .map(|r| {
            (
                r.t,
                r.busy_gpus,
                r.running,
                r.waiting,
                r.changes,
                &r.fallback,
            )
        })
        .collect();
    serde_json::to_string(&(&o.jobs, &o.timeline, rounds, o.end_time, o.events)).unwrap()
}

#[test]
fn recording_changes_no_decision() {
    let trace = trace();
    let cluster = parse_cluster("sia-hetero-64").unwrap();
    let plain = run(&trace, &cluster, false);
    let with = run(&trace, &cluster, true);
    assert_eq!(plain.incomplete, 0);
    assert!(plain.rounds.iter().all(|r| r.insight.is_none()));
    assert!(with.rounds.iter().all(|r| r.insight.is_some()));
    assert_eq!(decisions(&plain), decisions(&with));
}

#[test]
fn the_matrix_is_normalised_and_the_chosen_configuration_is_held() {
    let trace = trace();
    let cluster = parse_cluster("sia-hetero-64").unwrap();
    let out = run(&trace, &cluster, true);
    let table = sia::configurations(&cluster, sia::NodeCap::Gpus64);
    let tl = &out.timeline;
    let (mut chosen, mut unchosen, mut rigid_cols) = (0, 0, 0);
    for r in &out.rounds {
        let ins = r.insight.as_ref().unwrap();
        let w = ins.configs.len();
        let rows = ins.jobs.len();
        assert_eq!(ins.norm.len(), rows * w);
        assert_eq!(ins.raw.len(), rows * w);
        assert_eq!((ins.restart.len(), ins.chosen.len()), (rows, rows));
        assert_eq!(
            rows, ins.rows_total as usize,
            "no round of 60 jobs hits the cap"
        );
        assert!(
            ins.configs.windows(2).all(|p| p[0] < p[1]),
            "sorted, distinct"
        );
        for c in &table {
            assert!(ins
                .configs
                .iter()
                .any(|x| (x.kind, x.nodes, x.gpus) == (c.kind, c.nodes, c.gpus)));
        }
        rigid_cols += ins.configs.iter().filter(|c| c.gpus == 6).count();
        for (i, &job) in ins.jobs.iter().enumerate() {
            let spec = &trace.jobs[job as usize];
            let res = &out.jobs[job as usize];
            assert!(spec.arrival <= r.t && res.finish.is_none_or(|f| f > r.t));
            // E12: norm = n_min * raw / min(raw), so norm/raw is constant
            // along the row and the row's minimum is n_min.
            let row = i * w..(i + 1) * w;
            let cells: Vec<(f32, f32)> = ins.norm[row.clone()]
                .iter()
                .zip(&ins.raw[row])
                .filter(|(n, _)| !n.is_nan())
                .map(|(n, r)| (*n, *r))
                .collect();
            assert!(!cells.is_empty(), "job {job} has no candidate at {}", r.t);
            let ratio = cells[0].0 / cells[0].1;
            for (n, raw) in &cells {
                assert!(
                    ((n / raw) - ratio).abs() <= 1e-4 * ratio,
                    "{n} / {raw} vs {ratio}"
                );
            }
            let n_min = if spec.adaptivity == Adaptivity::Rigid {
                spec.gpus
            } else {
                spec.min_gpus.max(1)
            } as f32;
            let lo = cells.iter().map(|c| c.0).fold(f32::INFINITY, f32::min);
            assert!((lo - n_min).abs() <= 1e-4 * n_min, "row minimum {lo}");
            let restart = ins.restart[i];
            assert!((0.0..=1.0).contains(&restart));
            // The chosen column is what the job holds right after the round.
            let held = tl
                .segments
                .iter()
                .find(|s| s.job == job && s.start <= r.t && r.t < s.end);
            match (ins.chosen[i], held) {
                (-1, None) => unchosen += 1,
                (c, Some(s)) if c >= 0 => {
                    let col = ins.configs[c as usize];
                    assert!(!ins.norm[i * w + c as usize].is_nan());
                    let mut nodes: Vec<u32> = tl
                        .gpus_of(s)
                        .iter()
                        .map(|g| cluster.node_of_gpu(*g).id)
                        .collect();
                    nodes.dedup();
                    assert_eq!(
                        (col.kind, col.gpus, col.nodes),
                        (s.kind, s.gpu_count, nodes.len() as u32),
                        "job {job} at {}",
                        r.t
                    );
                    chosen += 1;
                }
                (c, s) => panic!("job {job} at {}: chosen {c}, holding {s:?}", r.t),
            }
        }
    }
    assert!(
        chosen > 100 && unchosen > 0,
        "{chosen} chosen, {unchosen} not"
    );
    assert!(rigid_cols > 0, "rigid 6-GPU jobs add their own columns");
}
