//! STS's workloads (spec seed002 §4.3 and the authors' generator rules in
//! `../shared/data/sts/README.md`): 10 jobs per node, each a uniform pick of
//! the 48 job types (`perf::sts_jobs`), memory from its network's range,
//! due date = arrival + U[t_min, min(3 t_min, t_max)] over the configurations
//! of the cluster's GPU types (t for the maximum epochs; the right end x
//! `due_widen`, 1.2 in the paper's sharing runs), tardiness weight
//! eta ~ U(0.0254, 0.0444) $/s (the paper's; the tool draws 2 U(0.0015, 0.0075)).
//!
//! Arrivals: `exponential` gaps of mean `exp_mean_s` / nodes (the paper's
//! 50,000 s; the tool's config has 30,000); `high` / `low` / `mixed` as the
//! authors' tool makes them (the paper's formula, 0.4 x 8 N / the fastest
//! expected completion, would submit a 10-node day's jobs in minutes): jobs
//! in groups of 10, each group Poisson at 1.3 x mean over its jobs of
//! (8 N / the job's fastest 1-GPU time) / 3 (high) or / 12 (low), `mixed`
//! alternating; the first job arrives at 0.
//!
//! With the authors' data ([`generate_with_data`], `gen sts --sts-data DIR`)
//! the generator follows the authors' rules instead (their README, facts
//! from `generate_data.py` at 0f0ccf6; decisions in docs/STS.md): 10 jobs
//! per node plus one, each a uniform profile and a uniform early-stopping
//! column (model `sts-data/JOB-FAMILY`), its memory the profile's; due date
//! = arrival + U(shortest, longest full-run time over its K80/M60
//! configurations) (the right end x `due_widen`); weight U(0.0253709514,
//! 0.0443991650) $/s unless `eta_min`/`eta_max` are set; `exponential` gaps
//! of mean `exp_mean_s` / nodes; `high`/`low`/`mixed`: jobs dealt
//! round-robin into round(jobs / 10) clusters, a cluster's rate the mean of
//! its jobs' (8 nodes / fastest 1-GPU time) divided by 2.5 (high) or 10
//! (low), `mixed` alternating (even clusters high); the clusters arrive one
//! after the other, each at its rate; the first job at 0.

use super::Generator;
use crate::cluster::GpuKind;
use crate::perf::sts_data::StsData;
use crate::perf::sts_jobs::{memory_range_gb, sts_models_with, Profile, TYPE_SPEED};
use crate::perf::{Behaviour, ModelInfo};
use crate::workload::{Adaptivity, JobSpec, Trace};
use schedlab_core::error::{Error, Result};
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::rng::Sampler;

const PARAMS: &[ParamSpec] = &[
    ParamSpec::int("nodes", "10", 1, 10_000, "Nodes of the cluster the workload is for (sts-N); 10 jobs per node unless --jobs says otherwise"),
    ParamSpec::choice("family", "all", &["all", "k80m60", "a100"], "GPU types of that cluster: all (sts-N), k80m60 (sts-k80m60-N) or a100 (sts-a100-N); due dates come from their configurations"),
    ParamSpec::choice("arrivals", "exponential", &["exponential", "high", "low", "mixed"], "Inter-arrival process (see the generator's doc)"),
    ParamSpec::float("exp_mean_s", "50000", 1.0, 1e9, "exponential: mean gap x nodes (the paper's 50,000 s)"),
    ParamSpec::float("due_widen", "1", 0.1, 10.0, "Multiplies the right end of the due-date interval (1.2 in the paper's GPU-sharing runs)"),
    ParamSpec::float("eta_min", "0.0254", 0.0, 1e3, "Smallest tardiness weight, $ per second late"),
    ParamSpec::float("eta_max", "0.0444", 0.0, 1e3, "Largest tardiness weight, $ per second late"),
    crate::perf::sts_jobs::A100_SPEED,
    crate::perf::sts_jobs::BETA_SCALE,
];

pub const GENERATOR: Generator = Generator {
    name: "sts",
    description: schedlab_core::prose::doc("STS workloads (spec seed002 §4): 10 jobs per node of 48 training job types with early stopping, due dates, tardiness weights and memory needs; exponential/high/low/mixed arrivals"),
    default_jobs: 100,
    params: PARAMS,
    jobs_from: Some(|p| 10 * p.i64("nodes") as usize),
    run,
    pools: None,
};

/// The GPU types of a cluster family.
fn family_types(family: &str) -> Vec<GpuKind> {
    let names: &[&str] = match family {
        "k80m60" => &["k80-board", "m60-board"],
        "a100" => &["a100-80"],
        _ => &["k80-board", "m60-board", "a100-80"],
    };
    names
        .iter()
        .map(|n| GpuKind::by_name(n).expect("catalog type"))
        .collect()
}

