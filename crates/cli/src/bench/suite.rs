//! `schedlab bench` (no case named, or `--case A,B`): the yardstick of
//! whole-run speed (issue 20). Each named case runs one policy on one
//! workload and prints wall time, policy calls, the time split into policy
//! (its own work), estimator (goodput refits, inside the policy), engine
//! and output (metrics and JSON), peak memory, and a digest of the results
//! without timings, so a faster build can show that it computes the same.
//! `--json OUT` saves the table; `--compare REF.json` prints each case's
//! speed-up over a saved run (measure both in one sitting: these machines
//! are noisy).

use schedlab_core::error::{Error, Result};
use schedlab_model::cluster::{parse_cluster, Cluster};
use schedlab_model::perf::goodput::fit_seconds;
use schedlab_model::perf::ModelZoo;
use schedlab_model::workload::gen::generate;
use schedlab_model::workload::Trace;
use schedlab_run::report::{finish_policy, prepare_policy, Overrides, RunSettings};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// What one case runs.
struct Setup {
    trace: Trace,
    cluster: Cluster,
    policy: &'static str,
    overrides: Overrides,
}

/// A named benchmark case.
struct Case {
    name: &'static str,
    about: &'static str,
    setup: fn(u64) -> Result<Option<Setup>>,
}

/// Where the Pollux artifact's workloads are looked for.
const POLLUX_WORKLOAD: &str = "../shared/data/pollux/workloads/workload-3.csv";

fn engine(pairs: &[(&str, &str)]) -> Overrides {
    let mut o = Overrides::new();
    o.insert(
        "engine".into(),
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    );
    o
}

/// An STS workload of 10 jobs per node on `sts-N` under STS.
fn sts_case(nodes: u32, arrivals: &str, seed: u64, eng: &[(&str, &str)]) -> Result<Option<Setup>> {
    let set = vec![
        ("nodes".to_string(), nodes.to_string()),
        ("arrivals".to_string(), arrivals.to_string()),
    ];
    Ok(Some(Setup {
        trace: generate("sts", None, seed, &set)?,
        cluster: parse_cluster(&format!("sts-{nodes}"))?,
        policy: "sts",
        overrides: engine(eng),
    }))
}

/// The 160-job Sia-format workload on `sia-hetero-64` under the Sia
/// simulator's calibration, as a new user tries Sia, Pollux or Gavel.
fn sia_workload(policy: &'static str, seed: u64) -> Result<Option<Setup>> {
    Ok(Some(Setup {
        trace: generate("sia-philly", None, seed, &[("tj".into(), "hetero".into())])?,
        cluster: parse_cluster("sia-hetero-64")?,
        policy,
        overrides: engine(&[("calibration", "sia")]),
    }))
}

/// `afs-synthetic` at offered load 0.9 on `bench-1024`.
fn synthetic(
    policy: &'static str,
    jobs: usize,
    seed: u64,
    set: &[(&str, &str)],
) -> Result<Option<Setup>> {
    synthetic_on("bench-1024", policy, jobs, seed, set)
}

/// `afs-synthetic` at offered load 0.9 on `cluster`.
fn synthetic_on(
    cluster: &str,
    policy: &'static str,
    jobs: usize,
    seed: u64,
    set: &[(&str, &str)],
) -> Result<Option<Setup>> {
    let cluster = parse_cluster(cluster)?;
    let gen = vec![
        ("gpus".to_string(), cluster.total_gpus.to_string()),
        ("load".to_string(), "0.9".to_string()),
    ];
    Ok(Some(Setup {
        trace: generate("afs-synthetic", Some(jobs), seed, &gen)?,
        cluster,
        policy,
        overrides: engine(set),
    }))
}

