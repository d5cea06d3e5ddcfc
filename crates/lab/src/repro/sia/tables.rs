//! The reproduction as text tables: ours beside the thesis's numbers.

use super::checks::checks;
use super::published::{Published, PUBLISHED, PUBLISHED_FTF};
use super::stats::{mean_std, FtfStats, RunStats, SiaReport};
use super::{FTF_POLICIES, HOMOG_POLICIES};
use crate::repro::table;

fn fmt_ms(mean: f64, std: f64, traces: usize) -> String {
    if !mean.is_finite() {
        "-".into()
    } else if traces > 1 {
        format!("{mean:.2}±{std:.2}")
    } else {
        format!("{mean:.2}")
    }
}

fn fmt_ratio(ours: f64, theirs: f64) -> String {
    if ours.is_finite() && theirs.is_finite() && theirs > 0.0 {
        format!("{:.2}", ours / theirs)
    } else {
        "-".into()
    }
}

type Metric = (&'static str, fn(&RunStats) -> f64, fn(&Published) -> f64);

const METRICS: &[Metric] = &[
    ("avg JCT h", |s| s.avg_jct_h, |p| p.avg_jct_h),
    ("p99 JCT h", |s| s.p99_jct_h, |p| p.p99_jct_h),
    ("makespan h", |s| s.makespan_h, |p| p.makespan_h),
    ("GPU-h/job", |s| s.gpu_h_per_job, |p| p.gpu_h_per_job),
    ("restarts/job", |s| s.restarts, |p| p.restarts),
    ("contention avg", |s| s.contention_avg, |p| p.contention_avg),
    ("contention max", |s| s.contention_max, |p| p.contention_max),
];

/// Ours (mean ± sd over traces) | thesis | ours/thesis, per metric.
fn setting_table(r: &SiaReport, setting: &str, policies: &[&str]) -> String {
    let mut rows = vec![{
        let mut h = vec!["workload".to_string(), "policy".into(), "done".into()];
        for (name, _, _) in METRICS {
            h.push(name.to_string());
            h.push("thesis".into());
            h.push("ratio".into());
        }
        h
    }];
    for w in r.workloads(setting) {
        for p in policies {
            let cell = r.cell(setting, &w, p);
            if cell.is_empty() {
                continue;
            }
            let done: usize = cell.iter().map(|s| s.completed).sum();
            let jobs: usize = cell.iter().map(|s| s.jobs).sum();
            let mut row = vec![w.clone(), p.to_string(), format!("{done}/{jobs}")];
            let published = PUBLISHED
                .iter()
                .find(|x| x.setting == setting && x.workload == w && x.policy == *p);
            for (_, ours, theirs) in METRICS {
                let xs: Vec<f64> = cell.iter().map(|s| ours(s)).collect();
                let (m, sd) = mean_std(&xs);
                let t = published.map_or(f64::NAN, theirs);
                row.push(fmt_ms(m, sd, xs.len()));
                row.push(if t.is_finite() {
                    format!("{t}")
                } else {
                    "-".into()
                });
                row.push(fmt_ratio(m, t));
            }
            rows.push(row);
        }
    }
    table(&rows)
}

/// Sia's ratios to each baseline, ours beside the thesis's.
fn relative_table(r: &SiaReport, setting: &str, baselines: &[&str]) -> String {
    let mut rows = vec![vec![
        "workload".to_string(),
        "Sia / baseline".into(),
        "avg JCT ours".into(),
        "thesis".into(),
        "restarts ours".into(),
        "thesis".into(),
    ]];
    for w in r.workloads(setting) {
        for b in baselines {
            let ours =
                |f: fn(&RunStats) -> f64| r.mean(setting, &w, "sia", f) / r.mean(setting, &w, b, f);
            let theirs = |f: fn(&Published) -> f64| {
                let get = |p: &str| {
                    PUBLISHED
                        .iter()
                        .find(|x| x.setting == setting && x.workload == w && x.policy == p)
                        .map_or(f64::NAN, f)
                };
                get("sia") / get(b)
            };
            let a = ours(|s| s.avg_jct_h);
            if !a.is_finite() {
                continue;
            }
            let show = |x: f64| {
                if x.is_finite() {
                    format!("{x:.2}")
                } else {
                    "-".into()
                }
            };
            rows.push(vec![
                w.clone(),
                format!("sia / {b}"),
                show(a),
                show(theirs(|p| p.avg_jct_h)),
                show(ours(|s| s.restarts)),
                show(theirs(|p| p.restarts)),
            ]);
        }
    }
    table(&rows)
}

/// Sia's and Pollux's restarts per job by what changed (the thesis gives
/// only the totals): where the two differ, which the totals hide.
fn restart_mix_table(r: &SiaReport, setting: &str) -> String {
    let mut rows = vec![vec![
        "workload".to_string(),
        "policy".into(),
        "restarts/job".into(),
        "grow".into(),
        "shrink".into(),
        "moved".into(),
        "resumed".into(),
    ]];
    for w in r.workloads(setting) {
        for p in ["sia", "pollux"] {
            let total = r.mean(setting, &w, p, |s| s.restarts);
            if !total.is_finite() {
                continue;
            }
            let part = |f: fn(&RunStats) -> f64| format!("{:.2}", r.mean(setting, &w, p, f));
            rows.push(vec![
                w.clone(),
                p.to_string(),
                format!("{total:.2}"),
                part(|s| s.restart_mix.grow),
                part(|s| s.restart_mix.shrink),
                part(|s| s.restart_mix.moved),
                part(|s| s.restart_mix.resumed),
            ]);
        }
    }
    table(&rows)
}

/// The report as text tables.
pub fn to_table(r: &SiaReport) -> String {
    let mut s = format!(
        "Sia (thesis ch. 3) reproduction: {} generated trace(s) per workload from seed {}{}\n\
         Ours = mean ± sd over the traces; thesis = its Table 3.3 / 3.4 (10 traces each); ratio = ours / thesis.\n\n",
        r.traces,
        r.seed,
        r.max_jobs
            .map_or(String::new(), |n| format!(", at most {n} jobs per trace"))
    );
    if !r.workloads("hetero").is_empty() {
        s.push_str("Table 3.3: heterogeneous, sia-hetero-64 (t4:6x4, rtx:3x8, a100:2x8)\n");
        s.push_str(&setting_table(r, "hetero", FTF_POLICIES));
        s.push('\n');
        s.push_str(&relative_table(r, "hetero", &["pollux", "gavel"]));
        s.push('\n');
        s.push_str("Restarts per job by what changed (grow / shrink = more / fewer GPUs, moved = as many elsewhere, resumed = back after holding none)\n");
        s.push_str(&restart_mix_table(r, "hetero"));
        s.push('\n');
    }
    if !r.workloads("homog").is_empty() {
        s.push_str("Table 3.4: homogeneous, homog-64 (t4:16x4), TunedJobs up to 64 GPUs\n");
        s.push_str(&setting_table(r, "homog", HOMOG_POLICIES));
        s.push('\n');
        s.push_str(&relative_table(
            r,
            "homog",
            &["pollux", "shockwave", "gavel-ftf", "gavel"],
        ));
        s.push('\n');
        s.push_str("Restarts per job by what changed\n");
        s.push_str(&restart_mix_table(r, "homog"));
        s.push('\n');
    }
    let helios: Vec<&&str> = FTF_POLICIES
        .iter()
        .filter(|p| !r.cell("hetero", "helios", p).is_empty())
        .collect();
    if !helios.is_empty() {
        s.push_str("Fig 3.7: finish-time fairness on Helios-like traces, heterogeneous (worst rho over all traces; unfair = rho > 1, pooled). Isolated time: analytic = the job's rate curve on its fair share; simulated = the job alone under the same policy on each GPU type (the artifact's ftf_simulator)\n");
        let mut rows = vec![vec![
            "policy".to_string(),
            "worst rho analytic".into(),
            "simulated".into(),
            "thesis".into(),
            "unfair % analytic".into(),
            "simulated".into(),
            "thesis".into(),
        ]];
        for p in helios {
            let cell = r.cell("hetero", "helios", p);
            let analytic: Vec<FtfStats> = cell.iter().map(|x| x.ftf()).collect();
            let simulated: Vec<FtfStats> = cell.iter().filter_map(|x| x.ftf_simulated).collect();
            let (worst, unfair) = FtfStats::pool(&analytic);
            let (sim_worst, sim_unfair) = if simulated.len() == cell.len() {
                let (w, u) = FtfStats::pool(&simulated);
                (format!("{w:.2}"), format!("{:.1}", u * 100.0))
            } else {
                ("-".into(), "-".into())
            };
            let th = PUBLISHED_FTF.iter().find(|x| x.0 == *p);
            rows.push(vec![
                p.to_string(),
                format!("{worst:.2}"),
                sim_worst,
                th.map_or("-".into(), |t| format!("{}", t.1)),
                format!("{:.1}", unfair * 100.0),
                sim_unfair,
                th.map_or("-".into(), |t| format!("{:.1}", t.2 * 100.0)),
            ]);
        }
        s.push_str(&table(&rows));
        s.push('\n');
    }
    if !r.runs.is_empty() {
        s.push_str("Policy time per round in the table runs (native, ms; thesis Fig 3.10 at 64 GPUs: Sia 96 / 426, Pollux 2200 / 4800, Gavel 13 / 28)\n");
        let mut rows = vec![vec![
            "setting".to_string(),
            "policy".into(),
            "rounds".into(),
            "median ms".into(),
            "p95 ms".into(),
            "max ms".into(),
            "fallback rounds".into(),
        ]];
        for setting in ["hetero", "homog"] {
            for p in HOMOG_POLICIES {
                let cell: Vec<&RunStats> = r
                    .runs
                    .iter()
                    .filter(|x| x.setting == setting && x.policy == *p)
                    .collect();
                if cell.is_empty() {
                    continue;
                }
                let med: Vec<f64> = cell.iter().map(|x| x.times.median_ms).collect();
                let p95: Vec<f64> = cell.iter().map(|x| x.times.p95_ms).collect();
                rows.push(vec![
                    setting.to_string(),
                    p.to_string(),
                    cell.iter()
                        .map(|x| x.times.rounds)
                        .sum::<usize>()
                        .to_string(),
                    format!("{:.2}", mean_std(&med).0),
                    format!("{:.2}", mean_std(&p95).0),
                    format!(
                        "{:.1}",
                        cell.iter().map(|x| x.times.max_ms).fold(0.0, f64::max)
                    ),
                    cell.iter()
                        .map(|x| x.times.fallbacks)
                        .sum::<usize>()
                        .to_string(),
                ]);
            }
        }
        s.push_str(&table(&rows));
        s.push_str("(medians and p95s are means over the traces' per-run values)\n\n");
    }
    if !r.scale.is_empty() {
        s.push_str(&format!(
            "Fig 3.10: policy time per round, Helios-like trace replicated with the cluster, first {} simulated hours\n",
            r.scale_hours
        ));
        let mut rows = vec![vec![
            "GPUs".to_string(),
            "jobs".into(),
            "policy".into(),
            "rounds".into(),
            "median ms".into(),
            "p95 ms".into(),
            "max ms".into(),
            "fallbacks".into(),
            "wall s".into(),
        ]];
        for x in &r.scale {
            rows.push(vec![
                x.gpus.to_string(),
                x.jobs.to_string(),
                x.policy.clone(),
                x.times.rounds.to_string(),
                format!("{:.2}", x.times.median_ms),
                format!("{:.2}", x.times.p95_ms),
                format!("{:.1}", x.times.max_ms),
                x.times.fallbacks.to_string(),
                format!("{:.1}", x.wall_s),
            ]);
        }
        s.push_str(&table(&rows));
        s.push('\n');
    }
    s.push_str("Targets (issue 5)\n");
    let mut rows = vec![vec![
        "claim".to_string(),
        "target".into(),
        "ours".into(),
        "holds".into(),
    ]];
    for c in checks(r) {
        rows.push(vec![
            c.claim,
            c.target,
            c.ours,
            if c.holds { "yes" } else { "NO" }.into(),
        ]);
    }
    s.push_str(&table(&rows));
    s
}
