//! Gavel's round-based mechanism (Narayanan et al., OSDI'20 §4; as run by
//! Sia's simulator, spec seed004 §3.4): turns time fractions x_jk into one
//! round's (job, type) choices.
//!
//! Bookkeeping: t_jk is the time job j has received on type k and c_k the
//! time handed out on type k; a new job starts with t_jk = delta/2 on every
//! type (and each c_k grows by delta/2). Priorities are
//! prio_jk = x_jk / (t_jk / c_k): a job that got less of type k than its
//! allocation asks for goes first. Pairs are taken greedily by (priority,
//! x) descending, each job at most once, if its GPUs fit in what is left of
//! the type. Placement keeps a job's GPUs when it stays on its type, then
//! packs the others largest first; each job runs at its TunedJobs batch.

use crate::helpers::throughput_matrix::Matrix;
use schedlab_model::cluster::Placement;
use schedlab_model::perf::BatchChoice;
use schedlab_sim::{field, Decision, Field, Rule, Unit, Val, View};

/// Gavel's per-job, per-type time ledger.
#[derive(Debug, Clone, Default)]
pub struct Ledger {
    /// t[job id][type column]; empty = not seen yet.
    t: Vec<Vec<f64>>,
    /// c[type column].
    c: Vec<f64>,
    /// The last round's (job, type column) choices, in the order recorded.
    last: Vec<(u32, usize)>,
    /// The last round can only repeat until something happens: every job
    /// got a type, and its allocation x lies on that type alone, so its
    /// other pairs have priority 0 and the same choices always fit.
    pub steady: bool,
}

impl Ledger {
    /// Registers jobs seen for the first time.
    fn admit(&mut self, m: &Matrix, round_s: f64) {
        if self.c.len() != m.kinds.len() {
            self.c = vec![0.0; m.kinds.len()];
        }
        for &j in &m.jobs {
            let j = j as usize;
            if self.t.len() <= j {
                self.t.resize(j + 1, Vec::new());
            }
            if self.t[j].is_empty() {
                self.t[j] = vec![round_s / 2.0; m.kinds.len()];
                for c in &mut self.c {
                    *c += round_s / 2.0;
                }
            }
        }
    }

    /// prio_jk = x_jk / (t_jk / c_k); 1e9 x_jk if t_jk = 0; 0 if x_jk = 0.
    pub fn priority(&self, job: u32, k: usize, x: f64) -> f64 {
        if x <= 1e-9 {
            return 0.0;
        }
        let t = self.t.get(job as usize).and_then(|r| r.get(k)).copied();
        match t {
            Some(t) if t > 0.0 && self.c[k] > 0.0 => x / (t / self.c[k]),
            _ => 1e9 * x,
        }
    }

    fn record(&mut self, job: u32, k: usize, round_s: f64) {
        self.t[job as usize][k] += round_s;
        self.c[k] += round_s;
    }

    /// Books `rounds` skipped rounds of the last round's choices, one by
    /// one as if each had run (the same sums to the bit).
    pub fn replay(&mut self, rounds: u64, round_s: f64) {
        let last = std::mem::take(&mut self.last);
        for _ in 0..rounds {
            for &(j, k) in &last {
                self.record(j, k, round_s);
            }
        }
        self.last = last;
    }
}

/// Runs one round: selection by priority, placement, bookkeeping.
pub fn run_round(
    view: &View,
    out: &mut Decision,
    m: &Matrix,
    x: &[Vec<f64>],
    ledger: &mut Ledger,
    round_s: f64,
) {
    run_round_explained(view, out, m, x, ledger, round_s, None)
}

