//! The model zoo: every model a job can name, with its performance model,
//! restart cost and limits. Built-in entries carry their provenance.
//!
//! Built-ins: `linear` (perfect scaling), the nine AFS models `afs/*`
//! (speedup curves; spec seed003 Table 4 and §2.7) and the six Pollux/Sia
//! applications (goodput models fitted from the public profiles; spec
//! seed004 §2.2, tables in `builtin_fits.rs`, docs/MODELS.md).

use super::apps::app_constants;
use super::goodput::GoodputModel;
use super::power::{gpu_power, GpuPower};
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
    /// Pollux goodput: throughput model per GPU type x statistical
    /// efficiency that changes with progress; work is in M0-iterations.
    Goodput(Box<GoodputModel>),
    /// Goodput tabulated per (GPU type, GPU count) with a scale unit per
    /// type (COpter's batch-inference and synthetic jobs; `perf::table`).
    Table(Box<super::table::GoodputTable>),
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
    /// Epochs a job actually runs, if early stopping makes it random (the
    /// job's work is then in epochs and its declared work is the maximum).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub epochs: Option<super::epochs::EpochDistribution>,
    pub behaviour: Behaviour,
}

impl ModelInfo {
    /// True when the model's numbers are a labelled placeholder rather
    /// than measurements (its provenance says so): results on it are
    /// placeholder results.
    pub fn is_placeholder(&self) -> bool {
        self.provenance.starts_with("placeholder")
    }
}

/// Whole-GPU rates already computed, by model and query: evaluating many
/// jobs' fair-share references asks the same (model, type, count, batch,
/// epoch) again and again.
#[derive(Debug, Default)]
pub struct RateMemo {
    rates: std::collections::HashMap<RateKey, f64>,
}

/// Model, GPU type, GPUs, nodes, batch rule (0 fixed, 1 optimised) and its
/// value, progress bits: everything a whole-GPU rate depends on.
type RateKey = (u16, u8, u32, u32, u8, u32, u64);

impl RateMemo {
    fn key(id: ModelId, q: &RateQuery) -> RateKey {
        let (tag, batch) = batch_key(q.batch);
        (
            id.0,
            q.kind.0,
            q.gpus,
            q.nodes,
            tag,
            batch,
            q.progress.to_bits(),
        )
    }
}

/// A batch rule as part of a memo's key: 0 fixed, 1 optimised, and its value.
fn batch_key(batch: BatchChoice) -> (u8, u32) {
    match batch {
        BatchChoice::Fixed(b) => (0, b),
        BatchChoice::Optimize { max } => (1, max),
    }
}

/// The engine's rates on allocations, for goodput models, by model, GPU
/// type, GPUs, nodes, batch rule and epoch: a goodput model's rate and
/// batch are a pure function of those (only the next epoch boundary depends
/// on the progress itself), and a simulation asks the same ones over and
/// over as jobs of one model restart and cross epochs. Shared by a
/// simulation's forks, whose answers are the same.
#[derive(Debug, Default)]
pub struct EpochRates {
    rates: std::sync::Mutex<std::collections::HashMap<EpochRateKey, (f64, u32)>>,
}

/// Model, GPU type, GPUs, nodes, batch rule (0 fixed, 1 optimised) and its
/// value, epoch.
type EpochRateKey = (u16, u8, u32, u32, u8, u32, u32);

/// Entries kept before [`EpochRates`] starts over (a bound on memory for
/// very long runs; the answers do not depend on it).
const EPOCH_RATES_ENTRIES: usize = 1 << 16;

/// A fixed, possibly fractional share of one GPU type (fair-share references).
#[derive(Debug, Clone, Copy)]
pub struct Share {
    pub kind: GpuKind,
    /// GPUs (fractional shares interpolate between GPU counts).
    pub share: f64,
    /// GPUs per node of `kind`, to count the nodes a share spans.
    pub per_node: u32,
    pub batch: BatchChoice,
}

