//! Importers: each format on a real file from `../shared/data/` or a
//! documented sample in `tests/data/`, the fill and skip rules, errors that
//! name file, line and field, and property tests that random bytes and
//! random mutations of valid files never panic.

use crate::common;

use proptest::prelude::*;
use schedlab::cluster::parse_cluster;
use schedlab::perf::{gavel_models, gavel_models_from_json, Behaviour, ModelZoo};
use schedlab::workload::{Adaptivity, Fill, Format, ImportOptions, Trace};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data");
const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn sample(name: &str) -> String {
    read(&format!("{SAMPLES}/{name}"))
}

fn shared(name: &str) -> String {
    read(&format!("{DATA}/{name}"))
}

fn import(file: &str, text: &str, opts: ImportOptions) -> Trace {
    Trace::parse_with(file, text, &opts).unwrap_or_else(|e| panic!("{file}: {e}"))
}

fn job<'a>(t: &'a Trace, name: &str) -> &'a schedlab::workload::JobSpec {
    t.jobs
        .iter()
        .find(|j| j.name == name)
        .unwrap_or_else(|| panic!("no job {name}"))
}

/// Runs a trace with FIFO and checks every job completes.
fn runs_to_completion(trace: &Trace, cluster: &str) {
    let c = parse_cluster(cluster).unwrap();
    let (_, jobs, out) = common::run_with(trace, &c, &ModelZoo::builtin(), "fifo", &[]);
    assert_eq!(out.incomplete, 0, "{}: {}", trace.name, out.stop_reason);
    assert_eq!(jobs.len(), trace.jobs.len());
}

#[test]
fn philly_sample() {
    let t = import(
        "philly.json",
        &sample("philly_cluster_job_log.json"),
        ImportOptions::default(),
    );
    assert_eq!(t.format, "philly");
    // 8 jobs: unfinished attempt, Running, no attempts, no GPUs skipped.
    assert_eq!((t.jobs.len(), t.skipped), (4, 4));
    let a = job(&t, "application_1506638472019_00001");
    assert_eq!((a.arrival, a.gpus, a.duration), (0.0, 1, Some(5400.0)));
    assert_eq!(a.tenant, "11cb48");
    // Killed, two 4-GPU attempts: T_exec = 30 + 60 min.
    let b = job(&t, "application_1506638472019_00002");
    assert_eq!((b.arrival, b.gpus, b.duration), (300.0, 4, Some(5400.0)));
    // Two nodes of 8 GPUs in one attempt.
    let c = job(&t, "application_1506638472019_00003");
    assert_eq!((c.gpus, c.duration), (16, Some(900.0)));
    // 64 GPUs: no Table 4 model covers it, clamped to Inception-v4 at 52 (AFS 4.3).
    let d = job(&t, "application_1506638472019_00007");
    assert_eq!((d.model.as_str(), d.gpus), ("afs/inception-v4", 52));
    assert!(t
        .jobs
        .iter()
        .all(|j| j.adaptivity == Adaptivity::StrongScaling));
    let notes = t.notes.join("\n");
    for want in [
        "status not Pass",
        "no attempts",
        "without start or end",
        "no GPUs",
        "clamped to 52",
    ] {
        assert!(notes.contains(want), "{want} missing from {notes}");
    }
    // Each drawn model covers the request.
    for j in &t.jobs {
        let k = schedlab::workload::fill::AFS_MODELS
            .iter()
            .find(|(m, _)| *m == j.model)
            .unwrap()
            .1;
        assert!(j.gpus <= k);
    }
    runs_to_completion(&t, "afs-64");
}

#[test]
fn philly_errors_name_the_line_and_field() {
    let text = sample("philly_cluster_job_log.json").replace(
        "\"submitted_time\": \"2017-10-03 09:05:00\"",
        "\"submitted_time\": \"yesterday\"",
    );
    let e = Trace::parse("p.json", &text, None).unwrap_err().to_string();
    // The second job starts on line 16.
    assert!(e.contains("p.json: line 16, field 'submitted_time'"), "{e}");
    let e = Trace::parse("p.json", "[{\"status\": 5}]", None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("p.json: line 1"), "{e}");
    let e = Trace::parse("p.json", "[{\"status\": \"Pass\"}, ", None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("p.json") && e.contains("Philly"), "{e}");
}

