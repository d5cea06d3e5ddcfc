//! `schedlab reproduce all`: every paper's headline experiments in one command, on the
//! authors' own data where `../shared/data` (or `--data DIR`) holds it, with one summary:
//! per claim the paper's number, ours, the ratio, the tolerance and whether it holds
//! ([`Summary`], written as JSON and Markdown). `quick` fits in about half an hour on two
//! cores; `full` runs each reproduction with its own defaults (hours).

use super::claims::{Claim, Tally};
use super::{afs, anticipatory, copter, pcs, sia, sts};
use schedlab_core::error::{Error, Result};
use schedlab_core::textio::read_text;
use schedlab_model::workload::Trace;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// How much of each paper to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// The headline experiment of each paper at a size that fits in about 30 minutes.
    Quick,
    /// Each reproduction with its own defaults (hours on two cores).
    Full,
}

impl Preset {
    pub fn name(self) -> &'static str {
        match self {
            Preset::Quick => "quick",
            Preset::Full => "full",
        }
    }
}

/// What `reproduce all` runs.
pub struct Options {
    pub preset: Preset,
    /// Targets to run (default: all of [`super::TARGETS`]).
    pub only: Vec<String>,
    /// The authors' data (`../shared/data` by default); a paper whose folder is missing
    /// runs on generated traces and says so.
    pub data: PathBuf,
    pub seed: u64,
}

/// One paper's part of the summary.
#[derive(Debug, Clone, Serialize)]
pub struct Section {
    pub target: String,
    pub title: String,
    /// What the runs were made on: the authors' files or our generators.
    pub inputs: String,
    pub wall_s: f64,
    /// The machine's load averages (1, 5, 15 minutes) when the section ended, so that its
    /// wall time can be read against what else ran (`None` where /proc/loadavg is absent).
    pub load_end: Option<[f64; 3]>,
    pub tally: Tally,
    pub claims: Vec<Claim>,
    /// Why the section has no claims (a failure), if it has none.
    pub error: Option<String>,
    /// The page's query string for a small case of the same experiment, run live in
    /// the browser (`index.html?` + this).
    pub live: String,
    /// The reproduction's own text report.
    #[serde(skip)]
    pub report: String,
}

/// A small case of each paper's experiment the page can run live (bundled traces).
fn live_case(target: &str) -> &'static str {
    match target {
        "afs" => "trace=afs-mini&cluster=afs-64&policies=afs-l,afs-p,srtf,tiresias,themis",
        "anticipatory" => "trace=anticipatory-fig1&cluster=pools-8&policies=pool-fcfs,pool-maxmin,anticipatory",
        "copter" => "trace=sia-philly&cluster=sia-hetero-64&policies=sia@solver=lp-star,sia@solver=copter,sia@solver=pop",
        "pcs" => "trace=pcs-themis1&cluster=pcs-64&policies=pcs,themis-pcs,fifo&set=engine.predict=true",
        "sia" => "trace=sia-philly&cluster=sia-hetero-64&policies=sia,pollux,gavel",
        "sts" => "trace=sts-mixed-10&cluster=sts-10&policies=sts,edf,rg,dp&seed=5",
        _ => "",
    }
}

/// The whole summary.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub preset: Preset,
    /// UTC date of the run (YYYY-MM-DD).
    pub date: String,
    pub machine: String,
    pub seed: u64,
    pub wall_s: f64,
    /// Load averages (1, 5, 15 minutes) when the run started and ended (`None` where
    /// /proc/loadavg is absent): wall times on a shared machine mean little without them.
    pub load_start: Option<[f64; 3]>,
    pub load_end: Option<[f64; 3]>,
    pub tally: Tally,
    pub sections: Vec<Section>,
}

/// A paper's runs with its report as claims and text.
struct Outcome {
    inputs: String,
    claims: Vec<Claim>,
    report: String,
}

