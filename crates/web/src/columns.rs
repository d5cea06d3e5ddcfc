//! A finished run as flat columns. The page receives each column as a typed
//! array (transferred from the worker without copying) and animates from
//! them; the indexes here make "which job holds GPU g at time t" a binary
//! search, so a frame costs O(GPUs x log segments) whatever the trace size.

use schedlab_metrics::JobMetrics;
use schedlab_sim::Outcome;
use std::collections::BTreeMap;

/// Allocation segments plus two CSR indexes over them.
#[derive(Debug, Clone, Default)]
pub struct TimelineColumns {
    pub seg_job: Vec<u32>,
    pub seg_kind: Vec<u8>,
    pub seg_start: Vec<f64>,
    pub seg_end: Vec<f64>,
    pub seg_busy_until: Vec<f64>,
    pub seg_batch: Vec<u32>,
    pub seg_gpu_offset: Vec<u32>,
    pub seg_gpu_count: Vec<u32>,
    pub seg_progress_start: Vec<f64>,
    pub seg_progress_end: Vec<f64>,
    pub seg_restarts: Vec<u32>,
    /// Fraction of its GPU each segment holds (1 unless a slice of a shared GPU).
    pub seg_share: Vec<f64>,
    /// The flat GPU list: segment s holds `gpus[off[s] .. off[s] + count[s]]`.
    pub gpus: Vec<u32>,
    /// Segments of GPU g are `gpu_segs[gpu_offsets[g] .. gpu_offsets[g+1]]`,
    /// in start order (a GPU is held by one segment at a time).
    pub gpu_offsets: Vec<u32>,
    pub gpu_segs: Vec<u32>,
    /// Segments of job j are `job_segs[job_offsets[j] .. job_offsets[j+1]]`, in start order.
    pub job_offsets: Vec<u32>,
    pub job_segs: Vec<u32>,
    /// Every distinct instant something visible happens (arrival, start,
    /// end, restore done, finish), sorted: "step to next event" jumps along it.
    pub events: Vec<f64>,
    /// Plans policies announced (`Decision::announce_plan`): plan p is for
    /// job `plan_job[p]`, made at `plan_t[p]` when the job had done
    /// `plan_from[p]` work units; its steps are `plan_gpus` / `plan_until`
    /// `[plan_offsets[p] .. plan_offsets[p+1]]`.
    pub plan_job: Vec<u32>,
    pub plan_t: Vec<f64>,
    pub plan_from: Vec<f64>,
    pub plan_offsets: Vec<u32>,
    pub plan_gpus: Vec<f64>,
    pub plan_until: Vec<f64>,
    /// Groups policies reported (`Decision::set_group`): from
    /// `group_t[k]` on, job `group_job[k]` is in group `group[k]`.
    pub group_job: Vec<u32>,
    pub group_t: Vec<f64>,
    pub group: Vec<u32>,
}

/// Per-policy-call statistics as columns.
#[derive(Debug, Clone, Default)]
pub struct RoundColumns {
    pub t: Vec<f64>,
    pub busy_gpus: Vec<u32>,
    pub running: Vec<u32>,
    pub waiting: Vec<u32>,
    pub changes: Vec<u32>,
    /// Wall-clock seconds of the round's solver (the page's solver view);
    /// with POP's parts in parallel, the slowest part's seconds, not their sum.
    pub solver_s: Vec<f64>,
    /// The round problem's variables and those a warm-started solver moved
    /// (NaN when the policy does not say).
    pub vars: Vec<f64>,
    pub changed_vars: Vec<f64>,
}

