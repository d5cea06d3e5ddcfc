//! Reproduction of the Sia thesis, chapter 3 (spec seed004 §6): Table 3.3
//! (heterogeneous 64-GPU cluster on Philly-, Helios- and newTrace-like
//! workloads: Sia, Pollux, Gavel+TJ), Table 3.4 (homogeneous 64 t4 GPUs:
//! Sia, Pollux, Shockwave+TJ, Themis+TJ, Gavel+TJ), finish-time fairness
//! (Fig 3.7 on Helios) and policy runtime per round from 64 to 2,048 GPUs
//! (Fig 3.10: the Helios workload replicated with the cluster).
//!
//! Simulator setting: the Sia simulator's (per-model restart delays, the
//! first start charged, `engine.calibration=sia`).
//!
//! The workloads come from our generators (`sia-philly`, `sia-helios`,
//! `sia-newtrace`; one trace per seed, the thesis used ten per workload).
//! Optionally the Pollux artifact's eight workload files are added as a
//! fourth, "philly-artifact" workload, with ncf replaced by cifar10 as the
//! thesis did and TunedJobs re-drawn for the 16-GPU cap (§3.7); they are
//! read at run time and never copied.

use super::table;
use crate::cluster::{parse_cluster, Cluster};
use crate::error::{Error, Result};
use crate::isolated::apply_simulated_ftf;
use crate::metrics::RestartMix;
use crate::perf::ModelZoo;
use crate::report::{run_policy, Overrides, PolicyRun};
use crate::workload::gen::generate;
use crate::workload::tune::{tune_trace, TuneOptions};
use crate::workload::Trace;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;

/// The parts of the reproduction, each selectable with `--sections`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Section {
    /// Table 3.3.
    Hetero,
    /// Table 3.4.
    Homog,
    /// Fig 3.7 (needs Shockwave on Helios beside the Table 3.3 runs).
    Ftf,
    /// Fig 3.10.
    Scale,
}

impl Section {
    pub const ALL: [Section; 4] = [
        Section::Hetero,
        Section::Homog,
        Section::Ftf,
        Section::Scale,
    ];

    pub fn by_name(s: &str) -> Option<Section> {
        Some(match s {
            "hetero" => Section::Hetero,
            "homog" => Section::Homog,
            "ftf" => Section::Ftf,
            "scale" => Section::Scale,
            _ => return None,
        })
    }
}

/// A workload of the thesis and the generator that stands in for it.
struct Workload {
    name: &'static str,
    generator: &'static str,
}

const HETERO_WORKLOADS: &[Workload] = &[
    Workload {
        name: "philly",
        generator: "sia-philly",
    },
    Workload {
        name: "helios",
        generator: "sia-helios",
    },
    Workload {
        name: "newtrace",
        generator: "sia-newtrace",
    },
];

/// Name of the optional workload built from the Pollux artifact files.
pub const ARTIFACT_WORKLOAD: &str = "philly-artifact";

const HETERO_POLICIES: &[&str] = &["sia", "pollux", "gavel"];
const HOMOG_POLICIES: &[&str] = &["sia", "pollux", "shockwave", "gavel-ftf", "gavel"];
const FTF_POLICIES: &[&str] = &["sia", "pollux", "gavel", "shockwave"];

/// One row of the thesis's tables (NaN where the thesis gives no number).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Published {
    pub setting: &'static str,
    pub workload: &'static str,
    pub policy: &'static str,
    pub avg_jct_h: f64,
    pub p99_jct_h: f64,
    pub makespan_h: f64,
    pub gpu_h_per_job: f64,
    pub contention_avg: f64,
    pub contention_max: f64,
    pub restarts: f64,
}

const fn row(
    setting: &'static str,
    workload: &'static str,
    policy: &'static str,
    v: [f64; 7],
) -> Published {
    Published {
        setting,
        workload,
        policy,
        avg_jct_h: v[0],
        p99_jct_h: v[1],
        makespan_h: v[2],
        gpu_h_per_job: v[3],
        contention_avg: v[4],
        contention_max: v[5],
        restarts: v[6],
    }
}

const NA: f64 = f64::NAN;

