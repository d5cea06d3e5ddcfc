//! What the walkers record for reasons (`sim::reason`): each job's turn in
//! a priority walk (its request and the GPUs still unclaimed when its turn
//! came), so a policy can say "#3 in line, needs 8 GPUs, 5 unclaimed".
//! Built only when the view asks for reasons.

use schedlab_sim::{field, Decision, Field, Rule, Unit, Val, View};
use std::collections::{BTreeMap, BTreeSet};

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
pub fn explain_turns<const N: usize>(
    out: &mut Decision,
    turns: &[Turn],
    rule_of: impl Fn(&Turn) -> &'static Rule,
    values: impl Fn(usize, &Turn) -> [f64; N],
) {
    for (rank, t) in turns.iter().enumerate() {
        out.explain_numbers(t.job, rule_of(t), Some(rank as u32), &values(rank + 1, t));
    }
}

/// The turns of a walk in `order` when the view wants reasons, else empty
/// (the walkers then skip all bookkeeping).
pub fn turns_if_wanted(view: &View) -> Option<Vec<Turn>> {
    view.want_reasons().then(Vec::new)
}

const POOL_FIELDS: &[Field] = &[
    field("pool", Unit::Text),
    field("quota", Unit::Gpus),
    field("used", Unit::Gpus),
    field("need", Unit::Gpus),
    field("place", Unit::Count),
    field("idle", Unit::Gpus),
];

/// Starts within its pool's quota.
pub static POOL_WITHIN: Rule = Rule {
    id: "pool.within_quota",
    words: "starts within its pool's quota: pool {pool} holds {used} of its {quota} GPUs with its {need}",
    fields: POOL_FIELDS,
    key: Some("place"),
};

/// Starts beyond its pool's quota, on GPUs other pools lend.
pub static POOL_BORROWS: Rule = Rule {
    id: "pool.borrows",
    words: "starts on lent GPUs: with its {need} GPUs pool {pool} holds {used}, beyond its quota of {quota}; other pools' idle quota lends the rest",
    fields: POOL_FIELDS,
    key: Some("place"),
};

/// Waits at the head of its pool's queue.
pub static POOL_HEAD: Rule = Rule {
    id: "pool.head_waits",
    words: "waits first in pool {pool}'s queue: it needs {need} GPUs, the pool holds {used} of its {quota} and {idle} GPUs are idle after this decision",
    fields: POOL_FIELDS,
    key: Some("place"),
};

/// Waits behind earlier jobs of its pool.
pub static POOL_BEHIND: Rule = Rule {
    id: "pool.behind",
    words: "waits: #{place} in pool {pool}'s queue by arrival; it needs {need} GPUs, the pool holds {used} of its {quota} and {idle} GPUs are idle after this decision",
    fields: POOL_FIELDS,
    key: Some("place"),
};

/// Keeps running (non-preemptive pools).
pub static POOL_RUNS: Rule = Rule {
    id: "pool.runs",
    words: "runs to completion (jobs here are not preempted): pool {pool} holds {used} of its {quota} GPUs",
    fields: POOL_FIELDS,
    key: None,
};

/// Pool reasons for every active job of a run with pools that the policy
/// itself did not explain: its pool's quota and usage after the decision,
/// whether a start is within quota or borrowed, and where a waiting job
/// stands in its pool's queue (arrival order).
pub fn pool_reasons(view: &View, out: &mut Decision) {
    let pools = view.pools();
    if pools.is_empty() {
        return;
    }
    let explained: BTreeSet<u32> = out.reasons.jobs().collect();
    let n = pools.len();
    // Usage after the decision, and each start's pool usage as it was made.
    let mut used: Vec<f64> = (0..n as u16).map(|p| view.pool_used(p) as f64).collect();
    let mut started: BTreeMap<u32, f64> = BTreeMap::new();
    for (job, a) in &out.changes {
        let p = view.pool_of(*job) as usize;
        if p >= n {
            continue;
        }
        let before = view.placement(*job).map_or(0.0, |pl| pl.gpu_equiv());
        let after = a.as_ref().map_or(0.0, |a| a.placement.gpu_equiv());
        used[p] += after - before;
        if before == 0.0 && after > 0.0 {
            started.insert(*job, used[p]);
        }
    }
    let held: f64 = (0..n).map(|p| used[p]).sum();
    let idle = (view.cluster().total_gpus as f64 - held).max(0.0);
    let mut place = vec![0usize; n];
    for &j in view.active().iter() {
        let p = view.pool_of(j) as usize;
        if p >= n || explained.contains(&j) {
            continue;
        }
        let pool = &pools.pools[p];
        let need = view.spec(j).gpus;
        let (rule, u): (&'static Rule, f64) = match started.get(&j) {
            Some(&u) if u <= pool.quota as f64 + 1e-9 => (&POOL_WITHIN, u),
            Some(&u) => (&POOL_BORROWS, u),
            None if view.is_running(j) => (&POOL_RUNS, used[p]),
            None => {
                place[p] += 1;
                let rule = if place[p] == 1 {
                    &POOL_HEAD
                } else {
                    &POOL_BEHIND
                };
                (rule, used[p])
            }
        };
        let rank = (!view.is_running(j) && !started.contains_key(&j)).then(|| place[p] as u32 - 1);
        out.explain(
            j,
            rule,
            rank,
            [
                Val::from(pool.name.as_str()),
                Val::from(pool.quota),
                Val::from(u),
                Val::from(need),
                Val::from(place[p]),
                Val::from(idle),
            ],
        );
    }
}
