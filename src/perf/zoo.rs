//! The model zoo: every model a job can name, with its performance model,
//! restart cost and limits. Built-in entries carry their provenance.

use super::{BatchChoice, Rate, RateQuery, SpeedupCurve};
use crate::cluster::GpuKind;
use serde::Serialize;

/// Index of a model in a [`ModelZoo`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct ModelId(pub u16);

/// How a model's rate is computed.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Behaviour {
    /// rate = per-type speed x s(GPUs); work is in reference-GPU iterations.
    Curve {
        curve: SpeedupCurve,
        /// Relative speed per GPU type (`GpuKind` index); 1.0 when absent.
        type_speed: Vec<(GpuKind, f64)>,
    },
}

/// One model.
#[derive(Debug, Clone, Serialize)]
pub struct ModelInfo {
    pub name: String,
    pub aliases: Vec<String>,
    /// Which paper's job family it belongs to (`afs`, `pollux`, `generic`).
    pub family: String,
    pub description: String,
    /// Where the numbers come from.
    pub provenance: String,
    /// Global batch size of the default configuration.
    pub default_batch: u32,
    /// Largest global batch an adaptive job may use.
    pub max_batch: u32,
    /// Largest useful GPU count (0 = unbounded).
    pub max_gpus: u32,
    /// Seconds without progress after every (re)allocation.
    pub restart_s: f64,
    /// Memory needed per GPU in GB (0 = fits anywhere).
    pub mem_gb: f64,
    /// Work of a complete run when the trace gives neither work nor duration.
    pub default_work: Option<f64>,
    pub behaviour: Behaviour,
}

/// The set of models a simulation can use.
#[derive(Debug, Clone, Serialize)]
pub struct ModelZoo {
    models: Vec<ModelInfo>,
}

/// AFS Table 4: (name, display, batch, k* = Max #GPUs).
const AFS_MODELS: &[(&str, &str, u32, u32)] = &[
    ("vgg16", "VGG16 on ImageNet", 256, 8),
    ("googlenet", "GoogLeNet on ImageNet", 128, 20),
    ("inception-v4", "Inception-v4 on ImageNet", 256, 52),
    ("resnet50", "ResNet-50 on ImageNet", 128, 28),
    ("dcgan", "DCGAN on Celeb-A", 256, 20),
    ("video-prediction", "Video Prediction on Push", 64, 28),
    ("chatbot", "Chatbot on OpenSubtitles", 256, 4),
    ("deepspeech2", "Deep Speech 2 on LibriSpeech", 64, 20),
    ("transformer", "Transformer on IWSLT 2016 En-De", 256, 44),
];

impl ModelZoo {
    /// The built-in zoo.
    pub fn builtin() -> ModelZoo {
        let mut models = vec![ModelInfo {
            name: "linear".into(),
            aliases: vec![String::new(), "generic".into()],
            family: "generic".into(),
            description: "Perfectly linear scaling: k GPUs run k times as fast as one. The default for traces that give only duration and GPU count.".into(),
            provenance: "definition (PCS LinearModel; anticipatory rigid jobs)".into(),
            default_batch: 0,
            max_batch: 0,
            max_gpus: 0,
            restart_s: 0.0,
            mem_gb: 0.0,
            default_work: None,
            behaviour: Behaviour::Curve { curve: SpeedupCurve::Linear, type_speed: Vec::new() },
        }];
        for (name, desc, batch, k_star) in AFS_MODELS {
            models.push(ModelInfo {
                name: format!("afs/{name}"),
                aliases: if *name == "deepspeech2" { vec!["afs-deepspeech2".into()] } else { vec![name.to_string()] },
                family: "afs".into(),
                description: format!("{desc}, batch {batch}, peak throughput at {k_star} GPUs"),
                provenance: "AFS (NSDI'21) Table 4 batch and Max #GPUs; curve: synthetic BSP model of spec seed003 §2.7 (alpha = 0), since the paper publishes no throughput table".into(),
                default_batch: *batch,
                max_batch: *batch,
                max_gpus: *k_star,
                restart_s: 0.0,
                mem_gb: 0.0,
                default_work: None,
                behaviour: Behaviour::Curve { curve: SpeedupCurve::bsp(*k_star, 0.0), type_speed: Vec::new() },
            });
        }
        ModelZoo { models }
    }