/// Thesis Table 3.3 (heterogeneous) and Table 3.4 (homogeneous; restarts
/// from its text), spec seed004 §6.2-6.3.
pub const PUBLISHED: &[Published] = &[
    row(
        "hetero",
        "philly",
        "sia",
        [0.6, 9.5, 14.2, 4.0, 6.9, 31.0, 2.9],
    ),
    row(
        "hetero",
        "philly",
        "pollux",
        [1.0, 14.9, 24.5, 5.6, 7.2, 42.0, 5.8],
    ),
    row(
        "hetero",
        "philly",
        "gavel",
        [1.9, 30.0, 33.8, 9.0, 9.9, 56.0, 5.7],
    ),
    row(
        "hetero",
        "helios",
        "sia",
        [0.7, 10.9, 14.9, 4.8, 7.4, 32.0, 3.4],
    ),
    row(
        "hetero",
        "helios",
        "pollux",
        [1.0, 15.0, 25.5, 5.9, 6.9, 47.0, 5.3],
    ),
    row(
        "hetero",
        "helios",
        "gavel",
        [2.5, 38.7, 43.0, 12.1, 9.2, 48.0, 7.5],
    ),
    row(
        "hetero",
        "newtrace",
        "sia",
        [0.7, 4.6, 52.2, 3.0, 13.0, 69.0, 5.0],
    ),
    row(
        "hetero",
        "newtrace",
        "pollux",
        [1.5, 10.3, 62.3, 3.4, 22.0, 85.0, 5.4],
    ),
    row(
        "hetero",
        "newtrace",
        "gavel",
        [11.3, 98.1, 110.0, 6.4, 96.0, 243.0, 4.5],
    ),
    row(
        "homog",
        "philly",
        "sia",
        [1.9, 18.1, 21.4, 8.4, NA, NA, 2.6],
    ),
    row(
        "homog",
        "philly",
        "pollux",
        [2.0, 19.3, 21.7, 8.6, NA, NA, 5.1],
    ),
    row(
        "homog",
        "philly",
        "shockwave",
        [3.6, 32.8, 35.0, 12.5, NA, NA, NA],
    ),
    row(
        "homog",
        "philly",
        "gavel-ftf",
        [5.4, 44.7, 49.7, 17.2, NA, NA, NA],
    ),
    row(
        "homog",
        "philly",
        "gavel",
        [4.3, 37.1, 44.3, 15.3, NA, NA, NA],
    ),
];

/// Thesis Fig 3.7 (Helios, heterogeneous): (policy, worst rho, unfair fraction).
pub const PUBLISHED_FTF: &[(&str, f64, f64)] = &[
    ("sia", 1.2, 0.003),
    ("pollux", 4.6, 0.28),
    ("gavel", 27.8, 0.15),
    ("shockwave", 3.3, 0.14),
];

/// Thesis Fig 3.10 at 64 GPUs: (policy, median ms, p95 ms) per round.
pub const PUBLISHED_RUNTIME_64: &[(&str, f64, f64)] = &[
    ("sia", 96.0, 426.0),
    ("pollux", 2200.0, 4800.0),
    ("gavel", 13.0, 28.0),
];

/// Options of a reproduction run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Traces per workload (seeds `seed`, `seed + 1`, ...; the thesis used 10).
    pub traces: u32,
    pub seed: u64,
    /// Cap on jobs per generated trace (None: the thesis's counts).
    pub max_jobs: Option<usize>,
    pub sections: Vec<Section>,
    /// Cluster sizes of the runtime sweep (multiples of 64).
    pub scale_gpus: Vec<u32>,
    /// Simulated hours of each runtime-sweep run.
    pub scale_hours: f64,
    /// Largest cluster Pollux runs on in the sweep (its GA is slow).
    pub pollux_scale_max: u32,
    /// Directory with the Pollux artifact's `workload-*.csv` files.
    pub pollux_dir: Option<PathBuf>,
    /// Fig 3.7 also against simulated isolated runs (`isolated`; slow).
    pub ftf_simulated: bool,
    pub overrides: Overrides,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            traces: 3,
            seed: 1,
            max_jobs: None,
            sections: Section::ALL.to_vec(),
            scale_gpus: vec![64, 128, 256, 512, 1024, 2048],
            scale_hours: 4.0,
            pollux_scale_max: 256,
            pollux_dir: None,
            ftf_simulated: false,
            overrides: Overrides::new(),
        }
    }
}

/// Per-round policy time, in milliseconds.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct RoundTimes {
    pub rounds: usize,
    pub median_ms: f64,
    pub p95_ms: f64,
    pub max_ms: f64,
    /// Rounds where the policy fell back from its main method.
    pub fallbacks: usize,
}

impl RoundTimes {
    fn of(run: &PolicyRun) -> RoundTimes {
        let mut ms: Vec<f64> = run
            .outcome
            .rounds
            .iter()
            .map(|r| r.policy_s * 1e3)
            .collect();
        ms.sort_by(f64::total_cmp);
        let at = |q: f64| {
            if ms.is_empty() {
                f64::NAN
            } else {
                ms[((q * ms.len() as f64) as usize).min(ms.len() - 1)]
            }
        };
        RoundTimes {
            rounds: ms.len(),
            median_ms: at(0.5),
            p95_ms: at(0.95),
            max_ms: ms.last().copied().unwrap_or(f64::NAN),
            fallbacks: run
                .outcome
                .rounds
                .iter()
                .filter(|r| r.fallback.is_some())
                .count(),
        }
    }
}

/// One policy on one trace.
#[derive(Debug, Clone, Serialize)]
pub struct RunStats {
    pub setting: String,
    pub workload: String,
    pub trace: String,
    pub policy: String,
    pub jobs: usize,
    pub completed: usize,
    pub avg_jct_h: f64,
    pub p99_jct_h: f64,
    pub makespan_h: f64,
    pub gpu_h_per_job: f64,
    /// Jobs in the system (arrived, not finished), time-averaged and peak.
    pub contention_avg: f64,
    pub contention_max: f64,
    pub restarts: f64,
    /// `restarts` by what changed.
    pub restart_mix: RestartMix,
    pub ftf_rho_max: f64,
    pub ftf_unfair_frac: f64,
    /// Completed jobs with a rho (for pooling the unfair fraction).
    pub ftf_jobs: usize,
    /// The same against simulated isolated runs (Fig 3.7 runs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ftf_simulated: Option<FtfStats>,
    pub times: RoundTimes,
    pub wall_s: f64,
}

