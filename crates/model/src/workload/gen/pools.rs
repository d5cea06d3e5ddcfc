//! Pooled workloads of the anticipatory scheduler (spec seed000 §4.4-4.5).
//!
//! `anticipatory-synthetic` (Appendix A.1 / C): Q queues (pools) of G GPUs
//! over `days` days. Durations are bimodal, U[sqrt 10, 100] minutes w.p.
//! 0.8 and U[100, 1000] w.p. 0.2; widths 1/2/4/8 w.p. .7/.1/.15/.05.
//! Arrivals come in bursts: a burst's total width B ~ U{1..G} is filled by
//! drawing widths until they sum to B (a width above the remainder is
//! redrawn among the widths that fit, renormalised); all of a burst's jobs
//! arrive at once; burst gaps are exponential with the mean that gives the
//! queue's target load rho ~ U[0.6, 0.95]: E[B] E[d] / (G rho). The
//! `variant` changes exactly one aspect as Appendix C's variants do.
//!
//! `anticipatory-fig1`: the paper's Fig 1 example in the spec's
//! reconstruction (§4.5; time unit = `unit_s` seconds): MaxMin lends the
//! orange pool's GPUs to a long green job and delays orange's later jobs;
//! anticipation lends them to short jobs instead.
//!
//! Jobs are rigid, non-preemptive, run-to-completion (model `linear`, the
//! run time fixed by `duration`); each pool's quota is written into the
//! trace (`# pools:`), so the trace carries its pools.

use super::Generator;
use crate::cluster::Pools;
use crate::workload::{Adaptivity, JobSpec};
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::rng::{keyed_uniform, Sampler};

/// The Appendix C variants, each differing from `base` in one aspect.
pub const VARIANTS: &[&str] = &[
    "base",
    "higher-load",
    "lower-load",
    "more-queues",
    "less-queues",
    "more-skewed",
    "less-skewed",
    "more-wide",
    "fewer-wide",
];

const SYNTHETIC_PARAMS: &[ParamSpec] = &[
    ParamSpec::choice("variant", "base", VARIANTS, "Appendix C variant: higher-load (x1.05), lower-load (x0.75), more-queues (8), less-queues (2), more/less-skewed durations, more-wide / fewer-wide jobs"),
    ParamSpec::int("queues", "0", 0, 256, "Pools; 0 takes the variant's (4; 8 for more-queues, 2 for less-queues)"),
    ParamSpec::int("queue_gpus", "8", 1, 4096, "GPUs per pool (its quota); a burst's total width is U{1..queue_gpus}"),
    ParamSpec::float("days", "3", 0.01, 365.0, "Length of the arrival period in days"),
    ParamSpec::float("load_min", "0.6", 0.01, 5.0, "Smallest per-pool target load (before the variant's factor)"),
    ParamSpec::float("load_max", "0.95", 0.01, 5.0, "Largest per-pool target load"),
    ParamSpec::float("quantum_s", "1", 1.0, 86_400.0, "Arrivals and run times are multiples of this (e.g. the oracle MILP's slot, so that it is exact)"),
    ParamSpec::float("preemptible_frac", "0", 0.0, 1.0, "Share of jobs that may be preempted (for A-SIA's partial pre-emption, §2.9); 0 = none, as in the paper's runs"),
];

pub const SYNTHETIC: Generator = Generator {
    name: "anticipatory-synthetic",
    description: schedlab_core::prose::doc("Anticipatory pool sharing's synthetic workload (spec seed000 §4.4): bursty arrivals per pool, bimodal durations, widths 1/2/4/8, per-pool loads U[0.6, 0.95]; nine Appendix C variants; pools written into the trace"),
    default_jobs: 1_000,
    params: SYNTHETIC_PARAMS,
    jobs_from: Some(|_| super::UNCAPPED_JOBS),
    run: synthetic,
    pools: Some(synthetic_pools),
};

const FIG1_PARAMS: &[ParamSpec] = &[ParamSpec::float(
    "unit_s",
    "600",
    1.0,
    86_400.0,
    "Seconds per time unit of the example",
)];

