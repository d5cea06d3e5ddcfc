//! Sia's reasons (`sim::reason`): each job's row of the round's ILP, the
//! configuration it was given and what that is worth in the objective
//! (E16's weight: the restart-discounted, row-normalised goodput to the
//! power p plus the no-allocation penalty), against its best other
//! configuration. Built after the decision from the ILP's own rows.

use super::{Config, Row};
use schedlab_model::cluster::Placement;
use schedlab_model::perf::BatchChoice;
use schedlab_sim::{field, ConfigCol, Decision, Field, Rule, Unit, Val};

const FIELDS: &[Field] = &[
    field("config", Unit::Text),
    field("value", Unit::Ratio),
    field("norm", Unit::Ratio),
    field("raw", Unit::Rate),
    field("restart", Unit::Ratio),
    field("alt", Unit::Text),
    field("alt_value", Unit::Ratio),
    field("configs", Unit::Count),
];

/// The ILP's pick, placed.
pub static CHOSEN: Rule = Rule {
    id: "sia.chosen",
    words: "{config} this round: the ILP's pick among its {configs} configurations, worth {value} in the objective (normalised goodput {norm}, {raw} progress/s, restart factor {restart}); its best other configuration, {alt}, is worth {alt_value}",
    fields: FIELDS,
    key: None,
};

/// Left out by the ILP.
pub static LEFT_OUT: Rule = Rule {
    id: "sia.left_out",
    words: "no GPU this round: the ILP gives it none of its {configs} configurations; its best, {alt}, is worth {alt_value} and the GPUs went where the objective gains more",
    fields: FIELDS,
    key: None,
};

/// Picked, but the placer could not fit it.
pub static UNPLACED: Rule = Rule {
    id: "sia.unplaced",
    words: "no GPU this round: the ILP picked {config} (worth {value}) but the placer could not fit it on the nodes (fragmentation)",
    fields: FIELDS,
    key: None,
};

/// Not in the ILP yet: being profiled.
pub static PROFILING: Rule = Rule {
    id: "sia.profiling",
    words: "waits: Sia first profiles a new job on one GPU of each type, which ends at {value}",
    fields: FIELDS,
    key: None,
};

fn label(c: &Config) -> String {
    ConfigCol {
        kind: c.kind,
        nodes: c.nodes,
        gpus: c.gpus,
    }
    .label()
}

/// Reasons for every row: `pick` is the ILP's choice per row, `plan` what
/// the placer realised.
pub(super) fn explain(
    out: &mut Decision,
    rows: &[Row],
    pick: &[Option<usize>],
    plan: &[(u32, Placement, Option<BatchChoice>)],
) {
    let placed_jobs: std::collections::BTreeSet<u32> = plan.iter().map(|(j, _, _)| *j).collect();
    for (r, pick) in rows.iter().zip(pick) {
        let placed = placed_jobs.contains(&r.job);
        // The best configuration other than the pick (or the best of all).
        let alt = (0..r.configs.len())
            .filter(|&c| Some(c) != *pick)
            .max_by(|&a, &b| r.weights[a].total_cmp(&r.weights[b]));
        let (alt_label, alt_value) = alt.map_or((String::from("none"), f64::NAN), |c| {
            (label(&r.configs[c]), r.weights[c])
        });
        let (rule, c) = match (*pick, placed) {
            (Some(c), true) => (&CHOSEN, Some(c)),
            (Some(c), false) => (&UNPLACED, Some(c)),
            (None, _) => (&LEFT_OUT, None),
        };
        let nan = f64::NAN;
        out.explain(
            r.job,
            rule,
            None,
            [
                Val::from(c.map_or(String::from("none"), |c| label(&r.configs[c]))),
                Val::from(c.map_or(nan, |c| r.weights[c])),
                Val::from(c.map_or(nan, |c| r.norm[c])),
                Val::from(c.map_or(nan, |c| r.raw[c])),
                Val::from(r.restart),
                Val::from(alt_label),
                Val::from(alt_value),
                Val::from(r.configs.len()),
            ],
        );
    }
}

/// A job still being profiled (no row in the ILP), until `until`.
pub(super) fn profiling(out: &mut Decision, job: u32, until: f64) {
    let nan = f64::NAN;
    out.explain(
        job,
        &PROFILING,
        None,
        [
            Val::from("none"),
            Val::from(until),
            Val::from(nan),
            Val::from(nan),
            Val::from(nan),
            Val::from("none"),
            Val::from(nan),
            Val::from(0u32),
        ],
    );
}
