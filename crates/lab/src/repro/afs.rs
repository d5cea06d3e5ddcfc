//! Reproduction of AFS (Hwang et al., NSDI'21) §5.2 in simulation (spec
//! seed003 §6): every policy of both categories on 11 Philly-like traces on
//! the 64-GPU cluster, average and 99th-percentile JCT, the reduction rates
//! AFS-L/SRTF, AFS-P/Tiresias-L and AFS-P/Themis beside the paper's ranges,
//! the max-GPU blowups (Fig 6), and the qualitative orderings of §6.8.
//!
//! Setting (the paper's simulator, spec §7): `afs-64` (16 x 4 identical
//! GPUs), count-based placement (`engine.placement=any`: every GPU has the
//! same latency), free share changes (the AFS models have no restart
//! delay), perfect throughput knowledge, the synthetic BSP curves of spec
//! §2.7 (the paper's measured curves are unpublished).
//!
//! The traces are either the Philly virtual clusters themselves, cut from a
//! Philly job list the user gives (the Pollux authors' `philly.csv`, VC id =
//! tenant; spec §4.3's job rules applied at import), or synthetic stand-ins
//! from the generator named by [`AFS_TRACE_GENERATOR`] with the per-trace
//! parameters of [`trace_params`]. The models' curves are the zoo's synthetic
//! BSP curves unless the AFS authors' measured tables are loaded
//! ([`schedlab_model::perf::ModelZoo::add_afs_tables`]).

use super::claims::Claim;
use super::table;
use schedlab_core::error::{Error, Result};
use schedlab_metrics::{blowup, reduction, time_series, Summary};
use schedlab_model::cluster::{parse_cluster, Cluster};
use schedlab_model::perf::ModelZoo;
use schedlab_model::workload::gen::generate;
use schedlab_model::workload::Trace;
use schedlab_run::report::{run_policy, RunSettings};
use serde::Serialize;
use std::sync::Arc;

/// The generator that makes the 11 traces.
pub const AFS_TRACE_GENERATOR: &str = "afs-synthetic";

/// Table 3 of the paper: (trace id, VC id, jobs in the Philly trace).
pub const TABLE3: &[(u32, &str, usize)] = &[
    (1, "0e4a51", 2465),
    (2, "6c71a0", 14791),
    (3, "b436b2", 9033),
    (4, "e13805", 938),
    (5, "6214e9", 51288),
    (6, "7f04ca", 1461),
    (7, "103959", 2677),
    (8, "ee9e8c", 5781),
    (9, "2869ce", 956),
    (10, "11cb48", 19070),
    (11, "ed69ec", 1401),
];

/// Traces §5.2 describes as launching "many jobs in a short interval while
/// many of them run longer": heavy contention.
pub const HEAVY: &[u32] = &[1, 2, 3, 5, 6, 8];

/// Generator parameters for trace `id` (stand-in for the Philly VCs until
/// the Philly-like generator lands). Chosen from the paper's description,
/// not fitted to its results: the heavy traces get an offered load above
/// the 64 GPUs, longer jobs and bursts; the others a moderate load.
pub fn trace_params(id: u32) -> Vec<(String, String)> {
    // (load, median minutes, bursts)
    let (load, median, bursts) = match id {
        1 => (1.6, 40, 5),
        2 => (2.0, 30, 10),
        3 => (2.5, 40, 10),
        4 => (0.7, 20, 0),
        5 => (1.8, 20, 20),
        6 => (1.5, 40, 5),
        7 => (0.6, 15, 0),
        8 => (1.4, 30, 5),
        9 => (0.8, 20, 0),
        10 => (1.0, 20, 5),
        _ => (0.9, 25, 0),
    };
    vec![
        ("gpus".into(), "64".into()),
        ("load".into(), load.to_string()),
        ("median_min".into(), median.to_string()),
        ("bursts".into(), bursts.to_string()),
    ]
}

/// One run in the comparison: a label, the policy and its overrides.
pub struct Variant {
    pub label: &'static str,
    pub policy: &'static str,
    pub set: &'static [(&'static str, &'static str)],
}

