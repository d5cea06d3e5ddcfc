//! `schedlab reproduce TARGET`: a paper's experiment on our traces, printed
//! beside the published numbers (targets in `crate::repro::TARGETS`).

use super::write_out;
use crate::error::{Error, Result};
use crate::params::split_overrides;
use crate::repro::{self, afs};
use clap::Args;

#[derive(Args)]
pub struct ReproduceArgs {
    /// What to reproduce: afs
    pub target: String,
    /// Jobs per trace: at most this many (the Philly trace's own count if smaller).
    #[arg(long, default_value_t = 1000)]
    pub jobs: usize,
    /// Trace ids to run, comma-separated (default: all).
    #[arg(long)]
    pub traces: Option<String>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Parameter override OWNER.KEY=VALUE (a policy or `engine`); repeatable.
    #[arg(long = "set")]
    pub set: Vec<String>,
    /// table | json
    #[arg(long, default_value = "table")]
    pub format: String,
    /// Write the report here instead of stdout.
    #[arg(long)]
    pub out: Option<String>,
    /// No per-run progress lines on stderr.
    #[arg(long)]
    pub quiet: bool,
}

pub fn reproduce(a: ReproduceArgs) -> Result<()> {
    if !matches!(a.format.as_str(), "table" | "json") {
        return Err(Error::config(format!(
            "--format {}: expected table or json",
            a.format
        )));
    }
    match a.target.as_str() {
        "afs" => {
            let traces = match &a.traces {
                None => Vec::new(),
                Some(s) => s
                    .split(',')
                    .map(|x| {
                        x.trim()
                            .parse::<u32>()
                            .ok()
                            .filter(|id| afs::TABLE3.iter().any(|t| t.0 == *id))
                            .ok_or_else(|| {
                                Error::config(format!("--traces: '{x}' is not a trace id 1..11"))
                            })
                    })
                    .collect::<Result<Vec<u32>>>()?,
            };
            if a.jobs == 0 {
                return Err(Error::config("--jobs must be at least 1"));
            }
            let overrides = split_overrides(&a.set)?;
            let opts = afs::Options {
                max_jobs: a.jobs,
                traces,
                seed: a.seed,
                overrides,
            };
            let quiet = a.quiet;
            let report = afs::reproduce(&opts, &mut |line| {
                if !quiet {
                    eprintln!("{line}");
                }
            })?;
            let text = if a.format == "json" {
                let checks = afs::checks(&report);
                serde_json::to_string_pretty(
                    &serde_json::json!({ "report": report, "checks": checks }),
                )
                .map_err(|e| Error::Internal(e.to_string()))?
                    + "\n"
            } else {
                afs::to_table(&report)
            };
            write_out(a.out.as_deref(), &text)
        }
        other => Err(Error::config(format!(
            "reproduce {other}: unknown target; known: {}",
            repro::TARGETS
                .iter()
                .map(|t| t.0)
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}
