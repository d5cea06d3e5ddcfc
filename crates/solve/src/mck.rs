//! Multiple-choice knapsack with several capacity rows: pick at most one
//! option per item to maximise total weight within per-resource capacities.
//! This is the shape of Sia's ILP (items = jobs, options = configurations,
//! resources = GPU types; spec seed004 §2.5, E16) and of other allocation
//! problems.
//!
//! Three methods, each answer checked by [`Mck::check`]:
//! - `Exact`: the optimum, by our structured branch and bound
//!   (`mck_exact.rs`), then a table over the capacity vectors (`mck_dp.rs`)
//!   when the search runs out of nodes, and microlp's branch-and-bound
//!   (node budget) only where the table would be too large;
//! - `LpShim`: the LP relaxation, then the integerisation shim of spec
//!   seed004 §2.10 (each item takes the option with the largest LP value that
//!   still fits; items the LP left fractional go last);
//! - `Greedy`: options by weight per unit of resource, best first.
//!
//! A failing method falls back to the next one and says why.

use super::model::{Cmp, Model, Sense, SolveOptions};
use serde::Serialize;

/// Structured-search nodes per node of the general solver's budget.
const STRUCTURED_NODES_PER_NODE: u64 = 64;

/// How many cheap donors join the shim's exact repair.
const REPAIR_DONORS: usize = 16;

/// One option of an item: its weight and what it uses of each resource.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub weight: f64,
    /// (resource index, amount) pairs.
    pub usage: Vec<(usize, u32)>,
}

/// An item: its options, and optionally one it must take.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Item {
    pub choices: Vec<Choice>,
    pub forced: Option<usize>,
}

/// The problem.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Mck {
    pub items: Vec<Item>,
    pub capacity: Vec<u32>,
}

/// Solution methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    Exact,
    /// LP relaxation, the thesis shim, then an exact repair of the few
    /// items the shim had to round (fractional or left out).
    LpShim,
    /// LP relaxation and the thesis shim verbatim (COpter spec §2.6).
    LpShimPlain,
    Greedy,
}

/// The chosen option per item and how it was found.
#[derive(Debug, Clone, Serialize)]
pub struct MckResult {
    pub pick: Vec<Option<usize>>,
    pub objective: f64,
    pub method: Method,
    /// Set when the requested method failed and another answered.
    pub fallback: Option<String>,
    /// Items the LP relaxation left fractional (LpShim only).
    pub fractional_items: usize,
    /// Proven optimal (Exact only).
    pub optimal: bool,
}

impl Mck {
    /// Total weight of a pick.
    pub fn objective_of(&self, pick: &[Option<usize>]) -> f64 {
        pick.iter()
            .zip(&self.items)
            .filter_map(|(p, it)| p.map(|c| it.choices[c].weight))
            .sum()
    }

    /// Checks one option per item, forced options taken, capacities respected.
    pub fn check(&self, pick: &[Option<usize>]) -> Result<(), String> {
        if pick.len() != self.items.len() {
            return Err("pick length differs from item count".into());
        }
        let mut used = vec![0u64; self.capacity.len()];
        for (i, (p, it)) in pick.iter().zip(&self.items).enumerate() {
            if let Some(f) = it.forced {
                if *p != Some(f) {
                    return Err(format!("item {i} must take option {f}"));
                }
            }
            if let Some(c) = p {
                let ch = it
                    .choices
                    .get(*c)
                    .ok_or_else(|| format!("item {i} has no option {c}"))?;
                for (r, a) in &ch.usage {
                    used[*r] += *a as u64;
                }
            }
        }
        for (r, (u, cap)) in used.iter().zip(&self.capacity).enumerate() {
            if *u > *cap as u64 {
                return Err(format!("resource {r}: {u} used > capacity {cap}"));
            }
        }
        Ok(())
    }

    /// Capacities left after the forced options.
    fn residual(&self) -> Result<Vec<u32>, String> {
        let mut left: Vec<i64> = self.capacity.iter().map(|c| *c as i64).collect();
        for it in &self.items {
            if let Some(f) = it.forced {
                for (r, a) in &it.choices[f].usage {
                    left[*r] -= *a as i64;
                }
            }
        }
        if let Some(r) = left.iter().position(|l| *l < 0) {
            return Err(format!("forced options exceed resource {r}"));
        }
        Ok(left.into_iter().map(|l| l as u32).collect())
    }

