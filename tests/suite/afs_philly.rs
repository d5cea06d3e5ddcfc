//! AFS on the real Philly virtual clusters (issue 21): the Pollux authors'
//! Philly job list is cut into the AFS paper's Table 3 traces by VC id, the
//! AFS authors' measured speedup tables replace the synthetic curves, and
//! the reproduction runs on them. Reads `../shared/data` at run time and
//! skips (with a message) when it is absent; the full 11-trace run is
//! `schedlab reproduce afs --philly ...`, not a test.

use schedlab::perf::{ModelZoo, SpeedupCurve};
use schedlab::report::RunSettings;
use schedlab::repro::afs::{self, PhillyJobs, VARIANTS};
use schedlab::workload::Trace;

const PHILLY: &str = "../shared/data/pollux/philly/philly.csv";
const MODELS: &str = "../shared/data/afs-schedsim/models.csv";

fn read(path: &str) -> Option<String> {
    match std::fs::read_to_string(path) {
        Ok(t) => Some(t),
        Err(e) => {
            eprintln!("SKIPPED: {path} is not readable ({e}); these tests need ../shared/data");
            None
        }
    }
}

fn philly() -> Option<PhillyJobs> {
    let text = read(PHILLY)?;
    Some(PhillyJobs {
        file: PHILLY.into(),
        trace: Trace::parse(PHILLY, &text, None).unwrap(),
    })
}

#[test]
fn the_vc_traces_hold_exactly_their_vc_jobs() {
    let Some(p) = philly() else { return };
    assert_eq!(p.trace.format, "philly-csv");
    let text = read(PHILLY).unwrap();
    // Count the VC's usable rows independently of the importer.
    let rows = |vc: &str| {
        text.lines()
            .skip(1)
            .filter(|l| {
                let f: Vec<&str> = l.split(',').collect();
                f.len() == 5
                    && f[4] == vc
                    && f[1].parse::<f64>().is_ok_and(|d| d > 0.0)
                    && f[2].parse::<u32>().is_ok_and(|g| g > 0)
            })
            .count()
    };
    let zoo = ModelZoo::builtin();
    for (id, vc, _) in afs::TABLE3.iter().filter(|t| [4, 9, 11].contains(&t.0)) {
        let t = afs::philly_trace(&p, *id, usize::MAX).unwrap();
        assert_eq!(t.jobs.len(), rows(vc), "trace {id} ({vc})");
        assert!(t.jobs.iter().all(|j| j.tenant == *vc));
        assert_eq!(t.jobs[0].arrival, 0.0);
        assert!(t.jobs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
        // Spec §4.3: each job's model scales to its (clamped) request.
        for j in &t.jobs {
            let m = zoo.get(zoo.lookup(&j.model).unwrap());
            assert!(m.name.starts_with("afs/") && m.max_gpus >= j.gpus, "{j:?}");
        }
        let cut = afs::philly_trace(&p, *id, 50).unwrap();
        assert_eq!(cut.jobs.len(), 50);
        assert_eq!(cut.jobs[..], t.jobs[..50]);
    }
}

#[test]
fn measured_tables_replace_the_synthetic_curves() {
    let Some(text) = read(MODELS) else { return };
    let mut zoo = ModelZoo::builtin();
    assert_eq!(zoo.add_afs_tables(MODELS, &text).unwrap(), 9);
    let vgg = zoo.get(zoo.lookup("afs/vgg16").unwrap());
    assert_eq!(vgg.max_gpus, 8);
    let curve = match &vgg.behaviour {
        schedlab::perf::Behaviour::Curve { curve, .. } => curve.clone(),
        other => panic!("{other:?}"),
    };
    // models.csv: VGG16 at 1 and 8 GPUs, 3,020,532 and 456,675 us per iteration.
    assert_eq!(curve.at(8.0), 3020532.0 / 456675.0);
    assert_ne!(curve, SpeedupCurve::bsp(8, 0.0));
}

#[test]
fn reproduction_runs_every_policy_on_two_vc_traces() {
    let Some(p) = philly() else { return };
    let Some(models) = read(MODELS) else { return };
    let opts = afs::Options {
        max_jobs: 120,
        philly: Some(p),
        afs_tables: Some((MODELS.into(), models)),
        traces: vec![4, 9],
        seed: 1,
        settings: RunSettings::default(),
    };
    let r = afs::reproduce(&opts, &mut |_| {}).unwrap();
    assert!(r.generator.starts_with("philly-csv"));
    assert!(r.models.contains("models.csv"));
    assert_eq!(r.traces.len(), 2);
    for t in &r.traces {
        assert_eq!(t.jobs, 120);
        assert_eq!(t.runs.len(), VARIANTS.len());
        for run in &t.runs {
            assert_eq!(run.completed, 120, "trace {} {}", t.id, run.label);
            assert!(run.avg_jct_s > 0.0);
        }
    }
    assert_eq!(r.traces[0].table3_jobs, 938);
    let table = afs::to_table(&r);
    assert!(table.contains("AFS-L/SRTF [1.2-2.7]"), "{table}");
}

#[test]
fn a_malformed_row_names_file_line_and_field() {
    let text = "timestamp,duration,num_gpus,gpu_time,cluster\n\
                2017-10-09 07:01:55,66.0,1,66.0,11cb48\n\
                yesterday,10.0,1,10.0,11cb48\n";
    let e = Trace::parse("p.csv", text, None).unwrap_err().to_string();
    assert!(
        e.contains("p.csv") && e.contains('3') && e.contains("timestamp"),
        "{e}"
    );
    let text =
        "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,two,66.0,x\n";
    let e = Trace::parse("p.csv", text, None).unwrap_err().to_string();
    assert!(e.contains("num_gpus"), "{e}");
}