/// Jobs in the system over time: (time-weighted mean, max) over
/// [first arrival, last finish]. Unfinished jobs stay until the end.
pub fn contention(run: &PolicyRun) -> (f64, f64) {
    let end = run
        .jobs
        .iter()
        .filter_map(|j| j.finish)
        .fold(0.0f64, f64::max);
    let mut events: Vec<(f64, i32)> = Vec::with_capacity(2 * run.jobs.len());
    for j in &run.jobs {
        events.push((j.arrival, 1));
        events.push((j.finish.unwrap_or(end), -1));
    }
    // Departures before arrivals at equal times: a job that finishes as
    // another arrives does not count both.
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let Some(start) = events.first().map(|e| e.0) else {
        return (0.0, 0.0);
    };
    let (mut n, mut peak, mut area, mut last) = (0i64, 0i64, 0.0, start);
    for (t, d) in events {
        area += n as f64 * (t - last);
        last = t;
        n += d as i64;
        peak = peak.max(n);
    }
    let span = last - start;
    (if span > 0.0 { area / span } else { 0.0 }, peak as f64)
}

fn stats(setting: &str, workload: &str, trace: &Trace, run: &PolicyRun) -> RunStats {
    let m = &run.metrics;
    let (c_avg, c_max) = contention(run);
    let ftf = FtfStats::of(run);
    RunStats {
        setting: setting.to_string(),
        workload: workload.to_string(),
        trace: trace.name.clone(),
        policy: run.policy.clone(),
        jobs: m.jobs,
        completed: m.completed,
        avg_jct_h: m.avg_jct_s / 3600.0,
        p99_jct_h: m.p99_jct_s / 3600.0,
        makespan_h: m.makespan_s / 3600.0,
        gpu_h_per_job: m.gpu_hours / m.jobs.max(1) as f64,
        contention_avg: c_avg,
        contention_max: c_max,
        restarts: m.avg_restarts,
        restart_mix: run.restart_mix,
        ftf_rho_max: ftf.rho_max,
        ftf_unfair_frac: ftf.unfair_frac,
        ftf_jobs: ftf.jobs,
        ftf_simulated: None,
        times: RoundTimes::of(run),
        wall_s: run.wall_s,
    }
}

/// Finish-time fairness of one run: worst rho, unfair fraction, and the
/// jobs that have a rho (for pooling the fraction over traces).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct FtfStats {
    pub rho_max: f64,
    pub unfair_frac: f64,
    pub jobs: usize,
}

impl FtfStats {
    fn of(run: &PolicyRun) -> FtfStats {
        FtfStats {
            rho_max: run.metrics.ftf_rho_max,
            unfair_frac: run.metrics.ftf_unfair_frac,
            jobs: run.jobs.iter().filter(|j| j.ftf_rho.is_some()).count(),
        }
    }

    /// Worst rho and pooled unfair fraction over several runs.
    fn pool(all: &[FtfStats]) -> (f64, f64) {
        let worst = all.iter().map(|x| x.rho_max).fold(0.0, f64::max);
        let n: usize = all.iter().map(|x| x.jobs).sum();
        let unfair: f64 = all.iter().map(|x| x.unfair_frac * x.jobs as f64).sum();
        (worst, unfair / n.max(1) as f64)
    }
}

/// One point of the runtime sweep.
#[derive(Debug, Clone, Serialize)]
pub struct ScaleRow {
    pub gpus: u32,
    pub jobs: usize,
    pub policy: String,
    pub sim_hours: f64,
    pub times: RoundTimes,
    pub wall_s: f64,
}

/// The whole reproduction.
#[derive(Debug, Clone, Serialize)]
pub struct SiaReport {
    pub traces: u32,
    pub seed: u64,
    pub max_jobs: Option<usize>,
    pub runs: Vec<RunStats>,
    pub scale: Vec<ScaleRow>,
    pub scale_hours: f64,
}

