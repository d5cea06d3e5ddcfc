//! COpter's continual LP solver for multiple-choice knapsacks (thesis ch. 4;
//! spec seed004 §2.4-2.5): the LP relaxation of an [`Mck`] solved by the
//! proximal point algorithm (PPA) with exact dual coordinate ascent on each
//! proximal subproblem, warm-started from the previous round's answer.
//!
//! Why not the simplex method every round: the rounds' problems change
//! little (a few jobs arrive or leave, goodputs drift), and PPA started at
//! the previous optimum converges in few iterations to an optimum *near* it,
//! with no factorisation to rebuild. The state kept between rounds is keyed
//! by item (job) and option (configuration) keys, which is the differential
//! interface of spec 2.4 in this problem's terms: an item that appears is
//! `add-request`, one that is gone `remove-request`, new weights
//! `update-cost`, new capacities `add/remove-resources`; nothing else is
//! rebuilt.
//!
//! One PPA step with prox centre x^k and step η solves
//! `max w·x - |x - x^k|² / (2η)` over `0 <= x <= 1`, one unit per item row
//! and the capacity rows. Its dual has one multiplier per row (an item's
//! "bid" y_i, a resource's "price" μ_r) and the primal answer in closed form:
//! `x = clamp(x^k + η (w - y_i - Σ_r a_r μ_r), 0, 1)`. Each multiplier's exact
//! maximiser is the root of a monotone piecewise-linear function, found by
//! sorting its breakpoints. The values it returns go to the thesis shim
//! ([`Mck::shim_values`]).

use super::mck::Mck;
use std::collections::BTreeMap;

/// How far below 0 (in units of x) a column's unclamped value must be to
/// leave the active set; a margin keeps columns from leaving and re-entering
/// every iteration as the multipliers move.
const INACTIVE_MARGIN: f64 = 0.5;

/// Tuning of the solver (spec 2.5's termination rules).
#[derive(Debug, Clone, Copy)]
pub struct PpaSettings {
    /// η times the largest weight (the spec's scale-aware step). 200 took the
    /// fewest sweeps on 12-80 jobs. On Sia's rounds 1000 stopped sooner under
    /// the step rule alone; with the gap stop (`gap_tol`) 100 took the least
    /// time at 512 and 10,240 GPUs, so Sia's `copter_eta` is 100 (docs/COPTER.md).
    pub eta_scale: f64,
    pub max_outer: usize,
    /// Dual sweeps per proximal step: the subproblem is solved inexactly, as
    /// augmented-Lagrangian methods do (measured on 12-80 jobs x 8-28 options:
    /// 3 sweeps took the fewest sweeps in total, 50 the most, same optimum).
    pub max_sweeps: usize,
    /// Start from the previous round's answer (the attribution toggle).
    pub warm_start: bool,
    /// Sweep only the columns that are positive or near it (spec 2.5's active
    /// set). Off by default: on the 2k-job COpter workload it made runs 5x
    /// faster but 866-1,221 of 1,838 rounds stopped at `max_outer` (the
    /// multipliers cycle as columns leave and come back) and the average JCT
    /// rose from 0.51 to 0.57-0.61 h (docs/COPTER.md).
    pub active_set: bool,
    /// Stop once a proximal step moves no value by more than this and no row
    /// is violated by more than `residual_tol` x (1 + largest capacity).
    pub step_tol: f64,
    pub residual_tol: f64,
    /// Or stop once the values, shrunk to fit every row, are worth within
    /// this fraction of the dual bound at the current prices (weak duality:
    /// no LP answer is worth more, so the fitted values are that close to
    /// optimal, and they are returned). 1e-4 is spec 2.5's relative duality
    /// gap. Why: near the optimum the proximal steps crawl through ties and
    /// the rows' last violations fade slowly, long after the objective has
    /// settled; on `bench --case copter-10k` (η-scale 1000) the step rule took
    /// 262 steps per round on average (7 of 119 rounds hit `max_outer`), this
    /// rule 26 (docs/COPTER.md). 0 turns the rule off.
    pub gap_tol: f64,
    /// Values within this of 0 or 1 are snapped to it (spec 2.5: 1e-4).
    pub snap: f64,
}

impl Default for PpaSettings {
    fn default() -> Self {
        PpaSettings {
            eta_scale: 200.0,
            max_outer: 500,
            max_sweeps: 3,
            warm_start: true,
            active_set: false,
            step_tol: 1e-5,
            residual_tol: 1e-6,
            gap_tol: 1e-4,
            snap: 1e-4,
        }
    }
}

/// What one solve did (the page's and `reproduce copter`'s per-round numbers).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ContinualStats {
    /// LP columns (options that can be chosen this round).
    pub vars: usize,
    /// Items that were not in the previous round / are gone since.
    pub added: usize,
    pub removed: usize,
    /// Columns whose value moved by more than 1e-6 from the warm start.
    pub changed_vars: usize,
    pub outer_iterations: usize,
    pub sweeps: usize,
    /// Largest capacity or item-row violation of the returned values.
    pub primal_residual: f64,
}

#[derive(Debug, Clone, Default)]
struct Warm {
    bid: f64,
    /// (option key, value) of the previous answer.
    values: Vec<(u64, f64)>,
}

/// The solver's state between rounds.
#[derive(Debug, Clone, Default)]
pub struct ContinualMck {
    items: BTreeMap<u64, Warm>,
    prices: Vec<f64>,
    /// The last round's problem, to know a round that changed nothing.
    last: Option<Signature>,
    pub settings: PpaSettings,
}

