//! Time series for the comparison charts: utilisation, running and waiting
//! jobs as time-weighted averages over equal bins, and the JCT CDF thinned
//! to a few hundred points (a 50,000-job CDF drawn point by point would
//! cost the page a long frame for no visible gain).

use schedlab_sim::Outcome;

/// Time-weighted bin averages over `[t0, t1]`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Series {
    /// Bin centres, seconds.
    pub t: Vec<f64>,
    /// Busy GPUs / cluster GPUs.
    pub util: Vec<f64>,
    /// Jobs arrived, unfinished and holding no GPUs.
    pub queue: Vec<f64>,
    /// Jobs holding GPUs.
    pub running: Vec<f64>,
    /// Cluster efficiency CE (AFS §5: speedup of every running job on its
    /// share over one GPU, per cluster GPU), time-weighted per bin.
    pub ce: Vec<f64>,
    /// Blocking index BI (AFS §5), its value at each event held until the
    /// next, time-weighted per bin.
    pub bi: Vec<f64>,
    /// GPUs held beyond their pool's quota, summed over pools (lent by
    /// other pools; 0 without pools), time-weighted per bin.
    pub borrowed: Vec<f64>,
    /// Times of the cumulative costs: the first bin's start, then every
    /// bin's end (empty when the run has no cost).
    pub cost_t: Vec<f64>,
    /// GPU cost in dollars up to each `cost_t` (STS's energy cost).
    pub gpu_cost: Vec<f64>,
    /// Tardiness cost in dollars up to each `cost_t`: a job past its due
    /// date adds its weight per second until it finishes.
    pub tardiness_cost: Vec<f64>,
}

/// Bins used by the page's charts.
pub const BINS: usize = 400;

/// Utilisation and queue length over the run, from the recorded timeline.
pub fn over_time(o: &Outcome, total_gpus: u32, bins: usize) -> Series {
    // Each job's pool (index into `o.pools`), for the GPUs held beyond quotas.
    let pool_of: Vec<Option<usize>> = o
        .jobs
        .iter()
        .map(|j| o.pools.iter().position(|p| p.name == j.tenant))
        .collect();
    // (time, d busy GPUs, d running jobs, d active jobs, pool)
    let mut deltas: Vec<(f64, f64, f64, f64, Option<usize>)> = Vec::new();
    for s in &o.timeline.segments {
        let pool = pool_of.get(s.job as usize).copied().flatten();
        // A fluid allocation's parts add GPUs, not running jobs.
        let job = if s.continued { 0.0 } else { 1.0 };
        deltas.push((s.start, s.gpu_count as f64, job, 0.0, pool));
        deltas.push((s.end, -(s.gpu_count as f64), -job, 0.0, pool));
    }
    let end = o.end_time;
    for j in &o.jobs {
        if j.arrival <= end {
            deltas.push((j.arrival, 0.0, 0.0, 1.0, None));
            deltas.push((j.finish.unwrap_or(end), 0.0, 0.0, -1.0, None));
        }
    }
    let t0 = first_arrival(o);
    let t1 = deltas.iter().map(|d| d.0).fold(end, f64::max);
    if bins == 0 || !t0.is_finite() || t1 <= t0 {
        return Series::default();
    }
    schedlab_core::sorting::sort_by(&mut deltas, |a, b| a.0.total_cmp(&b.0));
    let width = (t1 - t0) / bins as f64;
    let mut acc = vec![[0.0f64; 4]; bins];
    let (mut busy, mut run, mut active, mut borrowed) = (0.0, 0.0, 0.0, 0.0);
    let mut used = vec![0.0f64; o.pools.len()];
    let mut t = t0;
    let mut add = |from: f64, to: f64, v: [f64; 4]| {
        if to <= from {
            return;
        }
        let first = (((from - t0) / width) as usize).min(bins - 1);
        let last = (((to - t0) / width) as usize).min(bins - 1);
        for (b, slot) in acc.iter_mut().enumerate().take(last + 1).skip(first) {
            let lo = t0 + b as f64 * width;
            let overlap = to.min(lo + width) - from.max(lo);
            if overlap > 0.0 {
                for k in 0..4 {
                    slot[k] += v[k] * overlap;
                }
            }
        }
    };
    for (at, db, dr, da, pool) in deltas {
        add(t, at, [busy, run, active - run, borrowed]);
        t = t.max(at);
        busy += db;
        run += dr;
        active += da;
        if let Some(p) = pool {
            let quota = o.pools[p].quota as f64;
            borrowed -= (used[p] - quota).max(0.0);
            used[p] += db;
            borrowed += (used[p] - quota).max(0.0);
        }
    }
    let g = total_gpus.max(1) as f64;
    let mut s = Series::default();
    for (b, a) in acc.iter().enumerate() {
        s.t.push(t0 + (b as f64 + 0.5) * width);
        s.util.push(a[0] / width / g);
        s.running.push(a[1] / width);
        s.queue.push((a[2] / width).max(0.0));
        s.borrowed.push((a[3] / width).max(0.0));
    }
    s
}

