//! The PCS artifact's synthetic workloads (spec seed001 §4), drawn from its
//! empirical CDFs with its sampling rule: u ~ U(0, 1), the first bin i with
//! u <= cdf_i, then a uniform value between the bin's ends truncated to an
//! integer. Apps are linear-scaling elastic jobs (model `linear`) with work
//! in 1-GPU seconds; arrivals are Poisson with mean gap = mean sampled
//! service / (load x GPUs), each gap truncated to whole seconds (at least
//! 0.01 before truncation, as the artifact); the first app arrives at 0.
//! Every family draws its jobs' GPUs as the artifact does: a pool of 100
//! draws by the family's GPU CDF, built before the apps, and one uniform
//! pick from it per job (`GpuPool`), so a workload's GPU mix is its pool's.
//!
//! - `pcs-themis1` (Workload-1 in simulation, Figs. 9-10): an app is a set of
//!   trials (CDF 1-90), each of 1 or 2 GPUs picked from the pool;
//!   its demand is the sum and its service is rounded to a multiple of the
//!   trial count. Load 0.8.
//! - `pcs-gavel` (Workload-3, Fig. 8): one job per app, service CDF 30-10,000
//!   (the artifact's units, used as seconds), GPUs 1-8 with the artifact's
//!   interpolation quirk (90% one GPU in expectation; a pool's share varies
//!   by seed, sd 3 points). Load 1.2.
//! - `pcs-themis2`: the artifact's second Themis family, built as themis1
//!   (same service CDF) with its own trials (1-90, 43% up to 5) and GPUs per
//!   trial (1-8, mostly 2-4). Load 0.8 (the simulator's default).
//! - `pcs-afs`: the artifact's AFS family, one job per app as gavel, AFS's
//!   service CDF (200 s to 16.96e6 s) and GPUs (1-52). Load 0.8.
//!
//! The artifact's files for these families list the minimum GPUs per job as
//! always 1, which is every generated job's minimum here.

use super::Generator;
use crate::workload::{Adaptivity, JobSpec};
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::rng::Sampler;

/// (value, cumulative probability) pairs, as the artifact's CSV files.
pub(super) type Cdf = &'static [(f64, f64)];

const THEMIS1_SERVICE: Cdf = &[
    (3600.0, 0.0),
    (9216.0, 0.01),
    (40284.0, 0.11),
    (108864.0, 0.28),
    (297072.0, 0.35),
    (447552.0, 0.45),
    (1028304.0, 0.53),
    (1291464.0, 0.74),
    (1696176.0, 0.88),
    (2176452.0, 0.96),
    (2625444.0, 1.0),
];
const THEMIS1_TRIALS: Cdf = &[
    (1.0, 0.0),
    (20.0, 0.23),
    (22.0, 0.35),
    (56.0, 0.55),
    (60.0, 0.69),
    (90.0, 1.0),
];
const THEMIS1_GPUS: Cdf = &[(1.0, 0.0), (1.0, 0.75), (2.0, 0.98), (3.0, 1.0)];
const GAVEL_SERVICE: Cdf = &[(30.0, 0.0), (1000.0, 0.8), (10000.0, 1.0)];
/// themis2's service CDF is themis1's (the artifact's files are identical).
const THEMIS2_TRIALS: Cdf = &[
    (1.0, 0.0),
    (5.0, 0.43),
    (13.0, 0.70),
    (23.0, 0.77),
    (28.0, 0.87),
    (64.0, 0.90),
    (87.0, 0.96),
    (90.0, 1.0),
];
const THEMIS2_GPUS: Cdf = &[(1.0, 0.0), (1.0, 0.2), (2.0, 0.38), (4.0, 0.98), (8.0, 1.0)];
const AFS_SERVICE: Cdf = &[
    (200.0, 0.0),
    (289.0, 0.1),
    (2291.0, 0.2),
    (7736.0, 0.3),
    (21179.0, 0.4),
    (52309.0, 0.5),
    (105342.0, 0.6),
    (236231.0, 0.7),
    (683667.0, 0.8),
    (2138727.0, 0.9),
    (16958962.0, 1.0),
];
const AFS_GPUS: Cdf = &[
    (1.0, 0.0),
    (4.0, 0.2),
    (8.0, 0.3),
    (20.0, 0.4),
    (20.0, 0.5),
    (20.0, 0.6),
    (28.0, 0.7),
    (28.0, 0.8),
    (44.0, 0.9),
    (52.0, 1.0),
];
const GAVEL_GPUS: Cdf = &[(1.0, 0.0), (1.0, 0.7), (2.0, 0.9), (4.0, 0.95), (8.0, 1.0)];