#[test]
fn helios_sample_and_sia_fill() {
    let text = sample("helios_cluster_log.csv");
    let t = import("helios.csv", &text, ImportOptions::default());
    assert_eq!(t.format, "helios");
    // CPU-only, zero duration and PENDING rows skipped.
    assert_eq!((t.jobs.len(), t.skipped), (5, 3));
    let a = job(&t, "helios-j100001");
    assert_eq!((a.arrival, a.gpus, a.duration), (0.0, 8, Some(7200.0)));
    assert_eq!(a.tenant, "vcEwI");
    // Submitted 10:30 s after the first job; CANCELLED and TIMEOUT kept.
    assert_eq!(job(&t, "helios-j100004").arrival, 618.0);
    assert_eq!(job(&t, "helios-j100006").duration, Some(259_200.0));
    runs_to_completion(&t, "afs-64");

    // Sia fill: GPU-time classes -> Pollux models with TunedJobs configs.
    let s = import(
        "helios.csv",
        &text,
        ImportOptions {
            fill: Some(Fill::Sia),
            ..Default::default()
        },
    );
    let model = |n: &str| job(&s, n).model.clone();
    assert_eq!(model("helios-j100002"), "cifar10"); // 100 GPU-s
    assert_eq!(model("helios-j100001"), "yolov3"); // 16 GPU-h
    assert_eq!(model("helios-j100004"), "imagenet"); // 384 GPU-h
    assert_eq!(model("helios-j100006"), "imagenet"); // 288 GPU-h
    assert_eq!(model("helios-j100008"), "imagenet"); // 768 GPU-h
    for j in &s.jobs {
        assert!(j.duration.is_none() && j.batch_size > 0);
        assert_eq!(j.adaptivity, Adaptivity::Adaptive);
    }
    runs_to_completion(&s, "sia-hetero-64");
    // Sia 4.1 drops jobs shorter than 60 s and with 1000 GPU-hours or more.
    let short_long = "job_id,gpu_num,submit_time,duration\na,1,0,30\nb,64,10,57600\nc,2,20,600\n";
    let s = import(
        "h.csv",
        short_long,
        ImportOptions {
            fill: Some(Fill::Sia),
            ..Default::default()
        },
    );
    assert_eq!((s.jobs.len(), s.skipped), (1, 2));
    let notes = s.notes.join("\n");
    assert!(
        notes.contains("shorter than 60 s") && notes.contains("1000 GPU-hours"),
        "{notes}"
    );
}

#[test]
fn helios_errors() {
    let text = sample("helios_cluster_log.csv").replace("2020-09-01 08:03:00", "2020-09-xx");
    let e = Trace::parse("h.csv", &text, None).unwrap_err().to_string();
    assert!(e.contains("h.csv: line 3, field 'submit_time'"), "{e}");
    let text = sample("helios_cluster_log.csv").replace(",1,6,1,FAILED", ",one,6,1,FAILED");
    let e = Trace::parse("h.csv", &text, None).unwrap_err().to_string();
    assert!(e.contains("line 3, field 'gpu_num'"), "{e}");
}