/// The set of models a simulation can use, with what the GPUs cost and
/// the GPU fractions jobs may share (engine features every policy sees).
#[derive(Debug, Clone, Serialize)]
pub struct ModelZoo {
    models: Vec<ModelInfo>,
    /// Node cost per GPU type and busy count (`perf::price`).
    prices: super::price::PriceTable,
    /// GPU fractions and their slowdowns (`perf::sharing`).
    sharing: super::sharing::SharingTable,
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

schedlab_core::settings! {
    /// Knobs of the built-in zoo's models (`--set zoo.KEY=VALUE`): today the
    /// STS placeholder profiles' (declared in `sts_jobs`, which `gen sts`
    /// shares).
    pub struct ZooSettings {
        sts_a100_speed: f64 = shared(super::sts_jobs::A100_SPEED),
        sts_beta_scale: f64 = shared(super::sts_jobs::BETA_SCALE),
    }
}

impl ZooSettings {
    /// The STS placeholder profiles these settings give.
    pub fn sts_profile(&self) -> super::sts_jobs::Profile {
        super::sts_jobs::Profile {
            a100_speed: self.sts_a100_speed,
            beta_scale: self.sts_beta_scale,
        }
    }
}

/// The zoo's parameter declarations (`list models`, the page's form).
pub const ZOO_PARAMS: &[schedlab_core::params::ParamSpec] =
    <ZooSettings as schedlab_core::settings::Settings>::SPECS;

impl ModelZoo {
    /// The built-in zoo.
    pub fn builtin() -> ModelZoo {
        let mut models = vec![ModelInfo {
            name: "linear".into(),
            aliases: vec![String::new(), "generic".into()],
            family: "generic".into(),
            description: schedlab_core::prose::doc("Perfectly linear scaling: k GPUs run k times as fast as one. The default for traces that give only duration and GPU count.").into(),
            provenance: schedlab_core::prose::doc("definition (PCS LinearModel; anticipatory rigid jobs)").into(),
            default_batch: 0,
            max_batch: 0,
            max_gpus: 0,
            restart_s: 0.0,
            mem_gb: 0.0,
            default_work: None,
            epochs: None,
            behaviour: Behaviour::Curve { curve: SpeedupCurve::Linear, type_speed: Vec::new() },
        }];
        for (name, desc, batch, k_star) in AFS_MODELS {
            models.push(ModelInfo {
                name: format!("afs/{name}"),
                aliases: if *name == "deepspeech2" { vec!["afs-deepspeech2".into()] } else { vec![name.to_string()] },
                family: "afs".into(),
                description: format!("{desc}, batch {batch}, peak throughput at {k_star} GPUs"),
                provenance: schedlab_core::prose::doc("AFS (NSDI'21) Table 4 batch and Max #GPUs; curve: synthetic BSP model of spec seed003 §2.7 (alpha = 0), since the paper publishes no throughput table").into(),
                default_batch: *batch,
                max_batch: *batch,
                max_gpus: *k_star,
                restart_s: 0.0,
                mem_gb: 0.0,
                default_work: None,
                epochs: None,
                behaviour: Behaviour::Curve { curve: SpeedupCurve::bsp(*k_star, 0.0), type_speed: Vec::new() },
            });
        }
        // Gavel's measured job types (perf/gavel.rs), for Gavel traces.
        models.extend(super::gavel::gavel_models());
        // STS's job types (perf/sts_jobs.rs), with early-stopping laws.
        models.extend(super::sts_jobs::sts_models());
        // COpter's batch-inference and synthetic jobs (perf/copter.rs).
        models.extend(super::copter::copter_models());
        let mut zoo = ModelZoo {
            models,
            prices: Default::default(),
            sharing: Default::default(),
        };
        for app in super::builtin_fits::FITTED {
            zoo.insert(pollux_info(
                app.name,
                app.model(false),
                builtin_provenance(app),
            ));
        }
        // The PCS artifact's measured tables (perf/pcs_tables.rs), for its
        // Philly VC traces; appended so that earlier models keep their ids.
        for table in super::pcs_tables::TABLES {
            zoo.insert(table.model());
        }
        zoo
    }