/// PCS with predictions at every arrival on 2,000 `pcs-themis1` apps (64
/// GPUs): the "one simulation with predictions" target. The WFQ
/// configuration is the artifact's themis1 PCS-bal pick (spec §2.5 table).
fn pcs_themis1(seed: u64) -> Result<Option<Setup>> {
    let mut overrides = engine(&[("predict", "true"), ("placement", "any")]);
    overrides.insert(
        "pcs".into(),
        [
            ("thresholds", "434280"),
            ("weights", "0.735,0.265"),
            ("clip", "0.978"),
            ("delta", "0.341"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect(),
    );
    Ok(Some(Setup {
        trace: generate("pcs-themis1", Some(2000), seed, &[])?,
        cluster: parse_cluster("pcs-64")?,
        policy: "pcs",
        overrides,
    }))
}

/// COpter's scale (issue 16): Sia with the continual solver on
/// `copter-256x40` (10,240 GPUs of 7 types), the first two hours of a day of
/// `copter-pai` at 4 jobs per GPU per day.
fn copter_10k(seed: u64) -> Result<Option<Setup>> {
    let mut overrides = engine(&[("max_days", "0.0833333333")]);
    overrides.insert(
        "sia".into(),
        vec![("solver".to_string(), "copter".to_string())],
    );
    Ok(Some(Setup {
        trace: generate("copter-pai", Some(4 * 10_240), seed, &[])?,
        cluster: parse_cluster("copter-256x40")?,
        policy: "sia",
        overrides,
    }))
}

const CASES: &[Case] = &[
    Case {
        name: "sia-160",
        about: "Sia, 160-job sia-philly, sia-hetero-64, engine.calibration=sia",
        setup: |seed| sia_workload("sia", seed),
    },
    Case {
        name: "pollux-160",
        about: "Pollux on the same workload",
        setup: |seed| sia_workload("pollux", seed),
    },
    Case {
        name: "gavel-160",
        about: "Gavel on the same workload",
        setup: |seed| sia_workload("gavel", seed),
    },
    Case {
        name: "afs-l-50k",
        about: "AFS-L, 50,000 afs-synthetic jobs (load 0.9), 1,024 GPUs, placement=any, no timeline",
        setup: |seed| synthetic("afs-l", 50_000, seed, &[("placement", "any"), ("timeline", "false")]),
    },
    Case {
        name: "fifo-100k",
        about: "FIFO, 100,000 afs-synthetic jobs (load 0.9), 1,024 GPUs, no timeline: the engine's own speed",
        setup: |seed| synthetic("fifo", 100_000, seed, &[("timeline", "false")]),
    },
    Case {
        name: "tiresias-200k",
        about: "Tiresias, 200,000 afs-synthetic jobs (load 0.9) on afs-64, no timeline: a queue of thousands walked at every call (issue 47)",
        setup: |seed| synthetic_on("afs-64", "tiresias", 200_000, seed, &[("timeline", "false")]),
    },
    Case {
        name: "tiresias-pollux",
        about: "Tiresias on the Pollux artifact's workload-3.csv, homog-64 (skipped without ../shared/data)",
        setup: |_| {
            if !std::path::Path::new(POLLUX_WORKLOAD).is_file() {
                return Ok(None);
            }
            let text = schedlab_core::textio::read_text(POLLUX_WORKLOAD)?;
            Ok(Some(Setup {
                trace: Trace::parse(POLLUX_WORKLOAD, &text, None)?,
                cluster: parse_cluster("homog-64")?,
                policy: "tiresias",
                overrides: Overrides::new(),
            }))
        },
    },
    Case {
        name: "pcs-2000",
        about: "PCS (themis1 bal pick) with predictions at every arrival, 2,000 pcs-themis1 apps, pcs-64, placement=any",
        setup: pcs_themis1,
    },
    Case {
        name: "sts-100",
        about: "STS, 1,000 jobs of `gen sts` with high arrivals on sts-100 (100 nodes, 800 GPUs): the median call is the issue's 50 ms target",
        setup: |seed| sts_case(100, "high", seed, &[]),
    },
    Case {
        name: "sts-1000",
        about: "STS, 10,000 jobs of `gen sts` with exponential arrivals on sts-1000 (8,000 GPUs), no timeline: a 1,000-node run completes",
        setup: |seed| sts_case(1000, "exponential", seed, &[("timeline", "false")]),
    },
    Case {
        name: "anticipatory-helios",
        about: "A-SIA (noisy predictors at Table 20's precision / recall) on the six-month Helios-like workload: 15 pools, 1,080 fungible GPUs, about 250k jobs, no timeline (the issue's 30 s target)",
        setup: |seed| {
            let trace = generate("anticipatory-helios", None, seed, &[])?;
            let mut overrides = engine(&[("placement", "any"), ("timeline", "false")]);
            overrides.insert(
                "anticipatory".into(),
                [("predict", "noisy"), ("precision", "0.34,0.62,0.84"), ("recall", "0.87,0.79,0.89"), ("bin_error", "0")]
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            );
            Ok(Some(Setup {
                cluster: schedlab_run::report::cluster_for("v100:135x8", &trace, None)?,
                trace,
                policy: "anticipatory",
                overrides,
            }))
        },
    },
    Case {
        name: "sia-2048",
        about: "Sia at 2,048 GPUs: sia-helios jobs replicated 32 times, 4 simulated hours (Sia Fig 3.10's scale run)",
        setup: |seed| {
            let set = vec![
                ("tj".to_string(), "hetero".to_string()),
                ("replicate".to_string(), "32".to_string()),
            ];
            Ok(Some(Setup {
                trace: generate("sia-helios", Some(160 * 32), seed, &set)?,
                cluster: schedlab_lab::repro::sia::scaled_cluster(2048)?,
                policy: "sia",
                overrides: engine(&[("calibration", "sia"), ("max_days", "0.1666666667")]),
            }))
        },
    },
    Case {
        name: "fifo-10k",
        about: "FIFO, 10,000 afs-synthetic jobs (load 0.9), 1,024 GPUs, no timeline: small enough for callgrind",
        setup: |seed| synthetic("fifo", 10_000, seed, &[("timeline", "false")]),
    },
    Case {
        name: "srtf-10k",
        about: "SRTF, 10,000 afs-synthetic jobs (load 0.9), 1,024 GPUs, no timeline: small enough for callgrind",
        setup: |seed| synthetic("srtf", 10_000, seed, &[("timeline", "false")]),
    },
    Case {
        name: "srtf-3k",
        about: "SRTF, 3,000 afs-synthetic jobs (load 0.9), 1,024 GPUs, no timeline: srtf-10k's workload at a size callgrind measures in minutes",
        setup: |seed| synthetic("srtf", 3_000, seed, &[("timeline", "false")]),
    },
    Case {
        name: "afs-l-5k",
        about: "AFS-L, 5,000 afs-synthetic jobs (load 0.9), 1,024 GPUs, placement=any, no timeline: small enough for callgrind",
        setup: |seed| synthetic("afs-l", 5_000, seed, &[("placement", "any"), ("timeline", "false")]),
    },
    Case {
        name: "copter-10k",
        about: "Sia with sia.solver=copter at 10,240 GPUs (copter-256x40), the first 2 hours of a day of copter-pai (40,960 jobs): issue 16's scale",
        setup: copter_10k,
    },
];

/// One case's measurements.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CaseResult {
    pub case: String,
    pub jobs: usize,
    pub gpus: u32,
    pub wall_s: f64,
    pub calls: u64,
    /// Median policy call (None when the case records no per-call times:
    /// cases run without a timeline).
    pub median_call_ms: Option<f64>,
    /// The policy's own time (its estimator refits excluded).
    pub policy_s: f64,
    pub estimator_s: f64,
    pub engine_s: f64,
    pub output_s: f64,
    /// Peak resident memory of the case's process (None where unknown).
    pub peak_mb: Option<f64>,
    /// SHA-256 of the results without timings (first 16 hex digits).
    pub digest: String,
    /// With `--reasons`: what the run kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasons: Option<ReasonsKept>,
}

/// The reasons a case kept (`bench --reasons`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReasonsKept {
    pub records: usize,
    /// When the log reached its bound, if it did.
    pub capped_at: Option<f64>,
}

