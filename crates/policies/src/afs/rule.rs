//! The pairwise rule (3) of AFS (Hwang et al., NSDI'21 §3.2; spec seed003
//! §2.2): which of two jobs should get one more GPU when each existing job
//! is assumed to keep its current share in the future.
//!
//! With j_a the shorter job, p its throughput now and p' with one GPU more,
//! the longer job j_b wins iff
//!
//! ```text
//! (p'_b − p_b) / p'_b  >  (p'_a − p_a) / p_a          (3)
//! ```
//!
//! i.e. the longer job's relative time saved `h_b` beats the shorter job's
//! relative throughput gain `g_a`. The job lengths cancel out: only which
//! job is shorter matters. Since h ≤ g, equally efficient jobs favour the
//! shorter one (SRTF).
//!
//! Appendix C proves one transitivity chain (a shorter than b shorter than
//! c: b beats a and c beats b imply c beats a), which is what makes the
//! linear scan of TOPPRIORITY meaningful. The relation is *not* transitive
//! in general: the chain "a beats b, b beats c" does not imply "a beats c"
//! (a test in this module shows a cycle), so the scan order of Algorithm 1
//! can matter; we follow it exactly (see `share.rs`).

/// Relative throughput gain of one more GPU, g = (p' − p) / p.
/// Infinite for a job without GPUs that can start (p = 0 < p').
pub fn gain(p: f64, p_next: f64) -> f64 {
    if p > 0.0 {
        (p_next - p) / p
    } else if p_next > 0.0 {
        f64::INFINITY
    } else {
        0.0
    }
}

/// Relative time saved by one more GPU, h = (p' − p) / p' (1 for a job
/// without GPUs, 0 if one more GPU gives nothing).
pub fn saved(p: f64, p_next: f64) -> f64 {
    if p_next > 0.0 {
        (p_next - p) / p_next
    } else {
        0.0
    }
}

/// Rule (3): j_a is the shorter job, j_b the longer one; true if j_b gets
/// the GPU.
pub fn longer_wins(pa: f64, pa_next: f64, pb: f64, pb_next: f64) -> bool {
    saved(pb, pb_next) > gain(pa, pa_next)
}

/// The Appendix B form of (3) with f = p'/p: the longer job wins iff
/// f_a + 1/f_b < 2. Kept as an independent formulation for tests.
pub fn longer_wins_f(f_a: f64, f_b: f64) -> bool {
    f_a + 1.0 / f_b < 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn efficiency_can_beat_length() {
        // Short job nearly saturated (1.05x), long job scales well (1.9x):
        // the longer job gets the GPU.
        assert!(longer_wins(1.0, 1.05, 1.0, 1.9));
        // Both scale equally: the shorter job keeps priority (h < g).
        assert!(!longer_wins(1.0, 1.5, 1.0, 1.5));
        // A job without GPUs always wins against one that has some.
        assert!(longer_wins(1.0, 1.9, 0.0, 1.0));
        assert!(!longer_wins(0.0, 1.0, 1.0, 1.99));
    }

    #[test]
    fn the_two_forms_agree() {
        for &(pa, pa1, pb, pb1) in &[
            (1.0, 1.3, 2.0, 2.9),
            (3.0, 3.1, 1.0, 1.2),
            (1.0, 1.9, 1.0, 1.1),
            (2.0, 3.5, 4.0, 7.0),
        ] {
            assert_eq!(
                longer_wins(pa, pa1, pb, pb1),
                longer_wins_f(pa1 / pa, pb1 / pb)
            );
        }
    }

    /// The reverse chain is not transitive: with lengths a < b < c and
    /// gains g_a = 0.3, g_b = 0.4, g_c = 0.538, a beats b, b beats c, and
    /// yet c beats a. Appendix C's proof covers only the forward chain.
    #[test]
    fn the_relation_can_cycle() {
        let (ga, gb, gc) = (0.3, 0.4, 0.538);
        let a_beats_b = !longer_wins(1.0, 1.0 + ga, 1.0, 1.0 + gb);
        let b_beats_c = !longer_wins(1.0, 1.0 + gb, 1.0, 1.0 + gc);
        let c_beats_a = longer_wins(1.0, 1.0 + ga, 1.0, 1.0 + gc);
        assert!(a_beats_b && b_beats_c && c_beats_a);
    }
}
