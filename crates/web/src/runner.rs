//! One policy's run for the page, stepped in slices: the worker advances a
//! few thousand events, posts progress, yields to its event loop (where a
//! cancel message can arrive) and goes on. The simulation and the metrics
//! are built by `report::prepare_policy` / `report::finish_policy`, the same
//! code the CLI's `run` uses, so the page's numbers equal the CLI's. The
//! page also asks for policies' per-round insight (`sim::insight`), which
//! changes no decision.

use super::columns::{Columnar, JobColumns, RoundColumns, TimelineColumns};
use super::insight::InsightColumns;
use super::series::{self, Series};
use schedlab_core::error::{Error, Result};
use schedlab_core::params::Params;
use schedlab_core::settings::Settings;
use schedlab_model::workload::{load_named, Trace};
use schedlab_run::report::{cluster_for, compare_to_reference, finish_policy, PolicyRun};
use schedlab_run::setup::{parse_policies, RunSettings, RunSetup, ZooSource};
use schedlab_sim::{Progress, Simulation};
use serde::Serialize;

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

/// The page's settings (`set=` entries `OWNER.KEY=VALUE`) for a run of
/// `policies`, parsed and checked as the CLI's `--set`: the page calls this
/// before it starts any run, so a bad entry is refused with one message
/// naming it. The page reads no files (`pcs.config=FILE` is refused).
pub fn page_settings(policies: &[String], sets: &[String]) -> Result<RunSettings> {
    RunSettings::parse(sets, policies, &|path| {
        Err(Error::config(format!(
            "{path}: the page cannot read files; give the settings themselves"
        )))
    })
}

/// Checks a page link's policies (comma-separated) and settings before
/// anything runs (see [`page_settings`]).
pub fn check_settings(policies: &str, sets: &[String]) -> Result<()> {
    page_settings(&parse_policies("policies", policies)?, sets).map(|_| ())
}

/// The page's set-up of `policies` on `trace` and `cluster` (a built-in name
/// or spec): the built-in zoo with the settings' `zoo.*`.
pub fn page_setup(
    trace: Trace,
    cluster: &str,
    policies: Vec<String>,
    sets: &[String],
    seed: u64,
) -> Result<RunSetup> {
    let settings = page_settings(&policies, sets)?;
    let cluster = cluster_for(cluster, &trace, None)?;
    RunSetup::new(
        trace,
        cluster,
        &ZooSource::named("builtin"),
        policies,
        settings,
        seed,
    )
}

/// A run in progress.
pub struct Runner {
    setup: RunSetup,
    policy: String,
    params: Params,
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
    /// The JCT distribution (thinned to `CDF_POINTS`).
    pub cdf: Cdf,
}

/// A CDF as two columns, `x` (value) and `y` (fraction at or below).
#[derive(Debug, Clone, Default)]
pub struct Cdf {
    pub x: Vec<f64>,
    pub y: Vec<f64>,
}

crate::columns::columnar!(Cdf { x: F64, y: F64 });

impl Finished {
    /// Every column group the page receives, under its name: the wasm
    /// layer ships exactly these (`wasm.rs`), the page reads them.
    pub fn column_groups(&self) -> [(&'static str, &dyn Columnar); 6] {
        [
            ("timeline", &self.timeline),
            ("rounds", &self.rounds),
            ("insight", &self.insight),
            ("jobs", &self.jobs),
            ("series", &self.series),
            ("cdf", &self.cdf),
        ]
    }
}

/// CDF points sent to the page per policy.
pub const CDF_POINTS: usize = 400;

impl Runner {
    /// Sets up `policy` on `trace` and `cluster` (built-in name or spec).
    /// `sets` are `OWNER.KEY=VALUE` entries whose owner is `engine`, `zoo` or `policy`.
    pub fn new(
        trace: Trace,
        cluster: &str,
        policy: &str,
        sets: &[String],
        seed: u64,
    ) -> Result<Runner> {
        schedlab_policies::info(policy)?;
        let setup = page_setup(trace, cluster, vec![policy.to_string()], sets, seed)?;
        let (mut sim, params) = setup.prepare(policy)?;
        sim.set_record_insight(true);
        Ok(Runner {
            setup,
            policy: policy.to_string(),
            params,
            sim,
            wall_s: 0.0,
        })
    }

