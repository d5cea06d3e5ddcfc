//! The engine with Pollux goodput models: epoch-by-epoch rates, rigid vs
//! adaptive batch choice, restart-delay override, Sia calibration and
//! duration conversion. Expected times are summed epoch by epoch from the
//! zoo's own rates, so they check the engine's bookkeeping, not the model.

use schedlab::cluster::{parse_cluster, GpuKind};
use schedlab::metrics::evaluate;
use schedlab::perf::{BatchChoice, ModelZoo, RateQuery};
use schedlab::policy;
use schedlab::sim::{Decision, EngineConfig, Simulation, View};
use schedlab::workload::{Adaptivity, JobSpec, Trace};

/// Starts waiting jobs on their requested GPUs with their natural batch
/// choice (rigid: the trace's batch; adaptive: goodput-optimal).
#[derive(Clone)]
struct Natural;

impl policy::Policy for Natural {
    fn name(&self) -> &str {
        "natural"
    }
    fn trigger(&self) -> policy::Trigger {
        policy::Trigger::events_or_rounds(0.0)
    }
    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let mut packer = view.packer_idle();
        for &j in view.waiting().iter() {
            if let Some(p) = policy::claim_rigid(&mut packer, view, j) {
                out.assign(j, p, None);
            }
        }
    }
}

fn run(job: JobSpec, engine: &[(&str, &str)]) -> f64 {
    let trace = Trace::from_jobs("t", vec![job]).unwrap();
    let cluster = parse_cluster("homog-64").unwrap();
    let zoo = ModelZoo::builtin();
    let p: Box<dyn policy::Policy> = Box::new(Natural);
    let eng: Vec<(String, String)> = engine
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut sim = Simulation::new(
        &trace,
        &cluster,
        &zoo,
        p,
        EngineConfig::from_overrides(&eng).unwrap(),
    )
    .unwrap();
    let out = sim.run(&mut |_| true).unwrap();
    let (s, _) = evaluate(&out, &trace.jobs, &cluster, &zoo);
    assert_eq!(s.completed, 1);
    out.jobs[0].finish.unwrap() - out.jobs[0].arrival
}

/// Seconds of progress from 0 to `work` at a fixed allocation, epoch by epoch.
fn busy_time(
    zoo: &ModelZoo,
    model: &str,
    gpus: u32,
    nodes: u32,
    batch: BatchChoice,
) -> (f64, Vec<u32>) {
    let id = zoo.lookup(model).unwrap();
    let work = zoo.get(id).default_work.unwrap();
    let (mut p, mut t) = (0.0, 0.0);
    let mut batches = Vec::new();
    while p < work {
        let r = zoo.rate(
            id,
            &RateQuery {
                kind: GpuKind::by_name("t4").unwrap(),
                gpus,
                nodes,
                batch,
                progress: p,
            },
        );
        batches.push(r.batch);
        let next = r.until_progress.min(work);
        t += (next - p) / r.per_s;
        p = next;
    }
    (t, batches)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

#[test]
fn rigid_job_runs_its_batch_epoch_by_epoch() {
    let zoo = ModelZoo::builtin();
    let mut j = JobSpec::new("c", 0.0, "cifar10", 4);
    j.adaptivity = Adaptivity::Rigid;
    j.batch_size = 2048;
    let (busy, batches) = busy_time(&zoo, "cifar10", 4, 1, BatchChoice::Fixed(2048));
    assert_eq!(batches.len(), 100, "one rate per epoch");
    assert!(batches.iter().all(|b| *b == 2048));
    let jct = run(j, &[("restart_s", "30")]);
    assert!(close(jct, 30.0 + busy), "{jct} vs {}", 30.0 + busy);
}

#[test]
fn adaptive_job_reoptimises_its_batch_at_each_epoch() {
    let zoo = ModelZoo::builtin();
    let j = JobSpec::new("c", 0.0, "cifar10", 8);
    assert_eq!(j.adaptivity, Adaptivity::Adaptive);
    let (busy, batches) = busy_time(&zoo, "cifar10", 8, 2, BatchChoice::Optimize { max: 4096 });
    // Efficiency rises as training proceeds, so the optimal batch grows.
    assert!(
        batches.first().unwrap() < batches.last().unwrap(),
        "{batches:?}"
    );
    let jct = run(j, &[("restart_s", "0")]);
    assert!(close(jct, busy), "{jct} vs {busy}");
    // Keeping the first epoch's batch throughout would be slower.
    let (fixed, _) = busy_time(&zoo, "cifar10", 8, 2, BatchChoice::Fixed(batches[0]));
    assert!(fixed > busy * 1.05, "fixed {fixed} vs adaptive {busy}");
}

#[test]
fn per_model_restart_delay_and_sia_calibration() {
    let zoo = ModelZoo::builtin();
    let mut j = JobSpec::new("y", 0.0, "yolov3", 4);
    j.adaptivity = Adaptivity::Rigid;
    j.batch_size = 64;
    let (busy, _) = busy_time(&zoo, "yolov3", 4, 1, BatchChoice::Fixed(64));
    // Default: the Sia simulator's rescale_time of yolov3 (80 s).
    let jct = run(j.clone(), &[]);
    assert!(close(jct, 80.0 + busy), "{jct}");
    // Sia calibration divides the progress rate by SLOWDOWN (1.2 for yolov3).
    let jct = run(j, &[("calibration", "sia")]);
    assert!(close(jct, 80.0 + 1.2 * busy), "{jct}");
}

#[test]
fn a_duration_becomes_the_work_done_in_that_time() {
    let mut j = JobSpec::new("d", 0.0, "imagenet", 8).with_duration(5000.0);
    j.adaptivity = Adaptivity::Rigid;
    j.batch_size = 3200;
    // 5000 s spans several epochs of different efficiency.
    let jct = run(j, &[("restart_s", "0")]);
    assert!(close(jct, 5000.0), "{jct}");
}

#[test]
fn pollux_osdi21_zoo_limits_yolov3_to_8_per_t4() {
    let t4 = GpuKind::by_name("t4").unwrap();
    let q = RateQuery {
        kind: t4,
        gpus: 4,
        nodes: 1,
        batch: BatchChoice::Fixed(64),
        progress: 0.0,
    };
    let (a, b) = (ModelZoo::builtin(), ModelZoo::pollux_osdi21());
    let ra = a.rate(a.lookup("yolov3").unwrap(), &q);
    let rb = b.rate(b.lookup("yolov3").unwrap(), &q);
    assert_eq!((ra.batch, rb.batch), (64, 64));
    // 16 per GPU in one pass vs 2 passes of 8: different step times.
    assert!(ra.per_s != rb.per_s);
}
