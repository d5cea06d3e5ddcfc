//! One policy's run for the page, stepped in slices: the worker advances a
//! few thousand events, posts progress, yields to its event loop (where a
//! cancel message can arrive) and goes on. The simulation and the metrics
//! are built by `report::prepare_policy` / `report::finish_policy`, the same
//! code the CLI's `run` uses, so the page's numbers equal the CLI's. The
//! page also asks for policies' per-round insight (`sim::insight`), which
//! changes no decision.

use super::columns::{JobColumns, RoundColumns, TimelineColumns};
use super::insight::InsightColumns;
use super::series::{self, Series};
use crate::cluster::{parse_cluster, Cluster};
use crate::error::{Error, Result};
use crate::params::{split_overrides, Params};
use crate::perf::ModelZoo;
use crate::report::{check_owners, finish_policy, prepare_policy, PolicyRun};
use crate::sim::{Progress, Simulation, ENGINE_PARAMS};
use crate::workload::{load_named, Trace};
use serde::Serialize;
use std::sync::Arc;

/// A bundled trace by name, or `text` parsed (format detected from the
/// header) and named `name` in error messages.
pub fn load_trace(name: &str, text: &str) -> Result<Trace> {
    if text.is_empty() {
        load_named(name).unwrap_or_else(|| {
            Err(Error::config(format!(
                "no bundled trace named '{name}'; upload the file instead"
            )))
        })
    } else {
        Trace::parse(name, text, None)
    }
}

/// What the page shows about a parsed trace.
#[derive(Debug, Clone, Serialize)]
pub struct TraceInfo {
    pub name: String,
    pub format: String,
    pub jobs: usize,
    pub skipped: usize,
    pub notes: Vec<String>,
    pub first_arrival: f64,
    pub last_arrival: f64,
}

impl TraceInfo {
    pub fn of(t: &Trace) -> TraceInfo {
        TraceInfo {
            name: t.name.clone(),
            format: t.format.clone(),
            jobs: t.jobs.len(),
            skipped: t.skipped,
            notes: t.notes.clone(),
            first_arrival: t.jobs.first().map_or(0.0, |j| j.arrival),
            last_arrival: t.jobs.last().map_or(0.0, |j| j.arrival),
        }
    }
}

/// A run in progress.
pub struct Runner {
    trace: Trace,
    cluster: Arc<Cluster>,
    zoo: Arc<ModelZoo>,
    policy: String,
    params: Params,
    engine: Params,
    sim: Simulation,
    wall_s: f64,
}

/// A finished run: the CLI's result plus the columns the page draws.
pub struct Finished {
    pub run: PolicyRun,
    pub timeline: TimelineColumns,
    pub rounds: RoundColumns,
    /// Per-round insight (Sia's goodput matrix); empty for other policies.
    pub insight: InsightColumns,
    pub jobs: JobColumns,
    pub series: Series,
    pub cdf_x: Vec<f64>,
    pub cdf_y: Vec<f64>,
}

/// CDF points sent to the page per policy.
pub const CDF_POINTS: usize = 400;

impl Runner {
    /// Sets up `policy` on `trace` and `cluster` (built-in name or spec).
    /// `sets` are `OWNER.KEY=VALUE` entries whose owner is `engine` or `policy`.
    pub fn new(
        trace: Trace,
        cluster: &str,
        policy: &str,
        sets: &[String],
        seed: u64,
    ) -> Result<Runner> {
        crate::policy::info(policy)?;
        let overrides = split_overrides(sets)?;
        check_owners(&overrides, &[policy.to_string()])?;
        let cluster = Arc::new(parse_cluster(cluster)?);
        let zoo = Arc::new(ModelZoo::builtin());
        let (mut sim, params) = prepare_policy(&trace, &cluster, &zoo, policy, &overrides, seed)?;
        sim.set_record_insight(true);
        let engine = Params::resolve(
            "engine",
            ENGINE_PARAMS,
            overrides.get("engine").map_or(&[][..], |v| v),
        )?;
        Ok(Runner {
            trace,
            cluster,
            zoo,
            policy: policy.to_string(),
            params,
            engine,
            sim,
            wall_s: 0.0,
        })
    }

    pub fn trace_info(&self) -> TraceInfo {
        TraceInfo::of(&self.trace)
    }

    /// The resolved engine parameters (the CLI report's `engine` object).
    pub fn engine_params(&self) -> &Params {
        &self.engine
    }

    pub fn progress(&self) -> Progress {
        self.sim.progress()
    }

    pub fn is_finished(&self) -> bool {
        self.sim.is_finished()
    }