/// A round's LP exactly (bits of every number): capacities left after the
/// forced items, and each column.
#[derive(Debug, Clone, Default, PartialEq)]
struct Signature {
    left: Vec<u64>,
    cols: Vec<ColumnSignature>,
}

/// A column as (item key, option key, weight bits, (resource, amount) usage).
type ColumnSignature = (u64, u64, u64, Vec<(usize, u64)>);

/// The LP's columns: each one's item, weight and (resource, amount) usage,
/// stored flat (one array per field, the usages end to end with offsets):
/// one allocation per field instead of one per column, and each resource
/// row keeps its members' amounts (measured at 10k GPUs: no speed change
/// against a `Vec` of usage per column).
struct Columns {
    item: Vec<usize>,
    weight: Vec<f64>,
    /// Column j's usage is `usage[usage_start[j]..usage_start[j + 1]]`.
    usage_start: Vec<usize>,
    usage: Vec<(usize, f64)>,
}

impl Columns {
    fn new() -> Self {
        Columns {
            item: Vec::new(),
            weight: Vec::new(),
            usage_start: vec![0],
            usage: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        self.item.len()
    }

    fn push(&mut self, item: usize, weight: f64, usage: impl Iterator<Item = (usize, f64)>) {
        self.item.push(item);
        self.weight.push(weight);
        self.usage.extend(usage);
        self.usage_start.push(self.usage.len());
    }

    fn usage(&self, j: usize) -> &[(usize, f64)] {
        &self.usage[self.usage_start[j]..self.usage_start[j + 1]]
    }

    /// Σ_r a_r μ_r: what column j's resources cost at the current prices.
    fn reduced_cost(&self, j: usize, price: &[f64]) -> f64 {
        self.usage(j).iter().map(|(r, a)| a * price[*r]).sum()
    }

    /// Σ_j a_rj x_j for each of the `resources` rows: what values `x` use.
    fn resource_use(&self, x: &[f64], resources: usize) -> Vec<f64> {
        let mut used = vec![0.0; resources];
        for (j, v) in x.iter().enumerate() {
            for (r, a) in self.usage(j) {
                used[*r] += a * v;
            }
        }
        used
    }

    /// w_j - a_j·μ: what column j is worth at these prices.
    fn worth(&self, j: usize, price: &[f64]) -> f64 {
        self.weight[j] - self.reduced_cost(j, price)
    }
}

impl ContinualMck {
    pub fn new(settings: PpaSettings) -> Self {
        ContinualMck {
            settings,
            ..Default::default()
        }
    }

