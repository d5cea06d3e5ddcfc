//! The engine's per-pool ledger: GPUs each pool's jobs hold now, the peak,
//! and the GPU-seconds held beyond the quota (borrowed from other pools).

use schedlab_model::cluster::{PoolId, Pools, NO_POOL};
use serde::Serialize;

#[derive(Debug, Clone, Default)]
struct Usage {
    used: u32,
    peak: u32,
    borrowed_gpu_s: f64,
    t_mark: f64,
}

/// Usage per declared pool (empty when the run has none).
#[derive(Debug, Clone, Default)]
pub struct PoolLedger {
    quotas: Vec<u32>,
    usage: Vec<Usage>,
}

/// One pool's share of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PoolResult {
    pub name: String,
    pub quota: u32,
    pub jobs: usize,
    /// Most GPUs the pool's jobs held at once.
    pub peak_gpus: u32,
    /// GPU-seconds held beyond the quota (lent by other pools).
    pub borrowed_gpu_s: f64,
    /// The pool's home cells as GPU ids under `engine.placement=cells`
    /// (the page draws its region from them); empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub home_gpus: Vec<u32>,
}

impl PoolLedger {
    pub fn new(pools: &Pools, start: f64) -> PoolLedger {
        PoolLedger {
            quotas: pools.pools.iter().map(|p| p.quota).collect(),
            usage: vec![
                Usage {
                    t_mark: start,
                    ..Usage::default()
                };
                pools.len()
            ],
        }
    }

    /// GPUs the pool's jobs hold now (0 for `NO_POOL`).
    pub fn used(&self, pool: PoolId) -> u32 {
        self.usage.get(pool as usize).map_or(0, |u| u.used)
    }

    fn accrue(&mut self, pool: PoolId, now: f64) -> Option<&mut Usage> {
        let quota = *self.quotas.get(pool as usize)?;
        let u = &mut self.usage[pool as usize];
        if now > u.t_mark {
            u.borrowed_gpu_s += u.used.saturating_sub(quota) as f64 * (now - u.t_mark);
            u.t_mark = now;
        }
        Some(u)
    }

    pub fn hold(&mut self, pool: PoolId, gpus: u32, now: f64) {
        if pool == NO_POOL {
            return;
        }
        if let Some(u) = self.accrue(pool, now) {
            u.used += gpus;
            u.peak = u.peak.max(u.used);
        }
    }

    pub fn release(&mut self, pool: PoolId, gpus: u32, now: f64) {
        if pool == NO_POOL {
            return;
        }
        if let Some(u) = self.accrue(pool, now) {
            u.used -= gpus;
        }
    }

    /// Per-pool results as of `now`; `jobs[p]` counts pool p's jobs.
    pub fn results(&self, pools: &Pools, jobs: &[usize], now: f64) -> Vec<PoolResult> {
        let mut ledger = self.clone();
        pools
            .pools
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let u = ledger.accrue(i as PoolId, now).cloned().unwrap_or_default();
                PoolResult {
                    name: p.name.clone(),
                    quota: p.quota,
                    jobs: jobs.get(i).copied().unwrap_or(0),
                    peak_gpus: u.peak,
                    borrowed_gpu_s: u.borrowed_gpu_s,
                    home_gpus: Vec::new(),
                }
            })
            .collect()
    }
}