    /// Processes up to `max_events` events; true once the run is over.
    pub fn advance(&mut self, max_events: u64) -> Result<bool> {
        let started = web_time::Instant::now();
        let mut n = 0;
        let mut more = !self.sim.is_finished();
        while more && n < max_events {
            more = self.sim.step()?;
            n += 1;
        }
        self.wall_s += started.elapsed().as_secs_f64();
        Ok(!more || self.sim.is_finished())
    }

    /// Runs to the end, calling `progress` every `every` events and once at
    /// the end. `progress` returning false cancels ([`Error::Cancelled`]).
    pub fn run(&mut self, every: u64, progress: &mut dyn FnMut(&Progress) -> bool) -> Result<()> {
        let every = every.max(1);
        loop {
            let done = self.advance(every)?;
            let p = self.progress();
            if done {
                progress(&p);
                return Ok(());
            }
            if !progress(&p) {
                return Err(Error::Cancelled);
            }
        }
    }

    /// Metrics and columns of a finished run.
    pub fn finish(self) -> Result<Finished> {
        if !self.sim.is_finished() {
            return Err(Error::config("the run has not finished yet"));
        }
        let outcome = self.sim.outcome();
        let total = self.cluster.total_gpus;
        let timeline = TimelineColumns::from_outcome(&outcome, total);
        let rounds = RoundColumns::from_outcome(&outcome);
        let insight = InsightColumns::from_outcome(&outcome);
        let mut series = series::over_time(&outcome, total, series::BINS);
        let ts = crate::metrics::time_series(&outcome, &self.trace.jobs, &self.cluster, &self.zoo);
        series::add_efficiency(&mut series, &ts);
        let run = finish_policy(
            &self.policy,
            self.params,
            outcome,
            &self.trace,
            &self.cluster,
            &self.zoo,
            self.wall_s,
        );
        let jobs = JobColumns::from_metrics(&run.outcome, &run.jobs);
        let (cdf_x, cdf_y) = series::cdf(&jobs.jct, CDF_POINTS);
        Ok(Finished {
            run,
            timeline,
            rounds,
            insight,
            jobs,
            series,
            cdf_x,
            cdf_y,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::run_policy;
    use std::collections::BTreeMap;

    #[test]
    fn sliced_run_equals_the_cli_path() {
        let trace = load_trace("afs-mini", "").unwrap();
        let cluster = Arc::new(parse_cluster("afs-64").unwrap());
        let zoo = Arc::new(ModelZoo::builtin());
        for policy in ["fifo", "tiresias"] {
            let mut r = Runner::new(trace.clone(), "afs-64", policy, &[], 3).unwrap();
            let mut calls = 0;
            r.run(37, &mut |_| {
                calls += 1;
                true
            })
            .unwrap();
            assert!(calls > 2);
            let f = r.finish().unwrap();
            let cli = run_policy(
                &trace,
                &cluster,
                &zoo,
                policy,
                &BTreeMap::new(),
                3,
                &mut |_| true,
            )
            .unwrap();
            assert_eq!(f.run.metrics, cli.metrics, "{policy}");
            assert_eq!(
                serde_json::to_string(&f.run.jobs).unwrap(),
                serde_json::to_string(&cli.jobs).unwrap()
            );
            assert_eq!(f.jobs.names.len(), trace.jobs.len());
        }
    }

    #[test]
    fn callback_false_cancels_and_errors_are_typed() {
        let trace = load_trace("afs-mini", "").unwrap();
        let mut r = Runner::new(trace.clone(), "afs-64", "srtf", &[], 1).unwrap();
        let e = r.run(10, &mut |p| p.events < 50).unwrap_err();
        assert_eq!(e, Error::Cancelled);
        assert!(r.progress().events >= 50 && r.progress().events < 70);
        let e = Runner::new(trace.clone(), "afs-64", "nope", &[], 1)
            .err()
            .unwrap();
        assert!(e.to_string().contains("unknown policy 'nope'"), "{e}");
        let e = Runner::new(trace.clone(), "afs-64", "fifo", &["srtf.x=1".into()], 1)
            .err()
            .unwrap();
        assert!(e.to_string().contains("not among"), "{e}");
        let e = Runner::new(trace, "zz:1x1", "fifo", &[], 1).err().unwrap();
        assert!(e.to_string().contains("unknown GPU type"), "{e}");
        let e = load_trace("up.csv", "name,arrival,model,gpus\na,0,linear,x\n").unwrap_err();
        assert!(e.to_string().contains("line 2, field 'gpus'"), "{e}");
        assert!(load_trace("no-such-trace", "").is_err());
    }
}