pub const FIG1: Generator = Generator {
    name: "anticipatory-fig1",
    description: schedlab_core::prose::doc("The anticipatory paper's Fig 1 example (spec seed000 §4.5): two pools of 4 GPUs; MaxMin lends the orange pool's GPUs to a long green job and slows orange's later jobs"),
    default_jobs: 8,
    params: FIG1_PARAMS,
    jobs_from: None,
    run: fig1,
    pools: Some(|_| Pools::parse_list("green=4,orange=4").expect("fixed list")),
};

/// The queue count of a parameter set (the variant's unless given).
fn queue_count(p: &Params) -> usize {
    match (p.i64("queues"), p.text("variant")) {
        (q, _) if q > 0 => q as usize,
        (_, "more-queues") => 8,
        (_, "less-queues") => 2,
        _ => 4,
    }
}

fn synthetic_pools(p: &Params) -> Pools {
    let gpus = p.i64("queue_gpus");
    let list: Vec<String> = (0..queue_count(p))
        .map(|q| format!("q{q}={gpus}"))
        .collect();
    Pools::parse_list(&list.join(",")).expect("generated pool list")
}

/// Job widths and their probabilities for a variant.
fn widths(variant: &str) -> (&'static [u32], &'static [f64]) {
    const W: &[u32] = &[1, 2, 4, 8];
    match variant {
        "more-wide" => (W, &[0.25, 0.25, 0.25, 0.25]),
        "fewer-wide" => (W, &[0.9, 0.033, 0.05, 0.017]),
        _ => (W, &[0.7, 0.1, 0.15, 0.05]),
    }
}

/// Duration modes (probability, lo, hi minutes) for a variant.
fn duration_modes(variant: &str) -> &'static [(f64, f64, f64)] {
    const SQRT10: f64 = 3.162_277_660_168_379_5;
    match variant {
        "more-skewed" => &[(0.9, SQRT10, 100.0), (0.1, 100.0, 2000.0)],
        "less-skewed" => &[(1.0, SQRT10, 300.0)],
        _ => &[(0.8, SQRT10, 100.0), (0.2, 100.0, 1000.0)],
    }
}

fn load_factor(variant: &str) -> f64 {
    match variant {
        "higher-load" => 1.05,
        "lower-load" => 0.75,
        _ => 1.0,
    }
}

/// Draws one burst's job widths: they sum to `total`.
fn burst_widths(rng: &mut Sampler, total: u32, ws: &[u32], probs: &[f64]) -> Vec<u32> {
    let mut left = total;
    let mut out = Vec::new();
    while left > 0 {
        let fits: Vec<f64> = ws
            .iter()
            .zip(probs)
            .map(|(&w, &p)| if w <= left { p } else { 0.0 })
            .collect();
        let w = ws[rng.weighted(&fits)];
        out.push(w);
        left -= w;
    }
    out
}

fn synthetic(p: &Params, cap: usize, seed: u64) -> Result<Vec<JobSpec>> {
    let variant = p.text("variant");
    let (lo, hi) = (p.f64("load_min"), p.f64("load_max"));
    if lo > hi {
        return Err(schedlab_core::Error::config(format!(
            "anticipatory-synthetic: load_min {lo} is above load_max {hi}"
        )));
    }
    let gpus = p.i64("queue_gpus") as u32;
    let quantum = p.f64("quantum_s");
    let snap = |t: f64| (t / quantum).round() * quantum;
    let horizon = p.f64("days") * 86_400.0;
    let (ws, probs) = widths(variant);
    let modes = duration_modes(variant);
    let mean_minutes: f64 = modes.iter().map(|(w, a, b)| w * (a + b) / 2.0).sum();
    let mean_burst = (1.0 + gpus as f64) / 2.0;
    // A keyed draw, so that the flag leaves every other draw unchanged.
    let frac = p.f64("preemptible_frac");
    let preemptible = |q: usize, b: u64, k: usize| {
        frac > 0.0 && keyed_uniform(seed, &[q as u64, b, k as u64, 0x7072]) < frac
    };
    let mut jobs = Vec::new();
    for q in 0..queue_count(p) {
        let mut rng = Sampler::derive(seed, &format!("anticipatory-synthetic/q{q}"));
        let rho = rng.range(lo, hi) * load_factor(variant);
        let mean_gap = mean_burst * mean_minutes * 60.0 / (gpus as f64 * rho);
        let mut t = rng.exponential(mean_gap);
        let mut burst = 0;
        while t < horizon {
            let total = 1 + rng.below(gpus as u64) as u32;
            for (k, w) in burst_widths(&mut rng, total, ws, probs)
                .into_iter()
                .enumerate()
            {
                let mode = modes[rng.weighted(&modes.iter().map(|m| m.0).collect::<Vec<_>>())];
                let minutes = rng.range(mode.1, mode.2);
                let mut job = pooled_job(
                    format!("q{q}-b{burst}-j{k}"),
                    snap(t),
                    &format!("q{q}"),
                    w,
                    snap(minutes * 60.0).max(quantum),
                );
                job.preemptible = preemptible(q, burst, k);
                jobs.push(job);
            }
            burst += 1;
            t += rng.exponential(mean_gap);
        }
    }
    Ok(first_arrivals(jobs, cap))
}

