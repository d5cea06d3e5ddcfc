//! Optimus adapted to GPUs (Peng et al., EuroSys'18; the AFS baseline of
//! NSDI'21 §5.1, spec seed003 §3.5). Optimus' greedy allocator gives each
//! unit of resource to the job whose estimated remaining time falls most.
//! GPU-only version with exact remaining times (the AFS paper gives Optimus
//! true lengths): every active job first gets one GPU (arrival order when
//! jobs outnumber GPUs), then each further GPU goes to the job with the
//! largest rem·(1/p(r) − 1/p(r+1)), skipping jobs at their peak. The gain
//! is absolute time saved, so long scalable jobs are favoured; Optimus has
//! no mechanism that prefers short jobs.

use super::{Policy, PolicyInfo, Trigger, ROUND_PARAM_EVENTS};
use crate::helpers::alloc::{
    first_grant, is_rigid, pinned_jobs, place_with_retry, share_cap, Share,
};
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::settings::Settings;
use schedlab_sim::{field, Decision, Field, Rule, Unit, Val, View};
use std::collections::BinaryHeap;

schedlab_core::settings! {
    /// Optimus's settings (`--set optimus.KEY=VALUE`).
    pub struct OptimusSettings {
        round_s: f64 = shared(ROUND_PARAM_EVENTS),
    }
}

const PARAMS: &[ParamSpec] = <OptimusSettings as Settings>::SPECS;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "optimus",
    title: "Optimus",
    source: schedlab_core::prose::doc("Optimus (EuroSys'18) greedy marginal-gain allocation, GPU-only; AFS (NSDI'21) baseline, spec seed003 §3.5"),
    description: schedlab_core::prose::doc("One GPU per job (arrival order), then each GPU to the job whose remaining time drops most; elastic, given true lengths."),
    params: PARAMS,
    knowledge: crate::Knowledge::Oracle,
    build,
};

fn build(p: &Params, _seed: u64) -> Result<Box<dyn Policy>> {
    let s = OptimusSettings::from_params(p);
    Ok(Box::new(Optimus { round_s: s.round_s }))
}

#[derive(Clone)]
struct Optimus {
    round_s: f64,
}

/// Heap entry: time saved by one more GPU; ties to the earlier job.
#[derive(PartialEq)]
struct Saved(f64, u32, usize);
impl Eq for Saved {}
impl PartialOrd for Saved {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Saved {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(other.1.cmp(&self.1))
    }
}

/// Seconds of remaining time one more GPU saves at `r` GPUs (Optimus' marginal gain).
fn time_saved(view: &View, j: u32, r: u32) -> f64 {
    let rem = view.known_remaining_work(j);
    let (a, b) = (view.rate(j, r), view.rate(j, r + 1));
    if a > 0.0 && b > a {
        rem * (1.0 / a - 1.0 / b)
    } else {
        0.0
    }
}

const FIELDS: &[Field] = &[
    field("gpus", Unit::Gpus),
    field("saved_last", Unit::Seconds),
    field("saved_next", Unit::Seconds),
    field("cutoff", Unit::Seconds),
    field("cap", Unit::Gpus),
    field("place", Unit::Count),
];

/// Grew past its first grant: its last GPU saved the most time at its turn.
pub static GREW: Rule = Rule {
    id: "optimus.grew",
    words: "holds {gpus} GPUs: each further GPU goes to the job whose remaining time it cuts most; its last one saved {saved_last}, one more would save {saved_next} (the smallest saving that won a GPU: {cutoff}; its cap {cap})",
    fields: FIELDS,
    key: None,
};

/// Its first grant only.
pub static FIRST: Rule = Rule {
    id: "optimus.first",
    words: "holds its first grant of {gpus} GPUs (in arrival order, #{place}); one more would save {saved_next}, less than what the other jobs' next GPUs saved (smallest winner {cutoff}; its cap {cap})",
    fields: FIELDS,
    key: None,
};