#[test]
fn pai_sample_with_and_without_the_job_table() {
    let tasks = sample("pai_task_table.csv");
    let jobs = sample("pai_job_table.csv");
    // The published tables have no header: detection needs the format named.
    assert!(Trace::parse("t.csv", &tasks, None).is_err());
    let pai = ImportOptions {
        format: Some(Format::Pai),
        ..Default::default()
    };
    let alone = import("tasks.csv", &tasks, pai);
    assert_eq!((alone.jobs.len(), alone.skipped), (5, 2));
    let joined = import(
        "tasks.csv",
        &tasks,
        ImportOptions {
            aux: Some(("jobs.csv", &jobs)),
            ..pai
        },
    );
    assert_eq!((joined.jobs.len(), joined.skipped), (5, 2));
    let a = job(&joined, "a1b2c3d4e5f60001");
    // 4 workers x 100% + a CPU-only PS; tasks 1195..8405; submitted at 1190 (the first).
    assert_eq!((a.gpus, a.duration, a.arrival), (4, Some(7210.0), 0.0));
    assert_eq!(a.tenant, "u7f3e9");
    assert_eq!(job(&joined, "a1b2c3d4e5f60002").gpus, 1); // 50%
    assert_eq!(job(&joined, "a1b2c3d4e5f60003").gpus, 8); // 800%
    assert_eq!(job(&joined, "a1b2c3d4e5f60006").gpus, 1); // 3 x 25%
    let g = job(&joined, "a1b2c3d4e5f60007"); // not in the job table
    assert_eq!((g.gpus, g.arrival, g.tenant.as_str()), (8, 2810.0, ""));
    let notes = joined.notes.join("\n");
    assert!(notes.contains("fractional") && notes.contains("missing from the job table"));
    // With a header row the format is detected.
    let with_header = format!(
        "job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type\n{tasks}"
    );
    let h = import("tasks.csv", &with_header, ImportOptions::default());
    assert_eq!(h.format, "pai");
    assert_eq!(
        h.jobs,
        alone
            .jobs
            .iter()
            .map(|j| {
                let mut j = j.clone();
                j.source_line += 1;
                j
            })
            .collect::<Vec<_>>()
    );
    let bad = tasks.replace("4,Terminated,1200.0", "4,Terminated,soon");
    let e = Trace::parse_with("tasks.csv", &bad, &pai)
        .unwrap_err()
        .to_string();
    assert!(e.contains("tasks.csv: line 1, field 'start_time'"), "{e}");
    runs_to_completion(&joined, "afs-64");
}

#[test]
fn tiresias_sample() {
    let t = import(
        "tiresias.csv",
        &sample("tiresias.csv"),
        ImportOptions::default(),
    );
    assert_eq!(t.format, "tiresias");
    assert_eq!((t.jobs.len(), t.skipped), (5, 1));
    assert_eq!(job(&t, "job-1").model, "afs/vgg16");
    assert_eq!(job(&t, "job-2").model, "afs/resnet50");
    assert_eq!(job(&t, "job-3").model, "afs/inception-v4");
    assert_eq!(job(&t, "job-6").model, "afs/googlenet");
    assert!(t.notes.join(" ").contains("vgg19 x1"));
    assert_eq!(job(&t, "job-6").duration, Some(43_200.0));
    runs_to_completion(&t, "afs-64");
    let linear = import(
        "tiresias.csv",
        &sample("tiresias.csv"),
        ImportOptions {
            fill: Some(Fill::Linear),
            ..Default::default()
        },
    );
    assert!(linear
        .jobs
        .iter()
        .all(|j| j.model == "linear" && j.adaptivity == Adaptivity::Rigid));
}

#[test]
fn blox_real_file() {
    let text = shared("blox/poisson_trace_10+0.5.csv");
    let t = import("blox.csv", &text, ImportOptions::default());
    assert_eq!(t.format, "blox");
    assert_eq!((t.jobs.len(), t.skipped), (10, 0));
    let a = job(&t, "job-1");
    assert_eq!((a.arrival, a.gpus, a.duration), (12.0, 1, Some(9447.0)));
    assert_eq!(a.model, "afs/resnet50");
    assert_eq!(job(&t, "job-3").model, "afs/dcgan");
    // The fill draw depends on the job id only, not on row order.
    let mut lines: Vec<&str> = text.lines().collect();
    lines[1..].reverse();
    let rev = import("blox.csv", &lines.join("\n"), ImportOptions::default());
    for j in &t.jobs {
        assert_eq!(job(&rev, &j.name).model, j.model);
    }
    runs_to_completion(&t, "afs-64");
}