/// Runs every target asked for, one after the other; a target that fails is recorded
/// with its error and the others still run.
pub fn run(opts: &Options, progress: &mut dyn FnMut(&str)) -> Result<Summary> {
    let known: Vec<&str> = super::TARGETS.iter().map(|t| t.0).collect();
    for t in &opts.only {
        if !known.contains(&t.as_str()) {
            return Err(Error::config(format!(
                "--only: '{t}' is not a reproduction; known: {}",
                known.join(", ")
            )));
        }
    }
    let started = web_time::Instant::now();
    let load_start = load_average();
    let mut sections = Vec::new();
    for (target, title) in super::TARGETS {
        if !opts.only.is_empty() && !opts.only.iter().any(|o| o == target) {
            continue;
        }
        progress(&format!("== reproduce {target} ({})", opts.preset.name()));
        let t0 = web_time::Instant::now();
        let outcome = match *target {
            "afs" => run_afs(opts, progress),
            "anticipatory" => run_anticipatory(opts, progress),
            "copter" => run_copter(opts, progress),
            "pcs" => run_pcs(opts, progress),
            "sia" => run_sia(opts, progress),
            "sts" => run_sts(opts, progress),
            other => Err(Error::Internal(format!("no preset for {other}"))),
        };
        let wall_s = t0.elapsed().as_secs_f64();
        let load_end = load_average();
        progress(&format!(
            "== {target}: {wall_s:.0} s{}",
            load_text(load_end)
        ));
        sections.push(match outcome {
            Ok(o) => Section {
                target: target.to_string(),
                title: title.to_string(),
                inputs: o.inputs,
                wall_s,
                load_end,
                tally: Tally::of(&o.claims),
                claims: o.claims,
                error: None,
                live: live_case(target).to_string(),
                report: o.report,
            },
            Err(e) => Section {
                target: target.to_string(),
                title: title.to_string(),
                inputs: String::new(),
                wall_s,
                load_end,
                tally: Tally::default(),
                claims: Vec::new(),
                error: Some(e.to_string()),
                live: live_case(target).to_string(),
                report: String::new(),
            },
        });
    }
    let all: Vec<Claim> = sections.iter().flat_map(|s| s.claims.clone()).collect();
    Ok(Summary {
        preset: opts.preset,
        date: today_utc(),
        machine: machine(),
        seed: opts.seed,
        wall_s: started.elapsed().as_secs_f64(),
        load_start,
        load_end: load_average(),
        tally: Tally::of(&all),
        sections,
    })
}

/// A folder of the authors' data, if it is there.
fn data(opts: &Options, sub: &str) -> Option<PathBuf> {
    let p = opts.data.join(sub);
    p.exists().then_some(p)
}

