//! Themis (Mahajan et al., NSDI'20) as the AFS paper uses it (AFS §5.1,
//! footnote 13; spec seed003 §3.6): finish-time fairness with GPU leases.
//!
//! - Each job's unfairness is ρ = T_shared / T_ideal, with T_shared =
//!   elapsed time + remaining work / p(share) and T_ideal = total work /
//!   (p(1) · m / N̄): m is the job's peak-throughput GPU count and N̄ the
//!   time-averaged number of active jobs since it arrived ("tries to assign
//!   GPUs to this job until it achieves at least m/n times of throughput
//!   speedup"). A job without GPUs has ρ = ∞.
//! - GPUs are leased for `lease_s` (default 10 min). At every arrival,
//!   completion and lease expiry (a policy wake-up), the free GPUs and the
//!   GPUs whose lease ended are offered to the ⌈(1 − f)·n⌉ jobs with the
//!   largest ρ (fairness knob f = 0.8).
//! - The partial-allocation auction is approximated greedily: each offered
//!   GPU goes to the participant whose ρ falls most in log terms (which
//!   maximises Π 1/ρ), up to its peak count; what the participants cannot
//!   use goes to random non-participants (seeded). A job keeps GPUs until
//!   their lease ends; a renewed GPU gets a fresh lease.
//!
//! Lease and f are from the Themis paper [ext]; the AFS paper gives neither.

use super::{Policy, PolicyInfo, Trigger, ROUND_PARAM_EVENTS};
use crate::helpers::alloc::{first_grant, is_rigid, pinned_jobs, plan_shares, share_cap, Share};
use schedlab_core::error::Result;
use schedlab_core::num;
use schedlab_core::params::{ParamSpec, Params};
use schedlab_core::rng::Sampler;
use schedlab_core::settings::Settings;
use schedlab_sim::{field, Decision, Field, Rule, Unit, Val, View};

schedlab_core::settings! {
    /// Themis's settings (`--set themis.KEY=VALUE`).
    pub struct ThemisSettings {
        lease_s: f64 = float("600", 1.0, 1e9, "GPU lease length in seconds, at least 1 s (shorter leases let simulated time stall) (Themis: 10 min; scale it with the trace)"),
        fairness: f64 = float("0.8", 0.0, 1.0, "Fairness knob f: the ceil((1-f) n) jobs with the largest rho bid for the offered GPUs"),
        round_s: f64 = shared(ROUND_PARAM_EVENTS),
    }
}

const PARAMS: &[ParamSpec] = <ThemisSettings as Settings>::SPECS;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "themis",
    title: "Themis",
    source: schedlab_core::prose::doc("Themis (NSDI'20) finish-time fairness with leases; AFS (NSDI'21) baseline, spec seed003 §3.6"),
    description: schedlab_core::prose::doc("Offers free and lease-expired GPUs to the most unfairly treated jobs (largest rho = T_shared / T_ideal); leftovers to random others; 10-minute leases."),
    params: PARAMS,
    knowledge: crate::Knowledge::Declared,
    build,
};

fn build(p: &Params, seed: u64) -> Result<Box<dyn Policy>> {
    let s = ThemisSettings::from_params(p);
    Ok(Box::new(Themis {
        lease: s.lease_s,
        f: s.fairness,
        round_s: s.round_s,
        rng: Sampler::derive(seed, "themis"),
        leases: Vec::new(),
        mark: Vec::new(),
        contention: 0.0,
        last_t: f64::NAN,
        last_n: 0,
    }))
}

#[derive(Clone)]
struct Themis {
    lease: f64,
    f: f64,
    round_s: f64,
    rng: Sampler,
    /// Lease end of each GPU a job holds (one entry per GPU).
    leases: Vec<Vec<f64>>,
    /// Contention integral when the job was first seen (NaN: not seen).
    mark: Vec<f64>,
    /// Integral of the number of active jobs over time.
    contention: f64,
    last_t: f64,
    last_n: usize,
}

/// Slack for lease comparisons.
const EPS: f64 = 1e-9;

impl Themis {
    /// log ρ of `job` with `k` GPUs (∞ at 0 GPUs).
    fn log_rho(&self, view: &View, job: u32, k: u32) -> f64 {
        let p = view.rate(job, k);
        if p <= 0.0 {
            return f64::INFINITY;
        }
        let spec = view.spec(job);
        let elapsed = view.now() - spec.arrival;
        let t_shared = elapsed + view.known_remaining_work(job) / p;
        let span = elapsed.max(0.0);
        let n_avg = if span > 0.0 {
            ((self.contention - self.mark[job as usize]) / span).max(1.0)
        } else {
            view.active().len().max(1) as f64
        };
        let m = share_cap(view, job) as f64;
        let p1 = view.rate(job, 1);
        let t_ideal = view.declared_work(job) * n_avg / (p1 * m);
        num::ln(t_shared / t_ideal)
    }
}

