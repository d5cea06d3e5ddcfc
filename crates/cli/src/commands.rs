//! `run`, `list` and `gen`.

use super::write_out;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use schedlab_core::error::{Error, Result};
use schedlab_core::settings::Choice;
use schedlab_core::textio::read_text;
use schedlab_model::cluster::{builtin_clusters, parse_cluster};
use schedlab_model::perf::{gavel_models_from_json, ModelZoo};
use schedlab_model::workload::gen::{generate_native_text, generators};
use schedlab_model::workload::{
    bundled_trace, bundled_traces, load_named, Fill, Format, ImportOptions, Trace,
};
use schedlab_policies::{registry, Knowledge};
use schedlab_run::isolated::FtfReference;
use schedlab_run::report::{to_csv, to_table};
use schedlab_run::setup::{parse_policies, RunSettings, RunSetup, ZooSource};
use schedlab_sim::ENGINE_PARAMS;
use std::io::IsTerminal;
use std::sync::Arc;

#[derive(Args)]
pub struct RunArgs {
    /// A bundled trace name (see `list traces`) or a trace file.
    #[arg(long)]
    pub trace: String,
    /// Trace format; detected from the header when omitted (see `list formats`).
    #[arg(long = "trace-format")]
    pub trace_format: Option<String>,
    /// Fill rule for traces without models: afs | sia | linear (see `list formats`).
    #[arg(long)]
    pub fill: Option<String>,
    /// Second table of a two-file format (PAI 2020: pai_job_table.csv).
    #[arg(long = "trace-aux")]
    pub trace_aux: Option<String>,
    /// Gavel simulation_throughputs.json: adds or replaces the gavel/* models.
    #[arg(long = "gavel-throughputs")]
    pub gavel_throughputs: Option<String>,
    /// Table models (goodput per GPU type and count, with scale units and a
    /// restart penalty; JSON, see docs/MODELS.md) that trace jobs can name.
    #[arg(long, value_name = "FILE")]
    pub table_models: Option<String>,
    /// A built-in cluster name or TYPE:NODESxGPUS[,...]; defaults to a bundled trace's recommended cluster.
    #[arg(long)]
    pub cluster: Option<String>,
    /// Pools: tenants' GPU quotas as NAME=GPUS,... or a CSV file with columns pool,quota;
    /// every job's tenant must name one (see docs/ARCHITECTURE.md, "Pools").
    #[arg(long)]
    pub pools: Option<String>,
    /// Policies to compare, comma-separated; defaults to a bundled trace's recommended set.
    #[arg(long)]
    pub policy: Option<String>,
    /// Setting OWNER.KEY=VALUE (OWNER is `engine`, `zoo` or one of the run's policies;
    /// `pcs.config=FILE` reads a PCS configuration file); repeatable. Every entry is checked
    /// before anything runs.
    #[arg(long = "set")]
    pub set: Vec<String>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// table | json | csv
    #[arg(long, default_value = "table")]
    pub format: String,
    /// Write the report here instead of stdout.
    #[arg(long)]
    pub out: Option<String>,
    /// Also write each policy's timeline (allocation segments, rounds) as JSON here.
    #[arg(long)]
    pub timeline: Option<String>,
    /// Model zoo: builtin, or pollux-osdi21 (the Pollux simulator's application settings).
    #[arg(long, default_value = "builtin")]
    pub zoo: String,
    /// Profile directory in the Pollux/Sia layout, fitted at load time and used instead of
    /// the built-in models of the same name; repeatable (directories are merged).
    #[arg(long)]
    pub profiles: Vec<String>,
    /// The STS authors' data directory (e.g. ../shared/data/sts): adds their measured job
    /// types (sts-data/*) and uses their node costs and GPU-sharing slots for K80 and M60.
    #[arg(long = "sts-data", value_name = "DIR")]
    pub sts_data: Option<String>,
    /// Finish-time fairness reference: analytic (the job's rate curve on its fair share) or
    /// simulated (the job alone under the same policy on each GPU type, as the Sia artifact does;
    /// slower).
    #[arg(long, default_value = "analytic")]
    pub ftf: String,
}

/// The cluster of a run: `--cluster`, else the bundled trace's own, with
/// `--pools` laid over it (shared by `run` and `explain`).
pub(crate) fn cluster_of_run(
    cluster: Option<&str>,
    pools: Option<&str>,
    trace_name: &str,
    trace: &Trace,
) -> Result<schedlab_model::cluster::Cluster> {
    let name = match (cluster, bundled_trace(trace_name)) {
        (Some(c), _) => c.to_string(),
        (None, Some(b)) => b.cluster.to_string(),
        (None, None) => {
            return Err(Error::config(
                "--cluster is required for a trace file (e.g. --cluster homog-64)",
            ))
        }
    };
    let pools = pools
        .map(schedlab_model::cluster::Pools::from_arg)
        .transpose()?;
    schedlab_run::report::cluster_for(&name, trace, pools)
}