/// Mean and sample standard deviation.
pub fn mean_std(xs: &[f64]) -> (f64, f64) {
    if xs.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = if xs.len() > 1 {
        xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    (mean, var.sqrt())
}

impl SiaReport {
    /// Runs of one (setting, workload, policy).
    pub fn cell(&self, setting: &str, workload: &str, policy: &str) -> Vec<&RunStats> {
        self.runs
            .iter()
            .filter(|r| r.setting == setting && r.workload == workload && r.policy == policy)
            .collect()
    }

    /// Mean of a metric over a cell's traces.
    pub fn mean(
        &self,
        setting: &str,
        workload: &str,
        policy: &str,
        f: fn(&RunStats) -> f64,
    ) -> f64 {
        let xs: Vec<f64> = self
            .cell(setting, workload, policy)
            .iter()
            .map(|r| f(r))
            .collect();
        mean_std(&xs).0
    }

    /// Workloads present in a setting, in run order.
    pub fn workloads(&self, setting: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in self.runs.iter().filter(|r| r.setting == setting) {
            if !out.contains(&r.workload) {
                out.push(r.workload.clone());
            }
        }
        out
    }
}

/// Generates trace `index` of a workload. `tj` picks the TunedJobs
/// re-tuning (hetero: up to 16 GPUs; homog: up to 64).
fn generated(generator: &str, tj: &str, opts: &Options, index: u32) -> Result<Trace> {
    let set = vec![("tj".to_string(), tj.to_string())];
    // Each workload gets its own seeds: the Philly and Helios mixes are so
    // close that equal seeds would give near-identical traces.
    let offset = match generator {
        "sia-helios" => 100,
        "sia-newtrace" => 200,
        _ => 0,
    };
    let seed = opts
        .seed
        .wrapping_mul(1000)
        .wrapping_add(offset + index as u64);
    let mut t = generate(generator, opts.max_jobs, seed, &set)?;
    t.name = format!("{generator}-{tj}-s{seed}");
    Ok(t)
}

/// The Pollux artifact workload files with ncf replaced by cifar10 and the
/// TunedJobs re-drawn for `max_gpus` (thesis §3.4.1, §3.7).
pub fn artifact_traces(dir: &std::path::Path, max_gpus: u32, seed: u64) -> Result<Vec<Trace>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| {
            Error::input(
                dir.display().to_string(),
                0,
                "",
                format!("cannot read: {e}"),
            )
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("workload-") && n.ends_with(".csv"))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(Error::config(format!(
            "{}: no workload-*.csv files (expected the Pollux artifact's workloads directory)",
            dir.display()
        )));
    }
    let zoo = ModelZoo::builtin();
    let mut out = Vec::new();
    for f in files {
        let name = f.display().to_string();
        let text = std::fs::read_to_string(&f)
            .map_err(|e| Error::input(&name, 0, "", format!("cannot read: {e}")))?;
        let mut trace = Trace::parse(&name, &text, None)?;
        for j in &mut trace.jobs {
            if j.model == "ncf" {
                j.model = "cifar10".into();
            }
        }
        let o = TuneOptions {
            max_gpus,
            seed,
            ..TuneOptions::default()
        };
        let (mut tuned, _) = tune_trace(&trace, &zoo, &o)?;
        tuned.name = f
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("workload")
            .to_string();
        out.push(tuned);
    }
    Ok(out)
}

/// Runs `policies` on every trace, appending to `runs`.
#[allow(clippy::too_many_arguments)]
fn run_all(
    setting: &str,
    workload: &str,
    traces: &[Trace],
    cluster: &Arc<Cluster>,
    zoo: &Arc<ModelZoo>,
    policies: &[&str],
    opts: &Options,
    runs: &mut Vec<RunStats>,
    progress: &mut dyn FnMut(&str),
) -> Result<()> {
    let ov = thesis_setting(&opts.overrides);
    for trace in traces {
        for p in policies {
            if runs.iter().any(|r| {
                r.setting == setting
                    && r.workload == workload
                    && r.trace == trace.name
                    && r.policy == *p
            }) {
                continue;
            }
            let r = run_policy(trace, cluster, zoo, p, &ov, opts.seed, &mut |_| true)?;
            let mut s = stats(setting, workload, trace, &r);
            if opts.ftf_simulated
                && opts.sections.contains(&Section::Ftf)
                && setting == "hetero"
                && workload == "helios"
            {
                // Fig 3.7 as the artifact computes it: each job alone under the policy.
                let mut iso = r.clone();
                apply_simulated_ftf(&mut iso, trace, cluster, zoo, &ov, opts.seed)?;
                s.ftf_simulated = Some(FtfStats::of(&iso));
            }
            progress(&format!(
                "{setting} {:<28} {:<10} avg JCT {:>6.2} h  restarts {:>5.2}  worst rho {:>6.2}  ({:.1} s)",
                s.trace, s.policy, s.avg_jct_h, s.restarts, s.ftf_rho_max, s.wall_s
            ));
            runs.push(s);
        }
    }
    Ok(())
}

/// The thesis's simulator setting on top of the user's overrides:
/// `engine.timeline=true` (per-round policy times need it) and, unless the
/// user chose otherwise, `engine.calibration=sia` (the Sia simulator divides
/// every model's progress rate by its SLOWDOWN, spec §3.1).
fn thesis_setting(ov: &Overrides) -> Overrides {
    let mut ov = ov.clone();
    set_engine(&mut ov, "timeline", "true");
    let engine = ov.entry("engine".to_string()).or_default();
    if !engine.iter().any(|(k, _)| k == "calibration") {
        engine.push(("calibration".into(), "sia".into()));
    }
    ov
}

/// Sets (replacing) one engine parameter in the overrides.
fn set_engine(ov: &mut Overrides, key: &str, value: &str) {
    let engine = ov.entry("engine".to_string()).or_default();
    engine.retain(|(k, _)| k != key);
    engine.push((key.to_string(), value.to_string()));
}

/// The heterogeneous cluster scaled to `gpus` (a multiple of 64).
pub fn scaled_cluster(gpus: u32) -> Result<Cluster> {
    if gpus == 0 || gpus % 64 != 0 {
        return Err(Error::config(format!(
            "scale: {gpus} GPUs is not a positive multiple of 64"
        )));
    }
    let k = gpus / 64;
    let mut c = parse_cluster(&format!("t4:{}x4,rtx:{}x8,a100:{}x8", 6 * k, 3 * k, 2 * k))?;
    c.name = format!("sia-hetero-{gpus}");
    Ok(c)
}

