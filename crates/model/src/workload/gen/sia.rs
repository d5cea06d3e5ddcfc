//! Pollux/Sia-style workloads (Sia thesis §3.4.1, spec seed004 §4.1-4.2 and
//! §3.7; Pollux OSDI'21 §5.1): jobs sampled from a production trace's busy
//! window, each mapped from its GPU-time class to a model, with a TunedJobs
//! (GPU count, batch size) configuration, written in the Pollux/Sia workload
//! CSV semantics (requested GPUs and batch = the TunedJobs config; adaptive
//! jobs; they run until their model's progress target).
//!
//! What each preset reproduces:
//! - `sia-philly`: 160 jobs over 8 h (20 jobs/h, uniform in the window);
//!   class mix of the Sia Philly files: < 1 h 78.0%, 1-10 h 15.4%
//!   (deepspeech2 and BERT half each), 10-100 h 4.6%, >= 100 h 2.0%.
//! - `sia-helios`: the same window, Helios mix (82.1 / 10.6 / 4.4 / 2.9%):
//!   Helios jobs are bigger and longer, so more of the GPU-time is in the
//!   large classes per job hour.
//! - `sia-newtrace`: 960 jobs over 48 h (20 jobs/h on average), diurnal
//!   (intensity 1 + 0.7 sin) and bursty (30% of jobs in hyperparameter
//!   sweeps of 5-25 same-model jobs within 15 min), so hourly counts run from
//!   1-3 to 55-65 (the files' hourly maxima are 44-57, minima 1-5; the
//!   defaults were tuned to that);
//!   mix 52.6 / 43.0 / 3.6 / 0.8%.
//! - `pollux-philly`: the Pollux workloads: the Philly mix with half of the
//!   < 1 h class as NCF (the public files have cifar10 38.7%, ncf 39.3%) and
//!   the TunedJobs configurations re-tuned for 64 T4 GPUs.
//! - `sia-rate`: the Helios mix at a given rate for 8 h (Fig 3.6 sweep:
//!   10-50 jobs/h, 80-400 jobs).
//! - `sia-spike`: Spike-240 (§3.5.6; spec §7.12 reconstruction): 240 jobs
//!   over 6 h at 40 jobs/h, 40% of them in the half hour from 2.5 h,
//!   newTrace mix.
//!
//! The GPU-time of each job is drawn log-uniformly inside its class (60 s
//! to 1000 GPU-h overall) and mapped by the same rule the `sia` fill uses
//! for imported traces (`fill::sia_model_for`); it only selects the model,
//! since the jobs run to their model's progress target.

use super::arrivals;
use super::Generator;
use crate::workload::fill::{sia_model_for, tuned_config, TunedSet};
use crate::workload::{Adaptivity, JobSpec};
use schedlab_core::error::{Error, Result};
use schedlab_core::num;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::rng::Sampler;

/// Share of jobs per GPU-time class (< 1 h, 1-10 h, 10-100 h, >= 100 h)
/// and the share of the < 1 h class that is NCF instead of cifar10.
struct Mix {
    classes: [f64; 4],
    ncf: f64,
}

fn mix(name: &str) -> Mix {
    match name {
        // Spec seed004 §4.2 model mix of the [A] files, classes summed.
        "helios" => Mix {
            classes: [0.821, 0.106, 0.044, 0.029],
            ncf: 0.0,
        },
        "newtrace" => Mix {
            classes: [0.526, 0.430, 0.036, 0.008],
            ncf: 0.0,
        },
        // Public Pollux workloads: cifar10 38.7% + ncf 39.3% = 78.0%.
        "pollux" => Mix {
            classes: [0.780, 0.154, 0.046, 0.020],
            ncf: 0.504,
        },
        _ => Mix {
            classes: [0.780, 0.154, 0.046, 0.020],
            ncf: 0.0,
        },
    }
}

/// GPU-hour bounds of the classes (the first starts at one GPU-minute).
const CLASS_BOUNDS: [(f64, f64); 4] = [
    (1.0 / 60.0, 1.0),
    (1.0, 10.0),
    (10.0, 100.0),
    (100.0, 1000.0),
];

