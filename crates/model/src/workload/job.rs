//! `JobSpec`: one job description shape for every paper.

use serde::{Deserialize, Serialize};

/// How far a job can adapt its resources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Adaptivity {
    /// Fixed GPU count and batch size (the trace's request).
    Rigid,
    /// The GPU count may change; the global batch size stays fixed.
    StrongScaling,
    /// GPU count and batch size may both change (Pollux / Sia jobs).
    #[default]
    Adaptive,
}

impl Adaptivity {
    pub fn parse(text: &str) -> Option<Adaptivity> {
        match text.trim().to_ascii_lowercase().as_str() {
            "rigid" => Some(Adaptivity::Rigid),
            "strong-scaling" | "strong" | "scale-gpus" | "elastic" => {
                Some(Adaptivity::StrongScaling)
            }
            "adaptive" | "" => Some(Adaptivity::Adaptive),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Adaptivity::Rigid => "rigid",
            Adaptivity::StrongScaling => "strong-scaling",
            Adaptivity::Adaptive => "adaptive",
        }
    }
}

/// One training job as a trace describes it. Optional fields stay `None`
/// (or 0) when the trace does not give them; the model zoo fills defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobSpec {
    /// Index in the trace after sorting by arrival (arrival order = id order).
    pub id: u32,
    pub name: String,
    /// Submission time in seconds.
    pub arrival: f64,
    /// User, pool or virtual cluster the job belongs to.
    pub tenant: String,
    /// Model-zoo key (`cifar10`, `resnet50`, `linear`, ...).
    pub model: String,
    /// Requested GPUs (the rigid configuration).
    pub gpus: u32,
    /// Smallest and largest GPU counts an elastic policy may give (0 = model default).
    pub min_gpus: u32,
    pub max_gpus: u32,
    /// GPU type the trace pins the job to, if any.
    pub gpu_type: Option<String>,
    /// Global batch size of the rigid configuration (0 = model default).
    pub batch_size: u32,
    /// Largest global batch an adaptive policy may use (0 = model default).
    pub max_batch_size: u32,
    /// Total work in the model's work units (see `perf`).
    pub work: Option<f64>,
    /// Run time in seconds at `gpus` GPUs alone; converted to work when `work` is absent.
    pub duration: Option<f64>,
    pub adaptivity: Adaptivity,
    pub preemptible: bool,
    /// Due date in seconds since time zero (STS).
    pub due: Option<f64>,
    /// Priority weight (PCS classes, STS tardiness weight).
    pub weight: f64,
    /// Memory the job needs per GPU in GB (STS sharing, memory limits).
    pub mem_gb: Option<f64>,
    /// Line in the source file (for error messages); 0 when generated.
    #[serde(default, skip_serializing)]
    pub source_line: u32,
}

impl JobSpec {
    /// A job with defaults everywhere but the essentials.
    pub fn new(
        name: impl Into<String>,
        arrival: f64,
        model: impl Into<String>,
        gpus: u32,
    ) -> JobSpec {
        JobSpec {
            id: 0,
            name: name.into(),
            arrival,
            tenant: String::new(),
            model: model.into(),
            gpus,
            min_gpus: 0,
            max_gpus: 0,
            gpu_type: None,
            batch_size: 0,
            max_batch_size: 0,
            work: None,
            duration: None,
            adaptivity: Adaptivity::Adaptive,
            preemptible: true,
            due: None,
            weight: 1.0,
            mem_gb: None,
            source_line: 0,
        }
    }

    pub fn with_duration(mut self, seconds: f64) -> JobSpec {
        self.duration = Some(seconds);
        self
    }

    pub fn with_work(mut self, work: f64) -> JobSpec {
        self.work = Some(work);
        self
    }
}
