//! STS (spec seed002 §2.6): at every arrival, completion, planned step-up
//! and at least every `period_s`, re-plan every active job. Jobs go by
//! decreasing pressure; for each, the single-job model is solved on every
//! GPU type (levels from k_0 up, k_0 the count chosen last time, one more
//! at its planned switch time) and the types are ranked by expected cost
//! (deadline-feasible first); the first step of the best plan that fits is
//! placed best fit on one node (partly used nodes first, a job's previous
//! GPUs kept when its configuration is unchanged). With `sharing`, a job
//! whose plan starts on one GPU may take a fraction of one (Table IV slots
//! that hold its memory) if the plan stays feasible at the slowed speed
//! (spec §2.7, option 1). Post-processing hands the idle GPUs of powered
//! nodes to the jobs already on them (`fill_idle`).

use super::staircase::{self, Level, Plan};
use super::{by_pressure, configs, pressure, Config, Facts, Laws};
use crate::{Policy, PolicyInfo, Trigger};
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::settings::Settings;
use schedlab_model::cluster::{node_mask, GpuKind, NodeShare, Placement, Slice};
use schedlab_sim::{field, Decision, Field, Rule, Unit, Val, View};
use std::collections::BTreeMap;

schedlab_core::settings! {
    /// STS's settings (`--set sts.KEY=VALUE`).
    pub struct StsSettings {
        sharing: bool = boolean("false", "Let a job whose plan starts on one GPU take a fraction of one GPU (the zoo's slots: Table IV's 1/4 or 1/2 of a K80/M60, 0.1 or 0.15 of an A100, or the authors' fractions.csv) when its plan stays feasible at the slowed speed"),
        fill_idle: bool = boolean("false", "Post-processing of the paper: give idle GPUs of powered nodes to the jobs already there (less risk of lateness, but with idle GPUs free of charge it doubled the cost on a 10-node trace for no gain in tardiness; docs/STS.md)"),
        period_s: f64 = float("3600", 1.0, 1e7, "H: re-plan at least this often (seconds)"),
        weighted_pressure: bool = boolean("false", "Multiply a positive pressure index by the job's tardiness weight"),
    }
}

pub const PARAMS: &[ParamSpec] = <StsSettings as Settings>::SPECS;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "sts",
    title: "STS",
    source: schedlab_core::prose::doc("Filippini et al., IEEE TCC 2024 (STS), Algorithms 1-3; spec seed002 §2"),
    description: schedlab_core::prose::doc("Stochastic, energy-minimising scheduling with due dates: per job and GPU type the optimal staircase of GPU counts over epochs for the early-stopping law (cheap first, faster later so the full run still meets the due date), its first step placed best fit by pressure, optional GPU sharing"),
    params: PARAMS,
    knowledge: crate::Knowledge::Declared,
    build,
};

fn build(p: &Params, _seed: u64) -> Result<Box<dyn Policy>> {
    let s = StsSettings::from_params(p);
    Ok(Box::new(Sts {
        sharing: s.sharing,
        fill_idle: s.fill_idle,
        period_s: s.period_s,
        weighted: s.weighted_pressure,
        laws: Laws::default(),
        last: BTreeMap::new(),
    }))
}

/// What STS chose for a job last time it ran.
#[derive(Debug, Clone, Copy)]
struct Chosen {
    kind: GpuKind,
    /// The model-selected count (not the post-processing's extra GPUs).
    gpus: u32,
    speed: f64,
    /// Planned step-up time (infinity if none).
    switch_at: f64,
}

#[derive(Clone)]
struct Sts {
    sharing: bool,
    fill_idle: bool,
    period_s: f64,
    weighted: bool,
    laws: Laws,
    last: BTreeMap<u32, Chosen>,
}

/// One ranked option for a job: type, first level, optional slice.
#[derive(Debug, Clone)]
struct Option_ {
    config: Config,
    slice: Option<Slice>,
    plan: Plan,
    rank: f64,
    /// On another type, slower than what the job runs at now.
    step_down: bool,
}

