//! The preference solver's compact parameterisation WFQ(T, W, ζ, δ) (spec
//! seed001 §2.5): class thresholds from a bound T on the squared
//! coefficient of variation of job sizes within a class, and class weights
//! decaying as exp(-W·i). Both follow the artifact, quirks included (spec §7.4-5).

/// Class thresholds from the sizes (1-GPU seconds) of a training workload:
/// sizes are taken in increasing order and a class is closed, at the
/// previous size (truncated to whole seconds), as soon as its population
/// C² = Var/Mean² would exceed `t`. With `artifact_quirk` the size that
/// closed a class is not counted in the next one (the artifact's code);
/// without it, it is. The last class is unbounded and not listed.
pub fn thresholds_from_cv2(sizes: &[f64], t: f64, artifact_quirk: bool) -> Vec<f64> {
    let mut sorted = sizes.to_vec();
    schedlab_core::sorting::sort_by(&mut sorted, f64::total_cmp);
    let mut out = Vec::new();
    let (mut n, mut s, mut s2) = (0.0f64, 0.0f64, 0.0f64);
    for (i, &x) in sorted.iter().enumerate() {
        n += 1.0;
        s += x;
        s2 += x * x;
        let mu = s / n;
        let var = (s2 / n - mu * mu).max(0.0);
        if i > 0 && mu > 0.0 && var / (mu * mu) > t {
            let cut = sorted[i - 1].trunc();
            if out.last().is_none_or(|&last| cut > last) {
                out.push(cut);
            }
            if artifact_quirk {
                (n, s, s2) = (0.0, 0.0, 0.0);
            } else {
                (n, s, s2) = (1.0, x, x * x);
            }
        }
    }
    out
}

/// The largest C² the running statistics reach with no split (T = ∞): the
/// top of the search's T range is this plus one.
pub fn max_running_cv2(sizes: &[f64]) -> f64 {
    let mut sorted = sizes.to_vec();
    schedlab_core::sorting::sort_by(&mut sorted, f64::total_cmp);
    let (mut n, mut s, mut s2, mut best) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for &x in &sorted {
        n += 1.0;
        s += x;
        s2 += x * x;
        let mu = s / n;
        if mu > 0.0 {
            best = best.max((s2 / n - mu * mu).max(0.0) / (mu * mu));
        }
    }
    best
}

/// Weights exp(-W·i) for `classes` classes, normalised, rounded to three
/// decimals and renormalised, the last taking what the others leave. None
/// when a weight rounds to zero (the search scores such a point +∞).
pub fn weights_from_decay(classes: usize, w: f64) -> Option<Vec<f64>> {
    if classes == 0 {
        return None;
    }
    let raw: Vec<f64> = (0..classes).map(|i| (-w * i as f64).exp()).collect();
    normalised_weights(&raw)
}

/// Raw rates normalised, rounded to three decimals and renormalised, the
/// last taking what the others leave; None when one rounds to zero (the
/// heuristic's rule, also the search-without-heuristics' of Fig. 9c).
pub fn normalised_weights(raw: &[f64]) -> Option<Vec<f64>> {
    let classes = raw.len();
    let sum: f64 = raw.iter().sum();
    if classes == 0 || sum.is_nan() || sum <= 0.0 {
        return None;
    }
    let rounded: Vec<f64> = raw
        .iter()
        .map(|x| (x / sum * 1000.0).round() / 1000.0)
        .collect();
    let rsum: f64 = rounded.iter().sum();
    if rounded.iter().any(|x| *x <= 0.0) || rsum <= 0.0 {
        return None;
    }
    let mut out: Vec<f64> = rounded.iter().map(|x| x / rsum).collect();
    let head: f64 = out[..classes - 1].iter().sum();
    out[classes - 1] = 1.0 - head;
    (out[classes - 1] > 0.0).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_sizes_make_one_class_and_a_jump_splits() {
        assert!(thresholds_from_cv2(&[5.0; 10], 0.1, true).is_empty());
        // 1,1,1,100: adding 100 pushes C² far above 0.5, so 1 closes a class.
        assert_eq!(
            thresholds_from_cv2(&[100.0, 1.0, 1.0, 1.0], 0.5, true),
            vec![1.0]
        );
        // A bound at or above the largest running C² gives FIFO (one class).
        let sizes = [3.0, 9.0, 27.0, 81.0, 243.0];
        let top = max_running_cv2(&sizes);
        assert!(thresholds_from_cv2(&sizes, top, true).is_empty());
        assert!(!thresholds_from_cv2(&sizes, top * 0.5, true).is_empty());
    }

    #[test]
    fn the_quirk_changes_what_the_next_class_counts() {
        // After the split before 2, the artifact starts the next class
        // without 2, so 10 alone does not exceed T; counting 2 splits again.
        let sizes = [1.0, 2.0, 10.0, 11.0, 30.0, 31.0, 100.0];
        assert_eq!(
            thresholds_from_cv2(&sizes, 0.1, true),
            vec![1.0, 11.0, 31.0]
        );
        assert_eq!(
            thresholds_from_cv2(&sizes, 0.1, false),
            vec![1.0, 2.0, 11.0, 31.0]
        );
    }

    #[test]
    fn weights_round_to_three_decimals_and_sum_to_one() {
        let w = weights_from_decay(3, 0.0).unwrap();
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!((w[0] - w[1]).abs() < 1e-12);
        let w = weights_from_decay(2, 1.0).unwrap();
        assert!(w[0] > w[1] && w[1] > 0.0);
        // Negative W favours the large-job classes.
        let w = weights_from_decay(2, -1.0).unwrap();
        assert!(w[0] < w[1]);
        // W = 3 over 4 classes: e^-9 / Σ rounds to 0.000: invalid.
        assert!(weights_from_decay(4, 3.0).is_none());
    }
}