#[test]
fn alibaba_2023_real_file() {
    let text = shared("alibaba-gpu-v2023/openb_pod_list_default.csv");
    let t = import("pods.csv", &text, ImportOptions::default());
    assert_eq!(t.format, "alibaba-2023");
    // 8,152 pods: 1,088 CPU-only and 861 never scheduled are skipped.
    assert_eq!((t.jobs.len(), t.skipped), (6203, 1949));
    assert!(t
        .jobs
        .iter()
        .all(|j| j.gpus >= 1 && j.duration.unwrap() > 0.0));
    let a = job(&t, "openb-pod-0000");
    assert_eq!(
        (a.arrival, a.duration, a.gpus),
        (0.0, Some(12_537_496.0), 1)
    );
    let notes = t.notes.join("\n");
    assert!(
        notes.contains("2573 pods request a fraction of a GPU"),
        "{notes}"
    );
    // gpu_spec pins a single known model and leaves the others free.
    let header = text.lines().next().unwrap();
    let rows = format!(
        "{header}\np1,1000,1024,1,500,V100M32,LS,Succeeded,0,100,10\np2,1000,1024,2,1000,A10|T4,LS,Succeeded,5,100,10\n"
    );
    let s = import("pods.csv", &rows, ImportOptions::default());
    assert_eq!(job(&s, "p1").gpu_type.as_deref(), Some("v100"));
    assert_eq!(job(&s, "p2").gpu_type, None);
    let e = Trace::parse("pods.csv", &rows.replace(",500,", ",5000,"), None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("pods.csv: line 2, field 'gpu_milli'"), "{e}");
}

#[test]
fn gavel_real_traces_and_throughputs() {
    for name in ["artifact_evaluation", "medium_test", "small_test"] {
        let text = shared(&format!("gavel/traces/physical_cluster/{name}.trace"));
        let t = import(name, &text, ImportOptions::default());
        assert_eq!(t.format, "gavel");
        assert_eq!(
            t.jobs.len(),
            text.lines().filter(|l| !l.trim().is_empty()).count()
        );
        for j in &t.jobs {
            assert_eq!(j.adaptivity, Adaptivity::Rigid);
            assert!(j.work.unwrap() >= 1.0);
            assert!(j.model.starts_with("gavel/"));
        }
        // Gavel's physical cluster types (8 V100, 16 P100, 24 K80).
        runs_to_completion(&t, "v100:2x4,p100:4x4,k80:3x8");
    }
    let t = import(
        "a.trace",
        &shared("gavel/traces/physical_cluster/artifact_evaluation.trace"),
        ImportOptions::default(),
    );
    let first = &t.jobs[0];
    assert_eq!(first.model, "gavel/resnet-50-bs64-x1");
    assert_eq!(first.work, Some(2931.0));
    assert_eq!(t.jobs[1].model, "gavel/transformer-bs16-x2");
    assert_eq!(t.jobs[1].gpus, 2);

    // The built-in table is the JSON's isolated throughputs (6 significant digits,
    // so ratios agree to about 1e-5).
    let from_json = gavel_models_from_json(
        "simulation_throughputs.json",
        &shared("gavel/simulation_throughputs.json"),
    )
    .unwrap();
    let builtin = gavel_models();
    assert_eq!(from_json.len(), builtin.len());
    for b in &builtin {
        let j = from_json.iter().find(|m| m.name == b.name).unwrap();
        #[allow(irrefutable_let_patterns)]
        let (
            Behaviour::Curve {
                curve: cb,
                type_speed: sb,
            },
            Behaviour::Curve {
                curve: cj,
                type_speed: sj,
            },
        ) = (&b.behaviour, &j.behaviour)
        else {
            panic!("gavel entries are curves");
        };
        for k in 1..=b.max_gpus {
            let (x, y) = (cb.at(k as f64), cj.at(k as f64));
            assert!(
                (x - y).abs() <= 2e-5 * y.abs().max(1e-9),
                "{} k={k}: {x} {y}",
                b.name
            );
        }
        for ((kb, vb), (kj, vj)) in sb.iter().zip(sj) {
            assert_eq!(kb, kj);
            assert!(
                (vb - vj).abs() <= 2e-5 * vj.abs().max(1e-9),
                "{}: {vb} {vj}",
                b.name
            );
        }
    }
}

