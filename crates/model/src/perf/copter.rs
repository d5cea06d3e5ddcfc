//! COpter's two non-Sia job categories (thesis chapter 4; the authors' simulator,
//! `../shared/data/copter/README.md`) as table models, so that the `copter` trace
//! format and every policy can run them:
//!
//! - **batch inference** (`copter/imagenet_resnet50`, `copter/llama_8b_wikipedia`,
//!   `copter/llama_8b_commoncrawl`): scale in units of the type's `min_gpus`, at most
//!   16 units; throughput = units x per-unit throughput x `sim_speedup`; work =
//!   `num_iters`; restart 90 s. These are the authors' numbers as published (exact).
//! - **synthetic single-phase** (`copter/synthetic_{linear,sublinear,mixed}_{short,long}`):
//!   goodput tabulated per GPU count and type in the authors' profiles, 0 above 128 GPUs;
//!   restart 90 s. The zoo keeps a compact fit instead of the tables: per type the
//!   per-GPU rate r of the generator and five coefficients c of the slowdown
//!   `R(k) = c0 + c1 log2 k + c2 k + c3 k^2 + c4 k log2 k`, goodput(k) = k r / R(k),
//!   evaluated at the profiles' counts (1, 2, 4, then every 4 up to 128). Fitted by least
//!   squares on every listed count up to 128; largest relative error 0.069% over all 6
//!   profiles and types (`tests/copter.rs` checks it against the files when present).
//!   The profiles give one table for RTX 2080 Ti, used for the Quadro nodes too.
//!
//! The Sia jobs of these workloads use the zoo's `bert`, `cifar10`, ... models.

use super::table::{GoodputTable, TypeRates};
use super::{Behaviour, ModelInfo};
use crate::cluster::GpuKind;

/// Seconds without progress after every (re)allocation of a batch-inference or
/// synthetic job (the authors' simulator).
const RESTART_S: f64 = 90.0;
/// Most scale units a batch-inference job may hold.
const MAX_UNITS: u32 = 16;
/// The synthetic jobs make no progress on more GPUs than this.
const SYNTHETIC_MAX_GPUS: u32 = 128;

/// One batch-inference application: (GPU type, GPUs per unit, throughput per unit).
struct BatchInference {
    app: &'static str,
    description: &'static str,
    iters: f64,
    sim_speedup: f64,
    units: &'static [(&'static str, u32, f64)],
}

/// From `profiles/batch_inference.json` (azure = v100, aws = t4, dgx-ext = a100).
const BATCH_INFERENCE: &[BatchInference] = &[
    BatchInference {
        app: "imagenet_resnet50",
        description: schedlab_core::prose::doc("ResNet-50 batch inference on ImageNet (COpter): 1,431,167 iterations in units of 1 GPU of any type, up to 16 units"),
        iters: 1_431_167.0,
        sim_speedup: 1.0,
        units: &[
            ("v100", 1, 635.0),
            ("t4", 1, 401.0),
            ("a100", 1, 2343.0),
            ("a100-pcie", 1, 2343.0),
            ("a10", 1, 825.0),
            ("quad", 1, 489.0),
            ("rtx", 1, 440.0),
        ],
    },
    BatchInference {
        app: "llama_8b_wikipedia",
        description: schedlab_core::prose::doc("Llama-8B batch inference on Wikipedia (COpter): 1e8 iterations in units of 1-4 GPUs by type, up to 16 units"),
        iters: 1e8,
        sim_speedup: 1.0,
        units: LLAMA_UNITS,
    },
    BatchInference {
        app: "llama_8b_commoncrawl",
        description: schedlab_core::prose::doc("Llama-8B batch inference on CommonCrawl (COpter): 1.2e12 iterations at 500x simulated speed, in units of 1-4 GPUs by type, up to 16 units"),
        iters: 1.2e12,
        sim_speedup: 500.0,
        units: LLAMA_UNITS,
    },
];

const LLAMA_UNITS: &[(&str, u32, f64)] = &[
    ("v100", 2, 5100.0),
    ("t4", 4, 3800.0),
    ("a100", 1, 5424.0),
    ("a100-pcie", 1, 5400.0),
    ("a10", 2, 5400.0),
    ("quad", 2, 4000.0),
    ("rtx", 4, 8170.0),
];