/// Every policy of the comparison (spec §3): length-aware, length-unaware,
/// AFS-S, the altruistic and the max-GPU variants.
pub const VARIANTS: &[Variant] = &[
    Variant {
        label: "srtf",
        policy: "srtf",
        set: &[],
    },
    Variant {
        label: "srsf",
        policy: "srsf",
        set: &[],
    },
    Variant {
        label: "optimus",
        policy: "optimus",
        set: &[],
    },
    Variant {
        label: "afs-l",
        policy: "afs-l",
        set: &[],
    },
    Variant {
        label: "tiresias",
        policy: "tiresias",
        set: &[],
    },
    Variant {
        label: "maxmin",
        policy: "maxmin",
        set: &[],
    },
    Variant {
        label: "themis",
        policy: "themis",
        set: &[],
    },
    Variant {
        label: "afs-p",
        policy: "afs-p",
        set: &[],
    },
    Variant {
        label: "afs-s",
        policy: "afs-s",
        set: &[],
    },
    Variant {
        label: "srtf-e",
        policy: "srtf-e",
        set: &[],
    },
    Variant {
        label: "srsf-e",
        policy: "srsf-e",
        set: &[],
    },
    Variant {
        label: "srtf@peak",
        policy: "srtf",
        set: &[("request", "peak")],
    },
    Variant {
        label: "srsf@peak",
        policy: "srsf",
        set: &[("request", "peak")],
    },
    Variant {
        label: "tiresias@peak",
        policy: "tiresias",
        set: &[("request", "peak")],
    },
];

/// Paper ranges of the average-JCT reduction rates (§1, §5.2).
pub const RANGES: &[(&str, &str, &str, f64, f64)] = &[
    ("AFS-L/SRTF", "srtf", "afs-l", 1.2, 2.7),
    ("AFS-P/Tiresias-L", "tiresias", "afs-p", 1.9, 3.1),
    ("AFS-P/Themis", "themis", "afs-p", 1.2, 2.2),
];

/// One policy's numbers on one trace.
#[derive(Debug, Clone, Serialize)]
pub struct RunRow {
    pub label: String,
    pub completed: usize,
    pub avg_jct_s: f64,
    pub p99_jct_s: f64,
    /// Time-averaged queue length (QL) and cluster efficiency (CE).
    pub mean_ql: f64,
    pub mean_ce: f64,
    pub wall_s: f64,
    #[serde(skip)]
    pub summary: Option<Summary>,
}

/// One trace's results.
#[derive(Debug, Clone, Serialize)]
pub struct TraceRow {
    pub id: u32,
    pub vc: String,
    pub jobs: usize,
    /// Jobs of this VC in the paper's Table 3.
    pub table3_jobs: usize,
    pub heavy: bool,
    pub params: Vec<(String, String)>,
    pub runs: Vec<RunRow>,
}

impl TraceRow {
    pub fn run(&self, label: &str) -> Option<&RunRow> {
        self.runs.iter().find(|r| r.label == label)
    }

    fn avg(&self, label: &str) -> f64 {
        self.run(label).map_or(f64::NAN, |r| r.avg_jct_s)
    }

    /// avgJCT(base) / avgJCT(alg).
    pub fn rate(&self, base: &str, alg: &str) -> f64 {
        match (
            self.run(base).and_then(|r| r.summary.as_ref()),
            self.run(alg).and_then(|r| r.summary.as_ref()),
        ) {
            (Some(b), Some(a)) => reduction(b, a),
            _ => self.avg(base) / self.avg(alg),
        }
    }

    /// avgJCT(variant) / avgJCT(original).
    pub fn blowup(&self, variant: &str, original: &str) -> f64 {
        match (
            self.run(variant).and_then(|r| r.summary.as_ref()),
            self.run(original).and_then(|r| r.summary.as_ref()),
        ) {
            (Some(v), Some(o)) => blowup(v, o),
            _ => self.avg(variant) / self.avg(original),
        }
    }
}

/// The whole reproduction.
#[derive(Debug, Clone, Serialize)]
pub struct AfsReport {
    /// Where the traces came from (a generator, or `philly-csv FILE`).
    pub generator: String,
    /// The models' speedup curves (synthetic BSP, or the measured tables' file).
    pub models: String,
    pub cluster: String,
    pub seed: u64,
    pub max_jobs: usize,
    pub traces: Vec<TraceRow>,
}

/// A Philly job list already parsed (every VC; tenant = VC id).
pub struct PhillyJobs {
    pub file: String,
    pub trace: Trace,
}