impl Sts {
    /// Algorithm 3: the plan per GPU type, ranked by expected cost.
    fn options(
        &self,
        view: &View,
        f: &Facts,
        survival: &schedlab_model::perf::epochs::Survival,
        all: &[Config],
    ) -> Vec<Option_> {
        let prev = self.last.get(&f.job).copied();
        let switch_due = prev.is_some_and(|c| c.switch_at <= view.now() + 1e-6);
        let job = staircase::Job {
            survival,
            done: f.done,
            max: f.max,
            deadline: f.due - view.now(),
        };
        let mut out = Vec::new();
        for &kind in &view.cluster().kinds {
            let ladder: Vec<&Config> = all.iter().filter(|c| c.kind == kind).collect();
            if ladder.is_empty() {
                continue;
            }
            // k_0: monotone GPU counts (same type) or speeds (another type).
            let keep = |c: &Config| match prev {
                None => true,
                Some(p) if p.kind == kind => c.gpus >= p.gpus + switch_due as u32,
                Some(p) if switch_due => c.speed > p.speed,
                Some(p) => c.speed >= p.speed,
            };
            let level = |c: &&Config| Level {
                gpus: c.gpus,
                speed: c.speed,
                cost: c.cost,
            };
            let mut levels: Vec<Level> = ladder.iter().filter(|c| keep(c)).map(level).collect();
            // A type that cannot match the job's speed would be a step down:
            // it plans on its whole ladder (the deadline still binds the
            // plan) but ranks after every option that keeps the speed.
            let step_down = levels.is_empty() && prev.is_some_and(|p| p.kind != kind);
            if levels.is_empty() {
                // Already at the top of its own type: stay there.
                levels = match prev {
                    Some(p) if p.kind == kind => ladder.last().map(level).into_iter().collect(),
                    _ => ladder.iter().map(level).collect(),
                };
            }
            // Without a due date the deadline is infinite: all at level 1.
            let Some(plan) = staircase::solve(&job, &levels) else {
                continue;
            };
            let first = plan.first();
            let config = *ladder
                .iter()
                .find(|c| c.gpus == first.gpus)
                .copied()
                .expect("a ladder level");
            let rank = if plan.feasible {
                plan.expected_cost
            } else {
                plan.expected_cost + f.eta * (view.now() + plan.worst_time(f.done) - f.due).max(0.0)
            };
            if self.sharing && plan.feasible && first.gpus == 1 {
                if let Some(shared) = self.shared_option(view, f, &job, &levels, config) {
                    out.push(Option_ {
                        step_down,
                        ..shared
                    });
                }
            }
            out.push(Option_ {
                config,
                slice: None,
                plan,
                rank,
                step_down,
            });
        }
        // Feasible types first, then those that keep the job's speed, then
        // by expected cost; a shared option ranks just ahead of its
        // dedicated twin. (Ranking step-downs by cost alone let a job
        // alternate between a slower type's cheap shared slot, whose plan
        // stepped up again at once, and a faster type, ever more often.)
        schedlab_core::sorting::sort_by(&mut out, |a, b| {
            b.plan
                .feasible
                .cmp(&a.plan.feasible)
                .then(a.step_down.cmp(&b.step_down))
                .then(a.rank.total_cmp(&b.rank))
                .then(b.slice.is_some().cmp(&a.slice.is_some()))
        });
        out
    }

    /// Spec §2.7, option 1: the smallest slot of the type that holds the
    /// job's memory, if the plan re-solved with level 1 slowed by the
    /// sharing slowdown is still feasible.
    fn shared_option(
        &self,
        view: &View,
        f: &Facts,
        job: &staircase::Job,
        levels: &[Level],
        config: Config,
    ) -> Option<Option_> {
        let mem_mb = view.memory_need_mb(f.job);
        let gpu_mb = schedlab_model::cluster::gpu_mem_mb(config.kind);
        // The zoo's slots of the type (Table IV, or the authors' fractions).
        let slot = view
            .sharing_slots(config.kind)
            .find(|s| (s.fraction * gpu_mb as f64) >= mem_mb as f64)?;
        let (frac, slow) = (slot.fraction, slot.slowdown);
        let mut slowed = levels.to_vec();
        slowed[0].speed /= slow;
        let plan = staircase::solve(job, &slowed)?;
        if !plan.feasible || plan.first().gpus != 1 {
            return None;
        }
        let share = (frac * Slice::WHOLE as f64).round() as u16;
        Some(Option_ {
            config: Config {
                speed: config.speed / slow,
                ..config
            },
            slice: Some(Slice {
                share,
                mem_mb: (frac * gpu_mb as f64) as u32,
            }),
            // Option 1 tries the slot first: ranked at its share of the
            // GPU's cost (the GPU is paid once, whoever shares it).
            rank: plan.expected_cost * frac,
            plan,
            step_down: false,
        })
    }
}