/// The pools' jobs merged in arrival order (stable: ties keep pool order),
/// the first `cap` of them.
pub(super) fn first_arrivals(mut jobs: Vec<JobSpec>, cap: usize) -> Vec<JobSpec> {
    schedlab_core::sorting::sort_by(&mut jobs, |a, b| a.arrival.total_cmp(&b.arrival));
    jobs.truncate(cap);
    jobs
}

/// A rigid, non-preemptive job of `width` GPUs running `duration_s` seconds.
pub(super) fn pooled_job(
    name: String,
    arrival: f64,
    pool: &str,
    width: u32,
    duration_s: f64,
) -> JobSpec {
    let mut j = JobSpec::new(name, arrival, "linear", width);
    j.tenant = pool.to_string();
    j.duration = Some(duration_s.max(1.0));
    j.adaptivity = Adaptivity::Rigid;
    j.preemptible = false;
    j
}

fn fig1(p: &Params, _n: usize, _seed: u64) -> Result<Vec<JobSpec>> {
    let u = p.f64("unit_s");
    // (name, pool, arrival, GPUs, duration) in time units; J0 and J1 are
    // the jobs already running at the start of the figure.
    const JOBS: &[(&str, &str, f64, u32, f64)] = &[
        ("J0", "green", 0.0, 4, 10.0),
        ("J1", "orange", 0.0, 2, 5.0),
        ("J2", "green", 1.0, 2, 10.0),
        ("J3", "green", 1.0, 1, 2.0),
        ("J4", "green", 1.0, 1, 2.0),
        ("J5", "green", 1.0, 2, 2.0),
        ("J6", "orange", 4.0, 2, 3.0),
        ("J7", "orange", 5.0, 2, 3.0),
    ];
    Ok(JOBS
        .iter()
        .map(|&(name, pool, at, w, d)| pooled_job(name.into(), at * u, pool, w, d * u))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::gen::generate;

    fn set(k: &str, v: &str) -> (String, String) {
        (k.to_string(), v.to_string())
    }

    #[test]
    fn bursts_fill_their_width_and_loads_match_the_target() {
        let mut rng = Sampler::new(3);
        let (ws, ps) = widths("base");
        for total in 1..=8 {
            let b = burst_widths(&mut rng, total, ws, ps);
            assert_eq!(b.iter().sum::<u32>(), total);
        }
        // 4 pools x 8 GPUs over 60 days: the offered load per pool is
        // within its U[0.6, 0.95] range on average (about 0.775).
        let t = generate("anticipatory-synthetic", None, 7, &[set("days", "60")]).unwrap();
        assert_eq!(t.pools.len(), 4);
        let horizon = 60.0 * 86_400.0;
        let gpu_s: f64 = t
            .jobs
            .iter()
            .map(|j| j.gpus as f64 * j.duration.unwrap())
            .sum();
        let load = gpu_s / (32.0 * horizon);
        assert!((0.6..0.95).contains(&load), "offered load {load}");
        assert!(t.jobs.iter().all(|j| !j.preemptible && j.gpus <= 8));
        let eight = generate(
            "anticipatory-synthetic",
            None,
            7,
            &[set("variant", "more-queues")],
        )
        .unwrap();
        assert_eq!(eight.pools.len(), 8);
    }

    #[test]
    fn the_fig1_example_has_two_pools() {
        let t = generate("anticipatory-fig1", None, 1, &[]).unwrap();
        assert_eq!(t.jobs.len(), 8);
        assert_eq!(t.pools.to_list(), "green=4,orange=4");
        assert_eq!(t.jobs[7].name, "J7");
    }
}
