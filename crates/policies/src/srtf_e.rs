//! SRTF-E and SRSF-E (AFS, NSDI'21 §5.5 / Fig 11; spec seed003 §3.7): the
//! "altruistic" elastic variants of SRTF and SRSF. The primary goal is
//! unchanged (walk the jobs by remaining time, or remaining service, and
//! give each its request if it fits, skipping those that do not); the GPUs
//! left over then go to the scheduled jobs "to achieve the largest
//! throughput". The paper does not say how; `leftover=priority` (default)
//! raises the scheduled jobs toward their peak-throughput GPU count in
//! priority order, `leftover=marginal` gives each spare GPU to the job whose
//! speedup s(r+1) − s(r) is largest.

use super::{Policy, PolicyInfo, Trigger, ROUND_PARAM_EVENTS};
use crate::helpers::alloc::{pinned_jobs, plan_shares, share_cap, Share};
use crate::helpers::common::gang_plan_turns;
use crate::helpers::explain::turns_if_wanted;
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::settings::Settings;
use schedlab_model::workload::Adaptivity;
use schedlab_sim::{Decision, View};
use std::collections::BinaryHeap;

schedlab_core::settings! {
    /// SRTF-E's and SRSF-E's settings (`--set srtf-e.KEY=VALUE`, `--set srsf-e.KEY=VALUE`).
    pub struct SrtfESettings {
        leftover: Leftover = choice("priority", "Who gets the GPUs left after every scheduled job has its request: raise jobs toward their peak in priority order, or largest marginal speedup first"),
        round_s: f64 = shared(ROUND_PARAM_EVENTS),
    }
}

const PARAMS: &[ParamSpec] = <SrtfESettings as Settings>::SPECS;

pub const SRTF_E_INFO: PolicyInfo = PolicyInfo {
    name: "srtf-e",
    title: "SRTF-E",
    source: schedlab_core::prose::doc("AFS (NSDI'21) §5.5 altruistic SRTF; spec seed003 §3.7"),
    description: schedlab_core::prose::doc("SRTF, then the leftover GPUs go to the scheduled elastic jobs (up to their peak GPU count)."),
    params: PARAMS,
    knowledge: crate::Knowledge::Oracle,
    build: build_srtf,
};

pub const SRSF_E_INFO: PolicyInfo = PolicyInfo {
    name: "srsf-e",
    title: "SRSF-E",
    source: schedlab_core::prose::doc("AFS (NSDI'21) §5.5 altruistic SRSF; spec seed003 §3.7"),
    description: schedlab_core::prose::doc("SRSF, then the leftover GPUs go to the scheduled elastic jobs (up to their peak GPU count)."),
    params: PARAMS,
    knowledge: crate::Knowledge::Oracle,
    build: build_srsf,
};

schedlab_core::choice! {
    /// `leftover`: who gets the GPUs left after every scheduled job has its request.
    pub enum Leftover {
        /// Jobs are raised toward their peak in priority order.
        Priority = "priority",
        /// Largest marginal speedup first.
        Marginal = "marginal",
    }
}

fn build_srtf(p: &Params, _seed: u64) -> Result<Box<dyn Policy>> {
    Ok(Box::new(SrtfE::new(p, false)))
}

fn build_srsf(p: &Params, _seed: u64) -> Result<Box<dyn Policy>> {
    Ok(Box::new(SrtfE::new(p, true)))
}

#[derive(Clone)]
struct SrtfE {
    by_service: bool,
    marginal: bool,
    round_s: f64,
}

impl SrtfE {
    fn new(p: &Params, by_service: bool) -> SrtfE {
        let s = SrtfESettings::from_params(p);
        SrtfE {
            by_service,
            marginal: match s.leftover {
                Leftover::Priority => false,
                Leftover::Marginal => true,
            },
            round_s: s.round_s,
        }
    }
}

/// A max-heap entry: (gain, job) with ties to the smaller job id.
#[derive(PartialEq)]
struct Gain(f64, u32);
impl Eq for Gain {}
impl PartialOrd for Gain {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Gain {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(other.1.cmp(&self.1))
    }
}