    /// Adds (or replaces, by name) a model; returns its id.
    pub fn insert(&mut self, model: ModelInfo) -> ModelId {
        if let Some(i) = self.models.iter().position(|m| m.name == model.name) {
            self.models[i] = model;
            ModelId(i as u16)
        } else {
            self.models.push(model);
            ModelId(self.models.len() as u16 - 1)
        }
    }

    pub fn models(&self) -> &[ModelInfo] {
        &self.models
    }

    /// Finds a model by name or alias (case-insensitive).
    pub fn lookup(&self, name: &str) -> Option<ModelId> {
        let key = name.trim().to_ascii_lowercase();
        self.models
            .iter()
            .position(|m| m.name == key)
            .or_else(|| {
                self.models
                    .iter()
                    .position(|m| m.aliases.iter().any(|a| *a == key))
            })
            .map(|i| ModelId(i as u16))
    }

    pub fn get(&self, id: ModelId) -> &ModelInfo {
        &self.models[id.0 as usize]
    }

    /// Names of all models, for error messages.
    pub fn names(&self) -> Vec<&str> {
        self.models.iter().map(|m| m.name.as_str()).collect()
    }

    /// The job's progress rate on an allocation.
    pub fn rate(&self, id: ModelId, q: &RateQuery) -> Rate {
        let m = self.get(id);
        let batch = match q.batch {
            BatchChoice::Fixed(b) => b,
            BatchChoice::Optimize { .. } => m.default_batch,
        };
        match &m.behaviour {
            Behaviour::Curve { curve, type_speed } => {
                let speed = type_speed
                    .iter()
                    .find(|(k, _)| *k == q.kind)
                    .map_or(1.0, |(_, s)| *s);
                Rate {
                    per_s: speed * curve.at(q.gpus as f64),
                    batch,
                    until_progress: f64::INFINITY,
                }
            }
        }
    }

    /// The speedup curve and per-GPU speed of a model whose rate depends
    /// only on the GPU count (not on progress, batch or nodes), so hot loops
    /// can skip the general query. None for other models.
    pub fn fixed_curve(&self, id: ModelId, kind: GpuKind) -> Option<(&SpeedupCurve, f64)> {
        match &self.get(id).behaviour {
            Behaviour::Curve { curve, type_speed } => {
                let speed = type_speed
                    .iter()
                    .find(|(k, _)| *k == kind)
                    .map_or(1.0, |(_, s)| *s);
                Some((curve, speed))
            }
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    /// Rate at a possibly fractional GPU share (fair-share references, PCS).
    pub fn rate_at_share(
        &self,
        id: ModelId,
        kind: GpuKind,
        share: f64,
        batch: BatchChoice,
        progress: f64,
    ) -> f64 {
        match &self.get(id).behaviour {
            Behaviour::Curve { curve, type_speed } => {
                let speed = type_speed
                    .iter()
                    .find(|(k, _)| *k == kind)
                    .map_or(1.0, |(_, s)| *s);
                speed * curve.at(share)
            }
            #[allow(unreachable_patterns)]
            _ => {
                let lo = share.floor().max(1.0);
                let q = |g: f64| {
                    self.rate(
                        id,
                        &RateQuery {
                            kind,
                            gpus: g as u32,
                            nodes: 1,
                            batch,
                            progress,
                        },
                    )
                    .per_s
                };
                if share < 1.0 {
                    return q(1.0) * share;
                }
                let a = q(lo);
                let frac = share - lo;
                if frac == 0.0 {
                    a
                } else {
                    a + (q(lo + 1.0) - a) * frac
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_by_name_and_alias() {
        let z = ModelZoo::builtin();
        assert_eq!(z.get(z.lookup("VGG16").unwrap()).name, "afs/vgg16");
        assert_eq!(z.get(z.lookup("afs/chatbot").unwrap()).max_gpus, 4);
        assert_eq!(z.get(z.lookup("").unwrap()).name, "linear");
        assert!(z.lookup("nope").is_none());
    }

    #[test]
    fn curve_rates() {
        let z = ModelZoo::builtin();
        let t4 = GpuKind::by_name("t4").unwrap();
        let id = z.lookup("linear").unwrap();
        let q = RateQuery {
            kind: t4,
            gpus: 4,
            nodes: 1,
            batch: BatchChoice::Fixed(0),
            progress: 0.0,
        };
        assert_eq!(z.rate(id, &q).per_s, 4.0);
        let vgg = z.lookup("vgg16").unwrap();
        assert!((z.rate(vgg, &q).per_s - 3.37).abs() < 0.01);
    }
}
