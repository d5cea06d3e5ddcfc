//! How a policy's decision changes the simulation: placements checked and
//! claimed, restarts charged (or CoDDL's staged reconfiguration), batch
//! choices made and each job's progress rate refreshed.

use super::Simulation;
use crate::config::Reconfig;
use crate::events::EventKind;
use crate::recorder::SegmentStart;
use crate::rules::{self, Rules};
use crate::state::Phase;
use crate::view::Decision;
use schedlab_core::error::{Error, Result};
use schedlab_model::cluster::{GpuKind, Placement};
use schedlab_model::perf::{BatchChoice, RateQuery};
use std::collections::BTreeSet;

impl Simulation {
    /// Applies a decision: frees what changes, checks and claims the new
    /// placements, charges restarts and reschedules completions.
    pub(super) fn apply(&mut self, d: &Decision) -> Result<()> {
        // Pass 1: validate targets and release the GPUs of every changed job.
        self.check_names(d)?;
        // Pinned jobs (running, not preemptible) keep their GPUs: the
        // engine, not each policy, enforces it (checked before anything changes).
        for (job, a) in &d.changes {
            let st = &self.jobs[*job as usize];
            let spec = &self.specs[*job as usize];
            if rules::pinned(spec, st.placement.is_some()) {
                if let Some(cur) = &st.placement {
                    if a.as_ref().is_none_or(|a| &a.placement != cur) {
                        return Err(self.bad_decision(format!(
                            "job {job} ('{}') is not preemptible: it keeps its GPUs until it finishes, but the decision {}",
                            spec.name,
                            if a.is_none() { "preempts it" } else { "moves or resizes it" }
                        )));
                    }
                }
            }
        }
        for (job, _) in &d.changes {
            self.release(*job);
        }
        // Pass 2: claim new placements.
        for (job, a) in &d.changes {
            if let Some(a) = a {
                let p = &a.placement;
                let need = self.memory_need_mb(*job);
                if let Err(why) = self.occupancy.claim(&self.cluster, p, need, self.now) {
                    return Err(self.bad_decision(format!("job {job} {why}")));
                }
                self.record_cost_rate();
                let pool = self.jobs[*job as usize].pool;
                self.pools.hold(pool, p.gpus(), self.now);
            }
        }
        // Pass 3: update job states.
        for (job, a) in &d.changes {
            match a {
                None => self.stop_running(*job, true),
                Some(a) => self.start_or_change(*job, a.placement.clone(), a.batch),
            }
        }
        Ok(())
    }

