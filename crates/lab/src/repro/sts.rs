//! `schedlab reproduce sts` (spec seed002 §6): STS and its baselines on
//! generated STS workloads (cluster sizes x arrival patterns x instances,
//! common random numbers within an instance), the sharing study, and one
//! scheduling call's time against size; the paper's figures (4a-c, 5, 6, 7)
//! as tables and its stated results R1-R12 beside ours with the ratio, the
//! tolerance and whether each holds. The paper gives no per-point figure
//! values, so the targets are the text's averages.
//!
//! Two profile sources (docs/STS.md): the STS authors' data (`--sts-data
//! DIR`: their AlexNet profiles on K80/M60, epoch laws, node costs, sharing
//! slots, generator rules and instance seeds 1000 (i+1)^2, on `sts-k80m60-N`)
//! or, without it, the spec's placeholder profiles on `sts-N`, whose
//! results are labelled placeholder results.

pub use super::sts_targets::Target;
use super::sts_targets::{cost, num, over_scenarios, pcr, targets};
use schedlab_core::error::{Error, Result};
use schedlab_model::cluster::parse_cluster;
use schedlab_model::perf::sts_data::StsData;
use schedlab_model::perf::ModelZoo;
use schedlab_model::workload::gen::generate;
use schedlab_model::workload::Trace;
use schedlab_run::report::{prepare_policy, run_policy, RunSettings, ZooSource};
use serde::Serialize;
use std::sync::Arc;

/// The methods of Figs. 4-5 (EDF is the reference).
pub const METHODS: &[&str] = &["sts", "edf", "rg", "dp", "avg-edf", "avg-rg", "avg-dp"];
/// Ratio ours / paper accepted as agreement.
pub const TOLERANCE: f64 = 0.25;

pub struct Options {
    /// Cluster sizes in nodes (the paper: 10 to 100).
    pub sizes: Vec<u32>,
    /// Arrival patterns: exponential, high, low.
    pub patterns: Vec<String>,
    /// Instances (seeds) per scenario (the paper: 3).
    pub instances: u32,
    /// Sizes of the scheduling-call timing (Fig. 7).
    pub timing_sizes: Vec<u32>,
    /// The user's settings, checked.
    pub settings: RunSettings,
    pub seed: u64,
    /// The authors' data; None runs the placeholder profiles.
    pub data: Option<Arc<StsData>>,
}

impl Options {
    /// The instance seeds: the authors' 1000 (i + 1)^2 with their data,
    /// else `seed + i`.
    pub fn instance_seed(&self, i: u32) -> u64 {
        match self.data {
            Some(_) => 1000 * (i as u64 + 1).pow(2),
            None => self.seed + i as u64,
        }
    }

    /// The GPU-type family of the main runs: K80/M60 with the authors'
    /// data (all they profile), else K80, M60 and A100.
    fn family(&self) -> &'static str {
        if self.data.is_some() {
            "k80m60"
        } else {
            "all"
        }
    }
}

/// One method's costs on one scenario, averaged over its instances.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioRow {
    pub pattern: String,
    pub nodes: u32,
    pub method: String,
    pub gpu_cost_usd: f64,
    pub tardiness_cost_usd: f64,
    pub total_cost_usd: f64,
    pub missed_jobs: f64,
    /// Most jobs queued or running at a scheduling call (largest over instances).
    pub max_queue: u32,
    pub wall_s: f64,
}

/// Sharing's gain on one family and size (total cost, instance-averaged).
#[derive(Debug, Clone, Serialize)]
pub struct SharingRow {
    pub family: String,
    pub nodes: u32,
    pub without_usd: f64,
    pub with_usd: f64,
    pub pcr_pct: f64,
}

/// One scheduling call with every job queued at once.
#[derive(Debug, Clone, Serialize)]
pub struct TimingRow {
    pub nodes: u32,
    pub jobs: usize,
    pub method: String,
    pub call_ms: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Where the job profiles come from.
    pub profiles: String,
    /// True on the placeholder profiles: every number is a placeholder result.
    pub placeholder: bool,
    pub scenarios: Vec<ScenarioRow>,
    pub sharing: Vec<SharingRow>,
    pub timing: Vec<TimingRow>,
    pub targets: Vec<Target>,
    pub notes: Vec<String>,
    /// Wall-clock seconds of the whole reproduction.
    pub wall_s: f64,
}