/// Options of a reproduction run.
pub struct Options {
    /// Jobs per trace: min(the Philly trace's count, this); with a Philly job
    /// list, the VC's first jobs by submission.
    pub max_jobs: usize,
    /// The Philly VCs to cut the traces from (None: synthetic stand-ins).
    pub philly: Option<PhillyJobs>,
    /// The AFS authors' measured speedup tables as (file, text) (None: the
    /// zoo's synthetic BSP curves).
    pub afs_tables: Option<(String, String)>,
    /// Trace ids to run (empty: all 11).
    pub traces: Vec<u32>,
    pub seed: u64,
    /// The user's settings (engine or policy parameters), checked.
    pub settings: RunSettings,
}

/// The generator seed of synthetic trace `id` under run seed `seed`.
pub fn trace_seed(seed: u64, id: u32) -> u64 {
    seed.wrapping_mul(100).wrapping_add(id as u64)
}

/// Builds trace `id` with at most `max_jobs` jobs.
pub fn build_trace(id: u32, max_jobs: usize, seed: u64) -> Result<Trace> {
    let jobs = TABLE3
        .iter()
        .find(|t| t.0 == id)
        .map_or(max_jobs, |t| t.2.min(max_jobs));
    let mut t = generate(
        AFS_TRACE_GENERATOR,
        Some(jobs),
        trace_seed(seed, id),
        &trace_params(id),
    )?;
    t.name = format!("afs-trace-{id}");
    Ok(t)
}

/// Cuts trace `id` out of a Philly job list: the jobs of its VC (Table 3),
/// the first `max_jobs` by submission, shifted so the first arrives at 0.
pub fn philly_trace(philly: &PhillyJobs, id: u32, max_jobs: usize) -> Result<Trace> {
    let vc = TABLE3
        .iter()
        .find(|t| t.0 == id)
        .map(|t| t.1)
        .ok_or_else(|| Error::config(format!("AFS trace id {id}: expected 1..11")))?;
    philly
        .trace
        .subset(&format!("afs-philly-{id}-{vc}"), Some(vc), max_jobs)
        .map_err(|_| {
            Error::input(
                &philly.file,
                0,
                "cluster",
                format!("no job of virtual cluster {vc} (AFS trace {id}) in the file"),
            )
        })
}

/// The trace ids a run covers (all 11 when none are named).
pub fn trace_ids(opts: &Options) -> Vec<u32> {
    if opts.traces.is_empty() {
        TABLE3.iter().map(|t| t.0).collect()
    } else {
        opts.traces.clone()
    }
}

/// Every policy the comparison runs (the owners `--set` may name).
pub fn policies() -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in VARIANTS {
        if !out.iter().any(|p| p == v.policy) {
            out.push(v.policy.to_string());
        }
    }
    out
}

/// The settings of variant `v`: the user's, count-based placement unless
/// the user chose one, and the variant's own settings.
pub fn variant_settings(opts: &Options, v: &Variant) -> Result<RunSettings> {
    let mut s = opts.settings.clone();
    s.set_unless_given("engine", "placement", "any")?;
    for (k, val) in v.set {
        s.set(v.policy, k, val)?;
    }
    Ok(s)
}

/// How the models' curves are described in the report.
pub fn models_label(opts: &Options) -> String {
    match &opts.afs_tables {
        Some((file, _)) => format!("measured tables from {file}"),
        None => "synthetic BSP curves (spec seed003 §2.7)".to_string(),
    }
}

/// Where the traces come from, as the report says it.
pub fn generator_label(opts: &Options) -> String {
    match &opts.philly {
        Some(p) => format!("{} {}", p.trace.format, p.file),
        None => AFS_TRACE_GENERATOR.to_string(),
    }
}

/// The row of trace `id` around its runs.
pub fn trace_row(opts: &Options, id: u32, jobs: usize, runs: Vec<RunRow>) -> TraceRow {
    TraceRow {
        id,
        vc: TABLE3
            .iter()
            .find(|t| t.0 == id)
            .map_or("?", |t| t.1)
            .to_string(),
        jobs,
        table3_jobs: TABLE3.iter().find(|t| t.0 == id).map_or(0, |t| t.2),
        heavy: HEAVY.contains(&id),
        params: if opts.philly.is_some() {
            Vec::new()
        } else {
            trace_params(id)
        },
        runs,
    }
}

/// The whole report around its trace rows.
pub fn report(opts: &Options, traces: Vec<TraceRow>) -> AfsReport {
    AfsReport {
        generator: generator_label(opts),
        models: models_label(opts),
        cluster: "afs-64".into(),
        seed: opts.seed,
        max_jobs: opts.max_jobs,
        traces,
    }
}