    /// LP values for every option of every item (`values[i][c]`; forced items'
    /// rows are left at 0 and their usage is taken off the capacities first).
    /// `item_keys[i]` names item `i` across rounds, `option_keys[i][c]` its
    /// option `c`. Returns None when the forced options alone do not fit.
    pub fn solve(
        &mut self,
        problem: &Mck,
        item_keys: &[u64],
        option_keys: &[Vec<u64>],
    ) -> Option<(Vec<Vec<f64>>, ContinualStats)> {
        let mut left: Vec<f64> = problem.capacity.iter().map(|c| *c as f64).collect();
        for it in &problem.items {
            if let Some(f) = it.forced {
                for (r, a) in &it.choices[f].usage {
                    left[*r] -= *a as f64;
                }
            }
        }
        if left.iter().any(|l| *l < 0.0) {
            return None;
        }
        let mut stats = ContinualStats::default();
        // Columns: the options that can be taken (positive weight, fit alone).
        let mut cols = Columns::new();
        let mut signature = Signature {
            left: left.iter().map(|l| l.to_bits()).collect(),
            cols: Vec::new(),
        };
        let mut col_of: Vec<Vec<Option<usize>>> = Vec::with_capacity(problem.items.len());
        for (i, it) in problem.items.iter().enumerate() {
            let mut row = vec![None; it.choices.len()];
            if it.forced.is_none() {
                for (c, ch) in it.choices.iter().enumerate() {
                    if ch.weight > 0.0 && ch.usage.iter().all(|(r, a)| *a as f64 <= left[*r]) {
                        row[c] = Some(cols.len());
                        signature.cols.push((
                            item_keys[i],
                            option_keys[i][c],
                            ch.weight.to_bits(),
                            ch.usage.iter().map(|(r, a)| (*r, *a as u64)).collect(),
                        ));
                        cols.push(i, ch.weight, ch.usage.iter().map(|(r, a)| (*r, *a as f64)));
                    }
                }
            }
            col_of.push(row);
        }
        stats.vars = cols.len();
        let w_max = cols.weight.iter().copied().fold(0.0, f64::max);
        let mut values: Vec<Vec<f64>> = problem
            .items
            .iter()
            .map(|it| vec![0.0; it.choices.len()])
            .collect();
        if cols.len() == 0 || w_max <= 0.0 {
            self.last = None;
            self.remember(item_keys, option_keys, &values, &[], &mut stats);
            return Some((values, stats));
        }
        let eta = self.settings.eta_scale / w_max;
        // Warm start: previous values, bids and prices where the keys match.
        let warm = self.settings.warm_start;
        let mut x = vec![0.0; cols.len()];
        let mut bid = vec![0.0; problem.items.len()];
        let mut price = vec![0.0; problem.capacity.len()];
        if warm {
            for (r, p) in price.iter_mut().enumerate() {
                *p = self.prices.get(r).copied().unwrap_or(0.0);
            }
        }
        for (i, key) in item_keys.iter().enumerate() {
            match self.items.get(key).filter(|_| warm) {
                Some(prev) => {
                    bid[i] = prev.bid;
                    for (c, col) in col_of[i].iter().enumerate() {
                        if let Some(j) = col {
                            let k = option_keys[i][c];
                            if let Some((_, v)) = prev.values.iter().find(|(pk, _)| *pk == k) {
                                x[*j] = *v;
                            }
                        }
                    }
                }
                None => {
                    // A new job bids what its best option is worth at today's prices.
                    bid[i] = cols_of(&col_of[i])
                        .map(|j| cols.worth(j, &price))
                        .fold(0.0, f64::max);
                }
            }
        }
        let start = x.clone();
        let mut by_item: Vec<Vec<usize>> = vec![Vec::new(); problem.items.len()];
        for (j, i) in cols.item.iter().enumerate() {
            by_item[*i].push(j);
        }
        // A round that changed nothing (same columns, weights and capacities)
        // has the previous answer as its answer: returned without iterating.
        let unchanged = warm && self.last.as_ref() == Some(&signature);
        self.last = Some(signature);
        if unchanged {
            stats.primal_residual = residual(&cols, &x, &by_item, &left);
            fill(&mut values, &col_of, &x);
            self.prices = price;
            self.remember(item_keys, option_keys, &values, &bid, &mut stats);
            return Some((values, stats));
        }
        // The column's value before clamping to [0, 1].
        let value_at = |j: usize, centre: &[f64], bid: &[f64], price: &[f64]| {
            centre[j] + eta * (cols.weight[j] - bid[cols.item[j]] - cols.reduced_cost(j, price))
        };
        // With `active_set` (spec 2.5; off by default) the sweeps see only the
        // columns that are positive or could become so: at first every column
        // that is positive at a zero bid (a new job's bid guess may be too
        // high; the first sweep corrects it); one well below 0 sits out until
        // a full pass finds it positive again. Without it every column is active.
        let zero_bids = vec![0.0; bid.len()];
        let mut active: Vec<bool> = (0..cols.len())
            .map(|j| {
                !self.settings.active_set || x[j] > 0.0 || value_at(j, &x, &zero_bids, &price) > 0.0
            })
            .collect();
        let b_scale = 1.0 + left.iter().fold(1.0f64, |m, l| m.max(*l));
        let mut scratch = Vec::new();
        let mut root_work = RootWork::default();
        let mut centre = x.clone();
        let mut act_item: Vec<Vec<usize>> = vec![Vec::new(); problem.items.len()];
        // A resource row's active columns with their amounts of it.
        let mut act_resource: Vec<Vec<(usize, f64)>> = vec![Vec::new(); problem.capacity.len()];
        let mut active_changed = true;
        let mut fitted = Vec::with_capacity(x.len());
        for _ in 0..self.settings.max_outer {
            stats.outer_iterations += 1;
            centre.copy_from_slice(&x);
            if active_changed {
                act_item.iter_mut().for_each(Vec::clear);
                act_resource.iter_mut().for_each(Vec::clear);
                for j in (0..cols.len()).filter(|j| active[*j]) {
                    act_item[cols.item[j]].push(j);
                    for &(r, a) in cols.usage(j) {
                        act_resource[r].push((j, a));
                    }
                }
                active_changed = false;
            }
            // Dual coordinate ascent on the proximal subproblem.
            for _ in 0..self.settings.max_sweeps {
                stats.sweeps += 1;
                let mut moved = 0.0f64;
                for (i, members) in act_item.iter().enumerate() {
                    scratch.clear();
                    for &j in members {
                        let a = centre[j] + eta * cols.worth(j, &price);
                        scratch.push((a, 1.0));
                    }
                    let y = root(&scratch, eta, 1.0, bid[i], &mut root_work);
                    moved = moved.max((y - bid[i]).abs() * eta);
                    bid[i] = y;
                }
                for (r, members) in act_resource.iter().enumerate() {
                    scratch.clear();
                    let mut a_max = 0.0f64;
                    for &(j, a_r) in members {
                        // What the column's other resources cost (0 for the
                        // usual column of one resource).
                        let others: f64 = cols
                            .usage(j)
                            .iter()
                            .filter(|(rr, _)| *rr != r)
                            .map(|(rr, a)| a * price[*rr])
                            .sum();
                        let b = centre[j] + eta * (cols.weight[j] - bid[cols.item[j]] - others);
                        scratch.push((b, a_r));
                        a_max = a_max.max(a_r);
                    }
                    // (No active column: the price falls to 0, as the exact
                    // root of an empty row would.)
                    let mu = root(&scratch, eta, left[r], price[r], &mut root_work);
                    // A price change moves a column's value by up to η a Δμ.
                    moved = moved.max((mu - price[r]).abs() * eta * a_max);
                    price[r] = mu;
                }
                if moved < 1e-7 {
                    break;
                }
            }
            // A full pass: the restricted subproblem's answer is the new point
            // (inactive columns stay at 0); an inactive column that would be
            // positive at these multipliers joins the active set for the next
            // step (the restricted answer is then not yet the whole one), and
            // an active one well below 0 leaves it.
            let mut step = 0.0f64;
            let mut entered = false;
            for j in 0..cols.len() {
                let u = value_at(j, &centre, &bid, &price);
                let v = if active[j] { u.clamp(0.0, 1.0) } else { 0.0 };
                if !active[j] && u > 0.0 {
                    entered = true;
                    active[j] = true;
                    active_changed = true;
                } else if self.settings.active_set
                    && active[j]
                    && u < -INACTIVE_MARGIN
                    && centre[j] == 0.0
                {
                    active[j] = false;
                    active_changed = true;
                }
                step = step.max((v - x[j]).abs());
                x[j] = v;
            }
            stats.primal_residual = residual(&cols, &x, &by_item, &left);
            let mut settled = step <= self.settings.step_tol
                && stats.primal_residual <= self.settings.residual_tol * b_scale;
            if !entered && !settled && self.settings.gap_tol > 0.0 {
                // The values shrunk to fit every row, against the dual bound:
                // a certified near-optimal answer ends the solve.
                shrink_to_fit(&cols, &x, &by_item, &left, &mut fitted);
                if relative_gap(&cols, &fitted, &by_item, &left, &price) <= self.settings.gap_tol {
                    x.copy_from_slice(&fitted);
                    stats.primal_residual = residual(&cols, &x, &by_item, &left);
                    settled = true;
                }
            }
            if !entered && settled {
                break;
            }
        }
        // Values within `snap` of 0 or 1 are snapped (spec 2.5).
        let snap = self.settings.snap;
        for v in x.iter_mut() {
            if *v < snap {
                *v = 0.0;
            } else if *v > 1.0 - snap {
                *v = 1.0;
            }
        }
        stats.changed_vars = x
            .iter()
            .zip(&start)
            .filter(|(a, b)| (*a - *b).abs() > 1e-6)
            .count();
        fill(&mut values, &col_of, &x);
        self.prices = price;
        self.remember(item_keys, option_keys, &values, &bid, &mut stats);
        Some((values, stats))
    }

