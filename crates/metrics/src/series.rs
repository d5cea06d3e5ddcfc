//! Metrics over time (AFS, NSDI'21 §2.2 and §5; spec seed003 §5), computed
//! from a finished run's timeline, and the per-job GPU-share timeline the
//! page draws.
//!
//! - **QL**, queue length: active jobs holding no GPU.
//! - **CE**, cluster efficiency: (1/M) Σ over running jobs of p_j(k_j)/p_j(1),
//!   the jobs' speedups on their shares over one GPU, per cluster GPU. It
//!   is at most 1 under sublinear scaling ("reports the reduction rate of
//!   makespan per unit time").
//! - **BI**, blocking index: the mean over pending jobs of (cumulative time
//!   without GPUs since arrival) / (remaining time on one GPU); 0 when no
//!   job is pending. Remaining work of a pending job is its work minus the
//!   progress at the end of its last allocation segment (pending jobs do
//!   not progress).
//! - busy GPUs (allocated fraction Σr_j/M is busy/M) and running jobs.
//!
//! Values are sampled at every instant where something changes (arrival,
//! allocation change, completion); all are piecewise constant between
//! samples except BI, which grows linearly while jobs wait. With CoDDL
//! reconfiguration the share is the assigned one (GPUs still loading
//! count), so CE is slightly optimistic during expansions.

use schedlab_model::cluster::Cluster;
use schedlab_model::perf::{BatchChoice, ModelZoo, Share};
use schedlab_model::workload::JobSpec;
use schedlab_sim::rules::rigid_batch;
use schedlab_sim::Outcome;
use serde::Serialize;

/// QL, CE, BI over time, column by column (compact for the page).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct TimeSeries {
    pub t: Vec<f64>,
    /// Pending jobs (QL).
    pub queue: Vec<u32>,
    pub running: Vec<u32>,
    pub busy_gpus: Vec<u32>,
    /// Cluster efficiency (CE).
    pub ce: Vec<f64>,
    /// Blocking index (BI).
    pub bi: Vec<f64>,
}

impl TimeSeries {
    pub fn len(&self) -> usize {
        self.t.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }

    /// At most `max` samples on a uniform time grid (the value of the last
    /// sample at or before each grid time); unchanged if already small.
    pub fn downsample(&self, max: usize) -> TimeSeries {
        if self.len() <= max || max < 2 {
            return self.clone();
        }
        let (t0, t1) = (self.t[0], self.t[self.len() - 1]);
        let mut out = TimeSeries::default();
        let mut i = 0;
        for k in 0..max {
            let g = t0 + (t1 - t0) * k as f64 / (max - 1) as f64;
            while i + 1 < self.len() && self.t[i + 1] <= g {
                i += 1;
            }
            out.t.push(g);
            out.queue.push(self.queue[i]);
            out.running.push(self.running[i]);
            out.busy_gpus.push(self.busy_gpus[i]);
            out.ce.push(self.ce[i]);
            out.bi.push(self.bi[i]);
        }
        out
    }

    /// Time-weighted mean of a column over the run.
    pub fn time_mean(&self, column: &[f64]) -> f64 {
        let acc: f64 = column
            .iter()
            .zip(self.t.windows(2))
            .map(|(v, w)| v * (w[1] - w[0]))
            .sum();
        let span = self.t.last().unwrap_or(&0.0) - self.t.first().unwrap_or(&0.0);
        if span > 0.0 {
            acc / span
        } else {
            0.0
        }
    }
}

/// A job's rate on `gpus` GPUs of `kind` at the start of its run.
fn rate(
    zoo: &ModelZoo,
    id: schedlab_model::perf::ModelId,
    cluster: &Cluster,
    kind: schedlab_model::cluster::GpuKind,
    gpus: f64,
    batch: u32,
) -> f64 {
    let share = Share {
        kind,
        share: gpus,
        per_node: cluster.max_node_gpus(kind).max(1),
        batch: BatchChoice::Fixed(batch),
    };
    zoo.rate_at_share(id, &share, 0.0)
}

