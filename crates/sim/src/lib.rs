//! The discrete-event engine.
//!
//! The engine owns all state; a policy only decides. Time jumps from event
//! to event (arrivals, completions, epoch boundaries, round ticks, policy
//! wake-ups); progress and service accrue lazily between them. The whole
//! simulation is `Clone`, so a run can be forked and continued (PCS
//! predicts completion times that way).

mod config;
mod contract;
mod engine;
mod events;
pub mod gauges;
pub mod insight;
mod pools;
pub mod reason;
pub mod reason_log;
mod recorder;
pub mod rules;
mod state;
mod store;
mod timeline;
mod view;

pub use config::{
    Calibration, DelayRule, EngineConfig, EngineSettings, Measure, Reconfig, ReconfigRule,
    ENGINE_PARAMS,
};
pub use contract::{Knowledge, Policy, PolicyClone, Trigger, SHORTEST_ROUND_S};
pub use engine::{Forecast, JobResult, Outcome, Progress, Simulation, TypeTime};
pub use gauges::GaugeLog;
pub use insight::{ConfigCol, RoundInsight};
pub use pools::PoolResult;
pub use reason::{field, Field, Reason, Reasons, Rule, Unit, Val};
pub use reason_log::{ReasonCall, ReasonLog, ReasonRecord};
pub use rules::{max_useful_gpus, natural_batch, rigid_batch, Rules};
pub use state::{JobState, Phase, RestartKinds};
pub use store::JobStore;
pub use timeline::{PlanRecord, PlanStep, RoundStat, Segment, Timeline};
pub use view::{Assignment, Decision, Oracle, RateFn, View};
