//! Pollux (Qiao et al., OSDI'21) as the Sia thesis runs it (spec seed004
//! §3.3): goodput-adaptive, heterogeneity-unaware. Every 60 s round a
//! genetic algorithm (`ga`) searches replicas-per-node matrices for the
//! allocation that maximises the power mean (p = -1) of each job's goodput
//! speedup over its fair share, with Pollux's restart penalty. On a
//! heterogeneous cluster Pollux sees 4-GPU virtual nodes (`vnodes`) and a
//! job whose GPUs span types keeps only its majority type (the thesis'
//! adaptation; dropped GPUs idle that round). Jobs grow at most 2x per
//! round beyond the most GPUs they have run on.

mod ga;
mod nsga;
mod steady;
mod vnodes;

pub use vnodes::{decode, virtual_nodes, VNode};

use super::{Policy, PolicyInfo, Trigger};
use crate::helpers::estimates::EstimatorBank;
use ga::Survival;
use schedlab_core::error::Result;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::rng::Sampler;
use schedlab_core::settings::Settings;
use schedlab_model::cluster::{Packer, PlacementRule};
use schedlab_model::perf::goodput::ProfilingMode;
use schedlab_model::perf::BatchChoice;
use schedlab_model::workload::Adaptivity;
use schedlab_sim::{field, Decision, Field, Rule, Unit, Val, View};
use std::collections::BTreeMap;

schedlab_core::settings! {
    /// Pollux's settings (`--set pollux.KEY=VALUE`).
    pub struct PolluxSettings {
        p: f64 = float("-1", -10.0, 10.0, "Power of the fitness' power mean over job speedups (-1: harmonic mean; 0: geometric)"),
        population: usize = int("100", 2, 10_000, "Genetic algorithm population"),
        generations: usize = int("100", 0, 10_000, "Generations per round"),
        distinct: bool = boolean("true", "Keep only distinct individuals in the population, as pymoo's NSGA-II does (eliminate_duplicates); false lets copies of the best crowd it out"),
        survival: Survival = choice("fitness", "Which individuals survive a generation: nsga2 = NSGA-II's rank and crowding over (fitness, cluster utility) with dominance tournaments, as the artifact's pymoo optimiser runs it; fitness = the fittest (elitist). The fittest individual is taken either way"),
        round_s: f64 = float("60", 1.0, 3600.0, "Round length in seconds"),
        restart_s: f64 = float("30", 0.0, 3600.0, "Seconds per restart in the restart penalty max(age - restarts*S, 0)/(age + S)"),
        max_replicas: u32 = int("0", 0, 100_000, "Cap on replicas per job; 0 = 64, or the smallest GPU type's size on a heterogeneous cluster (16 on sia-hetero-64)"),
        max_nodes: u32 = int("16", 1, 10_000, "Most (virtual) nodes one job may span"),
        knowledge: PolluxKnowledge = choice("learned", "Goodput model Pollux scores with: learned = one model per job fitted online from the reports of every type it ran on, starting from a 1-GPU profile of the reference type (the thesis's heterogeneity-unaware Pollux); oracle = the reference type's true model"),
    }
}

const PARAMS: &[ParamSpec] = <PolluxSettings as Settings>::SPECS;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "pollux",
    title: "Pollux",
    source: schedlab_core::prose::doc("Pollux (OSDI'21), heterogeneity-unaware as in the Sia thesis §3.4.3; spec seed004 §3.3"),
    description: schedlab_core::prose::doc("Goodput-adaptive genetic search over replicas per (virtual) node; fitness is the harmonic mean of speedups over a fair share."),
    params: PARAMS,
    knowledge: crate::Knowledge::Declared,
    build,
};

schedlab_core::choice! {
    /// `knowledge`: the goodput model Pollux scores with.
    pub enum PolluxKnowledge {
        /// One model per job fitted online (the thesis's heterogeneity-unaware Pollux).
        Learned = "learned",
        /// The reference type's true model.
        Oracle = "oracle",
    }
}

schedlab_core::choice!(impl Survival {
    Nsga2 = "nsga2",
    Fitness = "fitness",
});

