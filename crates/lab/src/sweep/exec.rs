//! Running a share of the manifest: each run loads its inputs, simulates
//! under a wall-clock deadline and leaves one result file, failures
//! included, so a worker never stops at a bad run and a restarted worker
//! skips what is done. Workers sharing a directory claim each run first
//! ([`super::claim`]), so two of them never do the same run.

use super::claim::{self, Claim};
use super::manifest::{sha256_hex, Manifest, RunSpec, TraceSource};
use super::store::{read_result, write_result, RunResult, Status, Stored};
use schedlab_core::error::{Error, Result};
use schedlab_metrics::time_series;
use schedlab_model::cluster::parse_cluster;
use schedlab_model::workload::{gen, load_named, Format, ImportOptions, Trace};
use schedlab_run::setup::{RunSettings, RunSetup, ZooSource};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Reads a file the manifest names and checks it is the one planned.
fn read_planned(path: &str, sha256: &str) -> Result<String> {
    let bytes = schedlab_core::textio::read_bytes(path)?;
    if sha256_hex(&bytes) != sha256 {
        return Err(Error::input(
            path,
            0,
            "",
            "the file changed since the sweep was planned; plan it again",
        ));
    }
    schedlab_core::textio::text_of(path, bytes)
}

/// The run's trace.
pub fn load_trace(src: &TraceSource) -> Result<Trace> {
    match src {
        TraceSource::Bundled { name } => load_named(name)
            .unwrap_or_else(|| Err(Error::config(format!("no bundled trace '{name}'")))),
        TraceSource::File {
            path,
            format,
            tenant,
            max_jobs,
            sha256,
        } => {
            let text = read_planned(path, sha256)?;
            let format = match format {
                Some(f) => Some(
                    Format::by_name(f)
                        .ok_or_else(|| Error::config(format!("unknown trace format '{f}'")))?,
                ),
                None => None,
            };
            let opts = ImportOptions {
                format,
                ..ImportOptions::default()
            };
            let full = Trace::parse_with(path, &text, &opts)?;
            if tenant.is_none() && max_jobs.is_none() {
                return Ok(full);
            }
            full.subset(
                &src.label(),
                tenant.as_deref(),
                max_jobs.unwrap_or(usize::MAX),
            )
        }
        TraceSource::Generator {
            name,
            jobs,
            seed,
            params,
        } => gen::generate(name, *jobs, *seed, params),
    }
}

/// The run's set-up: its trace, cluster, zoo, policy, settings and seed.
fn setup(run: &RunSpec) -> Result<RunSetup> {
    let policies = vec![run.policy.clone()];
    let settings = RunSettings::from_overrides(&run.overrides(), &policies)?;
    let zoo = ZooSource {
        name: run.zoo.name.clone(),
        afs_tables: match &run.zoo.afs_tables {
            Some((path, sha)) => Some((path.clone(), read_planned(path, sha)?)),
            None => None,
        },
        ..ZooSource::default()
    };
    RunSetup::new(
        load_trace(&run.trace)?,
        parse_cluster(&run.cluster)?,
        &zoo,
        policies,
        settings,
        run.seed,
    )
}

/// Simulates one run; every failure (bad input, timeout, panic) becomes a
/// failed result rather than an error.
pub fn execute(run: &RunSpec) -> RunResult {
    let started = web_time::Instant::now();
    let failed = |error: String| RunResult {
        id: run.id.clone(),
        status: Status::Failed,
        error: Some(error),
        wall_s: started.elapsed().as_secs_f64(),
        metrics: None,
        mean_queue: None,
        mean_ce: None,
    };
    let attempt =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Result<RunResult> {
            let setup = setup(run)?;
            let deadline = run.timeout_s;
            let mut on_time =
                |_: &schedlab_sim::Progress| started.elapsed().as_secs_f64() < deadline;
            let r = setup.run(&run.policy, &mut on_time)?;
            let ts = time_series(&r.outcome, &setup.trace.jobs, &setup.cluster, &setup.zoo);
            let queue: Vec<f64> = ts.queue.iter().map(|&q| q as f64).collect();
            Ok(RunResult {
                id: run.id.clone(),
                status: Status::Ok,
                error: None,
                wall_s: r.wall_s,
                metrics: Some(r.metrics.clone()),
                mean_queue: Some(ts.time_mean(&queue)),
                mean_ce: Some(ts.time_mean(&ts.ce)),
            })
        }));
    match attempt {
        Ok(Ok(r)) => r,
        Ok(Err(Error::Cancelled)) => {
            failed(format!("timeout: still running after {} s", run.timeout_s))
        }
        Ok(Err(e)) => failed(e.to_string()),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            failed(format!("panic: {msg}"))
        }
    }
}