/// Runs the reproduction; `progress` gets one line per finished run.
pub fn reproduce(opts: &Options, progress: &mut dyn FnMut(&str)) -> Result<AfsReport> {
    let cluster: Arc<Cluster> = Arc::new(parse_cluster("afs-64")?);
    let mut zoo = ModelZoo::builtin();
    if let Some((file, text)) = &opts.afs_tables {
        zoo.add_afs_tables(file, text)?;
    }
    let zoo = Arc::new(zoo);
    let mut traces = Vec::new();
    for id in trace_ids(opts) {
        let trace = match &opts.philly {
            Some(p) => philly_trace(p, id, opts.max_jobs)?,
            None => build_trace(id, opts.max_jobs, opts.seed)?,
        };
        let mut runs = Vec::new();
        for v in VARIANTS {
            let ov = variant_settings(opts, v)?;
            let r = run_policy(
                &trace,
                &cluster,
                &zoo,
                v.policy,
                &ov,
                opts.seed,
                &mut |_| true,
            )?;
            let ts = time_series(&r.outcome, &trace.jobs, &cluster, &zoo);
            let ql: Vec<f64> = ts.queue.iter().map(|&q| q as f64).collect();
            let row = RunRow {
                label: v.label.to_string(),
                completed: r.metrics.completed,
                avg_jct_s: r.metrics.avg_jct_s,
                p99_jct_s: r.metrics.p99_jct_s,
                mean_ql: ts.time_mean(&ql),
                mean_ce: ts.time_mean(&ts.ce),
                wall_s: r.wall_s,
                summary: Some(r.metrics.clone()),
            };
            progress(&format!(
                "trace {id} {:<14} avg JCT {:>9.2} h  p99 {:>9.2} h  ({:.1} s)",
                v.label,
                row.avg_jct_s / 3600.0,
                row.p99_jct_s / 3600.0,
                row.wall_s
            ));
            runs.push(row);
        }
        traces.push(trace_row(opts, id, trace.jobs.len(), runs));
    }
    Ok(report(opts, traces))
}

/// A qualitative check over the traces: how many satisfy it.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub claim: String,
    pub paper: String,
    pub holds: usize,
    pub of: usize,
    /// Traces on which the claim must hold for ours to match the paper's wording
    /// ("every trace": all; "usually": most; "all but one": all but one); `None`
    /// where the paper reports a count of its own, which ours is set beside.
    pub need: Option<usize>,
    pub detail: String,
}