/// Where the bins start: the first arrival (infinite without jobs).
fn first_arrival(o: &Outcome) -> f64 {
    o.jobs
        .iter()
        .map(|j| j.arrival)
        .fold(f64::INFINITY, f64::min)
}

/// Adds CE and BI (from [`schedlab_metrics::time_series`]) to `s`, averaged
/// over the same bins.
pub fn add_efficiency(s: &mut Series, ts: &schedlab_metrics::TimeSeries) {
    let bins = s.t.len();
    s.ce = vec![0.0; bins];
    s.bi = vec![0.0; bins];
    if bins == 0 || ts.is_empty() {
        return;
    }
    let width = if bins > 1 {
        s.t[1] - s.t[0]
    } else {
        2.0 * (s.t[0] - ts.t[0]).abs().max(1.0)
    };
    let t0 = s.t[0] - width / 2.0;
    let mut acc = vec![[0.0f64; 2]; bins];
    for i in 0..ts.len() {
        let (from, to) = (ts.t[i], ts.t.get(i + 1).copied().unwrap_or(ts.t[i]));
        if to <= from || width <= 0.0 {
            continue;
        }
        let first = (((from - t0) / width).max(0.0) as usize).min(bins - 1);
        let last = (((to - t0) / width).max(0.0) as usize).min(bins - 1);
        for (b, slot) in acc.iter_mut().enumerate().take(last + 1).skip(first) {
            let lo = t0 + b as f64 * width;
            let overlap = to.min(lo + width) - from.max(lo);
            if overlap > 0.0 {
                slot[0] += ts.ce[i] * overlap;
                slot[1] += ts.bi[i] * overlap;
            }
        }
    }
    for (b, a) in acc.iter().enumerate() {
        s.ce[b] = a[0] / width;
        s.bi[b] = a[1] / width;
    }
}

/// Adds the cumulative GPU and tardiness costs at the bins' edges (STS's
/// cost over time, spec seed002 §8.4): the GPU cost integrates the
/// engine's recorded cost rate, the tardiness cost each late job's weight
/// from its due date to its finish (the run's end if unfinished). Both end
/// at the run's totals. Left empty when the run has neither.
pub fn add_costs(s: &mut Series, o: &Outcome, specs: &[schedlab_model::workload::JobSpec]) {
    let rate = &o.timeline.gpu_cost_rate;
    let late: Vec<(f64, f64, f64)> = o
        .jobs
        .iter()
        .zip(specs)
        .filter_map(|(j, spec)| Some((j.due?, j.finish.unwrap_or(o.end_time), spec.weight)))
        .filter(|(due, end, _)| end > due)
        .collect();
    if s.t.is_empty() || (rate.is_empty() && late.is_empty()) {
        return;
    }
    let t0 = first_arrival(o);
    let width = if s.t.len() > 1 {
        s.t[1] - s.t[0]
    } else {
        2.0 * (s.t[0] - t0)
    };
    s.cost_t = (0..=s.t.len()).map(|b| t0 + b as f64 * width).collect();
    // Integral up to each edge of a step function given as sorted
    // (from, slope per second) changes.
    let integrate = |mut changes: Vec<(f64, f64)>| -> Vec<f64> {
        schedlab_core::sorting::sort_by(&mut changes, |a, b| a.0.total_cmp(&b.0));
        let start = changes
            .first()
            .map_or(s.cost_t[0], |c| c.0)
            .min(s.cost_t[0]);
        let (mut total, mut slope, mut at, mut next) = (0.0, 0.0, start, 0);
        s.cost_t
            .iter()
            .map(|&edge| {
                while next < changes.len() && changes[next].0 <= edge {
                    let (t, d) = changes[next];
                    total += slope * (t - at).max(0.0);
                    (slope, at, next) = (slope + d, t, next + 1);
                }
                total + slope * (edge - at).max(0.0)
            })
            .collect()
    };
    // The recorded rate holds until the next change and stops at the end.
    let mut gpu: Vec<(f64, f64)> = Vec::with_capacity(rate.len() + 1);
    let mut last = 0.0;
    for &(t, usd_h) in rate {
        gpu.push((t, (usd_h - last) / 3600.0));
        last = usd_h;
    }
    gpu.push((o.end_time, -last / 3600.0));
    s.gpu_cost = integrate(gpu);
    let tardy = late
        .iter()
        .flat_map(|&(due, end, w)| [(due, w), (end, -w)])
        .collect();
    s.tardiness_cost = integrate(tardy);
}

