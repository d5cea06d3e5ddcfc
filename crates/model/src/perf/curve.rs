//! Speedup curves for jobs whose throughput depends only on the GPU count
//! (the AFS job model, PCS's sub-linear jobs, duration-only traces).

use serde::Serialize;

/// Speedup s(k) relative to one GPU; s(0) = 0, s(1) = 1.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum SpeedupCurve {
    /// s(k) = k.
    Linear,
    /// Measured or synthetic table: `s[k-1]` is the speedup at k GPUs; flat
    /// beyond the table's end (the peak-throughput point k*).
    Table { s: Vec<f64> },
}

impl SpeedupCurve {
    /// The AFS paper's synthetic BSP curve (spec seed003 §2.7):
    /// t(k) = α + (1−α)/k + β(k−1) with β = (1−α)/k*², s(k) = 1/t(k) up to k*.
    pub fn bsp(k_star: u32, alpha: f64) -> SpeedupCurve {
        let k_star = k_star.max(1);
        let beta = (1.0 - alpha) / (k_star as f64 * k_star as f64);
        let s = (1..=k_star)
            .map(|k| {
                let k = k as f64;
                1.0 / (alpha + (1.0 - alpha) / k + beta * (k - 1.0))
            })
            .collect();
        SpeedupCurve::Table { s }
    }

    /// Speedup at `k` GPUs; fractional k interpolates linearly (PCS).
    pub fn at(&self, k: f64) -> f64 {
        if k <= 0.0 {
            return 0.0;
        }
        match self {
            SpeedupCurve::Linear => k,
            SpeedupCurve::Table { s } => {
                let n = s.len() as f64;
                if k >= n {
                    return *s.last().unwrap_or(&1.0);
                }
                if k < 1.0 {
                    return k * s.first().copied().unwrap_or(1.0);
                }
                let lo = k.floor();
                let frac = k - lo;
                let a = s[lo as usize - 1];
                if frac == 0.0 {
                    return a;
                }
                let b = s[lo as usize];
                a + (b - a) * frac
            }
        }
    }

    /// `at(k as f64)` for a whole GPU count, without the interpolation
    /// (allocation loops call it once per GPU handed out).
    pub fn at_count(&self, k: u32) -> f64 {
        match self {
            _ if k == 0 => 0.0,
            SpeedupCurve::Linear => k as f64,
            SpeedupCurve::Table { s } if (k as usize) < s.len() => s[k as usize - 1],
            SpeedupCurve::Table { s } => *s.last().unwrap_or(&1.0),
        }
    }

    /// The GPU count beyond which more GPUs do not help (None = unbounded).
    pub fn peak(&self) -> Option<u32> {
        match self {
            SpeedupCurve::Linear => None,
            SpeedupCurve::Table { s } => {
                let mut best = 0;
                for (i, v) in s.iter().enumerate() {
                    if *v > s[best] {
                        best = i;
                    }
                }
                Some(best as u32 + 1)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bsp_curve_matches_the_spec_table() {
        // seed003 §2.7 table, alpha = 0.
        let vgg = SpeedupCurve::bsp(8, 0.0);
        for (k, want) in [(1, 1.00), (2, 1.94), (3, 2.74), (4, 3.37), (8, 4.27)] {
            assert!(
                (vgg.at(k as f64) - want).abs() < 0.006,
                "k={k} {}",
                vgg.at(k as f64)
            );
        }
        let chatbot = SpeedupCurve::bsp(4, 0.0);
        assert!((chatbot.at(2.0) - 1.78).abs() < 0.006);
        let incep = SpeedupCurve::bsp(52, 0.0);
        assert!((incep.at(52.0) - 26.25).abs() < 0.01);
        assert_eq!(incep.at(60.0), incep.at(52.0));
        assert_eq!(incep.peak(), Some(52));
        // s(k*) = k*^2/(2k*-1).
        assert!((SpeedupCurve::bsp(20, 0.0).at(20.0) - 400.0 / 39.0).abs() < 1e-9);
    }

    #[test]
    fn fractional_and_zero() {
        let c = SpeedupCurve::bsp(4, 0.0);
        assert_eq!(c.at(0.0), 0.0);
        let empty = SpeedupCurve::Table { s: Vec::new() };
        for curve in [&c, &SpeedupCurve::Linear, &empty] {
            for k in 0..12 {
                assert_eq!(curve.at_count(k), curve.at(k as f64));
            }
        }
        assert!((c.at(0.5) - 0.5).abs() < 1e-12);
        let mid = c.at(1.5);
        assert!(mid > 1.0 && mid < c.at(2.0));
        assert_eq!(SpeedupCurve::Linear.at(3.0), 3.0);
    }
}
