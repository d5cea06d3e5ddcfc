//! Engine fidelity checks against external simulators.
//!
//! `pollux`: runs a policy configured as in the Pollux OSDI'21 simulator
//! (`specs/pollux-simulator-notes.md`: a flat 30 s restart on every
//! (re)allocation including the first, 60 s rounds) on a Pollux workload
//! with the Pollux-simulator variant of the built-in zoo on `homog-64`, and
//! compares per-job JCTs with the simulator's published
//! `results-jobload/<policy>-1.0/summary.json`. Two policies have published
//! results there and an implementation here: Tiresias (2 queues, demotion at
//! 16 GPU-hours, no pending rotation, rigid batch and replicas from the
//! workload) and Pollux itself (its genetic search with the paper's
//! defaults: p = -1, 30 s restart penalty, population and generations 100).

use crate::setup::{RunSettings, RunSetup, ZooSource};
use schedlab_core::error::{Error, Result};
use schedlab_model::cluster::parse_cluster;
use schedlab_model::workload::Trace;
use serde::Serialize;
use std::collections::BTreeMap;

/// Tiresias parameters of the Pollux simulator.
pub const POLLUX_TIRESIAS: &[(&str, &str)] = &[
    ("queues", "2"),
    ("t1", "57600"),
    ("round_s", "60"),
    ("pending_to_tail", "false"),
];

/// Pollux parameters of the Pollux simulator (its paper's defaults, which
/// are also ours; spelled out so a change of our defaults cannot silently
/// change the comparison).
pub const POLLUX_POLLUX: &[(&str, &str)] = &[
    ("p", "-1"),
    ("round_s", "60"),
    ("restart_s", "30"),
    ("population", "100"),
    ("generations", "100"),
];

/// A policy the Pollux simulator published results for.
pub struct PolluxSimPolicy {
    /// Our policy name.
    pub name: &'static str,
    /// Its parameters as that simulator ran it.
    pub params: &'static [(&'static str, &'static str)],
    /// The published results directory under `results-jobload/`.
    pub results_dir: &'static str,
}

/// The policies `validate pollux` can compare.
pub const POLLUX_SIM_POLICIES: &[PolluxSimPolicy] = &[
    PolluxSimPolicy {
        name: "tiresias",
        params: POLLUX_TIRESIAS,
        results_dir: "tiresias-1.0",
    },
    PolluxSimPolicy {
        name: "pollux",
        params: POLLUX_POLLUX,
        results_dir: "pollux-1.0",
    },
];

/// How the Pollux simulator ran `policy`, if it published results for it.
pub fn pollux_sim_policy(policy: &str) -> Option<&'static PolluxSimPolicy> {
    POLLUX_SIM_POLICIES.iter().find(|p| p.name == policy)
}

/// Engine parameters of the Pollux simulator.
pub const POLLUX_ENGINE: &[(&str, &str)] = &[("restart_s", "30"), ("charge_first_start", "true")];

/// The run set-up of `policy` as the Pollux simulator ran it on `trace`:
/// homog-64, its zoo variant, its engine and policy settings, seed 1 (the
/// engine draws nothing from it here: no length noise, no early stops, no
/// predictions), no timeline.
fn pollux_setup(policy: &PolluxSimPolicy, trace: &Trace) -> Result<RunSetup> {
    let mut settings = RunSettings::default();
    for (k, v) in POLLUX_ENGINE.iter().chain(&[("timeline", "false")]) {
        settings.set("engine", k, v)?;
    }
    for (k, v) in policy.params {
        settings.set(policy.name, k, v)?;
    }
    RunSetup::new(
        trace.clone(),
        parse_cluster("homog-64")?,
        &ZooSource::named("pollux-osdi21"),
        vec![policy.name.to_string()],
        settings,
        1,
    )
}

/// One workload's comparison.
#[derive(Debug, Clone, Serialize)]
pub struct PolluxRow {
    pub policy: String,
    pub workload: String,
    pub jobs: usize,
    /// Jobs present in both runs (matched by name).
    pub matched: usize,
    pub ours_avg_s: f64,
    pub theirs_avg_s: f64,
    pub ratio: f64,
    /// Spearman rank correlation of per-job JCTs.
    pub spearman: f64,
    /// Our restarts per job (the published summaries have no restart
    /// counts; reported for the Sia comparison, docs/SIA.md).
    pub ours_restarts: f64,
}

/// Average ranks (ties share the mean rank), 1-based.
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    schedlab_core::sorting::sort_by(&mut idx, |a, b| v[*a].total_cmp(&v[*b]));
    let mut r = vec![0.0; v.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for k in i..=j {
            r[idx[k]] = avg;
        }
        i = j + 1;
    }
    r
}

