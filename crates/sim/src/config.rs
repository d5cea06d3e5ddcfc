//! Engine settings, declared once like policy parameters (`--set engine.KEY=V`).

use schedlab_core::error::Result;
use schedlab_core::params::ParamSpec;
use schedlab_core::settings::Settings;
use schedlab_model::cluster::PlacementRule;

schedlab_core::settings! {
    /// The engine's settings (`--set engine.KEY=VALUE`), declared once.
    pub struct EngineSettings {
        restart_scale: f64 = float("1", 0.0, 100.0, "Multiplies every model's restart (checkpoint-restore) delay; 0 makes reallocation free"),
        restart_s: f64 = float("-1", -1.0, 1e6, "When >= 0, every (re)allocation costs this many seconds instead of the model's own delay (30 reproduces the Pollux OSDI'21 simulator; the default -1 uses the per-model delays of the Sia simulator)"),
        calibration: Calibration = choice("none", "sia: divide goodput models' progress rates by the Sia simulator's per-model SLOWDOWN calibration (cifar10 1.8, ncf 1.5, others 1.2)"),
        charge_first_start: bool = boolean("true", "The first allocation of a job also pays the restart delay (as the Pollux/Sia simulator does); not counted as a restart"),
        placement: PlacementRule = choice("packed", "packed: a job that fits in a node gets one node, larger jobs whole nodes plus one partial; any: any free GPUs, fewest nodes first; netpack: CoDDL network packing for elastic policies (shares regulated to 1, 2, .., node, multiples of node; AFS §4.4), packed otherwise; cells: locality cells (anticipatory §2.8): a job takes one aligned power-of-two cell on one node by buddy best fit, and pools own home cells that in-quota jobs stay in"),
        length_noise: f64 = float("0", 0.0, 5.0, "Hidden random job lengths: each job's true work is its declared work times a mean-one log-normal factor with this sigma, drawn from the run's seed; policies see the declared work, only oracle policies the truth (0 = lengths as declared)"),
        size_error: f64 = float("0", 0.0, 0.99, "Job-size estimation error p (PCS Fig. 10): each job's estimated size is its true size times a factor drawn per job from U[1-p, 1+p] with the run's seed, and its estimated remaining work that factor times the true remaining work; policies and predictions see the estimates, only oracle policies and the run itself the truth (0 = sizes known)"),
        early_stop: bool = boolean("true", "Jobs whose model has an epoch law (STS's job types) stop early: each job's true work is W / max epochs of its declared work, W drawn from the law with the run's seed (the same draws for every policy); policies see the law and the declared maximum, not W. Off: every job runs its maximum"),
        idle_price: f64 = float("0", 0.0, 1.0, "Cost of an idle GPU on a powered node (one with a busy GPU) as a fraction of its price (STS's theta; 0 = the paper's setting, where a node pays only for the GPUs it uses)"),
        predict: bool = boolean("false", "Predict each job's completion at its arrival, as PCS does for every policy (§2.3): fork the run with no future arrivals and declared job lengths, run the fork under a copy of the policy, keep each job's first predicted finish; prediction-error metrics follow"),
        predict_max: u64 = int("5000", 1, 100_000_000, "predict: forecast at an arrival with probability min(1, predict_max / jobs), as the PCS simulator bounds its cost; a job whose own arrival was not sampled keeps the first prediction a later arrival makes"),
        max_days: f64 = float("3650", 0.001, 36_500.0, "Stop after this much simulated time; unfinished jobs are reported as incomplete (at most the engine's horizon of 100 years, workload::HORIZON_S)"),
        timeline: bool = boolean("true", "Record allocation segments (the page's animation and Gantt view need them)"),
        reconfig: ReconfigRule = choice("restart", "Cost of a share change. restart: a change of node set is a checkpoint-restore (the model's restart delay x restart_scale, no progress meanwhile). coddl: CoDDL's reconfiguration (AFS §4.3): expansion overlapping with running work, shrink in switch_s, cancellation of outdated orders; see coddl_es, coddl_rc"),
        coddl_es: bool = boolean("true", "coddl: concurrent share expansion (the job keeps training on its old GPUs while new ones load for init_s, then switches in switch_s); off = every change is a full stop and restart of init_s"),
        coddl_rc: bool = boolean("true", "coddl: a new order cancels an in-flight one at once; off = orders queue and each runs to its end first"),
        init_s: f64 = float("25", 0.0, 86_400.0, "coddl: seconds for workers on new GPUs to load the graph and receive the parameters (also a full restart when coddl_es=false, and a job's start or resume when charge_first_start)"),
        switch_s: f64 = float("0.004", 0.0, 3600.0, "coddl: seconds to update the communication stack when GPUs join or leave (about 4 ms in CoDDL)"),
        measure: Measure = choice("perfect", "Throughput knowledge of elastic policies. perfect: the true curves (the paper's simulator). overestimate: CoDDL's 'overestimate first, re-adjust later' (AFS §4.5): a job is believed linear and capped at its fair share until measured; it is measured on its share after measure_s, then extrapolated linearly above it, and the policy re-runs"),
        measure_s: f64 = float("30", 0.0, 86_400.0, "measure=overestimate: seconds of training on a new share before its throughput is known"),
        scheduler_delay: DelayRule = choice("none", "When a policy's decision takes effect (the COpter simulator's --simulate-scheduler-delay). none: at once. measured: after the call's wall-clock time (build, solve and shim; POP's parts counted as run in parallel) x scheduler_delay_scale, so results depend on the machine. fixed: after scheduler_delay_s. Meanwhile jobs keep their old GPUs, and the next round starts that much later"),
        scheduler_delay_s: f64 = float("0", 0.0, 86_400.0, "scheduler_delay=fixed: seconds between a policy call and its decision taking effect"),
        scheduler_delay_scale: f64 = float("1", 0.0, 1e6, "scheduler_delay=measured: multiplies the measured time (e.g. to model a slower or faster scheduler machine)"),
    }
}

