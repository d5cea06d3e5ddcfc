//! Philly-like elastic workload for the AFS job model (spec seed003 §4.6):
//! Poisson arrivals, heavy-tailed log-normal run times at the requested GPU
//! count, mostly power-of-two requests dominated by 1-GPU jobs, and a model
//! drawn uniformly among the Table 4 models whose peak-throughput GPU count
//! covers the request (§4.3). The arrival rate is set from a target offered
//! load: rate = load x GPUs / (E[duration] x E[request]).

use super::Generator;
use crate::workload::fill::afs_model_for;
use crate::workload::{Adaptivity, JobSpec};
use schedlab_core::error::Result;
use schedlab_core::num;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::rng::Sampler;

/// Request sizes and their weights (spec §4.6 illustrative defaults).
pub(super) const REQUESTS: &[(u32, f64)] = &[
    (1, 0.60),
    (2, 0.12),
    (4, 0.14),
    (8, 0.10),
    (16, 0.03),
    (32, 0.01),
];

const PARAMS: &[ParamSpec] = &[
    ParamSpec::int(
        "gpus",
        "64",
        1,
        1_000_000,
        "Cluster size the offered load refers to",
    ),
    ParamSpec::float(
        "load",
        "0.9",
        0.01,
        100.0,
        "Offered load: requested GPU-time per unit time over cluster GPUs",
    ),
    ParamSpec::float(
        "median_min",
        "20",
        0.1,
        100_000.0,
        "Median run time at the requested GPU count, minutes",
    ),
    ParamSpec::float(
        "sigma",
        "1.5",
        0.0,
        4.0,
        "Log-normal sigma of run times (heavy tail)",
    ),
    ParamSpec::float(
        "max_h",
        "72",
        0.01,
        10_000.0,
        "Run times are capped at this many hours",
    ),
    ParamSpec::int(
        "bursts",
        "0",
        0,
        1000,
        "Burst events: each adds 10-30 jobs within one minute",
    ),
];

pub const GENERATOR: Generator = Generator {
    name: "afs-synthetic",
    description: schedlab_core::prose::doc("Philly-like elastic jobs for the AFS model zoo: Poisson arrivals at a target load, log-normal run times, power-of-two requests (AFS spec 4.6)"),
    default_jobs: 200,
    params: PARAMS,
    jobs_from: None,
    run,
    pools: None,
};

fn run(p: &Params, n: usize, seed: u64) -> Result<Vec<JobSpec>> {
    let mut rng = Sampler::new(seed);
    let median = p.f64("median_min") * 60.0;
    let sigma = p.f64("sigma");
    let cap = p.f64("max_h") * 3600.0;
    let mean_req: f64 = REQUESTS.iter().map(|(g, w)| *g as f64 * w).sum::<f64>()
        / REQUESTS.iter().map(|(_, w)| w).sum::<f64>();
    let mean_dur = median * num::exp(sigma * sigma / 2.0);
    let rate = p.f64("load") * p.i64("gpus") as f64 / (mean_dur.min(cap) * mean_req);
    let weights: Vec<f64> = REQUESTS.iter().map(|(_, w)| *w).collect();

    let bursts = p.i64("bursts") as usize;
    let mut t = 0.0;
    let mut jobs = Vec::with_capacity(n);
    let mut burst_left = 0usize;
    for i in 0..n {
        if burst_left > 0 {
            burst_left -= 1;
            t += rng.range(0.0, 60.0 / 30.0);
        } else {
            if i > 0 {
                t += rng.exponential(1.0 / rate);
            }
            if bursts > 0 && rng.chance(bursts as f64 / n as f64) {
                burst_left = 10 + rng.below(21) as usize;
            }
        }
        let req = REQUESTS[rng.weighted(&weights)].0;
        let (model, g) = afs_model_for(req, &mut rng);
        let gpus = g.min(p.i64("gpus") as u32);
        let dur = rng.lognormal(median, sigma).clamp(60.0, cap);
        let mut job =
            JobSpec::new(format!("j{i}"), round3(t), model, gpus).with_duration(round3(dur));
        job.adaptivity = Adaptivity::StrongScaling;
        jobs.push(job);
    }
    Ok(jobs)
}

/// Rounds to milliseconds so the CSV text is short and exact.
fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::fill::AFS_MODELS;
    use schedlab_core::params::Params;

    #[test]
    fn statistics_follow_the_parameters() {
        let p = Params::resolve("afs-synthetic", PARAMS, &[]).unwrap();
        let jobs = run(&p, 4000, 3).unwrap();
        let ones = jobs.iter().filter(|j| j.gpus == 1).count() as f64 / jobs.len() as f64;
        assert!((ones - 0.6).abs() < 0.03, "{ones}");
        let mut d: Vec<f64> = jobs.iter().map(|j| j.duration.unwrap()).collect();
        schedlab_core::sorting::sort_by(&mut d, f64::total_cmp);
        let median = d[d.len() / 2];
        assert!((median / 1200.0 - 1.0).abs() < 0.1, "{median}");
        // Every model can use the requested GPUs.
        for j in &jobs {
            let k = AFS_MODELS.iter().find(|(m, _)| *m == j.model).unwrap().1;
            assert!(j.gpus <= k);
        }
        // Offered load within 25% of the target over a long trace (heavy tail).
        let span = jobs.last().unwrap().arrival;
        let work: f64 = jobs
            .iter()
            .map(|j| j.duration.unwrap() * j.gpus as f64)
            .sum();
        let load = work / (64.0 * span);
        assert!((load - 0.9).abs() < 0.25, "{load}");
    }
}
