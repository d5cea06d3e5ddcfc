//! Sia (Jayaram Subramanya et al., SOSP'23; CMU thesis CMU-CS-25-136 ch. 3;
//! spec seed004-sia.md §2): heterogeneity-aware, goodput-optimised,
//! round-based scheduling.
//!
//! Every round (60 s) Sia scores each active job on every configuration
//! (GPU type, nodes, GPUs; `configs`) by its estimated goodput, normalises
//! each job's row (E12), discounts configurations that force a restart
//! (E13/E14), raises the result to the fairness power p with the
//! no-allocation penalty lambda (E16), and solves the ILP "at most one
//! configuration per job, per-type capacity" (a multiple-choice knapsack,
//! `solve::Mck`): exactly by branch-and-bound on small rounds, by the LP
//! relaxation plus the integerisation shim at scale, with a greedy fallback.
//! Jobs start on one GPU and grow at most 2x per round; jobs in
//! checkpoint-restore and non-preemptible jobs keep their allocation; rigid
//! jobs only choose a type, strong-scaling jobs are scored by throughput.
//! The placer (`placer`) realises the configurations, evicting on
//! fragmentation. When the engine asks (`View::want_insight`), the round's
//! goodput matrix and outcome go back with the decision (`insight`).

mod configs;
mod explain;
mod insight;
mod placer;
mod solver;
mod steady;
mod weights;

pub use configs::{configurations, Config, NodeCap};
pub use weights::{normalize, restart_factor, weight};

use super::{Policy, PolicyInfo, Trigger};
use crate::helpers::estimates::EstimatorBank;
use placer::Fragmentation;
use schedlab_core::error::{Error, Result};
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::settings::Settings;
use schedlab_model::perf::goodput::ProfilingMode;
use schedlab_model::workload::Adaptivity;
use schedlab_sim::{Decision, View};
use schedlab_solve::{Choice, ContinualMck, Item, Mck, PpaSettings};
use std::collections::VecDeque;

schedlab_core::settings! {
    /// Sia's settings (`--set sia.KEY=VALUE`), declared once.
    pub struct SiaSettings {
        p: f64 = float("-0.5", -1.0, 1.0, "Fairness power p (non-zero): negative favours fairness (minimise), positive favours throughput (maximise)"),
        lambda: f64 = float("1.1", 0.0, 100.0, "No-allocation penalty lambda (> 1 so that every job gets GPUs when possible)"),
        round_s: f64 = float("60", 1.0, 3600.0, "Round length in seconds"),
        scale_up: f64 = float("2", 1.0, 64.0, "A job may grow to at most this multiple of the most GPUs it has run on"),
        max_gpus: u32 = int("64", 1, 1_000_000, "Largest GPU count per job"),
        node_cap: NodeCap = choice("gpus64", "Multi-node configurations: up to min(N, 64/R) nodes, the artifact's profiled caps (t4 16, rtx 3, a100 2, quad 1), or every node"),
        solver: SiaSolver = choice("auto", "auto: exact branch-and-bound when the round has at most exact_max_vars variables, else lp-shim (LP relaxation, the thesis shim, then an exact repair of the rounded items); lp-star: the thesis's LP* (rebuild, cold LP relaxation and the shim alone, every round); pop: POP, jobs (each assigned once, at random) and GPUs (equal shares of every type) split into pop_k parts, each solved by the auto rule (rounds record the slowest part's time and the serial sum); copter: COpter's continual solver (the LP relaxation by a proximal point method warm-started from the previous round, then the thesis shim)"),
        copter_warm: bool = boolean("true", "solver=copter: start each round from the previous round's values, bids and prices (off = cold start, the attribution study's toggle)"),
        copter_paired: bool = boolean("false", "solver=copter: also solve each round's problem cold (COpter without the warm start) and by LP*, timed into the round's solver_paired and not used: the attribution on identical problems (reproduce copter's copter-paired)"),
        copter_eta: f64 = float("100", 1.0, 1e7, "solver=copter: the proximal step eta times the round's largest weight (docs/COPTER.md: with the duality-gap stop, 100 took the least time at 512 and 10,240 GPUs; 1000 ran rounds to the step limit)"),
        pop_k: usize = int("16", 1, 1024, "Parts of the POP partition (solver=pop; the COpter thesis compares POP-16)"),
        exact_max_vars: usize = int("400", 0, 1_000_000, "Largest round solved exactly under solver=auto"),
        node_limit: u64 = int("2000", 1, 100_000_000, "Branch-and-bound node budget per exact round (deterministic): the structured search gets 64 of its cheap nodes per unit before the capacity table takes over, and microlp's branch-and-bound, used only where the table is too large, this many; the LP + shim answers if it fails"),
        placer: Fragmentation = choice("evict", "When fragmentation blocks a configuration: evict jobs from the node closest to fitting and place them again (the thesis's rule), or split the job across nodes of its type without evicting (the artifact simulator's fast placer)"),
        restart_factor: bool = boolean("true", "Discount configurations that force a restart by Pollux's restart factor (E13)"),
        timeshare_tau: f64 = float("0", 0.0, 86_400.0, "Time-share window tau in seconds (0 = off; the thesis tried 180 and 300)"),
        profiling: ProfilingMode = choice("thesis", "Goodput knowledge: thesis = 1-GPU profiles of every type before the first allocation (20 s charged) + bootstrap; artifact = the artifact's default (no profile before the first run); oracle = true models; none = no profiling, no projection"),
        batch_cap: BatchCap = choice("full", "Batch sizes the scheduler considers: up to the model's maximum (thesis) or up to the trace's TunedJobs batch (the artifact's scheduler-side cap)"),
    }
}