/// Resets the kernel's peak-RSS mark (Linux); false where unsupported.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Peak resident memory since the last reset, MB (Linux; None elsewhere).
fn peak_mb() -> Option<f64> {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map(|kb| kb / 1024.0)
}

fn run_case(case: &Case, s: Setup, seed: u64, reasons: bool) -> Result<CaseResult> {
    let cluster = Arc::new(s.cluster);
    let zoo = Arc::new(ModelZoo::builtin());
    let peak_ok = reset_peak();
    let fit0 = fit_seconds();
    let started = std::time::Instant::now();
    let settings = RunSettings::from_overrides(&s.overrides, &[s.policy.to_string()])?;
    let (mut sim, params) = prepare_policy(&s.trace, &cluster, &zoo, s.policy, &settings, seed)?;
    sim.set_record_reasons(reasons, None);
    let outcome = sim.run(&mut |_| true)?;
    let capped = outcome.reasons.capped_at;
    let run_s = started.elapsed().as_secs_f64();
    let (calls, policy_total) = sim.policy_time();
    let estimator_s = fit_seconds() - fit0;
    let mut call_ms: Vec<f64> = outcome.rounds.iter().map(|r| r.policy_s * 1e3).collect();
    call_ms.sort_by(f64::total_cmp);
    let t_out = std::time::Instant::now();
    let outcome_reasons = outcome.reasons.records.len();
    let mut run = finish_policy(s.policy, params, outcome, &s.trace, &cluster, &zoo, run_s);
    let json = serde_json::to_string(&run).map_err(|e| Error::Internal(e.to_string()))?;
    let output_s = t_out.elapsed().as_secs_f64();
    run.wall_s = 0.0;
    let stable = serde_json::to_string(&run).map_err(|e| Error::Internal(e.to_string()))?;
    drop(json);
    let digest: String = Sha256::digest(stable.as_bytes())
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok(CaseResult {
        case: case.name.to_string(),
        jobs: s.trace.jobs.len(),
        gpus: cluster.total_gpus,
        wall_s: run_s + output_s,
        calls,
        median_call_ms: call_ms.get(call_ms.len() / 2).copied(),
        policy_s: policy_total - estimator_s,
        estimator_s,
        engine_s: run_s - policy_total,
        output_s,
        peak_mb: if peak_ok { peak_mb() } else { None },
        digest,
        reasons: reasons.then_some(ReasonsKept {
            records: outcome_reasons,
            capped_at: capped,
        }),
    })
}

