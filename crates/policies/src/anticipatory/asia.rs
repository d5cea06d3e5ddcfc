//! A-SIA, the anticipatory pool-sharing scheduler (spec seed000 §2.4, the
//! paper's Figs 7-8). At every arrival, completion and `tick_s` tick with
//! idle GPUs and waiting jobs:
//! 1. the dedicated stream: pools in increasing current allocation / quota
//!    each start their FCFS head-of-line job if it fits the pool's unused
//!    quota and the idle GPUs (strict per-pool FCFS, no backfilling);
//! 2. the spare stream, per window w ascending (5 min, 1 h, 12 h): reserve
//!    min(pending + TotalNewLoad(q, w), unused quota) for every pool, and
//!    start out of order the first job (visiting pools by share again)
//!    whose predicted duration bin fits in w and whose width fits the idle
//!    GPUs minus the reservations; recompute after every start.
//!
//! A job started in the spare stream stays opportunistic for life and does
//! not count against its pool's quota; jobs predicted longer than the
//! largest window never borrow (the paper's Table 12).
//!
//! Under `engine.placement=cells` (locality, §2.8) dedicated jobs stay in
//! their pool's home cells, each window's reservations are placed as cells
//! in the homes first (if one does not fit, nothing is lent until it
//! does), and lent jobs take cells outside the reservations and outside
//! dedicated jobs' buddies (`cells.rs`).
//!
//! `preempt` (spec §2.9, not evaluated in the paper, off by default): lent
//! GPUs held by preemptible opportunistic jobs count as reclaimable, so
//! reservations need not keep them idle, and a dedicated head-of-line job
//! that fits its quota but not the idle GPUs preempts such jobs, latest
//! started first, and starts at once (the preempted jobs wait again).

use super::cells;
use super::predict::{ArrivalIndex, Mode, Predictor, PredictorConfig};
use super::{
    bin_upper, forget_finished, ledger_pool, run_time, start_heads, Ledger, ISOLATE_PARAM,
};
use crate::{Knowledge, Policy, PolicyInfo, Trigger};
use schedlab_core::error::{Error, Result};
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::settings::Settings;
use schedlab_model::cluster::Packer;
use schedlab_sim::{field, Decision, Field, Rule, Unit, Val, View};
use std::collections::BTreeSet;

schedlab_core::settings! {
    /// A-SIA's settings (`--set anticipatory.KEY=VALUE`).
    pub struct AsiaSettings {
        predict: Mode = choice("perfect", "Predictor: perfect (true arriving load and bins), noisy (target precision/recall, hour-correlated errors, sliding-max load), learned (logistic regression on Table 9's arrival features, trained on a prefix), random-arrive (ablation a: coin-flip WillJobsArrive), random-all (ablation b: also random bins)"),
        train_frac: f64 = float("0.3", 0.01, 1.0, "learned: share of the trace's span the model trains on"),
        windows_min: Vec<f64> = list("5,60,720", 0.1, 1e6, "Prediction windows in minutes, ascending (the paper's 5 min, 1 h, 12 h)"),
        precision: Vec<f64> = list("0.66,0.62,0.66", 0.01, 1.0, "noisy: target precision of WillJobsArrive per window (Table 10, CloudML)"),
        recall: Vec<f64> = list("0.85,0.72,0.64", 0.0, 1.0, "noisy: target recall per window (Table 10)"),
        correlation: f64 = float("0.8", 0.0, 1.0, "noisy: probability a 5-minute prediction shares its hour's error draw (Fig 21's all-right-or-all-wrong hours)"),
        history: u32 = int("3", 1, 1000, "NewLoadEstimate: the largest load seen in this many past windows of the same size"),
        bin_error: f64 = float("0.1", 0.0, 1.0, "noisy: probability a job's duration bin is predicted as a neighbouring bin"),
        tick_s: f64 = float("300", 1.0, 86_400.0, "Re-run every this many seconds while GPUs are idle and jobs wait (the 5-minute prediction cadence)"),
        pick: Pick = choice("earliest", "Spare stream: which eligible job of a pool starts (earliest arrival, or fewest GPUs)"),
        share: bool = boolean("true", "Lend idle quota at all; false is per-pool FCFS"),
        preempt: bool = boolean("false", "Partial pre-emption (§2.9): lent GPUs of preemptible jobs count as reclaimable, and an in-quota job preempts them (latest started first) instead of waiting"),
        isolate: Vec<f64> = shared(ISOLATE_PARAM),
    }
}

const PARAMS: &[ParamSpec] = <AsiaSettings as Settings>::SPECS;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "anticipatory",
    title: "Anticipatory sharing (A-SIA)",
    source: schedlab_core::prose::doc("Anticipatory resource allocation for ML training (the paper's \"SIA\"), Figs 7-8; spec seed000 §2.4"),
    description: schedlab_core::prose::doc("Per-pool FCFS within quota, plus idle GPUs lent to short jobs of other pools after reserving each pool's predicted load over 5 min / 1 h / 12 h windows; non-preemptive. Predictions are built on the trace's truth (perfect, noisy or random), so the policy declares oracle knowledge."),
    params: PARAMS,
    knowledge: Knowledge::Oracle,
    build,
};

