//! What a run reports: progress for callers and the per-job results.

use super::Simulation;
use crate::state::RestartKinds;
use crate::timeline::{RoundStat, Timeline};
use serde::Serialize;

/// Progress report for callers (progress bars, the page's worker).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Progress {
    pub now: f64,
    pub completed: usize,
    pub total: usize,
    pub events: u64,
}

/// One job's result.
#[derive(Debug, Clone, Serialize)]
pub struct JobResult {
    pub id: u32,
    pub name: String,
    pub model: String,
    pub tenant: String,
    pub gpus_requested: u32,
    pub arrival: f64,
    pub start: Option<f64>,
    pub finish: Option<f64>,
    pub gpu_s: f64,
    pub run_s: f64,
    pub restarts: u32,
    /// The restarts by what changed (sums to `restarts`).
    pub restart_kinds: RestartKinds,
    pub preemptions: u32,
    pub restart_s: f64,
    /// Share changes that kept none of the job's GPUs.
    pub migrations: u32,
    /// In-flight reconfigurations cancelled by a newer order (CoDDL mode).
    pub cancelled: u32,
    /// Total work (model units): the truth, revealed after the run.
    pub work: f64,
    /// The work the job declared (its maximum when it may stop early).
    pub declared_work: f64,
    /// Mean number of active jobs while this job was active.
    pub n_avg: f64,
    pub due: Option<f64>,
    /// Joules its GPUs drew at busy power while it held them (restarts included).
    pub energy_j: f64,
    /// Joules the same GPUs would have drawn idle over that time.
    pub held_idle_j: f64,
    /// The first completion time predicted for the job (`engine.predict`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicted_finish: Option<f64>,
}

/// Everything a run produced.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub jobs: Vec<JobResult>,
    pub timeline: Timeline,
    pub rounds: Vec<RoundStat>,
    pub end_time: f64,
    pub events: u64,
    /// The run stopped with jobs unfinished (policy starved them or max_days hit).
    pub incomplete: usize,
    pub stop_reason: String,
    /// Adjustments the engine made to the input (e.g. clamped requests).
    pub notes: Vec<String>,
    /// The engine's rules the run followed (restart delays, calibration):
    /// metrics apply the same ones to their references.
    pub rules: crate::Rules,
    /// Per-pool usage (empty unless the run declares pools).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pools: Vec<crate::PoolResult>,
    /// GPU time and cost per GPU type present in the cluster.
    pub gpu_time: Vec<TypeTime>,
    /// Price of the GPU time (`perf::price`): busy GPUs plus `engine.idle_price`
    /// x idle GPUs on powered nodes; None when no GPU type has a price.
    pub gpu_cost_usd: Option<f64>,
    /// Policies' per-job reasons, when the run kept them
    /// (`Simulation::set_record_reasons`; empty otherwise).
    #[serde(skip)]
    pub reasons: crate::ReasonLog,
    /// Policies' gauge readings (predicted loads), kept with the reasons.
    #[serde(skip)]
    pub gauges: crate::GaugeLog,
}

/// One GPU type's time over a run (STS's cost accounting).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TypeTime {
    pub kind: String,
    /// GPU-hours some job held the GPU (a shared GPU counts once).
    pub busy_gpu_h: f64,
    /// GPU-hours idle GPUs sat on a node with a busy GPU (powered).
    pub idle_on_gpu_h: f64,
    pub price_usd_h: Option<f64>,
}

impl Simulation {
    /// The results so far (complete once `run` has returned).
    pub fn outcome(&self) -> Outcome {
        let now = self.now;
        let jobs = self
            .specs
            .iter()
            .zip(self.jobs.iter())
            .map(|(spec, st)| JobResult {
                id: spec.id,
                name: spec.name.clone(),
                model: self.zoo.get(st.model).name.clone(),
                tenant: spec.tenant.clone(),
                gpus_requested: spec.gpus,
                arrival: spec.arrival,
                start: st.first_start,
                finish: st.finish,
                gpu_s: st.gpu_s_at(now),
                run_s: st.run_s_at(now),
                restarts: st.restarts,
                restart_kinds: st.restart_kinds,
                preemptions: st.preemptions,
                restart_s: st.restart_s,
                migrations: st.migrations,
                cancelled: st.cancelled,
                work: st.work,
                declared_work: st.declared_work,
                n_avg: st.n_avg,
                due: spec.due,
                energy_j: st.energy_at(now),
                held_idle_j: st.held_idle_at(now),
                predicted_finish: st.predicted_finish,
            })
            .collect();
        let mut timeline = self.recorder.timeline().clone();
        for s in &mut timeline.segments {
            if s.end.is_nan() {
                s.end = now;
                let st = &self.jobs[s.job as usize];
                s.progress_end = if st.work > 0.0 {
                    (st.progress_at(now) / st.work).clamp(0.0, 1.0)
                } else {
                    0.0
                };
            }
        }
        let mut pool_jobs = vec![0usize; self.cluster.pools.len()];
        for st in self.jobs.iter() {
            if let Some(n) = pool_jobs.get_mut(st.pool as usize) {
                *n += 1;
            }
        }
        let mut pools = self.pools.results(&self.cluster.pools, &pool_jobs, now);
        if let Some(homes) = &self.homes {
            for (p, r) in pools.iter_mut().enumerate() {
                r.home_gpus = homes.gpu_ids(&self.cluster, p);
            }
        }
        let per_kind = self.occupancy.gpu_time(now);
        let gpu_time: Vec<TypeTime> = self
            .cluster
            .kinds
            .iter()
            .map(|k| TypeTime {
                kind: k.name().to_string(),
                busy_gpu_h: per_kind[k.0 as usize].busy_s / 3600.0,
                idle_on_gpu_h: per_kind[k.0 as usize].idle_on_s / 3600.0,
                price_usd_h: self.zoo.prices().per_gpu_usd_h(*k),
            })
            .collect();
        let gpu_cost_usd = self.occupancy.cost_usd(now, self.cfg.idle_price);
        Outcome {
            gpu_time,
            gpu_cost_usd,
            pools,
            jobs,
            timeline,
            rounds: self.recorder.rounds().to_vec(),
            reasons: self.recorder.reason_log().clone(),
            gauges: self.recorder.gauge_log().clone(),
            end_time: now,
            events: self.events,
            incomplete: self.jobs.len() - self.completed,
            stop_reason: self.stop_reason.clone().unwrap_or_else(|| "running".into()),
            notes: self.notes.clone(),
            rules: crate::Rules::of(&self.cfg),
        }
    }
}