/// Seconds for the maximum epochs on every (type, count) the family offers.
fn full_times(m: &ModelInfo, kinds: &[GpuKind]) -> Vec<(u32, f64)> {
    let Behaviour::Table(t) = &m.behaviour else {
        return Vec::new();
    };
    let epochs = m.default_work.unwrap_or(100.0);
    kinds
        .iter()
        .flat_map(|k| (1..=8).map(move |g| (g, epochs / t.rate(*k, g))))
        .filter(|(_, s)| s.is_finite())
        .collect()
}

fn run(p: &Params, n: usize, seed: u64) -> Result<Vec<JobSpec>> {
    let (eta_lo, eta_hi) = (p.f64("eta_min"), p.f64("eta_max"));
    if eta_lo > eta_hi {
        return Err(Error::config(format!(
            "sts: eta_min {eta_lo} is above eta_max {eta_hi}"
        )));
    }
    debug_assert_eq!(TYPE_SPEED.len(), 3);
    let models = sts_models_with(&Profile::from_params(p));
    let kinds = family_types(p.text("family"));
    let nodes = p.i64("nodes") as f64;
    let mut rng = Sampler::new(seed);
    let mut jobs = Vec::with_capacity(n);
    // (fastest 1-GPU time) per job, for the grouped arrival rates.
    let mut one_gpu = Vec::with_capacity(n);
    for i in 0..n {
        let m = &models[rng.below(models.len() as u64) as usize];
        let times = full_times(m, &kinds);
        let t_min = times.iter().map(|t| t.1).fold(f64::INFINITY, f64::min);
        let t_max = times.iter().map(|t| t.1).fold(0.0, f64::max);
        one_gpu.push(
            times
                .iter()
                .filter(|t| t.0 == 1)
                .map(|t| t.1)
                .fold(f64::INFINITY, f64::min),
        );
        let (lo, hi) = memory_range_gb(&m.name).expect("an STS model");
        let mut job = JobSpec::new(format!("job-{i}"), 0.0, m.name.clone(), 1);
        job.min_gpus = 1;
        job.max_gpus = 8;
        job.adaptivity = Adaptivity::StrongScaling;
        job.mem_gb = Some((rng.range(lo, hi) * 10.0).round() / 10.0);
        job.weight = rng.range(eta_lo, eta_hi);
        let right = (3.0 * t_min).min(t_max) * p.f64("due_widen");
        job.due = Some(rng.range(t_min, right.max(t_min)));
        jobs.push(job);
    }
    let mut t = 0.0;
    let arrivals = p.text("arrivals");
    for (g, group) in jobs.chunks_mut(10).enumerate() {
        let start = g * 10;
        let gap_mean = match arrivals {
            "exponential" => p.f64("exp_mean_s") / nodes,
            other => {
                let high = other == "high" || (other == "mixed" && g % 2 == 0);
                let div = if high { 3.0 } else { 12.0 };
                let rate = 1.3
                    * one_gpu[start..start + group.len()]
                        .iter()
                        .map(|t1| 8.0 * nodes / t1)
                        .sum::<f64>()
                    / group.len() as f64
                    / div;
                1.0 / rate
            }
        };
        for (k, job) in group.iter_mut().enumerate() {
            if start + k > 0 {
                t += rng.exponential(gap_mean);
            }
            job.arrival = t;
            // Due dates were drawn relative to arrival.
            job.due = job.due.map(|d| d + t);
        }
    }
    Ok(jobs)
}

/// The authors' tardiness weight bounds, $/s (`generate_data.py`).
pub const AUTHORS_ETA: (f64, f64) = (0.0253709514333333, 0.0443991650083333);
/// Divisors of a cluster's mean job rate for `high` and `low` arrivals.
const AUTHORS_HIGH_DIV: f64 = 2.5;
const AUTHORS_LOW_DIV: f64 = 10.0;
/// Jobs per arrival cluster (round(jobs / 10) clusters).
const AUTHORS_CLUSTER_JOBS: f64 = 10.0;

/// The job count the authors' generator makes for `nodes` nodes: 10 per
/// node plus one.
pub fn authors_jobs(nodes: u32) -> usize {
    10 * nodes as usize + 1
}

