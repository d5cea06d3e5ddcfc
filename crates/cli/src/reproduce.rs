//! `schedlab reproduce TARGET`: a paper's experiment on our traces, printed
//! beside the published numbers (targets in `schedlab_lab::repro::TARGETS`).

use super::write_out;
use clap::Args;
use schedlab_core::error::{Error, Result};
use schedlab_core::params::name_list;
use schedlab_core::textio::read_text;
use schedlab_lab::repro::{self, afs, anticipatory, copter, pcs, sia, sts};
use schedlab_model::workload::Trace;
use schedlab_run::report::RunSettings;

#[derive(Args)]
pub struct ReproduceArgs {
    /// What to reproduce: afs | anticipatory | copter | pcs | sia | sts, or `all` (every
    /// paper's headline experiments and one summary of which claims hold)
    pub target: String,
    /// all: the quick preset (about 30 minutes on two cores; the default).
    #[arg(long, conflicts_with = "full")]
    pub quick: bool,
    /// all: each reproduction with its own defaults (hours).
    #[arg(long)]
    pub full: bool,
    /// all: only these reproductions, comma-separated (default: every one).
    #[arg(long)]
    pub only: Option<String>,
    /// all: the authors' data (default ../shared/data); a paper whose files are missing
    /// runs on generated traces and the summary says so.
    #[arg(long, value_name = "DIR")]
    pub data: Option<String>,
    /// Jobs per trace: at most this many (afs: default 1000, capped by the
    /// Philly trace's own count; sia: default the thesis's counts; copter: a
    /// generated workload of this many jobs instead of 4 per GPU per day).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// afs: trace ids to run, comma-separated (default: all). sia: traces
    /// per workload (default 3; the thesis used 10). pcs: Philly VC ids
    /// (default 0e4a51,b436b2,ee9e8c; `all` adds 6214e9 and 6c71a0, the slowest:
    /// Fig. 7 predicts every arrival, as the artifact's figure; `--set
    /// engine.predict_max=5000` samples as its simulator states, much faster there).
    /// sts: arrival patterns (default exponential,high,low).
    #[arg(long)]
    pub traces: Option<String>,
    /// sia: parts to run, comma-separated: hetero, homog, ftf, scale (default: all).
    /// pcs: `fig8` adds Fig. 8 (the gavel workload, 3,000 apps, eight schemes),
    /// `fig9` adds the §6.6 microbenchmark of one simulation's time (Fig. 9a, seconds),
    /// `fig9b` the whole search's time per cell (Fig. 9b, about half an hour on 2 cores),
    /// `fig9c` the search with and without PCS's heuristic space (Fig. 9c, a few minutes),
    /// `fig10` the size-estimation error (workload-1, 5 seeds x 6 errors x 3 schemes),
    /// `front` our SPEA2 front on VC 0e4a51's first 2,001 apps against the artifact's
    /// stored population (fronts/WFQ_trace_0e4a51.json).
    /// copter: solver methods, comma-separated: lp-star, pop-16, copter, copter-cold (COpter
    /// without its warm start; with lp-star and copter, --scaling adds Fig. 4.6's attribution),
    /// copter-paired (COpter that also times LP* and a cold start on each round's problem: the
    /// attribution on the same rounds) (default: lp-star, pop-16, copter).
    #[arg(long)]
    pub sections: Option<String>,
    /// sia: cluster sizes of the runtime sweep, comma-separated multiples of 64.
    #[arg(long, default_value = "64,128,256,512,1024,2048")]
    pub scale_gpus: String,
    /// sia: simulated hours of each runtime-sweep run.
    #[arg(long, default_value_t = 4.0)]
    pub scale_hours: f64,
    /// sia: largest cluster Pollux runs on in the sweep (its GA is slow).
    #[arg(long, default_value_t = 256)]
    pub pollux_scale_max: u32,
    /// sia: the Pollux artifact's workloads directory (e.g.
    /// ../shared/data/pollux/workloads); adds a "philly-artifact" workload
    /// with ncf replaced by cifar10 and TunedJobs re-drawn.
    #[arg(long)]
    pub pollux_dir: Option<String>,
    /// sia: also compute Fig 3.7's finish-time fairness against simulated isolated runs (each
    /// job alone under the same policy on each GPU type, as the artifact does); adds about
    /// 15 minutes per Helios trace, mostly Pollux's.
    #[arg(long)]
    pub ftf_simulated: bool,
    /// afs: cut the 11 traces from this Philly job list (the Pollux authors'
    /// `philly.csv`: timestamp,duration,num_gpus,gpu_time,cluster), one per
    /// Table 3 virtual cluster, instead of the synthetic stand-ins.
    #[arg(long, value_name = "FILE")]
    pub philly: Option<String>,
    /// afs: the AFS authors' measured speedup tables (schedsim `models.csv`)
    /// instead of the synthetic BSP curves.
    #[arg(long, value_name = "FILE")]
    pub afs_models: Option<String>,
    /// afs: write the reproduction's runs as a sweep into DIR instead of
    /// running them (`schedlab sweep run DIR`, on Slurm: `sweep slurm DIR`).
    #[arg(long, value_name = "DIR", conflicts_with = "from")]
    pub sweep: Option<String>,
    /// afs: print the report from the results of a sweep written by `--sweep DIR`.
    #[arg(long, value_name = "DIR")]
    pub from: Option<String>,
    /// pcs: the PCS artifact's data (traces/); default ../shared/data/pcs when it exists.
    #[arg(long, value_name = "DIR")]
    pub pcs_dir: Option<String>,
    /// pcs: Fig. 7 schemes to run, comma-separated: AFS, Tiresias, Themis, FIFO, PCS-JCT,
    /// PCS-bal, PCS-pred (default: all; AFS always runs, the JCTs are normalised to it).
    /// Themis is the slow one with predictions (686 s on 6c71a0, the rest under a minute).
    #[arg(long)]
    pub schemes: Option<String>,
    /// pcs: threads that Fig. 7's runs share (default: every core; the rows do not depend on it).
    #[arg(long)]
    pub threads: Option<usize>,
    /// sts: cluster sizes in nodes, comma-separated (default 10,30,50; the paper: 10 to 100).
    /// copter: cluster scales N of copter-256xN (256 N GPUs; default 4,40: 1,024 and 10,240 GPUs,
    /// the second the thesis's Table 4.1 size, about 2 minutes for COpter and half an hour
    /// for LP*; 2 is the authors' 2k-job workload on 512 GPUs, 100 the thesis's 25k GPUs;
    /// `none` runs only --scaling).
    #[arg(long)]
    pub sizes: Option<String>,
    /// copter: also measure solver time against cluster size at these scales N of
    /// copter-256xN (e.g. 1,2,5,10; 40 = 10k GPUs), over --hours after an hour of a
    /// generated workload.
    #[arg(long)]
    pub scaling: Option<String>,
    /// copter --scaling: hours whose rounds are measured, after one hour of warm-up.
    #[arg(long, default_value_t = 1.0)]
    pub hours: f64,
    /// copter: the COpter artifact's data (workloads/); default ../shared/data/copter when it exists.
    #[arg(long, value_name = "DIR")]
    pub copter_dir: Option<String>,
    /// sts: instances (seeds) per scenario (the paper: 3; default 3 with --sts-data, the
    /// authors' seeds 1000, 4000, 9000, else 2). anticipatory: seeds per synthetic
    /// configuration (default 2).
    #[arg(long)]
    pub instances: Option<u32>,
    /// sts: the STS authors' data (e.g. ../shared/data/sts): their profiles, epoch laws,
    /// node costs, sharing slots and generator rules instead of the placeholder profiles.
    #[arg(long = "sts-data", value_name = "DIR")]
    pub sts_data: Option<String>,
    /// anticipatory: Appendix C variants, comma-separated (default: all nine).
    #[arg(long)]
    pub variants: Option<String>,
    /// anticipatory: days of each synthetic run (the paper: 3).
    #[arg(long, default_value_t = 3.0)]
    pub days: f64,
    /// anticipatory: days of the Helios-like run (0 skips it; the paper: six months).
    #[arg(long, default_value_t = 182.0)]
    pub helios_days: f64,
    /// anticipatory: pool-size factors of the Helios-like runs (Fig 18; 1 is Table 17).
    #[arg(long, default_value = "1,0.8")]
    pub helios_scales: String,
    /// sts: cluster sizes of the scheduling-call timing (Fig. 7), in nodes.
    #[arg(long, default_value = "10,50,100")]
    pub timing_sizes: String,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Setting OWNER.KEY=VALUE (`engine`, `zoo` or a policy the target runs); repeatable.
    /// Every entry is checked before anything runs.
    #[arg(long = "set")]
    pub set: Vec<String>,
    /// table | json
    #[arg(long, default_value = "table")]
    pub format: String,
    /// Write the report here instead of stdout (all: a directory that receives
    /// summary.json, summary.md and each paper's report as TARGET.txt).
    #[arg(long)]
    pub out: Option<String>,
    /// No per-run progress lines on stderr.
    #[arg(long)]
    pub quiet: bool,
}