    /// Keeps this round's answer for the next one and counts arrivals and departures.
    fn remember(
        &mut self,
        item_keys: &[u64],
        option_keys: &[Vec<u64>],
        values: &[Vec<f64>],
        bid: &[f64],
        stats: &mut ContinualStats,
    ) {
        let mut next = BTreeMap::new();
        for (i, key) in item_keys.iter().enumerate() {
            if !self.items.contains_key(key) {
                stats.added += 1;
            }
            let vals = option_keys[i]
                .iter()
                .zip(&values[i])
                .filter(|(_, v)| **v > 0.0)
                .map(|(k, v)| (*k, *v))
                .collect();
            next.insert(
                *key,
                Warm {
                    bid: bid.get(i).copied().unwrap_or(0.0),
                    values: vals,
                },
            );
        }
        stats.removed = self.items.keys().filter(|k| !next.contains_key(*k)).count();
        self.items = next;
    }
}

/// Per-option values from the column values.
fn fill(values: &mut [Vec<f64>], col_of: &[Vec<Option<usize>>], x: &[f64]) {
    for (i, row) in col_of.iter().enumerate() {
        for (c, col) in row.iter().enumerate() {
            if let Some(j) = col {
                values[i][c] = x[*j];
            }
        }
    }
}

fn cols_of(row: &[Option<usize>]) -> impl Iterator<Item = usize> + '_ {
    row.iter().flatten().copied()
}

/// Largest violation of the item rows (Σ x <= 1) and capacity rows.
fn residual(cols: &Columns, x: &[f64], by_item: &[Vec<usize>], left: &[f64]) -> f64 {
    let mut worst = 0.0f64;
    for members in by_item {
        let s: f64 = members.iter().map(|j| x[*j]).sum();
        worst = worst.max(s - 1.0);
    }
    let used = cols.resource_use(x, left.len());
    for (u, l) in used.iter().zip(left) {
        worst = worst.max(u - l);
    }
    worst.max(0.0)
}

/// `x` scaled down to fit: each item row's values by 1 / its sum where that
/// passes 1, then each column by the smallest left / used of its resources
/// where used passes left.
fn shrink_to_fit(
    cols: &Columns,
    x: &[f64],
    by_item: &[Vec<usize>],
    left: &[f64],
    out: &mut Vec<f64>,
) {
    out.clear();
    out.extend_from_slice(x);
    for members in by_item {
        let sum: f64 = members.iter().map(|j| out[*j]).sum();
        if sum > 1.0 {
            members.iter().for_each(|j| out[*j] /= sum);
        }
    }
    let used = cols.resource_use(out, left.len());
    let factor: Vec<f64> = used
        .iter()
        .zip(left)
        .map(|(u, l)| if u > l { l / u } else { 1.0 })
        .collect();
    for (j, v) in out.iter_mut().enumerate() {
        *v *= cols
            .usage(j)
            .iter()
            .map(|(r, _)| factor[*r])
            .fold(1.0, f64::min);
    }
}

/// |dual bound - objective| / |dual bound| for values `x` and prices `price`
/// (>= 0). The bound is the LP dual's value with each item's bid at its best
/// column's worth at these prices: Σ_r left_r μ_r + Σ_i max(0, max_j w_j - a_j·μ).
fn relative_gap(
    cols: &Columns,
    x: &[f64],
    by_item: &[Vec<usize>],
    left: &[f64],
    price: &[f64],
) -> f64 {
    let objective: f64 = cols.weight.iter().zip(x).map(|(w, v)| w * v).sum();
    let mut bound: f64 = left.iter().zip(price).map(|(l, p)| l * p).sum();
    for members in by_item {
        bound += members
            .iter()
            .map(|&j| cols.worth(j, price))
            .fold(0.0, f64::max);
    }
    (bound - objective).abs() / bound.abs().max(f64::MIN_POSITIVE)
}

