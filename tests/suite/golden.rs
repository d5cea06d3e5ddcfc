//! Golden results: small runs of every policy family through the CLI, whose
//! summary metrics and per-job results must not move unless a change means them
//! to. The expected values live in `tests/data/golden/<case>.json`; a deliberate
//! change rewrites them with `SCHEDLAB_BLESS=1 cargo test golden`, and the diff
//! shows exactly which numbers moved (list those in the commit message).
//! `SCHEDLAB_GOLDEN_BIN=path` runs another build of the CLI (for example the
//! previous commit's, to bless from it).

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::path::PathBuf;
use std::process::Command;

/// (case name, `schedlab run` arguments after `--format json`).
const CASES: &[(&str, &[&str])] = &[
    (
        "afs-mini-elastic",
        &[
            "--trace",
            "afs-mini",
            "--cluster",
            "afs-64",
            "--policy",
            "fifo,srtf,srsf,tiresias,maxmin,afs-l,afs-p,afs-s,optimus,themis,srtf-e,srsf-e",
        ],
    ),
    (
        "afs-mini-predict",
        &[
            "--trace",
            "afs-mini",
            "--cluster",
            "afs-64",
            "--policy",
            "fifo,tiresias,afs-l,pool-fcfs,pcs,themis-pcs",
            "--seed",
            "3",
            "--set",
            "engine.predict=true",
            "--set",
            "engine.predict_max=120",
        ],
    ),
    (
        "sia-philly-hetero",
        &[
            "--trace",
            "sia-philly",
            "--cluster",
            "sia-hetero-64",
            "--policy",
            "sia,gavel,pollux",
            "--set",
            "pollux.generations=10",
        ],
    ),
    (
        "sia-philly-lp-star",
        &[
            "--trace",
            "sia-philly",
            "--cluster",
            "sia-hetero-64",
            "--policy",
            "sia",
            "--seed",
            "3",
            "--set",
            "sia.solver=lp-star",
        ],
    ),
    (
        "sia-philly-copter",
        &[
            "--trace",
            "sia-philly",
            "--cluster",
            "sia-hetero-64",
            "--policy",
            "sia",
            "--seed",
            "3",
            "--set",
            "sia.solver=copter",
        ],
    ),
    (
        "sia-philly-pop",
        &[
            "--trace",
            "sia-philly",
            "--cluster",
            "sia-hetero-64",
            "--policy",
            "sia",
            "--seed",
            "3",
            "--set",
            "sia.solver=pop",
        ],
    ),
    (
        "sia-philly-rigid",
        &[
            "--trace",
            "sia-philly-homog",
            "--cluster",
            "homog-64",
            "--policy",
            "shockwave,gavel-ftf",
        ],
    ),
    (
        "sts-mixed",
        &[
            "--trace",
            "sts-mixed-10",
            "--cluster",
            "sts-10",
            "--policy",
            "sts,edf,avg-edf,rg,avg-rg,dp,avg-dp",
            "--seed",
            "5",
        ],
    ),
    (
        "pcs-themis1",
        &[
            "--trace",
            "pcs-themis1",
            "--cluster",
            "pcs-64",
            "--policy",
            "pcs,maxmin",
            "--seed",
            "3",
            "--set",
            "maxmin.fluid=true",
        ],
    ),
    (
        "anticipatory",
        &[
            "--trace",
            "anticipatory-synthetic",
            "--cluster",
            "pools-32",
            "--policy",
            "pool-fcfs,pool-maxmin,pool-ssf,gssf,anticipatory,anticipatory-vc,hived-rtc,themis-rtc",
        ],
    ),
    (
        "anticipatory-oracle",
        &[
            "--trace",
            "anticipatory-fig1",
            "--cluster",
            "pools-8",
            "--policy",
            "anticipatory-oracle",
            "--set",
            "anticipatory-oracle.slot_s=600",
        ],
    ),
];

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden")
}

/// What a case pins per policy: every summary metric, and a digest of the per-job results.
fn pinned(args: &[&str]) -> Value {
    let bin = std::env::var("SCHEDLAB_GOLDEN_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_schedlab").to_string());
    let out = Command::new(&bin)
        .arg("run")
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "schedlab run {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut by_policy = Map::new();
    for r in report["results"].as_array().unwrap() {
        let jobs = serde_json::to_string(&r["jobs"]).unwrap();
        let digest: String = Sha256::digest(jobs.as_bytes())
            .iter()
            .take(12)
            .map(|b| format!("{b:02x}"))
            .collect();
        let label = r["policy"].as_str().unwrap().to_string();
        by_policy.insert(
            label,
            json!({ "metrics": r["metrics"], "jobs_sha256": digest }),
        );
    }
    Value::Object(by_policy)
}

/// The differences between two pinned results, one line each.
fn differences(want: &Value, got: &Value) -> Vec<String> {
    let mut lines = vec![];
    let (Some(w), Some(g)) = (want.as_object(), got.as_object()) else {
        return vec![format!("expected {want}, got {got}")];
    };
    for (policy, wv) in w {
        let Some(gv) = g.get(policy) else {
            lines.push(format!("{policy}: missing"));
            continue;
        };
        if wv["jobs_sha256"] != gv["jobs_sha256"] {
            lines.push(format!("{policy}: per-job results differ"));
        }
        let empty = Map::new();
        let wm = wv["metrics"].as_object().unwrap_or(&empty);
        let gm = gv["metrics"].as_object().unwrap_or(&empty);
        for key in wm.keys().chain(gm.keys().filter(|k| !wm.contains_key(*k))) {
            if wm.get(key) != gm.get(key) {
                lines.push(format!(
                    "{policy}.{key}: {} -> {}",
                    wm.get(key).unwrap_or(&Value::Null),
                    gm.get(key).unwrap_or(&Value::Null)
                ));
            }
        }
    }
    for policy in g.keys().filter(|p| !w.contains_key(*p)) {
        lines.push(format!("{policy}: new"));
    }
    lines
}

#[test]
fn results_match_the_golden_files() {
    let bless = std::env::var("SCHEDLAB_BLESS").is_ok_and(|v| v == "1");
    let mut failures = vec![];
    for (name, args) in CASES {
        let got = pinned(args);
        let path = golden_dir().join(format!("{name}.json"));
        if bless {
            std::fs::create_dir_all(golden_dir()).unwrap();
            let text = serde_json::to_string_pretty(&got).unwrap() + "\n";
            std::fs::write(&path, text).unwrap();
            continue;
        }
        let want: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| {
                panic!("{}: {e} (bless with SCHEDLAB_BLESS=1)", path.display())
            }))
            .unwrap();
        for line in differences(&want, &got) {
            failures.push(format!("{name}: {line}"));
        }
    }
    assert!(
        failures.is_empty(),
        "results moved (if meant, bless with SCHEDLAB_BLESS=1 and list them in the commit):\n{}",
        failures.join("\n")
    );
}

#[test]
fn a_moved_number_is_reported() {
    let want = json!({ "fifo": { "metrics": { "avg_jct_s": 1.0 }, "jobs_sha256": "a" } });
    let got = json!({ "fifo": { "metrics": { "avg_jct_s": 2.0 }, "jobs_sha256": "b" } });
    let lines = differences(&want, &got);
    assert_eq!(
        lines,
        vec!["fifo: per-job results differ", "fifo.avg_jct_s: 1.0 -> 2.0"]
    );
}
