//! Interference when jobs share a GPU (a placement's `Slice`).
//!
//! STS (spec 2.7) lets a single-GPU job take a fraction f of one GPU whose
//! memory it fits; it then runs at its 1-GPU speed divided by a slowdown
//! b_f, drawn per job from U(1.01, b_f,max) with b_f,max between 1.05
//! (f = 1/2) and 1.17 (f = 0.1) in the paper's Table IV. Without a per-job
//! figure the engine uses the mean of those draws as a line in f:
//! b(f) = 1 + 0.1 (1 - f), which gives 1.05 at f = 1/2, 1.075 at 1/4 and
//! 1.09 at 0.1 (Table IV's means: 1.03, 1.06, 1.09).

use super::ModelInfo;

/// Extra slowdown per unit of GPU fraction given up (see the module doc).
pub const SHARE_SLOWDOWN_SLOPE: f64 = 0.1;

impl ModelInfo {
    /// How much slower the model runs on `fraction` of one GPU than on the
    /// whole GPU (1 for a whole GPU).
    pub fn share_slowdown(&self, fraction: f64) -> f64 {
        if fraction >= 1.0 {
            1.0
        } else {
            1.0 + SHARE_SLOWDOWN_SLOPE * (1.0 - fraction.max(0.0))
        }
    }
}