/// A workload by the authors' rules on their data (see the module doc).
/// `overrides` are the `sts` generator's parameters; `family` must be
/// `all` or `k80m60` (the data profiles K80 and M60 only).
pub fn generate_with_data(
    data: &StsData,
    jobs: Option<usize>,
    seed: u64,
    overrides: &[(String, String)],
) -> Result<Trace> {
    let p = Params::resolve("sts", PARAMS, overrides)?;
    if p.text("family") == "a100" {
        return Err(Error::config(
            "sts --sts-data: the authors' data profiles K80 and M60 only (family all or k80m60)",
        ));
    }
    let set = |k: &str| overrides.iter().any(|(key, _)| key == k);
    let eta_lo = if set("eta_min") {
        p.f64("eta_min")
    } else {
        AUTHORS_ETA.0
    };
    let eta_hi = if set("eta_max") {
        p.f64("eta_max")
    } else {
        AUTHORS_ETA.1
    };
    if eta_lo > eta_hi {
        return Err(Error::config(format!(
            "sts: eta_min {eta_lo} is above eta_max {eta_hi}"
        )));
    }
    let nodes = p.i64("nodes") as u32;
    let n = jobs.unwrap_or_else(|| authors_jobs(nodes));
    if n == 0 || n > 10_000_000 {
        return Err(Error::config(format!(
            "--jobs {n}: must be between 1 and 10,000,000"
        )));
    }
    let kinds = StsData::kinds();
    let mut rng = Sampler::new(seed);
    let mut list = Vec::with_capacity(n);
    // The fastest 1-GPU time per job, for the clustered arrival rates.
    let mut one_gpu = Vec::with_capacity(n);
    for _ in 0..n {
        let prof = &data.profiles[rng.below(data.profiles.len() as u64) as usize];
        let fam = &data.families[rng.below(data.families.len() as u64) as usize];
        let times: Vec<&(GpuKind, u32, f64)> = prof.full_times(&kinds).collect();
        let t_min = times.iter().map(|t| t.2).fold(f64::INFINITY, f64::min);
        let t_max = times.iter().map(|t| t.2).fold(0.0, f64::max);
        one_gpu.push(
            times
                .iter()
                .filter(|t| t.1 == 1)
                .map(|t| t.2)
                .fold(f64::INFINITY, f64::min),
        );
        let mut job = JobSpec::new("", 0.0, StsData::model_name(prof, fam), 1);
        job.min_gpus = 1;
        job.max_gpus = 8;
        job.adaptivity = Adaptivity::StrongScaling;
        job.mem_gb = Some(prof.memory_gb);
        let right = (t_max * p.f64("due_widen")).max(t_min);
        job.due = Some(rng.range(t_min, right));
        job.weight = rng.range(eta_lo, eta_hi);
        list.push(job);
    }
    let arrivals = p.text("arrivals");
    let order: Vec<(usize, f64)> = if arrivals == "exponential" {
        let mean = p.f64("exp_mean_s") / nodes as f64;
        (0..n).map(|i| (i, mean)).collect()
    } else {
        let clusters = ((n as f64 / AUTHORS_CLUSTER_JOBS).round() as usize).max(1);
        let mut out = Vec::with_capacity(n);
        for c in 0..clusters {
            let members: Vec<usize> = (c..n).step_by(clusters).collect();
            let high = arrivals == "high" || (arrivals == "mixed" && c % 2 == 0);
            let div = if high {
                AUTHORS_HIGH_DIV
            } else {
                AUTHORS_LOW_DIV
            };
            let rate = members
                .iter()
                .map(|&j| 8.0 * nodes as f64 / one_gpu[j])
                .sum::<f64>()
                / members.len() as f64
                / div;
            out.extend(members.into_iter().map(|j| (j, 1.0 / rate)));
        }
        out
    };
    let mut t = 0.0;
    let mut timed = Vec::with_capacity(n);
    for (k, (j, gap_mean)) in order.into_iter().enumerate() {
        if k > 0 {
            t += rng.exponential(gap_mean);
        }
        let mut job = list[j].clone();
        job.arrival = t;
        // Due dates were drawn relative to arrival.
        job.due = job.due.map(|d| d + t);
        timed.push(job);
    }
    for (i, job) in timed.iter_mut().enumerate() {
        job.name = format!("job-{i}");
    }
    Trace::from_jobs("sts", timed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen(set: &[(&str, &str)], n: usize) -> Vec<JobSpec> {
        let o: Vec<(String, String)> = set
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let p = Params::resolve("sts", PARAMS, &o).unwrap();
        run(&p, n, 3).unwrap()
    }

    #[test]
    fn due_dates_are_reachable_and_arrivals_follow_the_pattern() {
        let models = crate::perf::sts_jobs::sts_models();
        let jobs = gen(&[], 300);
        assert_eq!(jobs[0].arrival, 0.0);
        for j in &jobs {
            let m = models.iter().find(|m| m.name == j.model).unwrap();
            let times = full_times(m, &family_types("all"));
            let t_min = times.iter().map(|t| t.1).fold(f64::INFINITY, f64::min);
            let slack = j.due.unwrap() - j.arrival;
            assert!(
                slack >= t_min - 1e-9 && slack <= 3.0 * t_min + 1e-9,
                "{slack} {t_min}"
            );
            assert!((0.0254..=0.0444).contains(&j.weight));
            assert!(j.mem_gb.unwrap() > 0.0);
        }
        // Exponential: mean gap 50,000 / 10 nodes.
        let gap = jobs.last().unwrap().arrival / 299.0;
        assert!((gap - 5000.0).abs() < 1000.0, "{gap}");
        // High arrives about 4x as fast as low.
        let span = |a: &str| gen(&[("arrivals", a)], 300).last().unwrap().arrival;
        let r = span("low") / span("high");
        assert!((2.5..6.0).contains(&r), "{r}");
    }
}