    /// Solves with `method`, falling back Exact -> LpShim -> Greedy.
    pub fn solve(&self, method: Method, node_limit: u64) -> MckResult {
        let mut why = None;
        let mut order = vec![method];
        for m in [
            Method::Exact,
            Method::LpShim,
            Method::LpShimPlain,
            Method::Greedy,
        ] {
            if !order.contains(&m) && (m as u8) > (method as u8) {
                order.push(m);
            }
        }
        for m in order {
            let attempt = match m {
                Method::Exact => self.exact(node_limit),
                Method::LpShim => self.lp_shim(true, node_limit),
                Method::LpShimPlain => self.lp_shim(false, node_limit),
                Method::Greedy => self.greedy(),
            };
            match attempt.and_then(|r| self.check(&r.pick).map(|_| r)) {
                Ok(mut r) => {
                    r.fallback = why;
                    return r;
                }
                Err(e) => {
                    why = Some(match why {
                        None => format!("{m:?} failed: {e}"),
                        Some(w) => format!("{w}; {m:?} failed: {e}"),
                    })
                }
            }
        }
        // Greedy only fails if the forced options alone do not fit: honour them anyway.
        let pick: Vec<Option<usize>> = self.items.iter().map(|it| it.forced).collect();
        MckResult {
            objective: self.objective_of(&pick),
            pick,
            method: Method::Greedy,
            fallback: why,
            fractional_items: 0,
            optimal: false,
        }
    }

    /// Builds the program over free items (forced ones pre-subtracted).
    fn model(
        &self,
        left: &[u32],
        only: Option<&[bool]>,
    ) -> (Model, Vec<(usize, usize, super::model::Var)>) {
        let mut m = Model::new(Sense::Maximize);
        let mut vars = Vec::new();
        let mut per_resource: Vec<Vec<(super::model::Var, f64)>> =
            vec![Vec::new(); self.capacity.len()];
        for (i, it) in self.items.iter().enumerate() {
            if it.forced.is_some() || only.is_some_and(|o| !o[i]) {
                continue;
            }
            let mut row = Vec::new();
            for (c, ch) in it.choices.iter().enumerate() {
                if ch.weight <= 0.0 || ch.usage.iter().any(|(r, a)| *a > left[*r]) {
                    continue;
                }
                let v = m.binary(ch.weight);
                row.push((v, 1.0));
                for (r, a) in &ch.usage {
                    per_resource[*r].push((v, *a as f64));
                }
                vars.push((i, c, v));
            }
            if row.len() > 1 {
                m.constraint(row, Cmp::Le, 1.0);
            }
        }
        for (r, coeffs) in per_resource.into_iter().enumerate() {
            if !coeffs.is_empty() {
                m.constraint(coeffs, Cmp::Le, left[r] as f64);
            }
        }
        (m, vars)
    }

    fn base_pick(&self) -> Vec<Option<usize>> {
        self.items.iter().map(|it| it.forced).collect()
    }

    /// The optimum: the structured branch and bound, the capacity table when
    /// the search runs out of nodes, and microlp's branch and bound (within
    /// `node_limit` nodes) when the table would be too large.
    fn exact(&self, node_limit: u64) -> Result<MckResult, String> {
        let left = self.residual()?;
        let mut pick = self.base_pick();
        let optimal = match self.structured_optimum(&left, node_limit) {
            Some(found) => {
                for (p, f) in pick.iter_mut().zip(found) {
                    if f.is_some() {
                        *p = f;
                    }
                }
                true
            }
            None => self.general_optimum(&left, node_limit, &mut pick)?,
        };
        Ok(MckResult {
            objective: self.objective_of(&pick),
            pick,
            method: Method::Exact,
            fallback: None,
            fractional_items: 0,
            optimal,
        })
    }

