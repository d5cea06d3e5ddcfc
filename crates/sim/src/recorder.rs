//! What a run records for the page and the reports: the allocation
//! timeline and one [`RoundStat`] per policy call.
//!
//! The recorder is the only part of a simulation that grows with the
//! length of the run, so it is kept apart from the live state: a fork
//! (a `Simulation` clone) gets a switched-off recorder instead of a copy.

use super::insight::{RoundInsight, MAX_CELLS_PER_RUN};
use super::reason::Reasons;
use super::reason_log::ReasonLog;
use super::timeline::{GroupRecord, PlanRecord, PlanStep, RoundStat, Timeline};
use schedlab_model::cluster::GpuKind;

#[derive(Debug, Default)]
pub struct Recorder {
    on: bool,
    insight: bool,
    timeline: Timeline,
    rounds: Vec<RoundStat>,
    /// Insight cells stored so far (bounded by `MAX_CELLS_PER_RUN`).
    insight_cells: usize,
    /// Index in `timeline.plans` of each job's last plan (to skip repeats).
    last_plan: std::collections::BTreeMap<u32, usize>,
    plan_steps: usize,
    /// Each job's last recorded group (only changes are stored).
    last_group: std::collections::BTreeMap<u32, u32>,
    /// Keep policies' per-job reasons (independent of the timeline).
    reasons_on: bool,
    reasons: ReasonLog,
    gauges: super::gauges::GaugeLog,
}

/// Plan steps a run keeps at most (the page's memory bound).
const MAX_PLAN_STEPS: usize = 2_000_000;

impl Clone for Recorder {
    /// A copy records nothing: forks do not pay for the parent's history.
    fn clone(&self) -> Recorder {
        Recorder::default()
    }
}

/// A segment being opened: the job, its GPUs and where it stands.
pub struct SegmentStart<'a> {
    pub job: u32,
    pub kind: GpuKind,
    pub start: f64,
    pub busy_until: f64,
    pub batch: u32,
    pub gpu_ids: &'a [u32],
    pub progress: f64,
    pub restarts: u32,
    /// Fraction of the GPU held (1 unless a slice).
    pub share: f64,
    /// Time-shared parts of a fluid allocation: (GPU id, fraction of its time).
    pub parts: &'a [(u32, f64)],
}

impl Recorder {
    pub fn new(on: bool, insight: bool) -> Recorder {
        Recorder {
            on,
            insight,
            ..Recorder::default()
        }
    }

    pub fn is_on(&self) -> bool {
        self.on
    }

    pub fn set_insight(&mut self, on: bool) {
        self.insight = on;
    }

    /// Keeps policies' reasons from now on (`only_job`: that job's only).
    pub fn set_reasons(&mut self, on: bool, only_job: Option<u32>) {
        self.reasons_on = on;
        self.reasons.only_job = only_job;
    }

    /// True when a policy's reasons would be kept now.
    pub fn wants_reasons(&self) -> bool {
        self.reasons_on && self.reasons.has_room()
    }

    /// Keeps one call's reasons; `gpus(job)` is what the decision gives it.
    pub fn reasons(&mut self, t: f64, reasons: &Reasons, gpus: impl Fn(u32) -> f64) {
        if self.reasons_on && !reasons.is_empty() {
            self.reasons.keep(t, reasons, gpus);
        }
    }

    pub fn reason_log(&self) -> &ReasonLog {
        &self.reasons
    }

    /// Hands over the reasons kept so far, leaving an empty log.
    pub fn take_reasons(&mut self) -> ReasonLog {
        std::mem::take(&mut self.reasons)
    }

