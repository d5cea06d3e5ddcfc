//! Max-min fair share (AFS spec seed003 §3.4): elastic, length-unaware.
//! Integer water-filling: every active job gets one GPU in arrival order
//! (when there are more jobs than GPUs the latest arrivals wait), then GPUs
//! are dealt round-robin, one at a time, to jobs below their useful maximum
//! until GPUs run out. Rigid jobs get their full request or nothing. GPUs no
//! capped job can use stay idle. Under `engine.placement=netpack` the shares
//! are regulated and placed by network packing (AFS §4.4).
//!
//! With `fluid` (the PCS artifact's fair-share scheme, "FS", spec seed001
//! §3): rigid jobs take their request in arrival order while it fits, and
//! the rest is water-filled exactly among the elastic jobs (each gets
//! min(cap, level), the level using every GPU), fractions included: whole
//! GPUs plus time-shared parts (`policy::fluid`).

use super::{claim_elastic, claim_rigid, Policy, PolicyInfo, Trigger, ROUND_PARAM_EVENTS};
use crate::helpers::alloc::{pinned_jobs, place_then, plan_shares, without, Plan, Share};
use crate::helpers::fluid::{self, FRAC_EPS};
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::settings::Settings;
use schedlab_model::cluster::PlacementRule;
use schedlab_model::workload::Adaptivity;
use schedlab_sim::{field, Decision, Field, Rule, Unit, Val, View};

schedlab_core::settings! {
    /// Max-Min's settings (`--set maxmin.KEY=VALUE`).
    pub struct MaxMinSettings {
        round_s: f64 = shared(ROUND_PARAM_EVENTS),
        fluid: bool = boolean("false", "Exact (fractional) water-filling as the PCS artifact's FS: every elastic job gets min(its useful maximum, the level), fractions as time-shared parts of GPUs; off: whole GPUs dealt one at a time (AFS's Max-Min)"),
    }
}

const PARAMS: &[ParamSpec] = <MaxMinSettings as Settings>::SPECS;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "maxmin",
    title: "Max-Min fair share",
    source: schedlab_core::prose::doc("AFS (NSDI'21) baseline Max-Min; spec seed003 §3.4"),
    description: schedlab_core::prose::doc("Elastic water-filling: equal GPU shares up to each job's useful maximum, first GPU in arrival order."),
    params: PARAMS,
    knowledge: crate::Knowledge::Declared,
    build,
};

fn build(p: &Params, _seed: u64) -> Result<Box<dyn Policy>> {
    let s = MaxMinSettings::from_params(p);
    Ok(Box::new(MaxMin {
        round_s: s.round_s,
        fluid: s.fluid,
    }))
}

#[derive(Clone)]
struct MaxMin {
    round_s: f64,
    /// Exact fractional water-filling (the PCS artifact's FS).
    fluid: bool,
}

/// Exact water-filling of `total` GPUs over jobs with useful maxima `caps`:
/// each gets min(cap, L), with the level L chosen so that every GPU is used
/// (or every job is at its cap).
pub(crate) fn fluid_fill(caps: &[u32], total: f64) -> Vec<f64> {
    let mut order: Vec<usize> = (0..caps.len()).collect();
    schedlab_core::sorting::sort_by_key(&mut order, |&i| (caps[i], i));
    let mut share = vec![0.0; caps.len()];
    let mut left = total.max(0.0);
    for (k, &i) in order.iter().enumerate() {
        let even = left / (order.len() - k) as f64;
        share[i] = (caps[i] as f64).min(even);
        left -= share[i];
    }
    share
}

/// Water-filling shares for `jobs` (arrival order) with `caps`, `total` GPUs.
/// A rigid job (cap = request, `rigid` true) takes its whole request at its turn or nothing.
pub(crate) fn water_fill(caps: &[u32], rigid: &[bool], total: u32) -> Vec<u32> {
    let mut share = vec![0u32; caps.len()];
    let mut left = total;
    loop {
        let mut gave = false;
        for i in 0..caps.len() {
            if left == 0 {
                return share;
            }
            if rigid[i] {
                if share[i] == 0 && caps[i] <= left {
                    share[i] = caps[i];
                    left -= caps[i];
                    gave = true;
                }
            } else if share[i] < caps[i] {
                share[i] += 1;
                left -= 1;
                gave = true;
            }
        }
        if !gave {
            return share;
        }
    }
}

