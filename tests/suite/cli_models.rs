//! CLI contract of `models fit`, `validate pollux` and `run --profiles`.

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

#[test]
fn models_fit_prints_the_fitted_table() {
    let (code, out, err) = schedlab(&["models", "fit", "../shared/data/pollux/traces"]);
    assert_eq!(code, 0, "{err}");
    let header = out.lines().next().unwrap();
    for col in [
        "alpha_c", "beta_c", "alpha_n", "beta_n", "alpha_r", "beta_r", "gamma", "RMSLE", "med%",
        "p90%", "rows",
    ] {
        assert!(header.contains(col), "{col} in {header}");
    }
    for app in [
        "bert",
        "cifar10",
        "deepspeech2",
        "imagenet",
        "ncf",
        "yolov3",
    ] {
        assert!(
            out.lines()
                .any(|l| l.starts_with(app) && l.contains(" t4 ")),
            "{app}:\n{out}"
        );
    }
    // JSON carries the same fits.
    let (code, out, _) = schedlab(&[
        "models",
        "fit",
        "../shared/data/pollux/traces",
        "--apps",
        "bert",
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["name"], "bert");
    assert!(v[0]["types"][0]["fit"]["params"]["gamma"].as_f64().unwrap() >= 1.0);
}

#[test]
fn models_fit_errors_name_the_problem() {
    let (code, _, err) = schedlab(&["models", "fit", "/definitely/not/here"]);
    assert_eq!(code, 2);
    assert!(err.contains("does not exist"), "{err}");
    let dir = std::env::temp_dir().join(format!("schedlab-bad-profile-{}", std::process::id()));
    let app = dir.join("m");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(
        app.join("placements.csv"),
        "placement,local_bsz,step_time,sync_time\n4,32,0.1,0.01\n4,32,abc,0.01\n",
    )
    .unwrap();
    let (code, _, err) = schedlab(&["models", "fit", dir.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 2);
    assert!(
        err.contains("placements.csv") && err.contains("line 3") && err.contains("step_time"),
        "{err}"
    );
}

#[test]
fn validate_pollux_prints_the_table() {
    let (code, out, err) = schedlab(&[
        "validate",
        "pollux",
        "--workloads",
        "1,4",
        "--policies",
        "tiresias",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ratio") && out.contains("spearman"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("tiresias") && l.contains("workload-4")),
        "{out}"
    );
    let (code, _, err) = schedlab(&["validate", "pollux", "--policies", "sia"]);
    assert_eq!(
        code, 2,
        "a policy without published results is a usage error"
    );
    assert!(err.contains("'sia'"), "{err}");
}

#[test]
fn run_with_user_profiles_uses_them() {
    let base = [
        "run",
        "--trace",
        "../shared/data/pollux/workloads/workload-1.csv",
        "--cluster",
        "homog-64",
        "--policy",
        "tiresias",
        "--format",
        "json",
    ];
    let (code, a, err) = schedlab(&base);
    assert_eq!(code, 0, "{err}");
    let mut with = base.to_vec();
    with.extend(["--profiles", "../shared/data/pollux/traces"]);
    let (code, b, err) = schedlab(&with);
    assert_eq!(code, 0, "{err}");
    let jct = |s: &str| {
        let v: serde_json::Value = serde_json::from_str(s).unwrap();
        v["results"][0]["metrics"]["avg_jct_s"].as_f64().unwrap()
    };
    // A fresh fit of the same data equals the built-in tables to their 7 digits.
    assert!(
        (jct(&a) / jct(&b) - 1.0).abs() < 1e-3,
        "{} vs {}",
        jct(&a),
        jct(&b)
    );
    // A user's cifar10 profile that is twice as slow (no validation files:
    // the built-in efficiency curve is kept) makes the run slower.
    let dir = std::env::temp_dir().join(format!("schedlab-slow-cifar-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("cifar10")).unwrap();
    let text =
        std::fs::read_to_string("../shared/data/pollux/traces/cifar10/placements.csv").unwrap();
    let mut slow = String::from("placement,local_bsz,step_time,sync_time\n");
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let (st, sy): (f64, f64) = (f[2].parse().unwrap(), f[3].parse().unwrap());
        slow.push_str(&format!("{},{},{},{}\n", f[0], f[1], 2.0 * st, 2.0 * sy));
    }
    std::fs::write(dir.join("cifar10").join("placements.csv"), slow).unwrap();
    let mut with = base.to_vec();
    let d = dir.to_str().unwrap().to_string();
    with.extend(["--profiles", &d]);
    let (code, c, err) = schedlab(&with);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 0, "{err}");
    assert!(jct(&c) > 1.2 * jct(&a), "{} vs {}", jct(&c), jct(&a));
    let (code, _, err) = schedlab(&["run", "--trace", "afs-mini", "--zoo", "nope"]);
    assert_eq!(code, 2, "{err}");
}