/// One synthetic profile: its work (`max_progress`) and per GPU type the
/// generator's per-GPU rate and the slowdown fit (see the module doc).
struct SyntheticFit {
    app: &'static str,
    description: &'static str,
    work: f64,
    types: &'static [(&'static str, f64, [f64; 5])],
}

/// Fitted from `profiles/synthetic_*.json` (COpter artifact, MIT).
#[rustfmt::skip]
const SYNTHETIC: &[SyntheticFit] = &[
    SyntheticFit {
        app: "synthetic_linear_short",
        description: schedlab_core::prose::doc("COpter synthetic single-phase job, linear scaling, short: goodput per GPU type and count up to 128"),
        work: 350000.0,
        types: &[
            ("a100", 40.0, [0.9999983, 0.002997609, 0.0001020908, 2.217734e-08, 2.611264e-06]),
            ("a100-pcie", 35.0, [0.999993, 0.01749137, 0.0005090423, 2.258317e-07, 1.568602e-05]),
            ("a10", 20.0, [0.999991, 0.01998793, 0.0005117575, 2.41822e-07, 1.77037e-05]),
            ("rtx", 15.0, [0.9999337, 0.03592317, 0.0005801354, 9.785245e-07, 5.581967e-05]),
            ("t4", 12.0, [0.9999648, 0.01915833, 0.0005432548, 5.830574e-07, 2.968094e-05]),
            ("v100", 25.0, [0.9999975, 0.005395663, 0.0001036866, 3.595381e-08, 4.709708e-06]),
        ],
    },
    SyntheticFit {
        app: "synthetic_linear_long",
        description: schedlab_core::prose::doc("COpter synthetic single-phase job, linear scaling, long: goodput per GPU type and count up to 128"),
        work: 17500000.0,
        types: &[
            ("a100", 40.0, [0.9999997, 0.001800284, 0.0001003736, 1.474048e-08, 1.689777e-06]),
            ("a100-pcie", 35.0, [0.9999973, 0.006997142, 0.0005036388, 1.687502e-07, 6.244102e-06]),
            ("a10", 20.0, [0.999991, 0.01998793, 0.0005117575, 2.41822e-07, 1.77037e-05]),
            ("rtx", 15.0, [0.9999472, 0.02993812, 0.0005647608, 8.324842e-07, 4.686095e-05]),
            ("t4", 12.0, [0.9999709, 0.01596603, 0.0005356464, 5.067045e-07, 2.479477e-05]),
            ("v100", 25.0, [0.9999991, 0.005999548, 0.0001010001, 3.442215e-08, 5.728308e-06]),
        ],
    },
    SyntheticFit {
        app: "synthetic_sublinear_short",
        description: schedlab_core::prose::doc("COpter synthetic single-phase job, sublinear scaling, short: goodput per GPU type and count up to 128"),
        work: 5000000.0,
        types: &[
            ("a100", 500.0, [0.9999054, 0.2498934, 0.001113696, 1.885314e-06, 0.0002266693]),
            ("a100-pcie", 500.0, [0.9996575, 0.7496048, 0.002416981, 6.50788e-06, 0.0006656094]),
            ("a10", 300.0, [0.9996079, 0.8995536, 0.00247383, 7.295185e-06, 0.0008036407]),
            ("rtx", 200.0, [0.9981426, 0.9978373, 0.004257925, 2.595722e-05, 0.001543363]),
            ("t4", 150.0, [0.9989139, 0.5612284, 0.003324607, 1.571841e-05, 0.0008579931]),
            ("v100", 250.0, [0.9998609, 0.390467, 0.001167928, 2.624277e-06, 0.0003559494]),
        ],
    },
    SyntheticFit {
        app: "synthetic_sublinear_long",
        description: schedlab_core::prose::doc("COpter synthetic single-phase job, sublinear scaling, long: goodput per GPU type and count up to 128"),
        work: 60000000.0,
        types: &[
            ("a100", 500.0, [0.9998581, 0.3998414, 0.001170597, 2.67418e-06, 0.0003646724]),
            ("a100-pcie", 500.0, [0.9994937, 1.249411, 0.00261761, 9.145588e-06, 0.001124059]),
            ("a10", 300.0, [0.9994128, 1.499336, 0.002708198, 1.045959e-05, 0.001354601]),
            ("rtx", 200.0, [0.9969588, 1.663126, 0.00569506, 4.158461e-05, 0.002585298]),
            ("t4", 150.0, [0.9982488, 0.935453, 0.004133639, 2.451271e-05, 0.001443928]),
            ("v100", 250.0, [0.999834, 0.4685629, 0.001199453, 3.038221e-06, 0.0004275196]),
        ],
    },
    SyntheticFit {
        app: "synthetic_mixed_short",
        description: schedlab_core::prose::doc("COpter synthetic single-phase job, mixed scaling, short: goodput per GPU type and count up to 128"),
        work: 400000.0,
        types: &[
            ("a100", 80.0, [0.9999996, 0.001998262, 0.0001012591, 1.603351e-08, 1.768139e-06]),
            ("a100-pcie", 75.0, [0.9998922, 0.02986613, 0.002135944, 2.714185e-06, 4.367547e-06]),
            ("a10", 40.0, [0.9998931, 0.02653072, 0.002136707, 2.69961e-06, 9.83698e-07]),
            ("rtx", 30.0, [0.9998282, 0.04264626, 0.002215416, 3.557344e-06, 4.402137e-05]),
            ("t4", 25.0, [0.9998572, 0.02586321, 0.002180881, 3.166348e-06, 1.74578e-05]),
            ("v100", 50.0, [0.9999979, 0.003569249, 0.0001023239, 2.568984e-08, 3.122599e-06]),
        ],
    },
    SyntheticFit {
        app: "synthetic_mixed_long",
        description: schedlab_core::prose::doc("COpter synthetic single-phase job, mixed scaling, long: goodput per GPU type and count up to 128"),
        work: 15000000.0,
        types: &[
            ("a100", 80.0, [0.9999996, 0.001998262, 0.0001012591, 1.603351e-08, 1.768139e-06]),
            ("a100-pcie", 75.0, [0.9998922, 0.02986613, 0.002135944, 2.714185e-06, 4.367547e-06]),
            ("a10", 40.0, [0.9998931, 0.02653072, 0.002136707, 2.69961e-06, 9.83698e-07]),
            ("rtx", 30.0, [0.9998282, 0.04264626, 0.002215416, 3.557344e-06, 4.402137e-05]),
            ("t4", 25.0, [0.9998572, 0.02586321, 0.002180881, 3.166348e-06, 1.74578e-05]),
            ("v100", 50.0, [0.9999987, 0.003123471, 0.0001014566, 2.158429e-08, 2.83851e-06]),
        ],
    },
];

