//! COpter's workloads and job categories (issue 16, item 1) against the authors' data
//! in `../shared/data/copter` (each test skips with a message when it is absent): the
//! zoo's batch-inference tables equal the published profiles, its synthetic fit stays
//! within 0.1% of every tabulated count, and the workload files import whole.

use schedlab::cluster::{parse_cluster, GpuKind};
use schedlab::perf::{Behaviour, GoodputTable, ModelZoo};
use schedlab::workload::Trace;
use serde_json::Value;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/copter");

fn read(rel: &str) -> Option<String> {
    let path = format!("{DATA}/{rel}");
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(_) => {
            eprintln!("skipped: {path} is absent (the COpter artifact data lives in ../shared/data/copter)");
            None
        }
    }
}

fn table<'a>(zoo: &'a ModelZoo, name: &str) -> &'a GoodputTable {
    let id = zoo
        .lookup(name)
        .unwrap_or_else(|| panic!("{name} in the zoo"));
    match &zoo.get(id).behaviour {
        Behaviour::Table(t) => t,
        _ => panic!("{name} is a table model"),
    }
}

/// The profiles' names for the cluster's types.
fn kind(profile_name: &str) -> GpuKind {
    let name = match profile_name {
        "DGX-A100-40GB" => "a100",
        "DGX-V100-32GB" => "v100",
        "A100-40GB-PCIe" => "a100-pcie",
        "A10-24GB-PCIe" => "a10",
        "RTX-2080Ti-11GB" => "rtx",
        "T4-16GB" => "t4",
        other => other,
    };
    GpuKind::by_name(name).unwrap_or_else(|| panic!("GPU type {profile_name}"))
}

#[test]
fn batch_inference_tables_equal_the_published_profiles() {
    let Some(text) = read("profiles/batch_inference.json") else {
        return;
    };
    let zoo = ModelZoo::builtin();
    let apps: Value = serde_json::from_str(&text).unwrap();
    for (app, p) in apps.as_object().unwrap() {
        let t = table(&zoo, &format!("copter/{app}"));
        let speedup = p["sim_speedup"].as_f64().unwrap();
        let info = zoo.get(zoo.lookup(&format!("copter/{app}")).unwrap());
        assert_eq!(info.default_work, p["num_iters"].as_f64());
        for (ty, prof) in p["gpu_profiles"].as_object().unwrap() {
            let k = kind(ty);
            let unit = prof["min_gpus"].as_u64().unwrap() as u32;
            let per_unit = prof["throughput"].as_f64().unwrap() * speedup;
            for units in 1..=16 {
                assert_eq!(
                    t.rate(k, units * unit),
                    units as f64 * per_unit,
                    "{app} {ty} x{units}"
                );
            }
            assert_eq!(t.rate(k, unit - 1), 0.0, "{app} {ty}: below one unit");
        }
    }
}

#[test]
fn synthetic_fit_is_within_a_tenth_of_a_percent_of_every_tabulated_count() {
    let zoo = ModelZoo::builtin();
    let mut checked = 0;
    let mut worst: f64 = 0.0;
    for shape in ["linear", "sublinear", "mixed"] {
        for length in ["short", "long"] {
            let app = format!("synthetic_{shape}_{length}");
            let Some(text) = read(&format!("profiles/{app}.json")) else {
                return;
            };
            let p: Value = serde_json::from_str(&text).unwrap();
            let t = table(&zoo, &format!("copter/{app}"));
            let info = zoo.get(zoo.lookup(&format!("copter/{app}")).unwrap());
            assert_eq!(info.default_work, p["max_progress"].as_f64());
            let g = &p["goodputs"];
            let counts: Vec<u32> = g["num_gpus"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap() as u32)
                .collect();
            for (ty, values) in g
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, _)| *k != "num_gpus")
            {
                for (&n, v) in counts
                    .iter()
                    .zip(values.as_array().unwrap())
                    .filter(|(n, _)| **n <= 128)
                {
                    let want = v.as_f64().unwrap();
                    let err = (t.rate(kind(ty), n) - want).abs() / want;
                    worst = worst.max(err);
                    assert!(
                        err < 1e-3,
                        "{app} {ty} at {n} GPUs: {} against {want}",
                        t.rate(kind(ty), n)
                    );
                    checked += 1;
                }
            }
        }
    }
    eprintln!("synthetic fit: {checked} tabulated points, largest relative error {worst:.2e}");
    assert_eq!(checked, 6 * 6 * 34);
}

