//! Paper reproductions: each target runs the paper's experiment on our
//! traces and prints our numbers beside the published ones
//! (`schedlab reproduce TARGET`). One module per paper.

pub mod afs;

/// Known reproduction targets: (name, description).
pub const TARGETS: &[(&str, &str)] = &[(
    "afs",
    "AFS (NSDI'21) §5.2: average / p99 JCT of every policy on the 11 Philly-like traces, reduction rates beside the paper's ranges, qualitative orderings of spec seed003 §6.8",
)];
