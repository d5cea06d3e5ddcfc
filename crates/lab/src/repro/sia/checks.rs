//! Issue 5's targets (the thesis's orderings and ratios) checked on a
//! report.

use super::stats::{RunStats, SiaReport};
use serde::Serialize;

/// A target of issue 5 (thesis ordering and ratios on our workloads).
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub claim: String,
    pub target: String,
    pub ours: String,
    pub holds: bool,
}

fn ratio_check(claim: String, target: &str, ours: f64, limit: f64) -> Check {
    Check {
        claim,
        target: target.to_string(),
        ours: format!("{ours:.2}"),
        holds: ours.is_finite() && ours <= limit,
    }
}

/// Sia restarts fewer jobs than Pollux; the thesis's "about half" (0.50-0.64)
/// is not a target: the Sia artifact itself, unmodified, restarts its Sia
/// jobs 4.12 / 4.26 times per job (thesis 2.9-3.4; docs/SIA.md, issue 21).
const RESTART_TARGET: &str = "< 1 (thesis 0.50-0.64, not met by the Sia artifact itself)";
/// Strictly below: a ratio of 1.0 fails.
const RESTART_LIMIT: f64 = 1.0 - f64::EPSILON;

/// The targets, for the sections that ran.
pub fn checks(r: &SiaReport) -> Vec<Check> {
    let mut out = Vec::new();
    let avg = |s: &RunStats| s.avg_jct_h;
    let restarts = |s: &RunStats| s.restarts;
    for w in r.workloads("hetero") {
        if w == "newtrace" {
            continue; // Reported, not a target (see docs/SIA.md).
        }
        let sia = r.mean("hetero", &w, "sia", avg);
        let pollux = r.mean("hetero", &w, "pollux", avg);
        let gavel = r.mean("hetero", &w, "gavel", avg);
        if pollux.is_finite() {
            out.push(ratio_check(
                format!("hetero {w}: Sia / Pollux avg JCT"),
                "<= 0.75 (thesis 0.60-0.70)",
                sia / pollux,
                0.75,
            ));
            out.push(ratio_check(
                format!("hetero {w}: Sia / Pollux restarts per job"),
                RESTART_TARGET,
                r.mean("hetero", &w, "sia", restarts) / r.mean("hetero", &w, "pollux", restarts),
                RESTART_LIMIT,
            ));
        }
        if gavel.is_finite() {
            out.push(ratio_check(
                format!("hetero {w}: Sia / Gavel avg JCT"),
                "<= 0.50 (thesis 0.28-0.32)",
                sia / gavel,
                0.5,
            ));
        }
    }
    if !r.cell("homog", "philly", "sia").is_empty() {
        out.push(ratio_check(
            "homog philly: Sia / Pollux avg JCT".into(),
            "<= 1.10 (thesis 0.95)",
            r.mean("homog", "philly", "sia", avg) / r.mean("homog", "philly", "pollux", avg),
            1.10,
        ));
        out.push(ratio_check(
            "homog philly: Sia / Pollux restarts per job".into(),
            RESTART_TARGET,
            r.mean("homog", "philly", "sia", restarts)
                / r.mean("homog", "philly", "pollux", restarts),
            RESTART_LIMIT,
        ));
    }
    let sia_helios = r.cell("hetero", "helios", "sia");
    if !sia_helios.is_empty() {
        let worst = sia_helios.iter().map(|s| s.ftf_rho_max).fold(0.0, f64::max);
        out.push(ratio_check(
            "hetero helios: Sia worst finish-time fairness rho".into(),
            "<= 1.5 (thesis 1.2)",
            worst,
            1.5,
        ));
    }
    for (gpus, limit, thesis) in [(64, 10.0, "96 ms"), (2048, 200.0, "about 1 s")] {
        if let Some(s) = r.scale.iter().find(|s| s.gpus == gpus && s.policy == "sia") {
            out.push(ratio_check(
                format!("Sia median policy time per round at {gpus} GPUs (ms)"),
                &format!("<= {limit} ms (thesis {thesis})"),
                s.times.median_ms,
                limit,
            ));
        }
    }
    out
}

/// The report's claims for `reproduce all`: issue 5's targets (each with the thesis's
/// number it was set from), then the thesis's average JCTs of Tables 3.3 and 3.4
/// beside ours for information (our traces are generated like the thesis's, not the
/// same traces).
pub fn claims(r: &SiaReport) -> Vec<crate::repro::claims::Claim> {
    use crate::repro::claims::Claim;
    let mut out: Vec<Claim> = checks(r)
        .into_iter()
        .map(|c| {
            let (tolerance, theirs) = split_target(&c.target);
            Claim::judged(c.claim, theirs, c.ours, tolerance, c.holds)
        })
        .collect();
    for p in super::PUBLISHED {
        let ours = r.mean(p.setting, p.workload, p.policy, |s| s.avg_jct_h);
        if ours.is_finite() && p.avg_jct_h.is_finite() {
            out.push(Claim::info(
                format!(
                    "Table {}: {} {} {} avg JCT (h)",
                    if p.setting == "hetero" { "3.3" } else { "3.4" },
                    p.setting,
                    p.workload,
                    p.policy
                ),
                Some(p.avg_jct_h),
                ours,
            ));
        }
    }
    out
}

/// A target written "LIMIT (thesis VALUE...)" as (limit, the thesis's value).
fn split_target(target: &str) -> (String, String) {
    match target.split_once(" (thesis ") {
        Some((limit, rest)) => (
            limit.trim().to_string(),
            rest.trim_end_matches(')').to_string(),
        ),
        None => (target.to_string(), target.to_string()),
    }
}
