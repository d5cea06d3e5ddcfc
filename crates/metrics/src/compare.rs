//! Comparisons between runs on the same trace (AFS, NSDI'21 §5; spec
//! seed003 §5): average and tail JCT reduction rates, the JCT blowup of the
//! max-GPU variants, and Fig 10's per-length reduction bins.

use super::{JobMetrics, Summary};
use serde::Serialize;

/// avgJCT(baseline) / avgJCT(algorithm): above 1 the algorithm is better.
pub fn reduction(baseline: &Summary, algorithm: &Summary) -> f64 {
    ratio(baseline.avg_jct_s, algorithm.avg_jct_s)
}

/// The same with 99th-percentile JCTs (Fig 9).
pub fn tail_reduction(baseline: &Summary, algorithm: &Summary) -> f64 {
    ratio(baseline.p99_jct_s, algorithm.p99_jct_s)
}

/// avgJCT(variant) / avgJCT(original) (Fig 6: max-GPU variants).
pub fn blowup(variant: &Summary, original: &Summary) -> f64 {
    ratio(variant.avg_jct_s, original.avg_jct_s)
}

/// a / b; NaN when either run completed no job (no JCT to compare).
fn ratio(a: Option<f64>, b: Option<f64>) -> f64 {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => a / b,
        _ => f64::NAN,
    }
}

/// One bin of the per-length comparison.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LengthBin {
    /// Jobs in the bin.
    pub jobs: usize,
    /// Mean baseline JCT of the bin's jobs (seconds): the bin's position.
    pub baseline_jct_s: f64,
    /// Mean per-job reduction JCT_baseline / JCT_algorithm.
    pub reduction: f64,
}

/// Fig 10: jobs sorted by their baseline JCT (ties: job id), cut into
/// `bins` equal-count bins, each with the mean per-job reduction rate.
/// Jobs unfinished in either run are left out.
pub fn length_bins(
    baseline: &[JobMetrics],
    algorithm: &[JobMetrics],
    bins: usize,
) -> Vec<LengthBin> {
    let mut pairs: Vec<(f64, u32, f64)> = baseline
        .iter()
        .filter_map(|b| {
            let a = algorithm
                .iter()
                .find(|a| a.id == b.id)
                .or_else(|| algorithm.get(b.id as usize))?;
            match (b.jct_s, a.jct_s) {
                (Some(x), Some(y)) if y > 0.0 => Some((x, b.id, x / y)),
                _ => None,
            }
        })
        .collect();
    schedlab_core::sorting::sort_by(&mut pairs, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let n = pairs.len();
    let bins = bins.clamp(1, n.max(1));
    (0..bins)
        .filter_map(|k| {
            let (lo, hi) = (k * n / bins, (k + 1) * n / bins);
            let chunk = &pairs[lo..hi];
            (!chunk.is_empty()).then(|| LengthBin {
                jobs: chunk.len(),
                baseline_jct_s: chunk.iter().map(|p| p.0).sum::<f64>() / chunk.len() as f64,
                reduction: chunk.iter().map(|p| p.2).sum::<f64>() / chunk.len() as f64,
            })
        })
        .collect()
}