/// One instance. With the authors' data it follows their generator rules;
/// otherwise the zoo's knobs (`--set zoo.KEY`) reach the generator too, so
/// due dates come from the same placeholder profiles the runs use.
fn workload(
    opts: &Options,
    nodes: u32,
    family: &str,
    pattern: &str,
    widen: f64,
    seed: u64,
) -> Result<Trace> {
    let mut set = vec![
        ("nodes".to_string(), nodes.to_string()),
        ("family".to_string(), family.to_string()),
        ("arrivals".to_string(), pattern.to_string()),
        ("due_widen".to_string(), widen.to_string()),
    ];
    match &opts.data {
        Some(data) => {
            schedlab_model::workload::gen::sts::generate_with_data(data, None, seed, &set)
        }
        None => {
            set.extend(zoo_pairs(&opts.settings).iter().cloned());
            generate("sts", None, seed, &set)
        }
    }
}

/// The `zoo.*` settings given (the generator takes the same keys).
fn zoo_pairs(o: &RunSettings) -> &[(String, String)] {
    o.given().get("zoo").map_or(&[][..], |v| v)
}

/// The built-in zoo with the settings' knobs and the authors' data.
fn zoo(opts: &Options) -> Result<Arc<ModelZoo>> {
    let source = ZooSource {
        sts_data: opts.data.clone(),
        ..ZooSource::named("builtin")
    };
    Ok(Arc::new(source.build(opts.settings.zoo())?))
}

/// Every policy the reproduction runs (the owners `--set` may name).
pub const POLICIES: &[&str] = METHODS;

fn cluster_name(family: &str, nodes: u32) -> String {
    match family {
        "all" => format!("sts-{nodes}"),
        f => format!("sts-{f}-{nodes}"),
    }
}

/// One method's run on one instance.
#[derive(Debug, Clone, Copy)]
struct RunCost {
    gpu: f64,
    tardy: f64,
    missed: f64,
    max_queue: u32,
    wall_s: f64,
}

fn run_one(
    trace: &Trace,
    cluster: &str,
    zoo: &Arc<ModelZoo>,
    method: &str,
    o: &RunSettings,
    seed: u64,
) -> Result<RunCost> {
    let cluster = Arc::new(parse_cluster(cluster)?);
    let run = run_policy(trace, &cluster, zoo, method, o, seed, &mut |_| true)?;
    let m = &run.metrics;
    let max_queue = run
        .outcome
        .rounds
        .iter()
        .map(|r| r.running + r.waiting)
        .max()
        .unwrap_or(0);
    Ok(RunCost {
        gpu: m.gpu_cost_usd,
        tardy: m.tardiness_cost_usd,
        missed: m.due_missed_frac * m.jobs as f64,
        max_queue,
        wall_s: run.wall_s,
    })
}

fn mean(v: &[f64]) -> f64 {
    schedlab_core::num::mean(v)
}

/// Figs. 4-5: every method on every (pattern, size), instance-averaged.
fn scenarios(
    opts: &Options,
    zoo: &Arc<ModelZoo>,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<ScenarioRow>> {
    let family = opts.family();
    let mut rows = Vec::new();
    for pattern in &opts.patterns {
        for &nodes in &opts.sizes {
            let mut acc: Vec<Vec<RunCost>> = vec![Vec::new(); METHODS.len()];
            for i in 0..opts.instances {
                let seed = opts.instance_seed(i);
                let trace = workload(opts, nodes, family, pattern, 1.0, seed)?;
                for (k, method) in METHODS.iter().enumerate() {
                    let r = run_one(
                        &trace,
                        &cluster_name(family, nodes),
                        zoo,
                        method,
                        &opts.settings,
                        seed,
                    )?;
                    progress(&format!(
                        "sts {pattern} {nodes} nodes seed {seed} {method:<8} total ${:.0} (GPU ${:.0}), {:.0} missed, {:.1} s",
                        r.gpu + r.tardy, r.gpu, r.missed, r.wall_s
                    ));
                    acc[k].push(r);
                }
            }
            for (k, method) in METHODS.iter().enumerate() {
                let col =
                    |f: fn(&RunCost) -> f64| mean(&acc[k].iter().map(f).collect::<Vec<f64>>());
                let (gpu, tardy) = (col(|r| r.gpu), col(|r| r.tardy));
                rows.push(ScenarioRow {
                    pattern: pattern.clone(),
                    nodes,
                    method: method.to_string(),
                    gpu_cost_usd: gpu,
                    tardiness_cost_usd: tardy,
                    total_cost_usd: gpu + tardy,
                    missed_jobs: col(|r| r.missed),
                    max_queue: acc[k].iter().map(|r| r.max_queue).max().unwrap_or(0),
                    wall_s: col(|r| r.wall_s),
                });
            }
        }
    }
    Ok(rows)
}

/// The sharing study's families: both of the paper's with the placeholder
/// profiles; K80/M60 only with the authors' data (no A100 profile).
fn sharing_families(opts: &Options) -> &'static [&'static str] {
    if opts.data.is_some() {
        &["k80m60"]
    } else {
        &["k80m60", "a100"]
    }
}