/// The GPU counts the synthetic profiles list up to 128.
fn synthetic_counts() -> impl Iterator<Item = u32> {
    [1, 2]
        .into_iter()
        .chain((1..=SYNTHETIC_MAX_GPUS / 4).map(|i| 4 * i))
}

/// Synthetic goodput (work per second) on `k` GPUs from a type's fit.
fn synthetic_rate(rate_per_gpu: f64, c: &[f64; 5], k: u32) -> f64 {
    let k = k as f64;
    let l = schedlab_core::num::log2(k);
    k * rate_per_gpu / (c[0] + c[1] * l + c[2] * k + c[3] * k * k + c[4] * k * l)
}

fn kind(name: &str) -> GpuKind {
    GpuKind::by_name(name).unwrap_or_else(|| panic!("GPU type {name} is in the catalog"))
}

const PROVENANCE_BI: &str = schedlab_core::prose::doc("COpter artifact (suhasjs/continuous-scheduling, MIT) profiles/batch_inference.json: min_gpus and throughput per type, num_iters, sim_speedup (exact)");
const PROVENANCE_SYNTHETIC: &str = schedlab_core::prose::doc("COpter artifact (suhasjs/continuous-scheduling, MIT) profiles/synthetic_*.json: per-type slowdown fit over counts 1-128 (largest error 0.069%); RTX table used for Quadro");