    /// The built-in zoo with the Pollux OSDI'21 simulator's application
    /// settings (yolov3 limited to 8 samples per T4): for reproducing its
    /// published results (`schedlab validate pollux`).
    pub fn pollux_osdi21() -> ModelZoo {
        let mut zoo = ModelZoo::builtin();
        for app in super::builtin_fits::FITTED {
            zoo.insert(pollux_info(
                app.name,
                app.model(true),
                builtin_provenance(app),
            ));
        }
        zoo
    }

    /// A zoo variant by name: `builtin` or `pollux-osdi21`.
    pub fn named(name: &str) -> Option<ModelZoo> {
        match name {
            "builtin" | "" => Some(ModelZoo::builtin()),
            "pollux-osdi21" | "pollux" => Some(ModelZoo::pollux_osdi21()),
            _ => None,
        }
    }

    /// Fits the applications of a profile set and adds them (replacing
    /// models of the same name). Applications without validation runs
    /// borrow the efficiency curve of the existing model of that name.
    /// `source` names the profiles in the provenance.
    pub fn add_profiles(
        &mut self,
        set: &super::profiles::ProfileSet,
        source: &str,
    ) -> schedlab_core::Result<()> {
        for fit in super::fitting::fit_set(set) {
            if super::fitting::chosen_types(&fit).is_empty() {
                continue; // e.g. a hybrid-parallel profile: nothing to add
            }
            let fallback = self
                .lookup(&fit.name)
                .and_then(|id| match &self.get(id).behaviour {
                    Behaviour::Goodput(g) => Some(g.as_ref().clone()),
                    _ => None,
                });
            let model = super::fitting::goodput_model(&fit, fallback.as_ref(), false)?;
            let kinds: Vec<&str> = model.types.iter().map(|t| t.label.as_str()).collect();
            let prov = format!(
                "fitted at load time from the profiles in {source} (types {}); constants: docs/MODELS.md",
                kinds.join(", ")
            );
            self.insert(pollux_info(&fit.name, model, prov));
        }
        Ok(())
    }

    /// Applies the zoo's settings: STS's job types are rebuilt with the
    /// profiles' knobs when they differ from the defaults.
    pub fn apply_settings(&mut self, settings: &ZooSettings) {
        let profile = settings.sts_profile();
        if profile != super::sts_jobs::Profile::default() {
            for m in super::sts_jobs::sts_models_with(&profile) {
                self.insert(m);
            }
        }
    }

    /// What a node's busy GPUs cost per hour, by type and count.
    pub fn prices(&self) -> &super::price::PriceTable {
        &self.prices
    }

    pub fn prices_mut(&mut self) -> &mut super::price::PriceTable {
        &mut self.prices
    }

    /// The GPU fractions jobs may share, with their slowdowns.
    pub fn sharing(&self) -> &super::sharing::SharingTable {
        &self.sharing
    }

    pub fn sharing_mut(&mut self) -> &mut super::sharing::SharingTable {
        &mut self.sharing
    }

    /// Power figures of a GPU type (energy metrics).
    pub fn power(&self, kind: GpuKind) -> GpuPower {
        gpu_power(kind)
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
            .or_else(|| self.models.iter().position(|m| m.aliases.contains(&key)))
            .map(|i| ModelId(i as u16))
    }

    pub fn get(&self, id: ModelId) -> &ModelInfo {
        &self.models[id.0 as usize]
    }

    /// Names of all models, for error messages.
    pub fn names(&self) -> Vec<&str> {
        self.models.iter().map(|m| m.name.as_str()).collect()
    }

