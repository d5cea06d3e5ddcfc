//! Property tests for the goodput models and the profile reader:
//! - random text in any profile file gives Ok or an input error, never a panic;
//! - every Pollux model gives a finite positive rate, a consistent batch and
//!   a next epoch boundary beyond the current progress on any allocation;
//! - the estimator never panics and only offers what it can back.

use proptest::prelude::*;
use schedlab::cluster::{GpuKind, CATALOG};
use schedlab::perf::goodput::{GoodputEstimator, ProfilingMode};
use schedlab::perf::profiles::ProfileSet;
use schedlab::perf::{BatchChoice, Behaviour, ModelZoo, RateQuery};

const PATHS: &[&str] = &[
    "m/placements.csv",
    "m/placements-rtx.csv",
    "m/scalability-quad.csv",
    "m/validation-64.csv",
    "seed/m.csv",
    "profiles/m.csv",
];

const HEADERS: &[&str] = &[
    "placement,local_bsz,step_time,sync_time\n",
    "num_nodes,num_replicas,local_bsz,step_time,sync_time\n",
    "progress,iteration,metric,grad_sqr,grad_var\n",
    "gpu_type,local_bsz,placement,step_time,sync_time\n",
    "",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn profile_files_never_panic(
        path in 0usize..PATHS.len(),
        header in 0usize..HEADERS.len(),
        body in "[0-9a-z.,\\-\\n eE+]{0,200}",
        bytes in prop::collection::vec(any::<u8>(), 0..64),
    ) {
        let mut set = ProfileSet::default();
        let text = format!("{}{}{}", HEADERS[header], body, String::from_utf8_lossy(&bytes));
        match set.add_file(PATHS[path], &text) {
            Ok(_) => {}
            Err(e) => prop_assert!(e.is_user_error(), "{e:?}"),
        }
        // Whatever was accepted can be fitted without panicking.
        let _ = schedlab::perf::fitting::fit_set(&set);
    }

    #[test]
    fn rates_are_finite_and_boundaries_advance(
        model in 0usize..6,
        kind in 0usize..CATALOG.len(),
        gpus in 1u32..65,
        per_node in prop_oneof![Just(1u32), Just(4), Just(8)],
        fixed in prop::option::of(1u32..40000),
        frac in 0.0f64..1.2,
    ) {
        let zoo = ModelZoo::builtin();
        let name = ["bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"][model];
        let id = zoo.lookup(name).unwrap();
        let total = zoo.get(id).default_work.unwrap();
        let progress = frac * total;
        let batch = match fixed {
            Some(b) => BatchChoice::Fixed(b),
            None => BatchChoice::Optimize { max: 0 },
        };
        let q = RateQuery {
            kind: GpuKind(kind as u8),
            gpus,
            nodes: gpus.div_ceil(per_node),
            batch,
            progress,
        };
        let r = zoo.rate(id, &q);
        prop_assert!(r.per_s.is_finite() && r.per_s > 0.0, "{r:?}");
        prop_assert!(r.batch >= 1);
        prop_assert!(r.until_progress > progress, "{r:?} at {progress}");
        let Behaviour::Goodput(g) = &zoo.get(id).behaviour else { unreachable!() };
        // Never above M_max, at least one sample per GPU.
        prop_assert!(r.batch <= g.max_batch.max(gpus), "{r:?}");
    }

    #[test]
    fn estimator_offers_only_what_it_can_back(
        model in 0usize..6,
        mode in 0usize..4,
        runs in prop::collection::vec((0usize..3, 1u32..17, 1u32..64), 0..6),
        ask in (0usize..3, 1u32..33),
    ) {
        let zoo = ModelZoo::builtin();
        let name = ["bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"][model];
        let Behaviour::Goodput(g) = &zoo.get(zoo.lookup(name).unwrap()).behaviour else { unreachable!() };
        let kinds = [
            (GpuKind::by_name("t4").unwrap(), 4),
            (GpuKind::by_name("rtx").unwrap(), 8),
            (GpuKind::by_name("a100").unwrap(), 8),
        ];
        let modes = [ProfilingMode::Thesis, ProfilingMode::Artifact, ProfilingMode::TrueModel, ProfilingMode::NoProfiling];
        let mut est = GoodputEstimator::new(g, &kinds, modes[mode]);
        for (k, gpus, atomic) in runs {
            let plan = schedlab::perf::goodput::BatchPlan { replicas: gpus, atomic, accum: 0 };
            let (kind, per_node) = kinds[k];
            est.observe_run(g, kind, gpus.div_ceil(per_node), &plan, 0.0);
        }
        let (k, gpus) = ask;
        let (kind, per_node) = kinds[k];
        if let Some(e) = est.estimate(kind, gpus.div_ceil(per_node), gpus, 0) {
            prop_assert!(e.goodput.is_finite() && e.goodput > 0.0, "{e:?}");
        }
        prop_assert!(est.max_replicas() >= 1 && est.max_replicas() <= 64);
    }
}
