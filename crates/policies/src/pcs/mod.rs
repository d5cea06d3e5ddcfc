//! PCS (Faisal et al., OSDI'24; spec seed001 §2.2): weighted fair queueing
//! across job-size classes with FIFO inside each class, so that a job's
//! completion time, predicted at its arrival, is disturbed little by later
//! arrivals. Recomputed at every arrival and completion.
//!
//! The fluid shares come from [`wfq::fluid_allocation`]. They are realised
//! in one of two ways (`realise`, spec §7.7):
//! - `fluid` (the default, as the artifact's simulator): every job gets the
//!   integer part of its share as whole GPUs and its fraction as
//!   time-shared parts of the GPUs left ([`crate::helpers::fluid`]); the
//!   engine runs it at its throughput interpolated between whole counts.
//! - `rotate` (PCS's testbed, `AppPracticalMCScheduler`, spec §2.2): every
//!   job gets the integer part of its share, and the F = ⌊Σ fractional
//!   parts⌋ GPUs that remain go, one each, to the first F jobs of a
//!   round-robin group of the jobs with a fractional part. The group's head
//!   moves to its tail every `quantum_s` × (the head's fraction) seconds (a
//!   policy wake-up), so over time each job runs at about its fluid share.
//!
//! Rigid jobs get their whole request or nothing; non-preemptible running
//! jobs keep their GPUs and the shares divide the rest.

pub mod config;
mod explain;
pub mod heuristic;
mod queues;
pub mod wfq;

use super::{Policy, PolicyInfo, Trigger};
use crate::helpers::alloc::{
    first_grant, is_rigid, pinned_jobs, place_then, place_with_retry, share_cap, without, Share,
};
use crate::helpers::fluid::{self, FRAC_EPS};
use queues::ClassQueues;
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::settings::Settings;
use schedlab_model::cluster::PlacementRule;
use schedlab_sim::{Decision, RateFn, View};
use std::collections::BTreeSet;
use wfq::{FluidJob, WfqConfig};

schedlab_core::settings! {
    /// PCS's settings (`--set pcs.KEY=VALUE`): a WFQ configuration and how it is realised.
    pub struct PcsSettings {
        thresholds: Vec<f64> = list("3600,86400", 0.0, 1e15, "Class size bounds in 1-GPU seconds, increasing: a job whose declared run time on one GPU is at most the i-th bound joins class i; one more class takes the rest"),
        weights: Vec<f64> = list("0.9,0.09,0.01", 0.0, 1e9, "Class weights (guaranteed GPU shares), one per class (thresholds + 1), normalised to sum 1; the default is W = 2.3 of the exp(-W i) heuristic"),
        clip: f64 = float("0.01", 0.0, 1.0, "zeta_min: within a class a job gets GPUs only while its efficiency speedup(g)/g stays at or above this"),
        delta: f64 = float("0.01", 0.01, 0.9, "Step by which zeta is relaxed when a class's capped FIFO pass leaves its share partly unused"),
        realise: Realise = choice("fluid", "How fractional shares run on whole GPUs: fluid (the artifact's simulator: the fractions as time-shared parts of GPUs, throughput interpolated) or rotate (its testbed: whole GPUs passed round the jobs with a fraction every quantum_s)"),
        quantum_s: f64 = float("600", 1.0, 1e9, "Time-slice (at least 1 s, the shortest round: shorter slices let simulated time stall) of the rotate realisation: the GPUs that fractional shares add up to rotate among those jobs, each holding one for quantum x its fraction"),
    }
}

const PARAMS: &[ParamSpec] = <PcsSettings as Settings>::SPECS;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "pcs",
    title: "PCS (WFQ)",
    source: schedlab_core::prose::doc("PCS (OSDI'24) §3 weighted fair queueing; spec seed001 §2.2 (the artifact's MCS)"),
    description: schedlab_core::prose::doc("Size classes with guaranteed weighted shares (work-conserving water-filling), FIFO within a class under an efficiency cap; bounded preemption for reliable completion-time predictions."),
    params: PARAMS,
    knowledge: crate::Knowledge::Declared,
    build,
};

schedlab_core::choice! {
    /// `realise`: how fractional shares run on whole GPUs.
    pub enum Realise {
        /// The artifact's simulator: fractions as time-shared parts of GPUs.
        Fluid = "fluid",
        /// Its testbed: whole GPUs passed round the jobs every `quantum_s`.
        Rotate = "rotate",
    }
}

