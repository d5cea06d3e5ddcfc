//! `schedlab pcs search`: PCS's preference solver (spec seed001 §2.5). SPEA2
//! (or the random-search ablation) over WFQ(T, W, ζ, δ) on the first apps of
//! a trace, evaluations spread over threads; writes the Pareto front (JSON,
//! CSV) and the three named picks as configuration files for
//! `--set pcs.config=FILE`.

use super::commands::{load_trace, TraceArgs};
use super::write_out;
use clap::{Args, Subcommand};
use schedlab_core::error::{Error, Result};
use schedlab_core::textio::read_text;
use schedlab_model::cluster::parse_cluster;
use schedlab_run::search::front::{non_dominated, picks, Point};
use schedlab_run::search::pcs::{Objective, Space, WfqProblem};
use schedlab_run::search::{random_search, recording_evaluator, spea2};
use schedlab_run::setup::{RunSettings, ZooSource};

#[derive(Subcommand)]
pub enum PcsCommand {
    /// Search WFQ configurations for the Pareto front of the chosen objectives.
    Search(SearchArgs),
}

#[derive(Args)]
pub struct SearchArgs {
    /// Training workload: a bundled trace or a trace file (e.g. the artifact's trace_0e4a51.csv,
    /// or `schedlab gen pcs-themis1 --out FILE`).
    #[arg(long)]
    pub trace: String,
    /// Trace format; detected from the header when omitted.
    #[arg(long = "trace-format")]
    pub trace_format: Option<String>,
    /// Cluster (the artifact's 64 GPUs by default).
    #[arg(long, default_value = "pcs-64")]
    pub cluster: String,
    /// Objectives to minimise, comma-separated: avg_ or pNN_ + jct, pred_error, unfairness.
    #[arg(long, default_value = "avg_jct,avg_pred_error")]
    pub objectives: String,
    /// Train on the first N apps of the trace (the artifact: 2001); 0 = all.
    #[arg(long, default_value_t = 2001)]
    pub apps: usize,
    /// spea2 | random (uniform points, the same budget).
    #[arg(long, default_value = "spea2")]
    pub method: String,
    /// heuristic: PCS's (T, W, clip, delta); raw: the 13 variables of its search without
    /// heuristics (Fig. 9c: class count, five thresholds, five rates, clip, delta).
    #[arg(long, default_value = "heuristic")]
    pub space: String,
    /// Evaluations (simulations) in total.
    #[arg(long, default_value_t = 1280)]
    pub evaluations: usize,
    /// SPEA2 population.
    #[arg(long, default_value_t = 70)]
    pub population: usize,
    /// SPEA2 offspring per generation.
    #[arg(long, default_value_t = 105)]
    pub offspring: usize,
    /// Threads evaluating in parallel (0 = all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Engine settings engine.KEY=VALUE for every evaluation (e.g. engine.placement=any),
    /// checked before the search starts.
    #[arg(long = "set")]
    pub set: Vec<String>,
    /// Model zoo: builtin or pollux-osdi21.
    #[arg(long, default_value = "builtin")]
    pub zoo: String,
    /// Write the front (and every evaluated point) as JSON here; stdout when omitted.
    #[arg(long)]
    pub out: Option<String>,
    /// Also write the front as CSV here.
    #[arg(long)]
    pub csv: Option<String>,
    /// Write the picks jct / bal / pred as configuration files PCS_config_<trace>_<pick>.json here.
    #[arg(long = "picks-dir")]
    pub picks_dir: Option<String>,
}

pub fn pcs(c: PcsCommand) -> Result<()> {
    match c {
        PcsCommand::Search(a) => search(a),
    }
}