schedlab_core::choice! {
    /// `pick`: which eligible job of a pool the spare stream starts.
    pub enum Pick {
        Earliest = "earliest",
        Narrowest = "narrowest",
    }
}

fn build(p: &Params, seed: u64) -> Result<Box<dyn Policy>> {
    let s = AsiaSettings::from_params(p);
    let windows_s: Vec<f64> = s.windows_min.iter().map(|m| m * 60.0).collect();
    if windows_s.is_empty() || windows_s.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Error::config(
            "anticipatory.windows_min: give one or more windows in increasing order (e.g. 5,60,720)",
        ));
    }
    Ok(Box::new(Asia {
        cfg: PredictorConfig {
            mode: s.predict,
            windows_s,
            precision: s.precision.clone(),
            recall: s.recall.clone(),
            correlation: s.correlation,
            history: s.history,
            bin_error: s.bin_error,
            slot_s: s.tick_s,
            train_frac: s.train_frac,
            seed,
        },
        tick_s: s.tick_s,
        narrowest: match s.pick {
            Pick::Earliest => false,
            Pick::Narrowest => true,
        },
        share: s.share,
        preempt: s.preempt,
        isolate: s.isolate.clone(),
        predictor: None,
        opportunistic: BTreeSet::new(),
        lent_order: Vec::new(),
    }))
}

#[derive(Clone)]
struct Asia {
    cfg: PredictorConfig,
    tick_s: f64,
    narrowest: bool,
    share: bool,
    preempt: bool,
    /// Pools that neither lend nor borrow.
    isolate: Vec<f64>,
    /// Built at the first call, from the trace the oracle reveals.
    predictor: Option<Predictor>,
    /// Running jobs started in the spare stream.
    opportunistic: BTreeSet<u32>,
    /// Running opportunistic jobs in start order (`preempt`: the latest
    /// started are preempted first); a few jobs, so a list.
    lent_order: Vec<u32>,
}

/// Every job's arrival by pool, for the predictors (the oracle's view of
/// the whole trace; predictors read only what their mode allows).
pub fn arrival_index(view: &View) -> ArrivalIndex {
    let pools = if view.pools().is_empty() {
        1
    } else {
        view.pools().len()
    };
    let all = view.oracle().map_or(&[][..], |o| {
        o.arrivals_between(f64::NEG_INFINITY, f64::INFINITY)
    });
    ArrivalIndex::build(
        all.iter()
            .map(|s| (s.arrival, ledger_pool(view, s.id), s.gpus)),
        pools,
    )
}

impl Asia {
    fn spare(&mut self, view: &View, ledger: &mut Ledger, packer: &mut Packer, out: &mut Decision) {
        let Some(pred) = self.predictor.as_ref() else {
            return;
        };
        for (w, &len) in pred.windows_s().iter().enumerate() {
            loop {
                let per_pool: Vec<u64> = (0..ledger.pools())
                    .map(|q| {
                        if ledger.isolated[q] {
                            return ledger.unused_quota(q) as u64;
                        }
                        let want = ledger.pending_load(view, q) as u64
                            + pred.total_new_load(q, w, view.now());
                        want.min(ledger.unused_quota(q) as u64)
                    })
                    .collect();
                let reserved: u64 = per_pool.iter().sum();
                let reclaimable = if self.preempt {
                    self.reclaimable(view).iter().map(|&(_, g)| g as i64).sum()
                } else {
                    0
                };
                let usable = packer.free_total() as i64 + reclaimable - reserved as i64;
                if usable <= 0 {
                    break;
                }
                // Locality (§2.8): the reservations become cells in the
                // pools' homes; while one cannot be placed nothing is lent.
                let Some(room) =
                    cells::Room::of(view, ledger, packer, out, &self.opportunistic, &per_pool)
                else {
                    return;
                };
                let mut started = None;
                for q in ledger.by_share() {
                    if ledger.isolated[q] {
                        continue;
                    }
                    let eligible = ledger.pending[q].iter().copied().filter(|&j| {
                        view.spec(j).gpus as i64 <= usable
                            && bin_upper(pred.bin(j, run_time(view, j)), pred.windows_s()) <= len
                    });
                    let pick = if self.narrowest {
                        eligible.min_by_key(|&j| (view.spec(j).gpus, j))
                    } else {
                        eligible.min()
                    };
                    if let Some(j) = pick {
                        if room.start(view, ledger, packer, out, j) {
                            started = Some(j);
                            break;
                        }
                    }
                }
                match started {
                    Some(j) => {
                        if view.want_reasons() {
                            explain_lent(view, out, j, len, reserved, usable, ledger);
                        }
                        self.opportunistic.insert(j);
                        self.lent_order.push(j);
                    }
                    None => break,
                }
            }
        }
    }