fn build(p: &Params, _seed: u64) -> Result<Box<dyn Policy>> {
    let s = PcsSettings::from_params(p);
    Ok(Box::new(Pcs {
        cfg: WfqConfig::new(&s.thresholds, &s.weights, s.clip, s.delta)?,
        quantum: s.quantum_s,
        rotate: match s.realise {
            Realise::Fluid => false,
            Realise::Rotate => true,
        },
        group: Vec::new(),
        next_turn: None,
        classed: Vec::new(),
        fixed: Vec::new(),
        sizes: Default::default(),
        queues: None,
        general_only: false,
    }))
}

#[derive(Clone)]
struct Pcs {
    cfg: WfqConfig,
    quantum: f64,
    /// Realise fractions by rotating whole GPUs (else as time-shared parts).
    rotate: bool,
    /// Jobs whose fluid share has a fractional part, in round-robin order.
    group: Vec<u32>,
    /// When the group's head next moves to its tail (None: no group).
    next_turn: Option<f64>,
    /// Jobs whose size class the page has been told (a class never changes).
    classed: Vec<bool>,
    /// Per job id, its fluid description when it cannot change (a speedup
    /// curve of the GPU count under perfect knowledge), made once: forks
    /// call the policy at every event of every prediction.
    fixed: Vec<Option<FluidJob>>,
    /// The fixed jobs' sizes, for the reasons (`explain::Sizes`).
    sizes: explain::Sizes,
    /// The active jobs by class (`queues`), when they stand for them.
    queues: Option<ClassQueues>,
    /// A job without a fixed description was seen: every call takes the
    /// general path (the queues need every job's class and demand fixed).
    general_only: bool,
}

impl Pcs {
    /// The fluid shares of `jobs` (arrival order) on `capacity` GPUs.
    fn fluid(&mut self, view: &View, jobs: &[u32], capacity: u32) -> Vec<f64> {
        // Descriptions made in this call; the cached ones are only read.
        let made: Vec<Option<FluidJob>> = jobs.iter().map(|&j| self.fluid_job(view, j)).collect();
        let fluid: Vec<&FluidJob> = jobs
            .iter()
            .zip(&made)
            .map(|(&j, m)| match m {
                Some(job) => job,
                None => self.fixed[j as usize]
                    .as_ref()
                    .expect("cached by fluid_job"),
            })
            .collect();
        wfq::fluid_allocation(&self.cfg, capacity as f64, &fluid)
    }

    /// A job's class, demand and efficiency per GPU count, or None when its
    /// description is (now) in the `fixed` cache.
    fn fluid_job(&mut self, view: &View, j: u32) -> Option<FluidJob> {
        if let Some(Some(_)) = self.fixed.get(j as usize) {
            return None;
        }
        let demand = share_cap(view, j).max(1);
        let rate = view.rate_fn(j);
        let one = rate.at(view, 1);
        let efficiency: Vec<f64> = (1..=demand)
            .map(|g| {
                if one > 0.0 {
                    rate.at(view, g) / (g as f64 * one)
                } else {
                    1.0
                }
            })
            .collect();
        let job = FluidJob {
            class: self.cfg.class_of(size_on_one_gpu(view, j)),
            demand,
            efficiency: efficiency.into(),
        };
        if matches!(rate, RateFn::Curve(..)) {
            let idx = j as usize;
            if self.fixed.len() <= idx {
                self.fixed.resize(idx + 1, None);
            }
            self.fixed[idx] = Some(job);
            return None;
        }
        Some(job)
    }

