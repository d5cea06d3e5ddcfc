//! Settings are parsed once, where they enter, and a bad one stops every
//! command before anything runs (issue 51 item 3, issue 47's duplicates): exit
//! code 2 and one line on stderr naming the setting, with no progress line
//! of a run, a search or a reproduction before it.

use std::process::Command;

fn schedlab(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `args` exits with 2 and prints only `error: ...` naming `want`.
fn refused(args: &[&str], want: &str) {
    let (code, err) = schedlab(args);
    assert_eq!(code, 2, "{args:?}: {err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "{args:?}: one line, nothing run before it:\n{err}"
    );
    assert!(lines[0].starts_with("error: "), "{args:?}: {err}");
    assert!(
        lines[0].contains(want),
        "{args:?}: wanted '{want}' in: {err}"
    );
}

const SEARCH: &[&str] = &[
    "pcs",
    "search",
    "--trace",
    "pcs-themis1",
    "--apps",
    "20",
    "--evaluations",
    "4",
    "--population",
    "2",
    "--offspring",
    "2",
];

fn with<'a>(base: &[&'a str], more: &[&'a str]) -> Vec<&'a str> {
    base.iter().chain(more).copied().collect()
}

#[test]
fn a_search_refuses_bad_engine_settings_before_it_starts() {
    for (set, want) in [
        ("engine.nosuch=1", "unknown parameter 'engine.nosuch'"),
        (
            "engine.placement=foo",
            "engine.placement=foo: must be one of packed, any, netpack, cells",
        ),
        (
            "engine.max_days=-1",
            "engine.max_days=-1: must be in [0.001, 1000000]",
        ),
        ("pcs.clip=0.5", "only engine.* and zoo.* settings apply"),
        ("nosuch.k=1", "unknown owner 'nosuch'"),
    ] {
        refused(&with(SEARCH, &["--set", set]), want);
    }
    refused(
        &with(SEARCH, &["--objectives", "avg_jct,avg_jct"]),
        "'avg_jct' is named twice",
    );
    refused(
        &with(SEARCH, &["--objectives", "avg_jct,,avg_pred_error"]),
        "entry 2 is empty",
    );
}

#[test]
fn a_reproduction_refuses_bad_settings_before_its_first_run() {
    let afs = ["reproduce", "afs", "--jobs", "20", "--traces", "1"];
    refused(
        &with(&afs, &["--set", "nosuch.k=1"]),
        "unknown owner 'nosuch'",
    );
    refused(
        &with(&afs, &["--set", "tiresias.t1=-5"]),
        "tiresias.t1=-5: must be in",
    );
    // Tiresias checks its thresholds together, also before anything runs.
    refused(
        &with(&afs, &["--set", "tiresias.t2=10"]),
        "t1 < t2 < t3 must increase",
    );
    refused(
        &with(&afs, &["--set", "sia.p=0.5"]),
        "policy 'sia' is not among the run's policies",
    );
    refused(
        &["reproduce", "sts", "--set", "sts.sharing=sometimes"],
        "sts.sharing=sometimes: expected true or false",
    );
    refused(
        &["reproduce", "anticipatory", "--set", "anticipatory.predict=psychic"],
        "anticipatory.predict=psychic: must be one of perfect, noisy, learned, random-arrive, random-all",
    );
    refused(
        &["reproduce", "copter", "--set", "sia.solver=simplex"],
        "sia.solver=simplex: must be one of auto, exact, lp-shim, lp-star, pop, copter, greedy",
    );
    refused(
        &["reproduce", "sia", "--set", "engine.calibration=thesis"],
        "engine.calibration=thesis: must be one of none, sia",
    );
    refused(
        &["reproduce", "pcs", "--set", "pcs.weights=1,x"],
        "pcs.weights=1,x: item 2",
    );
}

const RUN: &[&str] = &["run", "--trace", "afs-mini", "--cluster", "afs-64"];

#[test]
fn a_run_refuses_bad_settings_and_policy_lists_before_its_first_policy() {
    refused(
        &with(
            RUN,
            &["--policy", "tiresias,fifo", "--set", "fifo.nosuch=3"],
        ),
        "unknown parameter 'fifo.nosuch'; fifo has: backfill, share_gpus, round_s",
    );
    refused(
        &with(
            RUN,
            &[
                "--policy",
                "fifo",
                "--set",
                "fifo.round_s=60",
                "--set",
                "fifo.round_s=30",
            ],
        ),
        "fifo.round_s is given twice, as 60 and 30",
    );
    refused(
        &with(RUN, &["--policy", "fifo,fifo"]),
        "'fifo' is named twice",
    );
    refused(
        &with(RUN, &["--policy", "fifo,,tiresias"]),
        "entry 2 is empty",
    );
    refused(
        &with(RUN, &["--policy", "fifo", "--set", "zoo.sts_a100_speed=50"]),
        "zoo.sts_a100_speed=50: must be in [1, 20]",
    );
    refused(
        &with(
            RUN,
            &["--policy", "pcs", "--set", "pcs.config=/no/such/pick.json"],
        ),
        "/no/such/pick.json",
    );
    refused(
        &[
            "gen",
            "afs-synthetic",
            "--set",
            "load=0.9",
            "--set",
            "load=1.2",
        ],
        "--set load is given twice, as 0.9 and 1.2",
    );
    // The same value twice is one setting, not a conflict.
    let (code, err) = schedlab(&with(
        RUN,
        &[
            "--policy",
            "fifo",
            "--set",
            "fifo.round_s=60",
            "--set",
            "fifo.round_s=60",
        ],
    ));
    assert_eq!(code, 0, "{err}");
}

#[test]
fn validate_and_sweeps_check_their_lists_too() {
    refused(
        &["validate", "pollux", "--policies", "tiresias,tiresias"],
        "'tiresias' is named twice",
    );
    let dir = std::env::temp_dir().join(format!("schedlab-settings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("s.toml");
    std::fs::write(
        &spec,
        "policies = [\"tiresias\"]\ntraces = [\"afs-mini\"]\n[params.tiresias]\nt1 = [100, 9000]\nt2 = 5000\n",
    )
    .unwrap();
    let (code, err) = schedlab(&[
        "sweep",
        "plan",
        spec.to_str().unwrap(),
        "--out",
        dir.join("m").to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("t1 < t2 < t3 must increase") && err.contains("tiresias.t1=9000"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_list_of_names_refuses_empty_and_repeated_entries() {
    refused(
        &["bench", "engine", "--jobs", "10", "--policy", "fifo,fifo"],
        "--policy fifo,fifo: 'fifo' is named twice",
    );
    refused(
        &["bench", "engine", "--jobs", "10", "--policy", "fifo,nosuch"],
        "nosuch",
    );
    refused(
        &["bench", "--case", "sia-160,,gavel-160"],
        "--case sia-160,,gavel-160: entry 2 is empty",
    );
    refused(
        &["reproduce", "sia", "--sections", "hetero,hetero"],
        "--sections hetero,hetero: 'hetero' is named twice",
    );
    refused(
        &["reproduce", "copter", "--sections", "lp-star,,copter"],
        "--sections lp-star,,copter: entry 2 is empty",
    );
    refused(
        &["reproduce", "pcs", "--schemes", "FIFO,FIFO"],
        "--schemes FIFO,FIFO: 'FIFO' is named twice",
    );
    refused(
        &["reproduce", "anticipatory", "--variants", "a,a"],
        "--variants a,a: 'a' is named twice",
    );
    refused(
        &with(SEARCH, &["--objectives", "p1_jct,p01_jct"]),
        "'p01_jct' is named twice",
    );
}
