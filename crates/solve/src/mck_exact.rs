//! Exact multiple-choice knapsack by depth-first branch and bound with a
//! Lagrangian bound: the structured solver behind [`super::Method::Exact`].
//!
//! Relaxing the capacity rows with multipliers λ ≥ 0 leaves one independent
//! choice per item, so `Σ_r λ_r·cap_r + Σ_i max(0, max_o w_o − λ·a_o)` bounds
//! every completion of a node; with λ minimising it at the root the bound is
//! the LP relaxation's (the per-item choice sets are integral). λ is found
//! once, at the root, by a sweep of coordinate descent and subgradient
//! steps; each node then costs one pass over the options left, about a
//! hundred times less than a simplex node of the general solver, and options
//! that no longer fit the node's capacity drop out of its bound. The search
//! proves optimality within a relative 1e-9 (microlp's branch and bound was
//! run with a gap of 1e-6) or gives up after its node budget, and the caller
//! turns to the capacity table ([`super::mck_dp`]) or the general solver.

use super::mck::Mck;

/// Relative slack within which a node cannot improve on the incumbent.
const GAP: f64 = 1e-9;
/// Coordinate-descent sweeps over the multipliers.
const SWEEPS: usize = 1;
/// Bisection steps of each coordinate's line search.
const BISECTIONS: usize = 20;
/// Most free items the search takes on: it recurses once per item, and
/// wasm's stack is 1 MB (beyond this the table or microlp answers).
pub(super) const MAX_ITEMS: usize = 1_000;
/// Subgradient steps after the coordinate descent.
const SUBGRADIENT_STEPS: usize = 100;

/// The free part of a problem in flat arrays: per item a range of options,
/// per option its weight and dense usage row.
struct Flat {
    resources: usize,
    /// The problem's item index of each free item, in search order.
    item_of: Vec<usize>,
    /// Option ranges per free item (into `weight` / `choice_of`).
    start: Vec<usize>,
    weight: Vec<f64>,
    /// Dense usage, `resources` entries per option.
    usage: Vec<u32>,
    /// The problem's choice index of each option.
    choice_of: Vec<usize>,
}

impl Flat {
    fn options(&self, k: usize) -> std::ops::Range<usize> {
        self.start[k]..self.start[k + 1]
    }

    fn use_of(&self, o: usize) -> &[u32] {
        &self.usage[o * self.resources..(o + 1) * self.resources]
    }

    fn fits(&self, o: usize, cap: &[u32]) -> bool {
        self.use_of(o).iter().zip(cap).all(|(a, c)| a <= c)
    }

    /// Item `k`'s fitting option of best positive reduced profit, with that
    /// profit (0 and `None` when no option pays).
    fn best_option(&self, k: usize, lambda: &[f64], cap: &[u32]) -> (f64, Option<usize>) {
        let mut best = (0.0, None);
        for o in self.options(k) {
            let v = self.reduced(o, lambda);
            if v > best.0 && self.fits(o, cap) {
                best = (v, Some(o));
            }
        }
        best
    }

    fn reduced(&self, o: usize, lambda: &[f64]) -> f64 {
        let cost: f64 = self
            .use_of(o)
            .iter()
            .zip(lambda)
            .map(|(a, l)| *a as f64 * l)
            .sum();
        self.weight[o] - cost
    }
}

/// The best pick of the free items within `left`, leaving forced items
/// `None`; `None` when the node budget runs
/// out before optimality is proven, or with more than [`MAX_ITEMS`] items.
pub(super) fn solve(p: &Mck, left: &[u32], node_budget: u64) -> Option<Vec<Option<usize>>> {
    let flat = flatten(p, left);
    if flat.item_of.len() > MAX_ITEMS {
        return None;
    }
    let mut pick = vec![None; p.items.len()];
    if flat.item_of.is_empty() {
        return Some(pick);
    }
    let mut lambda = vec![0.0; flat.resources];
    multipliers(&flat, left, &mut lambda);
    let floor = greedy_value(&flat, &lambda, left);
    polish(&flat, left, &mut lambda, floor);
    let mut search = Search::new(&flat, &lambda, node_budget);
    let mut cap = left.to_vec();
    search.dive(0, 0.0, &mut cap);
    if search.exhausted {
        return None;
    }
    for (k, o) in search.best_path.iter().enumerate() {
        if let Some(o) = o {
            pick[flat.item_of[k]] = Some(flat.choice_of[*o]);
        }
    }
    Some(pick)
}