/// One job's speedup on k GPUs over one GPU (0 on 0 GPUs).
fn speedup(
    zoo: &ModelZoo,
    cluster: &Cluster,
    model: &str,
    kind: schedlab_model::cluster::GpuKind,
    k: u32,
    batch: u32,
) -> f64 {
    let Some(id) = zoo.lookup(model) else {
        return 0.0;
    };
    let one = rate(zoo, id, cluster, kind, 1.0, batch);
    if one > 0.0 {
        rate(zoo, id, cluster, kind, k as f64, batch) / one
    } else {
        0.0
    }
}

#[derive(Clone, Copy)]
enum Ev {
    Arrive,
    Finish,
    /// Segment start (index).
    Start(usize),
    /// Segment end (index).
    End(usize),
}

/// QL, CE, BI (and busy GPUs, running jobs) over time for a finished run.
pub fn time_series(
    outcome: &Outcome,
    specs: &[JobSpec],
    cluster: &Cluster,
    zoo: &ModelZoo,
) -> TimeSeries {
    let m = cluster.total_gpus.max(1) as f64;
    let segs = &outcome.timeline.segments;
    let mut evs: Vec<(f64, u8, u32, Ev)> = Vec::with_capacity(2 * segs.len() + 2 * specs.len());
    for (j, r) in outcome.jobs.iter().enumerate() {
        evs.push((r.arrival, 2, j as u32, Ev::Arrive));
        if let Some(f) = r.finish {
            evs.push((f, 0, j as u32, Ev::Finish));
        }
    }
    // A fluid allocation's parts (segments that continue the one before)
    // are not jobs of their own: counted by the whole-GPU segment only.
    for (i, s) in segs.iter().enumerate().filter(|(_, s)| !s.continued) {
        evs.push((s.end, 1, s.job, Ev::End(i)));
        evs.push((s.start, 3, s.job, Ev::Start(i)));
    }
    // Same instant: finishes, segment ends, arrivals, segment starts.
    schedlab_core::sorting::sort_by(&mut evs, |a, b| {
        a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2))
    });

    let n = outcome.jobs.len();
    // Per job: share, pending since (NaN if not pending), cumulative pending, 1/R (remaining time on 1 GPU).
    let mut share = vec![0u32; n];
    let mut active = vec![false; n];
    let mut since = vec![f64::NAN; n];
    let mut acc = vec![0.0f64; n];
    let mut inv_r = vec![0.0f64; n];
    let mut ratio = vec![0.0f64; n];
    let p1: Vec<f64> = outcome
        .jobs
        .iter()
        .zip(specs)
        .map(|(r, s)| {
            zoo.lookup(&r.model).map_or(0.0, |id| {
                let kind = cluster.kinds[0];
                rate(zoo, id, cluster, kind, 1.0, rigid_batch(s, zoo.get(id)))
            })
        })
        .collect();
    let remaining_inv = |j: usize, progress: f64| -> f64 {
        let rem = outcome.jobs[j].work - progress;
        if rem > 0.0 && p1[j] > 0.0 {
            p1[j] / rem
        } else {
            0.0
        }
    };
    // Running sums: BI numerator = Σ acc/R + t Σ 1/R − Σ since/R over pending jobs.
    let (mut s_acc, mut s_inv, mut s_since) = (0.0f64, 0.0f64, 0.0f64);
    let (mut queue, mut running, mut busy, mut ce) = (0u32, 0u32, 0u32, 0.0f64);
    let mut out = TimeSeries::default();
    let set_pending = |j: usize,
                       t: f64,
                       since: &mut [f64],
                       s_acc: &mut f64,
                       s_inv: &mut f64,
                       s_since: &mut f64,
                       acc: &[f64],
                       inv_r: &[f64]| {
        since[j] = t;
        *s_acc += acc[j] * inv_r[j];
        *s_inv += inv_r[j];
        *s_since += t * inv_r[j];
    };
    let mut i = 0;
    while i < evs.len() {
        let t = evs[i].0;
        while i < evs.len() && evs[i].0 == t {
            let (_, _, job, ev) = evs[i];
            let j = job as usize;
            let was_pending = active[j] && share[j] == 0;
            if was_pending {
                let d = t - since[j];
                s_acc -= acc[j] * inv_r[j];
                s_inv -= inv_r[j];
                s_since -= since[j] * inv_r[j];
                acc[j] += d;
                since[j] = f64::NAN;
            }
            match ev {
                Ev::Arrive => {
                    active[j] = true;
                    inv_r[j] = remaining_inv(j, 0.0);
                }
                Ev::Finish => active[j] = false,
                Ev::Start(k) => {
                    let s = &segs[k];
                    if share[j] == 0 {
                        running += 1;
                    }
                    share[j] = s.gpu_count;
                    busy += s.gpu_count;
                    ce -= ratio[j];
                    ratio[j] = speedup(
                        zoo,
                        cluster,
                        &outcome.jobs[j].model,
                        s.kind,
                        s.gpu_count,
                        s.batch,
                    );
                    ce += ratio[j];
                }
                Ev::End(k) => {
                    let s = &segs[k];
                    busy -= s.gpu_count.min(busy);
                    if share[j] > 0 {
                        running -= 1;
                    }
                    share[j] = 0;
                    ce -= ratio[j];
                    ratio[j] = 0.0;
                    if s.progress_end.is_finite() {
                        inv_r[j] = remaining_inv(j, s.progress_end * outcome.jobs[j].work);
                    }
                }
            }
            if active[j] && share[j] == 0 {
                set_pending(
                    j,
                    t,
                    &mut since,
                    &mut s_acc,
                    &mut s_inv,
                    &mut s_since,
                    &acc,
                    &inv_r,
                );
            }
            queue =
                (queue as i64 + (active[j] && share[j] == 0) as i64 - was_pending as i64) as u32;
            i += 1;
        }
        if running == 0 {
            ce = 0.0;
        }
        // The running sums cancel when every pending job has just started
        // waiting; what is left of them then is rounding, not waiting.
        let waited = s_acc + t * s_inv - s_since;
        let rounding = 1e-9 * (s_acc.abs() + (t * s_inv).abs() + s_since.abs());
        let bi = if queue > 0 && waited > rounding {
            waited / queue as f64
        } else {
            0.0
        };
        out.t.push(t);
        out.queue.push(queue);
        out.running.push(running);
        out.busy_gpus.push(busy);
        out.ce.push((ce / m).max(0.0));
        out.bi.push(bi);
    }
    out
}

