//! Platform-stable floating-point helpers.
//!
//! `f64::powf`, `exp`, `ln` call the platform's libm natively but a Rust port
//! in wasm, so their last bits can differ. Every transcendental function the
//! simulator uses goes through the pure-Rust `libm` crate instead, which gives
//! the same bits on every target (checked by the native-vs-wasm test).

#[inline]
pub fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

#[inline]
pub fn exp(x: f64) -> f64 {
    libm::exp(x)
}

#[inline]
pub fn ln(x: f64) -> f64 {
    libm::log(x)
}

#[inline]
pub fn log2(x: f64) -> f64 {
    libm::log2(x)
}

#[inline]
pub fn log10(x: f64) -> f64 {
    libm::log10(x)
}

#[inline]
pub fn sin(x: f64) -> f64 {
    libm::sin(x)
}

#[inline]
pub fn cos(x: f64) -> f64 {
    libm::cos(x)
}

/// The standard normal distribution function.
#[inline]
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

/// ln(e^u + e^v) as max + ln(e^(u-max) + e^(v-max)), skipping the exp of
/// the larger one (exp(0) is 1 exactly, so the bits are those of the
/// symmetric form).
#[inline]
pub fn log_sum_exp(u: f64, v: f64) -> f64 {
    if u >= v {
        u + ln(1.0 + exp(v - u))
    } else {
        v + ln(exp(u - v) + 1.0)
    }
}

/// Percentile with the "nearest rank below" rule used by the Sia artifact:
/// element `floor(q * n)` of the sorted values (0-based), clamped to the last.
pub fn percentile_sorted(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let idx = ((q * sorted.len() as f64).floor() as usize).min(sorted.len() - 1);
    sorted[idx]
}

/// Mean of a slice (0 for an empty slice).
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// Relative closeness test used by the engine to absorb float noise.
#[inline]
pub fn approx_le(a: f64, b: f64) -> bool {
    a <= b + 1e-9 * b.abs().max(1.0)
}