fn build(p: &Params, seed: u64) -> Result<Box<dyn Policy>> {
    let s = PolluxSettings::from_params(p);
    Ok(Box::new(Pollux {
        p: s.p,
        population: s.population,
        generations: s.generations,
        distinct: s.distinct,
        survival: s.survival,
        round_s: s.round_s,
        restart_s: s.restart_s,
        max_replicas: s.max_replicas,
        max_nodes: s.max_nodes,
        rng: Sampler::derive(seed, "pollux"),
        vnodes: Vec::new(),
        max_run: Vec::new(),
        last_population: Vec::new(),
        last_jobs: Vec::new(),
        learned: match s.knowledge {
            PolluxKnowledge::Learned => true,
            PolluxKnowledge::Oracle => false,
        },
        bank: None,
        settled: false,
    }))
}

#[derive(Clone)]
pub struct Pollux {
    p: f64,
    population: usize,
    generations: usize,
    distinct: bool,
    survival: Survival,
    round_s: f64,
    restart_s: f64,
    max_replicas: u32,
    max_nodes: u32,
    rng: Sampler,
    vnodes: Vec<VNode>,
    max_run: Vec<u32>,
    /// The previous round's population (warm start), with its job order.
    last_population: Vec<ga::Individual>,
    last_jobs: Vec<u32>,
    /// Score with the online pooled estimates (else the true model).
    learned: bool,
    /// One pooled model per job under the reference type (built on first use).
    bank: Option<EstimatorBank>,
    /// This round's decision holds for every remaining round whatever the
    /// search's draws (`steady.rs`).
    settled: bool,
}

impl Pollux {
    /// Replicas per virtual node of a job's current placement.
    fn current_row(&self, view: &View, job: u32) -> Vec<u8> {
        let mut row = vec![0u8; self.vnodes.len()];
        if let Some(p) = view.placement(job) {
            for s in &p.shares {
                for (i, v) in self.vnodes.iter().enumerate() {
                    if v.node == s.node {
                        let m = (s.mask >> v.offset) & ((1u64 << v.gpus) - 1);
                        row[i] = m.count_ones() as u8;
                    }
                }
            }
        }
        row
    }

    /// Warm start: last round's individuals mapped onto this round's jobs
    /// (new jobs get empty rows).
    fn seeds(&self, jobs: &[u32]) -> Vec<ga::Individual> {
        let v = self.vnodes.len();
        let index: BTreeMap<u32, usize> = self
            .last_jobs
            .iter()
            .enumerate()
            .map(|(i, j)| (*j, i))
            .collect();
        self.last_population
            .iter()
            .map(|old| {
                let mut x = vec![0u8; jobs.len() * v];
                for (k, j) in jobs.iter().enumerate() {
                    if let Some(&i) = index.get(j) {
                        x[k * v..(k + 1) * v].copy_from_slice(&old[i * v..(i + 1) * v]);
                    }
                }
                x
            })
            .collect()
    }
}

impl Policy for Pollux {
    fn name(&self) -> &str {
        "pollux"
    }