/// The artifact's draw from an empirical CDF (`gen_data_from_cdf`).
pub(super) fn draw(cdf: Cdf, rng: &mut Sampler) -> f64 {
    let u = rng.uniform();
    let i = cdf
        .iter()
        .position(|(_, p)| u <= *p)
        .unwrap_or(cdf.len() - 1);
    let lo = if i == 0 { 0.0 } else { cdf[i - 1].0 };
    rng.range(lo, cdf[i].0).trunc()
}

/// The artifact's GPUs-per-job pool (data README: "GPUs-per-job files are
/// sampled into a pool of 100 values; an app's demand is the sum of one pool
/// draw per job"): every PCS family draws its jobs' GPUs from it, so one
/// workload's GPU mix is that of 100 draws, not of the CDF itself.
pub(super) struct GpuPool(Vec<u32>);

impl GpuPool {
    /// Draws in a pool, as the artifact.
    pub(super) const SIZE: usize = 100;

    /// `SIZE` draws by the family's GPU CDF with the artifact's rule, at
    /// least 1 GPU each. Built before the apps are drawn.
    pub(super) fn new(gpus: Cdf, rng: &mut Sampler) -> Self {
        GpuPool(
            (0..Self::SIZE)
                .map(|_| draw(gpus, rng).max(1.0) as u32)
                .collect(),
        )
    }

    /// One job's GPUs: a pool value picked uniformly.
    pub(super) fn pick(&self, rng: &mut Sampler) -> u32 {
        self.0[rng.below(self.0.len() as u64) as usize]
    }
}

/// The cluster size an offered load refers to (every PCS family).
pub(super) const GPUS: ParamSpec = ParamSpec::int(
    "gpus",
    "64",
    1,
    1_000_000,
    "Cluster size the offered load refers to",
);

/// The offered load of Poisson arrivals, with a family's default.
pub(super) const fn load(default: &'static str) -> ParamSpec {
    ParamSpec::float(
        "load",
        default,
        0.01,
        100.0,
        "Offered load: mean service (1-GPU seconds) per mean gap per GPU",
    )
}

const fn params(default_load: &'static str) -> [ParamSpec; 2] {
    [GPUS, load(default_load)]
}

const THEMIS1_PARAMS: &[ParamSpec] = &params("0.8");
const GAVEL_PARAMS: &[ParamSpec] = &params("1.2");
const DEFAULT_LOAD_PARAMS: &[ParamSpec] = &params("0.8");

pub const THEMIS1: Generator = Generator {
    name: "pcs-themis1",
    description: schedlab_core::prose::doc("PCS Workload-1 (simulated): AutoML apps of 1-90 trials with Themis's service CDF, linear scaling, Poisson arrivals at load 0.8 (PCS spec 4)"),
    default_jobs: 2000,
    params: THEMIS1_PARAMS,
    jobs_from: None,
    run: run_themis1,
    pools: None,
};

pub const GAVEL: Generator = Generator {
    name: "pcs-gavel",
    description: schedlab_core::prose::doc("PCS Workload-3: Gavel's continuous workload, one 1-8 GPU job per app, linear scaling, Poisson arrivals at load 1.2 (PCS spec 4)"),
    default_jobs: 3000,
    params: GAVEL_PARAMS,
    jobs_from: None,
    run: run_gavel,
    pools: None,
};

pub const THEMIS2: Generator = Generator {
    name: "pcs-themis2",
    description: schedlab_core::prose::doc("PCS artifact's themis2 family: AutoML apps of 1-90 trials (43% up to 5) of 1-8 GPUs each, Themis's service CDF, linear scaling, Poisson arrivals at load 0.8"),
    default_jobs: 2000,
    params: DEFAULT_LOAD_PARAMS,
    jobs_from: None,
    run: run_themis2,
    pools: None,
};

