//! Per-application constants of the Pollux/Sia job family that are not in
//! the profile data: what each model is, how long a run is (epochs), its
//! restart costs, calibration and memory-limit overrides. Each value
//! names its source (spec seed004-sia.md §2.8, §3.1, §4.1, §4.3 and
//! `specs/pollux-simulator-notes.md`).

/// Constants of one application.
#[derive(Debug, Clone, Copy)]
pub struct AppConstants {
    pub name: &'static str,
    pub description: &'static str,
    /// Epochs of a complete run (Pollux `max_epochs`).
    pub max_epochs: u32,
    /// Simulated checkpoint-restore delay (Sia simulator `rescale_time`).
    pub restart_s: f64,
    /// The Sia policy's restart cost S_i in its restart factor.
    pub policy_restart_s: f64,
    /// The Sia simulator's calibration divisor (`SLOWDOWN`).
    pub slowdown: f64,
    /// Memory-limit (m_max) overrides by profile label, applied to the
    /// profile's own maximum.
    pub max_local: &'static [(&'static str, u32)],
    /// Further m_max overrides of the Pollux OSDI'21 simulator
    /// (`ModelZoo::pollux_osdi21()`).
    pub pollux_max_local: &'static [(&'static str, u32)],
}

/// Where the numbers of [`APPS`] come from.
pub const APPS_SOURCE: &str = "max_epochs: Pollux simulator applications.py (notes); restart_s: Sia simulator rescale_time (spec §3.1); policy_restart_s: Sia policy S_i (spec §2.8); slowdown: Sia simulator SLOWDOWN (spec §3.1); m_max overrides: spec §4.3 (deepspeech2 on rtx: 57) and the Pollux simulator (yolov3: 8)";

/// The six Pollux/Sia applications (spec §4.1, thesis Table 3.2).
pub const APPS: &[AppConstants] = &[
    AppConstants {
        name: "bert",
        description: schedlab_core::prose::doc(
            "BERT fine-tuning on SQuAD (question answering, AdamW), batch 12-384",
        ),
        max_epochs: 2,
        restart_s: 120.0,
        policy_restart_s: 120.0,
        slowdown: 1.2,
        max_local: &[],
        pollux_max_local: &[],
    },
    AppConstants {
        name: "cifar10",
        description: schedlab_core::prose::doc(
            "ResNet18 on CIFAR-10 (image classification, SGD), batch 128-4096",
        ),
        max_epochs: 100,
        restart_s: 50.0,
        policy_restart_s: 30.0,
        slowdown: 1.8,
        max_local: &[],
        pollux_max_local: &[],
    },
    AppConstants {
        name: "deepspeech2",
        description: schedlab_core::prose::doc(
            "DeepSpeech2 on CMU-ARCTIC (speech recognition, SGD), batch 20-640",
        ),
        max_epochs: 80,
        restart_s: 25.0,
        policy_restart_s: 25.0,
        slowdown: 1.2,
        max_local: &[("rtx", 57)],
        pollux_max_local: &[],
    },
    AppConstants {
        name: "imagenet",
        description: schedlab_core::prose::doc(
            "ResNet50 on ImageNet-1k (image classification, SGD), batch 200-12800",
        ),
        max_epochs: 90,
        restart_s: 250.0,
        policy_restart_s: 250.0,
        slowdown: 1.2,
        max_local: &[],
        pollux_max_local: &[],
    },
    AppConstants {
        name: "ncf",
        description: schedlab_core::prose::doc(
            "Neural collaborative filtering on MovieLens (recommendation), batch 256-32768",
        ),
        max_epochs: 10,
        restart_s: 15.0,
        policy_restart_s: 30.0,
        slowdown: 1.5,
        max_local: &[],
        pollux_max_local: &[],
    },
    AppConstants {
        name: "yolov3",
        description: schedlab_core::prose::doc(
            "YOLOv3 on PASCAL-VOC (object detection, SGD), batch 8-512",
        ),
        max_epochs: 50,
        restart_s: 80.0,
        policy_restart_s: 45.0,
        slowdown: 1.2,
        max_local: &[],
        pollux_max_local: &[("aws", 8)],
    },
];