/// Runs the reproduction; `progress` gets one line per finished run.
pub fn reproduce(opts: &Options, progress: &mut dyn FnMut(&str)) -> Result<SiaReport> {
    if opts.traces == 0 {
        return Err(Error::config("--traces must be at least 1"));
    }
    let zoo = Arc::new(ModelZoo::builtin());
    let hetero = Arc::new(parse_cluster("sia-hetero-64")?);
    let homog = Arc::new(parse_cluster("homog-64")?);
    let has = |s: Section| opts.sections.contains(&s);
    // Read the artifact files first: a bad directory fails before any run.
    let artifact = match (&opts.pollux_dir, has(Section::Hetero)) {
        (Some(dir), true) => {
            let mut traces = artifact_traces(dir, 16, opts.seed)?;
            if let Some(n) = opts.max_jobs {
                for t in &mut traces {
                    t.jobs.truncate(n.max(1));
                }
            }
            Some(traces)
        }
        _ => None,
    };
    let mut runs = Vec::new();
    for w in HETERO_WORKLOADS {
        // Fig 3.7 adds Shockwave to the Helios runs of Table 3.3.
        let mut policies: Vec<&str> = Vec::new();
        if has(Section::Hetero) || (has(Section::Ftf) && w.name == "helios") {
            policies.extend_from_slice(HETERO_POLICIES);
        }
        if has(Section::Ftf) && w.name == "helios" {
            policies.push("shockwave");
        }
        if policies.is_empty() {
            continue;
        }
        let traces = (0..opts.traces)
            .map(|i| generated(w.generator, "hetero", opts, i))
            .collect::<Result<Vec<_>>>()?;
        run_all(
            "hetero", w.name, &traces, &hetero, &zoo, &policies, opts, &mut runs, progress,
        )?;
    }
    if let Some(traces) = &artifact {
        run_all(
            "hetero",
            ARTIFACT_WORKLOAD,
            traces,
            &hetero,
            &zoo,
            HETERO_POLICIES,
            opts,
            &mut runs,
            progress,
        )?;
    }
    if has(Section::Homog) {
        let traces = (0..opts.traces)
            .map(|i| generated("sia-philly", "homog", opts, i))
            .collect::<Result<Vec<_>>>()?;
        run_all(
            "homog",
            "philly",
            &traces,
            &homog,
            &zoo,
            HOMOG_POLICIES,
            opts,
            &mut runs,
            progress,
        )?;
    }
    let scale = if has(Section::Scale) {
        runtime_sweep(opts, &zoo, progress)?
    } else {
        Vec::new()
    };
    Ok(SiaReport {
        traces: opts.traces,
        seed: opts.seed,
        max_jobs: opts.max_jobs,
        runs,
        scale,
        scale_hours: opts.scale_hours,
    })
}

/// Fig 3.10: the Helios workload with every job replicated k times on the
/// heterogeneous cluster x k, for `scale_hours` of simulated time.
fn runtime_sweep(
    opts: &Options,
    zoo: &Arc<ModelZoo>,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<ScaleRow>> {
    let mut out = Vec::new();
    let mut ov = thesis_setting(&opts.overrides);
    set_engine(&mut ov, "max_days", &(opts.scale_hours / 24.0).to_string());
    for &gpus in &opts.scale_gpus {
        let cluster = Arc::new(scaled_cluster(gpus)?);
        let k = gpus / 64;
        let base = opts.max_jobs.unwrap_or(160).min(160);
        let set = vec![
            ("tj".to_string(), "hetero".to_string()),
            ("replicate".to_string(), k.to_string()),
        ];
        let mut trace = generate("sia-helios", Some(base * k as usize), opts.seed, &set)?;
        trace.name = format!("sia-helios-x{k}");
        for p in HETERO_POLICIES {
            if *p == "pollux" && gpus > opts.pollux_scale_max {
                continue;
            }
            let r = run_policy(&trace, &cluster, zoo, p, &ov, opts.seed, &mut |_| true)?;
            let row = ScaleRow {
                gpus,
                jobs: trace.jobs.len(),
                policy: p.to_string(),
                sim_hours: r.outcome.end_time / 3600.0,
                times: RoundTimes::of(&r),
                wall_s: r.wall_s,
            };
            progress(&format!(
                "scale {gpus:>5} GPUs {:>5} jobs {:<7} median {:>8.2} ms  p95 {:>8.2} ms  ({} rounds, {:.1} s)",
                row.jobs, p, row.times.median_ms, row.times.p95_ms, row.times.rounds, row.wall_s
            ));
            out.push(row);
        }
    }
    Ok(out)
}

/// A target of issue 5 (thesis ordering and ratios on our workloads).
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub claim: String,
    pub target: String,
    pub ours: String,
    pub holds: bool,
}

fn ratio_check(claim: String, target: &str, ours: f64, limit: f64) -> Check {
    Check {
        claim,
        target: target.to_string(),
        ours: format!("{ours:.2}"),
        holds: ours.is_finite() && ours <= limit,
    }
}

