//! The LP/MILP layer: a checked model over microlp, and the allocation
//! problems policies share (multiple-choice knapsack). Every answer is
//! checked against its constraints before use; on failure the caller gets a
//! documented fallback and the reason.

pub mod continual;
pub mod mck;
mod mck_dp;
mod mck_exact;
pub mod model;
pub mod pop;

pub use continual::{ContinualMck, ContinualStats, PpaSettings};
pub use mck::{Choice, Item, Mck, MckResult, Method};
pub use model::{Cmp, Model, ModelSolution, Sense, SolveFailure, SolveOptions, Var};
pub use pop::{solve_pop, PopResult};