/// The multiplier t >= 0 that makes `Σ_j c_j clamp(b_j - η c_j t, 0, 1)` equal
/// `target` (0 if the sum at t = 0 is already within it): the exact maximiser
/// of the proximal dual along one row. `terms` are (b_j, c_j) with c_j > 0.
/// The sum is piecewise linear and non-increasing in t; its breakpoints are
/// where a term leaves 1 ((b_j - 1) / (η c_j)) and reaches 0 (b_j / (η c_j)).
///
/// Why not sort the breakpoints: at 10k GPUs sorting whole rows was 44% of
/// the run's time. Between two sweeps a multiplier barely moves, so in a long
/// row two passes that read the sum's linear piece at the previous value
/// (`guess`) and where that piece's line meets the target usually find the
/// root, or leave a narrow bracket; [`root_between`] finds it there by
/// selection.
fn root(terms: &[(f64, f64)], eta: f64, target: f64, guess: f64, work: &mut RootWork) -> f64 {
    let (mut lo, mut hi) = (0.0, f64::INFINITY);
    if terms.len() > SHORT_ROW && guess > 0.0 && guess.is_finite() {
        let tol = 1e-12 * (1.0 + target.abs());
        let mut t = guess;
        for _ in 0..2 {
            let p = around(terms, eta, t);
            let above = p.f > target + tol;
            let (slope, bound) = if above {
                lo = t;
                (p.slope_right, p.next)
            } else {
                hi = t;
                (p.slope_left, p.prev)
            };
            if slope >= 0.0 {
                break;
            }
            let x = t + (target - p.f) / slope;
            // Inside the piece the line is the sum. Left of t the sum may stay
            // at the target past `bound` (a flat part), so a root at the bound
            // is left to the selection.
            if above && x <= bound {
                return x;
            }
            if !above && x > bound + 1e-12 * (1.0 + bound.abs()) {
                return x.max(0.0);
            }
            if !(x > lo && x < hi) {
                break;
            }
            t = x;
        }
    }
    root_between(terms, eta, target, lo, hi, work)
}

/// Buffers of [`root_between`], kept across calls (it runs once per row per
/// sweep): the terms with a breakpoint inside the bracket, as (leave_one,
/// reach_zero, b, c), and those breakpoints.
#[derive(Default)]
struct RootWork {
    open: Vec<[f64; 4]>,
    breakpoints: Vec<f64>,
}

/// Rows of at most this many terms skip the reads at the guess and go
/// straight to the selection. The reads pay from a handful of terms on: with
/// jobs' rows (about 30 options each at 10k GPUs) also read at the guess,
/// `bench --case copter-10k` took 8% less time, with the same answers.
const SHORT_ROW: usize = 4;

/// The sum at t, the slopes of the pieces on either side of t, and the
/// breakpoints nearest t on either side (the pieces run from `prev` to t and
/// from t to `next`).
struct Around {
    f: f64,
    slope_left: f64,
    slope_right: f64,
    prev: f64,
    next: f64,
}

fn around(terms: &[(f64, f64)], eta: f64, t: f64) -> Around {
    let mut a = Around {
        f: 0.0,
        slope_left: 0.0,
        slope_right: 0.0,
        prev: f64::NEG_INFINITY,
        next: f64::INFINITY,
    };
    for &(b, c) in terms {
        if b <= 0.0 {
            continue; // 0 for every t >= 0
        }
        let (leave_one, reach_zero) = ((b - 1.0) / (eta * c), b / (eta * c));
        a.f += c * (b - eta * c * t).clamp(0.0, 1.0);
        if leave_one <= t && t < reach_zero {
            a.slope_right -= eta * c * c;
        }
        if leave_one < t && t <= reach_zero {
            a.slope_left -= eta * c * c;
        }
        for bp in [leave_one, reach_zero] {
            if bp < t {
                a.prev = a.prev.max(bp);
            } else if bp > t {
                a.next = a.next.min(bp);
            }
        }
    }
    a
}