fn path_text(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// Jobs per Philly VC in the quick preset: 15,000 keeps nine of the eleven VCs whole and
/// cuts trace 10 (16,091 jobs) a little and trace 5 (41,226) to its first 36%.
pub const AFS_QUICK_JOBS: usize = 15_000;

/// Jobs per AFS trace: the generated stand-ins have 1,000; the Philly VCs run whole in the
/// full preset. Trace 5 (6214e9, 41,226 jobs) is overloaded on 64 GPUs, so under the
/// max-GPU variants its queue grows for the whole run and each event costs time in the
/// queue's length (tiresias@peak alone takes minutes there: docs/AFS.md, "Run time"); the
/// quick preset keeps each VC's first [`AFS_QUICK_JOBS`].
fn afs_max_jobs(preset: Preset, philly: bool) -> usize {
    match (philly, preset) {
        (false, _) => 1000,
        (true, Preset::Full) => usize::MAX,
        (true, Preset::Quick) => AFS_QUICK_JOBS,
    }
}

fn run_afs(opts: &Options, progress: &mut dyn FnMut(&str)) -> Result<Outcome> {
    let philly = data(opts, "pollux/philly/philly.csv");
    let tables = data(opts, "afs-schedsim/models.csv");
    let philly = match philly {
        Some(p) => {
            let file = path_text(&p);
            Some(afs::PhillyJobs {
                trace: Trace::parse(&file, &read_text(&file)?, None)?,
                file,
            })
        }
        None => None,
    };
    let afs_tables = match &tables {
        Some(p) => Some((path_text(p), read_text(&path_text(p))?)),
        None => None,
    };
    let cut = match opts.preset {
        Preset::Quick => format!(" (each VC's first {AFS_QUICK_JOBS} jobs)"),
        Preset::Full => String::new(),
    };
    let inputs = match (&philly, &afs_tables) {
        (Some(p), Some(t)) => format!(
            "the 11 Philly VCs{cut} cut from {} with the AFS authors' measured tables ({})",
            p.file, t.0
        ),
        (Some(p), None) => format!(
            "the 11 Philly VCs{cut} cut from {}, synthetic BSP curves",
            p.file
        ),
        _ => "11 synthetic Philly-like traces of 1,000 jobs (the authors' data is absent)".into(),
    };
    let max_jobs = afs_max_jobs(opts.preset, philly.is_some());
    let o = afs::Options {
        max_jobs,
        philly,
        afs_tables,
        traces: Vec::new(),
        seed: opts.seed,
        settings: Default::default(),
    };
    let r = afs::reproduce(&o, progress)?;
    Ok(Outcome {
        inputs,
        claims: afs::claims(&r),
        report: afs::to_table(&r),
    })
}

fn run_sia(opts: &Options, progress: &mut dyn FnMut(&str)) -> Result<Outcome> {
    let pollux_dir = data(opts, "pollux/workloads");
    let mut o = sia::Options {
        pollux_dir: pollux_dir.clone(),
        seed: opts.seed,
        ..sia::Options::default()
    };
    if opts.preset == Preset::Quick {
        o.traces = 1;
        o.sections = vec![sia::Section::Hetero, sia::Section::Homog];
    }
    let inputs = format!(
        "{} trace(s) per workload from our Sia-style generators{}",
        o.traces,
        pollux_dir.map_or(String::new(), |d| format!(
            ", plus the Pollux artifact's workloads ({})",
            path_text(&d)
        ))
    );
    let r = sia::reproduce(&o, progress)?;
    Ok(Outcome {
        inputs,
        claims: sia::claims(&r),
        report: sia::to_table(&r),
    })
}

fn run_copter(opts: &Options, progress: &mut dyn FnMut(&str)) -> Result<Outcome> {
    let dir = data(opts, "copter");
    let (scales, methods): (Vec<u32>, &[&str]) = match opts.preset {
        // The three methods of Table 4.1 on 256 GPUs (1,024 generated jobs over 24 h): about
        // a minute for all three, where 1,024 GPUs took POP-16 alone 458 s (its exact
        // per-part solves; docs/COPTER.md, "reproduce all").
        Preset::Quick => (vec![1], &["lp-star", "pop-16", "copter"]),
        // Table 4.1's size, 10,240 GPUs over 24 h (POP-16 pays the serial sum of its
        // parts there and does not finish in hours: docs/COPTER.md).
        Preset::Full => (vec![4, 40], &["lp-star", "copter"]),
    };
    let o = copter::Options {
        scales,
        methods: methods.iter().map(|m| m.to_string()).collect(),
        copter_dir: dir.as_deref().map(path_text),
        jobs: None,
        settings: Default::default(),
        seed: opts.seed,
    };
    let rows = copter::reproduce(&o, progress)?;
    let inputs = match &dir {
        Some(d) => format!(
            "the COpter authors' workloads where one fits the size ({}), else copter-pai",
            path_text(d)
        ),
        None => "copter-pai generated workloads (the authors' data is absent)".into(),
    };
    Ok(Outcome {
        inputs,
        claims: copter::claims(&rows),
        report: copter::to_table(&rows),
    })
}

fn run_pcs(opts: &Options, progress: &mut dyn FnMut(&str)) -> Result<Outcome> {
    let dir = data(opts, "pcs");
    let o = pcs::Options {
        pcs_dir: dir.clone(),
        traces: vec!["0e4a51".into(), "b436b2".into(), "ee9e8c".into()],
        seed: opts.seed,
        // Fig. 7's runs (and Fig. 8's) spread over every core.
        threads: 0,
        // Fig. 8 (the gavel workload, 3,000 apps) in the full preset only.
        fig8: opts.preset == Preset::Full,
        ..pcs::Options::default()
    };
    let r = pcs::reproduce(&o, progress)?;
    let inputs = match &dir {
        Some(d) => format!(
            "the Fig. 1b toy and the PCS artifact's Philly VC traces 0e4a51, b436b2, ee9e8c ({})",
            path_text(d)
        ),
        None => "the Fig. 1b toy only (the PCS artifact's data is absent)".into(),
    };
    Ok(Outcome {
        inputs,
        claims: pcs_claims(&r),
        report: pcs::to_table(&r),
    })
}

/// PCS's checks, then each Fig. 7 cell beside the artifact's (normalised JCT and
/// average prediction error within 25%, the tolerance docs/PCS.md uses).
fn pcs_claims(r: &pcs::Report) -> Vec<Claim> {
    let mut out: Vec<Claim> = pcs::checks(r)
        .into_iter()
        .map(|c| {
            Claim::judged(
                c.what,
                "as stated",
                if c.holds { "yes" } else { "no" },
                "the stated condition",
                c.holds,
            )
        })
        .collect();
    for row in &r.fig7 {
        out.push(Claim::within(
            format!("Fig. 7 {} {}: JCT normalised to AFS", row.trace, row.scheme),
            row.paper_norm_jct,
            row.norm_jct,
            0.25,
        ));
        if row.paper_avg_err > 0.0 {
            out.push(Claim::within(
                format!(
                    "Fig. 7 {} {}: avg prediction error (%)",
                    row.trace, row.scheme
                ),
                row.paper_avg_err,
                row.avg_err,
                0.25,
            ));
        }
    }
    for row in &r.fig8 {
        out.push(Claim::within(
            format!("Fig. 8 {}: JCT normalised to AFS", row.scheme),
            row.paper_norm_jct,
            row.norm_jct,
            0.25,
        ));
        if let Some(paper) = row.paper_avg_err {
            out.push(Claim::within(
                format!("Fig. 8 {}: avg prediction error (%)", row.scheme),
                paper,
                row.avg_err,
                0.25,
            ));
        }
    }
    out
}

fn run_sts(opts: &Options, progress: &mut dyn FnMut(&str)) -> Result<Outcome> {
    let data = match data(opts, "sts") {
        Some(dir) => Some(std::sync::Arc::new(
            schedlab_model::perf::sts_data::StsData::read_dir(&path_text(&dir))?,
        )),
        None => None,
    };
    let with_data = data.is_some();
    let patterns = vec!["exponential".into(), "high".into(), "low".into()];
    let o = match opts.preset {
        Preset::Quick => sts::Options {
            sizes: vec![10],
            patterns,
            instances: 1,
            timing_sizes: vec![10, 50],
            settings: Default::default(),
            seed: opts.seed,
            data,
        },
        Preset::Full => sts::Options {
            sizes: vec![10, 30, 50],
            patterns,
            instances: if with_data { 3 } else { 2 },
            timing_sizes: vec![10, 50, 100],
            settings: Default::default(),
            seed: opts.seed,
            data,
        },
    };
    let r = sts::reproduce(&o, progress)?;
    let claims = r
        .targets
        .iter()
        .map(|t| Claim {
            what: format!("{}: {}", t.id, t.what),
            theirs: if t.paper.is_finite() {
                super::claims::number(t.paper)
            } else {
                t.paper_text.clone()
            },
            ours: if t.ours.is_finite() {
                super::claims::number(t.ours)
            } else {
                t.ours_text.clone()
            },
            ratio: t.ratio.is_finite().then_some(t.ratio),
            tolerance: t.tolerance.clone(),
            holds: t.holds,
        })
        .collect();
    Ok(Outcome {
        inputs: if with_data {
            "the STS authors' data (sts/: AlexNet profiles on K80/M60, epoch laws, node costs, \
             sharing slots, generator rules and instance seeds 1000 (i+1)^2) on sts-k80m60-N"
                .into()
        } else {
            "PLACEHOLDER RESULTS: generated STS workloads on the built-in placeholder profiles \
             (the authors' sts/ data is absent)"
                .into()
        },
        claims,
        report: sts::to_table(&r),
    })
}

fn run_anticipatory(opts: &Options, progress: &mut dyn FnMut(&str)) -> Result<Outcome> {
    let mut o = anticipatory::Options {
        seeds: 2,
        variants: anticipatory::all_variants(),
        days: 3.0,
        helios_days: 182.0,
        helios_scales: vec![1.0, 0.8],
        settings: Default::default(),
        seed: opts.seed,
    };
    if opts.preset == Preset::Quick {
        o.seeds = 1;
        o.helios_scales = vec![1.0];
    }
    let r = anticipatory::reproduce(&o, progress)?;
    Ok(Outcome {
        inputs: "our generators: Appendix C's synthetic variants, Fig 1's example and a Helios-like \
                 workload calibrated to the published statistics (the real Helios log is not public \
                 here)"
            .into(),
        claims: anticipatory::claims(&r),
        report: anticipatory::to_table(&r),
    })
}

/// The summary as Markdown: the tally per paper, then each paper's claims.
pub fn to_markdown(s: &Summary) -> String {
    let mut md = format!(
        "# Paper results: `schedlab reproduce all --{}`\n\n\
         Run on {} ({}), seed {}, {:.0} minutes; load averages (1 / 5 / 15 min) {} at the\n\
         start, {} at the end. Each claim is the paper's (or its artifact's)\n\
         number beside ours; \"holds\" applies the tolerance shown; \"info\" claims have no target.\n\
         Every difference is explained in the paper's doc (docs/AFS.md, SIA.md, COPTER.md, PCS.md,\n\
         STS.md, ANTICIPATORY.md).\n\n\
         | paper | hold | fail | info | minutes | load at its end | inputs |\n|---|---|---|---|---|---|---|\n",
        s.preset.name(),
        s.date,
        s.machine,
        s.seed,
        s.wall_s / 60.0,
        load_cell(s.load_start),
        load_cell(s.load_end),
    );
    for sec in &s.sections {
        md.push_str(&format!(
            "| {} | {} | {} | {} | {:.1} | {} | {} |\n",
            sec.target,
            sec.tally.hold,
            sec.tally.fail,
            sec.tally.info,
            sec.wall_s / 60.0,
            load_cell(sec.load_end),
            sec.error
                .as_ref()
                .map_or(cell(&sec.inputs), |e| format!("failed: {}", cell(e)))
        ));
    }
    md.push_str(&format!(
        "| **all** | **{}** | **{}** | **{}** | {:.1} | | |\n",
        s.tally.hold,
        s.tally.fail,
        s.tally.info,
        s.wall_s / 60.0
    ));
    for sec in &s.sections {
        md.push_str(&format!("\n## {}\n\n{}\n\n", sec.target, sec.title));
        if let Some(e) = &sec.error {
            md.push_str(&format!("Failed: {}\n", cell(e)));
            continue;
        }
        md.push_str(
            "| claim | paper | ours | ratio | tolerance | holds |\n|---|---|---|---|---|---|\n",
        );
        for c in &sec.claims {
            md.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} |\n",
                cell(&c.what),
                cell(&c.theirs),
                cell(&c.ours),
                c.ratio.map_or("–".into(), |r| format!("{r:.2}")),
                cell(&c.tolerance),
                match c.holds {
                    Some(true) => "yes",
                    Some(false) => "**no**",
                    None => "info",
                }
            ));
        }
    }
    md
}