const PARAMS: &[ParamSpec] = <SiaSettings as Settings>::SPECS;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "sia",
    title: "Sia",
    source: schedlab_core::prose::doc("Sia (SOSP'23) / CMU thesis ch. 3; spec seed004 §2"),
    description: schedlab_core::prose::doc("Heterogeneity-aware goodput-optimised rounds: one configuration (type, nodes, GPUs) per job from an ILP over normalised goodputs."),
    params: PARAMS,
    knowledge: crate::Knowledge::Declared,
    build,
};

schedlab_core::choice! {
    /// `solver`: how a round's problem is solved (`solver.rs`).
    pub enum SiaSolver {
        Auto = "auto",
        Exact = "exact",
        LpShim = "lp-shim",
        LpStar = "lp-star",
        Pop = "pop",
        Copter = "copter",
        Greedy = "greedy",
    }
}

schedlab_core::choice! {
    /// `batch_cap`: the largest batch the scheduler considers.
    pub enum BatchCap {
        /// The model's maximum (the thesis).
        Full = "full",
        /// The trace's TunedJobs batch (the artifact's scheduler-side cap).
        TunedJobs = "tunedjobs",
    }
}

schedlab_core::choice!(impl NodeCap {
    Gpus64 = "gpus64",
    Artifact = "artifact",
    Unlimited = "unlimited",
});

schedlab_core::choice!(impl Fragmentation {
    Evict = "evict",
    Split = "split",
});

fn build(p: &Params, seed: u64) -> Result<Box<dyn Policy>> {
    let s = SiaSettings::from_params(p);
    if s.p.abs() < 1e-9 {
        return Err(Error::config(
            "sia.p must be non-zero (use e.g. -0.5 or 0.5)",
        ));
    }
    Ok(Box::new(Sia {
        p: s.p,
        lambda: s.lambda,
        round_s: s.round_s,
        scale_up: s.scale_up,
        max_gpus: s.max_gpus,
        node_cap: s.node_cap,
        solver: s.solver,
        pop_k: s.pop_k,
        paired: s.copter_paired,
        continual: ContinualMck::new(PpaSettings {
            warm_start: s.copter_warm,
            eta_scale: s.copter_eta,
            ..PpaSettings::default()
        }),
        seed,
        exact_max_vars: s.exact_max_vars,
        node_limit: s.node_limit,
        fragmentation: s.placer,
        use_restart_factor: s.restart_factor,
        tau: s.timeshare_tau,
        batch_cap_tj: match s.batch_cap {
            BatchCap::Full => false,
            BatchCap::TunedJobs => true,
        },
        bank: EstimatorBank::new(s.profiling),
        configs: Vec::new(),
        max_run_gpus: Vec::new(),
        served: Vec::new(),
        holds: false,
    }))
}

/// Seconds a restart costs in Sia's objective (the artifact policy's S_i;
/// the simulated delays differ slightly, see `perf::apps`).
fn policy_restart_s(model: &str) -> f64 {
    schedlab_model::perf::apps::app_constants(model).policy_restart_s
}

#[derive(Clone)]
pub struct Sia {
    p: f64,
    lambda: f64,
    round_s: f64,
    scale_up: f64,
    max_gpus: u32,
    node_cap: NodeCap,
    solver: SiaSolver,
    pop_k: usize,
    /// Also time LP* and a cold COpter on each round's problem (`copter_paired`).
    paired: bool,
    /// COpter's solver state, kept from round to round (solver=copter).
    continual: ContinualMck,
    /// Draws POP's partition (each job's part, from the run's seed).
    seed: u64,
    exact_max_vars: usize,
    node_limit: u64,
    fragmentation: Fragmentation,
    use_restart_factor: bool,
    tau: f64,
    batch_cap_tj: bool,
    /// What Sia has learned about each job's goodput on each type.
    bank: EstimatorBank,
    configs: Vec<Config>,
    /// Most GPUs each job has run on (drives the 2x scale-up rule).
    max_run_gpus: Vec<u32>,
    /// Per job, whether it held GPUs in each of the last tau/round rounds.
    served: Vec<VecDeque<bool>>,
    /// This round's decision holds until the next event (`steady`).
    holds: bool,
}

