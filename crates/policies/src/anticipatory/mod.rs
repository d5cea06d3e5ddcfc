//! Anticipatory pool sharing (spec seed000; its paper calls the scheduler
//! "SIA", unrelated to the Sia policy): pools own GPU quotas, jobs are
//! gang-scheduled, non-preemptive and run to completion, and idle quota is
//! lent to other pools' jobs only where predictions of future load say the
//! owner will not need it. The reference is per-pool FCFS without sharing
//! (`pool-fcfs`); every run with pools reports speedup and slowdown
//! against it (`metrics::against_reference`).
//!
//! - `asia`: A-SIA, dedicated FCFS stream within quota plus a spare stream
//!   of short jobs on idle GPUs minus per-pool reservations (Figs 7-8);
//! - `vc`: A-SIA-VC, virtual start times and a resource-time plan (Fig 6);
//! - `oracle`: the offline MILP with perfect knowledge (Fig 19);
//! - `predict`: the coarse predictors (perfect, noisy, learned, random
//!   ablations); `learned`: the logistic regression behind `learned`;
//! - `ssf`, `maxmin`, `hived`, `themis`: the baselines SSF, gSSF, MaxMin,
//!   HiveD* and Themis* (spec §3).
//!
//! Shared here: duration bins, the per-call pool ledger and job starts.

pub mod asia;
pub mod cells;
pub mod hived;
pub mod learned;
pub mod maxmin;
pub mod oracle;
pub mod predict;
pub mod ssf;
pub mod themis;
pub mod vc;

use super::{claim_in_quota, claim_rigid};
use schedlab_model::cluster::{Packer, NO_POOL};
use schedlab_model::perf::BatchChoice;
use schedlab_sim::{Decision, View};
use std::collections::BTreeSet;

/// The default windows, which are also the duration bins' upper edges
/// (§2.5; footnote 4): (0, 5], (5, 60] and (60, 720] minutes, then a
/// fourth, unbounded bin.
pub const DEFAULT_WINDOWS_S: [f64; 3] = [300.0, 3_600.0, 43_200.0];

/// The bin a run time falls in, for bins closed on the right at `edges`
/// (0..=edges.len(); the last is unbounded).
pub fn bin_of(duration_s: f64, edges: &[f64]) -> usize {
    edges
        .iter()
        .position(|&e| duration_s <= e)
        .unwrap_or(edges.len())
}

/// The upper edge of a bin (infinite for the last).
pub fn bin_upper(bin: usize, edges: &[f64]) -> f64 {
    edges.get(bin).copied().unwrap_or(f64::INFINITY)
}

/// The job's run time at its request: the truth for policies that declare
/// oracle knowledge, the declared length otherwise.
pub fn run_time(view: &View, job: u32) -> f64 {
    view.known_remaining_time(job, view.spec(job).gpus)
}

/// The `isolate` parameter of the sharing policies: pools that neither lend
/// nor borrow (Table 17's runs where the two largest donors do not share).
pub const ISOLATE_PARAM: schedlab_core::params::ParamSpec = schedlab_core::params::ParamSpec::list(
    "isolate",
    "",
    0.0,
    4095.0,
    "Pools (indices in declaration order) that neither lend nor borrow: they run per-pool FCFS within quota and their idle quota is never lent",
);

/// A pool's index in the ledger: its id, or 0 for runs without pools
/// (then the whole cluster is one pool).
fn ledger_pool(view: &View, job: u32) -> usize {
    match view.pool_of(job) {
        NO_POOL => 0,
        p => p as usize,
    }
}

/// The pools' state at one call: quotas, GPUs held by jobs started in the
/// dedicated (in-quota FCFS) stream and in total, and the waiting jobs of
/// each pool in arrival order. Starts made during the call update it.
pub struct Ledger {
    pub quota: Vec<u32>,
    pub dedicated: Vec<u32>,
    pub current: Vec<u32>,
    pub pending: Vec<Vec<u32>>,
    /// Pools that neither lend nor borrow (Table 17's "not sharing" runs).
    pub isolated: Vec<bool>,
}

impl Ledger {
    /// `opportunistic` holds the running jobs started on lent GPUs.
    pub fn new(view: &View, opportunistic: &BTreeSet<u32>) -> Ledger {
        let quota: Vec<u32> = if view.pools().is_empty() {
            vec![view.cluster().total_gpus]
        } else {
            view.pools().pools.iter().map(|p| p.quota).collect()
        };
        let n = quota.len();
        let mut l = Ledger {
            quota,
            dedicated: vec![0; n],
            current: vec![0; n],
            pending: vec![Vec::new(); n],
            isolated: vec![false; n],
        };
        for &j in view.running().iter() {
            let q = ledger_pool(view, j);
            let g = view.gpus_of(j);
            l.current[q] += g;
            if !opportunistic.contains(&j) {
                l.dedicated[q] += g;
            }
        }
        for &j in view.waiting().iter() {
            l.pending[ledger_pool(view, j)].push(j);
        }
        l
    }