/// The orderings of spec §6.8 and the other §6.1/§6.3 claims.
pub fn checks(r: &AfsReport) -> Vec<Check> {
    let n = r.traces.len();
    let mut out = Vec::new();
    let count = |f: &dyn Fn(&TraceRow) -> bool| r.traces.iter().filter(|t| f(t)).count();
    let list = |f: &dyn Fn(&TraceRow) -> bool| {
        r.traces
            .iter()
            .filter(|t| !f(t))
            .map(|t| t.id.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut push = |claim: &str, paper: &str, f: &dyn Fn(&TraceRow) -> bool| {
        let bad = list(f);
        out.push(Check {
            claim: claim.into(),
            paper: paper.into(),
            holds: count(f),
            of: n,
            need: traces_needed(paper, n),
            detail: if bad.is_empty() {
                String::new()
            } else {
                format!("fails on {bad}")
            },
        });
    };
    push(
        "AFS-L < SRTF, SRSF, Optimus (avg JCT)",
        "every trace",
        &|t| {
            ["srtf", "srsf", "optimus"]
                .iter()
                .all(|b| t.avg("afs-l") < t.avg(b))
        },
    );
    push(
        "AFS-P < Tiresias-L, Themis, Optimus, Max-Min",
        "every trace",
        &|t| {
            ["tiresias", "themis", "optimus", "maxmin"]
                .iter()
                .all(|b| t.avg("afs-p") < t.avg(b))
        },
    );
    push(
        "Themis is AFS-P's closest length-unaware competitor",
        "usually",
        &|t| {
            let th = t.avg("themis");
            ["tiresias", "optimus", "maxmin"]
                .iter()
                .all(|b| th <= t.avg(b))
        },
    );
    push("AFS-P avg JCT <= 2x AFS-L", "every trace (App. D)", &|t| {
        t.avg("afs-p") <= 2.0 * t.avg("afs-l")
    });
    push(
        "AFS-S within 1.25x of AFS-P",
        "similar in many traces (App. D)",
        &|t| t.avg("afs-s") <= 1.25 * t.avg("afs-p"),
    );
    push(
        "Max-Min beats SRTF and SRSF",
        "5 of 11 traces (§2.2)",
        &|t| t.avg("maxmin") < t.avg("srtf") && t.avg("maxmin") < t.avg("srsf"),
    );
    push(
        "SRSF beats SRTF on the heavy traces (1,2,3,5,6,8)",
        "those traces (§5.2)",
        &|t| !t.heavy || t.avg("srsf") < t.avg("srtf"),
    );
    push(
        "Max-Min worse than SRTF under heavy contention, better under moderate",
        "Fig 2 (a), (b)",
        &|t| (t.avg("maxmin") > t.avg("srtf")) == t.heavy,
    );
    push("SRTF-E < SRTF and SRSF-E < SRSF", "Fig 11", &|t| {
        t.avg("srtf-e") < t.avg("srtf") && t.avg("srsf-e") < t.avg("srsf")
    });
    push("AFS-L < SRTF-E and SRSF-E", "Fig 11", &|t| {
        t.avg("afs-l") < t.avg("srtf-e") && t.avg("afs-l") < t.avg("srsf-e")
    });
    for (v, o, worst) in [
        ("srtf@peak", "srtf", 4.85),
        ("srsf@peak", "srsf", 5.84),
        ("tiresias@peak", "tiresias", 16.14),
    ] {
        let claim = format!("{v} worse than {o} (blowup > 1)");
        let paper = format!("all but one trace; worst {worst}x (Fig 6)");
        let worst_ours = r.traces.iter().map(|t| t.blowup(v, o)).fold(0.0, f64::max);
        let f = |t: &TraceRow| t.blowup(v, o) > 1.0;
        let bad = list(&f);
        out.push(Check {
            claim,
            need: traces_needed(&paper, n),
            paper,
            holds: count(&f),
            of: n,
            detail: format!(
                "worst {worst_ours:.2}x{}",
                if bad.is_empty() {
                    String::new()
                } else {
                    format!("; better on {bad}")
                }
            ),
        });
    }
    out
}

/// How many of `n` traces a claim worded `paper` must hold on: "usually" and "many" a
/// majority, "all but one" all but one, a count of the paper's own ("5 of 11") none
/// (ours is set beside it), anything else (every trace, those traces, a figure) all.
fn traces_needed(paper: &str, n: usize) -> Option<usize> {
    if paper.starts_with("usually") || paper.contains("many") {
        Some(n / 2 + 1)
    } else if paper.starts_with("all but one") {
        Some(n.saturating_sub(1))
    } else if paper.contains(" of 11") {
        None
    } else {
        Some(n)
    }
}

/// The report's claims for `reproduce all`: the three reduction-rate ranges of Fig 5
/// (each trace inside the paper's range) and the qualitative claims of [`checks`].
pub fn claims(r: &AfsReport) -> Vec<Claim> {
    let n = r.traces.len();
    let mut out = Vec::new();
    for (name, base, alg, lo, hi) in RANGES {
        let rates: Vec<f64> = r.traces.iter().map(|t| t.rate(base, alg)).collect();
        let inside = rates.iter().filter(|x| **x >= *lo && **x <= *hi).count();
        let (min, max) = rates
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
                (a.min(*x), b.max(*x))
            });
        out.push(Claim::judged(
            format!("Fig 5: avg-JCT reduction {name}"),
            format!("{lo}-{hi}x over the traces"),
            format!("{min:.2}-{max:.2}x; {inside} of {n} traces in range"),
            "each trace inside the paper's range",
            inside == n && n > 0,
        ));
    }
    for c in checks(r) {
        let ours = if c.detail.is_empty() {
            format!("{} of {} traces", c.holds, c.of)
        } else {
            format!("{} of {} traces ({})", c.holds, c.of, c.detail)
        };
        out.push(match c.need {
            Some(need) => Claim::judged(
                c.claim,
                c.paper,
                ours,
                format!("holds on at least {need} of {}", c.of),
                c.holds >= need,
            ),
            None => Claim {
                what: c.claim,
                theirs: c.paper,
                ours,
                ratio: None,
                tolerance: "information (the paper gives its own count)".into(),
                holds: None,
            },
        });
    }
    out
}