/// Fig. 6: STS with and without sharing, due dates widened by 1.2 for both.
fn sharing(
    opts: &Options,
    zoo: &Arc<ModelZoo>,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<SharingRow>> {
    let mut rows = Vec::new();
    for family in sharing_families(opts) {
        for &nodes in &opts.sizes {
            let (mut without, mut with_) = (Vec::new(), Vec::new());
            for pattern in &opts.patterns {
                for i in 0..opts.instances {
                    let seed = opts.instance_seed(i);
                    let trace = workload(opts, nodes, family, pattern, 1.2, seed)?;
                    let c = cluster_name(family, nodes);
                    let a = run_one(&trace, &c, zoo, "sts", &opts.settings, seed)?;
                    let o = opts.settings.with("sts", "sharing", "true")?;
                    let b = run_one(&trace, &c, zoo, "sts", &o, seed)?;
                    without.push(a.gpu + a.tardy);
                    with_.push(b.gpu + b.tardy);
                }
            }
            let (w, s) = (mean(&without), mean(&with_));
            progress(&format!(
                "sts sharing {family} {nodes} nodes: ${w:.0} -> ${s:.0}"
            ));
            rows.push(SharingRow {
                family: family.to_string(),
                nodes,
                without_usd: w,
                with_usd: s,
                pcr_pct: 100.0 * (w - s) / w,
            });
        }
    }
    Ok(rows)
}

/// Fig. 7: one call with 2N and 4N jobs queued at time 0.
fn timing(opts: &Options, zoo: &Arc<ModelZoo>) -> Result<Vec<TimingRow>> {
    let family = opts.family();
    let mut rows = Vec::new();
    for &nodes in &opts.timing_sizes {
        for per_node in [2usize, 4] {
            let seed = opts.instance_seed(0);
            let mut trace = workload(opts, nodes, family, "exponential", 1.0, seed)?;
            trace.jobs.truncate(per_node * nodes as usize);
            for j in &mut trace.jobs {
                j.due = j.due.map(|d| d - j.arrival);
                j.arrival = 0.0;
            }
            let cluster = Arc::new(parse_cluster(&cluster_name(family, nodes))?);
            for method in ["sts", "rg", "edf"] {
                let (mut sim, _) =
                    prepare_policy(&trace, &cluster, zoo, method, &opts.settings, seed)?;
                sim.run_until(0.0)?;
                let out = sim.outcome();
                let call = out
                    .rounds
                    .first()
                    .ok_or_else(|| Error::Internal("no scheduling call at time 0".into()))?;
                rows.push(TimingRow {
                    nodes,
                    jobs: trace.jobs.len(),
                    method: method.into(),
                    call_ms: call.policy_s * 1e3,
                });
            }
        }
    }
    Ok(rows)
}

pub fn reproduce(opts: &Options, progress: &mut dyn FnMut(&str)) -> Result<Report> {
    if opts.sizes.is_empty() || opts.patterns.is_empty() || opts.instances == 0 {
        return Err(Error::config(
            "reproduce sts: give at least one size, pattern and instance",
        ));
    }
    for p in &opts.patterns {
        if !["exponential", "high", "low"].contains(&p.as_str()) {
            return Err(Error::config(format!(
                "--traces: '{p}' is not an arrival pattern (exponential, high, low)"
            )));
        }
    }
    if opts.data.is_some() && !zoo_pairs(&opts.settings).is_empty() {
        return Err(Error::config(
            "reproduce sts --sts-data: the zoo's knobs (--set zoo.*) shape the placeholder profiles only",
        ));
    }
    let started = web_time::Instant::now();
    // One zoo for every run (the knobs of `--set zoo.KEY` applied once).
    let zoo = zoo(opts)?;
    let scenarios = scenarios(opts, &zoo, progress)?;
    let sharing = sharing(opts, &zoo, progress)?;
    let timing = timing(opts, &zoo)?;
    let targets = targets(&scenarios, &sharing, &timing);
    let (profiles, notes) = match &opts.data {
        Some(d) => (
            format!(
                "the STS authors' data ({}: {} AlexNet profiles on K80/M60, {} early-stopping laws, their node costs and sharing slots), their generator rules and instance seeds, on sts-k80m60-N",
                d.source,
                d.profiles.len(),
                d.families.len()
            ),
            vec![
                "Costs are instance-averaged per scenario, then PCRs and ratios averaged over scenarios (spec §5).".into(),
                "R6 on A100: not measured (the authors' data profiles K80 and M60 only; their fractions_A100.csv labels its rows K80).".into(),
            ],
        ),
        None => (
            "PLACEHOLDER profiles (spec seed002 §4.1; without --sts-data): these are placeholder results, not the paper's setting".into(),
            vec![
                "Placeholder results: job profiles and epoch laws are the spec's placeholders; `--sts-data ../shared/data/sts` runs the authors' data.".into(),
                "Costs are instance-averaged per scenario, then PCRs and ratios averaged over scenarios (spec §5).".into(),
            ],
        ),
    };
    Ok(Report {
        profiles,
        placeholder: opts.data.is_none(),
        scenarios,
        sharing,
        timing,
        targets,
        notes,
        wall_s: started.elapsed().as_secs_f64(),
    })
}

/// A text table with a header row.
fn grid(head: &[&str], rows: Vec<Vec<String>>) -> String {
    let mut all = vec![head.iter().map(|h| h.to_string()).collect::<Vec<String>>()];
    all.extend(rows);
    super::table(&all)
}

fn patterns_of(r: &Report) -> Vec<String> {
    let mut patterns: Vec<String> = r.scenarios.iter().map(|s| s.pattern.clone()).collect();
    patterns.dedup();
    patterns
}

fn scenarios_of<'a>(r: &'a Report, pattern: &str) -> Vec<ScenarioRow> {
    r.scenarios
        .iter()
        .filter(|s| s.pattern == pattern)
        .cloned()
        .collect()
}