/// One job's row of the ILP.
struct Row {
    job: u32,
    configs: Vec<Config>,
    weights: Vec<f64>,
    forced: Option<usize>,
    /// Estimated goodput per configuration and its E12 normalisation
    /// (kept for the page's insight; the weights are derived from them).
    raw: Vec<f64>,
    norm: Vec<f64>,
    /// E13's restart factor for configurations other than the current one.
    restart: f64,
}

impl Sia {
    /// Estimated goodput of a job on a configuration (None: not valid now).
    fn goodput(&self, view: &View, job: u32, c: &Config) -> Option<f64> {
        let cap = if self.batch_cap_tj {
            view.spec(job).batch_size
        } else {
            0
        };
        self.bank
            .estimate(view, job, c.kind, c.nodes, c.gpus, cap)
            .map(|(g, _)| g)
    }

    /// The no-allocation penalty, raised for jobs the time-share window
    /// left unserved (spec §2.7 reconstruction: (tau - s + delta)/delta,
    /// and zero after a fully served window).
    fn lambda_for(&self, job: u32) -> f64 {
        if self.tau <= 0.0 {
            return self.lambda;
        }
        let window = (self.tau / self.round_s).round().max(1.0) as usize;
        let hist = &self.served[job as usize];
        if hist.len() < window {
            return self.lambda;
        }
        let served_s = hist.iter().filter(|s| **s).count() as f64 * self.round_s;
        if served_s >= self.tau {
            0.0
        } else {
            (self.tau - served_s + self.round_s) / self.round_s * self.lambda
        }
    }

    fn row(&self, view: &View, job: u32) -> Option<Row> {
        let spec = view.spec(job);
        let current = view.placement(job).map(|p| Config {
            kind: p.kind,
            nodes: p.nodes(),
            gpus: p.gpus(),
        });
        // Thesis mode: a new job is first profiled on one GPU of every type
        // (in parallel, outside the scheduled capacity), so it cannot be
        // scheduled before that is done.
        if current.is_none()
            && self.max_run_gpus[job as usize] == 0
            && view.now() < spec.arrival + self.bank.profiling_s(job)
        {
            return None;
        }
        let forced_now = view.restarting(job) || view.pinned(job);
        let pinned = spec.gpu_type.as_deref().map(|_| view.default_kind(job));
        let mut cands: Vec<Config> = match spec.adaptivity {
            Adaptivity::Rigid => view
                .cluster()
                .kinds
                .iter()
                .filter(|k| view.cluster().gpus_of(**k) >= spec.gpus)
                .map(|&kind| Config {
                    kind,
                    nodes: spec
                        .gpus
                        .div_ceil(view.cluster().max_node_gpus(kind).max(1)),
                    gpus: spec.gpus,
                })
                .collect(),
            _ => {
                let min_r = spec.min_gpus.max(1);
                let grown =
                    (self.max_run_gpus[job as usize].max(1) as f64 * self.scale_up).floor() as u32;
                let max_r = grown
                    .max(min_r)
                    .min(self.max_gpus)
                    .min(view.max_useful_gpus(job).max(min_r));
                self.configs
                    .iter()
                    .filter(|c| c.gpus >= min_r && c.gpus <= max_r)
                    .copied()
                    .collect()
            }
        };
        if let Some(k) = pinned {
            cands.retain(|c| c.kind == k);
        }
        let mut forced = None;
        if let Some(cur) = current.filter(|_| forced_now) {
            forced = Some(cands.iter().position(|c| *c == cur).unwrap_or_else(|| {
                cands.push(cur);
                cands.len() - 1
            }));
        }
        // Strong-scaling and rigid jobs keep their batch: throughput is their goodput.
        let raw: Vec<f64> = cands
            .iter()
            .map(|c| self.goodput(view, job, c).unwrap_or(0.0))
            .collect();
        let keep: Vec<usize> = (0..cands.len())
            .filter(|&i| raw[i] > 0.0 || Some(i) == forced)
            .collect();
        if keep.is_empty() {
            return None;
        }
        let configs: Vec<Config> = keep.iter().map(|&i| cands[i]).collect();
        let raw: Vec<f64> = keep.iter().map(|&i| raw[i]).collect();
        let forced = forced.and_then(|f| keep.iter().position(|&i| i == f));
        let n_min = if spec.adaptivity == Adaptivity::Rigid {
            spec.gpus
        } else {
            spec.min_gpus.max(1)
        };
        let g = normalize(&raw, n_min);
        let r = if self.use_restart_factor && current.is_some() {
            let age = view.now() - spec.arrival;
            restart_factor(
                age,
                view.restarts(job),
                policy_restart_s(&view.model(job).name),
            )
        } else {
            1.0
        };
        let lambda = self.lambda_for(job);
        let weights = configs
            .iter()
            .zip(&g)
            .map(|(c, gi)| {
                let rij = if Some(*c) == current { 1.0 } else { r };
                weight(*gi, rij, self.p, lambda)
            })
            .collect();
        Some(Row {
            job,
            configs,
            weights,
            forced,
            raw,
            norm: g,
            restart: r,
        })
    }
}