/// How the user asked for a trace to be read.
pub(crate) struct TraceArgs<'a> {
    pub name: &'a str,
    pub format: Option<&'a str>,
    pub fill: Option<&'a str>,
    pub aux: Option<&'a str>,
}

pub(crate) fn load_trace(a: &TraceArgs) -> Result<Trace> {
    let fmt = match a.format {
        Some(f) => Some(Format::by_name(f).ok_or_else(|| {
            Error::config(format!(
                "unknown trace format '{f}'; known: {}",
                Format::ALL
                    .iter()
                    .map(|(_, n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?),
        None => None,
    };
    let fill = match a.fill {
        Some(f) => Some(Fill::by_name(f).ok_or_else(|| {
            Error::config(format!(
                "unknown fill rule '{f}'; known: {}",
                Fill::ALL
                    .iter()
                    .map(|(_, n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?),
        None => None,
    };
    let plain = fmt.is_none() && fill.is_none() && a.aux.is_none();
    if plain {
        if let Some(t) = load_named(a.name) {
            return t;
        }
    }
    if !std::path::Path::new(a.name).exists() {
        return Err(Error::config(format!(
            "trace '{}' is neither a bundled trace ({}) nor a file",
            a.name,
            bundled_traces()
                .iter()
                .map(|t| t.name)
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let text = read_text(a.name)?;
    let aux_text = match a.aux {
        Some(p) => Some(read_text(p)?),
        None => None,
    };
    let opts = ImportOptions {
        format: fmt,
        fill,
        aux: a.aux.zip(aux_text.as_deref()),
    };
    let trace = Trace::parse_with(a.name, &text, &opts)?;
    if trace.skipped > 0 || !trace.notes.is_empty() {
        eprintln!(
            "{}: {} jobs imported as '{}', {} rows skipped",
            a.name,
            trace.jobs.len(),
            trace.format,
            trace.skipped
        );
        for n in &trace.notes {
            eprintln!("  {n}");
        }
    }
    Ok(trace)
}

pub fn run(a: RunArgs) -> Result<()> {
    if !["table", "json", "csv"].contains(&a.format.as_str()) {
        return Err(Error::config(format!(
            "--format {}: expected table, json or csv",
            a.format
        )));
    }
    let trace = load_trace(&TraceArgs {
        name: &a.trace,
        format: a.trace_format.as_deref(),
        fill: a.fill.as_deref(),
        aux: a.trace_aux.as_deref(),
    })?;
    let bundled = bundled_trace(&a.trace);
    let cluster = cluster_of_run(a.cluster.as_deref(), a.pools.as_deref(), &a.trace, &trace)?;
    let policies: Vec<String> = match (&a.policy, &bundled) {
        (Some(p), _) => parse_policies("--policy", p)?,
        (None, Some(b)) => b.policies.iter().map(|s| s.to_string()).collect(),
        (None, None) => vec!["fifo".to_string()],
    };
    let ftf = FtfReference::from_name(&a.ftf)
        .ok_or_else(|| Error::config(format!("--ftf {}: expected analytic or simulated", a.ftf)))?;
    let settings = RunSettings::parse(&a.set, &policies, &read_text)?;
    let zoo = ZooSource {
        name: a.zoo.clone(),
        afs_tables: None,
        profiles: if a.profiles.is_empty() {
            None
        } else {
            Some((
                super::models::read_profiles(&a.profiles)?,
                a.profiles.join(", "),
            ))
        },
        table_models: match &a.table_models {
            Some(path) => schedlab_model::perf::table_models_from_json(path, &read_text(path)?)?,
            None => Vec::new(),
        },
        gavel_models: match &a.gavel_throughputs {
            Some(path) => gavel_models_from_json(path, &read_text(path)?)?,
            None => Vec::new(),
        },
        sts_data: match &a.sts_data {
            Some(dir) => Some(Arc::new(schedlab_model::perf::sts_data::StsData::read_dir(
                dir,
            )?)),
            None => None,
        },
    };
    let setup = RunSetup::new(trace, cluster, &zoo, policies, settings, a.seed)?;

    let show = std::io::stderr().is_terminal();
    let mut results = Vec::new();
    for p in &setup.policies {
        let bar = if show {
            ProgressBar::new(setup.trace.jobs.len() as u64)
        } else {
            ProgressBar::hidden()
        };
        bar.set_style(
            ProgressStyle::with_template("{prefix:>10} [{bar:30}] {pos}/{len} jobs  {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_prefix(p.clone());
        let mut cb = |pr: &schedlab_sim::Progress| {
            bar.set_position(pr.completed as u64);
            bar.set_message(format!("t = {:.1} h", pr.now / 3600.0));
            true
        };
        let mut r = setup.run(p, &mut cb)?;
        if ftf == FtfReference::Simulated {
            bar.set_message("isolated runs for finish-time fairness");
            schedlab_run::isolated::apply_simulated_ftf(
                &mut r,
                &setup.trace,
                &setup.cluster,
                &setup.zoo,
                &setup.settings,
                setup.seed,
            )?;
        }
        bar.finish_and_clear();
        results.push(r);
    }
    let report = setup.report(results);
    if let Some(path) = &a.timeline {
        let tl: Vec<serde_json::Value> = report
            .results
            .iter()
            .map(|r| serde_json::json!({"policy": r.policy, "timeline": r.outcome.timeline, "rounds": r.outcome.rounds}))
            .collect();
        let text = serde_json::to_string(&tl).map_err(|e| Error::Internal(e.to_string()))?;
        write_out(Some(path), &text)?;
    }
    let text = match a.format.as_str() {
        "json" => {
            serde_json::to_string_pretty(&report).map_err(|e| Error::Internal(e.to_string()))?
                + "\n"
        }
        "csv" => to_csv(&report),
        _ => to_table(&report),
    };
    write_out(a.out.as_deref(), &text)
}

pub fn list(what: &str, json: bool) -> Result<()> {
    let zoo = ModelZoo::builtin();
    let (text, value) = match what {
        "traces" => {
            let list = bundled_traces();
            let mut t = String::new();
            for b in &list {
                t.push_str(&format!(
                    "{:<22} {:>5} jobs  cluster {:<16} policies {}\n    {}\n",
                    b.name,
                    b.jobs,
                    b.cluster,
                    b.policies.join(","),
                    b.description
                ));
            }
            (t, serde_json::to_value(&list))
        }
        "clusters" => {
            let mut t = String::new();
            for c in builtin_clusters() {
                let total = parse_cluster(c.name).map(|x| x.total_gpus).unwrap_or(0);
                t.push_str(&format!("{:<18} {:<28} {:>5} GPUs  {}\n", c.name, c.spec, total, c.description));
            }
            t.push_str("\nAny TYPE:NODESxGPUS[,...][@RACK] spec also works. GPU types: ");
            t.push_str(&schedlab_model::cluster::CATALOG.iter().map(|g| g.name).collect::<Vec<_>>().join(", "));
            t.push('\n');
            (t, serde_json::to_value(builtin_clusters()))
        }
        "policies" => {
            let mut t = String::new();
            for p in registry() {
                t.push_str(&format!("{:<10} {} ({})\n    {}\n", p.name, p.title, p.source, p.description));
                if p.knowledge == Knowledge::Oracle {
                    t.push_str(&format!("    {}: it is told each job's true length\n", p.knowledge.note()));
                }
                for s in p.params {
                    t.push_str(&format!("    --set {}.{}={}  {}  [{}]\n", p.name, s.name, s.default, s.help, kind_text(&s.kind)));
                }
            }
            (t, serde_json::to_value(registry()))
        }
        "engine" => {
            let mut t = String::from("engine parameters (--set engine.KEY=VALUE):\n");
            for s in ENGINE_PARAMS {
                t.push_str(&format!("    {}={}  {}  [{}]\n", s.name, s.default, s.help, kind_text(&s.kind)));
            }
            (t, serde_json::to_value(ENGINE_PARAMS))
        }
        "models" => {
            let mut t = String::from("zoo parameters (--set zoo.KEY=VALUE with run and reproduce; gen sts takes the same keys):\n");
            for s in schedlab_model::perf::ZOO_PARAMS {
                t.push_str(&format!("    {}={}  {}  [{}]\n", s.name, s.default, s.help, kind_text(&s.kind)));
            }
            for m in zoo.models() {
                t.push_str(&format!(
                    "{:<24} family {:<8} batch {:>5}  max GPUs {:>3}  restart {:>4}s  {}\n    source: {}\n",
                    m.name,
                    m.family,
                    m.default_batch,
                    if m.max_gpus == 0 { "-".to_string() } else { m.max_gpus.to_string() },
                    m.restart_s,
                    m.description,
                    m.provenance
                ));
            }
            (t, serde_json::to_value(zoo.models()))
        }
        "generators" => {
            let mut t = String::new();
            for g in generators() {
                t.push_str(&format!("{:<16} {} (default {} jobs)\n", g.name, g.description, g.default_jobs));
                for s in g.params {
                    t.push_str(&format!("    --set {}={}  {}  [{}]\n", s.name, s.default, s.help, kind_text(&s.kind)));
                }
            }
            (t, serde_json::to_value(generators()))
        }
        "formats" => {
            let mut t = String::new();
            let mut v = Vec::new();
            for (f, name, desc) in Format::ALL {
                let fill = f.default_fill().map_or("-", |x| x.name());
                t.push_str(&format!("{name:<13} {desc}\n              default fill: {fill}\n"));
                v.push(serde_json::json!({"name": name, "description": desc, "default_fill": fill}));
            }
            t.push_str("\nfill rules (--fill) for formats that give no model:\n");
            for (_, name, desc) in Fill::ALL {
                t.push_str(&format!("  {name:<8} {desc}\n"));
            }
            (t, Ok(serde_json::Value::Array(v)))
        }
        other => {
            return Err(Error::config(format!(
                "list {other}: expected traces, clusters, policies, models, generators, formats or engine"
            )))
        }
    };
    let out = if json {
        serde_json::to_string_pretty(&value.map_err(|e| Error::Internal(e.to_string()))?)
            .map_err(|e| Error::Internal(e.to_string()))?
            + "\n"
    } else {
        text
    };
    write_out(None, &out)
}

fn kind_text(k: &schedlab_core::params::ParamKind) -> String {
    use schedlab_core::params::ParamKind::*;
    match k {
        Float {
            min,
            max,
            nonzero_min: None,
        } => format!("number {min}..{max}"),
        Float {
            max,
            nonzero_min: Some(least),
            ..
        } => format!("0 or a number {least}..{max}"),
        Int { min, max } => format!("integer {min}..{max}"),
        Bool => "true|false".into(),
        Choice { options } => options.join("|"),
        List { min, max } => format!("numbers {min}..{max}, comma-separated"),
    }
}

#[derive(Args)]
pub struct GenArgs {
    /// Generator name (see `list generators`).
    pub name: String,
    #[arg(long)]
    pub jobs: Option<usize>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Generator parameter KEY=VALUE; repeatable.
    #[arg(long = "set")]
    pub set: Vec<String>,
    /// Output file (native CSV); stdout when omitted.
    #[arg(long)]
    pub out: Option<String>,
    /// sts: follow the STS authors' generator on their data in DIR (e.g. ../shared/data/sts):
    /// their job types, due dates, weights and arrival rules (docs/STS.md); run the result
    /// with `run --sts-data DIR --cluster sts-k80m60-N`.
    #[arg(long = "sts-data", value_name = "DIR")]
    pub sts_data: Option<String>,
}

pub fn gen(a: GenArgs) -> Result<()> {
    let mut overrides: Vec<(String, String)> = Vec::new();
    for s in &a.set {
        let (k, v) = s
            .split_once('=')
            .map(|(k, v)| (k.trim(), v.trim()))
            .ok_or_else(|| Error::config(format!("--set {s}: expected KEY=VALUE")))?;
        match overrides.iter().find(|(x, _)| x == k) {
            Some((_, old)) if old == v => {}
            Some((_, old)) => {
                return Err(Error::config(format!(
                    "--set {k} is given twice, as {old} and {v}: keep one"
                )))
            }
            None => overrides.push((k.to_string(), v.to_string())),
        }
    }
    let (text, n) = match &a.sts_data {
        None => generate_native_text(&a.name, a.jobs, a.seed, &overrides)?,
        Some(dir) if a.name == "sts" => {
            let data = schedlab_model::perf::sts_data::StsData::read_dir(dir)?;
            let trace = schedlab_model::workload::gen::sts::generate_with_data(
                &data, a.jobs, a.seed, &overrides,
            )?;
            let mut cmd = format!(
                "generated by schedlab by the STS authors' rules; remake with: schedlab gen sts --sts-data {dir} --jobs {} --seed {}",
                trace.jobs.len(),
                a.seed
            );
            for (k, v) in &overrides {
                cmd.push_str(&format!(" --set {k}={v}"));
            }
            (
                schedlab_model::workload::write_native(&trace.jobs, &cmd),
                trace.jobs.len(),
            )
        }
        Some(_) => {
            return Err(Error::config(format!(
                "--sts-data is for `gen sts` only, not `gen {}`",
                a.name
            )))
        }
    };
    write_out(a.out.as_deref(), &text)?;
    if a.out.is_some() {
        eprintln!("wrote {n} jobs");
    }
    Ok(())
}
