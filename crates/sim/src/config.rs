//! Engine settings, declared once like policy parameters (`--set engine.KEY=V`).

use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_model::cluster::PlacementRule;

/// The engine's parameters.
pub const ENGINE_PARAMS: &[ParamSpec] = &[
    ParamSpec::float("restart_scale", "1", 0.0, 100.0, "Multiplies every model's restart (checkpoint-restore) delay; 0 makes reallocation free"),
    ParamSpec::float("restart_s", "-1", -1.0, 1e6, "When >= 0, every (re)allocation costs this many seconds instead of the model's own delay (30 reproduces the Pollux OSDI'21 simulator; the default -1 uses the per-model delays of the Sia simulator)"),
    ParamSpec::choice("calibration", "none", &["none", "sia"], "sia: divide goodput models' progress rates by the Sia simulator's per-model SLOWDOWN calibration (cifar10 1.8, ncf 1.5, others 1.2)"),
    ParamSpec::boolean("charge_first_start", "true", "The first allocation of a job also pays the restart delay (as the Pollux/Sia simulator does); not counted as a restart"),
    ParamSpec::choice("placement", "packed", &["packed", "any", "netpack", "cells"], "packed: a job that fits in a node gets one node, larger jobs whole nodes plus one partial; any: any free GPUs, fewest nodes first; netpack: CoDDL network packing for elastic policies (shares regulated to 1, 2, .., node, multiples of node; AFS §4.4), packed otherwise; cells: locality cells (anticipatory §2.8): a job takes one aligned power-of-two cell on one node by buddy best fit, and pools own home cells that in-quota jobs stay in"),
    ParamSpec::float("length_noise", "0", 0.0, 5.0, "Hidden random job lengths: each job's true work is its declared work times a mean-one log-normal factor with this sigma, drawn from the run's seed; policies see the declared work, only oracle policies the truth (0 = lengths as declared)"),
    ParamSpec::boolean("early_stop", "true", "Jobs whose model has an epoch law (STS's job types) stop early: each job's true work is W / max epochs of its declared work, W drawn from the law with the run's seed (the same draws for every policy); policies see the law and the declared maximum, not W. Off: every job runs its maximum"),
    ParamSpec::float("idle_price", "0", 0.0, 1.0, "Cost of an idle GPU on a powered node (one with a busy GPU) as a fraction of its price (STS's theta; 0 = the paper's setting, where a node pays only for the GPUs it uses)"),
    ParamSpec::boolean("predict", "false", "Predict each job's completion at its arrival, as PCS does for every policy (§2.3): fork the run with no future arrivals and declared job lengths, run the fork under a copy of the policy, keep each job's first predicted finish; prediction-error metrics follow"),
    ParamSpec::int("predict_max", "5000", 1, 100_000_000, "predict: forecast at an arrival with probability min(1, predict_max / jobs), as the PCS simulator bounds its cost; a job whose own arrival was not sampled keeps the first prediction a later arrival makes"),
    ParamSpec::float("max_days", "3650", 0.001, 1e6, "Stop after this much simulated time; unfinished jobs are reported as incomplete"),
    ParamSpec::boolean("timeline", "true", "Record allocation segments (the page's animation and Gantt view need them)"),
    ParamSpec::choice("reconfig", "restart", &["restart", "coddl"], "Cost of a share change. restart: a change of node set is a checkpoint-restore (the model's restart delay x restart_scale, no progress meanwhile). coddl: CoDDL's reconfiguration (AFS §4.3): expansion overlapping with running work, shrink in switch_s, cancellation of outdated orders; see coddl_es, coddl_rc"),
    ParamSpec::boolean("coddl_es", "true", "coddl: concurrent share expansion (the job keeps training on its old GPUs while new ones load for init_s, then switches in switch_s); off = every change is a full stop and restart of init_s"),
    ParamSpec::boolean("coddl_rc", "true", "coddl: a new order cancels an in-flight one at once; off = orders queue and each runs to its end first"),
    ParamSpec::float("init_s", "25", 0.0, 86_400.0, "coddl: seconds for workers on new GPUs to load the graph and receive the parameters (also a full restart when coddl_es=false, and a job's start or resume when charge_first_start)"),
    ParamSpec::float("switch_s", "0.004", 0.0, 3600.0, "coddl: seconds to update the communication stack when GPUs join or leave (about 4 ms in CoDDL)"),
    ParamSpec::choice("measure", "perfect", &["perfect", "overestimate"], "Throughput knowledge of elastic policies. perfect: the true curves (the paper's simulator). overestimate: CoDDL's 'overestimate first, re-adjust later' (AFS §4.5): a job is believed linear and capped at its fair share until measured; it is measured on its share after measure_s, then extrapolated linearly above it, and the policy re-runs"),
    ParamSpec::float("measure_s", "30", 0.0, 86_400.0, "measure=overestimate: seconds of training on a new share before its throughput is known"),
    ParamSpec::choice("scheduler_delay", "none", &["none", "measured", "fixed"], "When a policy's decision takes effect (the COpter simulator's --simulate-scheduler-delay). none: at once. measured: after the call's wall-clock time (build, solve and shim; POP's parts counted as run in parallel) x scheduler_delay_scale, so results depend on the machine. fixed: after scheduler_delay_s. Meanwhile jobs keep their old GPUs, and the next round starts that much later"),
    ParamSpec::float("scheduler_delay_s", "0", 0.0, 86_400.0, "scheduler_delay=fixed: seconds between a policy call and its decision taking effect"),
    ParamSpec::float("scheduler_delay_scale", "1", 0.0, 1e6, "scheduler_delay=measured: multiplies the measured time (e.g. to model a slower or faster scheduler machine)"),
];

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
    /// Draw early stops from models' epoch laws (`early_stop`).
    pub early_stop: bool,
    /// Idle GPUs on powered nodes cost this fraction of their price (`idle_price`).
    pub idle_price: f64,
    /// The run's seed (hidden lengths); set by whoever starts the run, not a parameter.
    pub seed: u64,
    pub params: Params,
}

