//! Job kinds (issue 15, item 6): a job whose goodput is a table per (GPU
//! type, count) with a scale unit and a restart penalty progresses at its
//! table's rate.

use crate::common;

use common::run_with;
use schedlab::cluster::parse_cluster;
use schedlab::perf::{table_models_from_json, ModelZoo};
use schedlab::workload::{Adaptivity, JobSpec, Trace};

const TABLE: &str = r#"[{"name": "bi-test", "restart_s": 90, "work": 1000,
  "types": {"t4": {"unit": 2, "counts": [2, 4, 8], "rates": [20, 36, 60]}}}]"#;

fn job(name: &str, arrival: f64, gpus: u32, work: Option<f64>) -> JobSpec {
    let mut j = JobSpec::new(name, arrival, "bi-test", gpus);
    j.work = work;
    j.adaptivity = Adaptivity::Rigid;
    j
}

#[test]
fn a_tabulated_job_progresses_at_its_tables_rate() {
    let mut zoo = ModelZoo::builtin();
    for m in table_models_from_json("table.json", TABLE).unwrap() {
        zoo.insert(m);
    }
    let trace = Trace::from_jobs(
        "table",
        vec![
            job("two", 0.0, 2, None),           // default work 1000 at 20/s
            job("four", 0.0, 4, Some(720.0)),   // 720 at 36/s
            job("three", 0.0, 3, Some(400.0)),  // between units: runs as 2 GPUs, 20/s
            job("eight", 0.0, 8, Some(6000.0)), // 6000 at 60/s
        ],
    )
    .unwrap();
    let cluster = parse_cluster("homog-64").unwrap();
    let (s, jobs, _) = run_with(&trace, &cluster, &zoo, "fifo", &[]);
    assert_eq!(s.completed, 4);
    // Every (re)allocation costs the table model's 90 s restart penalty,
    // the first start included (engine.charge_first_start).
    let jct = |n: &str| jobs.iter().find(|j| j.name == n).unwrap().jct_s.unwrap();
    for (name, want) in [
        ("two", 90.0 + 1000.0 / 20.0),
        ("four", 90.0 + 720.0 / 36.0),
        ("three", 90.0 + 400.0 / 20.0),
        ("eight", 90.0 + 6000.0 / 60.0),
    ] {
        assert!(
            (jct(name) - want).abs() < 1e-6,
            "{name}: {} s, want {want}",
            jct(name)
        );
    }
}

#[test]
fn a_tabulated_job_cannot_run_on_a_type_its_table_lacks() {
    let mut zoo = ModelZoo::builtin();
    for m in table_models_from_json("table.json", TABLE).unwrap() {
        zoo.insert(m);
    }
    let mut j = job("pinned", 0.0, 2, Some(100.0));
    j.gpu_type = Some("a100".into());
    let trace = Trace::from_jobs("table", vec![j]).unwrap();
    let cluster = parse_cluster("sia-hetero-64").unwrap();
    let e = schedlab::sim::Simulation::new(
        &trace,
        &cluster,
        &zoo,
        schedlab::policy::build("fifo", &[], 1).unwrap().0,
        Default::default(),
    )
    .err()
    .expect("no progress on a type the table lacks");
    assert!(e.to_string().contains("makes no progress"), "{e}");
}
