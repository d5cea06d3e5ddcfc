//! Randomized Greedy (spec seed002 §3.2, after the STS paper's ref. [11]):
//! at every rescheduling point (arrival, completion, every `period_s`) all
//! active jobs are re-planned. One construction walks the jobs by pressure
//! and gives each the cheapest configuration that meets its due date, else
//! the fastest, among those that fit; `iterations` randomised constructions
//! (adjacent jobs swapped and the second-best configuration tried first,
//! each with probability `alpha`) are scored by the local objective (price
//! of the remaining run + weight x tardiness, and rho x weight x worst-case
//! tardiness for a postponed job) and the best is applied. `avg-rg` plans
//! on the mean epoch count.

use super::{by_pressure, configs, greedy_order, pressure, Config, Facts, Laws, Times};
use crate::{Policy, PolicyInfo, Trigger};
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::rng::Sampler;
use schedlab_core::settings::Settings;
use schedlab_model::cluster::{Packer, Placement};
use schedlab_sim::{Decision, View};

schedlab_core::settings! {
    /// RG's and avgRG's settings (`--set rg.KEY=VALUE`, `--set avg-rg.KEY=VALUE`).
    pub struct RgSettings {
        iterations: usize = int("100", 1, 100_000, "Randomised constructions per rescheduling point (the authors' tool: 100; the paper's runs 1,000)"),
        alpha: f64 = float("0.1", 0.0, 1.0, "Probability of swapping adjacent jobs and of trying the second-best configuration first"),
        rho: f64 = float("2", 1.0, 100.0, "Extra penalty on the worst-case tardiness of a postponed job"),
        period_s: f64 = float("3600", 1.0, 1e7, "H: re-plan at least this often (seconds)"),
    }
}

pub const PARAMS: &[ParamSpec] = <RgSettings as Settings>::SPECS;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "rg",
    title: "Randomized Greedy",
    source: schedlab_core::prose::doc("STS paper (Filippini et al., TCC 2024) §VII baseline, from its ref. [11]; spec seed002 §3"),
    description: schedlab_core::prose::doc("Re-plans all jobs at every event: by pressure, each job the cheapest configuration meeting its due date (worst-case time) else the fastest; the best of several randomised constructions"),
    params: PARAMS,
    knowledge: crate::Knowledge::Declared,
    build: |p, seed| build(p, seed, Times::Worst),
};

pub const AVG_INFO: PolicyInfo = PolicyInfo {
    name: "avg-rg",
    title: "avgRG",
    source: schedlab_core::prose::doc("STS paper §VII (avg* baselines); spec seed002 §3.4"),
    description: schedlab_core::prose::doc(
        "Randomized Greedy planning on the mean epoch count instead of the maximum",
    ),
    params: PARAMS,
    knowledge: crate::Knowledge::Declared,
    build: |p, seed| build(p, seed, Times::Mean),
};

fn build(p: &Params, seed: u64, times: Times) -> Result<Box<dyn Policy>> {
    let s = RgSettings::from_params(p);
    Ok(Box::new(Rg {
        times,
        iterations: s.iterations,
        alpha: s.alpha,
        rho: s.rho,
        period_s: s.period_s,
        rng: Sampler::derive(seed, "rg"),
        laws: Laws::default(),
    }))
}

#[derive(Clone)]
struct Rg {
    times: Times,
    iterations: usize,
    alpha: f64,
    rho: f64,
    period_s: f64,
    rng: Sampler,
    laws: Laws,
}

/// A job's facts, configurations and greedy preference order.
struct Job {
    facts: Facts,
    all: Vec<Config>,
    cands: Vec<Config>,
}

type Plan = Vec<(u32, Placement, Option<schedlab_model::perf::BatchChoice>)>;

impl Rg {
    /// One construction over `order`; returns its plan and local objective.
    fn construct(
        &mut self,
        view: &View,
        base: &Packer,
        order: &[usize],
        jobs: &[Job],
        randomise: bool,
    ) -> (Plan, f64) {
        let mut packer = base.clone();
        let mut plan = Vec::new();
        let mut score = 0.0;
        for &i in order {
            let Job {
                facts: f,
                all,
                cands,
            } = &jobs[i];
            // With probability alpha the second-best configuration goes first.
            let second_first = randomise && cands.len() > 1 && self.rng.chance(self.alpha);
            let tries = (0..cands.len()).map(|k| match k {
                0 if second_first => 1,
                1 if second_first => 0,
                k => k,
            });
            let left = f.left(self.times);
            let placed = tries
                .map(|k| &cands[k])
                .find_map(|c| packer.claim(f.job, c.kind, c.gpus).map(|p| (c, p)));
            match placed {
                Some((c, p)) => {
                    let t = left / c.speed;
                    score += c.cost * t + f.eta * (view.now() + t - f.due).max(0.0);
                    plan.push((f.job, p, None));
                }
                None => {
                    let slowest = all.iter().map(|c| c.speed).fold(f64::INFINITY, f64::min);
                    let worst = view.now() + self.period_s + left / slowest - f.due;
                    if worst.is_finite() {
                        score += self.rho * f.eta * worst.max(0.0);
                    }
                }
            }
        }
        (plan, score)
    }
}

impl Policy for Rg {
    fn name(&self) -> &str {
        match self.times {
            Times::Worst => "rg",
            Times::Mean => "avg-rg",
        }
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(0.0)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let mut jobs = Vec::new();
        let mut keyed = Vec::new();
        for j in super::movable(view) {
            let f = self.laws.facts(view, j);
            let all = configs(view, &f);
            keyed.push((pressure(view.now(), &f, &all, false), jobs.len() as u32));
            // The greedy preference is the same in every construction.
            let cands = greedy_order(view.now(), &f, &all, self.times);
            jobs.push(Job {
                facts: f,
                all,
                cands,
            });
        }
        let order: Vec<usize> = by_pressure(keyed).into_iter().map(|i| i as usize).collect();
        let (base, pinned) = super::start_plan(view);
        let (mut best, mut best_score) = self.construct(view, &base, &order, &jobs, false);
        for _ in 1..self.iterations {
            let mut o = order.clone();
            for k in 1..o.len() {
                if self.rng.chance(self.alpha) {
                    o.swap(k - 1, k);
                }
            }
            let (plan, score) = self.construct(view, &base, &o, &jobs, true);
            if score < best_score {
                best = plan;
                best_score = score;
            }
        }
        if !view.active().is_empty() {
            out.wake_at(view.now() + self.period_s);
        }
        best.extend(pinned);
        out.apply_plan(view, best);
    }
}