    /// The job's rate on `q.gpus` whole GPUs plus `extra` (0..=1) of one
    /// more GPU's time, interpolated linearly between the two whole counts
    /// (0 GPUs: no progress): the fluid throughput of PCS's simulator (spec
    /// seed001 §2.1). `nodes_up` is the node count with the extra GPU.
    pub fn rate_fluid(&self, id: ModelId, q: &RateQuery, extra: f64, nodes_up: u32) -> Rate {
        let up = self.rate(
            id,
            &RateQuery {
                gpus: q.gpus + 1,
                nodes: nodes_up,
                ..*q
            },
        );
        if q.gpus == 0 {
            return Rate {
                per_s: extra * up.per_s,
                ..up
            };
        }
        let down = self.rate(id, q);
        Rate {
            per_s: down.per_s + extra * (up.per_s - down.per_s),
            until_progress: down.until_progress.min(up.until_progress),
            ..down
        }
    }

    /// [`ModelZoo::rate`], remembering goodput models' answers in `memo`
    /// (the same to the bit).
    pub fn rate_remembered(&self, id: ModelId, q: &RateQuery, memo: &EpochRates) -> Rate {
        let Behaviour::Goodput(g) = &self.get(id).behaviour else {
            return self.rate(id, q);
        };
        if q.gpus == 0 {
            return g.rate(q);
        }
        let epoch = g.efficiency.epoch_at(q.progress);
        let (tag, batch) = batch_key(q.batch);
        let key = (id.0, q.kind.0, q.gpus, q.nodes, tag, batch, epoch);
        let known = memo.rates.lock().ok().and_then(|m| m.get(&key).copied());
        let (per_s, batch) = known.unwrap_or_else(|| {
            let (plan, per_s) = g.plan(q.kind, q.nodes, q.gpus, q.batch, epoch);
            let answer = (per_s, plan.global().min(u32::MAX as u64) as u32);
            if let Ok(mut m) = memo.rates.lock() {
                if m.len() >= EPOCH_RATES_ENTRIES {
                    m.clear();
                }
                m.insert(key, answer);
            }
            answer
        });
        Rate {
            per_s,
            batch,
            until_progress: g.efficiency.next_boundary(q.progress),
        }
    }

    /// The job's progress rate on an allocation.
    pub fn rate(&self, id: ModelId, q: &RateQuery) -> Rate {
        let m = self.get(id);
        let batch = match q.batch {
            BatchChoice::Fixed(b) => b,
            BatchChoice::Optimize { .. } => m.default_batch,
        };
        match &m.behaviour {
            Behaviour::Goodput(g) => g.rate(q),
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
            Behaviour::Table(t) => Rate {
                per_s: t.rate(q.kind, q.gpus),
                batch,
                until_progress: f64::INFINITY,
            },
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
            _ => None,
        }
    }

    /// The progress at which a job at `progress` next changes rate
    /// whatever its allocation (an epoch boundary), or infinity.
    pub fn next_boundary(&self, id: ModelId, progress: f64) -> f64 {
        match &self.get(id).behaviour {
            Behaviour::Goodput(g) => g.efficiency.next_boundary(progress),
            Behaviour::Curve { .. } | Behaviour::Table(_) => f64::INFINITY,
        }
    }

    /// True when the model has its own performance data for `kind` (goodput
    /// models on other types fall back to their first profiled type).
    pub fn supports(&self, id: ModelId, kind: GpuKind) -> bool {
        match &self.get(id).behaviour {
            Behaviour::Goodput(g) => g.supports(kind),
            Behaviour::Curve { .. } => true,
            Behaviour::Table(t) => t.supports(kind),
        }
    }

    /// Rate at a possibly fractional GPU share (fair-share references,
    /// PCS): linear between the rates at the two neighbouring GPU counts
    /// (proportional below one GPU).
    pub fn rate_at_share(&self, id: ModelId, s: &Share, progress: f64) -> f64 {
        self.rate_at_share_memo(id, s, progress, &mut RateMemo::default())
    }