fn model(
    name: &str,
    description: &str,
    provenance: &str,
    max_gpus: u32,
    work: f64,
    types: Vec<TypeRates>,
) -> ModelInfo {
    ModelInfo {
        name: format!("copter/{name}"),
        aliases: Vec::new(),
        family: "copter".into(),
        description: description.into(),
        provenance: provenance.into(),
        default_batch: 0,
        max_batch: 0,
        max_gpus,
        restart_s: RESTART_S,
        mem_gb: 0.0,
        default_work: Some(work),
        epochs: None,
        behaviour: Behaviour::Table(Box::new(GoodputTable { types })),
    }
}

/// The nine COpter table models.
pub fn copter_models() -> Vec<ModelInfo> {
    let mut out = Vec::new();
    for bi in BATCH_INFERENCE {
        let mut types = Vec::new();
        let mut largest_unit = 1;
        for &(ty, unit, per_unit) in bi.units {
            let mut points = Vec::new();
            for u in 1..=MAX_UNITS {
                points.push((u * unit, u as f64 * per_unit * bi.sim_speedup));
            }
            types.push(TypeRates {
                kind: kind(ty),
                unit,
                points,
            });
            largest_unit = largest_unit.max(unit);
        }
        let max_gpus = largest_unit * MAX_UNITS;
        out.push(model(
            bi.app,
            bi.description,
            PROVENANCE_BI,
            max_gpus,
            bi.iters,
            types,
        ));
    }
    for s in SYNTHETIC {
        let mut types = Vec::new();
        for &(ty, r, ref c) in s.types {
            let mut points = Vec::new();
            for k in synthetic_counts() {
                points.push((k, synthetic_rate(r, c, k)));
            }
            // One table for RTX 2080 Ti in the profiles; the Quadro nodes use it too.
            let also = if ty == "rtx" {
                &["rtx", "quad"][..]
            } else {
                &[ty][..]
            };
            for name in also {
                types.push(TypeRates {
                    kind: kind(name),
                    unit: 1,
                    points: points.clone(),
                });
            }
        }
        out.push(model(
            s.app,
            s.description,
            PROVENANCE_SYNTHETIC,
            SYNTHETIC_MAX_GPUS,
            s.work,
            types,
        ));
    }
    out
}

/// A workload row's (category, application) -> (zoo model, GPU request). The request
/// is the smallest configuration that runs on every type: one GPU, or for batch
/// inference one unit on the type with the largest unit (the rows give no count; the
/// jobs are adaptive). Sia jobs use the zoo's models of the same names.
const ROWS: &[(&str, &str, &str, u32)] = &[
    ("SiaJob", "bert", "bert", 1),
    ("SiaJob", "cifar10", "cifar10", 1),
    ("SiaJob", "deepspeech2", "deepspeech2", 1),
    ("SiaJob", "imagenet", "imagenet", 1),
    ("SiaJob", "ncf", "ncf", 1),
    ("SiaJob", "yolov3", "yolov3", 1),
    (
        "BatchInferenceJob",
        "imagenet_resnet50",
        "copter/imagenet_resnet50",
        1,
    ),
    (
        "BatchInferenceJob",
        "llama_8b_wikipedia",
        "copter/llama_8b_wikipedia",
        4,
    ),
    (
        "BatchInferenceJob",
        "llama_8b_commoncrawl",
        "copter/llama_8b_commoncrawl",
        4,
    ),
    (
        "SyntheticSinglePhaseJob",
        "synthetic_linear_short",
        "copter/synthetic_linear_short",
        1,
    ),
    (
        "SyntheticSinglePhaseJob",
        "synthetic_linear_long",
        "copter/synthetic_linear_long",
        1,
    ),
    (
        "SyntheticSinglePhaseJob",
        "synthetic_sublinear_short",
        "copter/synthetic_sublinear_short",
        1,
    ),
    (
        "SyntheticSinglePhaseJob",
        "synthetic_sublinear_long",
        "copter/synthetic_sublinear_long",
        1,
    ),
    (
        "SyntheticSinglePhaseJob",
        "synthetic_mixed_short",
        "copter/synthetic_mixed_short",
        1,
    ),
    (
        "SyntheticSinglePhaseJob",
        "synthetic_mixed_long",
        "copter/synthetic_mixed_long",
        1,
    ),
];