    fn trigger(&self) -> Trigger {
        Trigger {
            on_events: false,
            round_s: Some(self.round_s),
        }
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        if self.vnodes.is_empty() {
            self.vnodes = virtual_nodes(view.cluster());
        }
        if self.max_run.len() < view.id_bound() {
            self.max_run.resize(view.id_bound(), 0);
        }
        let jobs: Vec<u32> = view.active().iter().copied().collect();
        for &j in &jobs {
            self.max_run[j as usize] = self.max_run[j as usize].max(view.gpus_of(j));
        }
        let total = view.cluster().total_gpus;
        let cap = if self.max_replicas > 0 {
            self.max_replicas
        } else if view.cluster().kinds.len() > 1 {
            view.cluster()
                .kinds
                .iter()
                .map(|k| view.cluster().gpus_of(*k))
                .min()
                .unwrap_or(total)
                .min(64)
        } else {
            total.min(64)
        };
        // Pollux's model is heterogeneity-unaware: it scores every
        // allocation with one model; batch limits come from the first type.
        let ref_kind = view.cluster().kinds[0];
        if self.learned {
            self.bank
                .get_or_insert_with(|| EstimatorBank::pooled(ProfilingMode::Thesis, ref_kind))
                .observe(view);
        }
        let n_jobs = jobs.len().max(1) as u32;
        let fair_k = total.div_ceil(n_jobs).max(1);
        let bank = self.bank.as_ref().filter(|_| self.learned);
        let goodput = |j: u32, n: u32, k: u32| -> f64 {
            if let Some(b) = bank {
                return b.estimate(view, j, ref_kind, n, k, 0).map_or(0.0, |e| e.0);
            }
            let batch = if view.spec(j).adaptivity == Adaptivity::Adaptive {
                view.natural_batch(j)
            } else {
                BatchChoice::Fixed(view.rigid_batch(j))
            };
            view.rate_on(j, ref_kind, Some(n), k, batch).per_s
        };
        let mut min_rep = Vec::with_capacity(jobs.len());
        let mut max_rep = Vec::with_capacity(jobs.len());
        let mut fair = Vec::with_capacity(jobs.len());
        for &j in &jobs {
            let spec = view.spec(j);
            if spec.adaptivity == Adaptivity::Rigid {
                min_rep.push(spec.gpus);
                max_rep.push(spec.gpus);
            } else {
                min_rep.push(spec.min_gpus.max(1));
                let grown = (2 * self.max_run[j as usize]).max(1);
                max_rep.push(
                    grown
                        .min(cap)
                        .min(view.max_useful_gpus(j))
                        .max(spec.min_gpus.max(1)),
                );
            }
            let f = goodput(
                j,
                1,
                fair_k
                    .min(view.cluster().max_node_gpus(ref_kind).max(1))
                    .max(1),
            );
            fair.push(if f > 0.0 { f } else { 1.0 });
        }
        let scale = view.cluster().nodes.len() as f64 / total as f64;
        // The search memoises its fitness terms per (job, nodes, replicas),
        // so each speedup is asked for at most twice (row changed or not).
        let speedup =
            |i: usize, n: u32, k: u32| -> f64 { goodput(jobs[i], n, k) / fair[i] * scale };
        let restart_mult: Vec<f64> = jobs
            .iter()
            .map(|&j| {
                if view.placement(j).is_none() {
                    return 1.0;
                }
                let age = view.now() - view.spec(j).arrival;
                let restarts = view.restarts(j) as f64;
                (age - restarts * self.restart_s).max(0.0) / (age + self.restart_s)
            })
            .collect();
        let round = ga::Round {
            vnodes: &self.vnodes,
            current: jobs.iter().map(|&j| self.current_row(view, j)).collect(),
            min_rep,
            max_rep,
            frozen: jobs.iter().map(|&j| view.pinned(j)).collect(),
            restart_mult,
            speedup: &speedup,
            p: self.p,
            max_nodes: self.max_nodes,
            distinct: self.distinct,
            survival: self.survival,
        };
        let seeds = self.seeds(&jobs);
        let mut rng = self.rng.clone();
        let (best, population) = round.search(seeds, self.population, self.generations, &mut rng);
        self.rng = rng;
        self.settled = self.settles(view, &jobs, &round, &best);
        let v = self.vnodes.len();
        let rows: Vec<&[u8]> = (0..jobs.len()).map(|i| &best[i * v..(i + 1) * v]).collect();
        let current: Vec<_> = jobs.iter().map(|&j| view.placement(j)).collect();
        let placements = decode(&self.vnodes, &rows, &current);
        if view.want_reasons() {
            let fair_k = fair_k
                .min(view.cluster().max_node_gpus(ref_kind).max(1))
                .max(1);
            // Decoding keeps one GPU type per job: what the job is placed on.
            let placed: Vec<u32> = placements
                .iter()
                .map(|p| p.as_ref().map_or(0, |p| p.gpus()))
                .collect();
            explain(
                out,
                &round,
                &jobs,
                &best,
                &population,
                &|i, n, k| (goodput(jobs[i], n, k), speedup(i, n, k)),
                fair_k,
                &placed,
            );
        }
        let mut packer = Packer::empty(view.cluster(), PlacementRule::Any);
        let mut plan = Vec::new();
        for (&j, p) in jobs.iter().zip(placements) {
            if let Some(p) = p {
                if packer.claim_exact(j, &p) {
                    let batch = (view.spec(j).adaptivity == Adaptivity::Rigid)
                        .then(|| BatchChoice::Fixed(view.rigid_batch(j)));
                    plan.push((j, p, batch));
                }
            }
        }
        out.apply_plan(view, plan);
        self.last_population = population;
        self.last_jobs = jobs;
    }

