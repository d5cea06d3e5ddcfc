//! What several policies share, kept apart from the policies themselves: the
//! admission stage (FCFS within quota), placing elastic shares and gangs through
//! the engine's packer, goodput estimates, fluid shares as time-shared parts, and
//! the throughput matrix of Sia's rigid baselines.

pub mod admission;
pub mod alloc;
pub mod common;
pub mod estimates;
pub mod explain;
pub mod fluid;
pub mod throughput_matrix;