/// Per-job results as columns (NaN where a value does not exist).
#[derive(Debug, Clone, Default)]
pub struct JobColumns {
    pub arrival: Vec<f64>,
    pub start: Vec<f64>,
    pub finish: Vec<f64>,
    pub jct: Vec<f64>,
    pub queue: Vec<f64>,
    pub gpu_s: Vec<f64>,
    pub restarts: Vec<u32>,
    pub preemptions: Vec<u32>,
    pub ftf: Vec<f64>,
    /// Predicted JCT at arrival and its error in percent (`engine.predict`).
    pub pred_jct: Vec<f64>,
    pub pred_err: Vec<f64>,
    /// Due date (absolute seconds; NaN without one) and weight x tardiness.
    pub due: Vec<f64>,
    /// True and declared work (model units; they differ when a job stops early).
    pub work: Vec<f64>,
    pub declared_work: Vec<f64>,
    pub tardiness_cost: Vec<f64>,
    /// JCT under per-pool FCFS / JCT here (runs with pools; NaN otherwise).
    pub speedup: Vec<f64>,
    pub gpus_requested: Vec<u32>,
    /// Index of the job's pool in the result's `pools` (-1: none).
    pub pool: Vec<i32>,
    /// Index into `models`.
    pub model: Vec<u32>,
    pub models: Vec<String>,
    pub names: Vec<String>,
}