pub fn reproduce(a: ReproduceArgs) -> Result<()> {
    check_inputs(&a)?;
    if !matches!(a.format.as_str(), "table" | "json") {
        return Err(Error::config(format!(
            "--format {}: expected table or json",
            a.format
        )));
    }
    if a.target != "afs" && (a.sweep.is_some() || a.from.is_some()) {
        return Err(Error::config(format!(
            "reproduce {}: --sweep and --from are available for afs only so far",
            a.target
        )));
    }
    if a.target != "all" {
        let given = [
            ("--quick", a.quick),
            ("--full", a.full),
            ("--only", a.only.is_some()),
            ("--data", a.data.is_some()),
        ];
        if let Some((flag, _)) = given.iter().find(|g| g.1) {
            return Err(Error::config(format!(
                "{flag} applies to `reproduce all` only, not to `reproduce {}`",
                a.target
            )));
        }
    }
    match a.target.as_str() {
        "all" => reproduce_all(&a),
        "afs" if a.from.is_some() => {
            if !a.set.is_empty() {
                return Err(Error::config(
                    "--set has no effect with --from: the runs were made with the settings given to --sweep",
                ));
            }
            let dir = a.from.as_deref().unwrap_or_default();
            let report =
                schedlab_lab::sweep::reproduce::afs_report_from(std::path::Path::new(dir))?;
            let text = if a.format == "json" {
                report_json(&report, &afs::checks(&report))?
            } else {
                afs::to_table(&report)
            };
            write_out(a.out.as_deref(), &text)
        }
        "afs" => {
            let settings = settings(&a, &afs::policies())?;
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
            // The Philly VCs run whole unless --jobs cuts them.
            let max_jobs = a
                .jobs
                .unwrap_or(if a.philly.is_some() { usize::MAX } else { 1000 });
            if max_jobs == 0 {
                return Err(Error::config("--jobs must be at least 1"));
            }
            let philly = match &a.philly {
                Some(path) => Some(afs::PhillyJobs {
                    file: path.clone(),
                    trace: Trace::parse(path, &read_text(path)?, None)?,
                }),
                None => None,
            };
            let afs_tables = match &a.afs_models {
                Some(path) => Some((path.clone(), read_text(path)?)),
                None => None,
            };
            let opts = afs::Options {
                max_jobs,
                philly,
                afs_tables,
                traces,
                seed: a.seed,
                settings,
            };
            if let Some(dir) = &a.sweep {
                let m = schedlab_lab::sweep::reproduce::afs_manifest(&opts)?;
                m.write(std::path::Path::new(dir))?;
                eprintln!(
                    "{} runs written to {dir}/manifest.json; run them with `schedlab sweep run {dir}` \
                     (or on Slurm: `schedlab sweep slurm {dir}`), then `schedlab reproduce afs --from {dir}`",
                    m.runs.len()
                );
                return Ok(());
            }
            let report = afs::reproduce(&opts, &mut progress(a.quiet))?;
            let text = if a.format == "json" {
                report_json(&report, &afs::checks(&report))?
            } else {
                afs::to_table(&report)
            };
            write_out(a.out.as_deref(), &text)
        }
        "sia" => reproduce_sia(&a),
        "pcs" => reproduce_pcs(&a),
        "copter" => reproduce_copter(&a),
        "sts" => reproduce_sts(&a),
        "anticipatory" => reproduce_anticipatory(&a),
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

/// Refuses a named input folder or file that is not there before anything
/// runs: a reproduction would otherwise fall back to its stand-ins (or run
/// for hours) without a word about the missing data.
fn check_inputs(a: &ReproduceArgs) -> Result<()> {
    let dirs = [
        ("--data", &a.data),
        ("--pollux-dir", &a.pollux_dir),
        ("--pcs-dir", &a.pcs_dir),
        ("--copter-dir", &a.copter_dir),
        ("--sts-data", &a.sts_data),
        ("--from", &a.from),
    ];
    for (flag, dir) in dirs {
        if let Some(d) = dir {
            if !std::path::Path::new(d).is_dir() {
                return Err(Error::config(format!(
                    "{flag} {}: not a directory",
                    schedlab_core::textio::clip(d)
                )));
            }
        }
    }
    for (flag, file) in [("--philly", &a.philly), ("--afs-models", &a.afs_models)] {
        if let Some(f) = file {
            if !std::path::Path::new(f).is_file() {
                return Err(Error::config(format!(
                    "{flag} {}: no such file",
                    schedlab_core::textio::clip(f)
                )));
            }
        }
    }
    Ok(())
}

/// The `--set` entries checked for a target that runs `policies`.
fn settings<S: AsRef<str>>(a: &ReproduceArgs, policies: &[S]) -> Result<RunSettings> {
    let policies: Vec<String> = policies.iter().map(|p| p.as_ref().to_string()).collect();
    RunSettings::parse(&a.set, &policies, &read_text)
}

/// `reproduce all`: every paper's headline experiments, then one summary.
fn reproduce_all(a: &ReproduceArgs) -> Result<()> {
    let per_paper = [
        ("--jobs", a.jobs.is_some()),
        ("--traces", a.traces.is_some()),
        ("--sections", a.sections.is_some()),
        ("--pollux-dir", a.pollux_dir.is_some()),
        ("--philly", a.philly.is_some()),
        ("--afs-models", a.afs_models.is_some()),
        ("--sweep", a.sweep.is_some()),
        ("--from", a.from.is_some()),
        ("--pcs-dir", a.pcs_dir.is_some()),
        ("--schemes", a.schemes.is_some()),
        ("--sizes", a.sizes.is_some()),
        ("--scaling", a.scaling.is_some()),
        ("--copter-dir", a.copter_dir.is_some()),
        ("--variants", a.variants.is_some()),
        ("--set", !a.set.is_empty()),
        ("--ftf-simulated", a.ftf_simulated),
    ];
    if let Some((flag, _)) = per_paper.iter().find(|g| g.1) {
        return Err(Error::config(format!(
            "{flag} is an option of one paper's reproduction; `reproduce all` runs each with \
             its preset (--quick or --full), --only TARGETS and --data DIR"
        )));
    }
    let data = std::path::PathBuf::from(a.data.as_deref().unwrap_or("../shared/data"));
    if a.data.is_some() && !data.is_dir() {
        return Err(Error::config(format!(
            "--data {}: not a directory",
            data.display()
        )));
    }
    let opts = repro::all::Options {
        preset: if a.full {
            repro::all::Preset::Full
        } else {
            repro::all::Preset::Quick
        },
        only: a
            .only
            .as_deref()
            .unwrap_or("")
            .split(',')
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
            .collect(),
        data,
        seed: a.seed,
    };
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::config(format!("--out {dir}: cannot create it: {e}")))?;
    }
    let summary = repro::all::run(&opts, &mut progress(a.quiet))?;
    let json = serde_json::to_string_pretty(&summary)
        .map(|t| t + "\n")
        .map_err(|e| Error::Internal(e.to_string()))?;
    let md = repro::all::to_markdown(&summary);
    match &a.out {
        Some(dir) => {
            let dir = std::path::Path::new(dir);
            let write = |name: &str, text: &str| -> Result<()> {
                write_out(Some(&dir.join(name).to_string_lossy()), text)
            };
            write("summary.json", &json)?;
            write("summary.md", &md)?;
            for s in &summary.sections {
                if !s.report.is_empty() {
                    write(&format!("{}.txt", s.target), &s.report)?;
                }
            }
            eprintln!(
                "{} claims hold, {} fail, {} for information; summary in {}",
                summary.tally.hold,
                summary.tally.fail,
                summary.tally.info,
                dir.join("summary.md").display()
            );
            Ok(())
        }
        None => write_out(None, if a.format == "json" { &json } else { &md }),
    }
}