/// What a worker did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct RunCounts {
    pub skipped: usize,
    pub ok: usize,
    pub failed: usize,
    /// Runs claimed by another worker (or finished by one meanwhile).
    pub elsewhere: usize,
}

/// Whether run `id` still needs this worker, now that it holds the claim:
/// another worker may have written its result since the share was listed.
fn still_to_do(dir: &Path, id: &str, listed: &Stored) -> bool {
    match (read_result(dir, id), listed) {
        (Stored::Done(now), Stored::Done(then)) => now == *then,
        (Stored::Done(_), _) => false,
        _ => true,
    }
}

/// Runs the manifest's runs at `positions` on `threads` threads, skipping
/// those with a complete result (and failed ones unless `retry_failed`).
/// `log` gets one line per run.
pub fn run_share(
    dir: &Path,
    manifest: &Manifest,
    positions: &[usize],
    threads: usize,
    retry_failed: bool,
    log: &(dyn Fn(&str) + Sync),
) -> Result<RunCounts> {
    let todo: Vec<(&RunSpec, Stored)> = positions
        .iter()
        .map(|&i| (&manifest.runs[i], read_result(dir, &manifest.runs[i].id)))
        .filter(|(r, stored)| match stored {
            Stored::Done(res) => retry_failed && res.status == Status::Failed,
            Stored::Missing => true,
            Stored::Corrupt(why) => {
                log(&format!(
                    "{}: result file damaged ({why}); running it again",
                    r.id
                ));
                true
            }
        })
        .collect();
    let counts = Mutex::new(RunCounts {
        skipped: positions.len() - todo.len(),
        ..RunCounts::default()
    });
    let next = AtomicUsize::new(0);
    let first_error: Mutex<Option<Error>> = Mutex::new(None);
    let total = todo.len();
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, total.max(1)) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some((run, listed)) = todo.get(k) else {
                    break;
                };
                match claim::claim(dir, &run.id, run.timeout_s) {
                    Ok(Claim::Mine) => {}
                    Ok(Claim::Taken(h)) => {
                        log(&format!(
                            "[{}/{total}] {}: left to the worker holding it (pid {} on {})",
                            k + 1,
                            run.id,
                            h.pid,
                            h.host
                        ));
                        counts.lock().unwrap().elsewhere += 1;
                        continue;
                    }
                    Err(e) => {
                        first_error.lock().unwrap().get_or_insert(Error::input(
                            dir.join(claim::CLAIMS_DIR).display().to_string(),
                            0,
                            "",
                            format!("cannot claim run {}: {e}", run.id),
                        ));
                        break;
                    }
                }
                if !still_to_do(dir, &run.id, listed) {
                    claim::release(dir, &run.id);
                    counts.lock().unwrap().elsewhere += 1;
                    continue;
                }
                let res = execute(run);
                let line = format!(
                    "[{}/{total}] {} {} {} {} seed {}: {}",
                    k + 1,
                    run.id,
                    run.policy,
                    run.trace.label(),
                    run.cluster,
                    run.seed,
                    match (&res.status, &res.error) {
                        (Status::Ok, _) => format!("ok ({:.1} s)", res.wall_s),
                        (Status::Failed, e) => format!("FAILED: {}", e.as_deref().unwrap_or("")),
                    }
                );
                let written = write_result(dir, &res);
                claim::release(dir, &run.id);
                if let Err(e) = written {
                    first_error.lock().unwrap().get_or_insert(e);
                    break;
                }
                log(&line);
                let mut c = counts.lock().unwrap();
                match res.status {
                    Status::Ok => c.ok += 1,
                    Status::Failed => c.failed += 1,
                }
            });
        }
    });
    if let Some(e) = first_error.into_inner().unwrap() {
        return Err(e);
    }
    Ok(counts.into_inner().unwrap())
}