/// One column of a result, borrowed, with its element type: what the wasm
/// layer turns into a typed array (or an array of strings).
#[derive(Debug, Clone, Copy)]
pub enum Column<'a> {
    F64(&'a [f64]),
    F32(&'a [f32]),
    U32(&'a [u32]),
    I32(&'a [i32]),
    U8(&'a [u8]),
    Str(&'a [String]),
}

impl Column<'_> {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::F32(v) => v.len(),
            Column::U32(v) => v.len(),
            Column::I32(v) => v.len(),
            Column::U8(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A group of result columns under their page-facing names. This is the one
/// declaration of those names: `wasm.rs` ships exactly these, and a test
/// checks that every name the page's scripts read is declared here.
pub trait Columnar {
    fn columns(&self) -> Vec<(&'static str, Column<'_>)>;
}

/// Declares a struct's fields as its named columns (name = field name).
macro_rules! columnar {
    ($ty:ty { $($field:ident: $kind:ident),* $(,)? }) => {
        impl $crate::columns::Columnar for $ty {
            fn columns(&self) -> Vec<(&'static str, $crate::columns::Column<'_>)> {
                vec![$((stringify!($field), $crate::columns::Column::$kind(&self.$field))),*]
            }
        }
    };
}
pub(crate) use columnar;

columnar!(TimelineColumns {
    seg_job: U32,
    seg_kind: U8,
    seg_start: F64,
    seg_end: F64,
    seg_busy_until: F64,
    seg_batch: U32,
    seg_gpu_offset: U32,
    seg_gpu_count: U32,
    seg_progress_start: F64,
    seg_progress_end: F64,
    seg_restarts: U32,
    seg_share: F64,
    gpus: U32,
    gpu_offsets: U32,
    gpu_segs: U32,
    job_offsets: U32,
    job_segs: U32,
    events: F64,
    plan_job: U32,
    plan_t: F64,
    plan_from: F64,
    plan_offsets: U32,
    plan_gpus: F64,
    plan_until: F64,
    group_job: U32,
    group_t: F64,
    group: U32,
});
columnar!(RoundColumns {
    t: F64,
    busy_gpus: U32,
    running: U32,
    waiting: U32,
    changes: U32,
    solver_s: F64,
    vars: F64,
    changed_vars: F64,
});
columnar!(JobColumns {
    arrival: F64,
    start: F64,
    finish: F64,
    jct: F64,
    queue: F64,
    gpu_s: F64,
    restarts: U32,
    preemptions: U32,
    ftf: F64,
    pred_jct: F64,
    pred_err: F64,
    due: F64,
    work: F64,
    declared_work: F64,
    tardiness_cost: F64,
    speedup: F64,
    gpus_requested: U32,
    pool: I32,
    model: U32,
    models: Str,
    names: Str,
});

fn csr(n: usize, keys: impl Iterator<Item = (usize, u32)> + Clone) -> (Vec<u32>, Vec<u32>) {
    let mut offsets = vec![0u32; n + 1];
    for (k, _) in keys.clone() {
        offsets[k + 1] += 1;
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let mut fill = offsets.clone();
    let mut items = vec![0u32; offsets[n] as usize];
    for (k, v) in keys {
        items[fill[k] as usize] = v;
        fill[k] += 1;
    }
    (offsets, items)
}

impl TimelineColumns {
    pub fn from_outcome(o: &Outcome, total_gpus: u32) -> TimelineColumns {
        let tl = &o.timeline;
        let segs = &tl.segments;
        let mut c = TimelineColumns {
            seg_job: segs.iter().map(|s| s.job).collect(),
            seg_kind: segs.iter().map(|s| s.kind.0).collect(),
            seg_start: segs.iter().map(|s| s.start).collect(),
            seg_end: segs.iter().map(|s| s.end).collect(),
            seg_busy_until: segs.iter().map(|s| s.busy_until).collect(),
            seg_batch: segs.iter().map(|s| s.batch).collect(),
            seg_gpu_offset: segs.iter().map(|s| s.gpu_offset).collect(),
            seg_gpu_count: segs.iter().map(|s| s.gpu_count).collect(),
            seg_progress_start: segs.iter().map(|s| s.progress_start).collect(),
            seg_progress_end: segs.iter().map(|s| s.progress_end).collect(),
            seg_restarts: segs.iter().map(|s| s.restarts).collect(),
            seg_share: segs.iter().map(|s| s.share).collect(),
            gpus: tl.gpus.clone(),
            ..Default::default()
        };
        // Segments are recorded in start order, so both indexes come out sorted.
        let gpu_keys = segs.iter().enumerate().flat_map(|(i, s)| {
            tl.gpus_of(s)
                .iter()
                .filter(|g| **g < total_gpus)
                .map(move |g| (*g as usize, i as u32))
        });
        (c.gpu_offsets, c.gpu_segs) = csr(total_gpus as usize, gpu_keys);
        let n_jobs = o.jobs.len();
        let job_keys = segs
            .iter()
            .enumerate()
            .filter(|(_, s)| (s.job as usize) < n_jobs)
            .map(|(i, s)| (s.job as usize, i as u32));
        (c.job_offsets, c.job_segs) = csr(n_jobs, job_keys);
        let mut ev: Vec<f64> = Vec::with_capacity(segs.len() * 3 + n_jobs * 2);
        for s in segs {
            ev.extend([s.start, s.end, s.busy_until]);
        }
        for j in &o.jobs {
            ev.push(j.arrival);
            ev.extend(j.finish);
        }
        ev.retain(|t| t.is_finite());
        schedlab_core::sorting::sort_by(&mut ev, f64::total_cmp);
        ev.dedup();
        c.events = ev;
        c.plan_offsets.push(0);
        for p in &tl.plans {
            c.plan_job.push(p.job);
            c.plan_t.push(p.t);
            c.plan_from.push(p.from);
            c.plan_gpus.extend(p.steps.iter().map(|s| s.gpus));
            c.plan_until.extend(p.steps.iter().map(|s| s.until));
            c.plan_offsets.push(c.plan_gpus.len() as u32);
        }
        for g in &tl.groups {
            c.group_job.push(g.job);
            c.group_t.push(g.t);
            c.group.push(g.group);
        }
        c
    }
}

impl RoundColumns {
    pub fn from_outcome(o: &Outcome) -> RoundColumns {
        let r = &o.rounds;
        RoundColumns {
            t: r.iter().map(|x| x.t).collect(),
            busy_gpus: r.iter().map(|x| x.busy_gpus).collect(),
            running: r.iter().map(|x| x.running).collect(),
            waiting: r.iter().map(|x| x.waiting).collect(),
            changes: r.iter().map(|x| x.changes).collect(),
            solver_s: r
                .iter()
                .map(|x| x.solver_slowest_part_s.unwrap_or(x.solver_s))
                .collect(),
            vars: r
                .iter()
                .map(|x| x.solver_vars.map_or(f64::NAN, f64::from))
                .collect(),
            changed_vars: r
                .iter()
                .map(|x| x.solver_changed_vars.map_or(f64::NAN, f64::from))
                .collect(),
        }
    }
}

impl JobColumns {
    pub fn from_metrics(o: &Outcome, jobs: &[JobMetrics]) -> JobColumns {
        let nan = f64::NAN;
        let mut models: Vec<String> = Vec::new();
        let mut model_ix: BTreeMap<&str, u32> = BTreeMap::new();
        let mut model = Vec::with_capacity(jobs.len());
        for j in jobs {
            let ix = *model_ix.entry(j.model.as_str()).or_insert_with(|| {
                models.push(j.model.clone());
                models.len() as u32 - 1
            });
            model.push(ix);
        }
        JobColumns {
            arrival: jobs.iter().map(|j| j.arrival).collect(),
            start: jobs.iter().map(|j| j.start.unwrap_or(nan)).collect(),
            finish: jobs.iter().map(|j| j.finish.unwrap_or(nan)).collect(),
            jct: jobs.iter().map(|j| j.jct_s.unwrap_or(nan)).collect(),
            queue: jobs.iter().map(|j| j.queue_s.unwrap_or(nan)).collect(),
            gpu_s: jobs.iter().map(|j| j.gpu_s).collect(),
            restarts: jobs.iter().map(|j| j.restarts).collect(),
            preemptions: jobs.iter().map(|j| j.preemptions).collect(),
            ftf: jobs.iter().map(|j| j.ftf_rho.unwrap_or(nan)).collect(),
            pred_jct: jobs
                .iter()
                .map(|j| j.predicted_jct_s.unwrap_or(nan))
                .collect(),
            pred_err: jobs
                .iter()
                .map(|j| j.pred_error_pct.unwrap_or(nan))
                .collect(),
            due: o.jobs.iter().map(|j| j.due.unwrap_or(nan)).collect(),
            work: o.jobs.iter().map(|j| j.work).collect(),
            declared_work: o.jobs.iter().map(|j| j.declared_work).collect(),
            tardiness_cost: jobs
                .iter()
                .map(|j| j.tardiness_cost_usd.unwrap_or(nan))
                .collect(),
            speedup: jobs.iter().map(|j| j.speedup.unwrap_or(nan)).collect(),
            gpus_requested: o.jobs.iter().map(|j| j.gpus_requested).collect(),
            pool: o
                .jobs
                .iter()
                .map(|j| {
                    o.pools
                        .iter()
                        .position(|p| p.name == j.tenant)
                        .map_or(-1, |i| i as i32)
                })
                .collect(),
            model,
            models,
            names: jobs.iter().map(|j| j.name.clone()).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::runner::Runner;
    use schedlab_model::workload::load_named;

    #[test]
    fn indexes_find_the_holder_of_each_gpu() {
        let trace = load_named("afs-mini").unwrap().unwrap();
        let mut r = Runner::new(trace, "afs-64", "maxmin", &[], 1).unwrap();
        r.run(1000, &mut |_| true).unwrap();
        let out = r.finish().unwrap();
        let tl = &out.timeline;
        let n = tl.seg_job.len();
        assert!(n > 0);
        assert_eq!(*tl.gpu_offsets.last().unwrap() as usize, tl.gpus.len());
        assert_eq!(*tl.job_offsets.last().unwrap() as usize, n);
        // On each GPU, segments are in start order and never overlap.
        for g in 0..64 {
            let list = &tl.gpu_segs[tl.gpu_offsets[g] as usize..tl.gpu_offsets[g + 1] as usize];
            for w in list.windows(2) {
                let (a, b) = (w[0] as usize, w[1] as usize);
                assert!(
                    tl.seg_end[a] <= tl.seg_start[b],
                    "gpu {g}: {a} overlaps {b}"
                );
            }
        }
        // Each job's segments: in order, progress never goes backwards, and
        // a finished job's last segment ends at its finish with all work done.
        for j in 0..out.jobs.arrival.len() {
            let list = &tl.job_segs[tl.job_offsets[j] as usize..tl.job_offsets[j + 1] as usize];
            assert!(!list.is_empty(), "job {j} never ran");
            for &s in list {
                let s = s as usize;
                assert_eq!(tl.seg_job[s] as usize, j);
                assert!(tl.seg_progress_start[s] <= tl.seg_progress_end[s] + 1e-12);
            }
            let last = *list.last().unwrap() as usize;
            assert_eq!(tl.seg_end[last], out.jobs.finish[j]);
            assert_eq!(tl.seg_progress_end[last], 1.0);
        }
        assert!(tl.events.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(out.rounds.t.len(), out.run.outcome.rounds.len());
    }
}
