//! The DP-based method (spec seed002 §3.3, after Saxena et al., MASCOTS
//! 2020, as the STS paper runs it): every `interval_s` and at events, a
//! knapsack over the active jobs in FIFO order chooses each job's GPU count
//! k (0 = postponed) within the cluster's GPUs to minimise the proxy F_WCT:
//! weight x tardiness at k GPUs of the fastest type offering k + the price
//! of k GPUs over the interval, or, postponed, weight x the worst-case
//! tardiness after waiting an interval. The chosen jobs are then placed
//! FIFO, each on the fastest configuration free (`run_on=fastest`, the
//! paper's "coupled with running each job on the fastest available
//! configuration"; its DP's energy is three times STS's, R3) or on the
//! knapsack's count (`run_on=knapsack`); one that does not fit waits. The knapsack
//! counts GPUs over the whole cluster (not per node or type), an
//! approximation the spec notes. A job without a due date is treated as due
//! at its arrival. `avg-dp` plans on the mean epoch count.

use super::{configs, Config, Laws, Times};
use crate::{Policy, PolicyInfo, Trigger};
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::settings::Settings;
use schedlab_sim::{Decision, View};

schedlab_core::settings! {
    /// DP's and avgDP's settings (`--set dp.KEY=VALUE`, `--set avg-dp.KEY=VALUE`).
    pub struct DpSettings {
        interval_s: f64 = float("3600", 1.0, 1e7, "Delta t: the reconfiguration interval (re-plans at least this often; the paper gives no value)"),
        run_on: RunOn = choice("fastest", "knapsack: each chosen job runs on the count the knapsack gave it (fastest type for that count; spec §3.3's concrete DP); fastest: the knapsack only chooses which jobs run, each then takes the fastest configuration free (the paper's \"coupled with running each job on the fastest available configuration\")"),
    }
}

pub const PARAMS: &[ParamSpec] = <DpSettings as Settings>::SPECS;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "dp",
    title: "DP (Saxena et al.)",
    source: schedlab_core::prose::doc("STS paper (Filippini et al., TCC 2024) §VII baseline, its ref. [4]; spec seed002 §3"),
    description: schedlab_core::prose::doc("Every interval and event, dynamic programming over the FIFO-ordered jobs picks each job's GPU count (fastest type for it) minimising tardiness plus the interval's GPU price; placed FIFO"),
    params: PARAMS,
    knowledge: crate::Knowledge::Declared,
    build: |p, _| build(p, Times::Worst),
};

pub const AVG_INFO: PolicyInfo = PolicyInfo {
    name: "avg-dp",
    title: "avgDP",
    source: schedlab_core::prose::doc("STS paper §VII (avg* baselines); spec seed002 §3.4"),
    description: schedlab_core::prose::doc(
        "The DP-based method planning on the mean epoch count instead of the maximum",
    ),
    params: PARAMS,
    knowledge: crate::Knowledge::Declared,
    build: |p, _| build(p, Times::Mean),
};

schedlab_core::choice! {
    /// `run_on`: where each chosen job runs.
    pub enum RunOn {
        /// The count the knapsack gave it (fastest type for that count).
        Knapsack = "knapsack",
        /// The fastest configuration free.
        Fastest = "fastest",
    }
}

fn build(p: &Params, times: Times) -> Result<Box<dyn Policy>> {
    let s = DpSettings::from_params(p);
    Ok(Box::new(Dp {
        times,
        interval_s: s.interval_s,
        fastest: match s.run_on {
            RunOn::Knapsack => false,
            RunOn::Fastest => true,
        },
        laws: Laws::default(),
    }))
}

#[derive(Clone)]
struct Dp {
    times: Times,
    interval_s: f64,
    /// Chosen jobs take the fastest free configuration (`run_on=fastest`).
    fastest: bool,
    laws: Laws,
}

/// The fastest configuration with exactly `k` GPUs, if any type offers it.
fn fastest_with(all: &[Config], k: u32) -> Option<Config> {
    all.iter()
        .filter(|c| c.gpus == k)
        .copied()
        .max_by(|a, b| a.speed.total_cmp(&b.speed).then(b.cost.total_cmp(&a.cost)))
}

impl Policy for Dp {
    fn name(&self) -> &str {
        match self.times {
            Times::Worst => "dp",
            Times::Mean => "avg-dp",
        }
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(0.0)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let now = view.now();
        let dt = self.interval_s;
        // Jobs in FIFO order (active is in arrival order) with their options.
        let mut jobs = Vec::new();
        for j in super::movable(view) {
            let f = self.laws.facts(view, j);
            let all = configs(view, &f);
            let max_k = all.iter().map(|c| c.gpus).max().unwrap_or(0);
            let left = f.left(self.times);
            // A job without a due date is due at its arrival: every second
            // it waits counts (else the knapsack would never start it).
            let due = if f.due.is_finite() {
                f.due
            } else {
                view.spec(j).arrival
            };
            let tardy = |t: f64| f.eta * (t - due).max(0.0);
            let slowest = all.iter().map(|c| c.speed).fold(f64::INFINITY, f64::min);
            let mut cost = vec![tardy(now + dt + left / slowest)];
            let mut pick = vec![None];
            for k in 1..=max_k {
                let c = fastest_with(&all, k);
                cost.push(c.map_or(f64::INFINITY, |c| tardy(now + left / c.speed) + c.cost * dt));
                pick.push(c);
            }
            jobs.push((j, cost, pick, all));
        }
        let pinned: u32 = view
            .running()
            .iter()
            .filter(|j| view.pinned(**j))
            .map(|j| view.gpus_of(*j))
            .sum();
        let cap = view.cluster().total_gpus.saturating_sub(pinned) as usize;
        // value[g] = least cost of the jobs so far using g GPUs at most.
        let mut value = vec![0.0f64; cap + 1];
        let mut choice: Vec<Vec<u8>> = Vec::with_capacity(jobs.len());
        for (_, cost, _, _) in &jobs {
            let mut next = vec![f64::INFINITY; cap + 1];
            let mut ch = vec![0u8; cap + 1];
            for g in 0..=cap {
                for (k, c) in cost.iter().enumerate() {
                    if k > g || !c.is_finite() {
                        continue;
                    }
                    let v = value[g - k] + c;
                    if v < next[g] {
                        next[g] = v;
                        ch[g] = k as u8;
                    }
                }
            }
            value = next;
            choice.push(ch);
        }
        let mut ks = vec![0u32; jobs.len()];
        let mut g = cap;
        for i in (0..jobs.len()).rev() {
            let k = choice[i][g] as usize;
            ks[i] = k as u32;
            g -= k;
        }
        let (mut packer, mut plan) = super::start_plan(view);
        for ((j, _, pick, all), k) in jobs.iter().zip(&ks) {
            let Some(c) = pick.get(*k as usize).copied().flatten() else {
                continue;
            };
            let placed = if self.fastest {
                let mut by_speed = all.clone();
                schedlab_core::sorting::sort_by(&mut by_speed, |a, b| {
                    b.speed.total_cmp(&a.speed).then(a.cost.total_cmp(&b.cost))
                });
                by_speed
                    .iter()
                    .find_map(|c| packer.claim(*j, c.kind, c.gpus))
            } else {
                packer.claim(*j, c.kind, c.gpus)
            };
            if let Some(p) = placed {
                plan.push((*j, p, None));
            }
        }
        if !view.active().is_empty() {
            out.wake_at(now + dt);
        }
        out.apply_plan(view, plan);
    }
}