/// Defaults for an application not in [`APPS`] (a user's own profiles).
pub const DEFAULT_APP: AppConstants = AppConstants {
    name: "",
    description: schedlab_core::prose::doc("user-profiled training job"),
    max_epochs: 0,
    restart_s: 30.0,
    policy_restart_s: 30.0,
    slowdown: 1.0,
    max_local: &[],
    pollux_max_local: &[],
};

/// The constants of `name` (or the defaults).
pub fn app_constants(name: &str) -> &'static AppConstants {
    APPS.iter().find(|a| a.name == name).unwrap_or(&DEFAULT_APP)
}

/// One fitted GPU type of a built-in application (generated data).
#[derive(Debug, Clone, Copy)]
pub struct BuiltinType {
    /// Profile label (`aws`, `rtx`, `dgx-ext`, `quad`, `azure`).
    pub label: &'static str,
    /// θ = (α_c, β_c, α_n, β_n, α_r, β_r, γ).
    pub params: [f64; 7],
    pub min_local: u32,
    pub max_local: u32,
    pub max_local_steps: &'static [(u32, u32)],
    /// Rows the fit used and its step-time accuracy on them.
    pub rows: u32,
    pub rmsle: f64,
    pub median_rel: f64,
    pub p90_rel: f64,
    pub max_rel: f64,
}

/// One built-in application (generated data).
#[derive(Debug, Clone, Copy)]
pub struct BuiltinApp {
    pub name: &'static str,
    pub init_batch: u32,
    pub epochs: u32,
    pub total_progress: f64,
    /// Largest run-time error of the compact efficiency curve.
    pub efficiency_time_error: f64,
    pub knots: &'static [u32],
    pub batches: &'static [u32],
    pub log_phi: &'static [&'static [f64]],
    pub types: &'static [BuiltinType],
}

impl BuiltinApp {
    /// The goodput model of this application; `pollux_osdi21` applies the
    /// Pollux simulator's memory overrides.
    pub fn model(&self, pollux_osdi21: bool) -> crate::perf::goodput::GoodputModel {
        use crate::perf::goodput::{
            EfficiencyCurve, FitQuality, GoodputModel, PerfParams, TypeProfile,
        };
        let consts = app_constants(self.name);
        let efficiency = EfficiencyCurve {
            init_batch: self.init_batch,
            epochs: self.epochs,
            total_progress: self.total_progress,
            knots: self.knots.to_vec(),
            batches: self.batches.to_vec(),
            log_phi: self.log_phi.iter().map(|r| r.to_vec()).collect(),
        };
        let mut types: Vec<TypeProfile> = self
            .types
            .iter()
            .filter_map(|t| {
                let kind = crate::cluster::GpuKind::by_name(t.label)?;
                let mut max_local = t.max_local;
                if pollux_osdi21 {
                    if let Some((_, m)) =
                        consts.pollux_max_local.iter().find(|(l, _)| *l == t.label)
                    {
                        max_local = *m;
                    }
                }
                Some(TypeProfile {
                    kind,
                    label: t.label.to_string(),
                    params: PerfParams::from_array(t.params),
                    min_local: t.min_local,
                    max_local,
                    max_local_steps: t.max_local_steps.to_vec(),
                    quality: Some(FitQuality {
                        rows: t.rows as usize,
                        rmsle: t.rmsle,
                        median_rel: t.median_rel,
                        p90_rel: t.p90_rel,
                        max_rel: t.max_rel,
                    }),
                })
            })
            .collect();
        schedlab_core::sorting::sort_by_key(&mut types, |t| t.kind);
        GoodputModel {
            max_batch: self.batches.last().copied().unwrap_or(self.init_batch),
            efficiency,
            types,
            slowdown: consts.slowdown,
            policy_restart_s: consts.policy_restart_s,
        }
    }
}