/// Free items with their usable options (weight > 0, fitting `left`), the
/// items with the heaviest option first (big decisions near the root).
fn flatten(p: &Mck, left: &[u32]) -> Flat {
    let resources = p.capacity.len();
    let mut items: Vec<(f64, usize)> = Vec::new();
    for (i, it) in p.items.iter().enumerate() {
        if it.forced.is_some() {
            continue;
        }
        let heaviest = it
            .choices
            .iter()
            .filter(|ch| ch.weight > 0.0 && ch.usage.iter().all(|(r, a)| *a <= left[*r]))
            .map(|ch| ch.weight)
            .fold(0.0, f64::max);
        if heaviest > 0.0 {
            items.push((heaviest, i));
        }
    }
    schedlab_core::sorting::sort_by(&mut items, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut flat = Flat {
        resources,
        item_of: Vec::with_capacity(items.len()),
        start: vec![0],
        weight: Vec::new(),
        usage: Vec::new(),
        choice_of: Vec::new(),
    };
    for (_, i) in items {
        for (c, ch) in p.items[i].choices.iter().enumerate() {
            if ch.weight <= 0.0 || ch.usage.iter().any(|(r, a)| *a > left[*r]) {
                continue;
            }
            let mut row = vec![0u32; resources];
            for (r, a) in &ch.usage {
                row[*r] += a;
            }
            flat.weight.push(ch.weight);
            flat.usage.extend(row);
            flat.choice_of.push(c);
        }
        flat.item_of.push(i);
        flat.start.push(flat.weight.len());
    }
    flat
}

/// The Lagrangian bound of the items from `from` on within `cap` under `lambda`.
fn bound(flat: &Flat, lambda: &[f64], from: usize, cap: &[u32]) -> f64 {
    let priced: f64 = cap.iter().zip(lambda).map(|(c, l)| *c as f64 * l).sum();
    (from..flat.item_of.len()).fold(priced, |total, k| {
        total + flat.best_option(k, lambda, cap).0
    })
}

/// A start for the multipliers, by coordinate descent: along one coordinate
/// the bound is convex and piecewise linear, and its slope (capacity minus
/// what the items' best options use) is non-decreasing, so bisection finds
/// where it turns. (Coordinate descent alone stalls on this non-smooth
/// function, 2% above the LP bound on Sia's rounds; [`polish`] goes on.)
fn multipliers(flat: &Flat, cap: &[u32], lambda: &mut [f64]) {
    let n = flat.item_of.len();
    for _ in 0..SWEEPS {
        for r in 0..flat.resources {
            // Beyond the largest weight per unit of r, no option using r pays.
            let top = (0..flat.weight.len())
                .filter(|&o| flat.use_of(o)[r] > 0 && flat.fits(o, cap))
                .map(|o| flat.weight[o] / flat.use_of(o)[r] as f64)
                .fold(0.0, f64::max);
            let slope = |l: &mut [f64], t: f64| -> f64 {
                l[r] = t;
                let used: u64 = (0..n)
                    .filter_map(|k| flat.best_option(k, l, cap).1)
                    .map(|o| flat.use_of(o)[r] as u64)
                    .sum();
                cap[r] as f64 - used as f64
            };
            let mut l = lambda.to_vec();
            if slope(&mut l, 0.0) >= 0.0 {
                lambda[r] = 0.0;
                continue;
            }
            let (mut lo, mut hi) = (0.0, top);
            for _ in 0..BISECTIONS {
                let mid = 0.5 * (lo + hi);
                if slope(&mut l, mid) < 0.0 {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            lambda[r] = hi;
        }
    }
}

/// The value of the first leaf a search reaches: each item in turn takes
/// its fitting option of best reduced profit (none when none is positive).
fn greedy_value(flat: &Flat, lambda: &[f64], cap: &[u32]) -> f64 {
    let mut cap = cap.to_vec();
    let mut total = 0.0;
    for k in 0..flat.item_of.len() {
        if let (_, Some(o)) = flat.best_option(k, lambda, &cap) {
            for (c, a) in cap.iter_mut().zip(flat.use_of(o)) {
                *c -= a;
            }
            total += flat.weight[o];
        }
    }
    total
}

/// The Lagrangian bound and a subgradient at `lambda`.
fn bound_and_subgradient(flat: &Flat, lambda: &[f64], cap: &[u32], grad: &mut [f64]) -> f64 {
    let mut total: f64 = cap.iter().zip(lambda).map(|(c, l)| *c as f64 * l).sum();
    for (g, c) in grad.iter_mut().zip(cap) {
        *g = *c as f64;
    }
    for k in 0..flat.item_of.len() {
        if let (v, Some(o)) = flat.best_option(k, lambda, cap) {
            total += v;
            for (g, a) in grad.iter_mut().zip(flat.use_of(o)) {
                *g -= *a as f64;
            }
        }
    }
    total
}

/// Subgradient steps (Polyak's rule towards `floor`, a feasible value, with
/// the step factor halved when the bound stalls); keeps the best λ seen.
fn polish(flat: &Flat, cap: &[u32], lambda: &mut [f64], floor: f64) {
    let mut grad = vec![0.0; flat.resources];
    let mut best = bound_and_subgradient(flat, lambda, cap, &mut grad);
    let mut best_lambda = lambda.to_vec();
    let mut theta = 1.0;
    let mut stalled = 0;
    let mut x = lambda.to_vec();
    let mut value = best;
    for _ in 0..SUBGRADIENT_STEPS {
        let norm: f64 = grad.iter().map(|g| g * g).sum();
        if norm == 0.0 || value - floor <= 0.0 {
            break;
        }
        let step = theta * (value - floor) / norm;
        for (l, g) in x.iter_mut().zip(&grad) {
            *l = (*l - step * g).max(0.0);
        }
        value = bound_and_subgradient(flat, &x, cap, &mut grad);
        if value < best {
            best = value;
            best_lambda.copy_from_slice(&x);
            stalled = 0;
        } else {
            stalled += 1;
            if stalled >= 4 {
                theta *= 0.5;
                stalled = 0;
            }
        }
    }
    lambda.copy_from_slice(&best_lambda);
}

/// Depth-first search state.
struct Search<'a> {
    flat: &'a Flat,
    lambda: &'a [f64],
    /// Options of each item by reduced profit, best first.
    order: Vec<Vec<usize>>,
    path: Vec<Option<usize>>,
    best: f64,
    /// What an improvement must exceed: GAP times the sum of the items'
    /// heaviest options (a bound on any objective).
    tol: f64,
    best_path: Vec<Option<usize>>,
    nodes: u64,
    budget: u64,
    exhausted: bool,
}

impl<'a> Search<'a> {
    fn new(flat: &'a Flat, lambda: &'a [f64], budget: u64) -> Search<'a> {
        let order = (0..flat.item_of.len())
            .map(|k| {
                let mut opts: Vec<usize> = flat.options(k).collect();
                schedlab_core::sorting::sort_by(&mut opts, |a, b| {
                    flat.reduced(*b, lambda)
                        .total_cmp(&flat.reduced(*a, lambda))
                        .then(flat.weight[*b].total_cmp(&flat.weight[*a]))
                        .then(a.cmp(b))
                });
                opts
            })
            .collect();
        let n = flat.item_of.len();
        let heaviest: f64 = (0..n)
            .map(|k| flat.options(k).map(|o| flat.weight[o]).fold(0.0, f64::max))
            .sum();
        Search {
            tol: GAP * heaviest,
            flat,
            lambda,
            order,
            path: vec![None; n],
            best: 0.0,
            best_path: vec![None; n],
            nodes: 0,
            budget,
            exhausted: false,
        }
    }

    /// Explores item `k` on, with `value` collected so far and `cap` left.
    fn dive(&mut self, k: usize, value: f64, cap: &mut [u32]) {
        if self.exhausted {
            return;
        }
        let n = self.flat.item_of.len();
        if k == n {
            if value > self.best + self.tol {
                self.best = value;
                self.best_path.copy_from_slice(&self.path);
            }
            return;
        }
        self.nodes += 1;
        if self.nodes > self.budget {
            self.exhausted = true;
            return;
        }
        if value + bound(self.flat, self.lambda, k, cap) <= self.best + self.tol {
            return;
        }
        for j in 0..self.order[k].len() {
            let o = self.order[k][j];
            if !self.flat.fits(o, cap) {
                continue;
            }
            for (c, a) in cap.iter_mut().zip(self.flat.use_of(o)) {
                *c -= a;
            }
            self.path[k] = Some(o);
            self.dive(k + 1, value + self.flat.weight[o], cap);
            for (c, a) in cap.iter_mut().zip(self.flat.use_of(o)) {
                *c += a;
            }
        }
        self.path[k] = None;
        self.dive(k + 1, value, cap);
    }
}
