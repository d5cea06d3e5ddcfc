//! `schedlab sweep`: plan, run (locally, in shards, on Slurm or Kubernetes),
//! watch and merge a sweep (docs/SWEEPS.md; the logic is in `schedlab_lab::sweep`).

use super::write_out;
use clap::{Args, Subcommand};
use schedlab_core::error::{Error, Result};
use schedlab_core::textio::read_text;
use schedlab_lab::sweep::backends::{k8s_manifest, slurm_script, K8sOptions, SlurmOptions};
use schedlab_lab::sweep::exec::run_share;
use schedlab_lab::sweep::merge::merge;
use schedlab_lab::sweep::shard::Share;
use schedlab_lab::sweep::store::{read_result, Status, Stored};
use schedlab_lab::sweep::{plan_with, Manifest};
use std::path::{Path, PathBuf};

#[derive(Subcommand)]
pub enum SweepCommand {
    /// Expand a sweep spec (TOML or JSON) into DIR/manifest.json; checks every input.
    Plan(PlanArgs),
    /// Run this worker's share of the manifest; finished runs are skipped.
    Run(RunArgs),
    /// Done / failed / pending runs.
    Status(DirArgs),
    /// One table of every run's parameters and metrics.
    Merge(MergeArgs),
    /// Write DIR/sweep.sbatch: a Slurm job array over the manifest.
    Slurm(SlurmArgs),
    /// Write DIR/sweep-k8s.yaml: a Kubernetes Indexed Job over the manifest.
    K8s(K8sArgs),
}

#[derive(Args)]
pub struct PlanArgs {
    /// The sweep spec (docs/SWEEPS.md).
    pub spec: String,
    /// The sweep directory to create (or update: results of unchanged runs are kept).
    #[arg(long)]
    pub out: String,
    /// Plan a grid of more than 100,000 runs.
    #[arg(long)]
    pub force: bool,
}

