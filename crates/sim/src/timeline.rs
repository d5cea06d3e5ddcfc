//! The recorded timeline: allocation segments and per-call round stats,
//! compact enough to ship to the browser as typed arrays.

use super::insight::RoundInsight;
use schedlab_model::cluster::GpuKind;
use serde::Serialize;

/// A job holding a fixed set of GPUs from `start` to `end`.
#[derive(Debug, Clone, Serialize)]
pub struct Segment {
    pub job: u32,
    pub kind: GpuKind,
    pub start: f64,
    pub end: f64,
    /// Until this time the job was restoring a checkpoint (no progress).
    pub busy_until: f64,
    pub batch: u32,
    /// The segment's GPUs are `gpus[gpu_offset .. gpu_offset + gpu_count]`.
    pub gpu_offset: u32,
    pub gpu_count: u32,
    /// Fraction of the job's work done when the segment opened and closed
    /// (the page interpolates between them to show a job's progress).
    pub progress_start: f64,
    pub progress_end: f64,
    /// The job's restart count when the segment opened.
    pub restarts: u32,
    /// Fraction of its GPU the segment holds (1 = whole GPUs; less for a
    /// slice of a shared GPU).
    #[serde(skip_serializing_if = "is_whole")]
    pub share: f64,
    /// The segment continues the allocation of the segment before it: a
    /// fluid allocation is recorded as its whole GPUs and then one segment
    /// per time-shared part (a GPU and its share), opened and closed
    /// together.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub continued: bool,
}

fn is_whole(share: &f64) -> bool {
    *share >= 1.0
}

/// All segments plus the flat list of GPU ids they reference, and the
/// plans policies announced.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Timeline {
    pub segments: Vec<Segment>,
    pub gpus: Vec<u32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub plans: Vec<PlanRecord>,
    /// Jobs' groups as the policy reported them (`Decision::set_group`),
    /// one record per change, in time order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupRecord>,
    /// The GPUs' cost rate as (from time t, dollars per hour), one entry per
    /// change; empty when no GPU type has a price. Integrated to the run's
    /// end it is the run's GPU cost (the page's cost-over-time chart).
    #[serde(skip)]
    pub gpu_cost_rate: Vec<(f64, f64)>,
}

/// From `t` on, `job` is in the policy's group `group` (PCS's size class).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GroupRecord {
    pub job: u32,
    pub t: f64,
    pub group: u32,
}

/// A step of a policy's plan for a job: hold `gpus` (a fraction for a
/// slice) until the job has done `until` of its work (work units).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PlanStep {
    pub gpus: f64,
    pub until: f64,
}

/// A plan a policy announced for a job at time `t`, when the job had done
/// `from` of its work: what it meant to give the job over its remaining
/// work (STS's staircase). The page draws it against what happened.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanRecord {
    pub job: u32,
    pub t: f64,
    pub from: f64,
    pub steps: Vec<PlanStep>,
}

impl Timeline {
    #[allow(clippy::too_many_arguments)]
    pub fn open(
        &mut self,
        job: u32,
        kind: GpuKind,
        start: f64,
        busy_until: f64,
        batch: u32,
        gpu_ids: &[u32],
        progress: f64,
        restarts: u32,
        share: f64,
    ) -> usize {
        self.segments.push(Segment {
            job,
            kind,
            start,
            end: f64::NAN,
            busy_until,
            batch,
            gpu_offset: self.gpus.len() as u32,
            gpu_count: gpu_ids.len() as u32,
            progress_start: progress,
            progress_end: f64::NAN,
            restarts,
            share,
            continued: false,
        });
        self.gpus.extend_from_slice(gpu_ids);
        self.segments.len() - 1
    }

    /// Ends a segment at `end`, when the job had done `progress` (a
    /// fraction), with the segments that continue it.
    pub fn close(&mut self, segment: usize, end: f64, progress: f64) {
        let from = segment.min(self.segments.len());
        for (k, s) in self.segments[from..].iter_mut().enumerate() {
            if k > 0 && !s.continued {
                break;
            }
            s.end = end;
            s.progress_end = progress;
        }
    }

    /// GPU ids of one segment.
    pub fn gpus_of(&self, s: &Segment) -> &[u32] {
        &self.gpus[s.gpu_offset as usize..(s.gpu_offset + s.gpu_count) as usize]
    }
}

/// One policy invocation.
#[derive(Debug, Clone, Serialize)]
pub struct RoundStat {
    pub t: f64,
    /// GPUs held after the decision (see `delay_s`).
    pub busy_gpus: u32,
    pub running: u32,
    pub waiting: u32,
    /// Allocation changes the decision made.
    pub changes: u32,
    /// Wall-clock seconds the policy took (not simulated time).
    pub policy_s: f64,
    pub solver_s: f64,
    /// The slowest part's seconds, for solvers of independent parts (POP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solver_slowest_part_s: Option<f64>,
    /// The problem's variables and, for a warm-started solver, those that moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solver_vars: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solver_changed_vars: Option<u32>,
    /// Other methods' seconds on the same problem (see `Decision::solver_paired`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub solver_paired: Vec<(&'static str, f64)>,
    /// Simulated seconds before the decision took effect (`engine.scheduler_delay`);
    /// `busy_gpus` and `running` are then as of the call, before it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_s: Option<f64>,
    /// Why the policy fell back, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    /// The policy's per-round diagnostic (only with `Simulation::set_record_insight`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub insight: Option<Box<RoundInsight>>,
}
