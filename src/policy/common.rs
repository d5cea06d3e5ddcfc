//! Helpers shared by policies: choosing GPU types and walking jobs in
//! priority order through a packer.

use crate::cluster::{GpuKind, Packer, Placement};
use crate::perf::BatchChoice;
use crate::sim::{Decision, View};

/// GPU types a job may use: its pinned type, else every type in cluster order.
pub fn kinds_for(view: &View, job: u32) -> Vec<GpuKind> {
    match view.spec(job).gpu_type.as_deref() {
        Some(_) => vec![view.default_kind(job)],
        None => view.cluster.kinds.clone(),
    }
}

/// Claims exactly the job's requested GPUs on the first type where they fit,
/// preferring the type it runs on now.
pub fn claim_rigid(packer: &mut Packer, view: &View, job: u32) -> Option<Placement> {
    let want = view.spec(job).gpus;
    let mut kinds = kinds_for(view, job);
    if let Some(cur) = view.placement(job) {
        kinds.sort_by_key(|k| *k != cur.kind);
    }
    kinds.into_iter().find_map(|k| packer.claim(job, k, want))
}

/// Claims up to `count` GPUs (at least one) for an elastic job: the largest
/// count that can be placed, on the type with the most free GPUs (ties:
/// the type it runs on now).
pub fn claim_elastic(packer: &mut Packer, view: &View, job: u32, count: u32) -> Option<Placement> {
    let cur = view.placement(job).map(|p| p.kind);
    let mut kinds = kinds_for(view, job);
    kinds.sort_by_key(|k| (std::cmp::Reverse(packer.free_of(*k)), Some(*k) != cur));
    for c in (1..=count).rev() {
        for k in &kinds {
            if packer.free_of(*k) >= c {
                if let Some(p) = packer.claim(job, *k, c) {
                    return Some(p);
                }
            }
        }
    }
    None
}

/// Gang scheduling by priority: non-preemptible running jobs keep their
/// GPUs; then each job in `order` gets its full request if it can be placed
/// and is skipped otherwise; running jobs that get nothing are preempted.
/// `rigid_batch` runs every job at the trace's batch size. Returns the jobs
/// that hold GPUs after the decision.
pub fn gang_walk(view: &View, order: &[u32], out: &mut Decision, rigid_batch: bool) -> Vec<u32> {
    let mut packer = view.packer_replan();
    let mut plan = Vec::new();
    let batch = |j: u32| rigid_batch.then(|| BatchChoice::Fixed(view.rigid_batch(j)));
    for &j in view.running.iter() {
        if !view.spec(j).preemptible {
            if let Some(p) = view.placement(j) {
                if packer.claim_exact(j, p) {
                    plan.push((j, p.clone(), batch(j)));
                }
            }
        }
    }
    let pinned: std::collections::BTreeSet<u32> = plan.iter().map(|(j, _, _)| *j).collect();
    for &j in order {
        if pinned.contains(&j) {
            continue;
        }
        if let Some(p) = claim_rigid(&mut packer, view, j) {
            plan.push((j, p, batch(j)));
        } else {
            packer.release(j);
        }
    }
    let placed = plan.iter().map(|(j, _, _)| *j).collect();
    out.apply_plan(view, plan);
    placed
}
