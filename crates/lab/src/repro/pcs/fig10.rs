//! Fig. 10 of PCS (spec §6.7): the job-size estimation error. Workload-1
//! (`pcs-themis1`, load 0.8, 64 GPUs), the artifact's five seeds, size error
//! p in {0, 5, 10, 20, 30, 40}% (`engine.size_error`), schemes FIFO (the
//! artifact's elastic FIFO: `pcs` with one class), PCS (the stored
//! `themis1_bal` pick) and AFS (`afs-l`), each averaged over the seeds and
//! printed beside the artifact's `figures/fig10/fig10.csv`.

use super::{pick_overrides, predicting, published::PICKS, ratio, Options, TOLERANCE};
use schedlab_core::error::{Error, Result};
use schedlab_core::textio::CsvTable;
use schedlab_model::cluster::parse_cluster;
use schedlab_model::perf::ModelZoo;
use schedlab_run::report::run_policy;
use serde::Serialize;
use std::sync::Arc;

/// The artifact's seeds (`profile_sensitivity_error_in_size.sh`).
pub const SEEDS: [u64; 5] = [4576, 968, 1209, 3560, 8910];
/// The size errors of the figure, percent.
pub const ERRORS_PCT: [u32; 6] = [0, 5, 10, 20, 30, 40];
/// The figure's schemes, as `fig10.csv` names them.
pub const SCHEMES: [&str; 3] = ["FIFO", "PCS", "AFS"];
/// Apps per workload in the artifact's runs.
pub const APPS: usize = 5000;

/// The artifact's values of one scheme at one error.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct Published {
    pub avg_jct_s: f64,
    pub avg_err: f64,
    pub p99_err: f64,
}

/// Reads `fig10.csv` (`scheduler,size_error_pct,metric,value`): the avg JCT,
/// avg and p99 prediction error of every (scheme, error) of the figure; a
/// missing cell or a bad number is an error naming the file, line and field.
pub fn parse_published(file: &str, text: &str) -> Result<Vec<(String, u32, Published)>> {
    let mut t = CsvTable::open(file, text)?;
    t.require(
        &["scheduler", "size_error_pct", "metric", "value"],
        "Fig. 10's data",
    )?;
    let mut cells: Vec<(String, u32, [Option<f64>; 3])> = Vec::new();
    t.rows(|row| {
        let scheme = row.required_text("scheduler")?.trim().to_string();
        let pct = row.u32("size_error_pct")?;
        let slot = match row.required_text("metric")?.trim() {
            "avg_JCT" => 0,
            "avg_pred_error" => 1,
            "p99_pred_error" => 2,
            _ => return Ok(()),
        };
        let value = row.f64("value")?;
        if !value.is_finite() || value < 0.0 {
            return Err(row.error("value", format!("'{value}' is not a number >= 0")));
        }
        let at = match cells.iter().position(|c| c.0 == scheme && c.1 == pct) {
            Some(i) => i,
            None => {
                cells.push((scheme, pct, [None; 3]));
                cells.len() - 1
            }
        };
        cells[at].2[slot] = Some(value);
        Ok(())
    })?;
    let mut out = Vec::new();
    for s in SCHEMES {
        for p in ERRORS_PCT {
            let c = cells.iter().find(|c| c.0 == s && c.1 == p).ok_or_else(|| {
                Error::input(file, 0, "scheduler", format!("no rows for {s} at {p}%"))
            })?;
            let get = |i: usize, m: &str| {
                c.2[i].ok_or_else(|| {
                    Error::input(file, 0, "metric", format!("no {m} for {s} at {p}%"))
                })
            };
            out.push((
                s.to_string(),
                p,
                Published {
                    avg_jct_s: get(0, "avg_JCT")?,
                    avg_err: get(1, "avg_pred_error")?,
                    p99_err: get(2, "p99_pred_error")?,
                },
            ));
        }
    }
    Ok(out)
}

/// One scheme at one size error: ours (mean over the seeds) and the artifact's.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub scheme: String,
    pub error_pct: u32,
    pub avg_jct_s: f64,
    /// Avg JCT over this scheme's at 0% error (Fig. 10b's normalisation).
    pub jct_vs_exact: f64,
    pub avg_err: f64,
    pub p99_err: f64,
    pub paper: Published,
    pub paper_jct_vs_exact: f64,
    /// Seeds averaged and the runs' summed wall time (each on one thread).
    pub seeds: usize,
    pub wall_s: f64,
}

