//! Placing elastic GPU shares: elastic policies first decide how many GPUs
//! each job gets (a count-based plan, as the AFS paper's simulator assumes),
//! then this module turns the counts into placements through the engine's
//! [`Packer`](schedlab_model::cluster::Packer), largest share first (the hardest to
//! fit). A share that cannot be placed under the placement rule shrinks
//! down to the job's minimum; a job that cannot get even its minimum is
//! reported so that the policy can recompute its shares without it.
//!
//! Under the `netpack` placement rule (AFS §4.4, spec seed003 §2.10) the
//! shares are first regulated to {0, 2^l < node size, multiples of the node
//! size} and placed by [`schedlab_model::cluster::netpack`], which keeps jobs on the
//! GPUs they had where it can (migration only as a last resort).

use super::common::kinds_for;
use schedlab_model::cluster::{netpack, GpuKind, Packer, Placement, PlacementRule};
use schedlab_model::perf::BatchChoice;
use schedlab_model::workload::Adaptivity;
use schedlab_sim::{Decision, View};
use std::collections::BTreeSet;

/// One job's planned share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Share {
    pub job: u32,
    /// GPUs the policy wants the job to have (0 = none).
    pub count: u32,
    /// Fewest GPUs the job accepts (its request for rigid jobs, else 1).
    pub min: u32,
    /// Most GPUs the job can use (network packing may round a share up to it).
    pub cap: u32,
}

/// Is the job rigid (its request or nothing)?
pub fn is_rigid(view: &View, job: u32) -> bool {
    view.spec(job).adaptivity == Adaptivity::Rigid
}

/// GPUs of a job's first grant: its request if rigid, else one.
pub fn first_grant(view: &View, job: u32) -> u32 {
    if is_rigid(view, job) {
        view.spec(job).gpus.max(1)
    } else {
        1
    }
}

/// Most GPUs a policy may give a job: the request if rigid, else the
/// useful maximum the scheduler believes in (k*, see `View::est_cap`).
pub fn share_cap(view: &View, job: u32) -> u32 {
    if is_rigid(view, job) {
        view.spec(job).gpus.max(1)
    } else {
        view.est_cap(job)
    }
}

/// The jobs whose GPUs a policy may not touch (`View::pinned`), and
/// the GPUs left for everyone else.
pub fn pinned_jobs(view: &View) -> (Vec<u32>, u32) {
    let pinned: Vec<u32> = view
        .running()
        .iter()
        .copied()
        .filter(|&j| view.pinned(j))
        .collect();
    let held: u32 = pinned.iter().map(|&j| view.gpus_of(j)).sum();
    (pinned, view.cluster().total_gpus.saturating_sub(held))
}

/// Claims between `min` and `count` GPUs (as many as fit) of one type.
pub fn claim_between(
    packer: &mut Packer,
    view: &View,
    job: u32,
    min: u32,
    count: u32,
) -> Option<Placement> {
    let sorted;
    let kinds: &[GpuKind] = if let [_] = view.cluster().kinds[..] {
        // One GPU type (every job's only choice): no list to build.
        &view.cluster().kinds
    } else {
        let cur = view.placement(job).map(|p| p.kind);
        let mut kinds = kinds_for(view, job);
        schedlab_core::sorting::sort_by_key(&mut kinds, |k| {
            (std::cmp::Reverse(packer.free_of(*k)), Some(*k) != cur)
        });
        sorted = kinds;
        &sorted
    };
    for c in (min.max(1)..=count).rev() {
        for k in kinds {
            if packer.free_of(*k) >= c {
                if let Some(p) = packer.claim(job, *k, c) {
                    return Some(p);
                }
            }
        }
    }
    None
}

/// A complete plan (pinned jobs included) and the jobs that could not be placed.
pub type Plan = Vec<(u32, Placement, Option<BatchChoice>)>;

/// Places `shares` (plus the pinned jobs, unchanged).
pub fn plan_shares(view: &View, pinned: &[u32], shares: &[Share]) -> (Plan, Vec<u32>) {
    if view.placement_rule() == PlacementRule::NetPack {
        if let Some(r) = netpack_plan(view, pinned, shares) {
            return r;
        }
    }
    let attempt = |by_min: bool| {
        let mut packer = view.packer_replan();
        let mut plan = Vec::new();
        for &j in pinned {
            if let Some(p) = view.placement(j) {
                if packer.claim_exact(j, p) {
                    plan.push((j, p.clone(), None));
                }
            }
        }
        let mut order: Vec<&Share> = shares.iter().filter(|s| s.count > 0).collect();
        if by_min {
            schedlab_core::sorting::sort_by_key(&mut order, |s| {
                (std::cmp::Reverse(s.min), std::cmp::Reverse(s.count), s.job)
            });
        } else {
            schedlab_core::sorting::sort_by_key(&mut order, |s| {
                (std::cmp::Reverse(s.count), s.job)
            });
        }
        let mut failed = Vec::new();
        for s in order {
            match claim_between(&mut packer, view, s.job, s.min, s.count) {
                Some(p) => plan.push((s.job, p, None)),
                None => {
                    packer.release(s.job);
                    failed.push(s.job);
                }
            }
        }
        (plan, failed)
    };
    // Largest share first packs best; if that strands a job, place the
    // largest minimums (rigid requests) first and let elastic shares shrink
    // into what is left.
    let first = attempt(false);
    if first.1.is_empty() {
        return first;
    }
    let second = attempt(true);
    if second.1.len() < first.1.len() {
        second
    } else {
        first
    }
}