impl MaxMin {
    /// Places the shares (largest first, they are the hardest to fit), then
    /// hands GPUs still idle to jobs left without any, in arrival order.
    /// Returns the plan and the jobs whose share could not be placed at all.
    fn place(
        &self,
        view: &View<'_>,
        jobs: &[u32],
        rigid: &[bool],
        caps: &[u32],
        pinned: &[bool],
        shares: &[u32],
    ) -> (Plan, Vec<usize>) {
        let mut packer = view.packer_replan();
        let mut plan = Vec::new();
        for i in (0..jobs.len()).filter(|&i| pinned[i]) {
            if let Some(p) = view.placement(jobs[i]) {
                if packer.claim_exact(jobs[i], p) {
                    plan.push((jobs[i], p.clone(), None));
                }
            }
        }
        let mut idx: Vec<usize> = (0..jobs.len()).filter(|&i| shares[i] > 0).collect();
        schedlab_core::sorting::sort_by_key(&mut idx, |&i| (std::cmp::Reverse(shares[i]), jobs[i]));
        let mut failed = Vec::new();
        let mut placed = vec![false; jobs.len()];
        for i in idx {
            let j = jobs[i];
            let got = if rigid[i] {
                claim_rigid(&mut packer, view, j)
            } else {
                claim_elastic(&mut packer, view, j, shares[i])
            };
            match got {
                Some(p) => {
                    placed[i] = true;
                    plan.push((j, p, None));
                }
                None => {
                    packer.release(j);
                    failed.push(i);
                }
            }
        }
        if failed.is_empty() {
            for i in 0..jobs.len() {
                if placed[i] || pinned[i] || packer.free_total() == 0 {
                    continue;
                }
                let j = jobs[i];
                let got = if rigid[i] {
                    claim_rigid(&mut packer, view, j)
                } else {
                    claim_elastic(&mut packer, view, j, caps[i])
                };
                if let Some(p) = got {
                    plan.push((j, p, None));
                }
            }
        }
        (plan, failed)
    }
}

impl MaxMin {
    /// The fluid variant: rigid requests in arrival order while they fit,
    /// exact water-filling of the rest over the elastic jobs, whole GPUs
    /// for the integer parts and time-shared parts for the fractions.
    fn schedule_fluid(&self, view: &View<'_>, out: &mut Decision) {
        let (pins, free) = pinned_jobs(view);
        let total = free as f64;
        let candidates: Vec<u32> = view
            .active()
            .iter()
            .copied()
            .filter(|j| !pins.contains(j))
            .collect();
        let compute = |excluded: &std::collections::BTreeSet<u32>| {
            let live = without(&candidates, excluded);
            let mut left = total;
            let mut shares = Vec::with_capacity(live.len());
            let mut elastic = Vec::with_capacity(live.len());
            for &j in &live {
                if view.spec(j).adaptivity != Adaptivity::Rigid {
                    elastic.push(j);
                    continue;
                }
                let r = view.spec(j).gpus.max(1);
                if r as f64 <= left + FRAC_EPS {
                    left -= r as f64;
                    shares.push(Share {
                        job: j,
                        count: r,
                        min: r,
                        cap: r,
                    });
                }
            }
            let caps: Vec<u32> = elastic.iter().map(|&j| view.max_useful_gpus(j)).collect();
            let mut fractions = Vec::with_capacity(elastic.len());
            for ((&j, &cap), a) in elastic.iter().zip(&caps).zip(fluid_fill(&caps, left)) {
                let (share, fraction) = fluid::split(j, a, cap);
                shares.push(share);
                fractions.extend(fraction);
            }
            (shares, fractions)
        };
        place_then(view, out, &pins, compute, |plan, fractions| {
            fluid::add_parts(view, plan, &fractions)
        });
    }
}

impl Policy for MaxMin {
    fn name(&self) -> &str {
        "maxmin"
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(self.round_s)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        if self.fluid {
            self.schedule_fluid(view, out);
            return;
        }
        let jobs: Vec<u32> = view.active().iter().copied().collect();
        let rigid: Vec<bool> = jobs
            .iter()
            .map(|&j| view.spec(j).adaptivity == Adaptivity::Rigid)
            .collect();
        let caps: Vec<u32> = jobs
            .iter()
            .zip(&rigid)
            .map(|(&j, &r)| {
                if r {
                    view.spec(j).gpus
                } else {
                    view.max_useful_gpus(j)
                }
            })
            .collect();
        // Non-preemptible running jobs keep their GPUs and are out of the game.
        let pinned: Vec<bool> = jobs.iter().map(|&j| view.pinned(j)).collect();
        let pinned_gpus: u32 = jobs
            .iter()
            .zip(&pinned)
            .filter(|(_, p)| **p)
            .map(|(&j, _)| view.gpus_of(j))
            .sum();
        // Water-fill, place, and water-fill again without jobs that cannot be
        // placed at all (e.g. a rigid request larger than any free type).
        let mut excluded = pinned.clone();
        let (plan, shares) = loop {
            let live: Vec<usize> = (0..jobs.len()).filter(|&i| !excluded[i]).collect();
            let shares_live = water_fill(
                &live.iter().map(|&i| caps[i]).collect::<Vec<_>>(),
                &live.iter().map(|&i| rigid[i]).collect::<Vec<_>>(),
                view.cluster().total_gpus - pinned_gpus,
            );
            let mut shares = vec![0u32; jobs.len()];
            for (k, &i) in live.iter().enumerate() {
                shares[i] = shares_live[k];
            }
            let (plan, failed) = if view.placement_rule() == PlacementRule::NetPack {
                // Network packing regulates and places the shares (AFS §4.4).
                let list: Vec<Share> = (0..jobs.len())
                    .filter(|&i| shares[i] > 0 && !pinned[i])
                    .map(|i| Share {
                        job: jobs[i],
                        count: shares[i],
                        min: if rigid[i] { shares[i] } else { 1 },
                        cap: caps[i],
                    })
                    .collect();
                let pins: Vec<u32> = (0..jobs.len())
                    .filter(|&i| pinned[i])
                    .map(|i| jobs[i])
                    .collect();
                let (plan, failed) = plan_shares(view, &pins, &list);
                let failed: Vec<usize> = failed
                    .iter()
                    .filter_map(|j| jobs.iter().position(|x| x == j))
                    .collect();
                (plan, failed)
            } else {
                self.place(view, &jobs, &rigid, &caps, &pinned, &shares)
            };
            if failed.is_empty() {
                break (plan, shares);
            }
            for i in failed {
                excluded[i] = true;
            }
        };
        if view.want_reasons() {
            let total = view.cluster().total_gpus - pinned_gpus;
            let live: Vec<usize> = (0..jobs.len()).filter(|&i| !pinned[i]).collect();
            explain_shares(out, &live, &jobs, &rigid, &caps, &shares, total);
        }
        out.apply_plan(view, plan);
    }
}