fn search(a: SearchArgs) -> Result<()> {
    let objectives = Objective::parse_list(&a.objectives)?;
    if !["spea2", "random"].contains(&a.method.as_str()) {
        return Err(Error::config(format!(
            "--method {}: expected spea2 or random",
            a.method
        )));
    }
    if a.evaluations == 0 || a.population == 0 || a.offspring == 0 {
        return Err(Error::config(
            "--evaluations, --population and --offspring must be at least 1",
        ));
    }
    // No policy's settings: the search chooses the `pcs` policy's itself.
    let settings = RunSettings::parse(&a.set, &[], &read_text)?;
    let full = load_trace(&TraceArgs {
        name: &a.trace,
        format: a.trace_format.as_deref(),
        fill: None,
        aux: None,
    })?;
    let keep = if a.apps == 0 { full.jobs.len() } else { a.apps };
    let trace = full.subset(&full.name, None, keep)?;
    let zoo = ZooSource::named(&a.zoo).build(settings.zoo())?;
    let mut problem =
        WfqProblem::new(trace, parse_cluster(&a.cluster)?, zoo, settings, objectives)?;
    problem.space = Space::parse(&a.space)?;
    let threads = if a.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        a.threads
    };
    let bounds = problem.bounds();
    let names: Vec<String> = problem.objectives.iter().map(|o| o.name.clone()).collect();
    eprintln!(
        "pcs search: {} apps of {}, {} on {}, objectives {}, {} evaluations on {threads} threads; T in [{:.3}, {:.3}]",
        problem.trace.jobs.len(),
        full.name,
        a.method,
        a.cluster,
        names.join(", "),
        a.evaluations,
        bounds[0].0,
        bounds[0].1
    );
    let started = std::time::Instant::now();
    let mut evaluated: Vec<Point> = Vec::new();
    let objective = |x: &Vec<f64>| problem.evaluate(x);
    let mut evaluate = recording_evaluator(threads, &objective, &mut evaluated);
    let report = |n: usize, pts: &[Point]| {
        let front = non_dominated(pts);
        let best: Vec<String> = (0..names.len())
            .map(|k| {
                let b = front.iter().map(|p| p.f[k]).fold(f64::INFINITY, f64::min);
                format!("{} {:.4}", names[k], b)
            })
            .collect();
        eprintln!(
            "  {n:>5} evaluations, {:>6.1} s: front of {}, best {}",
            started.elapsed().as_secs_f64(),
            front.len(),
            best.join(", ")
        );
    };
    let final_points = if a.method == "spea2" {
        let settings = spea2::Settings {
            population: a.population,
            offspring: a.offspring,
            evaluations: a.evaluations,
            ..spea2::Settings::default()
        };
        spea2::run(&bounds, &settings, a.seed, &mut evaluate, &mut |p| {
            report(p.evaluations, p.population);
            true
        })
    } else {
        random_search(
            &bounds,
            a.evaluations,
            a.population,
            a.seed,
            &mut evaluate,
            &mut |n, pts| {
                report(n, pts);
                true
            },
        )
    };
    drop(evaluate);
    let seconds = started.elapsed().as_secs_f64();
    let front = non_dominated(&final_points);
    let heuristic = problem.space == Space::Heuristic;
    let describe = |p: &Point| {
        let cfg = problem.describe(p);
        let objectives = names
            .iter()
            .cloned()
            .zip(p.f.iter().map(|v| serde_json::json!(v)))
            .collect::<serde_json::Map<String, serde_json::Value>>();
        if heuristic {
            serde_json::json!({
                "T": p.x[0], "W": p.x[1], "clip": p.x[2], "delta": p.x[3],
                "objectives": objectives, "config": cfg.map(|c| c.artifact_json()),
            })
        } else {
            serde_json::json!({"x": p.x, "objectives": objectives, "config": cfg.map(|c| c.artifact_json())})
        }
    };
    let chosen = if names.len() >= 2 {
        picks(&front)
    } else {
        None
    };
    let json = serde_json::json!({
        "trace": full.name,
        "apps": problem.trace.jobs.len(),
        "cluster": a.cluster,
        "method": a.method,
        "objectives": names,
        "evaluations": evaluated.len(),
        "seconds": seconds,
        "seed": a.seed,
        "space": a.space,
        "bounds": if heuristic {
            serde_json::json!({"T": bounds[0], "W": bounds[1], "clip": bounds[2], "delta": bounds[3]})
        } else {
            serde_json::json!(bounds)
        },
        "front": front.iter().map(describe).collect::<Vec<_>>(),
        "picks": chosen.as_ref().map(|k| serde_json::json!({
            "jct": describe(&k.jct), "bal": describe(&k.bal), "pred": describe(&k.pred),
        })),
        "evaluated": evaluated.iter().map(|p| serde_json::json!({"x": p.x, "f": p.f})).collect::<Vec<_>>(),
    });
    let text = serde_json::to_string_pretty(&json).map_err(|e| Error::Internal(e.to_string()))?;
    write_out(a.out.as_deref(), &(text + "\n"))?;
    if let Some(path) = &a.csv {
        // The raw space's 13 variables go in one column (`;`-separated).
        let mut csv = format!(
            "{},classes,thresholds,weights,{}\n",
            if heuristic { "T,W,clip,delta" } else { "x" },
            names.join(",")
        );
        for p in &front {
            let (k, th, w) = match problem.describe(p) {
                Some(c) => (
                    c.weights.len(),
                    c.thresholds
                        .iter()
                        .map(|t| t.to_string())
                        .collect::<Vec<_>>()
                        .join(";"),
                    c.weights
                        .iter()
                        .map(|t| t.to_string())
                        .collect::<Vec<_>>()
                        .join(";"),
                ),
                None => (0, String::new(), String::new()),
            };
            let fs: Vec<String> = p.f.iter().map(|v| v.to_string()).collect();
            let xs: Vec<String> = p.x.iter().map(|v| v.to_string()).collect();
            let xs = xs.join(if heuristic { "," } else { ";" });
            csv += &format!("{xs},{k},{th},{w},{}\n", fs.join(","));
        }
        write_out(Some(path), &csv)?;
    }
    if let (Some(dir), Some(k)) = (&a.picks_dir, &chosen) {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::config(format!("cannot create {dir}: {e}")))?;
        let stem = std::path::Path::new(&full.name)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("trace")
            .trim_start_matches("trace_")
            .to_string();
        for (pick, p) in [("jct", &k.jct), ("bal", &k.bal), ("pred", &k.pred)] {
            if let Some(cfg) = problem.describe(p) {
                let path = format!("{dir}/PCS_config_{stem}_{pick}.json");
                write_out(Some(&path), &(cfg.artifact_json().to_string() + "\n"))?;
                eprintln!("wrote {path}");
            }
        }
    }
    eprintln!(
        "front of {} from {} evaluations in {seconds:.1} s",
        front.len(),
        evaluated.len()
    );
    Ok(())
}
