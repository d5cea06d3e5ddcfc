//! The native command-line interface (`schedlab`). Native only: clap,
//! progress bars and file IO live here, never in the simulator.

mod bench;
mod commands;
mod explain;
mod models;
mod pcs;
mod reproduce;
mod sweep;
mod tune;

use clap::{Parser, Subcommand};
use schedlab_core::error::Error;

#[derive(Parser)]
#[command(
    name = "schedlab",
    version,
    about = "GPU-cluster scheduling lab: simulate and compare deep-learning job schedulers"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Largest input file read, in MB (traces, profiles, tables, specs; default 512, or
    /// SCHEDLAB_MAX_INPUT_MB).
    #[arg(long, global = true, value_name = "MB")]
    pub max_input_mb: Option<usize>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Simulate one or more policies on a trace and print their metrics.
    Run(commands::RunArgs),
    /// Why a policy did what it did to one job: the rule and the numbers at each of its calls.
    Explain(explain::ExplainArgs),
    /// List bundled traces, clusters, policies (with parameters), models, generators or formats.
    List {
        /// traces | clusters | policies | models | generators | formats | engine
        what: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Generate a synthetic trace with a seeded generator.
    Gen(commands::GenArgs),
    /// Benchmarks: the suite of named whole runs (`--case`, `--compare`), or `engine` (jobs simulated per second), `afs` (AFS-L on 50,000 jobs, 1,024 GPUs), `fork` (fork and forecast cost per arrival).
    Bench(bench::BenchArgs),
    /// Reproduce a paper's experiment beside its published numbers: afs, anticipatory, copter, pcs, sia, sts.
    Reproduce(reproduce::ReproduceArgs),
    /// Performance models: `fit DIR...` fits profile directories.
    #[command(subcommand)]
    Models(models::ModelsCommand),
    /// Fidelity checks against external simulators: `pollux`.
    Validate(models::ValidateArgs),
    /// Sweeps of many runs: plan, run (locally, in shards, on Slurm or Kubernetes), status, merge.
    #[command(subcommand)]
    Sweep(sweep::SweepCommand),
    /// PCS's preference solver: `search` finds the Pareto front of WFQ configurations.
    #[command(subcommand)]
    Pcs(pcs::PcsCommand),
    /// Write the TunedJobs version of a workload (GPU count and batch per job) for the rigid baselines.
    TuneJobs(tune::TuneArgs),
}

/// Runs the CLI; returns the process exit code (0 ok, 2 bad input, 1 other).
pub fn main() -> i32 {
    let cli = Cli::parse();
    if let Some(mb) = cli.max_input_mb {
        schedlab_core::textio::set_input_limit_mb(mb);
    }
    let result = match cli.command {
        Command::Run(a) => commands::run(a),
        Command::Explain(a) => explain::explain(a),
        Command::List { what, json } => commands::list(&what, json),
        Command::Gen(a) => commands::gen(a),
        Command::Bench(a) => bench::bench(a),
        Command::Reproduce(a) => reproduce::reproduce(a),
        Command::Sweep(c) => sweep::sweep(c),
        Command::Models(c) => models::models(c),
        Command::Validate(a) => models::validate(a),
        Command::TuneJobs(a) => tune::tune(a),
        Command::Pcs(c) => pcs::pcs(c),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {}", one_line(&e.to_string()));
            if e.is_user_error() {
                2
            } else {
                1
            }
        }
    }
}

/// Longest error line printed: values inside are already cut to 80
/// characters (`textio::clip`); this bounds what is left.
const MAX_ERROR_CHARS: usize = 600;

/// An error message on one line of at most [`MAX_ERROR_CHARS`] characters.
fn one_line(message: &str) -> String {
    let flat: String = message
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    match flat.char_indices().nth(MAX_ERROR_CHARS) {
        Some((at, _)) => format!("{}…", &flat[..at]),
        None => flat,
    }
}

/// Writes output to a file or stdout.
pub(crate) fn write_out(out: Option<&str>, text: &str) -> Result<(), Error> {
    match out {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| Error::config(format!("cannot write {path}: {e}"))),
        None => {
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(text.as_bytes());
            Ok(())
        }
    }
}