    /// As [`ModelZoo::rate_at_share`], remembering whole-GPU rates in `memo`
    /// (a rate is a pure function of its query, so the answer is the same
    /// to the bit; metrics ask the same epochs of the same models for
    /// every job).
    pub fn rate_at_share_memo(
        &self,
        id: ModelId,
        s: &Share,
        progress: f64,
        memo: &mut RateMemo,
    ) -> f64 {
        if s.share.is_nan() || s.share <= 0.0 {
            return 0.0;
        }
        match &self.get(id).behaviour {
            Behaviour::Curve { curve, type_speed } => {
                let speed = type_speed
                    .iter()
                    .find(|(k, _)| *k == s.kind)
                    .map_or(1.0, |(_, v)| *v);
                speed * curve.at(s.share)
            }
            Behaviour::Goodput(_) | Behaviour::Table(_) => {
                let per_node = s.per_node.max(1);
                let mut at = |g: u32| {
                    let q = RateQuery {
                        kind: s.kind,
                        gpus: g,
                        nodes: g.div_ceil(per_node),
                        batch: s.batch,
                        progress,
                    };
                    *memo
                        .rates
                        .entry(RateMemo::key(id, &q))
                        .or_insert_with(|| self.rate(id, &q).per_s)
                };
                if s.share < 1.0 {
                    return at(1) * s.share;
                }
                let lo = s.share.floor();
                let a = at(lo as u32);
                let frac = s.share - lo;
                if frac == 0.0 {
                    a
                } else {
                    a + (at(lo as u32 + 1) - a) * frac
                }
            }
        }
    }

    /// Seconds to go from progress `from` to `to` at a fixed share, epoch
    /// by epoch for goodput models (infinite if the job cannot progress).
    pub fn time_at_share(&self, id: ModelId, s: &Share, from: f64, to: f64) -> f64 {
        self.time_at_share_memo(id, s, from, to, &mut RateMemo::default())
    }

    /// As [`ModelZoo::time_at_share`] with a shared [`RateMemo`].
    pub fn time_at_share_memo(
        &self,
        id: ModelId,
        s: &Share,
        from: f64,
        to: f64,
        memo: &mut RateMemo,
    ) -> f64 {
        let mut p = from;
        let mut t = 0.0;
        while p < to {
            let r = self.rate_at_share_memo(id, s, p, memo);
            if r.is_nan() || r <= 0.0 {
                return f64::INFINITY;
            }
            let next = self.next_boundary(id, p).min(to);
            if next <= p {
                break;
            }
            t += (next - p) / r;
            p = next;
        }
        t
    }