    /// A lone job that the search provably keeps where it is at every
    /// remaining round, whatever its stream and warm start (`steady.rs`):
    /// with no job left to arrive, the rest of the run decides the same.
    fn steady_to_the_end(&self) -> bool {
        self.settled
    }
}

const FIELDS: &[Field] = &[
    field("gpus", Unit::Gpus),
    field("nodes", Unit::Count),
    field("goodput", Unit::Rate),
    field("speedup", Unit::Ratio),
    field("fair", Unit::Gpus),
    field("restart", Unit::Ratio),
    field("fitness", Unit::Ratio),
    field("alt_gpus", Unit::Gpus),
    field("alt_fitness", Unit::Ratio),
    field("placed", Unit::Gpus),
];

/// Holds GPUs in the fittest allocation.
pub static HOLDS: Rule = Rule {
    id: "pollux.holds",
    words: "{gpus} GPUs on {nodes} nodes: the genetic search's fittest allocation (fitness {fitness}, the power mean of every job's speedup) gives it goodput {goodput}, speedup {speedup} (its goodput against a fair share of {fair} GPUs, Pollux's fitness term before the restart factor {restart}); the fittest allocation placing it otherwise ({alt_gpus} GPUs) scores {alt_fitness}; its GPUs of the allocation's majority type are placed: {placed}",
    fields: FIELDS,
    key: None,
};

/// Left out of the fittest allocation.
pub static LEFT_OUT: Rule = Rule {
    id: "pollux.left_out",
    words: "no GPU: the genetic search's fittest allocation (fitness {fitness}) leaves it out; the fittest allocation that gives it GPUs ({alt_gpus}) scores {alt_fitness}",
    fields: FIELDS,
    key: None,
};

/// Reasons: each job's row of the fittest individual against the fittest
/// individual of the final population that gives the job another row.
fn explain(
    out: &mut Decision,
    round: &ga::Round,
    jobs: &[u32],
    best: &ga::Individual,
    population: &[ga::Individual],
    rate: &dyn Fn(usize, u32, u32) -> (f64, f64),
    fair_k: u32,
    placed: &[u32],
) {
    let v = round.vnodes.len();
    let fit_best = round.fitness(best);
    let fits = round.fitness_of_all(population);
    let shape = |x: &[u8], i: usize| -> (u32, u32) {
        let row = &x[i * v..(i + 1) * v];
        (
            row.iter().map(|&r| r as u32).sum(),
            row.iter().filter(|&&r| r > 0).count() as u32,
        )
    };
    for (i, &j) in jobs.iter().enumerate() {
        let (k, n) = shape(best, i);
        let row = &best[i * v..(i + 1) * v];
        let alt = population
            .iter()
            .zip(&fits)
            .filter(|(x, _)| &x[i * v..(i + 1) * v] != row)
            .max_by(|a, b| a.1.total_cmp(b.1));
        let (alt_k, alt_fit) =
            alt.map_or((f64::NAN, f64::NAN), |(x, f)| (shape(x, i).0 as f64, *f));
        let (g, s) = if k > 0 { rate(i, n, k) } else { (0.0, 0.0) };
        out.explain(
            j,
            if k > 0 { &HOLDS } else { &LEFT_OUT },
            None,
            [
                Val::from(k),
                Val::from(n),
                Val::from(g),
                Val::from(s),
                Val::from(fair_k),
                Val::from(round.restart_mult[i]),
                Val::from(fit_best),
                Val::from(alt_k),
                Val::from(alt_fit),
                Val::from(placed[i]),
            ],
        );
    }
}