    /// Refuses a decision that changes a job other than an active one, or
    /// one job twice, or records a plan or group for a job that has not
    /// arrived: an error naming the policy and the job, never a silent effect.
    pub(super) fn check_names(&self, d: &Decision) -> Result<()> {
        let mut seen = BTreeSet::new();
        for (job, _) in &d.changes {
            if self.active.contains(job) {
                if !seen.insert(*job) {
                    return Err(self.bad_decision(format!("its decision names job {job} twice")));
                }
                continue;
            }
            let why = match self.jobs.get(*job as usize).map(|st| st.phase) {
                None => "which does not exist",
                Some(Phase::Future) => "which has not arrived",
                Some(_) => "which has finished",
            };
            return Err(self.bad_decision(format!("its decision names job {job}, {why}")));
        }
        // Plans and groups are only recorded, but may not name the future either.
        let recorded = d
            .plans
            .iter()
            .map(|p| p.0)
            .chain(d.groups.iter().map(|g| g.0));
        for job in recorded {
            match self.jobs.get(job as usize).map(|st| st.phase) {
                None => {
                    return Err(self.bad_decision(format!(
                        "it announces a plan or group for job {job}, which does not exist"
                    )))
                }
                Some(Phase::Future) => {
                    return Err(self.bad_decision(format!(
                        "it announces a plan or group for job {job}, which has not arrived"
                    )))
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// An error naming the policy that made a bad decision.
    fn bad_decision(&self, msg: String) -> Error {
        Error::Internal(format!("policy '{}': {msg}", self.policy_name()))
    }

    pub(super) fn stop_running(&mut self, id: u32, preempted: bool) {
        let now = self.now;
        let st = &mut self.jobs[id as usize];
        if st.phase != Phase::Running {
            return;
        }
        st.advance(now);
        st.set_placement(None);
        st.eff = None;
        st.reconfig_until = f64::NEG_INFINITY;
        st.reconfig_token += 1;
        st.measure_token += 1;
        st.phase = Phase::Waiting;
        st.version += 1;
        if preempted {
            st.preemptions += 1;
        }
        if let Some(seg) = st.open_segment.take() {
            self.recorder.close(seg, now, st.done_fraction());
        }
        self.running.remove(&id);
        self.waiting.insert(id);
    }

    /// Memory the job needs on a GPU, in MB (its own figure, else its
    /// model's; 0 when neither is known): what a slice must reserve.
    fn memory_need_mb(&self, id: u32) -> u32 {
        rules::memory_need_mb(
            &self.specs[id as usize],
            self.zoo.get(self.jobs[id as usize].model),
        )
    }

    pub(super) fn batch_choice(&self, id: u32, requested: Option<BatchChoice>) -> BatchChoice {
        requested.unwrap_or_else(|| {
            rules::natural_batch(
                &self.specs[id as usize],
                self.zoo.get(self.jobs[id as usize].model),
            )
        })
    }

    pub(super) fn start_or_change(
        &mut self,
        id: u32,
        placement: Placement,
        batch: Option<BatchChoice>,
    ) {
        let now = self.now;
        let choice = self.batch_choice(id, batch);
        let rules = Rules::of(&self.cfg);
        let model = self.zoo.get(self.jobs[id as usize].model);
        let (restart_delay, first_start_delay) =
            (rules.restart_delay(model), rules.first_start_delay(model));
        let gpu_ids = if self.recorder.is_on() {
            placement.gpu_ids(&self.cluster)
        } else {
            Vec::new()
        };
        let st = &mut self.jobs[id as usize];
        st.advance(now);
        if let Some(old) = &st.placement {
            if !old.overlaps(&placement) {
                st.migrations += 1;
            }
        }
        if let Reconfig::Coddl { es, rc } = self.cfg.reconfig {
            self.coddl_change(id, placement, choice, es, rc, gpu_ids);
            return;
        }
        let moved = st
            .placement
            .as_ref()
            .is_none_or(|old| !old.same_nodes(&placement));
        if moved {
            let first = st.first_start.is_none();
            if !first {
                st.count_restart(&placement);
            }
            let delay = if first {
                first_start_delay
            } else {
                restart_delay
            };
            st.busy_until = now + delay;
            st.restart_s += delay;
            st.first_start.get_or_insert(now);
        }
        if st.phase == Phase::Waiting {
            self.waiting.remove(&id);
            self.running.insert(id);
        }
        st.phase = Phase::Running;
        st.set_placement(Some(placement));
        if let Some(seg) = st.open_segment.take() {
            self.recorder.close(seg, now, st.done_fraction());
        }
        self.refresh_rate_with(id, choice, false);
        let ready = self.jobs[id as usize].busy_until.max(now);
        self.after_change(id, ready, &gpu_ids);
    }

    /// Opens the timeline segment of a new allocation and, in measurement
    /// mode, schedules the measurement of a share larger than any measured.
    /// `ready` is when the job trains on its whole allocation.
    pub(super) fn after_change(&mut self, id: u32, ready: f64, gpu_ids: &[u32]) {
        let now = self.now;
        let st = &self.jobs[id as usize];
        let parts: Vec<(u32, f64)> = match st.placement.as_ref() {
            Some(p) if self.recorder.is_on() && !p.parts.is_empty() => p
                .part_ids(&self.cluster)
                .into_iter()
                .zip(&p.parts)
                .map(|(g, x)| {
                    (
                        g,
                        x.share as f64 / schedlab_model::cluster::Slice::WHOLE as f64,
                    )
                })
                .collect(),
            _ => Vec::new(),
        };
        let seg = self.recorder.open(SegmentStart {
            job: id,
            kind: st.placement.as_ref().map_or(GpuKind(0), |p| p.kind),
            start: now,
            busy_until: ready,
            batch: st.batch,
            gpu_ids,
            progress: st.done_fraction(),
            restarts: st.restarts,
            share: st.placement.as_ref().map_or(1.0, |p| p.fraction()),
            parts: &parts,
        });
        if seg.is_some() {
            self.jobs[id as usize].open_segment = seg;
        }
        if self.cfg.measure {
            let st = &mut self.jobs[id as usize];
            let g = st.gpus();
            if g > st.measured_gpus {
                st.measure_token += 1;
                let ev = EventKind::Measured {
                    job: id,
                    token: st.measure_token,
                    gpus: g,
                };
                self.queue.push(ready + self.cfg.measure_s, ev);
            }
        }
    }

    /// A share change under CoDDL's reconfiguration model (AFS §4.3, spec
    /// seed003 §2.9). GPU ownership changes at once (the usage map follows
    /// the decision); what the job *trains on* follows the mechanisms:
    ///
    /// - `es` (concurrent expansion): the job keeps training on the GPUs it
    ///   keeps (its effective set ∩ the new placement) while the new GPUs
    ///   load for `init_s`, then switches in `switch_s`; a pure shrink costs
    ///   `switch_s`; a job that keeps none of its GPUs (start, resume,
    ///   migration) trains after `init_s`. Without `es` every change is a
    ///   full stop and restart of `init_s`.
    /// - `rc` (cancelling): a newer order replaces an in-flight one at once.
    ///   Without it the new order starts when the previous one would have
    ///   completed (orders run back to back, each paying its full delay);
    ///   meanwhile the job trains on what it keeps.
    pub(super) fn coddl_change(
        &mut self,
        id: u32,
        placement: Placement,
        choice: BatchChoice,
        es: bool,
        rc: bool,
        gpu_ids: Vec<u32>,
    ) {
        let now = self.now;
        let (init_s, switch_s) = (self.cfg.init_s, self.cfg.switch_s);
        let first_start_delay =
            Rules::of(&self.cfg).first_start_delay(self.zoo.get(self.jobs[id as usize].model));
        let st = &mut self.jobs[id as usize];
        let first = st.first_start.is_none();
        if !first {
            st.count_restart(&placement);
        }
        st.first_start.get_or_insert(now);
        let pending = st.phase == Phase::Running && st.reconfig_until > now;
        if pending && rc {
            st.cancelled += 1;
        }
        let start = if pending && !rc {
            st.reconfig_until
        } else {
            now
        };
        let kept = if st.phase == Phase::Running {
            st.eff.as_ref().and_then(|e| e.intersect(&placement))
        } else {
            None
        };
        let eff_changed = st.eff.as_ref() != kept.as_ref();
        let load = if first { first_start_delay } else { init_s };
        st.reconfig_token += 1;
        // (stage-one GPUs, time the whole placement is ready, busy until)
        let (stage_one, ready_at, busy_until) = match kept {
            Some(k) if es => {
                let expanding = !k.contains(&placement);
                let t_a = if expanding { start + init_s } else { start };
                let pause = if eff_changed { switch_s } else { 0.0 };
                if t_a <= now {
                    (None, now + pause, now + pause)
                } else {
                    (Some(k), t_a, now + pause)
                }
            }
            _ => (None, start + load, start + load),
        };
        if st.phase == Phase::Waiting {
            self.waiting.remove(&id);
            self.running.insert(id);
        }
        let st = &mut self.jobs[id as usize];
        st.phase = Phase::Running;
        st.set_placement(Some(placement));
        if let Some(seg) = st.open_segment.take() {
            self.recorder.close(seg, now, st.done_fraction());
        }
        let whole_ready = match &stage_one {
            Some(k) => {
                st.eff = Some(k.clone());
                st.busy_until = busy_until;
                let token = st.reconfig_token;
                self.queue
                    .push(ready_at, EventKind::Reconfig { job: id, token });
                ready_at + switch_s
            }
            None => {
                st.eff = st.placement.clone();
                st.busy_until = busy_until;
                busy_until
            }
        };
        let st = &mut self.jobs[id as usize];
        st.restart_s += (busy_until - now).max(0.0);
        st.reconfig_until = whole_ready;
        self.refresh_rate_with(id, choice, false);
        self.after_change(id, whole_ready, &gpu_ids);
    }

    /// CoDDL: the new GPUs have loaded; the job switches to its whole
    /// placement after `switch_s`.
    pub(super) fn reconfig_ready(&mut self, id: u32) {
        let now = self.now;
        let switch_s = self.cfg.switch_s;
        let st = &mut self.jobs[id as usize];
        st.advance(now);
        st.eff = st.placement.clone();
        st.busy_until = st.busy_until.max(now + switch_s);
        st.restart_s += switch_s;
        self.refresh_rate(id, false);
    }

    /// Recomputes a running job's rate at an epoch boundary with the batch
    /// choice of its allocation (a rigid batch stays fixed; adaptive jobs
    /// re-optimise for the new epoch's efficiency).
    pub(super) fn refresh_rate(&mut self, id: u32, at_boundary: bool) {
        let choice = match self.jobs[id as usize].choice {
            Some(c) => c,
            None => self.batch_choice(id, None),
        };
        self.refresh_rate_with(id, choice, at_boundary);
    }

    pub(super) fn refresh_rate_with(&mut self, id: u32, choice: BatchChoice, at_boundary: bool) {
        let now = self.now;
        let st = &mut self.jobs[id as usize];
        st.advance(now);
        if at_boundary && st.rate_until.is_finite() {
            st.progress = st.progress.max(st.rate_until).min(st.work);
        }
        let Some(p) = st.eff.as_ref().or(st.placement.as_ref()) else {
            return;
        };
        let q = RateQuery {
            kind: p.kind,
            gpus: p.gpus(),
            nodes: p.nodes(),
            batch: choice,
            progress: st.progress,
        };
        let fraction = p.fraction();
        let r = if p.parts.is_empty() {
            self.zoo.rate_remembered(st.model, &q, &self.rates)
        } else {
            let mut nodes: Vec<u32> = p.shares.iter().map(|s| s.node).collect();
            nodes.extend(p.parts.iter().map(|x| x.node));
            nodes.sort_unstable();
            nodes.dedup();
            self.zoo
                .rate_fluid(st.model, &q, p.parts_fraction(), nodes.len() as u32)
        };
        let info = self.zoo.get(st.model);
        let calibration = 1.0 / Rules::of(&self.cfg).calibration_slowdown(info);
        // A slice runs at the 1-GPU rate slowed by interference (STS 2.7).
        let shared = 1.0 / rules::sharing_slowdown(&self.zoo, p.kind, fraction);
        st.rate = (r.per_s * calibration * shared).max(0.0);
        st.batch = r.batch;
        st.choice = Some(choice);
        st.rate_until = if r.until_progress > st.progress {
            r.until_progress
        } else {
            f64::INFINITY
        };
        st.version += 1;
        let version = st.version;
        if let Some((t, completes)) = st.next_change(now) {
            let kind = if completes {
                EventKind::Complete { job: id, version }
            } else {
                EventKind::RateChange { job: id, version }
            };
            self.queue.push(t.max(now), kind);
        }
    }
}