    /// Whole-GPU counts for fluid shares: integer parts plus the rotating
    /// group's extra GPUs. Advances the rotation when its turn is due and
    /// `may_turn` (once per call, not again when a placement is retried).
    fn realise(&mut self, now: f64, may_turn: bool, jobs: &[u32], fluid: &[f64]) -> Vec<u32> {
        let mut counts: Vec<u32> = fluid
            .iter()
            .map(|a| (a + FRAC_EPS).floor() as u32)
            .collect();
        let frac: Vec<f64> = fluid
            .iter()
            .zip(&counts)
            .map(|(a, c)| {
                let f = a - *c as f64;
                if f > FRAC_EPS {
                    f
                } else {
                    0.0
                }
            })
            .collect();
        // `jobs` is in arrival order, i.e. sorted by id.
        let index_of = |j: u32| jobs.binary_search(&j).ok();
        let fraction_of = |j: u32| index_of(j).map_or(0.0, |i| frac[i]);
        self.group.retain(|&j| fraction_of(j) > 0.0);
        let members: std::collections::BTreeSet<u32> = self.group.iter().copied().collect();
        for (i, &j) in jobs.iter().enumerate() {
            if frac[i] > 0.0 && !members.contains(&j) {
                self.group.push(j);
            }
        }
        if self.group.is_empty() {
            self.next_turn = None;
            return counts;
        }
        match self.next_turn {
            Some(t) if may_turn && now + 1e-9 >= t => {
                self.group.rotate_left(1);
                self.next_turn = Some(now + self.quantum * fraction_of(self.group[0]));
            }
            None => self.next_turn = Some(now + self.quantum * fraction_of(self.group[0])),
            Some(_) => {}
        }
        let extra = (frac.iter().sum::<f64>() + FRAC_EPS).floor() as usize;
        for &j in self.group.iter().take(extra) {
            if let Some(i) = index_of(j) {
                counts[i] += 1;
            }
        }
        counts
    }
}

/// Whole GPUs to place and fractions to lay out as parts, for jobs' fluid
/// shares (`jobs` in arrival order: the fractions are laid out in it).
fn whole_and_parts(
    view: &View,
    jobs: impl Iterator<Item = (u32, f64)>,
) -> (Vec<Share>, Vec<(u32, f64)>) {
    let mut shares = Vec::new();
    let mut fractions = Vec::new();
    for (j, a) in jobs {
        let cap = share_cap(view, j);
        if is_rigid(view, j) {
            let count = if a + FRAC_EPS >= cap as f64 { cap } else { 0 };
            let min = first_grant(view, j);
            shares.push(Share {
                job: j,
                count,
                min,
                cap,
            });
            continue;
        }
        let (share, fraction) = fluid::split(j, a, cap);
        shares.push(share);
        fractions.extend(fraction);
    }
    (shares, fractions)
}

/// A job's size for classification: its declared work's run time on one
/// GPU (PCS's demand_min, "1-GPU seconds").
fn size_on_one_gpu(view: &View, job: u32) -> f64 {
    let r = view.rate(job, 1);
    if r > 0.0 {
        view.declared_work(job) / r
    } else {
        f64::INFINITY
    }
}

impl Policy for Pcs {
    fn name(&self) -> &str {
        "pcs"
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(0.0)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let (pinned, free) = pinned_jobs(view);
        if !self.rotate && pinned.is_empty() && view.placement_rule() != PlacementRule::NetPack {
            if self.sync_queues(view) {
                let (shares, served) = self.leading(free);
                if view.want_reasons() {
                    self.explain_queued(view, out, &shares, &served);
                }
                self.place_leading(view, out, free, served);
                self.report_classes(view, out);
                return;
            }
        } else {
            self.queues = None;
        }
        let candidates: Vec<u32> = view
            .active()
            .iter()
            .copied()
            .filter(|j| !pinned.contains(j))
            .collect();
        if view.want_reasons() {
            self.explain(view, out, &candidates, free);
        }
        if !self.rotate {
            self.place_fluid(view, out, &pinned, free, &candidates);
            self.report_classes(view, out);
            return;
        }
        let mut first = true;
        place_with_retry(view, out, &pinned, |excluded| {
            let jobs = without(&candidates, excluded);
            let fluid = self.fluid(view, &jobs, free);
            let counts = self.realise(view.now(), first, &jobs, &fluid);
            first = false;
            jobs.iter()
                .zip(counts)
                .map(|(&j, c)| {
                    let cap = share_cap(view, j);
                    let rigid = is_rigid(view, j);
                    let count = if rigid && c < cap { 0 } else { c.min(cap) };
                    Share {
                        job: j,
                        count,
                        min: if rigid {
                            first_grant(view, j)
                        } else {
                            count.min(1)
                        },
                        cap,
                    }
                })
                .collect()
        });
        if let Some(t) = self.next_turn {
            out.wake_at(t);
        }
        self.report_classes(view, out);
    }
}