/// Every change of every job's GPU share, in time order: the per-job share
/// timeline (stacked-area or Gantt views).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ShareSteps {
    pub t: Vec<f64>,
    pub job: Vec<u32>,
    /// GPUs the job holds from `t` on.
    pub gpus: Vec<u32>,
}

/// The share timeline of a run (from its allocation segments).
pub fn share_steps(outcome: &Outcome) -> ShareSteps {
    let segs = &outcome.timeline.segments;
    // (time, order: ends before starts, job, gpus)
    let mut evs: Vec<(f64, u8, u32, u32)> = Vec::with_capacity(2 * segs.len());
    for s in segs.iter().filter(|s| !s.continued) {
        evs.push((s.end, 0, s.job, 0));
        evs.push((s.start, 1, s.job, s.gpu_count));
    }
    schedlab_core::sorting::sort_by(&mut evs, |a, b| {
        a.0.total_cmp(&b.0).then(a.2.cmp(&b.2)).then(a.1.cmp(&b.1))
    });
    let mut out = ShareSteps::default();
    let mut k = 0;
    while k < evs.len() {
        // Collapse an end and a start of the same job at the same instant.
        let (t, _, job, mut g) = evs[k];
        while k + 1 < evs.len() && evs[k + 1].0 == t && evs[k + 1].2 == job {
            k += 1;
            g = evs[k].3;
        }
        out.t.push(t);
        out.job.push(job);
        out.gpus.push(g);
        k += 1;
    }
    out
}