    /// The free items' optimal pick by the structured methods, or `None`
    /// when neither answers. The search gets about as many nodes as the
    /// table has cells per item (the two then cost about the same).
    fn structured_optimum(&self, left: &[u32], node_limit: u64) -> Option<Vec<Option<usize>>> {
        let table = super::mck_dp::table_states(self, left);
        let budget = node_limit.saturating_mul(STRUCTURED_NODES_PER_NODE);
        let budget = table.map_or(budget, |states| budget.min(states as u64));
        super::mck_exact::solve(self, left, budget)
            .or_else(|| table.and_then(|_| super::mck_dp::solve(self, left)))
    }

    /// microlp's branch and bound over the free items, written into `pick`;
    /// whether it proved optimality within `node_limit` nodes.
    fn general_optimum(
        &self,
        left: &[u32],
        node_limit: u64,
        pick: &mut [Option<usize>],
    ) -> Result<bool, String> {
        let (m, vars) = self.model(left, None);
        if m.num_vars() == 0 {
            return Ok(true);
        }
        let opts = SolveOptions {
            node_limit: Some(node_limit),
            ..SolveOptions::default()
        };
        let s = m.solve(&opts).map_err(|e| e.to_string())?;
        for (i, c, v) in &vars {
            if s.value(*v) > 0.5 {
                pick[*i] = Some(*c);
            }
        }
        Ok(s.optimal)
    }

    /// The LP relaxation's values by microlp's simplex (LP*'s LP), as
    /// (value, option) per item; forced and unusable options are absent.
    fn lp_relaxation(&self, left: &[u32]) -> Result<Vec<Vec<(f64, usize)>>, String> {
        let (m, vars) = self.model(left, None);
        let mut by_item: Vec<Vec<(f64, usize)>> = vec![Vec::new(); self.items.len()];
        if m.num_vars() > 0 {
            let opts = SolveOptions {
                relax: true,
                ..SolveOptions::default()
            };
            let s = m.solve(&opts).map_err(|e| e.to_string())?;
            for (i, c, v) in &vars {
                by_item[*i].push((s.value(*v), *c));
            }
        }
        Ok(by_item)
    }

    /// The LP relaxation's optimum value (LP*'s LP, by the simplex method).
    pub fn lp_optimum(&self) -> Result<f64, String> {
        let left = self.residual()?;
        let forced = self.objective_of(&self.base_pick());
        let lp = self.lp_relaxation(&left)?;
        Ok(forced
            + lp.iter()
                .enumerate()
                .flat_map(|(i, row)| row.iter().map(move |(v, c)| (i, *v, *c)))
                .map(|(i, v, c)| v * self.items[i].choices[c].weight)
                .sum::<f64>())
    }

    fn lp_shim(&self, repair: bool, node_limit: u64) -> Result<MckResult, String> {
        let left = self.residual()?;
        let by_item = self.lp_relaxation(&left)?;
        let method = if repair {
            Method::LpShim
        } else {
            Method::LpShimPlain
        };
        Ok(self.shim(by_item, left, repair, node_limit, method))
    }

    /// The thesis shim (spec seed004 §2.6) over LP values found elsewhere
    /// (COpter's warm-started solver): `values[i][c]` is option `c` of item
    /// `i`; forced items keep their option. Checked like every answer.
    pub fn shim_values(&self, values: &[Vec<f64>], method: Method) -> Result<MckResult, String> {
        let left = self.residual()?;
        let by_item: Vec<Vec<(f64, usize)>> = values
            .iter()
            .zip(&self.items)
            .map(|(v, it)| {
                if it.forced.is_some() {
                    return Vec::new();
                }
                v.iter()
                    .enumerate()
                    .filter(|(c, _)| {
                        let ch = &it.choices[*c];
                        ch.weight > 0.0 && ch.usage.iter().all(|(r, a)| *a <= left[*r])
                    })
                    .map(|(c, x)| (*x, c))
                    .collect()
            })
            .collect();
        let r = self.shim(by_item, left, false, 0, method);
        self.check(&r.pick).map(|_| r)
    }

