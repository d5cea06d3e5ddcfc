//! Pools (tenants with GPU quotas): the admission stage keeps every pool
//! within its quota, per-pool FCFS holds, and the engine's per-pool ledger
//! agrees with the recorded timeline.

use schedlab::cluster::{parse_cluster, Cluster, Pools};
use schedlab::perf::ModelZoo;
use schedlab::policy;
use schedlab::sim::{EngineConfig, Outcome, Simulation};
use schedlab::workload::{load_named, Trace};

/// afs-mini with its jobs spread over three pools (jobs wider than 16 GPUs
/// go to the 32-GPU pool, so every job fits its own quota).
fn pooled() -> (Trace, Cluster) {
    let mut trace = load_named("afs-mini").unwrap().unwrap();
    for (i, j) in trace.jobs.iter_mut().enumerate() {
        j.tenant = if j.gpus > 16 {
            "a"
        } else {
            ["a", "b", "c"][i % 3]
        }
        .to_string();
    }
    let mut cluster = parse_cluster("afs-64").unwrap();
    cluster.pools = Pools::parse_list("a=32,b=16,c=16").unwrap();
    (trace, cluster)
}

fn run(name: &str, trace: &Trace, cluster: &Cluster) -> Outcome {
    let (p, _) = policy::build(name, &[], 1).unwrap();
    let cfg = EngineConfig::from_overrides(&[("timeline".into(), "true".into())]).unwrap();
    Simulation::new(trace, cluster, &ModelZoo::builtin(), p, cfg)
        .unwrap()
        .run(&mut |_| true)
        .unwrap()
}

/// Per pool: the most GPUs held at once and the GPU-seconds beyond the
/// quota, recomputed from the timeline's segments.
fn from_timeline(out: &Outcome, trace: &Trace, pools: &Pools) -> Vec<(u32, f64)> {
    let mut res = Vec::new();
    for (id, pool) in pools.pools.iter().enumerate() {
        let mut edges: Vec<(f64, i64)> = Vec::new();
        for s in &out.timeline.segments {
            if pools.id_of(&trace.jobs[s.job as usize].tenant) == Some(id as u16) {
                edges.push((s.start, s.gpu_count as i64));
                edges.push((s.end, -(s.gpu_count as i64)));
            }
        }
        // Releases before claims at the same instant.
        edges.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let (mut held, mut peak, mut over, mut last) = (0i64, 0i64, 0.0, 0.0);
        for (t, d) in edges {
            over += (held - pool.quota as i64).max(0) as f64 * (t - last);
            last = t;
            held += d;
            peak = peak.max(held);
        }
        res.push((peak as u32, over));
    }
    res
}

#[test]
fn the_admission_stage_keeps_every_pool_within_its_quota() {
    let (trace, cluster) = pooled();
    let out = run("pool-fcfs", &trace, &cluster);
    assert_eq!(out.incomplete, 0, "{}", out.stop_reason);
    assert_eq!(out.pools.len(), 3);
    let seen = from_timeline(&out, &trace, &cluster.pools);
    for (q, (peak, over)) in out.pools.iter().zip(seen) {
        assert!(
            q.peak_gpus <= q.quota,
            "{}: peak {} > quota {}",
            q.name,
            q.peak_gpus,
            q.quota
        );
        assert_eq!(q.peak_gpus, peak, "{}: ledger against timeline", q.name);
        assert_eq!(q.borrowed_gpu_s, 0.0);
        assert_eq!(over, 0.0);
    }
    // Strict FCFS within each pool: nobody starts before an earlier job of its pool.
    for pool in ["a", "b", "c"] {
        let starts: Vec<f64> = out
            .jobs
            .iter()
            .filter(|j| j.tenant == pool)
            .map(|j| j.start.unwrap())
            .collect();
        assert!(
            starts.windows(2).all(|w| w[0] <= w[1]),
            "pool {pool} overtaken"
        );
    }
}

/// A policy that ignores pools borrows beyond quotas; the ledger measures
/// it exactly as the timeline shows it.
#[test]
fn the_ledger_measures_borrowing_by_a_pool_blind_policy() {
    let (trace, cluster) = pooled();
    let out = run("fifo", &trace, &cluster);
    let seen = from_timeline(&out, &trace, &cluster.pools);
    let mut borrowed = 0.0;
    for (q, (peak, over)) in out.pools.iter().zip(seen) {
        assert_eq!(q.peak_gpus, peak, "{}", q.name);
        assert!(
            (q.borrowed_gpu_s - over).abs() <= 1e-6 * over.max(1.0),
            "{}: {} against {over}",
            q.name,
            q.borrowed_gpu_s
        );
        borrowed += q.borrowed_gpu_s;
    }
    assert!(borrowed > 0.0, "FIFO never exceeded a quota on this trace");
    assert!(out.pools.iter().any(|q| q.peak_gpus > q.quota));
}

#[test]
fn undeclared_tenants_and_overcommitted_quotas_are_refused() {
    let (mut trace, cluster) = pooled();
    trace.jobs[5].tenant = "zz".into();
    let (p, _) = policy::build("pool-fcfs", &[], 1).unwrap();
    let e = Simulation::new(
        &trace,
        &cluster,
        &ModelZoo::builtin(),
        p,
        EngineConfig::default(),
    )
    .err()
    .unwrap();
    assert!(
        e.to_string().contains("tenant 'zz'") && e.to_string().contains("a, b, c"),
        "{e}"
    );
    let (trace, mut cluster) = pooled();
    cluster.pools = Pools::parse_list("a=32,b=16,c=17").unwrap();
    let (p, _) = policy::build("pool-fcfs", &[], 1).unwrap();
    let e = Simulation::new(
        &trace,
        &cluster,
        &ModelZoo::builtin(),
        p,
        EngineConfig::default(),
    )
    .err()
    .unwrap();
    assert!(e.to_string().contains("65 GPUs"), "{e}");
}