/// The smallest root in [lo, hi] (the caller knows f(hi) <= target; lo is 0
/// or a point where f > target), without sorting: the terms that are 0, 1 or
/// linear all through (lo, hi) are summed into K + S t, the sum is read at
/// the median breakpoint of the others, half of the breakpoints fall outside
/// the narrowed interval, and so on (expected O(n), as selection is).
fn root_between(
    terms: &[(f64, f64)],
    eta: f64,
    target: f64,
    lo: f64,
    hi: f64,
    work: &mut RootWork,
) -> f64 {
    let (mut lo, mut hi) = (lo, hi);
    let (mut k, mut slope) = (0.0, 0.0);
    let RootWork { open, breakpoints } = work;
    open.clear();
    for &(b, c) in terms {
        if b > 0.0 {
            open.push([(b - 1.0) / (eta * c), b / (eta * c), b, c]);
        }
    }
    let value = |open: &[[f64; 4]], k: f64, slope: f64, t: f64| {
        k + slope * t
            + open
                .iter()
                .map(|[_, _, b, c]| c * (b - eta * c * t).clamp(0.0, 1.0))
                .sum::<f64>()
    };
    if lo == 0.0 && value(open, 0.0, 0.0, 0.0) <= target {
        return 0.0;
    }
    loop {
        // Terms without a breakpoint inside (lo, hi) join K + S t.
        open.retain(|&[leave_one, reach_zero, b, c]| {
            if reach_zero <= lo {
                false
            } else if leave_one >= hi {
                k += c;
                false
            } else if leave_one <= lo && reach_zero >= hi {
                k += c * b;
                slope -= eta * c * c;
                false
            } else {
                true
            }
        });
        breakpoints.clear();
        for [leave_one, reach_zero, _, _] in open.iter() {
            for bp in [*leave_one, *reach_zero] {
                if bp > lo && bp < hi {
                    breakpoints.push(bp);
                }
            }
        }
        if breakpoints.is_empty() {
            // Linear on (lo, hi): its root, or an end where it is flat.
            return if slope < 0.0 {
                ((target - k) / slope).clamp(lo, hi.max(lo))
            } else if k <= target || !hi.is_finite() {
                lo
            } else {
                hi
            };
        }
        let mid = breakpoints.len() / 2;
        let (_, pivot, _) = breakpoints.select_nth_unstable_by(mid, |a, b| a.total_cmp(b));
        let pivot = *pivot;
        if value(open, k, slope, pivot) > target {
            lo = pivot;
        } else {
            hi = pivot;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mck::{Choice, Item, Method};

    fn problem(n: usize, seed: u64, capacity: Vec<u32>) -> Mck {
        let mut s = schedlab_core::rng::Sampler::new(seed);
        let k = capacity.len();
        let items = (0..n)
            .map(|_| Item {
                choices: (0..k)
                    .flat_map(|r| [1u32, 2, 4, 8].map(|g| (r, g)))
                    .map(|(r, g)| Choice {
                        weight: (g as f64).powf(0.7) * (0.5 + s.uniform()),
                        usage: vec![(r, g)],
                    })
                    .collect(),
                forced: None,
            })
            .collect();
        Mck { items, capacity }
    }

    fn lp_objective(p: &Mck) -> f64 {
        p.lp_optimum().unwrap()
    }

    fn value_of(p: &Mck, v: &[Vec<f64>]) -> f64 {
        p.items
            .iter()
            .zip(v)
            .map(|(it, x)| {
                it.choices
                    .iter()
                    .zip(x)
                    .map(|(c, x)| c.weight * x)
                    .sum::<f64>()
            })
            .sum()
    }

    #[test]
    fn root_finds_the_exact_multiplier() {
        // 2 terms of coefficient 1: clamp(1.5 - t) + clamp(0.8 - t) = 1 at t = 0.65.
        let t = root(&[(1.5, 1.0), (0.8, 1.0)], 1.0, 1.0, 0.0);
        assert!((t - 0.65).abs() < 1e-12, "{t}");
        assert_eq!(root(&[(0.3, 1.0), (0.2, 1.0)], 1.0, 1.0, 0.4), 0.0);
        // Weighted: 2 clamp(2 - 2t, 0, 1) = 1 at t = 0.75.
        assert!((root(&[(2.0, 2.0)], 0.5, 1.0, 3.0) - 1.5).abs() < 1e-12);
        // The sum stays at the target on [5, 9]: the smallest root from any
        // guess, in a short row and in one long enough to read the guess.
        let mut long = vec![(10.0, 1.0), (5.0, 1.0)];
        long.extend(std::iter::repeat_n((-1.0, 1.0), 2 * SHORT_ROW));
        for guess in [0.0, 4.5, 7.0, 9.0, 9.5, 20.0] {
            let t = root(&[(10.0, 1.0), (5.0, 1.0)], 1.0, 1.0, guess);
            assert!((t - 5.0).abs() < 1e-12, "guess {guess}: {t}");
            let t = root(&long, 1.0, 1.0, guess);
            assert!((t - 5.0).abs() < 1e-12, "guess {guess}: {t}");
        }
    }

    /// [`super::root`] with fresh buffers.
    fn root(terms: &[(f64, f64)], eta: f64, target: f64, guess: f64) -> f64 {
        super::root(terms, eta, target, guess, &mut RootWork::default())
    }

    /// The reference: every breakpoint sorted and walked in order.
    fn root_by_sorting(terms: &[(f64, f64)], eta: f64, target: f64) -> f64 {
        // The sum is K + S t between breakpoints; start with its form at t = 0
        // and collect where each term changes piece.
        let (mut k, mut slope) = (0.0, 0.0);
        let mut events: Vec<(f64, f64, f64)> = Vec::with_capacity(2 * terms.len());
        for &(b, c) in terms {
            let (lo, hi) = ((b - 1.0) / (eta * c), b / (eta * c));
            if b >= 1.0 {
                k += c; // at 1 until lo, then linear
                events.push((lo, c * b - c, -eta * c * c));
            } else if b > 0.0 {
                k += c * b;
                slope -= eta * c * c;
            }
            if b > 0.0 {
                events.push((hi, -c * b, eta * c * c));
            }
        }
        if k <= target {
            return 0.0;
        }
        schedlab_core::sorting::sort_by(&mut events, |a, b| a.0.total_cmp(&b.0));
        let mut t_prev = 0.0;
        for (t, dk, ds) in events {
            let f = k + slope * t;
            if f <= target {
                // Linear on [t_prev, t]: solve K + S t = target.
                return if slope < 0.0 {
                    ((target - k) / slope).clamp(t_prev, t)
                } else {
                    t_prev
                };
            }
            k += dk;
            slope += ds;
            t_prev = t;
        }
        t_prev
    }

    #[test]
    fn the_search_from_a_guess_agrees_with_sorting_every_breakpoint() {
        // Many terms, targets at every level, guesses near, far and at 0.
        let mut s = schedlab_core::rng::Sampler::new(5);
        for n in [1usize, 3, 40, 300, 2000] {
            let terms: Vec<(f64, f64)> = (0..n)
                .map(|_| {
                    (
                        4.0 * s.uniform() - 1.0,
                        [1.0, 2.0, 8.0][(3.0 * s.uniform()) as usize % 3],
                    )
                })
                .collect();
            let eta = 0.3;
            let total: f64 = terms.iter().filter(|t| t.0 > 0.0).map(|t| t.1).sum();
            for frac in [0.0, 0.1, 0.5, 0.9, 1.1] {
                let target = frac * total;
                let exact = root_by_sorting(&terms, eta, target);
                for guess in [
                    0.0,
                    exact,
                    exact * 1.01 + 1e-3,
                    exact * 0.5,
                    10.0 * exact + 1.0,
                ] {
                    let t = root(&terms, eta, target, guess);
                    assert!(
                        (t - exact).abs() <= 1e-9 * (1.0 + exact),
                        "n={n} target={target} guess={guess}: {t} vs {exact}"
                    );
                }
            }
        }
    }

    #[test]
    fn ppa_reaches_the_lp_optimum_and_stays_feasible() {
        for (n, seed, cap, active_set) in [
            (12, 1, vec![16, 8], false),
            (40, 2, vec![32, 24, 16], false),
            (80, 3, vec![64, 64, 32, 16, 8, 8, 8], false),
            (80, 3, vec![64, 64, 32, 16, 8, 8, 8], true),
        ] {
            let p = problem(n, seed, cap);
            let mut s = ContinualMck::new(PpaSettings {
                active_set,
                ..PpaSettings::default()
            });
            let keys: Vec<u64> = (0..n as u64).collect();
            let opt_keys: Vec<Vec<u64>> = p
                .items
                .iter()
                .map(|it| (0..it.choices.len() as u64).collect())
                .collect();
            let (v, stats) = s.solve(&p, &keys, &opt_keys).unwrap();
            let lp = lp_objective(&p);
            let ours = value_of(&p, &v);
            assert!(stats.primal_residual <= 1e-4, "{stats:?}");
            assert!(
                (ours - lp).abs() <= 1e-3 * lp,
                "n={n}: PPA {ours} vs LP {lp} ({stats:?})"
            );
            let r = p.shim_values(&v, Method::LpShimPlain).unwrap();
            p.check(&r.pick).unwrap();
            assert!(r.objective >= 0.9 * lp, "shim keeps most of the LP value");
        }
    }

    #[test]
    fn a_warm_start_after_a_small_change_takes_fewer_sweeps_than_a_cold_one() {
        let mut p = problem(60, 7, vec![48, 32, 16, 16]);
        let keys: Vec<u64> = (0..60).collect();
        let opt_keys: Vec<Vec<u64>> = p
            .items
            .iter()
            .map(|it| (0..it.choices.len() as u64).collect())
            .collect();
        let mut warm = ContinualMck::new(PpaSettings::default());
        warm.solve(&p, &keys, &opt_keys).unwrap();
        // One job leaves, one arrives (new key), weights drift by 1%.
        p.items.remove(0);
        let mut keys2: Vec<u64> = keys[1..].to_vec();
        let newcomer = problem(1, 99, vec![48, 32, 16, 16]).items.remove(0);
        p.items.push(newcomer);
        keys2.push(1000);
        for (i, it) in p.items.iter_mut().enumerate() {
            for ch in &mut it.choices {
                ch.weight *= 1.0 + 0.01 * ((i % 3) as f64 - 1.0);
            }
        }
        let opt2: Vec<Vec<u64>> = p
            .items
            .iter()
            .map(|it| (0..it.choices.len() as u64).collect())
            .collect();
        let (vw, sw) = warm.solve(&p, &keys2, &opt2).unwrap();
        assert_eq!((sw.added, sw.removed), (1, 1));
        let mut cold = ContinualMck::new(PpaSettings {
            warm_start: false,
            ..PpaSettings::default()
        });
        let (vc, sc) = cold.solve(&p, &keys2, &opt2).unwrap();
        assert!(sw.sweeps < sc.sweeps, "warm {sw:?} cold {sc:?}");
        let lp = lp_objective(&p);
        for v in [&vw, &vc] {
            assert!((value_of(&p, v) - lp).abs() <= 1e-3 * lp);
        }
    }

    #[test]
    fn a_warm_start_after_a_no_op_round_returns_the_previous_answer_without_iterating() {
        let mut p = problem(40, 5, vec![32, 24, 16]);
        let keys: Vec<u64> = (0..40).collect();
        let opt_keys: Vec<Vec<u64>> = p
            .items
            .iter()
            .map(|it| (0..it.choices.len() as u64).collect())
            .collect();
        let mut s = ContinualMck::new(PpaSettings::default());
        let (v1, s1) = s.solve(&p, &keys, &opt_keys).unwrap();
        assert!(s1.outer_iterations > 0);
        // The same round again: the same answer, no proximal step, no sweep.
        let (v2, s2) = s.solve(&p, &keys, &opt_keys).unwrap();
        assert_eq!(v2, v1);
        assert_eq!(
            (
                s2.outer_iterations,
                s2.sweeps,
                s2.changed_vars,
                s2.added,
                s2.removed
            ),
            (0, 0, 0, 0, 0)
        );
        assert!(s2.primal_residual <= 1e-4);
        // Any change, however small, is solved.
        p.items[3].choices[0].weight *= 1.0 + 1e-12;
        let (_, s3) = s.solve(&p, &keys, &opt_keys).unwrap();
        assert!(s3.outer_iterations > 0);
        // So is a repeated round when the warm start is off.
        let mut cold = ContinualMck::new(PpaSettings {
            warm_start: false,
            ..PpaSettings::default()
        });
        cold.solve(&p, &keys, &opt_keys).unwrap();
        let (_, s4) = cold.solve(&p, &keys, &opt_keys).unwrap();
        assert!(s4.outer_iterations > 0);
    }

    /// Settings that solve to the LP optimum itself (the defaults stop earlier).
    fn tight() -> PpaSettings {
        PpaSettings {
            max_outer: 200_000,
            step_tol: 1e-12,
            residual_tol: 1e-12,
            gap_tol: 0.0,
            snap: 0.0,
            ..PpaSettings::default()
        }
    }

    /// The duality-gap stop ends a solve no later than the step rule, and its
    /// values' objective is within the tolerance of the simplex's optimum
    /// (and the stop would fail this if the bound were not a bound).
    #[test]
    fn the_gap_rule_stops_sooner_within_its_tolerance_of_the_optimum() {
        let mut fewer = 0;
        for seed in 1..=6u64 {
            let n = 30 + 10 * seed as usize;
            let p = problem(n, 40 + seed, vec![24, 16, 12]);
            let keys: Vec<u64> = (0..n as u64).collect();
            let lp = p.lp_optimum().unwrap();
            let with_gap = PpaSettings {
                snap: 0.0,
                ..PpaSettings::default()
            };
            let step_only = PpaSettings {
                gap_tol: 0.0,
                ..with_gap
            };
            let (vg, sg) = ContinualMck::new(with_gap)
                .solve(&p, &keys, &keys_of(&p))
                .unwrap();
            let (_, ss) = ContinualMck::new(step_only)
                .solve(&p, &keys, &keys_of(&p))
                .unwrap();
            let ours = value_of(&p, &vg);
            // Within the gap of the optimum, and not above it by more than
            // the rows' residual allows (the step rule's answer may be off
            // by residual_tol x (1 + capacity)).
            assert!(
                ours >= lp * (1.0 - with_gap.gap_tol) && ours <= lp * (1.0 + 1e-6),
                "seed {seed}: {ours} vs simplex {lp} ({sg:?})"
            );
            assert!(sg.outer_iterations <= ss.outer_iterations, "{sg:?} {ss:?}");
            fewer += usize::from(sg.outer_iterations < ss.outer_iterations);
        }
        assert!(fewer >= 3, "the gap rule stopped sooner on {fewer} of 6");
    }

    fn keys_of(p: &Mck) -> Vec<Vec<u64>> {
        p.items
            .iter()
            .map(|it| (0..it.choices.len() as u64).collect())
            .collect()
    }

    /// Acceptance (issue 16): LP*'s simplex, COpter from scratch and COpter
    /// warm-started after a sequence of edits (the differential path: jobs
    /// leave and arrive, weights drift, a resource grows) reach the same LP
    /// optimum, and the shim's picks fit.
    #[test]
    fn simplex_cold_and_edited_warm_reach_the_same_lp_optimum() {
        for seed in 1..=4u64 {
            let n = 10 + 4 * seed as usize;
            let mut p = problem(n, seed, vec![12, 8, 6]);
            let mut keys: Vec<u64> = (0..n as u64).collect();
            let mut warm = ContinualMck::new(tight());
            warm.solve(&p, &keys, &keys_of(&p)).unwrap();
            // Edits: two jobs leave, two arrive, weights drift, capacity grows.
            p.items.drain(0..2);
            keys.drain(0..2);
            for (k, it) in problem(2, 100 + seed, vec![12, 8, 6])
                .items
                .into_iter()
                .enumerate()
            {
                p.items.push(it);
                keys.push(1000 + k as u64);
            }
            for (i, it) in p.items.iter_mut().enumerate() {
                for ch in &mut it.choices {
                    ch.weight *= 1.0 + 0.02 * ((i % 5) as f64 - 2.0);
                }
            }
            warm.solve(&p, &keys, &keys_of(&p)).unwrap();
            p.capacity[1] += 4;
            let (vw, sw) = warm.solve(&p, &keys, &keys_of(&p)).unwrap();
            let (vc, sc) = ContinualMck::new(tight())
                .solve(&p, &keys, &keys_of(&p))
                .unwrap();
            let lp = p.lp_optimum().unwrap();
            for (name, v, st) in [("warm", &vw, sw), ("cold", &vc, sc)] {
                let ours = value_of(&p, v);
                assert!(
                    (ours - lp).abs() <= 1e-6 * lp,
                    "seed {seed} {name}: {ours} vs simplex {lp} ({st:?})"
                );
                assert!(st.primal_residual <= 1e-9, "{st:?}");
                let r = p.shim_values(v, Method::LpShimPlain).unwrap();
                p.check(&r.pick).unwrap();
            }
        }
    }
}