/// [`run_round`]; when the view wants reasons, each row's is recorded,
/// with its finish-time-fairness `rho` when given (gavel-ftf).
pub fn run_round_explained(
    view: &View,
    out: &mut Decision,
    m: &Matrix,
    x: &[Vec<f64>],
    ledger: &mut Ledger,
    round_s: f64,
    rho: Option<&[f64]>,
) {
    ledger.admit(m, round_s);
    let kinds = m.kinds.len();
    let mut free: Vec<i64> = m.caps.iter().map(|c| *c as i64).collect();
    let mut scheduled = vec![None::<usize>; m.len()];
    // Non-preemptible running jobs keep their GPUs.
    let mut packer = view.packer_replan();
    let mut plan: Vec<(u32, Placement, Option<BatchChoice>)> = Vec::new();
    for (r, &j) in m.jobs.iter().enumerate() {
        if !view.pinned(j) {
            continue;
        }
        if let Some(p) = view.placement(j) {
            if let Some(k) = m.col(p.kind) {
                if packer.claim_exact(j, p) {
                    free[k] -= p.gpus() as i64;
                    scheduled[r] = Some(k);
                    plan.push((j, p.clone(), Some(BatchChoice::Fixed(m.batch[r]))));
                }
            }
        }
    }
    // (priority, x, row, type), best first; ties by job order then type.
    let mut pairs: Vec<(f64, f64, usize, usize)> = Vec::with_capacity(m.len() * kinds);
    for (r, &j) in m.jobs.iter().enumerate() {
        for k in 0..kinds {
            if m.t[r][k] > 0.0 {
                let xv = x.get(r).and_then(|row| row.get(k)).copied().unwrap_or(0.0);
                pairs.push((ledger.priority(j, k, xv), xv, r, k));
            }
        }
    }
    schedlab_core::sorting::sort_by(&mut pairs, |a, b| {
        b.0.total_cmp(&a.0)
            .then(b.1.total_cmp(&a.1))
            .then(a.2.cmp(&b.2))
            .then(a.3.cmp(&b.3))
    });
    // Reasons: each row's best pair (its place in the pair order,
    // priority, share, type); a row that runs is then explained by the
    // pair it ran on (a fill pair can have share and priority 0).
    let mut best: Option<Vec<Option<(usize, f64, f64, usize)>>> = view.want_reasons().then(|| {
        let mut best = vec![None; m.len()];
        for (place, &(prio, xv, r, k)) in pairs.iter().enumerate() {
            if best[r].is_none() {
                best[r] = Some((place, prio, xv, k));
            }
        }
        best
    });
    let mut chosen: Vec<(usize, usize)> = Vec::new();
    for (place, (prio, xv, r, k)) in pairs.into_iter().enumerate() {
        if scheduled[r].is_some() || (m.gpus[r] as i64) > free[k] {
            continue;
        }
        free[k] -= m.gpus[r] as i64;
        scheduled[r] = Some(k);
        chosen.push((r, k));
        if let Some(best) = best.as_mut() {
            best[r] = Some((place, prio, xv, k));
        }
    }
    // Placement: jobs staying on their type first (they keep their GPUs),
    // then the others, largest first.
    schedlab_core::sorting::sort_by_key(&mut chosen, |&(r, k)| {
        let j = m.jobs[r];
        let stays = view.placement(j).is_some_and(|p| p.kind == m.kinds[k]);
        (!stays, std::cmp::Reverse(m.gpus[r]), j)
    });
    for (r, k) in chosen {
        let j = m.jobs[r];
        match packer.claim(j, m.kinds[k], m.gpus[r]) {
            Some(p) => plan.push((j, p, Some(BatchChoice::Fixed(m.batch[r])))),
            None => {
                packer.release(j);
                scheduled[r] = None;
            }
        }
    }
    ledger.last.clear();
    if let Some(best) = best {
        explain(out, m, x, &scheduled, &best, rho);
    }
    for (r, s) in scheduled.iter().enumerate() {
        if let Some(k) = s {
            ledger.record(m.jobs[r], *k, round_s);
            ledger.last.push((m.jobs[r], *k));
        }
    }
    ledger.steady = !m.jobs.is_empty()
        && scheduled.iter().enumerate().all(|(r, s)| {
            s.is_some_and(|k| {
                (0..kinds).all(|o| {
                    o == k
                        || x.get(r)
                            .and_then(|row| row.get(o))
                            .is_none_or(|v| *v <= 1e-9)
                })
            })
        });
    out.apply_plan(view, plan);
}

const FIELDS: &[Field] = &[
    field("place", Unit::Count),
    field("kind", Unit::Text),
    field("x", Unit::Ratio),
    field("x_total", Unit::Ratio),
    field("throughput", Unit::Rate),
    field("priority", Unit::Ratio),
    field("need", Unit::Gpus),
    field("rho", Unit::Ratio),
];

/// Runs this round on the type of its pair.
pub static RUNS: Rule = Rule {
    id: "gavel.runs",
    words: "runs on {kind} this round: the max-sum-throughput allocation gives it {x} of its time there ({x_total} over all types; {throughput} progress/s there), and its priority, share over time received, of {priority} put its pair #{place} in the round's order",
    fields: FIELDS,
    key: Some("priority"),
};

/// Waits this round: higher-priority pairs took the GPUs.
pub static WAITS: Rule = Rule {
    id: "gavel.waits",
    words: "waits this round: its best pair is {kind} (the max-sum-throughput allocation gives it {x} of its time there, {x_total} over all types) with priority {priority}, #{place} in the round's order, and the {need} GPUs it needs there were taken by pairs ahead",
    fields: FIELDS,
    key: Some("priority"),
};

/// Gavel-ftf: runs, with its finish-time fairness.
pub static FTF_RUNS: Rule = Rule {
    id: "gavel-ftf.runs",
    words: "runs on {kind} this round: the allocation minimising the worst rho gives it {x} of its time there ({x_total} over all types), for rho = {rho}; its priority {priority} put its pair #{place} in the round's order",
    fields: FIELDS,
    key: Some("priority"),
};

/// Gavel-ftf: waits, with its finish-time fairness.
pub static FTF_WAITS: Rule = Rule {
    id: "gavel-ftf.waits",
    words: "waits this round: the allocation minimising the worst rho gives it {x_total} of its time (best on {kind}: {x}), for rho = {rho}; with priority {priority} its pair was #{place} and the {need} GPUs it needs were taken by pairs ahead",
    fields: FIELDS,
    key: Some("priority"),
};

/// Reasons for every row of the round.
fn explain(
    out: &mut Decision,
    m: &Matrix,
    x: &[Vec<f64>],
    scheduled: &[Option<usize>],
    best: &[Option<(usize, f64, f64, usize)>],
    rho: Option<&[f64]>,
) {
    for (r, &job) in m.jobs.iter().enumerate() {
        let Some((place, prio, xv, best_k)) = best[r] else {
            continue;
        };
        let k = scheduled[r].unwrap_or(best_k);
        let xk = x.get(r).and_then(|row| row.get(k)).copied().unwrap_or(xv);
        let total: f64 = x.get(r).map_or(0.0, |row| row.iter().sum());
        let rule = match (scheduled[r].is_some(), rho.is_some()) {
            (true, false) => &RUNS,
            (false, false) => &WAITS,
            (true, true) => &FTF_RUNS,
            (false, true) => &FTF_WAITS,
        };
        out.explain(
            job,
            rule,
            Some(place as u32),
            [
                Val::from(place + 1),
                Val::from(m.kinds[k].name()),
                Val::from(xk),
                Val::from(total),
                Val::from(m.t[r][k]),
                Val::from(prio),
                Val::from(m.gpus[r]),
                Val::from(rho.and_then(|v| v.get(r).copied()).unwrap_or(f64::NAN)),
            ],
        );
    }
}
