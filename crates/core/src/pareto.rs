//! Pareto dominance, the one definition shared by Pollux's NSGA-II
//! (objectives maximised) and the PCS preference search (minimised).

/// Whether `a` dominates `b` when every objective is minimised: no worse
/// in every objective and better in one. A NaN is incomparable, so a point
/// with one neither dominates nor is dominated.
#[inline]
pub fn dominates(a: &[f64], b: &[f64]) -> bool {
    let mut better = false;
    for (x, y) in a.iter().zip(b) {
        // `!(x <= y)`: worse, or incomparable (NaN).
        if !(x <= y) {
            return false;
        }
        better |= x < y;
    }
    better
}

/// Whether `a` dominates `b` when every objective is maximised: exactly
/// when `b` would dominate `a` under minimisation.
#[inline]
pub fn dominates_max(a: &[f64], b: &[f64]) -> bool {
    dominates(b, a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dominance_in_both_directions() {
        assert!(dominates(&[1.0, 2.0], &[1.0, 3.0]));
        assert!(!dominates(&[1.0, 2.0], &[1.0, 2.0]));
        assert!(!dominates(&[0.0, 3.0], &[1.0, 2.0]));
        assert!(dominates_max(&[1.0, 3.0], &[1.0, 2.0]));
        assert!(!dominates_max(&[1.0, 2.0], &[1.0, 3.0]));
        // -0 and +0 tie; NaN is incomparable both ways.
        assert!(!dominates(&[-0.0, 1.0], &[0.0, 1.0]));
        assert!(!dominates(&[1.0, f64::NAN], &[2.0, 3.0]));
        assert!(!dominates(&[2.0, 3.0], &[1.0, f64::NAN]));
    }
}