impl Policy for Themis {
    fn name(&self) -> &str {
        "themis"
    }

    fn trigger(&self) -> Trigger {
        Trigger::events_or_rounds(self.round_s)
    }

    fn schedule(&mut self, view: &View<'_>, out: &mut Decision) {
        let now = view.now();
        let n_jobs = view.id_bound();
        if self.leases.len() < n_jobs {
            self.leases.resize(n_jobs, Vec::new());
            self.mark.resize(n_jobs, f64::NAN);
        }
        if self.last_t.is_finite() {
            self.contention += self.last_n as f64 * (now - self.last_t);
        }
        self.last_t = now;
        self.last_n = view.active().len();
        for &j in view.completed() {
            self.leases[j as usize].clear();
        }
        let (pins, free) = pinned_jobs(view);
        let jobs: Vec<u32> = view
            .active()
            .iter()
            .copied()
            .filter(|j| !pins.contains(j))
            .collect();
        // Sync leases with what jobs hold, then revoke expired leases.
        let mut held = vec![0u32; jobs.len()];
        for (i, &j) in jobs.iter().enumerate() {
            if self.mark[j as usize].is_nan() {
                // First seen: its arrival was at most this instant (event-driven).
                let back = (now - view.spec(j).arrival).max(0.0) * view.active().len() as f64;
                self.mark[j as usize] = self.contention - back;
            }
            let g = view.gpus_of(j) as usize;
            let l = &mut self.leases[j as usize];
            l.resize(g, now);
            schedlab_core::sorting::sort_by(l, f64::total_cmp);
            if is_rigid(view, j) {
                // A rigid job holds all or nothing: its leases end together.
                if l.iter().any(|t| *t <= now + EPS) {
                    l.clear();
                }
            } else {
                l.retain(|t| *t > now + EPS);
            }
            held[i] = l.len() as u32;
        }
        let used: u32 = held.iter().sum();
        let mut pool = free.saturating_sub(used);
        let offered = pool;
        // Participants: the ceil((1-f) n) jobs with the largest rho.
        let n = jobs.len();
        let k = ((1.0 - self.f) * n as f64).ceil() as usize;
        let mut by_rho: Vec<(f64, f64, usize)> = (0..n)
            .map(|i| {
                let j = jobs[i];
                let now_rho = self.log_rho(view, j, held[i]);
                let next = self.log_rho(view, j, held[i].max(first_grant(view, j)));
                (now_rho, next, i)
            })
            .collect();
        schedlab_core::sorting::sort_by(&mut by_rho, |a, b| {
            b.0.total_cmp(&a.0)
                .then(b.1.total_cmp(&a.1))
                .then(a.2.cmp(&b.2))
        });
        let mut won = vec![0u32; n];
        let participants: Vec<usize> = by_rho.iter().take(k.max(1)).map(|x| x.2).collect();
        let can_take = |i: usize, won: &[u32]| -> u32 {
            let j = jobs[i];
            let have = held[i] + won[i];
            if is_rigid(view, j) {
                if have == 0 {
                    view.spec(j).gpus
                } else {
                    0
                }
            } else if have < share_cap(view, j) {
                if have == 0 {
                    first_grant(view, j)
                } else {
                    1
                }
            } else {
                0
            }
        };
        // Greedy auction: the largest drop in log rho per GPU.
        while pool > 0 {
            let mut best: Option<(f64, usize, u32)> = None;
            for &i in &participants {
                let step = can_take(i, &won);
                if step == 0 || step > pool {
                    continue;
                }
                let have = held[i] + won[i];
                let drop =
                    self.log_rho(view, jobs[i], have) - self.log_rho(view, jobs[i], have + step);
                let drop = if drop.is_nan() { f64::INFINITY } else { drop };
                if best.is_none_or(|(d, bi, _)| drop > d || (drop == d && i < bi)) {
                    best = Some((drop, i, step));
                }
            }
            let Some((d, i, step)) = best else { break };
            if d <= 0.0 {
                break;
            }
            won[i] += step;
            pool -= step;
        }
        // Leftovers to random non-participants.
        let mut others: Vec<usize> = (0..n).filter(|i| !participants.contains(i)).collect();
        while pool > 0 && !others.is_empty() {
            let pick = self.rng.below(others.len() as u64) as usize;
            let i = others[pick];
            let step = can_take(i, &won);
            if step == 0 || step > pool {
                others.swap_remove(pick);
                continue;
            }
            won[i] += step;
            pool -= step;
        }
        if view.want_reasons() {
            let place: Vec<usize> = {
                let mut p = vec![0; n];
                for (k, x) in by_rho.iter().enumerate() {
                    p[x.2] = k;
                }
                p
            };
            let mut bids = vec![false; n];
            for &i in &participants {
                bids[i] = true;
            }
            for i in 0..n {
                let j = jobs[i];
                let bidder = bids[i];
                let rule = match (won[i] > 0, bidder, held[i] > 0) {
                    (true, true, _) => &WON,
                    (true, false, _) => &LEFTOVER,
                    (false, _, true) => &KEPT,
                    (false, _, false) if offered == 0 => &NONE_OFFERED,
                    (false, true, false) => &LOST,
                    (false, false, false) => &WAITS,
                };
                let lease_end = self.leases[j as usize]
                    .iter()
                    .copied()
                    .fold(f64::INFINITY, f64::min);
                out.explain(
                    j,
                    rule,
                    Some(place[i] as u32),
                    [
                        Val::from(place[i] + 1),
                        Val::from(num::exp(by_rho[place[i]].0)),
                        Val::from(num::exp(self.log_rho(view, j, held[i] + won[i]))),
                        Val::from(held[i]),
                        Val::from(won[i]),
                        Val::from(participants.len()),
                        Val::from(n),
                        Val::from(offered),
                        Val::from(if held[i] > 0 { lease_end } else { f64::NAN }),
                    ],
                );
            }
        }
        let shares: Vec<Share> = (0..n)
            .filter(|&i| held[i] + won[i] > 0)
            .map(|i| {
                let j = jobs[i];
                Share {
                    job: j,
                    count: held[i] + won[i],
                    min: held[i].max(first_grant(view, j)),
                    cap: share_cap(view, j),
                }
            })
            .collect();
        let (plan, failed) = plan_shares(view, &pins, &shares);
        for (i, &j) in jobs.iter().enumerate() {
            let l = &mut self.leases[j as usize];
            if failed.contains(&j) {
                l.clear();
            } else {
                l.extend(std::iter::repeat_n(now + self.lease, won[i] as usize));
            }
        }
        for (j, p, _) in &plan {
            let l = &mut self.leases[*j as usize];
            l.truncate(p.gpus() as usize);
        }
        for &j in view.active().iter() {
            if !plan.iter().any(|(x, _, _)| *x == j) {
                self.leases[j as usize].clear();
            }
        }
        let wake = plan
            .iter()
            .filter(|(j, _, _)| !pins.contains(j))
            .flat_map(|(j, _, _)| self.leases[*j as usize].iter().copied())
            .fold(f64::INFINITY, f64::min);
        out.apply_plan(view, plan);
        if wake.is_finite() && self.round_s == 0.0 {
            out.wake_at(wake.max(now + EPS));
        }
    }
}

