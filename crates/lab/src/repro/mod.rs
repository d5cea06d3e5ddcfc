//! Paper reproductions: each target runs the paper's experiment on our
//! traces and prints our numbers beside the published ones
//! (`schedlab reproduce TARGET`). One module per paper.

pub mod afs;
pub mod all;
pub mod anticipatory;
pub mod claims;
pub mod copter;
pub mod pcs;
pub mod sia;
pub mod sts;
pub mod sts_targets;

/// Known reproduction targets: (name, description).
pub const TARGETS: &[(&str, &str)] = &[
    (
        "afs",
        "AFS (NSDI'21) §5.2: average / p99 JCT of every policy on the 11 Philly-like traces, reduction rates beside the paper's ranges, qualitative orderings of spec seed003 §6.8",
    ),
    (
        "anticipatory",
        "Anticipatory pool sharing (the paper's \"SIA\"): the Fig 1 example exactly, the synthetic comparison of Fig 5 over the Appendix C variants, the predictor ablations (Fig 15a), the oracle MILP on tiny traces (Fig 15b), the noisy predictors' accuracy (Tables 10 / 20) and Table 17 on a Helios-like workload, beside the paper's stated results",
    ),
    (
        "copter",
        "COpter (thesis ch. 4): Table 4.1's structure (Sia with LP*, POP-16 and COpter's continual solver: avg JCT, makespan, solver seconds per round) on the COpter cluster at a scale, on the authors' workload files when given, beside the thesis's 10k-GPU rows as ratios to LP*",
    ),
    (
        "pcs",
        "PCS (OSDI'24): the Fig. 1b toy exactly, and Fig. 7 (normalised JCT, avg and p99 prediction error of AFS, Tiresias, Themis, FIFO and the three PCS picks) on the artifact's Philly VC traces, beside the artifact's numbers",
    ),
    (
        "sia",
        "Sia (thesis ch. 3): Table 3.3 (heterogeneous: Philly-, Helios-, newTrace-like), Table 3.4 (homogeneous), finish-time fairness (Fig 3.7) and policy runtime from 64 to 2,048 GPUs (Fig 3.10), beside the thesis's numbers",
    ),
    (
        "sts",
        "STS (TCC 2024) §VII: total and energy cost of STS, EDF, RG, DP and the avg* variants by cluster size and arrival pattern (Figs 4-5), the GPU-sharing gain (Fig 6) and one scheduling call's time (Fig 7) on generated STS workloads, beside the paper's stated results",
    ),
];

pub(crate) use schedlab_run::report::text_table as table;
