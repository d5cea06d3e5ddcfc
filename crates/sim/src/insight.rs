//! Per-round diagnostics a policy may hand back with its decision, so the
//! page can show *why* it decided (issue 5, "Page"). Today only Sia fills
//! one: its goodput matrix (jobs x configurations, E11-E13) and the
//! configuration each job ended up with.
//!
//! Recording is opt-in and bounded: the engine asks for it
//! (`View::want_insight`) only when the timeline is recorded and insight
//! was switched on (`Simulation::set_record_insight`, which the page does),
//! and only until the run has stored [`MAX_CELLS_PER_RUN`] cells; a round
//! keeps at most [`MAX_CELLS_PER_ROUND`] cells (its first rows, in arrival
//! order; `rows_total` says how many there were). Benchmarks and CLI runs
//! never build one.

use schedlab_model::cluster::GpuKind;
use serde::Serialize;

/// Largest matrix kept for one round (rows beyond it are dropped).
pub const MAX_CELLS_PER_ROUND: usize = 20_000;
/// Cells a whole run may store (two f32 matrices: 16 MB); later rounds record none.
pub const MAX_CELLS_PER_RUN: usize = 2_000_000;

/// One column: `gpus` GPUs of `kind` on `nodes` nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct ConfigCol {
    pub kind: GpuKind,
    pub nodes: u32,
    pub gpus: u32,
}

impl ConfigCol {
    /// `4×rtx`, or `16×a100 (2n)` when the GPUs span several nodes.
    pub fn label(&self) -> String {
        if self.nodes > 1 {
            format!("{}×{} ({}n)", self.gpus, self.kind.name(), self.nodes)
        } else {
            format!("{}×{}", self.gpus, self.kind.name())
        }
    }
}

/// A policy's view of one round: a (jobs x configurations) matrix.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RoundInsight {
    /// Columns.
    pub configs: Vec<ConfigCol>,
    /// Rows: job ids (the first rows of the round, in arrival order).
    pub jobs: Vec<u32>,
    /// Rows the round had before the per-round cap.
    pub rows_total: u32,
    /// Row-major `jobs.len() x configs.len()`: the value the objective
    /// uses (Sia: E12's row-normalised goodput); NaN = not a candidate.
    pub norm: Vec<f32>,
    /// Same shape: the raw value before normalisation (Sia: estimated goodput, progress/s).
    pub raw: Vec<f32>,
    /// Per row: the discount applied to configurations other than the
    /// job's current one (Sia: E13's restart factor; 1 = none).
    pub restart: Vec<f32>,
    /// Per row: the column the job holds after this round, or -1.
    pub chosen: Vec<i32>,
}

impl RoundInsight {
    /// An empty matrix over `configs` for a round of `rows_total` rows;
    /// [`RoundInsight::row_limit`] rows fit under the cap.
    pub fn new(configs: Vec<ConfigCol>, rows_total: usize) -> RoundInsight {
        RoundInsight {
            configs,
            rows_total: rows_total as u32,
            ..Default::default()
        }
    }

    /// Rows that fit under [`MAX_CELLS_PER_ROUND`].
    pub fn row_limit(&self) -> usize {
        MAX_CELLS_PER_ROUND / self.configs.len().max(1)
    }

    /// Column of a configuration.
    pub fn col(&self, c: &ConfigCol) -> Option<usize> {
        self.configs.binary_search(c).ok()
    }

    /// Adds a row; `cells` are (column, normalised, raw). False (nothing
    /// added) once the cap is reached.
    pub fn push_row(
        &mut self,
        job: u32,
        restart: f64,
        chosen: Option<usize>,
        cells: impl Iterator<Item = (usize, f64, f64)>,
    ) -> bool {
        if self.jobs.len() >= self.row_limit() {
            return false;
        }
        let w = self.configs.len();
        let base = self.norm.len();
        self.norm.resize(base + w, f32::NAN);
        self.raw.resize(base + w, f32::NAN);
        for (c, n, r) in cells {
            if c < w {
                self.norm[base + c] = n as f32;
                self.raw[base + c] = r as f32;
            }
        }
        self.jobs.push(job);
        self.restart.push(restart as f32);
        self.chosen.push(chosen.map_or(-1, |c| c as i32));
        true
    }

    /// Cells stored.
    pub fn cells(&self) -> usize {
        self.norm.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_stop_at_the_cap_and_unset_cells_are_nan() {
        let k = GpuKind::by_name("rtx").unwrap();
        let cols: Vec<ConfigCol> = (0..100)
            .map(|g| ConfigCol {
                kind: k,
                nodes: 1,
                gpus: g + 1,
            })
            .collect();
        let mut ins = RoundInsight::new(cols, 1000);
        assert_eq!(ins.row_limit(), 200);
        assert_eq!(ins.col(&ins.configs[7].clone()), Some(7));
        let mut added = 0;
        for j in 0..1000 {
            if ins.push_row(j, 1.0, Some(3), [(3, 2.0, 5.0)].into_iter()) {
                added += 1;
            }
        }
        assert_eq!(added, 200);
        assert_eq!(ins.cells(), 20_000);
        assert_eq!(ins.rows_total, 1000);
        assert_eq!(ins.norm[3], 2.0);
        assert_eq!(ins.raw[103], 5.0);
        assert!(ins.norm[4].is_nan() && ins.raw[0].is_nan());
        assert_eq!(ins.chosen[0], 3);
        assert_eq!(ins.configs[1].label(), "2×rtx");
        let two = ConfigCol {
            kind: k,
            nodes: 2,
            gpus: 16,
        };
        assert_eq!(two.label(), "16×rtx (2n)");
    }
}