impl Policy for SrtfE {
    fn name(&self) -> &str {
        if self.by_service {
            "srsf-e"
        } else {
            "srtf-e"
        }
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(self.round_s)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let mut ranked: Vec<(f64, u32)> = view
            .active()
            .iter()
            .map(|&j| {
                let req = view.spec(j).gpus;
                let t = view.known_remaining_time(j, req);
                (if self.by_service { t * req as f64 } else { t }, j)
            })
            .collect();
        schedlab_core::sorting::sort_by(&mut ranked, |a, b| {
            a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
        });
        let keys: Option<Vec<(u32, f64)>> = view
            .want_reasons()
            .then(|| ranked.iter().map(|(k, j)| (*j, *k)).collect());
        let order: Vec<u32> = ranked.into_iter().map(|(_, j)| j).collect();
        // Primary goal: plain SRTF / SRSF.
        let mut turns = turns_if_wanted(view);
        let (gang, placed) =
            gang_plan_turns(view, &order, false, &|j| view.spec(j).gpus, turns.as_mut());
        if let (Some(turns), Some(keys)) = (turns, keys) {
            crate::srtf::explain(out, &turns, &keys, self.by_service);
        }
        let (pins, _) = pinned_jobs(view);
        let mut count: Vec<(u32, u32)> = placed
            .iter()
            .filter(|j| !pins.contains(j))
            .map(|&j| (j, view.spec(j).gpus))
            .collect();
        let used: u32 = gang.iter().map(|(_, p, _)| p.gpus()).sum();
        let mut left = view.cluster().total_gpus.saturating_sub(used);
        let elastic = |j: u32| view.spec(j).adaptivity != Adaptivity::Rigid;
        if self.marginal {
            let speedup = |j: u32, k: u32| view.rate(j, k) / view.rate(j, 1).max(f64::MIN_POSITIVE);
            let mut heap = BinaryHeap::new();
            for (i, &(j, c)) in count.iter().enumerate() {
                if elastic(j) && c < share_cap(view, j) {
                    heap.push((Gain(speedup(j, c + 1) - speedup(j, c), j), i));
                }
            }
            while left > 0 {
                let Some((Gain(g, j), i)) = heap.pop() else {
                    break;
                };
                if g <= 0.0 {
                    break;
                }
                count[i].1 += 1;
                left -= 1;
                let c = count[i].1;
                if c < share_cap(view, j) {
                    heap.push((Gain(speedup(j, c + 1) - speedup(j, c), j), i));
                }
            }
        } else {
            for (j, c) in count.iter_mut() {
                if left == 0 {
                    break;
                }
                if elastic(*j) {
                    let extra = share_cap(view, *j).saturating_sub(*c).min(left);
                    *c += extra;
                    left -= extra;
                }
            }
        }
        let shares: Vec<Share> = count
            .iter()
            .map(|&(j, c)| Share {
                job: j,
                count: c,
                min: view.spec(j).gpus,
                cap: c,
            })
            .collect();
        let (mut plan, failed) = plan_shares(view, &pins, &shares);
        if !failed.is_empty() {
            // The expanded shares do not fit (fragmentation): keep the plain plan.
            out.apply_plan(view, gang);
            return;
        }
        // The new packing may leave room for a job the plain walk could not
        // place: the primary goal comes first, so place it.
        if view.placement_rule() != schedlab_model::cluster::PlacementRule::NetPack {
            let mut packer = schedlab_model::cluster::Packer::idle_only(
                view.cluster(),
                view.placement_rule(),
                plan.iter().map(|(_, p, _)| p),
            );
            for &j in &order {
                if plan.iter().any(|(x, _, _)| *x == j) || packer.free_total() == 0 {
                    continue;
                }
                if let Some(p) = super::claim_count(&mut packer, view, j, view.spec(j).gpus) {
                    plan.push((j, p, None));
                }
            }
        }
        out.apply_plan(view, plan);
    }
}