/// The policy and its settings for a scheme of the figure.
fn scheme_policy(scheme: &str) -> (&'static str, Vec<(String, String)>) {
    let own = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(k, x)| (k.to_string(), x.to_string()))
            .collect()
    };
    match scheme {
        "FIFO" => ("pcs", own(&[("thresholds", ""), ("weights", "1")])),
        "PCS" => {
            let bal = &PICKS
                .iter()
                .find(|p| p.0 == "themis1")
                .expect("the themis1 picks are published")
                .1[1];
            ("pcs", pick_overrides(bal))
        }
        _ => ("afs-l", Vec::new()),
    }
}

/// Runs the figure: `opts.fig10_apps` apps per seed (the artifact's 5,000 by
/// default), the first `opts.fig10_seeds` seeds, every error and scheme, the
/// runs spread over `opts.threads()` threads.
pub fn run(opts: &Options, progress: &mut dyn FnMut(&str)) -> Result<Vec<Row>> {
    let dir = opts.pcs_dir.as_ref().ok_or_else(|| {
        Error::config("--sections fig10 needs the artifact's data (--pcs-dir, ../shared/data/pcs)")
    })?;
    let path = dir.join("figures/fig10/fig10.csv");
    let file = path.display().to_string();
    let published = parse_published(&file, &schedlab_core::textio::read_text(&file)?)?;
    let seeds = &SEEDS[..opts.fig10_seeds.clamp(1, SEEDS.len())];
    let cluster = Arc::new(parse_cluster("pcs-64")?);
    let zoo = Arc::new(ModelZoo::builtin());
    let gen_set = [("gpus".to_string(), "64".to_string())];
    let traces: Vec<_> = seeds
        .iter()
        .map(|&s| {
            schedlab_model::workload::gen::generate(
                "pcs-themis1",
                Some(opts.fig10_apps),
                s,
                &gen_set,
            )
        })
        .collect::<Result<_>>()?;
    let base = predicting(&opts.settings)?;
    let cells: Vec<(usize, u32, usize)> = SCHEMES
        .iter()
        .enumerate()
        .flat_map(|(k, _)| {
            ERRORS_PCT
                .iter()
                .flat_map(move |&p| (0..seeds.len()).map(move |s| (k, p, s)))
        })
        .collect();
    let one = |&(k, p, s): &(usize, u32, usize)| -> Result<(f64, f64, f64, f64)> {
        let (policy, set) = scheme_policy(SCHEMES[k]);
        let o = base.with_pairs(policy, &set)?.with(
            "engine",
            "size_error",
            &format!("{}", p as f64 / 100.0),
        )?;
        let run = run_policy(
            &traces[s],
            &cluster,
            &zoo,
            policy,
            &o,
            seeds[s],
            &mut |_| true,
        )?;
        let m = &run.metrics;
        Ok((
            m.avg_jct_s.unwrap_or(f64::NAN),
            m.avg_pred_error_pct.unwrap_or(f64::NAN),
            m.p99_pred_error_pct.unwrap_or(f64::NAN),
            run.wall_s,
        ))
    };
    let results = schedlab_run::search::parallel_map(&cells, opts.threads(), &one);
    let mut done = Vec::new();
    for (c, r) in cells.iter().zip(results) {
        done.push((*c, r?));
    }
    let mut rows: Vec<Row> = Vec::new();
    for (k, scheme) in SCHEMES.iter().enumerate() {
        for p in ERRORS_PCT {
            let runs: Vec<(f64, f64, f64, f64)> = done
                .iter()
                .filter(|((kk, pp, _), _)| *kk == k && *pp == p)
                .map(|(_, r)| *r)
                .collect();
            let n = runs.len() as f64;
            let mean = |f: fn(&(f64, f64, f64, f64)) -> f64| runs.iter().map(f).sum::<f64>() / n;
            let paper = published
                .iter()
                .find(|(s, q, _)| s == scheme && *q == p)
                .expect("parse_published has every cell")
                .2;
            let row = Row {
                scheme: scheme.to_string(),
                error_pct: p,
                avg_jct_s: mean(|r| r.0),
                jct_vs_exact: f64::NAN,
                avg_err: mean(|r| r.1),
                p99_err: mean(|r| r.2),
                paper,
                paper_jct_vs_exact: f64::NAN,
                seeds: runs.len(),
                wall_s: runs.iter().map(|r| r.3).sum(),
            };
            progress(&format!(
                "pcs fig10 {scheme:<4} error {p:>2}%: avg JCT {:.1} h, avg error {:.2}%, p99 {:.1}%, {:.1} s",
                row.avg_jct_s / 3600.0,
                row.avg_err,
                row.p99_err,
                row.wall_s
            ));
            rows.push(row);
        }
    }
    for k in 0..rows.len() {
        let exact = rows
            .iter()
            .find(|r| r.scheme == rows[k].scheme && r.error_pct == 0)
            .map(|r| (r.avg_jct_s, r.paper.avg_jct_s))
            .expect("0% is a column");
        rows[k].jct_vs_exact = rows[k].avg_jct_s / exact.0;
        rows[k].paper_jct_vs_exact = rows[k].paper.avg_jct_s / exact.1;
    }
    Ok(rows)
}