#[derive(Args)]
pub struct RunArgs {
    pub dir: String,
    /// Run shard I of N (0-based): the runs whose position mod N is I.
    #[arg(long, conflicts_with = "index")]
    pub shard: Option<String>,
    /// Run only the run at this position of the manifest.
    #[arg(long)]
    pub index: Option<usize>,
    /// Runs at once (threads); default: the machine's cores.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Run failed runs again (by default a failure is a result).
    #[arg(long)]
    pub retry_failed: bool,
    /// No per-run lines on stderr.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Args)]
pub struct DirArgs {
    pub dir: String,
}

#[derive(Args)]
pub struct MergeArgs {
    pub dir: String,
    /// csv | json
    #[arg(long, default_value = "csv")]
    pub format: String,
    /// Add each run's wall-clock seconds (differs between runs of the same inputs).
    #[arg(long)]
    pub timings: bool,
    /// Write here instead of stdout.
    #[arg(long)]
    pub out: Option<String>,
}

#[derive(Args)]
pub struct SlurmArgs {
    pub dir: String,
    /// Array tasks (default: one per run, at most 1,000).
    #[arg(long)]
    pub array_size: Option<usize>,
    /// Threads per task.
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// Extra sbatch option, repeatable (e.g. --sbatch=--partition=cpu --sbatch=--time=2:00:00).
    #[arg(long = "sbatch", allow_hyphen_values = true)]
    pub sbatch: Vec<String>,
}

#[derive(Args)]
pub struct K8sArgs {
    pub dir: String,
    /// Pods in all (shards); default: one per run, at most 1,000.
    #[arg(long)]
    pub completions: Option<usize>,
    /// Pods at once.
    #[arg(long, default_value_t = 10)]
    pub parallelism: usize,
    /// Container image with `schedlab` on its PATH.
    #[arg(long, default_value = "schedlab:latest")]
    pub image: String,
    /// PersistentVolumeClaim holding the sweep directory.
    #[arg(long, default_value = "schedlab-sweep")]
    pub pvc: String,
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
}

pub fn sweep(c: SweepCommand) -> Result<()> {
    match c {
        SweepCommand::Plan(a) => {
            let text = read_text(&a.spec)?;
            let m = plan_with(&a.spec, &text, a.force)?;
            let dir = Path::new(&a.out);
            m.write(dir)?;
            let done = m
                .runs
                .iter()
                .filter(|r| matches!(read_result(dir, &r.id), Stored::Done(_)))
                .count();
            eprintln!(
                "{}: {} runs planned in {} ({} already have results)",
                m.name,
                m.runs.len(),
                Manifest::path(dir).display(),
                done
            );
            Ok(())
        }
        SweepCommand::Run(a) => {
            let dir = Path::new(&a.dir);
            let m = Manifest::read(dir)?;
            let share = match (&a.shard, a.index) {
                (Some(s), _) => Share::parse_shard(s)?,
                (None, Some(k)) => Share::Index(k),
                (None, None) => Share::from_env(|k| std::env::var(k).ok())?.unwrap_or(Share::All),
            };
            let positions = share.select(m.runs.len())?;
            let threads = a
                .jobs
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            if threads == 0 {
                return Err(Error::config("--jobs must be at least 1"));
            }
            let quiet = a.quiet;
            let log = move |line: &str| {
                if !quiet {
                    eprintln!("{line}");
                }
            };
            let c = run_share(dir, &m, &positions, threads, a.retry_failed, &log)?;
            eprintln!(
                "{:?}: {} runs in this share: {} done before, {} ok, {} failed, {} done by other workers",
                share,
                positions.len(),
                c.skipped,
                c.ok,
                c.failed,
                c.elsewhere
            );
            Ok(())
        }
        SweepCommand::Status(a) => {
            let dir = Path::new(&a.dir);
            let m = Manifest::read(dir)?;
            let (mut ok, mut failed, mut corrupt) = (0, 0, 0);
            let mut failures = Vec::new();
            for r in &m.runs {
                match read_result(dir, &r.id) {
                    Stored::Done(x) if x.status == Status::Ok => ok += 1,
                    Stored::Done(x) => {
                        failed += 1;
                        failures.push(format!(
                            "  {} {} {}: {}",
                            r.id,
                            r.policy,
                            r.trace.label(),
                            x.error.unwrap_or_default()
                        ));
                    }
                    Stored::Corrupt(_) => corrupt += 1,
                    Stored::Missing => {}
                }
            }
            let n = m.runs.len();
            let pending = n - ok - failed;
            println!("{}", progress_bar(ok + failed, n));
            println!(
                "{}: {n} runs: {ok} done, {failed} failed, {pending} pending{}",
                m.name,
                if corrupt > 0 {
                    format!(" ({corrupt} with a damaged result file, to be run again)")
                } else {
                    String::new()
                }
            );
            for f in failures.iter().take(20) {
                println!("{f}");
            }
            if failures.len() > 20 {
                println!("  ... and {} more", failures.len() - 20);
            }
            Ok(())
        }
        SweepCommand::Merge(a) => {
            let dir = Path::new(&a.dir);
            let m = Manifest::read(dir)?;
            let t = merge(dir, &m, a.timings);
            if t.pending > 0 {
                eprintln!(
                    "warning: {} of {} runs have no result yet (status 'pending')",
                    t.pending,
                    m.runs.len()
                );
            }
            let text = match a.format.as_str() {
                "csv" => t.to_csv()?,
                "json" => t.to_json()?,
                other => {
                    return Err(Error::config(format!(
                        "--format {other}: expected csv or json"
                    )))
                }
            };
            write_out(a.out.as_deref(), &text)
        }
        SweepCommand::Slurm(a) => {
            let dir = absolute(&a.dir)?;
            let m = Manifest::read(&dir)?;
            let size = a
                .array_size
                .unwrap_or(m.runs.len().min(1000))
                .clamp(1, m.runs.len().max(1));
            let binary = std::env::current_exe()
                .map_err(|e| Error::config(format!("cannot locate the schedlab binary: {e}")))?;
            let script = slurm_script(&SlurmOptions {
                binary: &binary.to_string_lossy(),
                dir: &dir.to_string_lossy(),
                array_size: size,
                threads: a.jobs.max(1),
                sbatch: &a.sbatch,
            });
            std::fs::create_dir_all(dir.join("logs"))
                .map_err(|e| Error::config(format!("{}: {e}", dir.display())))?;
            let path = dir.join("sweep.sbatch");
            write_out(Some(&path.to_string_lossy()), &script)?;
            eprintln!(
                "wrote {} ({size} array tasks for {} runs); submit with: sbatch {}",
                path.display(),
                m.runs.len(),
                path.display()
            );
            Ok(())
        }
        SweepCommand::K8s(a) => {
            let dir = absolute(&a.dir)?;
            let m = Manifest::read(&dir)?;
            let n = a
                .completions
                .unwrap_or(m.runs.len().min(1000))
                .clamp(1, m.runs.len().max(1));
            let name: String = format!("schedlab-sweep-{}", m.name)
                .to_ascii_lowercase()
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .take(63)
                .collect();
            let yaml = k8s_manifest(&K8sOptions {
                name: name.trim_end_matches('-'),
                image: &a.image,
                pvc: &a.pvc,
                completions: n,
                parallelism: a.parallelism.clamp(1, n),
                threads: a.jobs.max(1),
            });
            let path = dir.join("sweep-k8s.yaml");
            write_out(Some(&path.to_string_lossy()), &yaml)?;
            eprintln!(
                "wrote {} ({n} indexed pods for {} runs); apply with: kubectl apply -f {}",
                path.display(),
                m.runs.len(),
                path.display()
            );
            Ok(())
        }
    }
}

fn absolute(dir: &str) -> Result<PathBuf> {
    std::path::absolute(dir).map_err(|e| Error::config(format!("{dir}: {e}")))
}

/// `[#########...........]  45% (9/20)`.
fn progress_bar(done: usize, total: usize) -> String {
    let width = 40;
    let filled = (done * width).checked_div(total).unwrap_or(width);
    let pct = (done * 100).checked_div(total).unwrap_or(100);
    format!(
        "[{}{}] {pct:>3}% ({done}/{total})",
        "#".repeat(filled),
        ".".repeat(width - filled)
    )
}
