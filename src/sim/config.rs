//! Engine settings, declared once like policy parameters (`--set engine.KEY=V`).

use crate::cluster::PlacementRule;
use crate::error::Result;
use crate::params::{ParamSpec, Params};

/// The engine's parameters.
pub const ENGINE_PARAMS: &[ParamSpec] = &[
    ParamSpec::float("restart_scale", "1", 0.0, 100.0, "Multiplies every model's restart (checkpoint-restore) delay; 0 makes reallocation free"),
    ParamSpec::float("restart_s", "-1", -1.0, 1e6, "When >= 0, every (re)allocation costs this many seconds instead of the model's own delay (30 reproduces the Pollux OSDI'21 simulator; the default -1 uses the per-model delays of the Sia simulator)"),
    ParamSpec::choice("calibration", "none", &["none", "sia"], "sia: divide goodput models' progress rates by the Sia simulator's per-model SLOWDOWN calibration (cifar10 1.8, ncf 1.5, others 1.2)"),
    ParamSpec::boolean("charge_first_start", "true", "The first allocation of a job also pays the restart delay (as the Pollux/Sia simulator does); not counted as a restart"),
    ParamSpec::choice("placement", "packed", &["packed", "any"], "packed: a job that fits in a node gets one node, larger jobs whole nodes plus one partial; any: any free GPUs, fewest nodes first"),
    ParamSpec::float("max_days", "3650", 0.001, 1e6, "Stop after this much simulated time; unfinished jobs are reported as incomplete"),
    ParamSpec::boolean("timeline", "true", "Record allocation segments (the page's animation and Gantt view need them)"),
];

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
            placement: if p.text("placement") == "any" {
                PlacementRule::Any
            } else {
                PlacementRule::Packed
            },
            max_time: p.f64("max_days") * 86_400.0,
            record_timeline: p.bool("timeline"),
            params: p,
        })
    }
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig::from_overrides(&[]).expect("engine defaults are valid")
    }
}
