//! Sweeps (issue 22): the same sweep run in one process, and in three
//! shards with one killed halfway and resumed, gives the same merged table;
//! damaged result files are run again; a run over its timeout is recorded
//! as failed; two unsharded workers on one directory split the runs. (The third way, a Slurm job array, is scripts/test-slurm.sh.)

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_schedlab");
const SPEC: &str = "tests/data/sweep-small.toml";

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("schedlab-sweep-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn schedlab(args: &[&str]) -> String {
    let out = Command::new(BIN).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "schedlab {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn plan(dir: &Path) {
    schedlab(&["sweep", "plan", SPEC, "--out", dir.to_str().unwrap()]);
}

fn merged(dir: &Path) -> String {
    schedlab(&["sweep", "merge", dir.to_str().unwrap(), "--format", "csv"])
}

fn results(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir.join("results"))
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn one_process_and_three_shards_with_a_kill_give_the_same_table() {
    let one = tmp("one");
    plan(&one);
    schedlab(&[
        "sweep",
        "run",
        one.to_str().unwrap(),
        "--jobs",
        "2",
        "--quiet",
    ]);
    let reference = merged(&one);
    assert_eq!(reference.lines().count(), 13, "{reference}");
    assert!(
        reference.lines().skip(1).all(|l| l.contains(",ok,")),
        "{reference}"
    );

    let sharded = tmp("shards");
    plan(&sharded);
    let d = sharded.to_str().unwrap();
    schedlab(&[
        "sweep", "run", d, "--shard", "0/3", "--jobs", "1", "--quiet",
    ]);
    // Shard 1 is killed once its first result is on disk.
    let mut child = Command::new(BIN)
        .args([
            "sweep", "run", d, "--shard", "1/3", "--jobs", "1", "--quiet",
        ])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let before = results(&sharded).len();
    let start = Instant::now();
    while results(&sharded).len() == before && start.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let after_kill = results(&sharded).len() - before;
    assert!(
        after_kill >= 1,
        "shard 1 wrote nothing before it was killed"
    );
    assert!(
        after_kill < 4,
        "shard 1 finished all 4 runs before the kill: the test did not interrupt it"
    );
    let partial = merged(&sharded);
    assert!(partial.contains(",pending,"), "{partial}");
    // A crash can also leave a stray temporary file and, after a non-atomic
    // copy, a truncated result: both must be harmless.
    let victim = &results(&sharded)[0];
    let text = std::fs::read_to_string(victim).unwrap();
    std::fs::write(victim, &text[..text.len() / 2]).unwrap();
    std::fs::write(sharded.join("results").join("x.tmp.1.ThreadId(1)"), "{").unwrap();
    let status = schedlab(&["sweep", "status", d]);
    assert!(status.contains("damaged"), "{status}");
    schedlab(&[
        "sweep", "run", d, "--shard", "1/3", "--jobs", "1", "--quiet",
    ]);
    schedlab(&[
        "sweep", "run", d, "--shard", "2/3", "--jobs", "1", "--quiet",
    ]);
    // The truncated file belonged to shard 0 or 1; a last pass over all
    // shards re-runs it if shard 1's resume did not.
    schedlab(&["sweep", "run", d, "--jobs", "2", "--quiet"]);
    assert_eq!(merged(&sharded), reference);
    let status = schedlab(&["sweep", "status", d]);
    assert!(status.contains("12 done, 0 failed, 0 pending"), "{status}");
    for d in [one, sharded] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

/// The ids of the runs a worker's log says it simulated ("... : ok (0.2 s)").
fn runs_done(log: &str) -> Vec<String> {
    log.lines()
        .filter(|l| l.starts_with('[') && (l.contains(": ok (") || l.contains(": FAILED")))
        .filter_map(|l| l.split_whitespace().nth(1).map(str::to_string))
        .collect()
}

#[test]
fn two_unsharded_workers_on_one_directory_split_the_runs() {
    let one = tmp("single");
    plan(&one);
    schedlab(&[
        "sweep",
        "run",
        one.to_str().unwrap(),
        "--jobs",
        "1",
        "--quiet",
    ]);
    let reference = merged(&one);

    let pair = tmp("pair");
    plan(&pair);
    let d = pair.to_str().unwrap();
    let workers: Vec<_> = (0..2)
        .map(|_| {
            Command::new(BIN)
                .args(["sweep", "run", d, "--jobs", "1"])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let logs: Vec<String> = workers
        .into_iter()
        .map(|w| {
            let out = w.wait_with_output().unwrap();
            assert!(out.status.success());
            String::from_utf8(out.stderr).unwrap()
        })
        .collect();
    let (a, b) = (runs_done(&logs[0]), runs_done(&logs[1]));
    assert!(
        !a.is_empty() && !b.is_empty(),
        "one worker did every run:\n{}\n{}",
        logs[0],
        logs[1]
    );
    let mut all: Vec<String> = a.iter().chain(&b).cloned().collect();
    all.sort();
    let n = all.len();
    all.dedup();
    assert_eq!(
        n,
        all.len(),
        "a run was done twice:\n{}\n{}",
        logs[0],
        logs[1]
    );
    assert_eq!(n, 12, "{}\n{}", logs[0], logs[1]);
    assert_eq!(merged(&pair), reference);
    let left = std::fs::read_dir(pair.join("claims")).unwrap().count();
    assert_eq!(left, 0, "claims left behind");
    for d in [one, pair] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn a_run_over_its_timeout_is_recorded_as_failed_and_the_sweep_goes_on() {
    let dir = tmp("timeout");
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("spec.toml");
    std::fs::write(
        &spec,
        "policies = [\"tiresias\", \"fifo\"]\nclusters = [\"afs-64\"]\ntimeout_s = 0.001\n\
         [[generators]]\nname = \"afs-synthetic\"\njobs = 20000\nparams = { load = 1.3 }\n",
    )
    .unwrap();
    let d = dir.join("sweep");
    schedlab(&[
        "sweep",
        "plan",
        spec.to_str().unwrap(),
        "--out",
        d.to_str().unwrap(),
    ]);
    schedlab(&["sweep", "run", d.to_str().unwrap(), "--quiet"]);
    let table = merged(&d);
    let rows: Vec<&str> = table.lines().skip(1).collect();
    assert_eq!(rows.len(), 2);
    assert!(
        rows.iter()
            .all(|r| r.contains(",failed,timeout: still running after 0.001 s,")),
        "{table}"
    );
    let status = schedlab(&["sweep", "status", d.to_str().unwrap()]);
    assert!(status.contains("0 done, 2 failed"), "{status}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_specs_fail_at_plan_time_naming_the_line() {
    let dir = tmp("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("spec.toml");
    let cases = [
        (
            "policies = [\"fifo\",\n \"srtff\"]\ntraces = [\"afs-mini\"]\n",
            "line 2",
            "srtff",
        ),
        (
            "policies = [\"fifo\"]\ntraces = [\"afs-mini\"]\n[params.fifo]\nbackfil = true\n",
            "line 4",
            "backfil",
        ),
        (
            "policies = [\"fifo\"]\ntraces = [\"no-such-trace.csv\"]\n",
            "line 2",
            "no-such-trace.csv",
        ),
    ];
    for (text, line, word) in cases {
        std::fs::write(&spec, text).unwrap();
        let out = Command::new(BIN)
            .args([
                "sweep",
                "plan",
                spec.to_str().unwrap(),
                "--out",
                dir.join("s").to_str().unwrap(),
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("spec.toml") && err.contains(line) && err.contains(word),
            "{err}"
        );
        assert!(!dir.join("s").join("manifest.json").exists());
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn reproduce_afs_through_a_sweep_prints_the_same_report() {
    let dir = tmp("repro");
    let d = dir.to_str().unwrap();
    let args = [
        "reproduce",
        "afs",
        "--traces",
        "4,9",
        "--jobs",
        "100",
        "--quiet",
    ];
    let direct = schedlab(&args);
    let mut plan = args.to_vec();
    plan.extend(["--sweep", d]);
    schedlab(&plan);
    let pending = Command::new(BIN)
        .args(["reproduce", "afs", "--from", d])
        .output()
        .unwrap();
    assert_eq!(
        pending.status.code(),
        Some(2),
        "a report from a sweep that has not run must fail"
    );
    assert!(String::from_utf8_lossy(&pending.stderr).contains("no result yet"));
    schedlab(&["sweep", "run", d, "--quiet"]);
    assert_eq!(schedlab(&["reproduce", "afs", "--from", d]), direct);
    std::fs::remove_dir_all(dir).unwrap();
}