    /// Rounds LP values to one option per item: integral rows first (their
    /// LP assignment always survives), then the fractional ones by
    /// descending largest LP value, each taking its largest-valued option
    /// that still fits; optionally [`Mck::repair`]s what had to be rounded.
    fn shim(
        &self,
        mut by_item: Vec<Vec<(f64, usize)>>,
        left: Vec<u32>,
        repair: bool,
        node_limit: u64,
        method: Method,
    ) -> MckResult {
        let mut pick = self.base_pick();
        let mut fractional = 0;
        // (As before the split: nothing to round, nothing to repair.)
        let repair = repair && by_item.iter().any(|v| !v.is_empty());
        {
            // Per item: options by LP value (then weight), and whether it is integral.
            let mut order: Vec<(bool, f64, usize)> = Vec::new();
            let mut is_fractional = vec![false; self.items.len()];
            for (i, opts) in by_item.iter_mut().enumerate() {
                if opts.is_empty() {
                    continue;
                }
                let it = &self.items[i];
                schedlab_core::sorting::sort_by(opts, |a, b| {
                    b.0.total_cmp(&a.0)
                        .then(it.choices[b.1].weight.total_cmp(&it.choices[a.1].weight))
                });
                let top = opts[0].0;
                let total: f64 = opts.iter().map(|o| o.0).sum();
                let integral = top > 1.0 - 1e-6 || total < 1e-6;
                if !integral {
                    fractional += 1;
                    is_fractional[i] = true;
                }
                if total >= 1e-6 {
                    order.push((!integral, -top, i));
                }
            }
            schedlab_core::sorting::sort_by(&mut order, |a, b| {
                a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2))
            });
            let mut cap = left.clone();
            for (_, _, i) in order {
                let it = &self.items[i];
                let fit = by_item[i]
                    .iter()
                    .take_while(|(x, _)| *x > 1e-9)
                    .map(|(_, c)| *c)
                    .find(|c| it.choices[*c].usage.iter().all(|(r, a)| *a <= cap[*r]));
                if let Some(c) = fit {
                    for (r, a) in &it.choices[c].usage {
                        cap[*r] -= a;
                    }
                    pick[i] = Some(c);
                }
            }
            if repair {
                self.repair(&mut pick, &mut cap, &is_fractional, node_limit);
            }
        }
        MckResult {
            objective: self.objective_of(&pick),
            pick,
            method,
            fallback: None,
            fractional_items: fractional,
            optimal: false,
        }
    }

    /// Re-decides the items the shim had to round (fractional in the LP, or
    /// left without an option) exactly, within the capacity the others
    /// leave; then fills and upgrades greedily whatever remains.
    fn repair(
        &self,
        pick: &mut [Option<usize>],
        cap: &mut [u32],
        is_fractional: &[bool],
        node_limit: u64,
    ) {
        // The neighbourhood: items the shim rounded (fractional or left
        // out), plus the picked items that give up GPUs most cheaply (the
        // smallest weight lost per GPU freed by their best downgrade), which
        // is where an exact answer usually differs from the rounded one.
        let n = self.items.len();
        let mut at_risk: Vec<bool> = (0..n)
            .map(|i| self.items[i].forced.is_none() && (is_fractional[i] || pick[i].is_none()))
            .collect();
        let mut donors: Vec<(f64, usize)> = Vec::new();
        for i in 0..n {
            let (Some(c), None) = (pick[i], self.items[i].forced) else {
                continue;
            };
            if at_risk[i] {
                continue;
            }
            let it = &self.items[i];
            let size = |ch: &Choice| ch.usage.iter().map(|(_, a)| *a).sum::<u32>();
            let cur = &it.choices[c];
            let mut best = cur.weight / size(cur).max(1) as f64; // dropping the item
            for ch in &it.choices {
                let freed = size(cur) as f64 - size(ch) as f64;
                if freed > 0.0
                    && ch
                        .usage
                        .iter()
                        .all(|(r, _)| cur.usage.iter().any(|(rr, _)| rr == r))
                {
                    best = best.min((cur.weight - ch.weight) / freed);
                }
            }
            donors.push((best, i));
        }
        schedlab_core::sorting::sort_by(&mut donors, |a, b| {
            a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
        });
        for (_, i) in donors.into_iter().take(REPAIR_DONORS) {
            at_risk[i] = true;
        }
        let mut avail = cap.to_vec();
        for i in 0..n {
            if let (true, Some(c)) = (at_risk[i], pick[i]) {
                for (r, a) in &self.items[i].choices[c].usage {
                    avail[*r] += a;
                }
            }
        }
        let before: f64 = (0..n)
            .filter(|&i| at_risk[i])
            .filter_map(|i| pick[i].map(|c| self.items[i].choices[c].weight))
            .sum();
        let (m, vars) = self.model(&avail, Some(&at_risk));
        if m.num_vars() > 0 {
            let opts = SolveOptions {
                node_limit: Some(node_limit),
                ..SolveOptions::default()
            };
            if let Ok(sol) = m.solve(&opts) {
                if sol.objective > before + 1e-12 {
                    for i in 0..n {
                        if at_risk[i] {
                            pick[i] = None;
                        }
                    }
                    let mut left = avail.clone();
                    for (i, c, v) in &vars {
                        if sol.value(*v) > 0.5 {
                            pick[*i] = Some(*c);
                            for (r, a) in &self.items[*i].choices[*c].usage {
                                left[*r] -= a;
                            }
                        }
                    }
                    cap.copy_from_slice(&left);
                }
            }
        }
        self.fill(pick, cap);
        self.upgrade(pick, cap);
    }

    /// 1-opt: moves any item to a heavier option that fits in the leftover
    /// capacity plus what it frees, until nothing improves.
    fn upgrade(&self, pick: &mut [Option<usize>], cap: &mut [u32]) {
        loop {
            let mut improved = false;
            for (i, it) in self.items.iter().enumerate() {
                if it.forced.is_some() {
                    continue;
                }
                let cur_w = pick[i].map_or(0.0, |c| it.choices[c].weight);
                let mut avail = cap.to_vec();
                if let Some(c) = pick[i] {
                    for (r, a) in &it.choices[c].usage {
                        avail[*r] += a;
                    }
                }
                let best = it
                    .choices
                    .iter()
                    .enumerate()
                    .filter(|(_, ch)| {
                        ch.weight > cur_w + 1e-12 && ch.usage.iter().all(|(r, a)| *a <= avail[*r])
                    })
                    .max_by(|a, b| a.1.weight.total_cmp(&b.1.weight).then(b.0.cmp(&a.0)));
                if let Some((c, ch)) = best {
                    for (r, a) in &ch.usage {
                        avail[*r] -= a;
                    }
                    cap.copy_from_slice(&avail);
                    pick[i] = Some(c);
                    improved = true;
                }
            }
            if !improved {
                return;
            }
        }
    }

    /// Gives unpicked items the best-density option that still fits.
    fn fill(&self, pick: &mut [Option<usize>], cap: &mut [u32]) {
        let mut cands: Vec<(f64, usize, usize)> = Vec::new();
        for (i, it) in self.items.iter().enumerate() {
            if pick[i].is_some() || it.forced.is_some() {
                continue;
            }
            for (c, ch) in it.choices.iter().enumerate() {
                if ch.weight > 0.0 {
                    let size: u32 = ch.usage.iter().map(|(_, a)| *a).sum::<u32>().max(1);
                    cands.push((ch.weight / size as f64, i, c));
                }
            }
        }
        schedlab_core::sorting::sort_by(&mut cands, |a, b| {
            b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2))
        });
        for (_, i, c) in cands {
            if pick[i].is_some() {
                continue;
            }
            let ch = &self.items[i].choices[c];
            if ch.usage.iter().all(|(r, a)| *a <= cap[*r]) {
                for (r, a) in &ch.usage {
                    cap[*r] -= a;
                }
                pick[i] = Some(c);
            }
        }
    }

    fn greedy(&self) -> Result<MckResult, String> {
        let mut cap = self.residual()?;
        let mut pick = self.base_pick();
        self.fill(&mut pick, &mut cap);
        Ok(MckResult {
            objective: self.objective_of(&pick),
            pick,
            method: Method::Greedy,
            fallback: None,
            fractional_items: 0,
            optimal: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ch(weight: f64, usage: &[(usize, u32)]) -> Choice {
        Choice {
            weight,
            usage: usage.to_vec(),
        }
    }

    /// The Sia thesis' running example (§3.3.4, Table 3.1 values, p = 1):
    /// A = 1 node x 2 GPUs (resource 0), B = 1 node x 4 GPUs (resource 1).
    /// The optimum puts J1 on (1,4,B) and J2 on (1,2,A), total 5.6.
    #[test]
    fn sia_running_example() {
        let configs = [(0usize, 1u32), (0, 2), (1, 1), (1, 2), (1, 4)];
        let j1 = [1.0, 1.5, 1.5, 2.5, 3.5];
        let j2 = [1.2, 2.1, 1.0, 1.9, 3.6];
        let item = |g: &[f64]| Item {
            choices: configs
                .iter()
                .zip(g)
                .map(|((r, n), w)| ch(*w, &[(*r, *n)]))
                .collect(),
            forced: None,
        };
        let p = Mck {
            items: vec![item(&j1), item(&j2)],
            capacity: vec![2, 4],
        };
        for m in [Method::Exact, Method::LpShim] {
            let r = p.solve(m, 1000);
            assert_eq!(r.pick, vec![Some(4), Some(1)], "{m:?}");
            assert!((r.objective - 5.6).abs() < 1e-9);
            assert!(r.fallback.is_none());
        }
    }

    #[test]
    fn forced_options_are_kept_and_capacity_respected() {
        let p = Mck {
            items: vec![
                Item {
                    choices: vec![ch(1.0, &[(0, 3)])],
                    forced: Some(0),
                },
                Item {
                    choices: vec![ch(5.0, &[(0, 2)]), ch(2.0, &[(0, 1)])],
                    forced: None,
                },
            ],
            capacity: vec![4],
        };
        for m in [
            Method::Exact,
            Method::LpShim,
            Method::LpShimPlain,
            Method::Greedy,
        ] {
            let r = p.solve(m, 1000);
            assert_eq!(r.pick, vec![Some(0), Some(1)], "{m:?}");
            p.check(&r.pick).unwrap();
        }
        assert!(p.check(&[None, Some(0)]).is_err());
        assert!(p.check(&[Some(0), Some(0)]).is_err());
    }

    /// Random problems: `resources` kinds, `items` items of up to 6 options
    /// (some using two kinds, some of weight 0), one in five items forced
    /// when that still fits.
    fn random_problem(seed: u64, items: usize, resources: usize, cap: u32) -> Mck {
        let mut rng = schedlab_core::rng::Sampler::new(seed);
        let capacity = vec![cap; resources];
        let mut left = capacity.clone();
        let items = (0..items)
            .map(|_| {
                let choices: Vec<Choice> = (0..1 + rng.below(6))
                    .map(|_| {
                        let r = rng.below(resources as u64) as usize;
                        let mut usage = vec![(r, 1 + rng.below(cap as u64 / 2) as u32)];
                        if resources > 1 && rng.uniform() < 0.2 {
                            usage.push(((r + 1) % resources, 1 + rng.below(3) as u32));
                        }
                        let weight = if rng.uniform() < 0.1 {
                            0.0
                        } else {
                            rng.uniform() * 3.0
                        };
                        Choice { weight, usage }
                    })
                    .collect();
                let fits = choices[0].usage.iter().all(|(r, a)| *a <= left[*r]);
                let forced = (rng.uniform() < 0.2 && fits).then(|| {
                    for (r, a) in &choices[0].usage {
                        left[*r] -= a;
                    }
                    0
                });
                Item { choices, forced }
            })
            .collect();
        Mck { items, capacity }
    }

    /// Every pick by enumeration: the optimum's value.
    fn brute_force(p: &Mck) -> f64 {
        fn go(p: &Mck, i: usize, pick: &mut Vec<Option<usize>>, best: &mut f64) {
            if i == p.items.len() {
                if p.check(pick).is_ok() {
                    *best = best.max(p.objective_of(pick));
                }
                return;
            }
            let options: Vec<Option<usize>> = match p.items[i].forced {
                Some(f) => vec![Some(f)],
                None => std::iter::once(None)
                    .chain((0..p.items[i].choices.len()).map(Some))
                    .collect(),
            };
            for o in options {
                pick.push(o);
                go(p, i + 1, pick, best);
                pick.pop();
            }
        }
        let mut best = f64::NEG_INFINITY;
        go(p, 0, &mut Vec::new(), &mut best);
        best
    }

    /// The structured search, the capacity table and microlp's branch and
    /// bound each find the enumerated optimum of small random problems.
    #[test]
    fn exact_methods_find_the_enumerated_optimum() {
        for seed in 0..60 {
            let p = random_problem(seed, 2 + seed as usize % 5, 1 + seed as usize % 3, 8);
            let best = brute_force(&p);
            let left = p.residual().unwrap();
            let mut general = p.base_pick();
            assert!(p.general_optimum(&left, 100_000, &mut general).unwrap());
            let mut by_search = p.base_pick();
            let found = super::super::mck_exact::solve(&p, &left, u64::MAX).unwrap();
            for (a, b) in by_search.iter_mut().zip(found) {
                *a = a.or(b);
            }
            let mut by_table = p.base_pick();
            for (a, b) in by_table
                .iter_mut()
                .zip(super::super::mck_dp::solve(&p, &left).unwrap())
            {
                *a = a.or(b);
            }
            let exact = p.solve(Method::Exact, 1000);
            for (name, pick) in [
                ("search", &by_search),
                ("table", &by_table),
                ("microlp", &general),
                ("exact", &exact.pick),
            ] {
                p.check(pick)
                    .unwrap_or_else(|e| panic!("seed {seed} {name}: {e}"));
                let v = p.objective_of(pick);
                assert!(
                    (v - best).abs() <= 1e-9 * best.abs().max(1.0),
                    "seed {seed} {name}: {v} against {best}"
                );
            }
            assert!(exact.optimal && exact.fallback.is_none());
        }
    }

    /// On problems too big to enumerate (Sia-sized: 25 items, three kinds
    /// of 24, 24 and 16 GPUs) the three methods agree; a search that runs
    /// out of nodes says so instead of answering.
    #[test]
    fn exact_methods_agree_on_crowded_rounds() {
        for seed in 0..6 {
            let mut p = random_problem(100 + seed, 25, 3, 24);
            p.capacity[2] = 16;
            for it in &mut p.items {
                it.forced = None;
                it.choices
                    .retain(|ch| ch.usage.iter().all(|(r, a)| *a <= p.capacity[*r]));
            }
            let left = p.residual().unwrap();
            let value = |found: Vec<Option<usize>>| {
                p.check(&found).unwrap();
                p.objective_of(&found)
            };
            let search = value(super::super::mck_exact::solve(&p, &left, u64::MAX).unwrap());
            let table = value(super::super::mck_dp::solve(&p, &left).unwrap());
            let mut general = p.base_pick();
            p.general_optimum(&left, 1_000_000, &mut general).unwrap();
            let general = value(general);
            assert!(
                (search - table).abs() <= 1e-9 * table,
                "seed {seed}: {search} vs {table}"
            );
            // microlp stops within its 1e-6 gap.
            assert!(
                general <= table + 1e-9 * table && general >= table * (1.0 - 1e-6),
                "seed {seed}"
            );
            assert!(super::super::mck_exact::solve(&p, &left, 3).is_none());
        }
    }

    /// Past the search's depth limit the table answers, and the optimum
    /// of a problem whose items do not compete (a capacity for all) is
    /// every item's heaviest option.
    #[test]
    fn many_items_go_to_the_table_without_recursing_deeply() {
        let n = super::super::mck_exact::MAX_ITEMS + 500;
        let p = Mck {
            items: (0..n)
                .map(|i| Item {
                    choices: vec![ch(1.0, &[(0, 1)]), ch(1.5 + (i % 7) as f64, &[(0, 2)])],
                    forced: None,
                })
                .collect(),
            capacity: vec![2 * n as u32],
        };
        let left = p.residual().unwrap();
        assert!(super::super::mck_exact::solve(&p, &left, u64::MAX).is_none());
        let r = p.solve(Method::Exact, 10);
        assert!(r.optimal && r.fallback.is_none());
        assert!(r.pick.iter().all(|c| *c == Some(1)));
    }
}