pub const AFS: Generator = Generator {
    name: "pcs-afs",
    description: schedlab_core::prose::doc("PCS artifact's afs family: one job per app with AFS's service CDF (200 s to 196 days on one GPU) and 1-52 GPUs, linear scaling, Poisson arrivals at load 0.8"),
    default_jobs: 2000,
    params: DEFAULT_LOAD_PARAMS,
    jobs_from: None,
    run: run_afs,
    pools: None,
};

/// Apps as (service, demand) in arrival order, with Poisson arrivals.
pub(super) fn apps_to_jobs(apps: Vec<(f64, u32)>, p: &Params, rng: &mut Sampler) -> Vec<JobSpec> {
    let mean = apps.iter().map(|a| a.0).sum::<f64>() / apps.len().max(1) as f64;
    let gpus = p.i64("gpus") as u32;
    let gap = mean / (p.f64("load") * gpus as f64);
    jobs_at(apps, gpus, rng, |rng| {
        rng.exponential(gap).max(0.01).trunc()
    })
}

/// Apps as (service, demand) made into elastic linear jobs, the first at 0
/// and each next one `gap(rng)` seconds later. The request is the demand up
/// to the cluster's size (an app of 90 trials may use more GPUs than there
/// are; it is elastic up to its demand).
pub(super) fn jobs_at(
    apps: Vec<(f64, u32)>,
    gpus: u32,
    rng: &mut Sampler,
    mut gap: impl FnMut(&mut Sampler) -> f64,
) -> Vec<JobSpec> {
    let mut t = 0.0;
    apps.into_iter()
        .enumerate()
        .map(|(i, (service, demand))| {
            if i > 0 {
                t += gap(rng);
            }
            let mut job =
                JobSpec::new(format!("app-{i}"), t, "linear", demand.min(gpus)).with_work(service);
            job.max_gpus = demand;
            job.min_gpus = 1;
            job.adaptivity = Adaptivity::StrongScaling;
            job
        })
        .collect()
}

fn run_themis1(p: &Params, n: usize, seed: u64) -> Result<Vec<JobSpec>> {
    trial_apps(p, n, seed, THEMIS1_TRIALS, THEMIS1_GPUS)
}

fn run_themis2(p: &Params, n: usize, seed: u64) -> Result<Vec<JobSpec>> {
    trial_apps(p, n, seed, THEMIS2_TRIALS, THEMIS2_GPUS)
}

/// Apps of several trials (the Themis families): GPUs per trial from a pool
/// of 100 draws, an app's demand the sum over its trials, its service
/// rounded down to a multiple of its trial count.
fn trial_apps(p: &Params, n: usize, seed: u64, trials: Cdf, gpus: Cdf) -> Result<Vec<JobSpec>> {
    let mut rng = Sampler::new(seed);
    let pool = GpuPool::new(gpus, &mut rng);
    let apps = (0..n)
        .map(|_| {
            let service = draw(THEMIS1_SERVICE, &mut rng);
            let trials = draw(trials, &mut rng).max(1.0);
            let demand: u32 = (0..trials as usize).map(|_| pool.pick(&mut rng)).sum();
            let per_trial = (service / trials).trunc().max(1.0);
            (per_trial * trials, demand)
        })
        .collect();
    Ok(apps_to_jobs(apps, p, &mut rng))
}

fn run_gavel(p: &Params, n: usize, seed: u64) -> Result<Vec<JobSpec>> {
    single_job_apps(p, n, seed, GAVEL_SERVICE, GAVEL_GPUS)
}

fn run_afs(p: &Params, n: usize, seed: u64) -> Result<Vec<JobSpec>> {
    single_job_apps(p, n, seed, AFS_SERVICE, AFS_GPUS)
}

/// Apps of one job each (the gavel and afs families): service drawn per app,
/// GPUs picked from the family's pool.
fn single_job_apps(
    p: &Params,
    n: usize,
    seed: u64,
    service: Cdf,
    gpus: Cdf,
) -> Result<Vec<JobSpec>> {
    let mut rng = Sampler::new(seed);
    let apps = one_job_apps(n, service, gpus, &mut rng);
    Ok(apps_to_jobs(apps, p, &mut rng))
}