/// Parameters every preset shares; presets differ in defaults only.
const fn params(
    mix: &'static str,
    tj: &'static str,
    arrivals: &'static str,
    rate: &'static str,
) -> [ParamSpec; 13] {
    [
        ParamSpec::choice(
            "mix",
            mix,
            &["philly", "helios", "newtrace", "pollux"],
            "GPU-time class mix of the source trace (Sia 4.2; pollux adds NCF)",
        ),
        ParamSpec::choice(
            "tj",
            tj,
            &["hetero", "homog"],
            "TunedJobs table: hetero (4-16 GPUs, Sia heterogeneous) or homog (64 T4 GPUs, Pollux)",
        ),
        ParamSpec::choice(
            "arrivals",
            arrivals,
            &["window", "diurnal", "spike"],
            "window: uniform in the sampled window; diurnal: newTrace-like day cycle with sweeps; spike: Spike-240",
        ),
        ParamSpec::float(
            "rate",
            rate,
            0.1,
            100_000.0,
            "Average arrivals per hour; the trace spans jobs / rate hours",
        ),
        ParamSpec::float(
            "amplitude",
            "0.7",
            0.0,
            1.0,
            "diurnal: relative amplitude of the day cycle",
        ),
        ParamSpec::float(
            "sweep_frac",
            "0.3",
            0.0,
            1.0,
            "diurnal: share of jobs submitted in hyperparameter sweeps",
        ),
        ParamSpec::int(
            "sweep_max",
            "25",
            5,
            10_000,
            "diurnal: largest sweep (sizes uniform from 5)",
        ),
        ParamSpec::float(
            "spike_frac",
            "0.4",
            0.0,
            1.0,
            "spike: share of jobs inside the spike",
        ),
        ParamSpec::float(
            "spike_start_h",
            "2.5",
            0.0,
            10_000.0,
            "spike: start of the spike, hours",
        ),
        ParamSpec::float(
            "spike_len_h",
            "0.5",
            0.001,
            10_000.0,
            "spike: length of the spike, hours",
        ),
        ParamSpec::float(
            "rigid_pct",
            "0",
            0.0,
            100.0,
            "Percent of jobs made rigid (Sia limited-adaptivity experiments)",
        ),
        ParamSpec::float(
            "strong_pct",
            "0",
            0.0,
            100.0,
            "Percent of jobs made strong-scaling (fixed batch, GPU count may change)",
        ),
        ParamSpec::int(
            "replicate",
            "1",
            1,
            1024,
            "Each sampled job is submitted this many times at once (Fig 3.10 scale sweep); jobs must be a multiple",
        ),
    ]
}

const P_PHILLY: [ParamSpec; 13] = params("philly", "hetero", "window", "20");
const P_HELIOS: [ParamSpec; 13] = params("helios", "hetero", "window", "20");
const P_NEWTRACE: [ParamSpec; 13] = params("newtrace", "hetero", "diurnal", "20");
const P_POLLUX: [ParamSpec; 13] = params("pollux", "homog", "window", "20");
const P_RATE: [ParamSpec; 13] = params("helios", "hetero", "window", "10");
const P_SPIKE: [ParamSpec; 13] = params("newtrace", "hetero", "spike", "40");

pub const PHILLY: Generator = Generator {
    name: "sia-philly",
    description: schedlab_core::prose::doc("Sia/Pollux Philly workload: 160 jobs in 8 h, GPU-time classes -> cifar10/deepspeech2/bert/yolov3/imagenet, TunedJobs configs (Sia 4.1-4.2)"),
    default_jobs: 160,
    params: &P_PHILLY,
    jobs_from: None,
    run,
    pools: None,
};

pub const HELIOS: Generator = Generator {
    name: "sia-helios",
    description: schedlab_core::prose::doc("Sia Helios workload: 160 jobs in 8 h with the Helios model mix (bigger, longer jobs; Sia 4.2)"),
    default_jobs: 160,
    params: &P_HELIOS,
    jobs_from: None,
    run,
    pools: None,
};

pub const NEWTRACE: Generator = Generator {
    name: "sia-newtrace",
    description: schedlab_core::prose::doc("Sia newTrace-like workload: 960 jobs in 48 h, diurnal and bursty (hyperparameter sweeps), 5-100 jobs/h (Sia 4.2)"),
    default_jobs: 960,
    params: &P_NEWTRACE,
    jobs_from: None,
    run,
    pools: None,
};

