//! What the walkers record for reasons (`sim::reason`): each job's turn in
//! a priority walk (its request and the GPUs still unclaimed when its turn
//! came), so a policy can say "#3 in line, needs 8 GPUs, 5 unclaimed".
//! Built only when the view asks for reasons.

use schedlab_sim::{Decision, Rule, Val, View};

/// One job's turn in a gang walk.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Turn {
    pub job: u32,
    /// GPUs it asked for.
    pub need: u32,
    /// GPUs unclaimed when its turn came.
    pub free: u32,
    /// It got its GPUs.
    pub placed: bool,
}

/// Explains every turn of a walk in order: rank = position in the walk,
/// `rule_of(turn)` picks the rule (runs or waits), `values(place, turn)`
/// its values (`place` = rank + 1, as the words say "#1").
pub fn explain_turns(
    out: &mut Decision,
    turns: &[Turn],
    rule_of: impl Fn(&Turn) -> &'static Rule,
    values: impl Fn(usize, &Turn) -> Vec<Val>,
) {
    for (rank, t) in turns.iter().enumerate() {
        out.explain(t.job, rule_of(t), Some(rank as u32), values(rank + 1, t));
    }
}

/// The turns of a walk in `order` when the view wants reasons, else empty
/// (the walkers then skip all bookkeeping).
pub fn turns_if_wanted(view: &View) -> Option<Vec<Turn>> {
    view.want_reasons().then(Vec::new)
}
