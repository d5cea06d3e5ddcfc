//! Speedup and slowdown against a reference run of the same trace (the
//! anticipatory scheduler's metrics, spec seed000 §5): per-job speedup =
//! JCT under the reference / JCT under the policy, where the reference is
//! per-pool FCFS without sharing (`pool-fcfs`) on the declared pools.
//!
//! A job is slowed when its JCT exceeds the reference's by more than
//! [`SLOWED_TOLERANCE_S`] (float noise; the spec's reading 18). Jobs
//! unfinished in either run are left out.

use super::JobMetrics;
use schedlab_core::num;
use serde::{Deserialize, Serialize};

/// A job is slowed when it finishes more than this later than in the reference.
pub const SLOWED_TOLERANCE_S: f64 = 1.0;

/// The run's speedup statistics against the reference (all None when the
/// run has no reference, no pools, or no job finished in both runs).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct SpeedupSummary {
    /// Geometric mean of the per-job speedups (Table 12's "mean").
    pub speedup_geo: Option<f64>,
    /// Arithmetic mean of the per-job speedups.
    pub speedup_mean: Option<f64>,
    /// Mean JCT of the reference / mean JCT of the policy.
    pub speedup_jct_ratio: Option<f64>,
    /// 5th and 95th percentiles of the per-job speedups (Table 17).
    pub speedup_p5: Option<f64>,
    pub speedup_p95: Option<f64>,
    /// Fraction of the compared jobs that finished later than in the reference.
    pub slowed_frac: Option<f64>,
    /// Sum and maximum over jobs of max(0, JCT - reference JCT), seconds.
    pub slowdown_total_s: Option<f64>,
    pub slowdown_max_s: Option<f64>,
}

/// Fills each job's `speedup` from the reference JCTs (indexed by job id)
/// and returns the run's statistics.
pub fn against_reference(jobs: &mut [JobMetrics], reference: &[Option<f64>]) -> SpeedupSummary {
    let mut speedups = Vec::with_capacity(jobs.len());
    let (mut base_sum, mut jct_sum) = (0.0, 0.0);
    let (mut slowed, mut total, mut worst) = (0usize, 0.0f64, 0.0f64);
    for j in jobs.iter_mut() {
        let base = reference.get(j.id as usize).copied().flatten();
        let (Some(base), Some(jct)) = (base, j.jct_s) else {
            continue;
        };
        if !(base > 0.0 && jct > 0.0) {
            continue;
        }
        let s = base / jct;
        j.speedup = Some(s);
        speedups.push(s);
        base_sum += base;
        jct_sum += jct;
        let late = jct - base;
        if late > SLOWED_TOLERANCE_S {
            slowed += 1;
            total += late;
            worst = worst.max(late);
        }
    }
    if speedups.is_empty() {
        return SpeedupSummary::default();
    }
    let n = speedups.len() as f64;
    let geo = num::exp(speedups.iter().map(|&s| num::ln(s)).sum::<f64>() / n);
    let mean = num::mean(&speedups);
    schedlab_core::sorting::sort_by(&mut speedups, f64::total_cmp);
    SpeedupSummary {
        speedup_geo: Some(geo),
        speedup_mean: Some(mean),
        speedup_jct_ratio: Some(base_sum / jct_sum),
        speedup_p5: Some(num::percentile_sorted(&speedups, 0.05)),
        speedup_p95: Some(num::percentile_sorted(&speedups, 0.95)),
        slowed_frac: Some(slowed as f64 / n),
        slowdown_total_s: Some(total),
        slowdown_max_s: Some(worst),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: u32, jct: Option<f64>) -> JobMetrics {
        JobMetrics {
            id,
            name: String::new(),
            model: String::new(),
            arrival: 0.0,
            start: None,
            finish: jct,
            jct_s: jct,
            queue_s: None,
            gpu_s: 0.0,
            restarts: 0,
            restart_kinds: Default::default(),
            preemptions: 0,
            migrations: 0,
            ftf_rho: None,
            energy_kwh: 0.0,
            tardiness_s: None,
            tardiness_cost_usd: None,
            predicted_jct_s: None,
            pred_error_pct: None,
            speedup: None,
        }
    }

    #[test]
    fn speedups_slowdowns_and_the_tolerance() {
        let mut jobs = vec![
            job(0, Some(50.0)),  // 2x faster
            job(1, Some(100.5)), // within the tolerance: not slowed
            job(2, Some(400.0)), // slowed by 200 s
            job(3, None),        // unfinished: left out
        ];
        let reference = [Some(100.0), Some(100.0), Some(200.0), Some(10.0)];
        let s = against_reference(&mut jobs, &reference);
        assert_eq!(jobs[0].speedup, Some(2.0));
        assert_eq!(jobs[3].speedup, None);
        assert!((s.speedup_geo.unwrap() - (2.0f64 * (100.0 / 100.5) * 0.5).cbrt()).abs() < 1e-12);
        assert!((s.slowed_frac.unwrap() - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(
            (s.slowdown_total_s, s.slowdown_max_s),
            (Some(200.0), Some(200.0))
        );
        assert!((s.speedup_jct_ratio.unwrap() - 400.0 / 550.5).abs() < 1e-12);
        assert_eq!(s.speedup_p95, Some(2.0));
        assert_eq!(s.speedup_p5, Some(0.5));
        assert_eq!(
            against_reference(&mut [], &reference),
            SpeedupSummary::default()
        );
    }
}