/// `n` one-job apps as (service, GPUs): the GPU pool first, then per app a
/// service draw (at least 1 s) and one pool pick. Shared by `pcs-gavel`,
/// `pcs-afs` and `pcs-vc`.
pub(super) fn one_job_apps(
    n: usize,
    service: Cdf,
    gpus: Cdf,
    rng: &mut Sampler,
) -> Vec<(f64, u32)> {
    let pool = GpuPool::new(gpus, rng);
    (0..n)
        .map(|_| (draw(service, rng).max(1.0), pool.pick(rng)))
        .collect()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The pool a family's generator builds for `seed` (it is the first
    /// thing drawn, so a fresh sampler rebuilds it).
    pub(in crate::workload::gen) fn pool_of(gpus: Cdf, seed: u64) -> Vec<u32> {
        GpuPool::new(gpus, &mut Sampler::new(seed)).0
    }

    /// The share of `values` in `lo..=hi`.
    pub(in crate::workload::gen) fn share(values: &[u32], lo: u32, hi: u32) -> f64 {
        values.iter().filter(|v| (lo..=hi).contains(*v)).count() as f64 / values.len() as f64
    }

    /// Asserts each share of `values` in `lo..=hi` is `want` within `tol`
    /// (the rows are (lo, hi, want, tol)).
    pub(in crate::workload::gen) fn assert_shares(values: &[u32], rows: &[(u32, u32, f64, f64)]) {
        for &(lo, hi, want, tol) in rows {
            let got = share(values, lo, hi);
            assert!((got - want).abs() < tol, "{lo}-{hi}: {got}, want {want}");
        }
    }

    /// Asserts a workload's GPU counts are picks from `pool`: each one of its
    /// values, and in `lo..=hi` as often as the pool is up to the picks'
    /// binomial noise (sd <= sqrt(0.25 / 20,000) = 0.0035 at 20,000 apps).
    pub(in crate::workload::gen) fn assert_picked_from(
        gpus: &[u32],
        pool: &[u32],
        ranges: &[(u32, u32)],
    ) {
        assert!(gpus.iter().all(|g| pool.contains(g)));
        for &(lo, hi) in ranges {
            let (apps, drawn) = (share(gpus, lo, hi), share(pool, lo, hi));
            assert!((apps - drawn).abs() < 0.015, "{lo}-{hi}: {apps} vs {drawn}");
        }
    }

    /// The pools of seeds 1..=400 pooled: 40,000 draws by the CDF, so a
    /// share p has a binomial sd of at most sqrt(0.25 / 40,000) = 0.0025;
    /// the callers' tolerances are at least 4 sd of their share.
    pub(in crate::workload::gen) fn pools_over_seeds(gpus: Cdf) -> Vec<u32> {
        (1..=400).flat_map(|seed| pool_of(gpus, seed)).collect()
    }

    #[test]
    fn gavel_pool_follows_the_artifacts_draw_rule() {
        let draws = pools_over_seeds(GAVEL_GPUS);
        // The interpolation quirk: 90% one GPU, 2.5% each of two and three,
        // 1.25% each of 4-7, never 8 (sd 0.0015, 0.0011, 0.0011).
        assert_shares(
            &draws,
            &[
                (1, 1, 0.90, 0.006),
                (2, 3, 0.05, 0.005),
                (4, 7, 0.05, 0.005),
            ],
        );
        assert_eq!(share(&draws, 8, u32::MAX), 0.0);
    }

    #[test]
    fn gavel_apps_pick_their_gpus_from_the_pool_and_meet_the_load() {
        let p = Params::resolve("pcs-gavel", GAVEL_PARAMS, &[]).unwrap();
        let jobs = run_gavel(&p, 20_000, 7).unwrap();
        let pool = pool_of(GAVEL_GPUS, 7);
        let gpus: Vec<u32> = jobs.iter().map(|j| j.max_gpus).collect();
        assert_picked_from(&gpus, &pool, &[(1, 1), (2, 3), (4, 7)]);
        assert!(jobs.iter().all(|j| j.gpus == j.max_gpus && j.min_gpus == 1));
        let span = jobs.last().unwrap().arrival;
        let work: f64 = jobs.iter().map(|j| j.work.unwrap()).sum();
        let load = work / (span * 64.0);
        assert!((load - 1.2).abs() < 0.1, "{load}");
    }

    #[test]
    fn themis1_apps_are_trials_of_one_or_two_gpus() {
        let p = Params::resolve("pcs-themis1", THEMIS1_PARAMS, &[]).unwrap();
        let jobs = run_themis1(&p, 3000, 4567).unwrap();
        assert_eq!(jobs[0].arrival, 0.0);
        for j in &jobs {
            assert!(j.max_gpus >= 1 && j.max_gpus <= 180 && j.gpus == j.max_gpus.min(64));
            assert!(j.work.unwrap() >= 1.0 && j.work.unwrap() <= 2_625_444.0);
            assert!(j.arrival.fract() == 0.0);
        }
        let mean_demand = jobs.iter().map(|j| j.gpus as f64).sum::<f64>() / jobs.len() as f64;
        // Mean trials ~ 47 (the CDF), about 2% of them on 2 GPUs.
        assert!((35.0..60.0).contains(&mean_demand), "{mean_demand}");
    }

    #[test]
    fn themis2_trials_are_fewer_and_wider_than_themis1() {
        let p = Params::resolve("pcs-themis2", DEFAULT_LOAD_PARAMS, &[]).unwrap();
        let jobs = run_themis2(&p, 4000, 4567).unwrap();
        let one = run_themis1(&p, 4000, 4567).unwrap();
        let mean =
            |js: &[JobSpec]| js.iter().map(|j| j.max_gpus as f64).sum::<f64>() / js.len() as f64;
        // themis2: mean trials ~ 16.5 (its CDF after truncation) of ~ 2 GPUs
        // each (the 100-draw pool moves it by seed); themis1: ~ 47 trials of ~ 1 GPU.
        assert!((20.0..50.0).contains(&mean(&jobs)), "{}", mean(&jobs));
        assert!((35.0..60.0).contains(&mean(&one)), "{}", mean(&one));
        assert!(jobs
            .iter()
            .all(|j| j.max_gpus >= 1 && j.max_gpus <= 90 * 8 && j.min_gpus == 1));
        // Small apps are common: 43% have at most 5 trials, so a demand of at most 40.
        let small = jobs.iter().filter(|j| j.max_gpus <= 40).count() as f64 / jobs.len() as f64;
        assert!(small > 0.4, "{small}");
    }

    #[test]
    fn afs_apps_are_single_jobs_of_1_to_52_gpus_with_a_long_tail() {
        let p = Params::resolve("pcs-afs", DEFAULT_LOAD_PARAMS, &[]).unwrap();
        let jobs = run_afs(&p, 20_000, 3).unwrap();
        assert!(jobs.iter().all(|j| (1..=52).contains(&j.max_gpus)));
        // One pool of 100 draws: the apps use at most its distinct values
        // (fresh draws would reach nearly all of 1-51 among 20,000 apps).
        let pool = pool_of(AFS_GPUS, 3);
        assert!(jobs.iter().all(|j| pool.contains(&j.max_gpus)));
        // The pools' mix: CDF rows (4, .2) (8, .3) (20, .6) (28, .8) (44, .9)
        // (52, 1): a draw is 1-3 up to .2, 4-7 up to .3, 8-19 up to .4,
        // exactly 20 up to .6 (two bins from 20 to 20), 20-27 up to .7,
        // exactly 28 up to .8, 28-43 up to .9, 44-51 above; never 52.
        let draws = pools_over_seeds(AFS_GPUS);
        assert_shares(
            &draws,
            &[
                (1, 3, 0.2, 0.01),
                (4, 7, 0.1, 0.01),
                (8, 19, 0.1, 0.01),
                (20, 27, 0.3, 0.01),
                (28, 43, 0.2, 0.01),
                (44, 51, 0.1, 0.01),
            ],
        );
        assert_eq!(share(&draws, 52, u32::MAX), 0.0);
        let mut work: Vec<f64> = jobs.iter().map(|j| j.work.unwrap()).collect();
        work.sort_by(f64::total_cmp);
        // The CDF reaches 0.5 at 52,309 s (draws are uniform inside a bin, so
        // the median sits near it); its top decile reaches 16.96e6 s.
        let median = work[work.len() / 2];
        assert!((40_000.0..=70_000.0).contains(&median), "{median}");
        assert!(work[work.len() - 1] > 2_138_727.0);
        let span = jobs.last().unwrap().arrival;
        let load = work.iter().sum::<f64>() / (span * 64.0);
        assert!((load - 0.8).abs() < 0.1, "{load}");
    }
}