/// Computes shares, places them, and recomputes without the jobs that could
/// not be placed (fragmentation under the `packed` rule) a few times.
pub fn place_with_retry(
    view: &View,
    out: &mut Decision,
    pinned: &[u32],
    mut compute: impl FnMut(&BTreeSet<u32>) -> Vec<Share>,
) {
    place_then(view, out, pinned, |ex| (compute(ex), ()), |_, _| {});
}

/// [`place_with_retry`] whose `compute` also returns what `finish` adds to
/// the placed plan before the backfill (e.g. fluid shares' time-shared
/// parts, `policy::fluid`).
pub fn place_then<T>(
    view: &View,
    out: &mut Decision,
    pinned: &[u32],
    mut compute: impl FnMut(&BTreeSet<u32>) -> (Vec<Share>, T),
    finish: impl FnOnce(&mut Plan, T),
) {
    let mut excluded = BTreeSet::new();
    for round in 0..6 {
        let (shares, extra) = compute(&excluded);
        let (mut plan, failed) = plan_shares(view, pinned, &shares);
        if failed.is_empty() || round == 5 {
            finish(&mut plan, extra);
            backfill(view, &mut plan);
            out.apply_plan(view, plan);
            return;
        }
        excluded.extend(failed);
    }
}

/// True when placing `shares` ([`place_with_retry`]) would change nothing:
/// each job's share is the whole GPUs it holds now (the packer keeps a
/// job's GPUs when its count and type stay), no running job is left out,
/// and no idle GPU is left for the backfill to hand out. A policy can then
/// skip the placement. Only on one GPU type (with several, a job may be
/// moved to the type with the most room), without pinned jobs, shared or
/// time-shared GPUs, or network packing (which regulates shares).
pub fn keeps_every_placement(view: &View, pinned: &[u32], shares: &[Share]) -> bool {
    if !pinned.is_empty()
        || view.cluster().kinds.len() != 1
        || view.placement_rule() == PlacementRule::NetPack
    {
        return false;
    }
    let (mut held, mut placed) = (0u32, 0usize);
    for s in shares {
        let now = match view.placement(s.job) {
            Some(p) if p.slice.is_some() || !p.parts.is_empty() => return false,
            Some(p) => p.gpus(),
            None => 0,
        };
        if s.count != now {
            return false;
        }
        if now > 0 {
            held += now;
            placed += 1;
        }
    }
    placed == view.running().len()
        && (held == view.cluster().total_gpus || placed == view.active().len())
}

/// `candidates` without the `excluded` jobs, in order.
pub fn without(candidates: &[u32], excluded: &BTreeSet<u32>) -> Vec<u32> {
    candidates
        .iter()
        .copied()
        .filter(|j| !excluded.contains(j))
        .collect()
}

/// Gives GPUs left idle by fragmentation to jobs the plan leaves without
/// any (their first grant, in arrival order): a waiting job never watches
/// a GPU it could use sit idle.
pub fn backfill(view: &View, plan: &mut Plan) {
    let mut packer = Packer::idle_only(
        view.cluster(),
        view.placement_rule(),
        plan.iter().map(|(_, p, _)| p),
    );
    for &j in view.active().iter() {
        if packer.free_total() == 0 {
            break;
        }
        if plan.iter().any(|(x, _, _)| *x == j) {
            continue;
        }
        let min = first_grant(view, j);
        if let Some(p) = claim_between(&mut packer, view, j, min, min) {
            plan.push((j, p, None));
        }
    }
}

/// Network packing (AFS §4.4): regulate the shares, then place them with
/// Proposition 1. None when it does not apply (several GPU types, machine
/// size not a power of two, pinned jobs, a non-compliant rigid request);
/// the caller then places the shares as they are.
fn netpack_plan(view: &View, pinned: &[u32], shares: &[Share]) -> Option<(Plan, Vec<u32>)> {
    let node = netpack::node_size(view.cluster())?;
    if !pinned.is_empty() {
        return None;
    }
    let counts: Vec<u32> = shares.iter().map(|s| s.count).collect();
    let caps: Vec<u32> = shares
        .iter()
        .map(|s| if s.min == s.cap { s.count } else { s.cap })
        .collect();
    let regulated = netpack::regulate(&counts, &caps, node);
    if shares
        .iter()
        .zip(&regulated)
        .any(|(s, r)| s.min == s.cap && *r != s.count)
    {
        return None;
    }
    let jobs: Vec<(u32, u32, Option<&Placement>)> = shares
        .iter()
        .zip(&regulated)
        .map(|(s, r)| (s.job, *r, view.placement(s.job)))
        .collect();
    let placed = netpack::place(view.cluster(), &jobs)?;
    Some((
        placed.into_iter().map(|(j, p)| (j, p, None)).collect(),
        Vec::new(),
    ))
}