/// The engine's parameter declarations (`list engine`, the page's form).
pub const ENGINE_PARAMS: &[ParamSpec] = EngineSettings::SPECS;

schedlab_core::choice! {
    /// `calibration`: whether goodput models' rates are divided by the Sia
    /// simulator's SLOWDOWN calibration.
    pub enum Calibration {
        None = "none",
        Sia = "sia",
    }
}

schedlab_core::choice! {
    /// `reconfig`: how a share change is charged.
    pub enum ReconfigRule {
        Restart = "restart",
        Coddl = "coddl",
    }
}

schedlab_core::choice! {
    /// `measure`: what elastic policies know of throughputs.
    pub enum Measure {
        Perfect = "perfect",
        Overestimate = "overestimate",
    }
}

schedlab_core::choice! {
    /// `scheduler_delay`: when a policy's decision takes effect.
    pub enum DelayRule {
        None = "none",
        Measured = "measured",
        Fixed = "fixed",
    }
}

/// When a policy's decision takes effect (`scheduler_delay`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SchedulerDelay {
    /// At the call's simulated time.
    None,
    /// After the call's measured wall-clock seconds times this scale.
    Measured(f64),
    /// After this many seconds.
    Fixed(f64),
}

/// How share changes are charged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reconfig {
    /// A change of node set is a checkpoint-restore with no progress.
    Restart,
    /// CoDDL's reconfiguration mechanisms (see `engine.rs`).
    Coddl {
        /// Concurrent share expansion.
        es: bool,
        /// Reconfiguration cancelling.
        rc: bool,
    },
}

/// Resolved engine settings.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineConfig {
    pub restart_scale: f64,
    /// A constant restart delay replacing the per-model one (None = per model).
    pub restart_s: Option<f64>,
    /// Apply the Sia simulator's SLOWDOWN calibration.
    pub sia_calibration: bool,
    pub charge_first_start: bool,
    pub placement: PlacementRule,
    pub max_time: f64,
    pub record_timeline: bool,
    /// Keep policies' per-round diagnostics with the timeline (not a
    /// declared parameter: the page turns it on, see `sim::insight`).
    pub record_insight: bool,
    pub reconfig: Reconfig,
    pub init_s: f64,
    pub switch_s: f64,
    /// Throughput learnt by measurement ("overestimate first").
    pub measure: bool,
    pub measure_s: f64,
    /// When decisions take effect.
    pub scheduler_delay: SchedulerDelay,
    /// Predict completions at arrivals (`predict`), sampling arrivals with
    /// probability min(1, predict_max / jobs).
    pub predict: bool,
    pub predict_max: u64,
    /// Sigma of the hidden length factor (`length_noise`).
    pub length_noise: f64,
    /// Half-width p of the size-estimation factor U[1-p, 1+p] (`size_error`).
    pub size_error: f64,
    /// Draw early stops from models' epoch laws (`early_stop`).
    pub early_stop: bool,
    /// Idle GPUs on powered nodes cost this fraction of their price (`idle_price`).
    pub idle_price: f64,
    /// The run's seed (hidden lengths); set by whoever starts the run, not a parameter.
    pub seed: u64,
    /// The settings this configuration was made from.
    pub settings: EngineSettings,
}

impl EngineConfig {
    /// Engine settings from `(key, text)` overrides of `engine`.
    pub fn from_overrides(overrides: &[(String, String)]) -> Result<EngineConfig> {
        Ok(EngineConfig::from_settings(&EngineSettings::resolve(
            "engine", overrides,
        )?))
    }

    /// The engine's configuration for these settings (the seed is set by
    /// whoever starts the run).
    pub fn from_settings(s: &EngineSettings) -> EngineConfig {
        EngineConfig {
            restart_scale: s.restart_scale,
            restart_s: (s.restart_s >= 0.0).then_some(s.restart_s),
            sia_calibration: match s.calibration {
                Calibration::None => false,
                Calibration::Sia => true,
            },
            charge_first_start: s.charge_first_start,
            placement: s.placement,
            max_time: s.max_days * 86_400.0,
            record_timeline: s.timeline,
            record_insight: false,
            reconfig: match s.reconfig {
                ReconfigRule::Restart => Reconfig::Restart,
                ReconfigRule::Coddl => Reconfig::Coddl {
                    es: s.coddl_es,
                    rc: s.coddl_rc,
                },
            },
            init_s: s.init_s,
            switch_s: s.switch_s,
            measure: match s.measure {
                Measure::Perfect => false,
                Measure::Overestimate => true,
            },
            measure_s: s.measure_s,
            scheduler_delay: match s.scheduler_delay {
                DelayRule::None => SchedulerDelay::None,
                DelayRule::Measured => SchedulerDelay::Measured(s.scheduler_delay_scale),
                DelayRule::Fixed => SchedulerDelay::Fixed(s.scheduler_delay_s),
            },
            length_noise: s.length_noise,
            size_error: s.size_error,
            idle_price: s.idle_price,
            early_stop: s.early_stop,
            predict: s.predict,
            predict_max: s.predict_max.max(1),
            seed: 0,
            settings: s.clone(),
        }
    }
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig::from_overrides(&[]).expect("engine defaults are valid")
    }
}
