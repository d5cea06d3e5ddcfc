//! The terms of Sia's objective (thesis eqs 3.2-3.4; spec seed004 §2.5).

/// Row normalisation (E12, the artifact's reading): every valid entry is
/// divided by the row's smallest valid entry and multiplied by the job's
/// minimum GPU count, so utilities are "in units of the minimum allocation".
pub fn normalize(raw: &[f64], n_min: u32) -> Vec<f64> {
    let min = raw
        .iter()
        .copied()
        .filter(|g| *g > 0.0)
        .fold(f64::INFINITY, f64::min);
    if !min.is_finite() {
        return raw.to_vec();
    }
    raw.iter()
        .map(|g| {
            if *g > 0.0 {
                n_min as f64 * g / min
            } else {
                0.0
            }
        })
        .collect()
}

/// Pollux's restart factor (E13, artifact form): the share of a job's life
/// not lost to restarts, if it restarted once more. 1 for a job younger
/// than one restart.
pub fn restart_factor(age_s: f64, restarts: u32, restart_s: f64) -> f64 {
    if age_s < restart_s {
        1.0
    } else {
        (age_s - restarts as f64 * restart_s).max(0.0) / (age_s + restart_s)
    }
}

/// Largest |(rG)^p| the artifact admits (its numeric clip).
pub const POWER_CLIP: f64 = 3000.0;

/// The linear weight of one (job, configuration) variable (E16):
/// w = lambda + sgn(p) (r G)^p. Maximising the sum of w over chosen
/// variables is the thesis' objective with the no-allocation penalty.
pub fn weight(g: f64, r: f64, p: f64, lambda: f64) -> f64 {
    let u = schedlab_core::num::pow((r * g).max(0.0), p).min(POWER_CLIP);
    lambda + p.signum() * u
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_makes_the_row_minimum_the_minimum_allocation() {
        assert_eq!(
            normalize(&[2.0, 4.0, 0.0, 8.0], 1),
            vec![1.0, 2.0, 0.0, 4.0]
        );
        assert_eq!(normalize(&[3.0, 6.0], 2), vec![2.0, 4.0]);
    }

    #[test]
    fn restart_factor_matches_the_formula() {
        assert_eq!(restart_factor(10.0, 0, 30.0), 1.0);
        assert!((restart_factor(600.0, 2, 30.0) - 540.0 / 630.0).abs() < 1e-12);
        assert_eq!(restart_factor(100.0, 10, 30.0), 0.0);
    }

    #[test]
    fn weights_with_negative_p_prefer_larger_goodput_and_allocation() {
        // p = -0.5: w = 1.1 - G^-0.5, positive for G >= 1, increasing in G.
        let w1 = weight(1.0, 1.0, -0.5, 1.1);
        let w4 = weight(4.0, 1.0, -0.5, 1.1);
        assert!((w1 - 0.1).abs() < 1e-12 && (w4 - 0.6).abs() < 1e-12);
        // A restart factor of 0 makes the change worthless.
        assert!(weight(4.0, 0.0, -0.5, 1.1) < 0.0);
        // p > 0: w = lambda + G^p.
        assert!((weight(4.0, 1.0, 0.5, 1.1) - 3.1).abs() < 1e-12);
    }
}