/// No GPU: the first grants went in arrival order and ran out.
pub static WAITS: Rule = Rule {
    id: "optimus.waits",
    words:
        "waits: first grants go in arrival order and the GPUs ran out before its turn (#{place})",
    fields: FIELDS,
    key: Some("place"),
};

/// Reasons for the final shares `(job, GPUs)` in arrival order.
fn explain(view: &View, out: &mut Decision, shares: &[(u32, u32)], _free: u32) {
    let grew = |&(j, c): &(u32, u32)| c > first_grant(view, j);
    let cutoff = shares
        .iter()
        .filter(|s| grew(s))
        .map(|&(j, c)| time_saved(view, j, c - 1))
        .fold(f64::INFINITY, f64::min);
    for (place, s) in shares.iter().enumerate() {
        let (j, c) = *s;
        let rule = if c == 0 {
            &WAITS
        } else if grew(s) {
            &GREW
        } else {
            &FIRST
        };
        let cap = share_cap(view, j);
        out.explain(
            j,
            rule,
            Some(place as u32),
            [
                Val::from(c),
                Val::from(if grew(s) {
                    time_saved(view, j, c - 1)
                } else {
                    f64::NAN
                }),
                Val::from(if c > 0 && c < cap {
                    time_saved(view, j, c)
                } else {
                    f64::NAN
                }),
                Val::from(cutoff),
                Val::from(cap),
                Val::from(place + 1),
            ],
        );
    }
}

/// Optimus shares for `jobs` (arrival order) on `total` GPUs.
fn shares(view: &View, jobs: &[u32], total: u32) -> Vec<Share> {
    let mut cnt = vec![0u32; jobs.len()];
    let mut left = total;
    for (i, &j) in jobs.iter().enumerate() {
        let min = first_grant(view, j);
        if min <= left {
            cnt[i] = min;
            left -= min;
        }
    }
    let saved = |j: u32, r: u32| {
        let rem = view.known_remaining_work(j);
        let (a, b) = (view.rate(j, r), view.rate(j, r + 1));
        if a > 0.0 && b > a {
            rem * (1.0 / a - 1.0 / b)
        } else {
            0.0
        }
    };
    let mut heap = BinaryHeap::new();
    for (i, &j) in jobs.iter().enumerate() {
        if cnt[i] > 0 && !is_rigid(view, j) && cnt[i] < share_cap(view, j) {
            heap.push(Saved(saved(j, cnt[i]), j, i));
        }
    }
    while left > 0 {
        let Some(Saved(g, j, i)) = heap.pop() else {
            break;
        };
        if g <= 0.0 {
            break;
        }
        cnt[i] += 1;
        left -= 1;
        if cnt[i] < share_cap(view, j) {
            heap.push(Saved(saved(j, cnt[i]), j, i));
        }
    }
    jobs.iter()
        .zip(cnt)
        .filter(|(_, c)| *c > 0)
        .map(|(&j, c)| Share {
            job: j,
            count: c,
            min: first_grant(view, j),
            cap: share_cap(view, j),
        })
        .collect()
}

impl Policy for Optimus {
    fn name(&self) -> &str {
        "optimus"
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(self.round_s)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let (pins, free) = pinned_jobs(view);
        let jobs: Vec<u32> = view
            .active()
            .iter()
            .copied()
            .filter(|j| !pins.contains(j))
            .collect();
        let mut last = Vec::new();
        place_with_retry(view, out, &pins, |excluded| {
            let live: Vec<u32> = jobs
                .iter()
                .copied()
                .filter(|j| !excluded.contains(j))
                .collect();
            let s = shares(view, &live, free);
            if view.want_reasons() {
                let got: std::collections::BTreeMap<u32, u32> =
                    s.iter().map(|x| (x.job, x.count)).collect();
                last = live
                    .iter()
                    .map(|&j| (j, got.get(&j).copied().unwrap_or(0)))
                    .collect();
            }
            s
        });
        if view.want_reasons() {
            explain(view, out, &last, free);
        }
    }
}