/// Spearman's rank correlation (Pearson correlation of average ranks).
pub fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    if n < 2 {
        return f64::NAN;
    }
    let (ra, rb) = (ranks(&a[..n]), ranks(&b[..n]));
    let ma = ra.iter().sum::<f64>() / n as f64;
    let mb = rb.iter().sum::<f64>() / n as f64;
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for i in 0..n {
        let (x, y) = (ra[i] - ma, rb[i] - mb);
        sab += x * y;
        saa += x * x;
        sbb += y * y;
    }
    sab / (saa * sbb).sqrt()
}

/// Per-job JCTs of one workload from the published summary
/// (`{"jcts": {"workload-1": {"job": seconds, ...}, ...}}`).
pub fn published_jcts(
    summary: &serde_json::Value,
    workload: &str,
) -> Option<BTreeMap<String, f64>> {
    let m = summary.get("jcts")?.get(workload)?.as_object()?;
    Some(
        m.iter()
            .filter_map(|(k, v)| v.as_f64().map(|x| (k.clone(), x)))
            .collect(),
    )
}

/// Runs `policy` (one of [`POLLUX_SIM_POLICIES`]) as the Pollux simulator
/// did on one workload and compares with the published JCTs.
pub fn compare_pollux(
    policy: &str,
    workload: &str,
    trace: &Trace,
    published: &BTreeMap<String, f64>,
) -> Result<PolluxRow> {
    let sim_policy = pollux_sim_policy(policy).ok_or_else(|| {
        Error::config(format!(
            "validate pollux: no published Pollux-simulator results for policy '{policy}' (have: {})",
            POLLUX_SIM_POLICIES.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
        ))
    })?;
    let setup = pollux_setup(sim_policy, trace)?;
    let (mut sim, _) = setup.prepare(policy)?;
    let out = sim.run(&mut |_| true)?;
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    let mut all_ours = Vec::new();
    let mut restarts = 0u64;
    for j in &out.jobs {
        restarts += j.restarts as u64;
        let Some(f) = j.finish else {
            return Err(Error::Internal(format!(
                "{workload}: job {} did not finish ({})",
                j.name, out.stop_reason
            )));
        };
        let jct = f - j.arrival;
        all_ours.push(jct);
        if let Some(t) = published.get(&j.name) {
            ours.push(jct);
            theirs.push(*t);
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let theirs_avg = mean(&published.values().copied().collect::<Vec<_>>());
    let ours_avg = mean(&all_ours);
    Ok(PolluxRow {
        policy: policy.to_string(),
        workload: workload.to_string(),
        jobs: out.jobs.len(),
        matched: ours.len(),
        ours_avg_s: ours_avg,
        theirs_avg_s: theirs_avg,
        ratio: ours_avg / theirs_avg,
        spearman: spearman(&ours, &theirs),
        ours_restarts: restarts as f64 / out.jobs.len().max(1) as f64,
    })
}

/// The report table.
pub fn pollux_table(rows: &[PolluxRow]) -> String {
    let mut s = String::from(
        "homog-64 vs the Pollux OSDI'21 simulator (results-jobload/<policy>-1.0/summary.json)\n",
    );
    s.push_str(&format!(
        "{:<9} {:<12} {:>5} {:>8} {:>12} {:>12} {:>7} {:>9} {:>13}\n",
        "policy",
        "workload",
        "jobs",
        "matched",
        "ours avg s",
        "theirs avg s",
        "ratio",
        "spearman",
        "ours restarts"
    ));
    for r in rows {
        s.push_str(&format!(
            "{:<9} {:<12} {:>5} {:>8} {:>12.0} {:>12.0} {:>7.3} {:>9.3} {:>13.2}\n",
            r.policy,
            r.workload,
            r.jobs,
            r.matched,
            r.ours_avg_s,
            r.theirs_avg_s,
            r.ratio,
            r.spearman,
            r.ours_restarts
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spearman_by_hand() {
        assert!((spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]) - 1.0).abs() < 1e-12);
        assert!((spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]) + 1.0).abs() < 1e-12);
        // Ties get average ranks: ranks (1.5, 1.5, 3) vs (1, 2, 3).
        let r = spearman(&[5.0, 5.0, 9.0], &[1.0, 2.0, 3.0]);
        assert!((r - 0.866_025_403_784_438_6).abs() < 1e-12, "{r}");
        assert!(spearman(&[1.0], &[2.0]).is_nan());
    }
}