pub const POLLUX: Generator = Generator {
    name: "pollux-philly",
    description: schedlab_core::prose::doc("Pollux workload: 160 jobs in 8 h, Philly mix with NCF, TunedJobs for 64 T4 GPUs (Pollux 5.1; public workload files)"),
    default_jobs: 160,
    params: &P_POLLUX,
    jobs_from: None,
    run,
    pools: None,
};

pub const RATE: Generator = Generator {
    name: "sia-rate",
    description: schedlab_core::prose::doc("Sia arrival-rate sweep: Helios mix at `rate` jobs/h for 8 h (Fig 3.6: 10-50 jobs/h); default jobs = 8 x rate"),
    default_jobs: 80,
    params: &P_RATE,
    jobs_from: Some(|p| (p.f64("rate") * 8.0).round().max(1.0) as usize),
    run,
    pools: None,
};

pub const SPIKE: Generator = Generator {
    name: "sia-spike",
    description: schedlab_core::prose::doc("Sia Spike-240: 240 jobs in 6 h at 40 jobs/h, 40% in the half hour from 2.5 h, newTrace mix (Sia 3.5.6)"),
    default_jobs: 240,
    params: &P_SPIKE,
    jobs_from: None,
    run,
    pools: None,
};

/// One sampled job before naming: arrival, model, GPUs, batch.
struct Draft {
    arrival: f64,
    model: &'static str,
    gpus: u32,
    batch: u32,
}

/// A model drawn through its GPU-time class.
fn draw_model(m: &Mix, rng: &mut Sampler) -> &'static str {
    let class = rng.weighted(&m.classes);
    let (lo, hi) = CLASS_BOUNDS[class];
    // Log-uniform inside the class; clamp keeps rounding inside it.
    let hours = (lo * num::exp(rng.uniform() * num::ln(hi / lo))).clamp(lo, hi * (1.0 - 1e-12));
    let model = sia_model_for(hours, rng.uniform()).unwrap_or("imagenet");
    if model == "cifar10" && rng.chance(m.ncf) {
        "ncf"
    } else {
        model
    }
}

