//! Paper reproductions: each target runs the paper's experiment on our
//! traces and prints our numbers beside the published ones
//! (`schedlab reproduce TARGET`). One module per paper.

pub mod afs;
pub mod sia;

/// Known reproduction targets: (name, description).
pub const TARGETS: &[(&str, &str)] = &[
    (
        "afs",
        "AFS (NSDI'21) §5.2: average / p99 JCT of every policy on the 11 Philly-like traces, reduction rates beside the paper's ranges, qualitative orderings of spec seed003 §6.8",
    ),
    (
        "sia",
        "Sia (thesis ch. 3): Table 3.3 (heterogeneous: Philly-, Helios-, newTrace-like), Table 3.4 (homogeneous), finish-time fairness (Fig 3.7) and policy runtime from 64 to 2,048 GPUs (Fig 3.10), beside the thesis's numbers",
    ),
];

/// Right-aligned text table (first column left-aligned) with a rule under the header.
pub(crate) fn table(rows: &[Vec<String>]) -> String {
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|c| {
            rows.iter()
                .map(|r| r.get(c).map_or(0, |v| v.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, v)| {
                if c == 0 {
                    format!("{v:<w$}", w = widths[c])
                } else {
                    format!("{v:>w$}", w = widths[c])
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
        if i == 0 {
            out.push_str(&"-".repeat(widths.iter().sum::<usize>() + 2 * (widths.len() - 1)));
            out.push('\n');
        }
    }
    out
}