/// The zoo model and GPU request of a workload row (see [`ROWS`]); the error names
/// the field at fault and what it may hold.
pub fn row_model(
    category: &str,
    application: &str,
) -> Result<(&'static str, u32), (&'static str, String)> {
    if let Some(r) = ROWS.iter().find(|r| r.0 == category && r.1 == application) {
        return Ok((r.2, r.3));
    }
    let known: Vec<&str> = ROWS
        .iter()
        .filter(|r| r.0 == category)
        .map(|r| r.1)
        .collect();
    if known.is_empty() {
        let why =
            format!("'{category}' is not SiaJob, BatchInferenceJob or SyntheticSinglePhaseJob");
        return Err(("category", why));
    }
    let why = format!(
        "'{application}' is not a {category} application (known: {})",
        known.join(", ")
    );
    Err(("application", why))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_inference_scales_in_units() {
        let models = copter_models();
        let llama = models
            .iter()
            .find(|m| m.name == "copter/llama_8b_wikipedia")
            .unwrap();
        let Behaviour::Table(t) = &llama.behaviour else {
            panic!("table model")
        };
        let t4 = kind("t4");
        // Units of 4 T4s: 1-3 GPUs do nothing, 4-7 run one unit, 64 run 16 units.
        assert_eq!(t.rate(t4, 3), 0.0);
        assert_eq!(t.rate(t4, 4), 3800.0);
        assert_eq!(t.rate(t4, 7), 3800.0);
        assert_eq!(t.rate(t4, 64), 16.0 * 3800.0);
        assert_eq!(t.rate(t4, 200), 16.0 * 3800.0);
        let cc = models
            .iter()
            .find(|m| m.name == "copter/llama_8b_commoncrawl")
            .unwrap();
        let Behaviour::Table(t) = &cc.behaviour else {
            panic!("table model")
        };
        assert_eq!(t.rate(kind("a100"), 1), 5424.0 * 500.0);
        assert_eq!(llama.restart_s, 90.0);
    }

    #[test]
    fn synthetic_tables_cover_seven_types_up_to_128_gpus() {
        for m in copter_models()
            .iter()
            .filter(|m| m.name.contains("synthetic"))
        {
            let Behaviour::Table(t) = &m.behaviour else {
                panic!("table model")
            };
            assert_eq!(t.types.len(), 7, "{}", m.name);
            assert_eq!(t.max_gpus(), 128);
            let a100 = kind("a100");
            // Goodput grows with the count and stays below linear scaling.
            let one = t.rate(a100, 1);
            for (k, r) in t
                .types
                .iter()
                .find(|ty| ty.kind == a100)
                .unwrap()
                .points
                .iter()
                .skip(1)
            {
                assert!(
                    *r > one && *r <= one * *k as f64 * 1.0001,
                    "{} at {k}: {r}",
                    m.name
                );
            }
            assert_eq!(t.rate(kind("quad"), 8), t.rate(kind("rtx"), 8));
            assert_eq!(t.rate(kind("k80"), 8), 0.0);
        }
    }

    #[test]
    fn rows_map_to_zoo_models() {
        let zoo = crate::perf::ModelZoo::builtin();
        for &(_, app, model, gpus) in ROWS {
            let info = zoo.get(
                zoo.lookup(model)
                    .unwrap_or_else(|| panic!("{model} in the zoo")),
            );
            if let Behaviour::Table(t) = &info.behaviour {
                // The request is one unit on the type with the largest unit.
                let largest = t.types.iter().map(|ty| ty.unit).max().unwrap();
                assert_eq!(gpus, largest, "{app}");
            } else {
                assert_eq!(gpus, 1, "{app}");
            }
        }
        assert_eq!(ROWS.len(), 6 + BATCH_INFERENCE.len() + SYNTHETIC.len());
        assert_eq!(row_model("SiaJob", "bert"), Ok(("bert", 1)));
        let (field, why) = row_model("SiaJob", "gpt").unwrap_err();
        assert!(
            field == "application" && why.contains("known: bert, cifar10"),
            "{why}"
        );
        let (field, why) = row_model("Other", "x").unwrap_err();
        assert!(field == "category" && why.contains("not SiaJob"), "{why}");
    }
}