impl Policy for Sts {
    fn name(&self) -> &str {
        "sts"
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(0.0)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let now = view.now();
        for j in view.completed() {
            self.last.remove(j);
        }
        let mut facts = Vec::new();
        let mut keyed = Vec::new();
        for j in super::movable(view) {
            let f = self.laws.facts(view, j);
            let all = configs(view, &f);
            keyed.push((pressure(now, &f, &all, self.weighted), j));
            facts.push((f, all));
        }
        let index: BTreeMap<u32, usize> = facts
            .iter()
            .enumerate()
            .map(|(i, (f, _))| (f.job, i))
            .collect();
        let pressures: Option<BTreeMap<u32, f64>> = view
            .want_reasons()
            .then(|| keyed.iter().map(|(p, j)| (*j, *p)).collect());
        let order = by_pressure(keyed);
        // Reasons: the option each job got, by job.
        let mut took: BTreeMap<u32, (Option_, f64)> = BTreeMap::new();
        let (mut packer, mut plan) = super::start_plan(view);
        // Slices of movable jobs are re-placed like everything else.
        for &j in view.running().iter() {
            if let Some(p) = view.placement(j).filter(|p| p.slice.is_some()) {
                if !view.pinned(j) {
                    packer.unclaim(p);
                }
            }
        }
        let mut chosen: BTreeMap<u32, Chosen> = BTreeMap::new();
        for j in &order {
            let (f, all) = &facts[index[j]];
            let options = self.options(view, f, self.laws.survival(view, *j), all);
            // Deadline-feasible options first; within each group, placements
            // that evict nobody before those that take a running job's GPUs
            // (running jobs are re-planned too, but moving them only when
            // needed avoids bouncing a job between types at every event).
            let mut tries: Vec<(bool, &Option_)> = Vec::with_capacity(2 * options.len());
            for feasible in [true, false] {
                for evict in [false, true] {
                    tries.extend(
                        options
                            .iter()
                            .filter(|o| o.plan.feasible == feasible)
                            .map(|o| (evict, o)),
                    );
                }
            }
            for (evict, o) in tries {
                let placed = match o.slice {
                    Some(slice) if !evict => view
                        .placement(*j)
                        .filter(|p| p.slice == Some(slice) && p.kind == o.config.kind)
                        .filter(|p| packer.claim_exact(*j, p))
                        .cloned()
                        .or_else(|| packer.claim_slice(*j, o.config.kind, slice)),
                    Some(_) => None,
                    None if evict => packer.claim(*j, o.config.kind, o.config.gpus),
                    None => packer.claim_without_evicting(*j, o.config.kind, o.config.gpus),
                };
                if let Some(p) = placed {
                    let shared = p.fraction();
                    let steps = o
                        .plan
                        .steps
                        .iter()
                        .enumerate()
                        .map(|(k, (level, until))| schedlab_sim::PlanStep {
                            gpus: if k == 0 && shared < 1.0 {
                                shared
                            } else {
                                level.gpus as f64
                            },
                            until: until / f.per_work,
                        })
                        .collect();
                    out.announce_plan(*j, f.done / f.per_work, steps);
                    let switch_at = o
                        .plan
                        .switch_after(f.done)
                        .map_or(f64::INFINITY, |s| now + s);
                    chosen.insert(
                        *j,
                        Chosen {
                            kind: o.config.kind,
                            gpus: o.config.gpus,
                            speed: o.config.speed,
                            switch_at,
                        },
                    );
                    if pressures.is_some() {
                        took.insert(*j, (o.clone(), p.gpu_equiv()));
                    }
                    plan.push((*j, p, None));
                    break;
                }
            }
        }
        if let Some(pressures) = &pressures {
            for (place, j) in order.iter().enumerate() {
                let (f, _) = &facts[index[j]];
                explain(out, view.now(), place, pressures[j], f, took.get(j));
            }
        }
        if self.fill_idle {
            let rank: BTreeMap<u32, usize> =
                order.iter().enumerate().map(|(i, j)| (*j, i)).collect();
            fill_idle(view, &mut plan, &rank, &facts, &index);
        }
        for (j, c) in &chosen {
            self.last.insert(*j, *c);
        }
        for c in chosen.values() {
            if c.switch_at.is_finite() {
                out.wake_at(c.switch_at);
            }
        }
        if !view.active().is_empty() {
            out.wake_at(now + self.period_s);
        }
        out.apply_plan(view, plan);
    }
}

const FIELDS: &[Field] = &[
    field("place", Unit::Count),
    field("pressure", Unit::Seconds),
    field("kind", Unit::Text),
    field("gpus", Unit::Gpus),
    field("steps", Unit::Count),
    field("next_step", Unit::Gpus),
    field("cost", Unit::Usd),
    field("due", Unit::Seconds),
    field("finish", Unit::Seconds),
];