    /// Running opportunistic jobs that may be preempted (not pinned), as
    /// (job, GPUs), latest started first.
    fn reclaimable(&self, view: &View) -> Vec<(u32, u32)> {
        self.lent_order
            .iter()
            .rev()
            .filter(|&&j| !view.pinned(j))
            .map(|&j| (j, view.gpus_of(j)))
            .collect()
    }

    /// Partial pre-emption for the dedicated stream: each pool's head that
    /// fits its unused quota but not the idle GPUs preempts reclaimable jobs
    /// (latest started first) when they free enough, and starts.
    fn reclaim_for_heads(
        &mut self,
        view: &View,
        ledger: &mut Ledger,
        packer: &mut Packer,
        out: &mut Decision,
    ) {
        for q in ledger.by_share() {
            let Some(&j) = ledger.pending[q].first() else {
                continue;
            };
            let g = view.spec(j).gpus;
            let free = packer.free_total();
            if g > ledger.unused_quota(q) || g <= free {
                continue;
            }
            let victims = self.reclaimable(view);
            if free + victims.iter().map(|v| v.1).sum::<u32>() < g {
                continue;
            }
            for (v, gpus) in victims {
                if packer.free_total() >= g {
                    break;
                }
                if let Some(p) = view.placement(v) {
                    packer.unclaim(p);
                }
                out.preempt(v);
                ledger.current[ledger_pool(view, v)] -= gpus;
                self.opportunistic.remove(&v);
                self.lent_order.retain(|&k| k != v);
            }
            ledger.start(view, packer, out, j, true);
        }
    }
}

impl Policy for Asia {
    fn name(&self) -> &str {
        "anticipatory"
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(0.0)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        forget_finished(view, &mut self.opportunistic);
        if self.share && self.predictor.is_none() {
            self.predictor = Some(Predictor::new(self.cfg.clone(), arrival_index(view)));
        }
        let mut ledger = Ledger::new(view, &self.opportunistic);
        ledger.isolate(&self.isolate);
        let mut packer = view.packer_idle();
        if self.preempt {
            self.lent_order.retain(|j| view.running().contains(j));
            self.reclaim_for_heads(view, &mut ledger, &mut packer, out);
        }
        start_heads(view, &mut ledger, &mut packer, out, true);
        if let (true, Some(pred)) = (view.want_reasons(), self.predictor.as_ref()) {
            // The predictor panel: per pool and window, the load predicted
            // now and the load that truly arrives (key = pool << 8 | window).
            for q in 0..ledger.pools() {
                for w in 0..pred.windows_s().len() {
                    let key = ((q as u32) << 8) | w as u32;
                    out.gauge(
                        "anticipatory.predicted",
                        key,
                        pred.total_new_load(q, w, view.now()) as f64,
                    );
                    out.gauge(
                        "anticipatory.arrived",
                        key,
                        pred.arrived_load(q, w, view.now()) as f64,
                    );
                }
            }
        }
        if self.share {
            self.spare(view, &mut ledger, &mut packer, out);
            let waiting = ledger.pending.iter().any(|p| !p.is_empty());
            if waiting && packer.free_total() > 0 {
                out.wake_at(view.now() + self.tick_s);
            }
        }
    }
}

const LENT_FIELDS: &[Field] = &[
    field("pool", Unit::Text),
    field("quota", Unit::Gpus),
    field("used", Unit::Gpus),
    field("need", Unit::Gpus),
    field("window", Unit::Seconds),
    field("reserved", Unit::Gpus),
    field("usable", Unit::Gpus),
];

/// Started in the spare stream on lent GPUs.
pub static LENT: Rule = Rule {
    id: "anticipatory.lent",
    words: "starts on lent GPUs (the spare stream): its run time is predicted to end within {window}, and after reserving {reserved} idle GPUs for the pools' waiting and predicted load over that window, {usable} could be lent; pool {pool} now holds {used} GPUs against its quota of {quota}",
    fields: LENT_FIELDS,
    key: None,
};

/// A spare-stream start's reason, with the reservation it was made under.
fn explain_lent(
    view: &View,
    out: &mut Decision,
    job: u32,
    window: f64,
    reserved: u64,
    usable: i64,
    ledger: &Ledger,
) {
    let q = ledger_pool(view, job);
    let name = view.pools().pools.get(q).map_or("all", |p| p.name.as_str());
    out.explain(
        job,
        &LENT,
        None,
        [
            Val::from(name),
            Val::from(ledger.quota[q]),
            Val::from(ledger.current[q]),
            Val::from(view.spec(job).gpus),
            Val::from(window),
            Val::from(reserved as f64),
            Val::from(usable as f64),
        ],
    );
}