/// The targets, for the sections that ran.
pub fn checks(r: &SiaReport) -> Vec<Check> {
    let mut out = Vec::new();
    let avg = |s: &RunStats| s.avg_jct_h;
    let restarts = |s: &RunStats| s.restarts;
    for w in r.workloads("hetero") {
        if w == "newtrace" {
            continue; // Reported, not a target (see docs/SIA.md).
        }
        let sia = r.mean("hetero", &w, "sia", avg);
        let pollux = r.mean("hetero", &w, "pollux", avg);
        let gavel = r.mean("hetero", &w, "gavel", avg);
        if pollux.is_finite() {
            out.push(ratio_check(
                format!("hetero {w}: Sia / Pollux avg JCT"),
                "<= 0.75 (thesis 0.60-0.70)",
                sia / pollux,
                0.75,
            ));
            out.push(ratio_check(
                format!("hetero {w}: Sia / Pollux restarts per job"),
                "about 1/2: <= 0.70 (thesis 0.50-0.64)",
                r.mean("hetero", &w, "sia", restarts) / r.mean("hetero", &w, "pollux", restarts),
                0.70,
            ));
        }
        if gavel.is_finite() {
            out.push(ratio_check(
                format!("hetero {w}: Sia / Gavel avg JCT"),
                "<= 0.50 (thesis 0.28-0.32)",
                sia / gavel,
                0.5,
            ));
        }
    }
    if !r.cell("homog", "philly", "sia").is_empty() {
        out.push(ratio_check(
            "homog philly: Sia / Pollux avg JCT".into(),
            "<= 1.10 (thesis 0.95)",
            r.mean("homog", "philly", "sia", avg) / r.mean("homog", "philly", "pollux", avg),
            1.10,
        ));
        out.push(ratio_check(
            "homog philly: Sia / Pollux restarts per job".into(),
            "about 1/2: <= 0.70 (thesis 0.51)",
            r.mean("homog", "philly", "sia", restarts)
                / r.mean("homog", "philly", "pollux", restarts),
            0.70,
        ));
    }
    let sia_helios = r.cell("hetero", "helios", "sia");
    if !sia_helios.is_empty() {
        let worst = sia_helios.iter().map(|s| s.ftf_rho_max).fold(0.0, f64::max);
        out.push(ratio_check(
            "hetero helios: Sia worst finish-time fairness rho".into(),
            "<= 1.5 (thesis 1.2)",
            worst,
            1.5,
        ));
    }
    for (gpus, limit, thesis) in [(64, 10.0, "96 ms"), (2048, 200.0, "about 1 s")] {
        if let Some(s) = r.scale.iter().find(|s| s.gpus == gpus && s.policy == "sia") {
            out.push(ratio_check(
                format!("Sia median policy time per round at {gpus} GPUs (ms)"),
                &format!("<= {limit} ms (thesis {thesis})"),
                s.times.median_ms,
                limit,
            ));
        }
    }
    out
}

fn fmt_ms(mean: f64, std: f64, traces: usize) -> String {
    if !mean.is_finite() {
        "-".into()
    } else if traces > 1 {
        format!("{mean:.2}±{std:.2}")
    } else {
        format!("{mean:.2}")
    }
}

fn fmt_ratio(ours: f64, theirs: f64) -> String {
    if ours.is_finite() && theirs.is_finite() && theirs > 0.0 {
        format!("{:.2}", ours / theirs)
    } else {
        "-".into()
    }
}