    pub fn trace_info(&self) -> TraceInfo {
        TraceInfo::of(&self.setup.trace)
    }

    /// The resolved engine parameters (the CLI report's `engine` object).
    pub fn engine_params(&self) -> Params {
        self.setup.settings.engine().to_params()
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
        let RunSetup {
            trace,
            cluster,
            zoo,
            settings,
            seed,
            ..
        } = &self.setup;
        let total = cluster.total_gpus;
        let timeline = TimelineColumns::from_outcome(&outcome, total);
        let rounds = RoundColumns::from_outcome(&outcome);
        let insight = InsightColumns::from_outcome(&outcome);
        let mut series = series::over_time(&outcome, total, series::BINS);
        let ts = schedlab_metrics::time_series(&outcome, &trace.jobs, cluster, zoo);
        series::add_efficiency(&mut series, &ts);
        series::add_costs(&mut series, &outcome, &trace.jobs);
        let mut run = finish_policy(
            &self.policy,
            self.params,
            outcome,
            trace,
            cluster,
            zoo,
            self.wall_s,
        );
        compare_to_reference(&mut run, trace, cluster, zoo, settings, *seed)?;
        let jobs = JobColumns::from_metrics(&run.outcome, &run.jobs);
        let (cdf_x, cdf_y) = series::cdf(&jobs.jct, CDF_POINTS);
        Ok(Finished {
            run,
            timeline,
            rounds,
            insight,
            jobs,
            series,
            cdf: Cdf { x: cdf_x, y: cdf_y },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::perf::ModelZoo;
    use schedlab_run::report::run_policy;
    use std::collections::BTreeMap;
    use std::sync::Arc;

    #[test]
    fn sliced_run_equals_the_cli_path() {
        let trace = load_trace("afs-mini", "").unwrap();
        let cluster = Arc::new(schedlab_model::cluster::parse_cluster("afs-64").unwrap());
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
                &RunSettings::default(),
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
    fn a_page_link_is_checked_before_any_run() {
        assert!(check_settings("fifo,tiresias", &["tiresias.t1=60".into()]).is_ok());
        for (policies, sets, want) in [
            (
                "fifo",
                &["fifo.nosuch=3"][..],
                "unknown parameter 'fifo.nosuch'",
            ),
            ("fifo", &["engine.placement=foo"], "engine.placement=foo"),
            ("fifo", &["nosuch.k=1"], "unknown owner 'nosuch'"),
            ("fifo,fifo", &[], "'fifo' is named twice"),
            ("fifo", &["pcs.config=x.json"], "not among"),
        ] {
            let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
            let e = check_settings(policies, &sets).unwrap_err().to_string();
            assert!(e.contains(want), "{policies} {sets:?}: {e}");
        }
        let e = check_settings("pcs", &["pcs.config=x.json".into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot read files"), "{e}");
        // What reaches the page's script: a config error whose text names the setting.
        let e = check_settings("fifo", &["fifo.nosuch=3".into()]).unwrap_err();
        let info = crate::ErrorInfo::from(&e);
        assert_eq!(info.kind, "config");
        assert_eq!(
            info.text,
            "unknown parameter 'fifo.nosuch'; fifo has: backfill, share_gpus, round_s"
        );
    }

    #[test]
    fn cost_over_time_rises_to_the_runs_totals() {
        let trace = load_trace("sts-mixed-10", "").unwrap();
        for policy in ["sts", "edf", "avg-edf"] {
            let mut r = Runner::new(trace.clone(), "sts-10", policy, &[], 1).unwrap();
            r.run(1000, &mut |_| true).unwrap();
            let f = r.finish().unwrap();
            let s = &f.series;
            assert_eq!(s.cost_t.len(), s.t.len() + 1, "{policy}");
            for c in [&s.gpu_cost, &s.tardiness_cost] {
                assert_eq!(c.len(), s.cost_t.len());
                assert_eq!(
                    c[0], 0.0,
                    "{policy}: nothing is spent before the first arrival"
                );
                assert!(c.windows(2).all(|w| w[1] >= w[0] - 1e-9), "{policy}");
            }
            let m = &f.run.metrics;
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
            let gpu_cost = m.gpu_cost_usd.expect("a run on priced GPUs has a GPU cost");
            let tardiness_cost = m
                .tardiness_cost_usd
                .expect("a trace with due dates has a tardiness cost");
            assert!(gpu_cost > 0.0);
            assert!(
                close(*s.gpu_cost.last().unwrap(), gpu_cost),
                "{policy}: {} vs {gpu_cost}",
                s.gpu_cost.last().unwrap(),
            );
            assert!(
                close(*s.tardiness_cost.last().unwrap(), tardiness_cost),
                "{policy}: {} vs {tardiness_cost}",
                s.tardiness_cost.last().unwrap(),
            );
        }
        // A run on unpriced GPUs without due dates has no cost series.
        let mut r = Runner::new(
            load_trace("afs-mini", "").unwrap(),
            "afs-64",
            "fifo",
            &[],
            1,
        )
        .unwrap();
        r.run(1000, &mut |_| true).unwrap();
        assert!(r.finish().unwrap().series.cost_t.is_empty());
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
        let e = Runner::new(
            trace.clone(),
            "afs-64",
            "fifo",
            &["fifo.nosuch=3".into()],
            1,
        )
        .err()
        .unwrap();
        assert!(
            e.to_string().contains("unknown parameter 'fifo.nosuch'"),
            "{e}"
        );
        let e = Runner::new(trace, "zz:1x1", "fifo", &[], 1).err().unwrap();
        assert!(e.to_string().contains("unknown GPU type"), "{e}");
        let e = load_trace("up.csv", "name,arrival,model,gpus\na,0,linear,x\n").unwrap_err();
        assert!(e.to_string().contains("line 2, field 'gpus'"), "{e}");
        assert!(load_trace("no-such-trace", "").is_err());
    }

    /// The column names are declared once (`Columnar`): within a group they
    /// are unique and of one length where they must be, and every column
    /// the page's scripts read by a group's usual name is among them.
    #[test]
    fn the_page_reads_only_declared_columns() {
        let trace = load_trace("afs-mini", "").unwrap();
        let mut r = Runner::new(trace, "afs-64", "maxmin", &[], 1).unwrap();
        r.run(1000, &mut |_| true).unwrap();
        let f = r.finish().unwrap();
        let mut declared: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (group, cols) in f.column_groups() {
            let names: Vec<&str> = cols.columns().iter().map(|(n, _)| *n).collect();
            let mut unique = names.clone();
            schedlab_core::sorting::sort(&mut unique);
            unique.dedup();
            assert_eq!(unique.len(), names.len(), "{group}: repeated column name");
            declared.insert(group, names);
        }
        let seg_len = f.timeline.seg_job.len();
        for (name, c) in f.timeline.columns() {
            if name.starts_with("seg_") {
                assert_eq!(c.len(), seg_len, "timeline.{name}");
            }
        }
        // How the scripts name each group's object.
        let aliases = [
            ("tl.", "timeline"),
            ("timeline.", "timeline"),
            ("result.series.", "series"),
            ("result.cdf.", "cdf"),
            ("result.rounds.", "rounds"),
            ("result.insight.", "insight"),
            ("result.jobs.", "jobs"),
        ];
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/js");
        let mut checked = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            for (prefix, group) in aliases {
                for (at, _) in text.match_indices(prefix) {
                    let before = text[..at].chars().next_back().unwrap_or(' ');
                    if before.is_alphanumeric() || before == '_' {
                        continue;
                    }
                    let name: String = text[at + prefix.len()..]
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if name.is_empty() || name == "length" || name == "js" {
                        continue;
                    }
                    assert!(
                        declared[group].contains(&name.as_str()),
                        "{}: reads {group}.{name}, which web::columns does not declare",
                        path.display()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 30, "only {checked} column reads found in www/js");
    }
}