/// Set in a case's own process: run the one case and print its JSON.
const CHILD: &str = "SCHEDLAB_BENCH_CHILD";

/// Runs one case in a fresh process of this binary, so that its peak
/// memory and its allocator state are its own.
fn run_in_child(case: &Case, seed: u64, reasons: bool) -> Result<Option<CaseResult>> {
    let exe = std::env::current_exe().map_err(|e| Error::Internal(format!("bench: {e}")))?;
    let mut args = vec!["bench", "--case", case.name];
    if reasons {
        args.push("--reasons");
    }
    let out = std::process::Command::new(exe)
        .args(args)
        .args(["--seed", &seed.to_string()])
        .env(CHILD, "1")
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| Error::Internal(format!("bench: cannot start the case's process: {e}")))?;
    if !out.status.success() {
        return Err(Error::Internal(format!(
            "bench {}: the case's process failed",
            case.name
        )));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().unwrap_or("").trim();
    if line == "skipped" {
        return Ok(None);
    }
    serde_json::from_str(line)
        .map(Some)
        .map_err(|e| Error::Internal(format!("bench {}: unreadable result: {e}", case.name)))
}

/// Runs the named cases (all when `names` is empty), each in its own
/// process, and prints the table.
pub fn suite(
    names: &[String],
    seed: u64,
    reasons: bool,
    json: Option<&str>,
    compare: Option<&str>,
) -> Result<()> {
    for n in names {
        if !CASES.iter().any(|c| c.name == n) {
            return Err(Error::config(format!(
                "bench: unknown case '{n}'; cases: {}",
                CASES.iter().map(|c| c.name).collect::<Vec<_>>().join(", ")
            )));
        }
    }
    let reference: Vec<CaseResult> = match compare {
        Some(path) => serde_json::from_str(&schedlab_core::textio::read_text(path)?)
            .map_err(|e| Error::input(path, e.line(), "", format!("not a bench JSON file: {e}")))?,
        None => Vec::new(),
    };
    let mut results = Vec::new();
    let mut rows = vec![header(!reference.is_empty())];
    let child = std::env::var_os(CHILD).is_some();
    for case in CASES
        .iter()
        .filter(|c| names.is_empty() || names.iter().any(|n| n == c.name))
    {
        if child {
            let line = match (case.setup)(seed)? {
                Some(setup) => serde_json::to_string(&run_case(case, setup, seed, reasons)?)
                    .map_err(|e| Error::Internal(e.to_string()))?,
                None => "skipped".to_string(),
            };
            println!("{line}");
            return Ok(());
        }
        eprintln!("bench {}: {}", case.name, case.about);
        let Some(r) = run_in_child(case, seed, reasons)? else {
            eprintln!("  skipped: {POLLUX_WORKLOAD} is absent");
            continue;
        };
        if let Some(k) = &r.reasons {
            eprintln!(
                "  reasons kept: {} records{}",
                k.records,
                k.capped_at
                    .map_or(String::new(), |t| format!(", log full at t = {t:.0} s"))
            );
        }
        rows.push(row(&r, reference.iter().find(|x| x.case == r.case)));
        results.push(r);
    }
    print!("{}", schedlab_run::report::text_table(&rows));
    if let Some(path) = json {
        let text =
            serde_json::to_string_pretty(&results).map_err(|e| Error::Internal(e.to_string()))?;
        crate::write_out(Some(path), &(text + "\n"))?;
    }
    Ok(())
}

fn header(compare: bool) -> Vec<String> {
    let mut h: Vec<String> = [
        "case",
        "jobs",
        "GPUs",
        "wall s",
        "calls",
        "median call ms",
        "policy s",
        "estimator s",
        "engine s",
        "output s",
        "peak MB",
        "results",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if compare {
        h.push("speed-up".into());
        h.push("same results".into());
    }
    h
}

fn row(r: &CaseResult, reference: Option<&CaseResult>) -> Vec<String> {
    let mut v = vec![
        r.case.clone(),
        r.jobs.to_string(),
        r.gpus.to_string(),
        format!("{:.3}", r.wall_s),
        r.calls.to_string(),
        r.median_call_ms.map_or("-".into(), |m| format!("{m:.3}")),
        format!("{:.3}", r.policy_s),
        format!("{:.3}", r.estimator_s),
        format!("{:.3}", r.engine_s),
        format!("{:.3}", r.output_s),
        r.peak_mb.map_or("-".into(), |m| format!("{m:.0}")),
        r.digest.clone(),
    ];
    if let Some(x) = reference {
        v.push(format!("{:.2}x", x.wall_s / r.wall_s));
        v.push(if x.digest == r.digest { "yes" } else { "NO" }.into());
    }
    v
}
