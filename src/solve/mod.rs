//! The LP/MILP layer: a checked model over microlp, and the allocation
//! problems policies share (multiple-choice knapsack). Every answer is
//! checked against its constraints before use; on failure the caller gets a
//! documented fallback and the reason.

pub mod mck;
pub mod model;

pub use mck::{Choice, Item, Mck, MckResult, Method};
pub use model::{Cmp, Model, ModelSolution, Sense, SolveFailure, SolveOptions, Var};
