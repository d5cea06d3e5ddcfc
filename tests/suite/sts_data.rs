//! STS on the authors' data (issue 50): their profiles, epoch laws, node
//! costs and sharing slots as zoo features, their generator rules, and
//! `reproduce sts --sts-data` on a small instance. Reads `../shared/data/sts`
//! at run time and skips with a message when it is absent.

use crate::common;

use common::run_engine;
use schedlab::cluster::{parse_cluster, GpuKind};
use schedlab::perf::sts_data::StsData;
use schedlab::perf::ModelZoo;
use schedlab::workload::gen::sts::{authors_jobs, generate_with_data, AUTHORS_ETA};
use schedlab::workload::{JobSpec, Trace};
use std::sync::Arc;

const DATA: &str = "../shared/data/sts";

fn data() -> Option<StsData> {
    match StsData::read_dir(DATA) {
        Ok(d) => Some(d),
        Err(e) => {
            eprintln!("SKIPPED: {DATA} is not readable ({e}); these tests need ../shared/data");
            None
        }
    }
}

fn zoo_with(d: &StsData) -> ModelZoo {
    let mut zoo = ModelZoo::builtin();
    d.apply(&mut zoo).unwrap();
    zoo
}

fn gen(d: &StsData, set: &[(&str, &str)], jobs: Option<usize>, seed: u64) -> Trace {
    let set: Vec<(String, String)> = set
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    generate_with_data(d, jobs, seed, &set).unwrap()
}

#[test]
fn the_authors_files_give_job_types_laws_prices_and_slots() {
    let Some(d) = data() else { return };
    assert_eq!(d.profiles.len(), 15);
    assert_eq!(d.families.len(), 6);
    let zoo = zoo_with(&d);
    let sts_models = zoo
        .models()
        .iter()
        .filter(|m| m.name.starts_with("sts-data/"))
        .count();
    assert_eq!(sts_models, 90);
    // The README's summary of the laws: mean stop 48.98 % (TF_alexnet),
    // 22.00 % (PY_resnet); a J1 job has 500 epochs.
    let mean_pct = |name: &str| {
        let m = zoo.get(zoo.lookup(name).unwrap());
        let law = m.epochs.as_ref().unwrap();
        100.0 * law.mean() / law.max_epochs as f64
    };
    assert!((mean_pct("sts-data/j1-tf_alexnet") - 48.98).abs() < 0.01);
    assert!((mean_pct("sts-data/j16-py_resnet") - 22.00).abs() < 0.01);
    let k80 = GpuKind::by_name("k80-board").unwrap();
    let m60 = GpuKind::by_name("m60-board").unwrap();
    // Node costs: K80 2 GPUs 1.13 (not 2 x 0.56), M60 0.62 per GPU; A100 keeps Table III.
    assert_eq!(zoo.prices().usd_h(k80, 2), Some(1.13));
    assert_eq!(zoo.prices().usd_h(m60, 8), Some(4.96));
    let a100 = GpuKind::by_name("a100-80").unwrap();
    assert!((zoo.prices().usd_h(a100, 1).unwrap() - 3.673).abs() < 1e-12);
    // Sharing: 1/4 of a K80 at the mean of U(1.01, 1.11).
    let slot = zoo.sharing().slots(k80).next().unwrap();
    assert_eq!((slot.fraction, slot.mem_gb), (0.25, 6.0));
    assert!((slot.slowdown - 1.06).abs() < 1e-12);
    // J1 on one K80 runs its 500 epochs in 84,777.9 s.
    let id = zoo.lookup("sts-data/j1-py").unwrap();
    let schedlab::perf::Behaviour::Table(t) = &zoo.get(id).behaviour else {
        panic!("a table model")
    };
    assert!((500.0 / t.rate(k80, 1) - 84_777.896_52).abs() < 1e-3);
}

#[test]
fn the_generator_follows_the_authors_rules() {
    let Some(d) = data() else { return };
    let trace = gen(&d, &[], None, 1000);
    assert_eq!(trace.jobs.len(), authors_jobs(10));
    assert_eq!(trace.jobs.len(), 101);
    assert_eq!(trace.jobs[0].arrival, 0.0);
    let kinds = StsData::kinds();
    for j in &trace.jobs {
        let p = d
            .profiles
            .iter()
            .find(|p| {
                j.model
                    .starts_with(&format!("sts-data/{}-", p.id.to_lowercase()))
            })
            .unwrap();
        let times: Vec<f64> = p.full_times(&kinds).map(|t| t.2).collect();
        let lo = times.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = times.iter().copied().fold(0.0, f64::max);
        let slack = j.due.unwrap() - j.arrival;
        assert!(
            slack >= lo - 1e-6 && slack <= hi + 1e-6,
            "{slack} not in [{lo}, {hi}]"
        );
        assert!((AUTHORS_ETA.0..=AUTHORS_ETA.1).contains(&j.weight));
        assert_eq!(j.mem_gb, Some(p.memory_gb));
    }
    // Exponential gaps of mean 50,000 s / 10 nodes.
    let long = gen(&d, &[], Some(2001), 4000);
    let gap = long.jobs.last().unwrap().arrival / 2000.0;
    assert!((gap - 5000.0).abs() < 400.0, "{gap}");
    // Clustered arrivals: high (rate / 2.5) comes about 4x as fast as low (/ 10).
    let span = |a: &str| {
        gen(&d, &[("arrivals", a)], Some(2001), 9000)
            .jobs
            .last()
            .unwrap()
            .arrival
    };
    let r = span("low") / span("high");
    assert!((3.0..5.5).contains(&r), "{r}");
    let mixed = span("mixed");
    assert!(mixed > span("high") && mixed < span("low"));
    // Same seed, same workload.
    assert_eq!(gen(&d, &[], None, 1000).jobs, trace.jobs);
    let e = generate_with_data(&d, None, 1, &[("family".into(), "a100".into())])
        .unwrap_err()
        .to_string();
    assert!(e.contains("K80 and M60"), "{e}");
}

