//! `schedlab explain`: one job's reasons over its life under one policy
//! (`run::explain`), as text or JSON; with `--queue`, every job of the
//! policy's call at `--at` in the order it served them (`run::explain::
//! call_reasons`, the page's "queue in the policy's order").

use super::commands::{cluster_of_run, load_trace, TraceArgs};
use super::write_out;
use clap::Args;
use schedlab_core::error::{Error, Result};
use schedlab_core::textio::read_text;
use schedlab_run::explain::{call_reasons, explain as explain_job, find_job};
use schedlab_run::setup::{RunSettings, ZooSource};
use std::sync::Arc;

#[derive(Args)]
pub struct ExplainArgs {
    /// A bundled trace name (see `list traces`) or a trace file.
    #[arg(long)]
    pub trace: String,
    /// Trace format; detected from the header when omitted (see `list formats`).
    #[arg(long = "trace-format")]
    pub trace_format: Option<String>,
    /// Fill rule for traces without models: afs | sia | linear (see `list formats`).
    #[arg(long)]
    pub fill: Option<String>,
    /// A built-in cluster name or TYPE:NODESxGPUS[,...]; defaults to a bundled trace's recommended cluster.
    #[arg(long)]
    pub cluster: Option<String>,
    /// Pools: tenants' GPU quotas as NAME=GPUS,... or a CSV file with columns pool,quota.
    #[arg(long)]
    pub pools: Option<String>,
    /// The policy whose decisions to explain.
    #[arg(long)]
    pub policy: String,
    /// The job: its id (0-based, in arrival order) or its name (not with --queue).
    #[arg(long, required_unless_present = "queue")]
    pub job: Option<String>,
    /// Instead of one job: every job of the policy's call at `--at`, in the
    /// order the policy served them, with the key it ordered by.
    #[arg(long, requires = "at", conflicts_with = "job")]
    pub queue: bool,
    /// Also show the policy's call at or before this time (seconds, or with
    /// a unit: 90m, 2.5h, 1d): the job's reason then and the jobs ranked ahead.
    #[arg(long)]
    pub at: Option<String>,
    /// Parameter override OWNER.KEY=VALUE (OWNER is the policy or `engine`); repeatable.
    #[arg(long = "set")]
    pub set: Vec<String>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// text | json
    #[arg(long, default_value = "text")]
    pub format: String,
    /// Write here instead of stdout.
    #[arg(long)]
    pub out: Option<String>,
}

/// Seconds from "5400", "90m", "1.5h" or "1d".
fn parse_time(s: &str) -> Result<f64> {
    let s = s.trim();
    let (num, scale) = match s.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => {
            let scale = match &s[i..] {
                "s" => 1.0,
                "m" | "min" => 60.0,
                "h" => 3600.0,
                "d" => 86_400.0,
                u => {
                    return Err(Error::config(format!(
                        "--at {s}: unknown unit '{u}' (s, m, h or d)"
                    )))
                }
            };
            (&s[..i], scale)
        }
        None => (s, 1.0),
    };
    match num.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x * scale),
        _ => Err(Error::config(format!(
            "--at {s}: expected a time such as 5400, 90m, 1.5h or 1d"
        ))),
    }
}

pub fn explain(a: ExplainArgs) -> Result<()> {
    if !["text", "json"].contains(&a.format.as_str()) {
        return Err(Error::config(format!(
            "--format {}: expected text or json",
            a.format
        )));
    }
    let at = a.at.as_deref().map(parse_time).transpose()?;
    let trace = load_trace(&TraceArgs {
        name: &a.trace,
        format: a.trace_format.as_deref(),
        fill: a.fill.as_deref(),
        aux: None,
    })?;
    let cluster = Arc::new(cluster_of_run(
        a.cluster.as_deref(),
        a.pools.as_deref(),
        &a.trace,
        &trace,
    )?);
    schedlab_policies::info(&a.policy)?;
    let policies = [a.policy.clone()];
    let settings = RunSettings::parse(&a.set, &policies, &read_text)?;
    let zoo = Arc::new(ZooSource::named("builtin").build(settings.zoo())?);
    let (mut sim, _) = settings.simulation(&trace, &cluster, &zoo, &a.policy, a.seed)?;
    if a.queue {
        sim.set_record_reasons(true, None);
        let outcome = sim.run(&mut |_| true)?;
        let call = call_reasons(&outcome.reasons, at.unwrap_or(0.0));
        let text = if a.format == "json" {
            serde_json::to_string_pretty(&call).map_err(|e| Error::Internal(e.to_string()))? + "\n"
        } else {
            queue_text(call.as_ref(), &outcome)
        };
        return write_out(a.out.as_deref(), &text);
    }
    let want = a.job.as_deref().unwrap_or_default();
    let job = {
        // Ids and names are known before the run: look the job up first.
        let names: Vec<&str> = trace.jobs.iter().map(|j| j.name.as_str()).collect();
        match want.parse::<u32>() {
            Ok(id) if (id as usize) < names.len() => id,
            _ => names
                .iter()
                .position(|n| *n == want)
                .map(|i| i as u32)
                .ok_or_else(|| {
                    Error::config(format!(
                        "--job {}: no job with that id (0..{}) or name in {}",
                        want,
                        names.len(),
                        trace.name
                    ))
                })?,
        }
    };
    // The jobs ahead at `--at` need everyone's reasons; the life alone, the job's.
    let only = if at.is_some() { None } else { Some(job) };
    sim.set_record_reasons(true, only);
    let outcome = sim.run(&mut |_| true)?;
    let job = find_job(&outcome, &job.to_string())?;
    let e = explain_job(&outcome, &a.policy, job, at)?;
    let text = if a.format == "json" {
        serde_json::to_string_pretty(&e).map_err(|e| Error::Internal(e.to_string()))? + "\n"
    } else {
        e.to_text()
    };
    write_out(a.out.as_deref(), &text)
}

/// The call as text: one line per job in the policy's order.
fn queue_text(
    call: Option<&schedlab_run::explain::CallReasons>,
    o: &schedlab_sim::Outcome,
) -> String {
    let Some(c) = call else {
        return "no policy call at or before that time\n".to_string();
    };
    let mut s = format!(
        "at {} s: the policy's call at {} s, {} jobs\n",
        c.at,
        c.call_t,
        c.reasons.len()
    );
    for r in &c.reasons {
        let place = r
            .rank
            .map_or("  -".to_string(), |k| format!("{:>3}", k + 1));
        let key = r
            .key
            .and_then(|k| r.values.get(k).map(|v| format!(" [{k} = {v}]")))
            .unwrap_or_default();
        s.push_str(&format!(
            "{place}. job {} '{}'{key}: {}\n",
            r.job, o.jobs[r.job as usize].name, r.words
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::parse_time;

    #[test]
    fn times_with_units() {
        assert_eq!(parse_time("5400").unwrap(), 5400.0);
        assert_eq!(parse_time("90m").unwrap(), 5400.0);
        assert_eq!(parse_time("1.5h").unwrap(), 5400.0);
        assert_eq!(parse_time("1d").unwrap(), 86_400.0);
        assert!(parse_time("2w").is_err());
        assert!(parse_time("-3").is_err());
        assert!(parse_time("soon").is_err());
    }
}