impl Policy for Sia {
    fn name(&self) -> &str {
        "sia"
    }

    fn trigger(&self) -> Trigger {
        Trigger {
            on_events: false,
            round_s: Some(self.round_s),
        }
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        if self.configs.is_empty() {
            self.configs = configurations(view.cluster(), self.node_cap);
        }
        if self.max_run_gpus.len() < view.id_bound() {
            self.max_run_gpus.resize(view.id_bound(), 0);
            self.served.resize(view.id_bound(), VecDeque::new());
        }
        // What the executors reported since the last round refines each
        // job's throughput model (and, through the bootstrap, the types it
        // has not run on).
        self.bank.observe(view);
        for &j in view.active().iter() {
            let g = view.gpus_of(j);
            self.max_run_gpus[j as usize] = self.max_run_gpus[j as usize].max(g);
            if self.tau > 0.0 {
                let window = (self.tau / self.round_s).round().max(1.0) as usize;
                let h = &mut self.served[j as usize];
                h.push_back(g > 0);
                while h.len() > window {
                    h.pop_front();
                }
            }
        }
        let rows: Vec<Row> = view
            .active()
            .iter()
            .filter_map(|&j| self.row(view, j))
            .collect();
        let kinds = &view.cluster().kinds;
        let problem = Mck {
            items: rows
                .iter()
                .map(|r| Item {
                    choices: r
                        .configs
                        .iter()
                        .zip(&r.weights)
                        .map(|(c, w)| Choice {
                            weight: *w,
                            usage: vec![(
                                kinds.iter().position(|k| *k == c.kind).unwrap_or(0),
                                c.gpus,
                            )],
                        })
                        .collect(),
                    forced: r.forced,
                })
                .collect(),
            capacity: kinds.iter().map(|k| view.cluster().gpus_of(*k)).collect(),
        };
        let result = self.solve_round(&problem, &rows, out);
        self.holds = self.decision_holds(view, &rows, &result);
        out.fallback = result.fallback.clone();
        let targets: Vec<placer::Target> = rows
            .iter()
            .zip(&result.pick)
            .filter_map(|(r, pick)| {
                pick.map(|c| placer::Target {
                    job: r.job,
                    config: r.configs[c],
                    batch: None,
                    forced: r.forced == Some(c),
                })
            })
            .collect();
        let placed = placer::place(view, &targets, self.fragmentation);
        if !placed.unplaced.is_empty() && out.fallback.is_none() {
            out.fallback = Some(format!(
                "{} jobs could not be placed (fragmentation) after {} evictions",
                placed.unplaced.len(),
                placed.evictions
            ));
        }
        if view.want_reasons() {
            explain::explain(out, &rows, &result.pick, &placed.plan);
            let in_rows: std::collections::BTreeSet<u32> = rows.iter().map(|r| r.job).collect();
            for &j in view.active().iter() {
                let profiled_until = view.spec(j).arrival + self.bank.profiling_s(j);
                let unseen = self.max_run_gpus[j as usize] == 0 && view.placement(j).is_none();
                if unseen && view.now() < profiled_until && !in_rows.contains(&j) {
                    explain::profiling(out, j, profiled_until);
                }
            }
        }
        if view.want_insight() {
            out.insight = Some(Box::new(insight::build(
                &self.configs,
                &rows,
                &result.pick,
                &placed.plan,
            )));
        }
        out.apply_plan(view, placed.plan);
    }

    /// One job alone, kept in the configuration that stays the strict
    /// optimum whatever its restart discounts become (`steady.rs`): every
    /// round until the next event decides the same, and there is nothing
    /// to book for the skipped ones (`skipped` keeps its default).
    fn steady(&self) -> bool {
        self.holds
    }
}