    /// The work a job does in `seconds` on a fixed allocation, starting from
    /// zero progress (duration-only traces): epoch by epoch for goodput
    /// models, so the job takes exactly that long alone on its request.
    pub fn work_for_duration(&self, id: ModelId, q: &RateQuery, seconds: f64) -> f64 {
        let mut p = 0.0;
        let mut left = seconds;
        loop {
            let r = self.rate(id, &RateQuery { progress: p, ..*q });
            if r.per_s.is_nan() || r.per_s <= 0.0 {
                return p;
            }
            let next = r.until_progress;
            let dt = if next.is_finite() && next > p {
                (next - p) / r.per_s
            } else {
                f64::INFINITY
            };
            if dt >= left {
                return p + r.per_s * left;
            }
            left -= dt;
            p = next;
        }
    }
}

/// The zoo entry of a Pollux/Sia application.
fn pollux_info(name: &str, model: GoodputModel, provenance: String) -> ModelInfo {
    let c = app_constants(name);
    let m_min = model
        .types
        .iter()
        .map(|t| t.min_local)
        .min()
        .unwrap_or(1)
        .max(1);
    ModelInfo {
        name: name.to_string(),
        aliases: vec![format!("pollux/{name}")],
        family: "pollux".into(),
        description: if c.name.is_empty() {
            format!("{name}: user-profiled training job")
        } else {
            c.description.to_string()
        },
        provenance,
        default_batch: model.init_batch(),
        max_batch: model.max_batch,
        // The Sia artifact's cap: at most 64 replicas and M_max/m_min.
        max_gpus: (model.max_batch / m_min).clamp(1, 64),
        restart_s: c.restart_s,
        mem_gb: 0.0,
        default_work: Some(model.efficiency.total_progress),
        epochs: None,
        behaviour: Behaviour::Goodput(Box::new(model)),
    }
}

fn builtin_provenance(app: &super::apps::BuiltinApp) -> String {
    let types: Vec<String> = app
        .types
        .iter()
        .map(|t| {
            format!(
                "{} ({} rows, median {:.1}%, p90 {:.1}%)",
                t.label,
                t.rows,
                100.0 * t.median_rel,
                100.0 * t.p90_rel
            )
        })
        .collect();
    format!(
        "theta fitted (spec seed004 §2.2.2 loss) to the Pollux artifact (aws = t4) and Sia artifact profiles: {}; efficiency: compact fit of the Pollux validation runs (run-time error {:.1}%); generated by `{}`; constants: docs/MODELS.md",
        types.join(", "),
        100.0 * app.efficiency_time_error,
        super::builtin_fits::COMMAND
    )
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

    /// The engine's memo of goodput rates answers as the model does, to
    /// the bit, at any progress within an epoch (one entry per epoch), and
    /// keeps each query's own next epoch boundary.
    #[test]
    fn remembered_rates_are_the_models_to_the_bit() {
        let z = ModelZoo::builtin();
        let id = z.lookup("cifar10").unwrap();
        let memo = EpochRates::default();
        let boundary = z.next_boundary(id, 0.0);
        for kind in ["t4", "a100"].map(|k| GpuKind::by_name(k).unwrap()) {
            for (gpus, nodes) in [(0, 1), (1, 1), (3, 1), (8, 2)] {
                for batch in [BatchChoice::Optimize { max: 4096 }, BatchChoice::Fixed(128)] {
                    for progress in [0.0, 0.3, 0.99, 1.0, 2.5, 7.2].map(|f| f * boundary) {
                        let q = RateQuery {
                            kind,
                            gpus,
                            nodes,
                            batch,
                            progress,
                        };
                        let (plain, kept) = (z.rate(id, &q), z.rate_remembered(id, &q, &memo));
                        assert_eq!(plain.per_s.to_bits(), kept.per_s.to_bits(), "{q:?}");
                        assert_eq!(plain.batch, kept.batch, "{q:?}");
                        assert_eq!(
                            plain.until_progress.to_bits(),
                            kept.until_progress.to_bits()
                        );
                    }
                }
            }
        }
        // Entries are per epoch, not per progress: fewer than the queries.
        let entries = memo.rates.lock().unwrap().len();
        assert!(entries > 0 && entries < 2 * 3 * 2 * 6, "{entries}");
    }

    /// The memo changes no answer (to the bit) and is reused across jobs
    /// of the same model: a second job asks nothing new.
    #[test]
    fn memoised_fair_share_times_are_the_same_to_the_bit() {
        let z = ModelZoo::builtin();
        let t4 = GpuKind::by_name("t4").unwrap();
        let id = z.lookup("cifar10").unwrap();
        assert!(matches!(z.get(id).behaviour, Behaviour::Goodput(_)));
        let mut memo = RateMemo::default();
        for share in [0.5, 1.0, 2.7, 4.0] {
            let s = Share {
                kind: t4,
                share,
                per_node: 4,
                batch: BatchChoice::Optimize { max: 4096 },
            };
            let work = z.next_boundary(id, 0.0) * 7.5;
            let plain = z.time_at_share(id, &s, 0.0, work);
            let memoised = z.time_at_share_memo(id, &s, 0.0, work, &mut memo);
            assert!(plain.is_finite() && plain > 0.0);
            assert_eq!(plain.to_bits(), memoised.to_bits(), "share {share}");
            let asked = memo.rates.len();
            let again = z.time_at_share_memo(id, &s, 0.0, work * 0.9, &mut memo);
            assert!(again < memoised);
            assert_eq!(
                memo.rates.len(),
                asked,
                "a shorter job of the same model asked anew"
            );
        }
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