/// Points of the empirical CDF of `values` (NaN ignored): x sorted, y the
/// fraction <= x. At most `max_points`, always including both ends.
pub fn cdf(values: &[f64], max_points: usize) -> (Vec<f64>, Vec<f64>) {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    schedlab_core::sorting::sort_by(&mut v, f64::total_cmp);
    let n = v.len();
    if n == 0 || max_points < 2 {
        return (Vec::new(), Vec::new());
    }
    let idx: Vec<usize> = if n <= max_points {
        (0..n).collect()
    } else {
        let mut ix: Vec<usize> = (0..max_points)
            .map(|k| ((k as f64 * (n - 1) as f64) / (max_points - 1) as f64).round() as usize)
            .collect();
        ix.dedup();
        ix
    };
    let x = idx.iter().map(|&i| v[i]).collect();
    let y = idx.iter().map(|&i| (i + 1) as f64 / n as f64).collect();
    (x, y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::cluster::GpuKind;
    use schedlab_sim::{JobResult, Timeline};

    fn job(id: u32, arrival: f64, finish: f64) -> JobResult {
        JobResult {
            id,
            name: format!("j{id}"),
            model: "linear".into(),
            tenant: String::new(),
            gpus_requested: 2,
            arrival,
            start: None,
            finish: Some(finish),
            gpu_s: 0.0,
            run_s: 0.0,
            restarts: 0,
            restart_kinds: Default::default(),
            preemptions: 0,
            restart_s: 0.0,
            migrations: 0,
            cancelled: 0,
            work: 1.0,
            declared_work: 1.0,
            n_avg: 1.0,
            due: None,
            energy_j: 0.0,
            held_idle_j: 0.0,
            predicted_finish: None,
        }
    }

    #[test]
    fn bin_averages_match_a_hand_computed_schedule() {
        // Job 0 holds 2 GPUs over [0, 50); job 1 arrives at 0, waits, holds 4 over [50, 100).
        let mut tl = Timeline::default();
        let a = tl.open(0, GpuKind(0), 0.0, 0.0, 1, &[0, 1], 0.0, 0, 1.0);
        tl.close(a, 50.0, 1.0);
        let b = tl.open(1, GpuKind(0), 50.0, 50.0, 1, &[0, 1, 2, 3], 0.0, 0, 1.0);
        tl.close(b, 100.0, 1.0);
        let o = Outcome {
            jobs: vec![job(0, 0.0, 50.0), job(1, 0.0, 100.0)],
            timeline: tl,
            rounds: Vec::new(),
            end_time: 100.0,
            events: 0,
            incomplete: 0,
            stop_reason: String::new(),
            notes: Vec::new(),
            rules: Default::default(),
            pools: vec![],
            gpu_time: vec![],
            gpu_cost_usd: None,
            reasons: Default::default(),
            gauges: Default::default(),
        };
        let s = over_time(&o, 4, 4);
        assert_eq!(s.t, vec![12.5, 37.5, 62.5, 87.5]);
        assert_eq!(s.util, vec![0.5, 0.5, 1.0, 1.0]);
        assert_eq!(s.queue, vec![1.0, 1.0, 0.0, 0.0]);
        assert_eq!(s.running, vec![1.0, 1.0, 1.0, 1.0]);
        // A bin boundary inside a step averages it.
        let s = over_time(&o, 4, 3);
        assert!((s.util[1] - (0.5 * 50.0 / 3.0 + 1.0 * 50.0 / 3.0) / (100.0 / 3.0)).abs() < 1e-12);
    }

    /// CE and BI are time-weighted over the same bins as utilisation.
    #[test]
    fn efficiency_bins() {
        let mut s = Series {
            t: vec![25.0, 75.0],
            util: vec![0.0; 2],
            queue: vec![0.0; 2],
            running: vec![0.0; 2],
            ce: vec![],
            bi: vec![],
            borrowed: vec![],
            ..Series::default()
        };
        let ts = schedlab_metrics::TimeSeries {
            t: vec![0.0, 40.0, 100.0],
            queue: vec![0, 1, 0],
            running: vec![1, 1, 0],
            busy_gpus: vec![1, 1, 0],
            ce: vec![1.0, 0.5, 0.0],
            bi: vec![0.0, 2.0, 0.0],
        };
        add_efficiency(&mut s, &ts);
        // Bin [0, 50): 40 s at CE 1, 10 s at 0.5; bin [50, 100): 0.5 throughout.
        assert!((s.ce[0] - (40.0 + 5.0) / 50.0).abs() < 1e-12, "{:?}", s.ce);
        assert!((s.ce[1] - 0.5).abs() < 1e-12);
        assert!((s.bi[0] - 20.0 / 50.0).abs() < 1e-12, "{:?}", s.bi);
        assert!((s.bi[1] - 2.0).abs() < 1e-12);
    }

    #[test]
    fn cdf_is_thinned_but_keeps_the_ends() {
        let (x, y) = cdf(&[3.0, f64::NAN, 1.0, 2.0], 10);
        assert_eq!(x, vec![1.0, 2.0, 3.0]);
        assert_eq!(y, vec![1.0 / 3.0, 2.0 / 3.0, 1.0]);
        let big: Vec<f64> = (0..50_000).map(|i| i as f64).collect();
        let (x, y) = cdf(&big, 300);
        assert_eq!(x.len(), 300);
        assert_eq!(
            (x[0], *x.last().unwrap(), *y.last().unwrap()),
            (0.0, 49_999.0, 1.0)
        );
        assert!(x.windows(2).all(|w| w[0] < w[1]));
    }
}

crate::columns::columnar!(Series {
    t: F64,
    util: F64,
    queue: F64,
    running: F64,
    ce: F64,
    bi: F64,
    borrowed: F64,
    cost_t: F64,
    gpu_cost: F64,
    tardiness_cost: F64
});
