//! The CLI contract, run as a user would.

use std::process::Command;

fn schedlab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const RUN: &[&str] = &[
    "run",
    "--trace",
    "afs-mini",
    "--cluster",
    "homog-64",
    "--policy",
    "fifo,srtf,srsf,tiresias,maxmin",
    "--format",
    "json",
];

#[test]
fn run_prints_the_json_contract() {
    let (code, out, err) = schedlab(RUN);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["trace"], "afs-mini");
    assert_eq!(v["cluster"], "homog-64");
    assert_eq!(v["seed"], 1);
    let results = v["results"].as_array().unwrap();
    let names: Vec<&str> = results
        .iter()
        .map(|r| r["policy"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["fifo", "srtf", "srsf", "tiresias", "maxmin"]);
    for r in results {
        let m = &r["metrics"];
        for key in [
            "jobs",
            "completed",
            "avg_jct_s",
            "p50_jct_s",
            "p90_jct_s",
            "p99_jct_s",
            "makespan_s",
            "avg_queue_s",
            "gpu_hours",
            "utilization",
            "avg_restarts",
        ] {
            assert!(m[key].is_number(), "{} lacks metrics.{key}", r["policy"]);
        }
        assert_eq!(
            m["jobs"], m["completed"],
            "{} left jobs unfinished",
            r["policy"]
        );
        assert_eq!(m["jobs"], 200);
        assert!(r["params"].is_object() && r["wall_s"].is_number());
        assert_eq!(r["ftf_reference"], "analytic");
        let jobs = r["jobs"].as_array().unwrap();
        assert_eq!(jobs.len(), 200);
        for key in [
            "arrival", "start", "finish", "jct_s", "queue_s", "gpu_s", "restarts",
        ] {
            assert!(!jobs[0][key].is_null(), "job lacks {key}");
        }
    }
}

