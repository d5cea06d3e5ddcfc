//! STS's job types (spec seed002 §4.1): 48 (framework, network, batch size,
//! optimiser) combinations trained for at most 100 epochs on 13,000 images,
//! with an early-stopping epoch distribution per (framework, network).
//!
//! The paper publishes neither the execution times nor the histograms of
//! its Fig. 2. These models are the spec's labelled placeholders (results
//! on them are placeholder results, `ModelInfo::is_placeholder`), the
//! default when the authors' measured data is not given (`perf::sts_data`,
//! `--sts-data DIR`), with the shapes the paper describes:
//! - time per epoch t_ik = e / (sigma_i x sp(k)), sp(k) = k / (1 + beta (k - 1))
//!   (strictly concave, so the STS theory applies); e is seconds per epoch
//!   on one K80 by network, scaled by batch size, framework and optimiser;
//!   sigma: K80 1, M60 1.3, A100 6 (spec: 6-10);
//! - epochs: AlexNet 40% at the maximum plus Beta(4, 1.5) ("skewed to the
//!   right"), ResNet Beta(1.5, 5), VGG16 Beta(1.3, 4) ("skewed to the
//!   left"), MobileNetV2 Beta(4, 4) ("centred"), on 11..=100 (patience 10).
//!
//! Work is in epochs: a job's declared work is 100, its rates are epochs per
//! second per (GPU type, count 1..=8).

use super::epochs::EpochDistribution;
use super::table::{GoodputTable, TypeRates};
use super::{Behaviour, ModelInfo};
use crate::cluster::GpuKind;
use schedlab_core::params::{ParamSpec, Params};

/// Maximum epochs of every STS job.
pub const MAX_EPOCHS: u32 = 100;
/// Patience of the early-stopping rule: no job stops before epoch 11.
const FIRST_STOP: u32 = 11;

/// (network, seconds per epoch on one K80 at batch 32, beta at batch 32,
/// memory range in GB at batch 32, epoch law).
struct Network {
    name: &'static str,
    epoch_s: f64,
    beta: f64,
    mem_gb: (f64, f64),
    /// Beta(a, b) on 11..=100 with this much extra mass at 100.
    law: (f64, f64, f64),
}

const NETWORKS: &[Network] = &[
    Network {
        name: "alexnet",
        epoch_s: 60.0,
        beta: 0.30,
        mem_gb: (2.0, 6.0),
        law: (4.0, 1.5, 0.4),
    },
    Network {
        name: "resnet",
        epoch_s: 300.0,
        beta: 0.10,
        mem_gb: (4.0, 10.0),
        law: (1.5, 5.0, 0.0),
    },
    Network {
        name: "vgg16",
        epoch_s: 500.0,
        beta: 0.25,
        mem_gb: (6.0, 14.0),
        law: (1.3, 4.0, 0.0),
    },
    Network {
        name: "mobilenetv2",
        epoch_s: 150.0,
        beta: 0.15,
        mem_gb: (2.0, 6.0),
        law: (4.0, 4.0, 0.0),
    },
];

const FRAMEWORKS: &[(&str, f64)] = &[("pytorch", 1.0), ("tensorflow", 1.1)];
const OPTIMISERS: &[(&str, f64)] = &[("sgd", 1.0), ("adam", 1.05)];
const BATCHES: &[u32] = &[16, 32, 64];
/// Relative speed per GPU type (catalog name); A100's comes from
/// [`Profile`] (its default is the same 6).
pub const TYPE_SPEED: &[(&str, f64)] = &[("k80-board", 1.0), ("m60-board", 1.3), ("a100-80", 6.0)];

/// The placeholder profiles' two free knobs (spec §4.1: "the relative speed
/// and cost of A100 against K80 decides which type STS prefers. Make it
/// configurable"). The generator (due dates) and the zoo (`--set zoo.KEY`)
/// must use the same values.
pub const A100_SPEED: ParamSpec = ParamSpec::float(
    "sts_a100_speed",
    "6",
    1.0,
    20.0,
    "STS placeholder profiles: an A100's speed relative to one K80 board (M60 1.3; spec 6-10; at 3 an A100 costs more per epoch than a K80)",
);
pub const BETA_SCALE: ParamSpec = ParamSpec::float(
    "sts_beta_scale",
    "1",
    0.2,
    3.0,
    "STS placeholder profiles: multiplies every job's multi-GPU overhead beta (sp(k) = k / (1 + beta (k-1)), beta 0.05-0.3 at 1, capped at 0.95): larger means poorer scaling",
);
/// The knobs as the zoo declares them (owner `zoo`).
pub const PROFILE_PARAMS: &[ParamSpec] = &[A100_SPEED, BETA_SCALE];

/// Values of the placeholder profiles' knobs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Profile {
    pub a100_speed: f64,
    pub beta_scale: f64,
}

impl Default for Profile {
    /// The declared defaults.
    fn default() -> Self {
        let p = Params::resolve("zoo", PROFILE_PARAMS, &[]).expect("valid defaults");
        Profile::from_params(&p)
    }
}

impl Profile {
    /// Reads the knobs from resolved parameters that declare them.
    pub fn from_params(p: &Params) -> Profile {
        Profile {
            a100_speed: p.f64(A100_SPEED.name),
            beta_scale: p.f64(BETA_SCALE.name),
        }
    }

    fn type_speed(&self, name: &str, sigma: f64) -> f64 {
        if name == "a100-80" {
            self.a100_speed
        } else {
            sigma
        }
    }
}

