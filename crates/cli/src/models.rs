//! `schedlab models fit DIR...`: fit the Pollux throughput model to profile
//! directories and print the table (or the built-in Rust tables).

use super::write_out;
use clap::{Args, Subcommand};
use schedlab_core::error::{Error, Result};
use schedlab_model::perf::fitting::{emit_rust, fit_set, to_table};
use schedlab_model::perf::profiles::{read_dir, ProfileSet};

#[derive(Subcommand)]
pub enum ModelsCommand {
    /// Fit throughput parameters (and efficiency curves) to profile directories.
    Fit(FitArgs),
}

#[derive(Args)]
pub struct FitArgs {
    /// Profile directories in the Pollux/Sia layout (<app>/placements[-TYPE].csv, ...);
    /// several are merged (e.g. the Pollux traces for t4 and the Sia profiles for the other types).
    #[arg(required = true)]
    pub dirs: Vec<String>,
    /// Print the built-in zoo tables as Rust source (crates/model/src/perf/builtin_fits.rs).
    #[arg(long)]
    pub emit_rust: bool,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Only these applications (comma-separated).
    #[arg(long)]
    pub apps: Option<String>,
    /// Write to this file instead of stdout.
    #[arg(long)]
    pub out: Option<String>,
}

/// Reads and merges profile directories.
pub fn read_profiles(dirs: &[String]) -> Result<ProfileSet> {
    let mut set = ProfileSet::default();
    for d in dirs {
        set.merge(read_dir(d)?)?;
    }
    Ok(set)
}

pub fn models(cmd: ModelsCommand) -> Result<()> {
    match cmd {
        ModelsCommand::Fit(a) => fit(a),
    }
}

fn fit(a: FitArgs) -> Result<()> {
    let mut set = read_profiles(&a.dirs)?;
    if let Some(list) = &a.apps {
        let want: Vec<&str> = list.split(',').map(str::trim).collect();
        for w in &want {
            if set.app(w).is_none() {
                return Err(Error::config(format!(
                    "--apps: no profiles for '{w}' (found: {})",
                    set.apps
                        .iter()
                        .map(|a| a.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        }
        set.apps.retain(|x| want.contains(&x.name.as_str()));
    }
    let fits = fit_set(&set);
    let text = if a.emit_rust {
        let cmd = format!("schedlab models fit {} --emit-rust", a.dirs.join(" "));
        emit_rust(&fits, &cmd)
    } else if a.json {
        serde_json::to_string_pretty(&fits).map_err(|e| Error::Internal(e.to_string()))? + "\n"
    } else {
        to_table(&fits)
    };
    write_out(a.out.as_deref(), &text)
}

#[derive(Args)]
pub struct ValidateArgs {
    /// What to validate against: `pollux` (the Pollux OSDI'21 simulator's published JCTs).
    pub what: String,
    /// The Pollux artifact data directory (workloads/, results-jobload/).
    #[arg(long, default_value = "../shared/data/pollux")]
    pub data: String,
    /// Workload numbers to run (comma-separated; default 1-8).
    #[arg(long)]
    pub workloads: Option<String>,
    /// Policies to compare (comma-separated): tiresias, pollux.
    #[arg(long, default_value = "tiresias,pollux")]
    pub policies: String,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
}

pub fn validate(a: ValidateArgs) -> Result<()> {
    use schedlab_run::validate::{compare_pollux, pollux_sim_policy, pollux_table, published_jcts};
    if a.what != "pollux" {
        return Err(Error::config(format!(
            "validate {}: expected pollux",
            a.what
        )));
    }
    let list: Vec<u32> = match &a.workloads {
        Some(w) => w
            .split(',')
            .map(|x| {
                x.trim()
                    .parse()
                    .map_err(|_| Error::config(format!("--workloads: '{x}' is not a number")))
            })
            .collect::<Result<_>>()?,
        None => (1..=8).collect(),
    };
    let mut rows = Vec::new();
    for policy in &schedlab_run::setup::parse_policies("--policies", &a.policies)? {
        let policy = policy.as_str();
        let sim_policy = pollux_sim_policy(policy).ok_or_else(|| {
            Error::config(format!(
                "--policies: '{policy}' has no published Pollux-simulator results (tiresias, pollux)"
            ))
        })?;
        let summary_path = format!(
            "{}/results-jobload/{}/summary.json",
            a.data, sim_policy.results_dir
        );
        let text = schedlab_core::textio::read_text(&summary_path)?;
        let summary: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| Error::input(&summary_path, e.line(), "", format!("not JSON: {e}")))?;
        for &n in &list {
            let name = format!("workload-{n}");
            let path = format!("{}/workloads/{name}.csv", a.data);
            let trace = schedlab_model::workload::Trace::parse(
                &path,
                &schedlab_core::textio::read_text(&path)?,
                None,
            )?;
            let published = published_jcts(&summary, &name).ok_or_else(|| {
                Error::input(&summary_path, 0, "jcts", format!("no results for {name}"))
            })?;
            rows.push(compare_pollux(policy, &name, &trace, &published)?);
        }
    }
    let out = if a.json {
        serde_json::to_string_pretty(&rows).map_err(|e| Error::Internal(e.to_string()))? + "\n"
    } else {
        pollux_table(&rows)
    };
    write_out(None, &out)
}