    pub fn pools(&self) -> usize {
        self.quota.len()
    }

    /// Marks the pools (indices in declaration order) that do not share.
    pub fn isolate(&mut self, pools: &[f64]) {
        for &p in pools {
            if let Some(flag) = self.isolated.get_mut(p as usize) {
                *flag = true;
            }
        }
    }

    /// GPUs of isolated pools' quotas their jobs do not hold now: never lent.
    pub fn withheld(&self) -> u32 {
        (0..self.pools())
            .filter(|&q| self.isolated[q])
            .map(|q| self.quota[q].saturating_sub(self.current[q]))
            .sum()
    }

    /// Pools in increasing current allocation / quota (ties: lower id):
    /// the instantaneous-fairness visiting order of Figs 7-8.
    pub fn by_share(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.pools()).collect();
        schedlab_core::sorting::sort_by(&mut order, |&a, &b| {
            let lhs = self.current[a] as u64 * self.quota[b] as u64;
            let rhs = self.current[b] as u64 * self.quota[a] as u64;
            lhs.cmp(&rhs).then(a.cmp(&b))
        });
        order
    }

    /// GPUs the pool's waiting jobs ask for.
    pub fn pending_load(&self, view: &View, q: usize) -> u32 {
        self.pending[q].iter().map(|&j| view.spec(j).gpus).sum()
    }

    /// Quota the pool's dedicated stream does not use.
    pub fn unused_quota(&self, q: usize) -> u32 {
        self.quota[q].saturating_sub(self.dedicated[q])
    }

    /// Starts `job` on free GPUs of `packer`: in the dedicated stream (it
    /// counts against its pool's quota and, under `engine.placement=cells`,
    /// stays in the pool's home cells) or on lent GPUs. False when the GPUs
    /// cannot be placed.
    pub fn start(
        &mut self,
        view: &View,
        packer: &mut Packer,
        out: &mut Decision,
        job: u32,
        dedicated: bool,
    ) -> bool {
        let placed = if dedicated {
            claim_in_quota(packer, view, job)
        } else {
            claim_rigid(packer, view, job)
        };
        match placed {
            Some(p) => {
                self.started(view, out, job, p, dedicated);
                true
            }
            None => false,
        }
    }

    /// Records a start on a placement already claimed.
    pub fn started(
        &mut self,
        view: &View,
        out: &mut Decision,
        job: u32,
        p: schedlab_model::cluster::Placement,
        dedicated: bool,
    ) {
        out.assign(job, p, Some(BatchChoice::Fixed(view.rigid_batch(job))));
        let q = ledger_pool(view, job);
        let g = view.spec(job).gpus;
        self.current[q] += g;
        if dedicated {
            self.dedicated[q] += g;
        }
        self.pending[q].retain(|&k| k != job);
    }
}

/// Strict per-pool FCFS heads: pools in increasing current allocation /
/// quota each start their head-of-line job if it fits the idle GPUs and,
/// when `within_quota`, the pool's unused quota; the visit repeats until no
/// head starts. A-SIA's dedicated stream and HiveD*'s guaranteed stage use
/// it within quota, MaxMin without (naive sharing).
pub fn start_heads(
    view: &View,
    ledger: &mut Ledger,
    packer: &mut Packer,
    out: &mut Decision,
    within_quota: bool,
) {
    loop {
        let mut started = false;
        for q in ledger.by_share() {
            let Some(&j) = ledger.pending[q].first() else {
                continue;
            };
            let g = view.spec(j).gpus;
            // An isolated pool stays within its quota and keeps its idle quota.
            let fits = if within_quota || ledger.isolated[q] {
                g <= ledger.unused_quota(q) && g <= packer.free_total()
            } else {
                g + ledger.withheld() <= packer.free_total()
            };
            if fits && ledger.start(view, packer, out, j, within_quota || ledger.isolated[q]) {
                started = true;
                break;
            }
        }
        if !started {
            return;
        }
    }
}

/// Keeps the set of jobs started on lent GPUs to those still running.
pub fn forget_finished(view: &View, opportunistic: &mut BTreeSet<u32>) {
    opportunistic.retain(|j| view.running().contains(j));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_are_closed_on_the_right() {
        let e = &DEFAULT_WINDOWS_S;
        assert_eq!(bin_of(300.0, e), 0);
        assert_eq!(bin_of(301.0, e), 1);
        assert_eq!(bin_of(43_200.0, e), 2);
        assert_eq!(bin_of(43_201.0, e), 3);
        assert_eq!(bin_upper(3, e), f64::INFINITY);
    }
}