const PROVENANCE: &str = "placeholder of spec seed002 §4.1 (the STS paper publishes no execution times or epoch histograms; the authors' measured profiles come with --sts-data DIR); shapes as the paper describes them";

/// Scales memory need with the batch: the job's memory range is the
/// network's at batch 32 times sqrt(batch / 32).
pub fn memory_range_gb(model: &str) -> Option<(f64, f64)> {
    let (net, batch) = parse(model)?;
    let f = (batch as f64 / 32.0).sqrt();
    Some((net.mem_gb.0 * f, net.mem_gb.1 * f))
}

fn parse(model: &str) -> Option<(&'static Network, u32)> {
    let rest = model.strip_prefix("sts/")?;
    let mut parts = rest.split('-');
    let _fw = parts.next()?;
    let net = parts.next()?;
    let bs: u32 = parts.next()?.strip_prefix("bs")?.parse().ok()?;
    NETWORKS.iter().find(|n| n.name == net).map(|n| (n, bs))
}

/// The epoch law of a network on 0..=MAX_EPOCHS.
fn epoch_law(law: (f64, f64, f64)) -> EpochDistribution {
    let (a, b, atom) = law;
    let span = (MAX_EPOCHS - FIRST_STOP + 1) as f64;
    let mut w = vec![0.0; MAX_EPOCHS as usize + 1];
    for e in FIRST_STOP..=MAX_EPOCHS {
        let x = (e - FIRST_STOP) as f64 / span + 0.5 / span;
        w[e as usize] =
            schedlab_core::num::pow(x, a - 1.0) * schedlab_core::num::pow(1.0 - x, b - 1.0);
    }
    let total: f64 = w.iter().sum();
    for v in &mut w {
        *v *= (1.0 - atom) / total;
    }
    w[MAX_EPOCHS as usize] += atom;
    EpochDistribution::from_weights(&w).expect("placeholder laws are valid")
}

/// Every STS job type, as zoo models named `sts/FRAMEWORK-NETWORK-bsB-OPT`.
pub fn sts_models() -> Vec<ModelInfo> {
    sts_models_with(&Profile::default())
}

/// The job types with the profiles' knobs set.
pub fn sts_models_with(profile: &Profile) -> Vec<ModelInfo> {
    let mut out = Vec::new();
    for (fw, fw_f) in FRAMEWORKS {
        for net in NETWORKS {
            let epochs = epoch_law(net.law);
            for &bs in BATCHES {
                for (opt, opt_f) in OPTIMISERS {
                    let scale = (32.0 / bs as f64).sqrt();
                    let epoch_s = net.epoch_s
                        * fw_f
                        * opt_f
                        * schedlab_core::num::pow(32.0 / bs as f64, 0.25);
                    let beta = ((net.beta * scale).clamp(0.05, 0.3) * profile.beta_scale).min(0.95);
                    let types = TYPE_SPEED
                        .iter()
                        .map(|(name, sigma)| TypeRates {
                            kind: GpuKind::by_name(name).expect("catalog type"),
                            unit: 1,
                            points: (1..=8u32)
                                .map(|k| {
                                    let sp = k as f64 / (1.0 + beta * (k as f64 - 1.0));
                                    (k, profile.type_speed(name, *sigma) * sp / epoch_s)
                                })
                                .collect(),
                        })
                        .collect();
                    let mid = 0.5 * (net.mem_gb.0 + net.mem_gb.1) / scale;
                    out.push(ModelInfo {
                        name: format!("sts/{fw}-{}-bs{bs}-{opt}", net.name),
                        aliases: Vec::new(),
                        family: "sts".into(),
                        description: format!(
                            "{} with {fw}, batch {bs}, {opt}: at most {MAX_EPOCHS} epochs, {:.0} s per epoch on one K80, early stopping",
                            net.name, epoch_s
                        ),
                        provenance: PROVENANCE.into(),
                        default_batch: bs,
                        max_batch: bs,
                        max_gpus: 8,
                        restart_s: 0.0,
                        mem_gb: mid,
                        default_work: Some(MAX_EPOCHS as f64),
                        epochs: Some(epochs.clone()),
                        behaviour: Behaviour::Table(Box::new(GoodputTable { types })),
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forty_eight_concave_job_types_with_their_laws() {
        let models = sts_models();
        assert_eq!(models.len(), 48);
        for m in &models {
            let Behaviour::Table(t) = &m.behaviour else {
                panic!()
            };
            for tr in &t.types {
                let r: Vec<f64> = tr.points.iter().map(|p| p.1).collect();
                for k in 1..r.len() - 1 {
                    // Increasing with strictly decreasing increments.
                    assert!(
                        r[k] > r[k - 1] && r[k + 1] - r[k] < r[k] - r[k - 1],
                        "{}",
                        m.name
                    );
                }
            }
            let d = m.epochs.as_ref().unwrap();
            assert_eq!(d.pmf()[..FIRST_STOP as usize].iter().sum::<f64>(), 0.0);
        }
        let mean = |net: &str| {
            let m = models.iter().find(|m| m.name.contains(net)).unwrap();
            m.epochs.as_ref().unwrap().mean()
        };
        // AlexNet skewed right, ResNet and VGG left, MobileNet centred.
        assert!(mean("alexnet") > 75.0 && mean("resnet") < 40.0 && mean("vgg16") < 40.0);
        assert!(
            (mean("mobilenetv2") - 55.5).abs() < 2.0,
            "{}",
            mean("mobilenetv2")
        );
        assert_eq!(
            memory_range_gb("sts/pytorch-vgg16-bs32-sgd"),
            Some((6.0, 14.0))
        );
    }
}
