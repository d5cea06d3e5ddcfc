//! The throughput matrix of Sia's rigid baselines (thesis §3.4.3;
//! spec seed004 §3.4): T_jk is the rate of rigid job j on its TunedJobs
//! configuration (trace `num_replicas` GPUs, trace `batch_size`) on GPU type
//! k, read from the model zoo ("ground truth" in the artifact), with the job
//! packed onto as few nodes of type k as possible.
//!
//! `t` is in the zoo's progress units per second (M0-iterations/s for the
//! goodput models, reference iterations/s for speedup curves), so that
//! remaining work divided by it is a time; `steps` is in plain training
//! iterations per second, the unit of the artifact's Gavel objective (spec
//! §7.15).

use schedlab_model::cluster::GpuKind;
use schedlab_model::perf::{BatchChoice, Behaviour};
use schedlab_sim::View;

/// Rigid jobs against GPU types.
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix {
    /// Job ids, one per row.
    pub jobs: Vec<u32>,
    /// GPUs each job needs (its scale factor s_j).
    pub gpus: Vec<u32>,
    /// Global batch each job runs at.
    pub batch: Vec<u32>,
    /// GPU types, one per column (cluster order).
    pub kinds: Vec<GpuKind>,
    /// GPUs of each type (N_k).
    pub caps: Vec<u32>,
    /// t[j][k]: progress per second of job j on type k; 0 = cannot run there.
    pub t: Vec<Vec<f64>>,
    /// steps[j][k]: training iterations per second (t divided by the
    /// statistical-efficiency gain of the job's batch for goodput models,
    /// which is the same on every type; equal to t for speedup curves).
    pub steps: Vec<Vec<f64>>,
}

impl Matrix {
    /// T_jk for the given jobs at the current time.
    pub fn build(view: &View, jobs: &[u32]) -> Matrix {
        let kinds = view.cluster().kinds.clone();
        let caps: Vec<u32> = kinds.iter().map(|k| view.cluster().gpus_of(*k)).collect();
        let mut m = Matrix {
            jobs: jobs.to_vec(),
            gpus: Vec::with_capacity(jobs.len()),
            batch: Vec::with_capacity(jobs.len()),
            kinds: kinds.clone(),
            caps: caps.clone(),
            t: Vec::with_capacity(jobs.len()),
            steps: Vec::with_capacity(jobs.len()),
        };
        for &j in jobs {
            let spec = view.spec(j);
            let s = spec.gpus.max(1);
            let batch = view.rigid_batch(j);
            let pinned = spec.gpu_type.as_deref().map(|_| view.default_kind(j));
            let progress = view.progress(j);
            let (row, steps): (Vec<f64>, Vec<f64>) = kinds
                .iter()
                .zip(&caps)
                .map(|(&kind, &cap)| {
                    if s > cap || pinned.is_some_and(|p| p != kind) {
                        return (0.0, 0.0);
                    }
                    let rate = view.rate_on(j, kind, None, s, BatchChoice::Fixed(batch));
                    let r = rate.per_s;
                    if !(r.is_finite() && r > 0.0) {
                        return (0.0, 0.0);
                    }
                    let gain = match &view.model(j).behaviour {
                        Behaviour::Goodput(g) => g
                            .efficiency
                            .gain(rate.batch as f64, g.efficiency.epoch_at(progress)),
                        _ => 1.0,
                    };
                    (r, if gain > 0.0 { r / gain } else { r })
                })
                .unzip();
            m.gpus.push(s);
            m.batch.push(batch);
            m.t.push(row);
            m.steps.push(steps);
        }
        m
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Index of a GPU type among the columns.
    pub fn col(&self, kind: GpuKind) -> Option<usize> {
        self.kinds.iter().position(|k| *k == kind)
    }
}