/// `reproduce sia`: parses the sia options, runs, prints.
fn reproduce_sia(a: &ReproduceArgs) -> Result<()> {
    let settings = settings(a, sia::POLICIES)?;
    let traces = match &a.traces {
        None => 3,
        Some(s) => s
            .trim()
            .parse::<u32>()
            .ok()
            .filter(|n| *n >= 1)
            .ok_or_else(|| {
                Error::config(format!(
                    "--traces '{s}': expected the number of traces per workload (at least 1)"
                ))
            })?,
    };
    let sections = match &a.sections {
        None => sia::Section::ALL.to_vec(),
        Some(s) => name_list("--sections", s)?
            .iter()
            .map(|x| {
                sia::Section::by_name(x).ok_or_else(|| {
                    Error::config(format!(
                        "--sections: '{x}' is not one of hetero, homog, ftf, scale"
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?,
    };
    let scale_gpus = a
        .scale_gpus
        .split(',')
        .map(|x| {
            x.trim()
                .parse::<u32>()
                .ok()
                .filter(|g| *g > 0 && g % 64 == 0)
                .ok_or_else(|| {
                    Error::config(format!(
                        "--scale-gpus: '{x}' is not a positive multiple of 64"
                    ))
                })
        })
        .collect::<Result<Vec<_>>>()?;
    if !(a.scale_hours > 0.0 && a.scale_hours.is_finite()) {
        return Err(Error::config("--scale-hours must be a positive number"));
    }
    if a.jobs == Some(0) {
        return Err(Error::config("--jobs must be at least 1"));
    }
    let opts = sia::Options {
        traces,
        seed: a.seed,
        max_jobs: a.jobs,
        sections,
        scale_gpus,
        scale_hours: a.scale_hours,
        pollux_scale_max: a.pollux_scale_max,
        pollux_dir: a.pollux_dir.as_ref().map(std::path::PathBuf::from),
        ftf_simulated: a.ftf_simulated,
        settings,
    };
    let report = sia::reproduce(&opts, &mut progress(a.quiet))?;
    let text = if a.format == "json" {
        report_json(&report, &sia::checks(&report))?
    } else {
        sia::to_table(&report)
    };
    write_out(a.out.as_deref(), &text)
}

/// The optional sections of `reproduce pcs` asked for with `--sections`.
#[derive(Default)]
struct PcsSections {
    fig8: bool,
    fig9: bool,
    fig9b: bool,
    fig9c: bool,
    fig10: bool,
    front: bool,
}

/// `--sections` of `reproduce pcs`: `fig8` adds the gavel workload, `fig9` the
/// simulation-time microbenchmark, `fig9b` the whole-search one, `fig9c` the
/// search-space ablation, `fig10` the size-estimation error (the toy and
/// Fig. 7 always run).
fn pcs_sections(sections: Option<&str>) -> Result<PcsSections> {
    let mut out = PcsSections::default();
    for s in sections
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        match s {
            "fig8" => out.fig8 = true,
            "fig9" => out.fig9 = true,
            "fig9b" => out.fig9b = true,
            "fig9c" => out.fig9c = true,
            "fig10" => out.fig10 = true,
            "front" => out.front = true,
            "toy" | "fig7" => {}
            other => {
                return Err(Error::config(format!(
                    "--sections: '{other}' is not one of toy, fig7, fig8, fig9, fig9b, fig9c, fig10, front (pcs)"
                )))
            }
        }
    }
    Ok(out)
}

/// `reproduce pcs`: the toy always; Fig. 7 when the artifact's data is there; Fig. 9a
/// and 9b with `--sections fig9,fig9b`.
fn reproduce_pcs(a: &ReproduceArgs) -> Result<()> {
    let settings = settings(a, pcs::POLICIES)?;
    let dir = match &a.pcs_dir {
        Some(d) => Some(std::path::PathBuf::from(d)),
        None => {
            let d = std::path::PathBuf::from("../shared/data/pcs");
            d.is_dir().then_some(d)
        }
    };
    let traces: Vec<String> = match a.traces.as_deref() {
        None => vec!["0e4a51".into(), "b436b2".into(), "ee9e8c".into()],
        Some("all") => pcs::published::FIG7
            .iter()
            .map(|f| f.trace.to_string())
            .collect(),
        Some(s) => s
            .split(',')
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
            .collect(),
    };
    let sections = pcs_sections(a.sections.as_deref())?;
    let schemes = match &a.schemes {
        Some(list) => name_list("--schemes", list)?,
        None => Vec::new(),
    };
    pcs::check_schemes(&schemes)?;
    let opts = pcs::Options {
        pcs_dir: dir,
        traces,
        schemes,
        settings,
        seed: a.seed,
        fig8: sections.fig8,
        fig9: sections.fig9,
        fig9b: sections.fig9b,
        fig9c: sections.fig9c,
        fig10: sections.fig10,
        front: sections.front,
        threads: a.threads.unwrap_or(0),
        ..pcs::Options::default()
    };
    let report = pcs::reproduce(&opts, &mut progress(a.quiet))?;
    let text = if a.format == "json" {
        report_json(&report, &pcs::checks(&report))?
    } else {
        pcs::to_table(&report)
    };
    write_out(a.out.as_deref(), &text)
}

/// A comma-separated list of whole numbers in 1..=max for option `flag`; an
/// entry out of range is an error saying what it should be (`what 1..max`).
fn counts(flag: &str, text: &str, max: u32, what: &str) -> Result<Vec<u32>> {
    text.split(',')
        .map(|x| {
            x.trim()
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=max).contains(n))
                .ok_or_else(|| Error::config(format!("{flag}: '{x}' is not {what} 1..{max}")))
        })
        .collect()
}

/// `reproduce sts`: Figs. 4-7 on generated STS workloads.
fn reproduce_sts(a: &ReproduceArgs) -> Result<()> {
    let settings = settings(a, sts::POLICIES)?;
    let nodes = |text: &str, what: &str| -> Result<Vec<u32>> {
        counts(&format!("--{what}"), text, 1000, "a node count")
    };
    let data = match &a.sts_data {
        Some(dir) => Some(std::sync::Arc::new(
            schedlab_model::perf::sts_data::StsData::read_dir(dir)?,
        )),
        None => None,
    };
    let opts = sts::Options {
        sizes: nodes(a.sizes.as_deref().unwrap_or("10,30,50"), "sizes")?,
        patterns: a
            .traces
            .as_deref()
            .unwrap_or("exponential,high,low")
            .split(',')
            .map(|x| x.trim().to_string())
            .collect(),
        instances: a.instances.unwrap_or(if data.is_some() { 3 } else { 2 }),
        timing_sizes: nodes(&a.timing_sizes, "timing-sizes")?,
        settings,
        seed: a.seed,
        data,
    };
    let report = sts::reproduce(&opts, &mut progress(a.quiet))?;
    let text = if a.format == "json" {
        report_json(&report, &report.targets)?
    } else {
        sts::to_table(&report)
    };
    write_out(a.out.as_deref(), &text)
}

/// `reproduce copter`: thesis Table 4.1's structure at the scales asked for.
fn reproduce_copter(a: &ReproduceArgs) -> Result<()> {
    let settings = settings(a, copter::POLICIES)?;
    let parse_scales = |flag: &str, list: &str| -> Result<Vec<u32>> {
        if list.trim() == "none" {
            return Ok(Vec::new());
        }
        counts(flag, list, 400, "a scale")
    };
    let scales = parse_scales("--sizes", a.sizes.as_deref().unwrap_or("4,40"))?;
    let scaling_scales = match &a.scaling {
        Some(s) => parse_scales("--scaling", s)?,
        None => Vec::new(),
    };
    let methods = name_list(
        "--sections",
        a.sections.as_deref().unwrap_or("lp-star,pop-16,copter"),
    )?;
    let default_dir = "../shared/data/copter";
    let opts = copter::Options {
        scales,
        methods,
        copter_dir: a.copter_dir.clone().or_else(|| {
            std::path::Path::new(default_dir)
                .exists()
                .then(|| default_dir.to_string())
        }),
        jobs: a.jobs,
        settings,
        seed: a.seed,
    };
    let rows = copter::reproduce(&opts, &mut progress(a.quiet))?;
    let scaling = if scaling_scales.is_empty() {
        Vec::new()
    } else {
        copter::scaling(&opts, &scaling_scales, a.hours, &mut progress(a.quiet))?
    };
    let text = if a.format == "json" {
        let thesis: Vec<serde_json::Value> = copter::THESIS_10K
            .iter()
            .map(|(m, jct, makespan, p99)| {
                serde_json::json!({ "method": m, "avg_jct_h": jct, "makespan_h": makespan, "solver_p99_s": p99 })
            })
            .collect();
        serde_json::to_string_pretty(
            &serde_json::json!({ "report": rows, "thesis_10k_gpus": thesis, "scaling": scaling }),
        )
        .map(|t| t + "\n")
        .map_err(|e| Error::Internal(e.to_string()))?
    } else {
        let mut text = if rows.is_empty() {
            String::new()
        } else {
            copter::to_table(&rows)
        };
        if !scaling.is_empty() {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&copter::scaling_table(&scaling, a.hours));
        }
        text
    };
    write_out(a.out.as_deref(), &text)
}

/// `reproduce anticipatory`: spec seed000 §6 on generated pooled workloads.
fn reproduce_anticipatory(a: &ReproduceArgs) -> Result<()> {
    let settings = settings(a, anticipatory::POLICIES)?;
    let variants = match &a.variants {
        Some(v) => name_list("--variants", v)?,
        None => anticipatory::all_variants(),
    };
    let scales = a
        .helios_scales
        .split(',')
        .map(|x| {
            x.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| *v > 0.0 && *v <= 10.0)
                .ok_or_else(|| {
                    Error::config(format!("--helios-scales: '{x}' is not a factor in (0, 10]"))
                })
        })
        .collect::<Result<Vec<f64>>>()?;
    if !(a.days > 0.0 && a.helios_days >= 0.0) {
        return Err(Error::config(
            "--days must be positive and --helios-days at least 0",
        ));
    }
    let opts = anticipatory::Options {
        seeds: a.instances.unwrap_or(2).max(1),
        variants,
        days: a.days,
        helios_days: a.helios_days,
        helios_scales: scales,
        settings,
        seed: a.seed,
    };
    let report = anticipatory::reproduce(&opts, &mut progress(a.quiet))?;
    let text = if a.format == "json" {
        report_json(&report, &report.targets)?
    } else {
        anticipatory::to_table(&report)
    };
    write_out(a.out.as_deref(), &text)
}

/// Per-run progress lines on stderr unless `--quiet`.
fn progress(quiet: bool) -> impl FnMut(&str) {
    move |line| {
        if !quiet {
            eprintln!("{line}");
        }
    }
}

/// `{"report": ..., "checks": ...}` as pretty JSON (the `--format json` output).
fn report_json(report: &impl serde::Serialize, checks: &impl serde::Serialize) -> Result<String> {
    serde_json::to_string_pretty(&serde_json::json!({ "report": report, "checks": checks }))
        .map(|t| t + "\n")
        .map_err(|e| Error::Internal(e.to_string()))
}
