//! The thesis's published numbers (spec seed004 §6): Tables 3.3 and 3.4,
//! Fig 3.7 and Fig 3.10 at 64 GPUs.

use serde::Serialize;

/// One row of the thesis's tables (NaN where the thesis gives no number).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Published {
    pub setting: &'static str,
    pub workload: &'static str,
    pub policy: &'static str,
    pub avg_jct_h: f64,
    pub p99_jct_h: f64,
    pub makespan_h: f64,
    pub gpu_h_per_job: f64,
    pub contention_avg: f64,
    pub contention_max: f64,
    pub restarts: f64,
}

const fn row(
    setting: &'static str,
    workload: &'static str,
    policy: &'static str,
    v: [f64; 7],
) -> Published {
    Published {
        setting,
        workload,
        policy,
        avg_jct_h: v[0],
        p99_jct_h: v[1],
        makespan_h: v[2],
        gpu_h_per_job: v[3],
        contention_avg: v[4],
        contention_max: v[5],
        restarts: v[6],
    }
}

const NA: f64 = f64::NAN;

/// Thesis Table 3.3 (heterogeneous) and Table 3.4 (homogeneous; restarts
/// from its text), spec seed004 §6.2-6.3.
pub const PUBLISHED: &[Published] = &[
    row(
        "hetero",
        "philly",
        "sia",
        [0.6, 9.5, 14.2, 4.0, 6.9, 31.0, 2.9],
    ),
    row(
        "hetero",
        "philly",
        "pollux",
        [1.0, 14.9, 24.5, 5.6, 7.2, 42.0, 5.8],
    ),
    row(
        "hetero",
        "philly",
        "gavel",
        [1.9, 30.0, 33.8, 9.0, 9.9, 56.0, 5.7],
    ),
    row(
        "hetero",
        "helios",
        "sia",
        [0.7, 10.9, 14.9, 4.8, 7.4, 32.0, 3.4],
    ),
    row(
        "hetero",
        "helios",
        "pollux",
        [1.0, 15.0, 25.5, 5.9, 6.9, 47.0, 5.3],
    ),
    row(
        "hetero",
        "helios",
        "gavel",
        [2.5, 38.7, 43.0, 12.1, 9.2, 48.0, 7.5],
    ),
    row(
        "hetero",
        "newtrace",
        "sia",
        [0.7, 4.6, 52.2, 3.0, 13.0, 69.0, 5.0],
    ),
    row(
        "hetero",
        "newtrace",
        "pollux",
        [1.5, 10.3, 62.3, 3.4, 22.0, 85.0, 5.4],
    ),
    row(
        "hetero",
        "newtrace",
        "gavel",
        [11.3, 98.1, 110.0, 6.4, 96.0, 243.0, 4.5],
    ),
    row(
        "homog",
        "philly",
        "sia",
        [1.9, 18.1, 21.4, 8.4, NA, NA, 2.6],
    ),
    row(
        "homog",
        "philly",
        "pollux",
        [2.0, 19.3, 21.7, 8.6, NA, NA, 5.1],
    ),
    row(
        "homog",
        "philly",
        "shockwave",
        [3.6, 32.8, 35.0, 12.5, NA, NA, NA],
    ),
    row(
        "homog",
        "philly",
        "gavel-ftf",
        [5.4, 44.7, 49.7, 17.2, NA, NA, NA],
    ),
    row(
        "homog",
        "philly",
        "gavel",
        [4.3, 37.1, 44.3, 15.3, NA, NA, NA],
    ),
];

/// Thesis Fig 3.7 (Helios, heterogeneous): (policy, worst rho, unfair fraction).
pub const PUBLISHED_FTF: &[(&str, f64, f64)] = &[
    ("sia", 1.2, 0.003),
    ("pollux", 4.6, 0.28),
    ("gavel", 27.8, 0.15),
    ("shockwave", 3.3, 0.14),
];

/// Thesis Fig 3.10 at 64 GPUs: (policy, median ms, p95 ms) per round.
pub const PUBLISHED_RUNTIME_64: &[(&str, f64, f64)] = &[
    ("sia", 96.0, 426.0),
    ("pollux", 2200.0, 4800.0),
    ("gavel", 13.0, 28.0),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_published_row_names_a_registered_policy() {
        for p in PUBLISHED {
            schedlab_policies::info(p.policy).unwrap();
        }
    }
}