#[test]
fn the_same_command_gives_the_same_output() {
    let strip = |s: String| {
        s.lines()
            .filter(|l| !l.trim_start().starts_with("\"wall_s\""))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (_, a, _) = schedlab(RUN);
    let (_, b, _) = schedlab(RUN);
    assert!(a.len() > 1000);
    assert_eq!(strip(a), strip(b));
}

#[test]
fn a_bad_number_on_line_7_is_reported_with_exit_code_2() {
    let dir = std::env::temp_dir().join(format!("schedlab-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.csv");
    let mut text = String::from("name,time,application,num_replicas,batch_size\n");
    for i in 0..5 {
        text.push_str(&format!("job-{i},{},cifar10,2,256\n", i * 10));
    }
    text.push_str("job-5,6o,cifar10,2,256\n"); // line 7
    std::fs::write(&path, text).unwrap();
    let (code, out, err) = schedlab(&[
        "run",
        "--trace",
        path.to_str().unwrap(),
        "--cluster",
        "homog-64",
        "--policy",
        "fifo",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("line 7") && err.contains("field 'time'"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "one-line cause: {err}");
}

#[test]
fn bad_arguments_exit_with_2() {
    for args in [
        &["run", "--trace", "afs-mini", "--policy", "nosuch"][..],
        &["run", "--trace", "afs-mini", "--cluster", "t4:0x4"],
        &[
            "run",
            "--trace",
            "no/such/file.csv",
            "--cluster",
            "homog-64",
        ],
        &[
            "run",
            "--trace",
            "afs-mini",
            "--set",
            "fifo.backfill=maybe",
            "--policy",
            "fifo",
        ],
        &[
            "run",
            "--trace",
            "afs-mini",
            "--set",
            "srtf.round_s=1",
            "--policy",
            "fifo",
        ],
        &["list", "nothing"],
        &["run", "--trace", "afs-mini", "--ftf", "guess"],
    ] {
        let (code, _, err) = schedlab(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{err}");
    }
}

#[test]
fn list_shows_policies_with_parameters_and_everything_else() {
    let (code, out, _) = schedlab(&["list", "policies"]);
    assert_eq!(code, 0);
    for p in [
        "fifo",
        "srtf",
        "srsf",
        "tiresias",
        "maxmin",
        "--set fifo.backfill=false",
        "--set tiresias.t1=3250",
    ] {
        assert!(out.contains(p), "missing {p}");
    }
    for what in [
        "traces",
        "clusters",
        "models",
        "generators",
        "formats",
        "engine",
    ] {
        let (code, out, _) = schedlab(&["list", what]);
        assert_eq!(code, 0, "{what}");
        assert!(!out.is_empty());
        let (code, json, _) = schedlab(&["list", what, "--json"]);
        assert_eq!(code, 0);
        serde_json::from_str::<serde_json::Value>(&json).unwrap();
    }
    let (_, out, _) = schedlab(&["list", "clusters"]);
    for c in ["sia-hetero-64", "sia-physical-44", "homog-64", "afs-64"] {
        assert!(out.contains(c));
    }
}

#[test]
fn gen_writes_a_trace_that_runs() {
    let dir = std::env::temp_dir().join(format!("schedlab-gen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("g.csv");
    let p = path.to_str().unwrap();
    let (code, _, err) = schedlab(&[
        "gen",
        "afs-synthetic",
        "--jobs",
        "50",
        "--seed",
        "4",
        "--set",
        "load=2",
        "--out",
        p,
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = schedlab(&[
        "run",
        "--trace",
        p,
        "--cluster",
        "afs-64",
        "--policy",
        "maxmin",
        "--format",
        "csv",
    ]);
    assert_eq!(code, 0, "{err}");
    let mut lines = out.lines();
    assert!(lines
        .next()
        .unwrap()
        .starts_with("policy,completed,jobs,avg_jct_s"));
    assert!(lines.next().unwrap().starts_with("maxmin,50,50,"));
}

#[test]
fn table_and_timeline_outputs() {
    let dir = std::env::temp_dir().join(format!("schedlab-tl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tl = dir.join("tl.json");
    let (code, out, err) = schedlab(&[
        "run",
        "--trace",
        "afs-mini",
        "--policy",
        "fifo,maxmin",
        "--timeline",
        tl.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("avg JCT h") && out.contains("maxmin"));
    // No due dates, no priced GPUs: no tardiness or cost columns.
    assert!(!out.contains("tardy") && !out.contains("cost $"), "{out}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&tl).unwrap()).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 2);
    assert!(!v[0]["timeline"]["segments"].as_array().unwrap().is_empty());
}

#[test]
fn the_table_prices_runs_that_have_a_cost() {
    let (code, out, err) = schedlab(&[
        "run",
        "--trace",
        "sts-mixed-10",
        "--cluster",
        "sts-10",
        "--policy",
        "sts,edf",
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    let header: Vec<&str> = lines[1]
        .split("  ")
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .collect();
    let at = |h: &str| {
        header
            .iter()
            .position(|x| *x == h)
            .unwrap_or_else(|| panic!("no {h} in {header:?}"))
    };
    let (gpu, tardy, total) = (at("GPU cost $"), at("tardiness cost $"), at("total cost $"));
    for row in &lines[3..5] {
        let cells: Vec<f64> = row
            .split_whitespace()
            .skip(1)
            .map(|c| c.parse().unwrap_or(f64::NAN))
            .collect();
        // The policy's name is not a number: cells are shifted by one.
        let cell = |i: usize| cells[i - 1];
        assert!(cell(gpu) > 0.0, "{row}");
        // Whole dollars (the catalog's digits): three roundings of 0.5 at most.
        assert!(
            (cell(gpu) + cell(tardy) - cell(total)).abs() <= 1.5,
            "{row}"
        );
    }
}

#[test]
fn reproduce_afs_prints_the_comparison() {
    let (code, out, err) = schedlab(&[
        "reproduce",
        "afs",
        "--jobs",
        "40",
        "--traces",
        "4,7",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    for needle in [
        "Average JCT (hours)",
        "99th-percentile JCT (hours)",
        "AFS-L/SRTF [1.2-2.7]",
        "AFS-P/Tiresias-L [1.9-3.1]",
        "AFS-P/Themis [1.2-2.2]",
        "in range",
        "AFS-L < SRTF, SRSF, Optimus",
        "tiresias@peak",
    ] {
        assert!(out.contains(needle), "missing {needle}:\n{out}");
    }
    let (code, out, err) = schedlab(&[
        "reproduce",
        "afs",
        "--jobs",
        "30",
        "--traces",
        "4",
        "--format",
        "json",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let runs = v["report"]["traces"][0]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 14);
    assert!(runs.iter().all(|r| r["completed"] == 30), "{out}");
    assert!(v["checks"].as_array().unwrap().len() >= 10);
}

#[test]
fn reproduce_sia_prints_ours_beside_the_thesis() {
    let (code, out, err) = schedlab(&[
        "reproduce",
        "sia",
        "--traces",
        "1",
        "--jobs",
        "24",
        "--sections",
        "hetero,ftf,scale",
        "--scale-gpus",
        "64,128",
        "--scale-hours",
        "0.5",
        "--pollux-scale-max",
        "64",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    for needle in [
        "Table 3.3: heterogeneous",
        "sia / pollux",
        "Fig 3.7: finish-time fairness",
        "Fig 3.10: policy time per round",
        "Targets (issue 5)",
        "Sia median policy time per round at 64 GPUs (ms)",
    ] {
        assert!(out.contains(needle), "missing {needle}:\n{out}");
    }
    assert!(
        !out.contains("Table 3.4"),
        "homog ran although not asked:\n{out}"
    );
    let (code, out, err) = schedlab(&[
        "reproduce",
        "sia",
        "--traces",
        "2",
        "--jobs",
        "16",
        "--sections",
        "homog",
        "--format",
        "json",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let runs = v["report"]["runs"].as_array().unwrap();
    // Two traces x five policies, every job finished.
    assert_eq!(runs.len(), 10, "{out}");
    assert!(runs.iter().all(|r| r["completed"] == 16), "{out}");
    assert_ne!(runs[0]["trace"], runs[5]["trace"]);
    let checks = v["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 2, "{out}");
    assert!(checks.iter().all(|c| c["holds"].is_boolean()));
}

#[test]
fn reproduce_sia_reads_the_pollux_workloads_with_ncf_replaced() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/pollux/workloads");
    if !dir.exists() {
        eprintln!("skipped: {} not found", dir.display());
        return;
    }
    let traces = schedlab::repro::sia::artifact_traces(&dir, 16, 1).unwrap();
    assert_eq!(traces.len(), 8);
    for t in &traces {
        assert_eq!(t.jobs.len(), 160, "{}", t.name);
        assert!(t.jobs.iter().all(|j| j.model != "ncf"), "{}", t.name);
        assert!(t.jobs.iter().all(|j| j.gpus <= 16), "{}", t.name);
    }
}

#[test]
fn reproduce_and_bench_reject_bad_targets() {
    for args in [
        &["reproduce", "nosuch"][..],
        &["reproduce", "afs", "--traces", "12"],
        &["reproduce", "afs", "--jobs", "0"],
        &["reproduce", "afs", "--format", "csv"],
        &["reproduce", "sia", "--sections", "hetero,tables"],
        &["reproduce", "sia", "--traces", "0"],
        &["reproduce", "sia", "--scale-gpus", "100"],
        &["reproduce", "copter", "--sizes", "none", "--scaling", "0"],
        &[
            "reproduce",
            "copter",
            "--sizes",
            "none",
            "--scaling",
            "1",
            "--hours",
            "30",
        ],
        &["reproduce", "sts", "--sizes", "5000"],
        &[
            "reproduce",
            "sia",
            "--pollux-dir",
            "/nonexistent/dir",
            "--sections",
            "hetero",
        ],
        &[
            "reproduce",
            "afs",
            "--set",
            "engine.reconfig=magic",
            "--traces",
            "4",
            "--jobs",
            "5",
        ],
        &["bench", "nosuch"],
    ] {
        let (code, _, err) = schedlab(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{err}");
    }
    let (_, _, err) = schedlab(&["reproduce", "nosuch"]);
    assert!(
        err.contains("known: afs, anticipatory, copter, pcs, sia, sts"),
        "{err}"
    );
}

#[test]
fn tune_jobs_writes_a_pollux_workload() {
    let dir = std::env::temp_dir().join(format!("schedlab-tune-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("w.csv");
    // AFS models: vgg16 peaks at 8 GPUs, so some counts land in the 50-80% band.
    std::fs::write(
        &input,
        "name,arrival,model,gpus,duration\na,0,afs/vgg16,1,36000\nb,60,linear,2,600\n",
    )
    .unwrap();
    let out = dir.join("tuned.csv");
    let (code, _, err) = schedlab(&[
        "tune-jobs",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--seed",
        "3",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("tuned 2 jobs (1 fell back to 1 GPU)"), "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("name,time,application,num_replicas,batch_size")
    );
    let a: Vec<&str> = lines.next().unwrap().split(',').collect();
    let k: u32 = a[3].parse().unwrap();
    assert!([6, 8].contains(&k), "{a:?}");
    assert_eq!(lines.next(), Some("b,60,linear,1,0"));
    // In the native format the tuned workload keeps each job's work, and
    // runs under the rigid baselines.
    let native = dir.join("tuned-native.csv");
    let (code, _, err) = schedlab(&[
        "tune-jobs",
        input.to_str().unwrap(),
        "--out",
        native.to_str().unwrap(),
        "--format",
        "native",
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = schedlab(&[
        "run",
        "--trace",
        native.to_str().unwrap(),
        "--cluster",
        "sia-hetero-64",
        "--policy",
        "gavel,themis,shockwave",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for r in v["results"].as_array().unwrap() {
        assert_eq!(r["metrics"]["completed"], 2, "{}", r["policy"]);
    }
    let (code, _, err) = schedlab(&[
        "tune-jobs",
        input.to_str().unwrap(),
        "--profile-type",
        "h200",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--profile-type h200"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `schedlab bench` runs named cases in their own processes, prints the
/// time split and a digest of the results, saves them, and compares a
/// later run against the saved one (same results: same digest).
#[test]
fn bench_suite_saves_and_compares() {
    let dir = std::env::temp_dir().join(format!("schedlab-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let saved = dir.join("ref.json");
    let saved = saved.to_str().unwrap();
    let (code, out, err) = schedlab(&["bench", "--case", "gavel-160", "--json", saved]);
    assert_eq!(code, 0, "{err}");
    for col in [
        "wall s",
        "calls",
        "policy s",
        "estimator s",
        "engine s",
        "output s",
        "peak MB",
        "results",
    ] {
        assert!(out.contains(col), "no column '{col}' in\n{out}");
    }
    let cases: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(saved).unwrap()).unwrap();
    let case = &cases[0];
    assert_eq!(case["case"], "gavel-160");
    assert!(case["calls"].as_u64().unwrap() > 100, "{case}");
    assert_eq!(case["digest"].as_str().unwrap().len(), 16);
    let (code, out, err) = schedlab(&["bench", "--case", "gavel-160", "--compare", saved]);
    assert_eq!(code, 0, "{err}");
    let row = out.lines().find(|l| l.starts_with("gavel-160")).unwrap();
    assert!(
        row.trim_end().ends_with("yes") && row.contains('x'),
        "{row}"
    );
    let (code, _, err) = schedlab(&["bench", "--case", "nope"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("unknown case 'nope'") && err.contains("sia-160"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sts_data_flows_from_gen_to_run_and_placeholder_runs_say_so() {
    let data = "../shared/data/sts";
    if !std::path::Path::new(data)
        .join("distributions.csv")
        .exists()
    {
        eprintln!("SKIPPED: {data} is absent; this test needs ../shared/data");
        return;
    }
    let dir = std::env::temp_dir().join(format!("schedlab-sts-data-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("sts2.csv");
    let trace = trace.to_str().unwrap();
    let (code, _, err) = schedlab(&[
        "gen",
        "sts",
        "--sts-data",
        data,
        "--set",
        "nodes=2",
        "--seed",
        "1000",
        "--out",
        trace,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("wrote 21 jobs"), "{err}");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--trace",
            trace,
            "--cluster",
            "sts-k80m60-2",
            "--policy",
            "sts,edf",
        ];
        args.extend_from_slice(extra);
        schedlab(&args)
    };
    let (code, out, err) = run(&["--sts-data", data]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("GPU cost $") && !out.contains("placeholder"),
        "{out}"
    );
    // Without the data the job types are unknown, and the error says where they come from.
    let (code, _, err) = run(&[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("sts-data/") && err.contains("--sts-data DIR"),
        "{err}"
    );
    // A run on the placeholder profiles is labelled.
    let (code, out, err) = schedlab(&[
        "run",
        "--trace",
        "sts-mixed-10",
        "--cluster",
        "sts-10",
        "--policy",
        "edf",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("note: placeholder results"), "{out}");
    // --sts-data is for the sts generator only, and a wrong directory is named.
    let (code, _, err) = schedlab(&["gen", "afs-philly", "--sts-data", data]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("gen sts"), "{err}");
    let (code, _, err) = schedlab(&["gen", "sts", "--sts-data", "/nonexistent/sts"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("/nonexistent/sts"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `schedlab explain`: a job by id or by name gives the same reasons; the
/// text follows Tiresias' queues; bad input names the flag.
#[test]
fn explain_prints_a_jobs_reasons() {
    let base = [
        "explain",
        "--trace",
        "afs-mini",
        "--cluster",
        "afs-64",
        "--policy",
        "tiresias",
    ];
    let with = |extra: &[&str]| {
        let mut a: Vec<&str> = base.to_vec();
        a.extend_from_slice(extra);
        schedlab(&a)
    };
    let (code, by_id, err) = with(&["--job", "40", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let (_, by_name, _) = with(&["--job", "j40", "--format", "json"]);
    assert_eq!(by_id, by_name);
    let e: serde_json::Value = serde_json::from_str(&by_id).unwrap();
    let rules: Vec<&str> = e["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules.first(), Some(&"tiresias.runs"), "{rules:?}");
    assert!(rules.contains(&"tiresias.demoted"), "{rules:?}");
    let (code, text, _) = with(&["--job", "40", "--at", "75m"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("demoted from Q0 to Q1") && text.contains("ranked ahead of it"),
        "{text}"
    );

    // --queue: the whole call at --at in Tiresias' order; job 40's `ahead`
    // list is the queue before it.
    let (code, q, err) = with(&["--queue", "--at", "75m", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let q: serde_json::Value = serde_json::from_str(&q).unwrap();
    let ranked: Vec<u64> = q["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["rank"].is_null())
        .map(|r| r["job"].as_u64().unwrap())
        .collect();
    let (_, one, _) = with(&["--job", "40", "--at", "75m", "--format", "json"]);
    let one: serde_json::Value = serde_json::from_str(&one).unwrap();
    let mut ahead: Vec<u64> = one["at"]["ahead"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["job"].as_u64().unwrap())
        .collect();
    ahead.push(40);
    assert_eq!(ranked[..ahead.len()], ahead[..], "{ranked:?}");
    let (code, text, _) = with(&["--queue", "--at", "75m"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("  1. job ") && text.contains("job 40 'j40'"),
        "{text}"
    );
    let (code, _, err) = with(&["--queue"]);
    assert_ne!(code, 0, "--queue needs --at");
    assert!(err.contains("--at"), "{err}");

    let (code, _, err) = with(&["--job", "nobody"]);
    assert_ne!(code, 0);
    assert!(err.contains("--job nobody"), "{err}");
    let (code, _, err) = with(&["--job", "40", "--at", "soon"]);
    assert_ne!(code, 0);
    assert!(err.contains("soon"), "{err}");
}