/// "at most N" or "all" for the table's heading.
fn jobs_cap(max_jobs: usize) -> String {
    if max_jobs == usize::MAX {
        "all".into()
    } else {
        format!("at most {max_jobs}")
    }
}

/// The report as text tables.
pub fn to_table(r: &AfsReport) -> String {
    let mut s =
        format!(
        "AFS (NSDI'21) §5.2 reproduction: traces from '{}' ({} jobs each), cluster {}, seed {}\n\
         Paper setting: count-based placement, free share changes; models: {}.\n\n",
        r.generator, jobs_cap(r.max_jobs), r.cluster, r.seed, r.models
    );
    let labels: Vec<&str> = VARIANTS.iter().map(|v| v.label).collect();
    for (title, pick) in [
        ("Average JCT (hours)", 0),
        ("99th-percentile JCT (hours)", 1),
    ] {
        s.push_str(title);
        s.push('\n');
        let mut rows = vec![{
            let mut h = vec!["trace".to_string(), "jobs".to_string(), "Tab.3".to_string()];
            h.extend(labels.iter().map(|l| l.to_string()));
            h
        }];
        for t in &r.traces {
            let mut row = vec![
                format!("{}{}", t.id, if t.heavy { "*" } else { "" }),
                t.jobs.to_string(),
                t.table3_jobs.to_string(),
            ];
            for l in &labels {
                row.push(t.run(l).map_or("-".into(), |x| {
                    let v = if pick == 0 { x.avg_jct_s } else { x.p99_jct_s };
                    let mark = if x.completed < t.jobs { "!" } else { "" };
                    format!("{:.2}{mark}", v / 3600.0)
                }));
            }
            rows.push(row);
        }
        s.push_str(&table(&rows));
        s.push('\n');
    }
    s.push_str("Average-JCT reduction rates (baseline / algorithm) beside the paper's ranges\n");
    let mut rows = vec![{
        let mut h = vec!["trace".to_string()];
        for (name, _, _, lo, hi) in RANGES {
            h.push(format!("{name} [{lo}-{hi}]"));
        }
        h.push("AFS-L/SRTF p99".into());
        h.push("AFS-P/Tir. p99".into());
        h
    }];
    let mut inside = vec![0usize; RANGES.len()];
    for t in &r.traces {
        let mut row = vec![t.id.to_string()];
        for (k, (_, base, alg, lo, hi)) in RANGES.iter().enumerate() {
            let x = t.rate(base, alg);
            let ok = x >= *lo && x <= *hi;
            inside[k] += ok as usize;
            let tag = if ok {
                "in"
            } else if x < *lo {
                "below"
            } else {
                "above"
            };
            row.push(format!("{x:.2} {tag}"));
        }
        for (base, alg) in [("srtf", "afs-l"), ("tiresias", "afs-p")] {
            let (b, a) = (t.run(base), t.run(alg));
            row.push(match (b, a) {
                (Some(b), Some(a)) if a.p99_jct_s > 0.0 => {
                    format!("{:.2}", b.p99_jct_s / a.p99_jct_s)
                }
                _ => "-".into(),
            });
        }
        rows.push(row);
    }
    let mut foot = vec!["in range".to_string()];
    for k in inside {
        foot.push(format!("{k} of {}", r.traces.len()));
    }
    rows.push(foot);
    s.push_str(&table(&rows));
    s.push_str("\nQualitative claims (spec seed003 §6.1, §6.3, §6.8)\n");
    let mut rows = vec![vec![
        "claim".to_string(),
        "paper".into(),
        "ours".into(),
        "detail".into(),
    ]];
    for c in checks(r) {
        rows.push(vec![
            c.claim,
            c.paper,
            format!("{} of {}", c.holds, c.of),
            c.detail,
        ]);
    }
    s.push_str(&table(&rows));
    s.push_str(
        "\n* heavy-contention trace (§5.2: traces 1, 2, 3, 5, 6, 8); ! = some jobs unfinished\n",
    );
    s.push_str("Mean queue length / cluster efficiency per trace (srtf, maxmin, afs-l):\n");
    for t in &r.traces {
        let f = |l: &str| {
            t.run(l).map_or("-".into(), |x| {
                format!("QL {:.1} CE {:.2}", x.mean_ql, x.mean_ce)
            })
        };
        s.push_str(&format!(
            "  {:>2}: srtf {}  maxmin {}  afs-l {}\n",
            t.id,
            f("srtf"),
            f("maxmin"),
            f("afs-l")
        ));
    }
    s
}