impl EngineConfig {
    pub fn from_overrides(overrides: &[(String, String)]) -> Result<EngineConfig> {
        let p = Params::resolve("engine", ENGINE_PARAMS, overrides)?;
        Ok(EngineConfig {
            restart_scale: p.f64("restart_scale"),
            restart_s: {
                let r = p.f64("restart_s");
                (r >= 0.0).then_some(r)
            },
            sia_calibration: p.text("calibration") == "sia",
            charge_first_start: p.bool("charge_first_start"),
            placement: match p.text("placement") {
                "any" => PlacementRule::Any,
                "netpack" => PlacementRule::NetPack,
                "cells" => PlacementRule::Cells,
                _ => PlacementRule::Packed,
            },
            max_time: p.f64("max_days") * 86_400.0,
            record_timeline: p.bool("timeline"),
            record_insight: false,
            reconfig: if p.text("reconfig") == "coddl" {
                Reconfig::Coddl {
                    es: p.bool("coddl_es"),
                    rc: p.bool("coddl_rc"),
                }
            } else {
                Reconfig::Restart
            },
            init_s: p.f64("init_s"),
            switch_s: p.f64("switch_s"),
            measure: p.text("measure") == "overestimate",
            measure_s: p.f64("measure_s"),
            scheduler_delay: match p.text("scheduler_delay") {
                "measured" => SchedulerDelay::Measured(p.f64("scheduler_delay_scale")),
                "fixed" => SchedulerDelay::Fixed(p.f64("scheduler_delay_s")),
                _ => SchedulerDelay::None,
            },
            length_noise: p.f64("length_noise"),
            idle_price: p.f64("idle_price"),
            early_stop: p.bool("early_stop"),
            predict: p.bool("predict"),
            predict_max: p.i64("predict_max").max(1) as u64,
            seed: 0,
            params: p,
        })
    }
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig::from_overrides(&[]).expect("engine defaults are valid")
    }
}