/// One row per arrival pattern: the pattern, then `cell(its scenarios,
/// method)` for every method in `methods`.
fn per_pattern(
    r: &Report,
    methods: &[&str],
    cell: impl Fn(&[ScenarioRow], &str) -> String,
) -> Vec<Vec<String>> {
    patterns_of(r)
        .iter()
        .map(|p| {
            let mine = scenarios_of(r, p);
            let mut row = vec![p.clone()];
            row.extend(methods.iter().map(|m| cell(&mine, m)));
            row
        })
        .collect()
}

/// One row per (pattern, size): `cell(that scenario, method)` per method.
fn per_size(
    r: &Report,
    methods: &[&str],
    cell: impl Fn(&[&ScenarioRow], &str) -> String,
) -> Vec<Vec<String>> {
    let mut keys: Vec<(String, u32)> = r
        .scenarios
        .iter()
        .map(|s| (s.pattern.clone(), s.nodes))
        .collect();
    keys.dedup();
    keys.iter()
        .map(|(p, n)| {
            let group: Vec<&ScenarioRow> = r
                .scenarios
                .iter()
                .filter(|s| &s.pattern == p && s.nodes == *n)
                .collect();
            let mut row = vec![p.clone(), n.to_string()];
            row.extend(methods.iter().map(|m| cell(&group, m)));
            row
        })
        .collect()
}

