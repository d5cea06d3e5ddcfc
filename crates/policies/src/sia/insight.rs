//! Sia's round as the page shows it (`sim::insight`): the goodput matrix
//! the ILP saw (E12-normalised and raw, per job and configuration), each
//! job's restart factor (E13), and the configuration it holds after the
//! round. Built after the decision from the ILP's own rows, so it cannot
//! change what Sia decides; only called when the engine asks for it.

use super::{Config, Row};
use schedlab_model::cluster::Placement;
use schedlab_model::perf::BatchChoice;
use schedlab_sim::{ConfigCol, RoundInsight};
use std::collections::BTreeSet;

fn col(c: &Config) -> ConfigCol {
    ConfigCol {
        kind: c.kind,
        nodes: c.nodes,
        gpus: c.gpus,
    }
}

/// Columns: every configuration of the cluster (so they stay put from
/// round to round) plus any a row adds (a rigid job's own GPU count).
/// `pick` is the ILP's choice per row, `plan` what the placer realised.
pub(super) fn build(
    all: &[Config],
    rows: &[Row],
    pick: &[Option<usize>],
    plan: &[(u32, Placement, Option<BatchChoice>)],
) -> RoundInsight {
    let mut cols: Vec<ConfigCol> = all
        .iter()
        .chain(rows.iter().flat_map(|r| r.configs.iter()))
        .map(col)
        .collect();
    cols.sort_unstable();
    cols.dedup();
    let mut ins = RoundInsight::new(cols, rows.len());
    let placed: BTreeSet<u32> = plan.iter().map(|(job, _, _)| *job).collect();
    for (r, pick) in rows.iter().zip(pick) {
        let chosen = pick
            .filter(|_| placed.contains(&r.job))
            .and_then(|c| ins.col(&col(&r.configs[c])));
        let cells: Vec<(usize, f64, f64)> = r
            .configs
            .iter()
            .enumerate()
            .filter_map(|(i, c)| ins.col(&col(c)).map(|k| (k, r.norm[i], r.raw[i])))
            .collect();
        if !ins.push_row(r.job, r.restart, chosen, cells.into_iter()) {
            break;
        }
    }
    ins
}