/// The 1, 5 and 15-minute load averages from /proc/loadavg (Linux), else `None`.
fn load_average() -> Option<[f64; 3]> {
    parse_loadavg(&std::fs::read_to_string("/proc/loadavg").ok()?)
}

fn parse_loadavg(text: &str) -> Option<[f64; 3]> {
    let mut it = text.split_whitespace().map(|x| x.parse::<f64>().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

/// Load averages as "a / b / c", or "–" when unknown.
fn load_cell(l: Option<[f64; 3]>) -> String {
    l.map_or("–".into(), |[a, b, c]| {
        format!("{a:.1} / {b:.1} / {c:.1}")
    })
}

/// The progress line's note of the load (empty when unknown).
fn load_text(l: Option<[f64; 3]>) -> String {
    l.map_or(String::new(), |_| format!(" (load {})", load_cell(l)))
}

/// Text safe inside a Markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Today's date in UTC (days since the epoch to a civil date: Hinnant's algorithm).
fn today_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    civil_date((secs / 86_400) as i64)
}

fn civil_date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The CPU model, its logical cores and memory, from /proc (Linux), else the core count.
fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let mem_gb = std::fs::read_to_string("/proc/meminfo").ok().and_then(|t| {
        t.lines()
            .find(|l| l.starts_with("MemTotal"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map(|kb| kb / 1_048_576.0)
    });
    match mem_gb {
        Some(gb) => format!("{cpu}, {cores} cores, {gb:.0} GB"),
        None => format!("{cpu}, {cores} cores"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_are_right() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(20_420), "2025-11-28");
        assert_eq!(civil_date(11_016), "2000-02-29");
    }

    #[test]
    fn quick_cuts_only_the_largest_philly_vcs() {
        assert_eq!(afs_max_jobs(Preset::Full, true), usize::MAX);
        assert_eq!(afs_max_jobs(Preset::Quick, false), 1000);
        assert_eq!(afs_max_jobs(Preset::Full, false), 1000);
        // docs/AFS.md's job counts per VC in philly.csv: only traces 5 and 10 exceed the cut.
        let philly_jobs = [
            1435, 9953, 7423, 374, 41_226, 723, 1934, 1511, 422, 16_091, 1137,
        ];
        let cut: Vec<usize> = (1..=11)
            .zip(philly_jobs)
            .filter(|(_, n)| *n > afs_max_jobs(Preset::Quick, true))
            .map(|(id, _)| id)
            .collect();
        assert_eq!(cut, vec![5, 10]);
    }

    #[test]
    fn load_averages_are_read_or_unknown() {
        assert_eq!(
            parse_loadavg("8.21 7.90 6.02 5/226 1234\n"),
            Some([8.21, 7.90, 6.02])
        );
        assert_eq!(parse_loadavg("8.21 x"), None);
        assert_eq!(parse_loadavg(""), None);
        assert_eq!(load_cell(None), "–");
        assert_eq!(load_cell(Some([8.21, 7.9, 6.02])), "8.2 / 7.9 / 6.0");
    }

    #[test]
    fn an_unknown_target_is_refused_before_anything_runs() {
        let opts = Options {
            preset: Preset::Quick,
            only: vec!["nosuch".into()],
            data: PathBuf::from("/nonexistent"),
            seed: 1,
        };
        let err = run(&opts, &mut |_| panic!("nothing runs")).unwrap_err();
        assert!(err.to_string().contains("'nosuch'"), "{err}");
    }

    #[test]
    fn the_markdown_marks_failures_and_escapes_cells() {
        let s = Summary {
            preset: Preset::Quick,
            date: "2026-11-28".into(),
            machine: "test".into(),
            seed: 1,
            wall_s: 60.0,
            load_start: Some([1.0, 2.0, 3.0]),
            load_end: None,
            tally: Tally {
                hold: 1,
                fail: 1,
                info: 0,
            },
            sections: vec![Section {
                target: "afs".into(),
                title: "AFS".into(),
                inputs: "a|b".into(),
                wall_s: 60.0,
                load_end: Some([9.0, 8.0, 7.0]),
                tally: Tally {
                    hold: 1,
                    fail: 1,
                    info: 0,
                },
                claims: vec![
                    Claim::within("x", 1.0, 1.0, 0.1),
                    Claim::within("y", 1.0, 2.0, 0.1),
                ],
                error: None,
                live: String::new(),
                report: String::new(),
            }],
        };
        let md = to_markdown(&s);
        assert!(md.contains("a\\|b"), "{md}");
        assert!(md.contains("1.0 / 2.0 / 3.0 at the"), "{md}");
        assert!(md.contains("| 1.0 | 9.0 / 8.0 / 7.0 | a\\|b |"), "{md}");
        assert!(
            md.contains("| y | 1.00 | 2.00 | 2.00 | ratio within 10% | **no** |"),
            "{md}"
        );
    }
}