impl Pcs {
    /// The fluid realisation: whole GPUs for the integer parts of the
    /// shares, then the fractions as time-shared parts of the GPUs left.
    /// Jobs that cannot be placed (fragmentation) are left out and the
    /// shares recomputed, as `place_with_retry` does.
    fn place_fluid(
        &mut self,
        view: &View,
        out: &mut Decision,
        pinned: &[u32],
        free: u32,
        candidates: &[u32],
    ) {
        let compute = |excluded: &BTreeSet<u32>| {
            let jobs = without(candidates, excluded);
            let fluid = self.fluid(view, &jobs, free);
            whole_and_parts(view, jobs.iter().copied().zip(fluid))
        };
        place_then(view, out, pinned, compute, |plan, fractions| {
            fluid::add_parts(view, plan, &fractions)
        });
    }

    /// The fluid realisation from the class queues: only the jobs each
    /// class serves are visited (the same plan as `place_fluid`'s, whose
    /// other jobs get no GPUs). A placement retry without some jobs
    /// (fragmentation) takes the general computation.
    fn place_leading(
        &mut self,
        view: &View,
        out: &mut Decision,
        free: u32,
        served: Vec<(u32, f64)>,
    ) {
        let compute = |excluded: &BTreeSet<u32>| {
            if excluded.is_empty() {
                return whole_and_parts(view, served.iter().copied());
            }
            let jobs: Vec<u32> = view
                .active()
                .iter()
                .copied()
                .filter(|j| !excluded.contains(j))
                .collect();
            let fluid = self.fluid(view, &jobs, free);
            whole_and_parts(view, jobs.iter().copied().zip(fluid))
        };
        place_then(view, out, &[], compute, |plan, fractions| {
            fluid::add_parts(view, plan, &fractions)
        });
    }

    /// The class shares of `free` GPUs and the jobs the class queues serve
    /// with their fluid shares, in arrival order (`wfq::leading_allocation`).
    fn leading(&self, free: u32) -> (Vec<f64>, Vec<(u32, f64)>) {
        let queues = self.queues.as_ref().expect("synced");
        let fixed = &self.fixed;
        let describe = |j: u32| fixed[j as usize].as_ref().expect("queued jobs are fixed");
        let (shares, mut served) =
            wfq::leading_allocation(&self.cfg, free as f64, queues.demands(), |c| {
                queues.members(c).map(move |j| (j, describe(j)))
            });
        // Arrival order, as the general computation lays the fractions out.
        served.sort_unstable_by_key(|&(j, _)| j);
        (shares, served)
    }

    /// Brings the class queues up to this call (its completions and
    /// arrivals), rebuilding them when they no longer hold exactly the
    /// active jobs. False when they cannot stand for them (a job without a
    /// fixed description).
    fn sync_queues(&mut self, view: &View) -> bool {
        if self.general_only {
            return false;
        }
        if let Some(mut q) = self.queues.take() {
            for &j in view.completed() {
                if let Some(Some(job)) = self.fixed.get(j as usize) {
                    q.remove(j, job);
                }
            }
            for &j in view.arrived() {
                if !view.active().contains(&j) {
                    continue;
                }
                if self.fluid_job(view, j).is_some() {
                    self.general_only = true;
                    return false;
                }
                q.insert(j, self.fixed[j as usize].as_ref().expect("cached"));
            }
            if q.len() == view.active().len() {
                self.queues = Some(q);
                return true;
            }
        }
        self.rebuild_queues(view);
        self.queues.is_some()
    }

    /// Queues of every active job, if each has a fixed description.
    fn rebuild_queues(&mut self, view: &View) {
        self.queues = None;
        for &j in view.active() {
            if self.fluid_job(view, j).is_some() {
                self.general_only = true;
                return;
            }
        }
        let fixed = &self.fixed;
        self.queues = Some(ClassQueues::build(
            self.cfg.classes(),
            view.active()
                .iter()
                .map(|&j| (j, fixed[j as usize].as_ref().expect("cached"))),
        ));
    }

    /// Tells the page each job's size class once (when it asks).
    fn report_classes(&mut self, view: &View, out: &mut Decision) {
        if view.want_insight() {
            for &j in view.active() {
                let idx = j as usize;
                if self.classed.len() <= idx {
                    self.classed.resize(idx + 1, false);
                }
                if !std::mem::replace(&mut self.classed[idx], true) {
                    out.set_group(j, self.cfg.class_of(size_on_one_gpu(view, j)) as u32);
                }
            }
        }
    }
}