/// Placed the first step of its cheapest plan that meets its due date.
pub static ON_TIME: Rule = Rule {
    id: "sts.on_time",
    words: "step 1 of {steps} of its plan on {kind}: {gpus} GPUs now (next step: {next_step}); the plan's expected cost is {cost} and even its longest run ends by {finish}, before the due date {due} (#{place} by pressure {pressure})",
    fields: FIELDS,
    key: Some("pressure"),
};

/// No plan meets the due date: the best late one.
pub static LATE: Rule = Rule {
    id: "sts.late",
    words: "late whatever it gets: its plan on {kind} starts at {gpus} GPUs ({steps} steps, expected cost {cost} with the tardiness) and its longest run ends at {finish}, past the due date {due} (#{place} by pressure {pressure})",
    fields: FIELDS,
    key: Some("pressure"),
};

/// No option could be placed.
pub static WAITS: Rule = Rule {
    id: "sts.waits",
    words: "waits: #{place} by pressure {pressure} (due {due}); the jobs under more pressure took the GPUs each of its plans starts on",
    fields: FIELDS,
    key: Some("pressure"),
};

/// A job's reason: its pressure and place, and the option it got (with
/// the GPUs it was placed on), if any.
fn explain(
    out: &mut Decision,
    now: f64,
    place: usize,
    pressure: f64,
    f: &Facts,
    took: Option<&(Option_, f64)>,
) {
    let nan = f64::NAN;
    let values = |o: Option<&(Option_, f64)>| -> [Val; 9] {
        let step = |k: usize| {
            o.and_then(|(o, _)| o.plan.steps.get(k))
                .map_or(nan, |(l, _)| l.gpus as f64)
        };
        [
            Val::from(place + 1),
            Val::from(pressure),
            Val::from(o.map_or("–", |(o, _)| o.config.kind.name())),
            Val::from(o.map_or(nan, |(_, g)| *g)),
            Val::from(o.map_or(0, |(o, _)| o.plan.steps.len())),
            Val::from(step(1)),
            Val::from(o.map_or(nan, |(o, _)| o.rank)),
            Val::from(f.due),
            Val::from(o.map_or(nan, |(o, _)| now + o.plan.worst_time(f.done))),
        ]
    };
    let rule = match took {
        Some((o, _)) if o.plan.feasible => &ON_TIME,
        Some(_) => &LATE,
        None => &WAITS,
    };
    out.explain(f.job, rule, Some(place as u32), values(took));
}

/// Post-processing (spec §2.6.4): on nodes that are on, idle GPUs go to the
/// whole-GPU jobs already there, most pressing first, while an extra GPU
/// still makes the job faster.
fn fill_idle(
    view: &View,
    plan: &mut [(u32, Placement, Option<schedlab_model::perf::BatchChoice>)],
    rank: &BTreeMap<u32, usize>,
    facts: &[(Facts, Vec<Config>)],
    index: &BTreeMap<u32, usize>,
) {
    let nodes = view.cluster().nodes.len();
    let mut used = vec![0u64; nodes];
    for (_, p, _) in plan.iter() {
        for s in &p.shares {
            used[s.node as usize] |= s.mask;
        }
    }
    let mut entries: Vec<usize> = (0..plan.len())
        .filter(|&i| plan[i].1.slice.is_none() && plan[i].1.shares.len() == 1)
        .collect();
    schedlab_core::sorting::sort_by_key(&mut entries, |&i| {
        rank.get(&plan[i].0).copied().unwrap_or(usize::MAX)
    });
    for i in entries {
        let (job, placement, _) = &mut plan[i];
        let share = placement.shares[0];
        let node = &view.cluster().nodes[share.node as usize];
        let mut free = node_mask(node.gpus) & !used[share.node as usize];
        let all = &facts[index[job]].1;
        let speed_at = |g: u32| {
            all.iter()
                .find(|c| c.kind == placement.kind && c.gpus == g)
                .map_or(0.0, |c| c.speed)
        };
        let mut mask = share.mask;
        while free != 0 && speed_at(mask.count_ones() + 1) > speed_at(mask.count_ones()) {
            let bit = free & free.wrapping_neg();
            mask |= bit;
            free &= !bit;
        }
        if mask != share.mask {
            used[share.node as usize] |= mask;
            *placement = Placement::whole(
                placement.kind,
                vec![NodeShare {
                    node: share.node,
                    mask,
                }],
            );
        }
    }
}
