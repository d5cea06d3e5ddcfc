//! The admission stage shared by pool-aware policies: FCFS within quota.
//!
//! Each pool's waiting jobs start in arrival order while the pool's held
//! GPUs plus the job's request stay within its quota and the GPUs can be
//! placed; a pool's queue stops at its first job that cannot start, so no
//! job overtakes an earlier job of its own pool (strict per-pool FCFS, the
//! "no sharing" reference of the anticipatory scheduler). Under
//! `engine.placement=cells` a pool's jobs stay in its home cells. Jobs of
//! runs without pools are admitted FCFS against the whole cluster.

use super::common::claim_in_quota;
use schedlab_model::cluster::{Packer, PoolId, NO_POOL};
use schedlab_model::perf::BatchChoice;
use schedlab_sim::{Decision, View};
use std::collections::BTreeSet;

/// Starts what FCFS within quota allows on `packer`'s free GPUs; returns
/// the jobs started. Jobs already in `out` are left alone.
pub fn admit_within_quota(view: &View<'_>, packer: &mut Packer, out: &mut Decision) -> Vec<u32> {
    let pools = view.pools();
    let mut used: Vec<u32> = (0..pools.len() as PoolId)
        .map(|p| view.pool_used(p))
        .collect();
    let mut blocked: BTreeSet<PoolId> = BTreeSet::new();
    let mut started = Vec::new();
    for &j in view.waiting().iter() {
        if packer.free_total() == 0 {
            break;
        }
        let pool = view.pool_of(j);
        if blocked.contains(&pool) || out.changes.iter().any(|(k, _)| *k == j) {
            continue;
        }
        let want = view.spec(j).gpus;
        let within = pool == NO_POOL
            || pools
                .get(pool)
                .is_some_and(|p| used[pool as usize] + want <= p.quota);
        let placed = if within {
            claim_in_quota(packer, view, j)
        } else {
            None
        };
        match placed {
            Some(p) => {
                if pool != NO_POOL {
                    used[pool as usize] += want;
                }
                out.assign(j, p, Some(BatchChoice::Fixed(view.rigid_batch(j))));
                started.push(j);
            }
            None => {
                blocked.insert(pool);
            }
        }
    }
    started
}