#[test]
fn gavel_errors() {
    let line = "ResNet-50 (batch size 64)\tcmd\tdir\t--n\t1\t2931\t1\t1\t-1.000000\t0\n";
    let e = Trace::parse(
        "g.trace",
        &format!("{line}{}", line.replace("\t2931\t", "\tmany\t")),
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("g.trace: line 2, field 'total_steps'"), "{e}");
    let e = Trace::parse("g.trace", &format!("{line}a\tb\n"), Some(Format::Gavel))
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 2") && e.contains("tab-separated"), "{e}");
    let e = gavel_models_from_json("t.json", "{\"v100\": {\"('A3C', 1)\": {}}}")
        .unwrap_err()
        .to_string();
    assert!(e.contains("t.json") && e.contains("null"), "{e}");
}

#[test]
fn fill_does_not_apply_to_formats_with_models() {
    let e = Trace::parse_with(
        "w.csv",
        "name,time,application,num_replicas,batch_size\na,1,cifar10,2,128\n",
        &ImportOptions {
            fill: Some(Fill::Afs),
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("does not apply"), "{e}");
}

/// Valid files of every format, for the mutation tests.
fn valid_files() -> Vec<(&'static str, String, Option<Format>)> {
    vec![
        ("philly", sample("philly_cluster_job_log.json"), None),
        ("helios", sample("helios_cluster_log.csv"), None),
        ("pai", sample("pai_task_table.csv"), Some(Format::Pai)),
        ("tiresias", sample("tiresias.csv"), None),
        ("blox", shared("blox/poisson_trace_10+0.5.csv"), None),
        (
            "alibaba",
            shared("alibaba-gpu-v2023/openb_pod_list_default.csv")
                .lines()
                .take(60)
                .collect::<Vec<_>>()
                .join("\n"),
            None,
        ),
        (
            "gavel",
            shared("gavel/traces/physical_cluster/small_test.trace"),
            None,
        ),
        (
            "pollux",
            shared("pollux/workloads/workload-1.csv")
                .lines()
                .take(30)
                .collect::<Vec<_>>()
                .join("\n"),
            None,
        ),
    ]
}

/// Every way of parsing a text: detected, and as each format with each fill.
fn parse_every_way(text: &str) {
    let _ = Trace::parse("fuzz", text, None);
    for (f, _, _) in Format::ALL {
        let _ = Trace::parse("fuzz", text, Some(*f));
        let _ = Trace::parse_with(
            "fuzz",
            text,
            &ImportOptions {
                format: Some(*f),
                fill: Some(Fill::Sia),
                aux: if *f == Format::Pai {
                    Some(("aux", text))
                } else {
                    None
                },
            },
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Random bytes give Ok or a clean Err, in every format.
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        parse_every_way(&text);
    }

    /// Random text built from the characters these formats use.
    #[test]
    fn format_alphabet_never_panics(text in "[\\[\\]{}\":,\t\n0-9a-zA-Z_. -]{0,300}") {
        parse_every_way(&text);
    }

    /// Random edits of valid files give Ok or a clean Err; errors name the file.
    #[test]
    fn mutated_valid_files_never_panic(
        which in 0usize..8,
        edits in proptest::collection::vec((any::<u16>(), 0u8..4, any::<u8>()), 1..6),
    ) {
        let files = valid_files();
        let (_, text, fmt) = &files[which % files.len()];
        let mut bytes = text.as_bytes().to_vec();
        for (pos, op, b) in edits {
            if bytes.is_empty() {
                break;
            }
            let i = pos as usize % bytes.len();
            match op {
                0 => bytes[i] = b,
                1 => { bytes.remove(i); }
                2 => bytes.insert(i, b),
                _ => bytes.truncate(i),
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        match Trace::parse("mutant", &text, *fmt) {
            Ok(t) => prop_assert!(!t.jobs.is_empty()),
            Err(e) => prop_assert!(e.to_string().contains("mutant") || matches!(e, schedlab::Error::Config(_))),
        }
        parse_every_way(&text);
    }
}