fn run(p: &Params, n: usize, seed: u64) -> Result<Vec<JobSpec>> {
    let k = p.i64("replicate").max(1) as usize;
    if !n.is_multiple_of(k) {
        return Err(Error::config(format!(
            "--jobs {n} is not a multiple of replicate={k}"
        )));
    }
    let base = n / k;
    let m = mix(p.text("mix"));
    let tj = if p.text("tj") == "homog" {
        TunedSet::Homog
    } else {
        TunedSet::Hetero
    };
    let span = base as f64 / p.f64("rate") * 3600.0;
    let mut rng_arr = Sampler::derive(seed, "arrivals");
    let mut rng_job = Sampler::derive(seed, "jobs");
    let one = |rng: &mut Sampler| {
        let model = draw_model(&m, rng);
        let (gpus, batch) = tuned_config(tj, model, rng);
        (model, gpus, batch)
    };
    let mut drafts: Vec<Draft> = Vec::with_capacity(base);
    match p.text("arrivals") {
        "diurnal" => {
            let amp = p.f64("amplitude");
            let phase = rng_arr.range(0.0, 2.0 * std::f64::consts::PI);
            let swept = (p.f64("sweep_frac") * base as f64).round() as usize;
            let max = p.i64("sweep_max").max(5) as u64;
            // Hyperparameter sweeps: one model and config, jobs within 15 min.
            while drafts.len() < swept {
                let size = (5 + rng_arr.below(max - 4) as usize).min(swept - drafts.len());
                let start = arrivals::diurnal_one(span, amp, phase, &mut rng_arr);
                let (model, gpus, batch) = one(&mut rng_job);
                for _ in 0..size {
                    let t = (start + rng_arr.range(0.0, 900.0)).min(span);
                    drafts.push(Draft {
                        arrival: t,
                        model,
                        gpus,
                        batch,
                    });
                }
            }
            while drafts.len() < base {
                let t = arrivals::diurnal_one(span, amp, phase, &mut rng_arr);
                let (model, gpus, batch) = one(&mut rng_job);
                drafts.push(Draft {
                    arrival: t,
                    model,
                    gpus,
                    batch,
                });
            }
        }
        "spike" => {
            let start = p.f64("spike_start_h") * 3600.0;
            let len = p.f64("spike_len_h") * 3600.0;
            if start + len > span {
                return Err(Error::config(format!(
                    "the spike ({}-{} h) does not fit in the trace's {:.2} h (jobs / rate)",
                    start / 3600.0,
                    (start + len) / 3600.0,
                    span / 3600.0
                )));
            }
            let in_spike = (p.f64("spike_frac") * base as f64).round() as usize;
            for i in 0..base {
                let t = if i < in_spike {
                    rng_arr.range(start, start + len)
                } else {
                    rng_arr.range(0.0, span)
                };
                let (model, gpus, batch) = one(&mut rng_job);
                drafts.push(Draft {
                    arrival: t,
                    model,
                    gpus,
                    batch,
                });
            }
        }
        _ => {
            for t in arrivals::window(base, span, &mut rng_arr) {
                let (model, gpus, batch) = one(&mut rng_job);
                drafts.push(Draft {
                    arrival: t,
                    model,
                    gpus,
                    batch,
                });
            }
        }
    }
    schedlab_core::sorting::sort_by(&mut drafts, |a, b| a.arrival.total_cmp(&b.arrival));

    let rigid = p.f64("rigid_pct") / 100.0;
    let strong = p.f64("strong_pct") / 100.0;
    if rigid + strong > 1.0 + 1e-9 {
        return Err(Error::config("rigid_pct + strong_pct must not exceed 100"));
    }
    let mut rng_cat = Sampler::derive(seed, "category");
    let mut jobs = Vec::with_capacity(n);
    for (i, d) in drafts.iter().enumerate() {
        // Categories i.i.d. at the given percentages (Sia categorize_jobs.py).
        let u = rng_cat.uniform();
        let adaptivity = if u < rigid {
            Adaptivity::Rigid
        } else if u < rigid + strong {
            Adaptivity::StrongScaling
        } else {
            Adaptivity::Adaptive
        };
        let arrival = (d.arrival * 10.0).round() / 10.0;
        for r in 0..k {
            let name = if k == 1 {
                format!("{}-{i}", d.model)
            } else {
                format!("{}-{i}-r{r}", d.model)
            };
            let mut job = JobSpec::new(name, arrival, d.model, d.gpus);
            job.batch_size = d.batch;
            job.adaptivity = adaptivity;
            jobs.push(job);
        }
    }
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::fill::tuned_candidates;
    use std::collections::BTreeMap;

    fn gen(params: &[ParamSpec], set: &[(&str, &str)], n: usize, seed: u64) -> Vec<JobSpec> {
        let o: Vec<(String, String)> = set
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        run(&Params::resolve("t", params, &o).unwrap(), n, seed).unwrap()
    }

    /// Model shares over many seeds of the default 160-job trace.
    fn shares(params: &[ParamSpec], n: usize) -> BTreeMap<String, f64> {
        let mut c: BTreeMap<String, f64> = BTreeMap::new();
        let mut total = 0.0;
        for seed in 0..60 {
            for j in gen(params, &[], n, seed) {
                *c.entry(j.model).or_default() += 1.0;
                total += 1.0;
            }
        }
        c.values_mut().for_each(|v| *v /= total);
        c
    }

    fn share(s: &BTreeMap<String, f64>, m: &str) -> f64 {
        s.get(m).copied().unwrap_or(0.0)
    }

    #[test]
    fn philly_window_mix_and_configs() {
        let jobs = gen(&P_PHILLY, &[], 160, 1);
        assert_eq!(jobs.len(), 160);
        let last = jobs.last().unwrap().arrival;
        assert!(last < 8.0 * 3600.0 && last > 7.0 * 3600.0, "{last}");
        // Every job has a TunedJobs config from the hetero table (4..16 GPUs).
        for j in &jobs {
            assert!(tuned_candidates(TunedSet::Hetero, &j.model).contains(&(j.gpus, j.batch_size)));
            assert!((4..=16).contains(&j.gpus));
            assert_eq!(j.adaptivity, Adaptivity::Adaptive);
        }
        // Spec seed004 §4.2 Philly mix: 78.0 / 8.7 + 6.7 / 4.6 / 2.0 %.
        let s = shares(&P_PHILLY, 160);
        assert!((share(&s, "cifar10") - 0.780).abs() < 0.012, "{s:?}");
        let mid = share(&s, "deepspeech2") + share(&s, "bert");
        assert!((mid - 0.154).abs() < 0.01, "{s:?}");
        assert!((share(&s, "deepspeech2") / mid - 0.5).abs() < 0.05);
        assert!((share(&s, "yolov3") - 0.046).abs() < 0.006, "{s:?}");
        assert!((share(&s, "imagenet") - 0.020).abs() < 0.004, "{s:?}");
        assert_eq!(share(&s, "ncf"), 0.0);
    }

    #[test]
    fn helios_and_pollux_mixes() {
        let s = shares(&P_HELIOS, 160);
        assert!((share(&s, "cifar10") - 0.821).abs() < 0.012, "{s:?}");
        assert!((share(&s, "imagenet") - 0.029).abs() < 0.005, "{s:?}");
        let s = shares(&P_POLLUX, 160);
        // Public Pollux files: cifar10 38.7%, ncf 39.3%.
        assert!((share(&s, "ncf") - 0.393).abs() < 0.015, "{s:?}");
        assert!((share(&s, "cifar10") - 0.387).abs() < 0.015, "{s:?}");
        for j in gen(&P_POLLUX, &[], 160, 2) {
            assert!(tuned_candidates(TunedSet::Homog, &j.model).contains(&(j.gpus, j.batch_size)));
        }
    }

    #[test]
    fn newtrace_is_diurnal_and_bursty() {
        let s = shares(&P_NEWTRACE, 960);
        assert!((share(&s, "cifar10") - 0.526).abs() < 0.02, "{s:?}");
        assert!((share(&s, "deepspeech2") + share(&s, "bert") - 0.430).abs() < 0.02);
        for seed in 0..5 {
            let jobs = gen(&P_NEWTRACE, &[], 960, seed);
            assert_eq!(jobs.len(), 960);
            let mut hours = [0usize; 48];
            for j in &jobs {
                assert!(j.arrival <= 48.0 * 3600.0);
                hours[((j.arrival / 3600.0) as usize).min(47)] += 1;
            }
            let max = *hours.iter().max().unwrap();
            let min = *hours.iter().min().unwrap();
            // Sia 4.2: 5-100 jobs/h; the [A] files' hourly maxima are 44-57, minima 1-5.
            assert!(
                (30..=100).contains(&max),
                "seed {seed}: max {max} {hours:?}"
            );
            assert!(min <= 6, "seed {seed}: min {min} {hours:?}");
        }
    }

    #[test]
    fn spike_and_rate_sweep() {
        let jobs = gen(&P_SPIKE, &[], 240, 3);
        let inside = jobs
            .iter()
            .filter(|j| (9000.0..10800.0).contains(&j.arrival))
            .count() as f64;
        // 40% by construction plus the background's 1/12 of the other 60%.
        assert!(
            (inside / 240.0 - (0.4 + 0.6 / 12.0)).abs() < 0.06,
            "{inside}"
        );
        assert!(jobs.iter().all(|j| j.arrival <= 6.0 * 3600.0));
        let p = Params::resolve("t", &P_RATE, &[("rate".into(), "40".into())]).unwrap();
        assert_eq!((RATE.jobs_from.unwrap())(&p), 320);
        let jobs = run(&p, 320, 1).unwrap();
        assert!(jobs.last().unwrap().arrival < 8.0 * 3600.0);
    }

    #[test]
    fn categories_replication_and_seeds() {
        let jobs = gen(
            &P_PHILLY,
            &[("rigid_pct", "30"), ("strong_pct", "20")],
            1600,
            4,
        );
        let rigid = jobs
            .iter()
            .filter(|j| j.adaptivity == Adaptivity::Rigid)
            .count() as f64;
        let strong = jobs
            .iter()
            .filter(|j| j.adaptivity == Adaptivity::StrongScaling)
            .count() as f64;
        assert!((rigid / 1600.0 - 0.3).abs() < 0.04 && (strong / 1600.0 - 0.2).abs() < 0.04);
        let rep = gen(&P_HELIOS, &[("replicate", "4")], 320, 5);
        assert_eq!(rep.len(), 320);
        for chunk in rep.chunks(4) {
            assert!(chunk
                .iter()
                .all(|j| j.arrival == chunk[0].arrival && j.model == chunk[0].model));
        }
        assert_eq!(gen(&P_PHILLY, &[], 160, 9), gen(&P_PHILLY, &[], 160, 9));
        assert_ne!(gen(&P_PHILLY, &[], 160, 9), gen(&P_PHILLY, &[], 160, 10));
    }
}