const FIELDS: &[Field] = &[
    field("share", Unit::Gpus),
    field("cap", Unit::Gpus),
    field("level", Unit::Gpus),
    field("jobs", Unit::Count),
    field("total", Unit::Gpus),
    field("place", Unit::Count),
];

/// An elastic job's water-filled share below its useful maximum.
pub static SHARE: Rule = Rule {
    id: "maxmin.share",
    words: "max-min share of {share} GPUs: {total} GPUs dealt one at a time over {jobs} jobs up to each one's useful maximum (its own: {cap}); the largest share is {level}",
    fields: FIELDS,
    key: None,
};

/// An elastic job at its useful maximum.
pub static CAPPED: Rule = Rule {
    id: "maxmin.capped",
    words: "holds its useful maximum of {cap} GPUs: the water level ({level} GPUs, {total} over {jobs} jobs) is above it",
    fields: FIELDS,
    key: None,
};

/// A rigid job: its request at its turn, or nothing.
pub static RIGID: Rule = Rule {
    id: "maxmin.rigid",
    words: "rigid: its request of {cap} GPUs whole at its turn (#{place} in arrival order) or nothing; it holds {share}",
    fields: FIELDS,
    key: Some("place"),
};

/// No GPU: more jobs than GPUs, the first GPU goes in arrival order.
pub static WAITS: Rule = Rule {
    id: "maxmin.waits",
    words: "waits: {jobs} jobs for {total} GPUs, and the first GPU of each goes in arrival order; it is #{place}",
    fields: FIELDS,
    key: Some("place"),
};

/// Reasons for the water-filled shares of the `live` jobs.
fn explain_shares(
    out: &mut Decision,
    live: &[usize],
    jobs: &[u32],
    rigid: &[bool],
    caps: &[u32],
    shares: &[u32],
    total: u32,
) {
    let level = live.iter().map(|&i| shares[i]).max().unwrap_or(0);
    for (place, &i) in live.iter().enumerate() {
        let rule = if rigid[i] {
            &RIGID
        } else if shares[i] == 0 {
            &WAITS
        } else if shares[i] >= caps[i] {
            &CAPPED
        } else {
            &SHARE
        };
        out.explain(
            jobs[i],
            rule,
            Some(place as u32),
            [
                Val::from(shares[i]),
                Val::from(caps[i]),
                Val::from(level),
                Val::from(live.len()),
                Val::from(total),
                Val::from(place + 1),
            ],
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{fluid_fill, water_fill};

    #[test]
    fn fluid_filling_uses_every_gpu_up_to_the_caps() {
        assert_eq!(fluid_fill(&[8, 8], 5.0), vec![2.5, 2.5]);
        assert_eq!(fluid_fill(&[1, 8, 8], 6.0), vec![1.0, 2.5, 2.5]);
        assert_eq!(fluid_fill(&[1, 1], 6.0), vec![1.0, 1.0]);
        let s = fluid_fill(&[3, 3, 3], 2.0);
        assert!(s.iter().all(|x| (x - 2.0 / 3.0).abs() < 1e-12), "{s:?}");
    }

    #[test]
    fn water_filling() {
        assert_eq!(water_fill(&[8, 8], &[false, false], 6), vec![3, 3]);
        assert_eq!(
            water_fill(&[1, 8, 8], &[false, false, false], 6),
            vec![1, 3, 2]
        );
        assert_eq!(
            water_fill(&[2, 2, 2], &[false, false, false], 2),
            vec![1, 1, 0]
        );
        assert_eq!(water_fill(&[4, 8], &[true, false], 6), vec![4, 2]);
        assert_eq!(water_fill(&[1, 1], &[false, false], 6), vec![1, 1]);
    }
}