    /// Keeps one call's gauge readings (with the reasons).
    pub fn gauges(&mut self, t: f64, readings: Vec<(&'static str, u32, f64)>) {
        if self.reasons_on && !readings.is_empty() {
            self.gauges.keep(t, readings);
        }
    }

    pub fn gauge_log(&self) -> &super::gauges::GaugeLog {
        &self.gauges
    }

    /// True when a policy's per-round diagnostic would be kept now.
    pub fn wants_insight(&self) -> bool {
        self.on && self.insight && self.insight_cells < MAX_CELLS_PER_RUN
    }

    /// Keeps a plan a policy announced, unless it repeats the job's last
    /// one (same counts, each step's end within a millionth) or the run has
    /// stored `MAX_PLAN_STEPS` steps. (STS re-solves every job at every
    /// event; exact equality let float noise through: 96% of a 1,000-job
    /// run's 275,000 plans, which hit the cap and a 1.8 GB peak.)
    pub fn plan(&mut self, job: u32, t: f64, from: f64, steps: Vec<PlanStep>) {
        if !self.on || self.plan_steps > MAX_PLAN_STEPS {
            return;
        }
        if let Some(&i) = self.last_plan.get(&job) {
            if same_steps(&self.timeline.plans[i].steps, &steps) {
                return;
            }
        }
        self.last_plan.insert(job, self.timeline.plans.len());
        self.plan_steps += steps.len();
        self.timeline.plans.push(PlanRecord {
            job,
            t,
            from,
            steps,
        });
    }

    /// Keeps a job's group from `t` on, unless it is the job's group already.
    pub fn group(&mut self, job: u32, t: f64, group: u32) {
        if !self.on || self.last_group.insert(job, group) == Some(group) {
            return;
        }
        self.timeline.groups.push(GroupRecord { job, t, group });
    }

    /// Opens a segment (for a fluid allocation, one for its whole GPUs and
    /// one per part, closed together); None when not recording.
    pub fn open(&mut self, s: SegmentStart<'_>) -> Option<usize> {
        if !self.on {
            return None;
        }
        let mut pieces: Vec<(&[u32], f64)> = Vec::with_capacity(1 + s.parts.len());
        if !s.gpu_ids.is_empty() || s.parts.is_empty() {
            pieces.push((s.gpu_ids, s.share));
        }
        pieces.extend(
            s.parts
                .iter()
                .map(|(id, share)| (std::slice::from_ref(id), *share)),
        );
        let first = self.timeline.segments.len();
        for (k, (ids, share)) in pieces.into_iter().enumerate() {
            let i = self.timeline.open(
                s.job,
                s.kind,
                s.start,
                s.busy_until,
                s.batch,
                ids,
                s.progress,
                s.restarts,
                share,
            );
            self.timeline.segments[i].continued = k > 0;
        }
        Some(first)
    }

    /// Ends a segment at `end` with the job's done fraction.
    pub fn close(&mut self, segment: usize, end: f64, progress: f64) {
        self.timeline.close(segment, end, progress);
    }

    /// The GPUs cost `usd_h` per hour from `t` on (a change at the same
    /// time replaces the previous entry; an unchanged rate is not stored).
    pub fn cost_rate(&mut self, t: f64, usd_h: f64) {
        if !self.on {
            return;
        }
        let steps = &mut self.timeline.gpu_cost_rate;
        if steps.last().is_some_and(|&(at, _)| at == t) {
            steps.pop();
        }
        if steps.last().is_none_or(|&(_, rate)| rate != usd_h) {
            steps.push((t, usd_h));
        }
    }

    /// Records one policy call (its insight only if wanted).
    pub fn round(&mut self, mut stat: RoundStat, insight: Option<Box<RoundInsight>>) {
        if !self.on {
            return;
        }
        let keep = insight.filter(|_| self.wants_insight());
        self.insight_cells += keep.as_ref().map_or(0, |i| i.cells());
        stat.insight = keep;
        self.rounds.push(stat);
    }

    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }

    pub fn rounds(&self) -> &[RoundStat] {
        &self.rounds
    }
}

/// Two plans with the same GPU counts whose steps end within a millionth
/// (relative) of each other.
fn same_steps(a: &[PlanStep], b: &[PlanStep]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.gpus == y.gpus && (x.until - y.until).abs() <= 1e-6 * x.until.abs().max(1.0)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(ends: &[f64]) -> Vec<PlanStep> {
        ends.iter()
            .enumerate()
            .map(|(k, &until)| PlanStep {
                gpus: (k + 1) as f64,
                until,
            })
            .collect()
    }

    #[test]
    fn a_plan_repeated_up_to_float_noise_is_kept_once() {
        let mut r = Recorder::new(true, false);
        r.plan(3, 0.0, 0.0, steps(&[25.440259984313155, 100.0]));
        r.plan(3, 10.0, 1.0, steps(&[25.440259984313162, 100.0]));
        assert_eq!(r.timeline().plans.len(), 1);
        // A threshold that moved, another count, another job: kept.
        r.plan(3, 20.0, 2.0, steps(&[25.5, 100.0]));
        r.plan(3, 30.0, 3.0, steps(&[25.5]));
        r.plan(4, 30.0, 0.0, steps(&[25.5]));
        assert_eq!(r.timeline().plans.len(), 4);
    }
}
