//! The foundations every other layer builds on: errors that name file, line and
//! field ([`error`]), declared parameters ([`params`]), platform-stable math so native
//! and wasm agree to the bit ([`num`]), the seeded random stream and its
//! distributions ([`rng`]), bounded text input ([`textio`]), prose kept out of the
//! wasm package ([`prose`]), the shared stable sort ([`sorting`]) and Pareto
//! dominance ([`pareto`]).

pub mod error;
pub mod num;
pub mod params;
pub mod pareto;
pub mod prose;
pub mod rng;
pub mod settings;
pub mod sorting;
pub mod textio;

pub use error::{Error, Result};