#[test]
fn the_engine_charges_the_authors_node_costs() {
    let Some(d) = data() else { return };
    let zoo = zoo_with(&d);
    // One rigid job on 2 K80 GPUs: a node with 2 busy GPUs costs 1.13 $/h,
    // not Table III's 1.80 nor 2 x 0.56.
    let mut j = JobSpec::new("a", 0.0, "sts-data/j1-py", 2);
    j.adaptivity = schedlab::workload::Adaptivity::Rigid;
    let trace = Trace::from_jobs("one", vec![j]).unwrap();
    let cluster = parse_cluster("k80-board:1x8").unwrap();
    let (s, _, o) = run_engine(&trace, &cluster, &zoo, "fifo", &[], &[]);
    let hours = o.jobs[0].finish.unwrap() / 3600.0;
    assert!(hours > 0.0);
    assert!(
        (s.gpu_cost_usd - 1.13 * hours).abs() < 1e-9 * s.gpu_cost_usd,
        "{} vs {}",
        s.gpu_cost_usd,
        1.13 * hours
    );
    // The job stops early at a whole percent of its 500 epochs.
    let w = o.jobs[0].work;
    assert!(
        (w / 5.0 - (w / 5.0).round()).abs() < 1e-9 && w <= 500.0,
        "{w}"
    );
}

#[test]
fn results_on_placeholder_profiles_are_labelled_and_the_authors_are_not() {
    let Some(d) = data() else { return };
    let zoo = zoo_with(&d);
    let trace = gen(&d, &[("nodes", "2")], None, 1000);
    let cluster = parse_cluster("sts-k80m60-2").unwrap();
    let (s, _, o) = run_engine(&trace, &cluster, &zoo, "sts", &[], &[]);
    assert_eq!(s.completed, trace.jobs.len());
    assert!(
        o.notes.iter().all(|n| !n.contains("placeholder")),
        "{:?}",
        o.notes
    );
    let set = vec![("nodes".to_string(), "2".to_string())];
    let placeholder = schedlab::workload::gen::generate("sts", None, 1, &set).unwrap();
    let (_, _, o) = run_engine(
        &placeholder,
        &parse_cluster("sts-2").unwrap(),
        &zoo,
        "sts",
        &[],
        &[],
    );
    assert!(
        o.notes.iter().any(|n| n.starts_with("placeholder results")),
        "{:?}",
        o.notes
    );
    // A data model without the data says how to get it.
    let e = schedlab::sim::Simulation::new(
        &trace,
        &cluster,
        &ModelZoo::builtin(),
        schedlab::policy::build("sts", &[], 1).unwrap().0,
        Default::default(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("--sts-data"), "{e}");
}

#[test]
fn reproduce_sts_on_the_authors_data_reports_r1_to_r12() {
    use schedlab::repro::sts::{reproduce, to_table, Options};
    let Some(d) = data() else { return };
    let opts = Options {
        sizes: vec![2],
        patterns: vec!["exponential".into()],
        instances: 1,
        timing_sizes: vec![2],
        settings: Default::default(),
        seed: 1,
        data: Some(Arc::new(d)),
    };
    assert_eq!(opts.instance_seed(2), 9000, "the authors' instance seeds");
    let r = reproduce(&opts, &mut |_| {}).unwrap();
    assert!(!r.placeholder && r.profiles.contains("authors"));
    for id in [
        "R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "R10", "R11", "R12",
    ] {
        assert!(r.targets.iter().any(|t| t.id == id), "{id} missing");
    }
    // No A100 profile: that half of R6 is not measured, and one size gives no R10.
    let a100 = r
        .targets
        .iter()
        .find(|t| t.id == "R6" && t.what.contains("a100"))
        .unwrap();
    assert!(a100.holds.is_none() && a100.ours.is_nan());
    let r10 = r.targets.iter().find(|t| t.id == "R10").unwrap();
    assert!(r10.holds.is_none());
    // Sharing runs on K80/M60 only; the clusters are the authors' K80/M60 mix.
    assert!(r.sharing.iter().all(|s| s.family == "k80m60"));
    for row in &r.scenarios {
        assert!(row.gpu_cost_usd > 0.0 && row.max_queue >= 1, "{row:?}");
    }
    let text = to_table(&r);
    assert!(text.contains("Fig. 4a") && text.contains("R12") && text.contains("wall time"));
    assert!(!text.contains("PLACEHOLDER"));
    // The zoo's knobs shape only the placeholders.
    let mut bad = opts;
    bad.settings.set("zoo", "sts_beta_scale", "2").unwrap();
    assert!(reproduce(&bad, &mut |_| {}).is_err());
}
