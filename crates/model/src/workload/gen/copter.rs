//! COpter's workloads (issue 16, item 1) at any size: 24-hour days of the Alibaba PAI
//! trace's arrival pattern and job mix as the authors sampled them, with the zoo's
//! models (`perf/copter.rs`), so the page and the tests need no shared data. Fitted
//! from the six workload files in `../shared/data/copter/workloads` (2k x3, 10k x2, 40k):
//! the share of arrivals in each hour of the day and of each (category, application),
//! each file weighing the same. The files are different 24-hour windows of the trace
//! (the busiest hour moves from 05:00 to 23:00 between them); the generator draws from
//! their mean profile. Jobs arrive uniformly within their hour, on a uniformly drawn day.

use super::Generator;
use crate::perf::copter::row_model;
use crate::workload::JobSpec;
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::rng::Sampler;

/// Percent of a day's arrivals in each hour (mean of the six files).
const HOURLY_PCT: [f64; 24] = [
    4.08, 3.90, 2.89, 4.52, 3.46, 8.87, 4.42, 3.10, 2.17, 2.11, 2.12, 4.50, 6.44, 3.75, 3.28, 4.06,
    4.81, 4.71, 3.75, 4.23, 4.15, 4.44, 4.34, 5.90,
];

/// Percent of jobs per (category, application) (mean of the six files).
const MIX_PCT: &[(&str, &str, f64)] = &[
    ("SiaJob", "cifar10", 28.80),
    ("SiaJob", "bert", 25.89),
    ("SiaJob", "deepspeech2", 10.00),
    ("BatchInferenceJob", "llama_8b_wikipedia", 7.18),
    ("SiaJob", "ncf", 7.01),
    ("BatchInferenceJob", "imagenet_resnet50", 6.26),
    ("SyntheticSinglePhaseJob", "synthetic_mixed_short", 3.53),
    ("SyntheticSinglePhaseJob", "synthetic_linear_short", 3.29),
    ("SyntheticSinglePhaseJob", "synthetic_sublinear_short", 3.09),
    ("SiaJob", "yolov3", 2.67),
    ("SiaJob", "imagenet", 0.98),
    ("SyntheticSinglePhaseJob", "synthetic_mixed_long", 0.97),
    ("BatchInferenceJob", "llama_8b_commoncrawl", 0.26),
    ("SyntheticSinglePhaseJob", "synthetic_linear_long", 0.04),
    ("SyntheticSinglePhaseJob", "synthetic_sublinear_long", 0.03),
];

const PARAMS: &[ParamSpec] = &[ParamSpec::int(
    "days",
    "1",
    1,
    365,
    "Days the jobs arrive over (each day with the PAI trace's hourly pattern)",
)];

pub const GENERATOR: Generator = Generator {
    name: "copter-pai",
    description: schedlab_core::prose::doc("COpter workloads: 24-hour days of the Alibaba PAI arrival pattern and job mix (75% Sia jobs, 14% batch inference, 11% synthetic), fitted from the authors' workload files; run on copter-256xN (2k jobs: x2, 40k: x40)"),
    default_jobs: 2000,
    params: PARAMS,
    jobs_from: None,
    run,
    pools: None,
};

fn run(p: &Params, n: usize, seed: u64) -> Result<Vec<JobSpec>> {
    let mut rng = Sampler::new(seed);
    let days = p.i64("days") as u64;
    let mut times: Vec<f64> = (0..n)
        .map(|_| {
            let day = rng.below(days) as f64;
            let hour = rng.weighted(&HOURLY_PCT) as f64;
            (day * 24.0 + hour + rng.uniform()) * 3600.0
        })
        .collect();
    schedlab_core::sorting::sort_by(&mut times, f64::total_cmp);
    // The mix is independent of the time: drawn in arrival order.
    let mix: Vec<f64> = MIX_PCT.iter().map(|m| m.2).collect();
    let jobs = times
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            let (category, application, _) = MIX_PCT[rng.weighted(&mix)];
            let (model, gpus) = row_model(category, application).unwrap_or(("linear", 1));
            JobSpec::new(format!("{application}-{i}"), t, model, gpus)
        })
        .collect();
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mix_entry_is_a_known_row_and_the_shares_sum_to_one_hundred() {
        for (c, a, _) in MIX_PCT {
            assert!(row_model(c, a).is_ok(), "{c} {a}");
        }
        let total: f64 = MIX_PCT.iter().map(|m| m.2).sum();
        assert!((total - 100.0).abs() < 0.05, "{total}");
        assert!((HOURLY_PCT.iter().sum::<f64>() - 100.0).abs() < 0.05);
    }

    #[test]
    fn a_draw_follows_the_mix_and_the_hours() {
        let p = Params::resolve("copter-pai", PARAMS, &[("days".into(), "2".into())]).unwrap();
        let jobs = run(&p, 20_000, 3).unwrap();
        assert!(jobs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
        assert!(jobs.iter().all(|j| j.arrival < 48.0 * 3600.0));
        let share =
            |f: &dyn Fn(&JobSpec) -> bool| jobs.iter().filter(|j| f(j)).count() as f64 / 200.0;
        let sia = share(&|j| !j.model.starts_with("copter/"));
        assert!((sia - 75.35).abs() < 1.5, "Sia jobs {sia}%");
        let five = share(&|j| ((j.arrival / 3600.0) as u64) % 24 == 5);
        assert!((five - 8.87).abs() < 0.8, "05:00 {five}%");
        let day2 = share(&|j| j.arrival >= 24.0 * 3600.0);
        assert!((day2 - 50.0).abs() < 2.0, "{day2}");
        assert_eq!(jobs[0].name.rsplit('-').next(), Some("0"));
    }
}