/// The figure's claims (spec §6.1, §6.7), each with whether it holds here.
pub fn checks(rows: &[Row]) -> Vec<(String, bool)> {
    let get = |s: &str, p: u32| rows.iter().find(|r| r.scheme == s && r.error_pct == p);
    let mut out = Vec::new();
    let (Some(pcs0), Some(pcs40), Some(fifo0), Some(fifo40)) = (
        get("PCS", 0),
        get("PCS", 40),
        get("FIFO", 0),
        get("FIFO", 40),
    ) else {
        return out;
    };
    let rises = |s: &str| {
        ERRORS_PCT
            .windows(2)
            .all(|w| match (get(s, w[0]), get(s, w[1])) {
                (Some(a), Some(b)) => b.avg_err >= a.avg_err,
                _ => false,
            })
    };
    out.push((
        "fig10: PCS's and FIFO's average errors rise with the size error at every step".into(),
        rises("PCS") && rises("FIFO"),
    ));
    let growth = |s: &Row, f: &Row| (s.avg_err - f.avg_err, s.paper.avg_err - f.paper.avg_err);
    let (pcs_up, paper_pcs_up) = growth(pcs40, pcs0);
    let (fifo_up, paper_fifo_up) = growth(fifo40, fifo0);
    let (ours, theirs) = (pcs_up / fifo_up, paper_pcs_up / paper_fifo_up);
    out.push((
        format!(
            "fig10: PCS's error grows with the size error as FIFO's does: growth 0-40% PCS / FIFO {ours:.2}, the artifact's {theirs:.2} (±{:.0}%)",
            TOLERANCE * 100.0
        ),
        (ours / theirs - 1.0).abs() <= TOLERANCE,
    ));
    out.push((
        "fig10b: PCS's avg JCT within 1.013x of its own at 0% error at every error".into(),
        rows.iter()
            .filter(|r| r.scheme == "PCS")
            .all(|r| (r.jct_vs_exact - 1.0).abs() <= 0.013),
    ));
    out
}

/// The section's table.
pub fn to_table(rows: &[Row], apps: usize, cost: &str) -> String {
    let seeds = rows.first().map_or(0, |r| r.seeds);
    let mut out = format!(
        "\nFig. 10: size-estimation error, workload-1 (themis1, load 0.8, 64 GPUs, {apps} apps), mean over {seeds} of the artifact's seeds, predictions at every arrival; FIFO = pcs with one class (the artifact's elastic FIFO), PCS = themis1_bal, AFS = afs-l; JCT / 0% = each scheme's avg JCT over its own at 0% (Fig. 10b); ratio = ours / artifact, * = outside ±{:.0}%; all runs took {cost}\n\n",
        TOLERANCE * 100.0,
    );
    let mut table = vec![vec![
        "scheme".to_string(),
        "error %".into(),
        "avg JCT h".into(),
        "artifact".into(),
        "ratio".into(),
        "JCT / 0%".into(),
        "artifact".into(),
        "avg err %".into(),
        "artifact".into(),
        "ratio".into(),
        "p99 err %".into(),
        "artifact".into(),
        "ratio".into(),
    ]];
    for r in rows {
        table.push(vec![
            r.scheme.clone(),
            r.error_pct.to_string(),
            format!("{:.1}", r.avg_jct_s / 3600.0),
            format!("{:.1}", r.paper.avg_jct_s / 3600.0),
            ratio(r.avg_jct_s, r.paper.avg_jct_s),
            format!("{:.3}", r.jct_vs_exact),
            format!("{:.3}", r.paper_jct_vs_exact),
            format!("{:.2}", r.avg_err),
            format!("{:.2}", r.paper.avg_err),
            ratio(r.avg_err, r.paper.avg_err),
            format!("{:.1}", r.p99_err),
            format!("{:.1}", r.paper.p99_err),
            ratio(r.p99_err, r.paper.p99_err),
        ]);
    }
    out += &super::super::table(&table);
    out
}