/// The report as text tables: the figures, then R1-R12.
pub fn to_table(r: &Report) -> String {
    let mut out = format!(
        "STS reproduction (spec seed002 §6)\nprofiles: {}\n",
        r.profiles
    );
    if r.placeholder {
        out.push_str(
            "PLACEHOLDER RESULTS: every number below comes from the placeholder profiles\n",
        );
    }
    out.push_str("\nFig. 4a: total cost / EDF's by cluster size (instance-averaged)\n\n");
    let mut head = vec!["pattern", "nodes"];
    head.extend(METHODS.iter().copied());
    out.push_str(&grid(
        &head,
        per_size(r, METHODS, |g, m| {
            format!("{:.3}", cost(g, m, false) / cost(g, "edf", false))
        }),
    ));
    out.push_str("\nFig. 4b: energy + tardiness cost / EDF's total, averaged over sizes (missed due dates per instance)\n\n");
    let mut head = vec!["pattern"];
    head.extend(METHODS.iter().copied());
    out.push_str(&grid(
        &head,
        per_pattern(r, METHODS, |mine, m| {
            let refs: Vec<&ScenarioRow> = mine.iter().collect();
            let e = over_scenarios(mine, |g| cost(g, m, true) / cost(g, "edf", false));
            let t = over_scenarios(mine, |g| {
                (cost(g, m, false) - cost(g, m, true)) / cost(g, "edf", false)
            });
            let missed: Vec<f64> = refs
                .iter()
                .filter(|s| s.method == m)
                .map(|s| s.missed_jobs)
                .collect();
            format!("{e:.3}+{t:.3} ({:.1})", mean(&missed))
        }),
    ));
    out.push_str("\nFig. 4c: total-cost PCR of STS (%), averaged over sizes\n\n");
    let others = ["rg", "edf", "avg-rg", "avg-edf"];
    let mut head = vec!["pattern"];
    head.extend(others.iter().copied());
    out.push_str(&grid(
        &head,
        per_pattern(r, &others, |mine, m| {
            num(over_scenarios(mine, |g| pcr(g, m, false)))
        }),
    ));
    out.push_str("\nFig. 5: energy cost / EDF's by cluster size\n\n");
    let fig5 = ["sts", "edf", "dp", "avg-dp"];
    let mut head = vec!["pattern", "nodes"];
    head.extend(fig5.iter().copied());
    out.push_str(&grid(
        &head,
        per_size(r, &fig5, |g, m| {
            format!("{:.3}", cost(g, m, true) / cost(g, "edf", true))
        }),
    ));
    out.push_str("\nFig. 6: STS total cost without and with GPU sharing, due dates x1.2\n\n");
    let rows: Vec<Vec<String>> = r
        .sharing
        .iter()
        .map(|s| {
            vec![
                s.family.clone(),
                s.nodes.to_string(),
                format!("{:.0}", s.without_usd),
                format!("{:.0}", s.with_usd),
                format!("{:.3}", s.with_usd / s.without_usd),
                format!("{:.1}", s.pcr_pct),
            ]
        })
        .collect();
    out.push_str(&grid(
        &["family", "nodes", "without $", "with $", "ratio", "PCR %"],
        rows,
    ));
    out.push_str("\nFig. 7: one scheduling call with every job queued\n\n");
    let rows: Vec<Vec<String>> = r
        .timing
        .iter()
        .map(|t| {
            vec![
                t.nodes.to_string(),
                t.jobs.to_string(),
                t.method.clone(),
                format!("{:.2}", t.call_ms),
            ]
        })
        .collect();
    out.push_str(&grid(&["nodes", "jobs", "method", "call ms"], rows));
    out.push_str("\nThe paper's stated results R1-R12 (what each measures below)\n\n");
    let rows: Vec<Vec<String>> = r
        .targets
        .iter()
        .map(|t| {
            vec![
                t.id.clone(),
                t.paper_text.clone(),
                t.ours_text.clone(),
                if t.ratio.is_finite() {
                    format!("{:.2}", t.ratio)
                } else {
                    "–".into()
                },
                t.tolerance.clone(),
                match t.holds {
                    Some(true) => "yes",
                    Some(false) => "NO",
                    None => "–",
                }
                .into(),
            ]
        })
        .collect();
    out.push_str(&grid(
        &["", "paper", "ours", "ratio", "tolerance", "holds"],
        rows,
    ));
    out.push('\n');
    for t in &r.targets {
        out.push_str(&format!("{:<4}{}\n", t.id, t.what));
    }
    let held = r.targets.iter().filter(|t| t.holds == Some(true)).count();
    let measured = r.targets.iter().filter(|t| t.holds.is_some()).count();
    out.push_str(&format!("\n{held} of {measured} measured targets hold.\n"));
    for n in &r.notes {
        out.push_str(&format!("{n}\n"));
    }
    out.push_str(&format!("wall time {:.1} s\n", r.wall_s));
    out
}