const FIELDS: &[Field] = &[
    field("place", Unit::Count),
    field("rho", Unit::Ratio),
    field("rho_after", Unit::Ratio),
    field("kept", Unit::Gpus),
    field("won", Unit::Gpus),
    field("bidders", Unit::Count),
    field("jobs", Unit::Count),
    field("offered", Unit::Gpus),
    field("lease_end", Unit::Seconds),
];

/// A bidder that won GPUs in the auction.
pub static WON: Rule = Rule {
    id: "themis.won",
    words: "won {won} GPUs in the auction: #{place} by unfairness rho = {rho} (T_shared / T_ideal) among the {bidders} of {jobs} jobs that bid for the {offered} offered GPUs; each GPU went to the largest fall in log rho; with {kept} kept its rho becomes {rho_after}",
    fields: FIELDS,
    key: Some("rho"),
};

/// Not a bidder; leftover GPUs reached it at random.
pub static LEFTOVER: Rule = Rule {
    id: "themis.leftover",
    words: "got {won} leftover GPUs: not among the {bidders} of {jobs} jobs with the largest rho (#{place}, rho = {rho}); what the bidders could not use goes to random others",
    fields: FIELDS,
    key: Some("rho"),
};

/// Holds leased GPUs and won none this time.
pub static KEPT: Rule = Rule {
    id: "themis.kept",
    words: "keeps {kept} GPUs until their leases end (the first at {lease_end}); #{place} by rho = {rho}, it won none of the {offered} offered GPUs",
    fields: FIELDS,
    key: Some("rho"),
};

/// Bid and won nothing.
pub static LOST: Rule = Rule {
    id: "themis.lost",
    words: "waits: bid for the {offered} offered GPUs as #{place} of the {bidders} jobs with the largest rho ({rho}) and won none: the others' rho fell more",
    fields: FIELDS,
    key: Some("rho"),
};

/// Nothing was offered: every GPU is held under a lease.
pub static NONE_OFFERED: Rule = Rule {
    id: "themis.none_offered",
    words: "waits: #{place} by rho = {rho} of {jobs} jobs, but no GPU was offered in this call (every GPU is held until its lease ends)",
    fields: FIELDS,
    key: Some("rho"),
};

/// Not a bidder and no leftover.
pub static WAITS: Rule = Rule {
    id: "themis.waits",
    words: "waits: #{place} by rho = {rho}, not among the {bidders} of {jobs} jobs with the largest rho that bid for the {offered} offered GPUs, and no leftover reached it",
    fields: FIELDS,
    key: Some("rho"),
};
