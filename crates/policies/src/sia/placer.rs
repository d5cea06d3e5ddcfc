//! Sia's placer (thesis §3.3.1, spec seed004 §2.6): turns configurations
//! into GPUs. (1) Jobs whose type and GPU count are unchanged keep their
//! GPUs; (2) multi-node jobs take whole free nodes; (3) single-node jobs go
//! in decreasing size, best fit. When fragmentation blocks a job, the jobs
//! on the node closest to fitting are evicted (smallest first) and placed
//! again at the end; a job that still does not fit waits for the next round.
//! `Fragmentation::Split` is the artifact simulator's reading instead: it
//! never evicts and spreads a blocked job over the free GPUs of its type
//! (the ILP's per-type capacity guarantees they suffice); the engine then
//! simulates the job on the nodes it spans.

use super::configs::Config;
use schedlab_model::cluster::{Packer, Placement, PlacementRule};
use schedlab_model::perf::BatchChoice;
use schedlab_sim::View;

/// What the placer does when fragmentation blocks a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fragmentation {
    /// Thesis rule (c): evict jobs from the node closest to fitting, retry.
    Evict,
    /// The artifact simulator's fast placer: split the job across nodes.
    Split,
}

/// One job's target.
pub struct Target {
    pub job: u32,
    pub config: Config,
    pub batch: Option<BatchChoice>,
    /// Must keep its current GPUs (checkpoint-restore in progress, non-preemptible).
    pub forced: bool,
}

/// What the placer did.
#[derive(Default)]
pub struct Placed {
    pub plan: Vec<(u32, Placement, Option<BatchChoice>)>,
    pub evictions: u32,
    pub unplaced: Vec<u32>,
}

pub fn place(view: &View, targets: &[Target], mode: Fragmentation) -> Placed {
    let mut packer = Packer::empty(view.cluster(), PlacementRule::Packed);
    let mut out = Placed::default();
    let mut claimed: Vec<(usize, Placement)> = Vec::new();
    let mut pending: Vec<usize> = Vec::new();
    // 1. Keep the GPUs of jobs whose type and size are unchanged.
    for (t, target) in targets.iter().enumerate() {
        let keep = view.placement(target.job).filter(|p| {
            target.forced || (p.kind == target.config.kind && p.gpus() == target.config.gpus)
        });
        match keep {
            Some(p) if packer.claim_exact(target.job, p) => claimed.push((t, p.clone())),
            _ => pending.push(t),
        }
    }
    // 2-3. Multi-node jobs first, then single-node jobs, larger first.
    schedlab_core::sorting::sort_by_key(&mut pending, |&t| {
        let c = targets[t].config;
        (c.nodes == 1, std::cmp::Reverse(c.gpus), targets[t].job)
    });
    let mut evicted_once = vec![false; targets.len()];
    let mut requeue = Vec::new();
    for t in pending {
        let c = targets[t].config;
        if let Some(p) = packer.claim(targets[t].job, c.kind, c.gpus) {
            claimed.push((t, p));
            continue;
        }
        if mode == Fragmentation::Split {
            match packer.claim_split(targets[t].job, c.kind, c.gpus) {
                Some(p) => claimed.push((t, p)),
                None => out.unplaced.push(targets[t].job),
            }
            continue;
        }
        // Fragmentation: free the node closest to fitting (or, for a
        // multi-node job, the emptiest nodes) of not-forced jobs.
        let per_node = view.cluster().max_node_gpus(c.kind);
        let need_on_node = c.gpus.min(per_node);
        let mut nodes: Vec<u32> = view
            .cluster()
            .nodes
            .iter()
            .filter(|n| n.kind == c.kind)
            .map(|n| n.id)
            .collect();
        schedlab_core::sorting::sort_by_key(&mut nodes, |&n| {
            (std::cmp::Reverse(packer.free_on(n)), n)
        });
        let wanted = c.nodes.max(1) as usize;
        for &node in nodes.iter().take(wanted) {
            let mut victims: Vec<usize> = claimed
                .iter()
                .enumerate()
                .filter(|(_, (vt, p))| {
                    !targets[*vt].forced
                        && !evicted_once[*vt]
                        && p.shares.iter().any(|s| s.node == node)
                })
                .map(|(k, _)| k)
                .collect();
            schedlab_core::sorting::sort_by_key(&mut victims, |&k| {
                (claimed[k].1.gpus(), targets[claimed[k].0].job)
            });
            let mut removed = Vec::new();
            for k in victims {
                if packer.free_on(node) >= need_on_node {
                    break;
                }
                packer.unclaim(&claimed[k].1);
                removed.push(k);
            }
            removed.sort_unstable_by(|a, b| b.cmp(a));
            for k in removed {
                let (vt, _) = claimed.remove(k);
                evicted_once[vt] = true;
                out.evictions += 1;
                requeue.push(vt);
            }
        }
        match packer.claim(targets[t].job, c.kind, c.gpus) {
            Some(p) => claimed.push((t, p)),
            None => out.unplaced.push(targets[t].job),
        }
    }
    for t in requeue {
        let c = targets[t].config;
        match packer.claim(targets[t].job, c.kind, c.gpus) {
            Some(p) => claimed.push((t, p)),
            None => out.unplaced.push(targets[t].job),
        }
    }
    out.plan = claimed
        .into_iter()
        .map(|(t, p)| (targets[t].job, p, targets[t].batch))
        .collect();
    out
}