#[test]
fn the_workload_files_import_whole_with_their_categories() {
    let rel = "workloads/2kjobs_24hrs_pai/workload-1.csv";
    let Some(text) = read(rel) else { return };
    let trace = Trace::parse(rel, &text, None).unwrap();
    assert_eq!(trace.jobs.len(), 2000);
    let count = |cat: &str| {
        text.lines()
            .filter(|l| l.contains(&format!(",{cat},")))
            .count()
    };
    let copter_jobs = trace
        .jobs
        .iter()
        .filter(|j| j.model.starts_with("copter/"))
        .count();
    assert_eq!(
        copter_jobs,
        count("BatchInferenceJob") + count("SyntheticSinglePhaseJob")
    );
    assert!(copter_jobs > 0 && copter_jobs < 2000);
    assert!(trace.jobs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
    assert!(trace.jobs.iter().all(|j| j.arrival <= 24.0 * 3600.0));
    // Every row's model runs on the COpter cluster.
    let zoo = ModelZoo::builtin();
    let cluster = parse_cluster("copter-256x2").unwrap();
    for j in &trace.jobs {
        let info = zoo.get(
            zoo.lookup(&j.model)
                .unwrap_or_else(|| panic!("{} in the zoo", j.model)),
        );
        if let Behaviour::Table(t) = &info.behaviour {
            assert!(
                cluster.kinds.iter().all(|k| t.supports(*k)),
                "{} runs on every type",
                j.model
            );
        }
    }
}

#[test]
fn a_bad_row_names_its_line_and_field() {
    let text = "name,time,category,application\nbert-1,0,SiaJob,bert\nx-2,5,SiaJob,gpt3\n";
    let e = Trace::parse("w.csv", text, None).unwrap_err().to_string();
    assert!(
        e.contains("w.csv")
            && e.contains("line 3")
            && e.contains("application")
            && e.contains("gpt3"),
        "{e}"
    );
    let text = "name,time,category,application\nbert-1,-4,SiaJob,bert\n";
    let e = Trace::parse("w.csv", text, None).unwrap_err().to_string();
    assert!(e.contains("line 2") && e.contains("time"), "{e}");
    let text = "name,time,category,application\nbert-1,0,SiaJob,bert\nq-9,7,QuantumJob,bert\n";
    let e = Trace::parse("w.csv", text, None).unwrap_err().to_string();
    assert!(
        e.contains("w.csv")
            && e.contains("line 3")
            && e.contains("category")
            && e.contains("QuantumJob"),
        "{e}"
    );
}

/// `reproduce copter`'s mechanism on a small generated workload (the default run takes
/// minutes): every method finishes every job, POP's solver time per round is its
/// slowest part, COpter's JCT stays near LP*'s (the thesis: +2.9%), and the table
/// prints the thesis's 10k-GPU ratios beside ours.
#[test]
fn reproduce_copter_runs_table_4_1_on_a_small_workload() {
    use schedlab::repro::copter::{reproduce, to_table, Options};
    let opts = Options {
        scales: vec![1],
        methods: vec!["lp-star".into(), "pop-16".into(), "copter".into()],
        copter_dir: None,
        jobs: Some(80),
        settings: Default::default(),
        seed: 3,
    };
    let rows = reproduce(&opts, &mut |_| {}).unwrap();
    assert_eq!(rows.len(), 3);
    for r in &rows {
        assert_eq!((r.gpus, r.jobs, r.completed), (256, 80, 80), "{}", r.method);
        assert!(r.solver.p50_s <= r.solver.p99_s && r.solver.p99_s <= r.solver.max_s);
    }
    let jct = |m: &str| rows.iter().find(|r| r.method == m).unwrap().avg_jct_h;
    assert!(
        jct("copter") <= jct("lp-star") * 1.2,
        "{} vs {}",
        jct("copter"),
        jct("lp-star")
    );
    let table = to_table(&rows);
    assert!(
        table.contains("thesis /LP*") && table.contains("1.17"),
        "{table}"
    );
    let bad = Options {
        methods: vec!["simplex".into()],
        ..opts
    };
    assert!(reproduce(&bad, &mut |_| {}).is_err());
}

/// Solver time against cluster size: the measured window holds only rounds
/// after the warm-up, every round reports its problem's size, the problem
/// grows with the cluster, and a window outside (0, 24] h is refused.
#[test]
fn copter_scaling_measures_rounds_after_the_warm_up_at_each_size() {
    use schedlab::repro::copter::{scaling, scaling_table, Options, SCALING_WARMUP_H};
    let opts = Options {
        scales: vec![],
        methods: vec!["lp-star".into(), "copter-cold".into(), "copter".into()],
        copter_dir: None,
        jobs: None,
        settings: Default::default(),
        seed: 1,
    };
    let hours = 0.25;
    let rows = scaling(&opts, &[1, 2], hours, &mut |_| {}).unwrap();
    assert_eq!(rows.len(), 6);
    for r in &rows {
        // 60-s rounds over the window (a round may land on either end).
        let want = (hours * 60.0) as usize;
        assert!(
            r.rounds.abs_diff(want) <= 1,
            "{}: {} rounds",
            r.method,
            r.rounds
        );
        assert!(r.vars_p50 > 0.0 && r.jobs > 0);
        assert!(r.solver.p50_s <= r.solver.p99_s && r.solver.p99_s <= r.solver.max_s);
    }
    let at = |gpus: u32, m: &str| {
        rows.iter()
            .find(|r| r.gpus == gpus && r.method == m)
            .unwrap()
    };
    assert!(at(512, "lp-star").vars_p50 > at(256, "lp-star").vars_p50);
    assert!(at(512, "lp-star").jobs > at(256, "lp-star").jobs);
    let table = scaling_table(&rows, hours);
    assert!(
        table.contains(&format!("after {SCALING_WARMUP_H} h")),
        "{table}"
    );
    // Fig. 4.6's attribution: three steps at each size, each speedup the
    // ratio of the two methods' medians.
    assert!(table.contains("Attribution"), "{table}");
    let speedup = |a: &str, b: &str| at(512, a).solver.p50_s / at(512, b).solver.p50_s;
    for (step, from, to) in [
        ("custom solver", "lp-star", "copter-cold"),
        ("warm start", "copter-cold", "copter"),
        ("together", "lp-star", "copter"),
    ] {
        let line = table
            .lines()
            .find(|l| l.starts_with("512") && l.contains(step))
            .unwrap_or_else(|| panic!("{step}: {table}"));
        assert!(
            line.contains(&format!("{:.2}", speedup(from, to))),
            "{line}"
        );
    }
    let without_cold: Vec<_> = rows
        .iter()
        .filter(|r| r.method != "copter-cold")
        .cloned()
        .collect();
    assert!(!scaling_table(&without_cold, hours).contains("Attribution"));
    assert!(scaling(&opts, &[1], 0.0, &mut |_| {}).is_err());
    assert!(scaling(&opts, &[1], 25.0, &mut |_| {}).is_err());
}

/// `copter-paired` also times LP* and a cold COpter on every round's problem
/// without using their answers: the run is the plain `copter` run to the
/// bit, and the attribution gets per-round speedups on the same problems.
#[test]
fn paired_solves_time_other_methods_without_changing_the_run() {
    use schedlab::repro::copter::{reproduce, scaling, scaling_table, Options};
    let opts = Options {
        scales: vec![1],
        methods: vec!["copter".into(), "copter-paired".into()],
        copter_dir: None,
        jobs: Some(80),
        settings: Default::default(),
        seed: 3,
    };
    let rows = reproduce(&opts, &mut |_| {}).unwrap();
    let (plain, paired) = (&rows[0], &rows[1]);
    assert_eq!(
        (plain.avg_jct_h, plain.makespan_h, plain.completed),
        (paired.avg_jct_h, paired.makespan_h, paired.completed)
    );
    assert!(plain.paired.is_empty());
    let steps: Vec<&str> = paired.paired.iter().map(|s| s.step).collect();
    assert_eq!(steps, ["custom solver", "warm start", "together"]);
    for s in &paired.paired {
        assert!(
            s.mean.is_finite() && s.p10 > 0.0 && s.p10 <= s.p50 && s.p50 <= s.p90,
            "{s:?}"
        );
    }
    let opts = Options {
        methods: vec!["copter-paired".into()],
        ..opts
    };
    let rows = scaling(&opts, &[1], 0.25, &mut |_| {}).unwrap();
    let table = scaling_table(&rows, 0.25);
    assert!(table.contains("On the same rounds"), "{table}");
    for step in ["custom solver", "warm start", "together"] {
        assert!(
            table
                .lines()
                .any(|l| l.starts_with("256") && l.contains(step)),
            "{step}: {table}"
        );
    }
    assert!(!table.contains("From separate runs"), "{table}");
}