type Metric = (&'static str, fn(&RunStats) -> f64, fn(&Published) -> f64);

const METRICS: &[Metric] = &[
    ("avg JCT h", |s| s.avg_jct_h, |p| p.avg_jct_h),
    ("p99 JCT h", |s| s.p99_jct_h, |p| p.p99_jct_h),
    ("makespan h", |s| s.makespan_h, |p| p.makespan_h),
    ("GPU-h/job", |s| s.gpu_h_per_job, |p| p.gpu_h_per_job),
    ("restarts/job", |s| s.restarts, |p| p.restarts),
    ("contention avg", |s| s.contention_avg, |p| p.contention_avg),
    ("contention max", |s| s.contention_max, |p| p.contention_max),
];

/// Ours (mean ± sd over traces) | thesis | ours/thesis, per metric.
fn setting_table(r: &SiaReport, setting: &str, policies: &[&str]) -> String {
    let mut rows = vec![{
        let mut h = vec!["workload".to_string(), "policy".into(), "done".into()];
        for (name, _, _) in METRICS {
            h.push(name.to_string());
            h.push("thesis".into());
            h.push("ratio".into());
        }
        h
    }];
    for w in r.workloads(setting) {
        for p in policies {
            let cell = r.cell(setting, &w, p);
            if cell.is_empty() {
                continue;
            }
            let done: usize = cell.iter().map(|s| s.completed).sum();
            let jobs: usize = cell.iter().map(|s| s.jobs).sum();
            let mut row = vec![w.clone(), p.to_string(), format!("{done}/{jobs}")];
            let published = PUBLISHED
                .iter()
                .find(|x| x.setting == setting && x.workload == w && x.policy == *p);
            for (_, ours, theirs) in METRICS {
                let xs: Vec<f64> = cell.iter().map(|s| ours(s)).collect();
                let (m, sd) = mean_std(&xs);
                let t = published.map_or(f64::NAN, theirs);
                row.push(fmt_ms(m, sd, xs.len()));
                row.push(if t.is_finite() {
                    format!("{t}")
                } else {
                    "-".into()
                });
                row.push(fmt_ratio(m, t));
            }
            rows.push(row);
        }
    }
    table(&rows)
}

/// Sia's ratios to each baseline, ours beside the thesis's.
fn relative_table(r: &SiaReport, setting: &str, baselines: &[&str]) -> String {
    let mut rows = vec![vec![
        "workload".to_string(),
        "Sia / baseline".into(),
        "avg JCT ours".into(),
        "thesis".into(),
        "restarts ours".into(),
        "thesis".into(),
    ]];
    for w in r.workloads(setting) {
        for b in baselines {
            let ours =
                |f: fn(&RunStats) -> f64| r.mean(setting, &w, "sia", f) / r.mean(setting, &w, b, f);
            let theirs = |f: fn(&Published) -> f64| {
                let get = |p: &str| {
                    PUBLISHED
                        .iter()
                        .find(|x| x.setting == setting && x.workload == w && x.policy == p)
                        .map_or(f64::NAN, f)
                };
                get("sia") / get(b)
            };
            let a = ours(|s| s.avg_jct_h);
            if !a.is_finite() {
                continue;
            }
            let show = |x: f64| {
                if x.is_finite() {
                    format!("{x:.2}")
                } else {
                    "-".into()
                }
            };
            rows.push(vec![
                w.clone(),
                format!("sia / {b}"),
                show(a),
                show(theirs(|p| p.avg_jct_h)),
                show(ours(|s| s.restarts)),
                show(theirs(|p| p.restarts)),
            ]);
        }
    }
    table(&rows)
}

/// Sia's and Pollux's restarts per job by what changed (the thesis gives
/// only the totals): where the two differ, which the totals hide.
fn restart_mix_table(r: &SiaReport, setting: &str) -> String {
    let mut rows = vec![vec![
        "workload".to_string(),
        "policy".into(),
        "restarts/job".into(),
        "grow".into(),
        "shrink".into(),
        "moved".into(),
        "resumed".into(),
    ]];
    for w in r.workloads(setting) {
        for p in ["sia", "pollux"] {
            let total = r.mean(setting, &w, p, |s| s.restarts);
            if !total.is_finite() {
                continue;
            }
            let part = |f: fn(&RunStats) -> f64| format!("{:.2}", r.mean(setting, &w, p, f));
            rows.push(vec![
                w.clone(),
                p.to_string(),
                format!("{total:.2}"),
                part(|s| s.restart_mix.grow),
                part(|s| s.restart_mix.shrink),
                part(|s| s.restart_mix.moved),
                part(|s| s.restart_mix.resumed),
            ]);
        }
    }
    table(&rows)
}

/// The report as text tables.
pub fn to_table(r: &SiaReport) -> String {
    let mut s = format!(
        "Sia (thesis ch. 3) reproduction: {} generated trace(s) per workload from seed {}{}\n\
         Ours = mean ± sd over the traces; thesis = its Table 3.3 / 3.4 (10 traces each); ratio = ours / thesis.\n\n",
        r.traces,
        r.seed,
        r.max_jobs
            .map_or(String::new(), |n| format!(", at most {n} jobs per trace"))
    );
    if !r.workloads("hetero").is_empty() {
        s.push_str("Table 3.3: heterogeneous, sia-hetero-64 (t4:6x4, rtx:3x8, a100:2x8)\n");
        s.push_str(&setting_table(r, "hetero", FTF_POLICIES));
        s.push('\n');
        s.push_str(&relative_table(r, "hetero", &["pollux", "gavel"]));
        s.push('\n');
        s.push_str("Restarts per job by what changed (grow / shrink = more / fewer GPUs, moved = as many elsewhere, resumed = back after holding none)\n");
        s.push_str(&restart_mix_table(r, "hetero"));
        s.push('\n');
    }
    if !r.workloads("homog").is_empty() {
        s.push_str("Table 3.4: homogeneous, homog-64 (t4:16x4), TunedJobs up to 64 GPUs\n");
        s.push_str(&setting_table(r, "homog", HOMOG_POLICIES));
        s.push('\n');
        s.push_str(&relative_table(
            r,
            "homog",
            &["pollux", "shockwave", "gavel-ftf", "gavel"],
        ));
        s.push('\n');
        s.push_str("Restarts per job by what changed\n");
        s.push_str(&restart_mix_table(r, "homog"));
        s.push('\n');
    }
    let helios: Vec<&&str> = FTF_POLICIES
        .iter()
        .filter(|p| !r.cell("hetero", "helios", p).is_empty())
        .collect();
    if !helios.is_empty() {
        s.push_str("Fig 3.7: finish-time fairness on Helios-like traces, heterogeneous (worst rho over all traces; unfair = rho > 1, pooled). Isolated time: analytic = the job's rate curve on its fair share; simulated = the job alone under the same policy on each GPU type (the artifact's ftf_simulator)\n");
        let mut rows = vec![vec![
            "policy".to_string(),
            "worst rho analytic".into(),
            "simulated".into(),
            "thesis".into(),
            "unfair % analytic".into(),
            "simulated".into(),
            "thesis".into(),
        ]];
        for p in helios {
            let cell = r.cell("hetero", "helios", p);
            let analytic: Vec<FtfStats> = cell
                .iter()
                .map(|x| FtfStats {
                    rho_max: x.ftf_rho_max,
                    unfair_frac: x.ftf_unfair_frac,
                    jobs: x.ftf_jobs,
                })
                .collect();
            let simulated: Vec<FtfStats> = cell.iter().filter_map(|x| x.ftf_simulated).collect();
            let (worst, unfair) = FtfStats::pool(&analytic);
            let (sim_worst, sim_unfair) = if simulated.len() == cell.len() {
                let (w, u) = FtfStats::pool(&simulated);
                (format!("{w:.2}"), format!("{:.1}", u * 100.0))
            } else {
                ("-".into(), "-".into())
            };
            let th = PUBLISHED_FTF.iter().find(|x| x.0 == *p);
            rows.push(vec![
                p.to_string(),
                format!("{worst:.2}"),
                sim_worst,
                th.map_or("-".into(), |t| format!("{}", t.1)),
                format!("{:.1}", unfair * 100.0),
                sim_unfair,
                th.map_or("-".into(), |t| format!("{:.1}", t.2 * 100.0)),
            ]);
        }
        s.push_str(&table(&rows));
        s.push('\n');
    }
    if !r.runs.is_empty() {
        s.push_str("Policy time per round in the table runs (native, ms; thesis Fig 3.10 at 64 GPUs: Sia 96 / 426, Pollux 2200 / 4800, Gavel 13 / 28)\n");
        let mut rows = vec![vec![
            "setting".to_string(),
            "policy".into(),
            "rounds".into(),
            "median ms".into(),
            "p95 ms".into(),
            "max ms".into(),
            "fallback rounds".into(),
        ]];
        for setting in ["hetero", "homog"] {
            for p in HOMOG_POLICIES {
                let cell: Vec<&RunStats> = r
                    .runs
                    .iter()
                    .filter(|x| x.setting == setting && x.policy == *p)
                    .collect();
                if cell.is_empty() {
                    continue;
                }
                let med: Vec<f64> = cell.iter().map(|x| x.times.median_ms).collect();
                let p95: Vec<f64> = cell.iter().map(|x| x.times.p95_ms).collect();
                rows.push(vec![
                    setting.to_string(),
                    p.to_string(),
                    cell.iter()
                        .map(|x| x.times.rounds)
                        .sum::<usize>()
                        .to_string(),
                    format!("{:.2}", mean_std(&med).0),
                    format!("{:.2}", mean_std(&p95).0),
                    format!(
                        "{:.1}",
                        cell.iter().map(|x| x.times.max_ms).fold(0.0, f64::max)
                    ),
                    cell.iter()
                        .map(|x| x.times.fallbacks)
                        .sum::<usize>()
                        .to_string(),
                ]);
            }
        }
        s.push_str(&table(&rows));
        s.push_str("(medians and p95s are means over the traces' per-run values)\n\n");
    }
    if !r.scale.is_empty() {
        s.push_str(&format!(
            "Fig 3.10: policy time per round, Helios-like trace replicated with the cluster, first {} simulated hours\n",
            r.scale_hours
        ));
        let mut rows = vec![vec![
            "GPUs".to_string(),
            "jobs".into(),
            "policy".into(),
            "rounds".into(),
            "median ms".into(),
            "p95 ms".into(),
            "max ms".into(),
            "fallbacks".into(),
            "wall s".into(),
        ]];
        for x in &r.scale {
            rows.push(vec![
                x.gpus.to_string(),
                x.jobs.to_string(),
                x.policy.clone(),
                x.times.rounds.to_string(),
                format!("{:.2}", x.times.median_ms),
                format!("{:.2}", x.times.p95_ms),
                format!("{:.1}", x.times.max_ms),
                x.times.fallbacks.to_string(),
                format!("{:.1}", x.wall_s),
            ]);
        }
        s.push_str(&table(&rows));
        s.push('\n');
    }
    s.push_str("Targets (issue 5)\n");
    let mut rows = vec![vec![
        "claim".to_string(),
        "target".into(),
        "ours".into(),
        "holds".into(),
    ]];
    for c in checks(r) {
        rows.push(vec![
            c.claim,
            c.target,
            c.ours,
            if c.holds { "yes" } else { "NO" }.into(),
        ]);
    }
    s.push_str(&table(&rows));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_std_of_known_values() {
        let (m, s) = mean_std(&[1.0, 2.0, 3.0]);
        assert!((m - 2.0).abs() < 1e-12);
        assert!((s - 1.0).abs() < 1e-12);
        assert!(mean_std(&[]).0.is_nan());
    }

    #[test]
    fn scaled_cluster_keeps_the_type_mix() {
        let c = scaled_cluster(2048).unwrap();
        assert_eq!(c.total_gpus, 2048);
        assert!(scaled_cluster(100).is_err());
    }

    #[test]
    fn every_published_row_names_a_registered_policy() {
        for p in PUBLISHED {
            crate::policy::info(p.policy).unwrap();
        }
    }
}
