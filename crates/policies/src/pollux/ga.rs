//! Pollux's genetic search (spec seed004 §3.3; Pollux OSDI'21 §4.2): an
//! elitist genetic algorithm over integer matrices X[job, virtual node] of
//! replicas, maximising the power mean (p = -1) of per-job speedups over a
//! fair share, with Pollux's crossover, mutation and repair operators.
//! The survival step is either NSGA-II's over fitness and cluster utility
//! (the artifact's pymoo optimiser; `nsga`) or plain elitism by fitness.
//! Either way the policy takes the fittest individual.

use super::nsga;
use super::vnodes::VNode;
use hashbrown::HashTable;
use schedlab_core::num;
use schedlab_core::rng::Sampler;
use std::cell::Cell;

/// Mating batches per generation before giving up on finding new distinct
/// offspring (pymoo retries up to 100 times; a converged population rarely
/// needs more than a few).
const MATING_ROUNDS: usize = 10;

/// Everything the search needs about one round.
pub struct Round<'a> {
    pub vnodes: &'a [VNode],
    /// Current allocation per job (replicas per virtual node).
    pub current: Vec<Vec<u8>>,
    pub min_rep: Vec<u32>,
    pub max_rep: Vec<u32>,
    /// Rows that may not change (non-preemptible running jobs).
    pub frozen: Vec<bool>,
    /// Speedup multiplier when a job's row changes (Pollux's restart penalty).
    pub restart_mult: Vec<f64>,
    /// Speedup of job j on n virtual nodes with k replicas, relative to its
    /// fair share (the search memoises the terms built on it: `Terms`).
    pub speedup: &'a dyn Fn(usize, u32, u32) -> f64,
    /// Fitness power (p = -1: harmonic mean).
    pub p: f64,
    /// Most virtual nodes one job may use.
    pub max_nodes: u32,
    /// Discard individuals equal to a member (pymoo's eliminate_duplicates).
    pub distinct: bool,
    /// How each generation's survivors are chosen.
    pub survival: Survival,
}

/// How a generation's survivors (and parents) are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Survival {
    /// NSGA-II over (fitness, cluster utility): rank and crowding survival,
    /// dominance tournaments (pymoo, as the artifact runs it).
    Nsga2,
    /// The fittest individuals survive; tournaments by fitness.
    Fitness,
}

pub type Individual = Vec<u8>;

/// Buffers the operators reuse from child to child: a round's matrices are
/// small (about 8 jobs x 16 virtual nodes in the Sia workloads), so
/// allocating them per child cost more than the work.
#[derive(Default)]
struct Scratch {
    used: Vec<u32>,
    holders: Vec<usize>,
    nodes: Vec<usize>,
    spread: Vec<u32>,
    spread_now: Vec<usize>,
    crowd: Vec<u32>,
    /// Whether `used` holds the column sums of the individual being
    /// repaired (the mutation leaves them), which the repair then reuses.
    used_fresh: bool,
}

impl Round<'_> {
    fn jobs(&self) -> usize {
        self.current.len()
    }

    fn v(&self) -> usize {
        self.vnodes.len()
    }

    /// GPUs taken on each virtual node (summed row by row: the matrix is
    /// stored by job).
    fn column_sums(&self, x: &[u8], used: &mut Vec<u32>) {
        let v = self.v();
        used.clear();
        used.resize(v, 0);
        for row in x.chunks_exact(v.max(1)) {
            for (u, r) in used.iter_mut().zip(row) {
                *u += *r as u32;
            }
        }
    }

    /// The power mean of speedups (higher is better).
    pub fn fitness(&self, x: &Individual) -> f64 {
        self.fitness_with(x, &Terms::new(self))
    }

    /// The fitness of each individual, sharing the memoised terms (reasons).
    pub fn fitness_of_all(&self, xs: &[Individual]) -> Vec<f64> {
        let terms = Terms::new(self);
        xs.iter().map(|x| self.fitness_with(x, &terms)).collect()
    }

    /// [`Round::fitness`] with each job's term looked up in `terms`: a
    /// search scores millions of children whose rows repeat a few
    /// (nodes, replicas) shapes, and the power is the costly part.
    fn fitness_with(&self, x: &[u8], terms: &Terms) -> f64 {
        let (jn, v) = (self.jobs(), self.v());
        if jn == 0 {
            return 0.0;
        }
        let mut sum = 0.0;
        for j in 0..jn {
            let row = &x[j * v..(j + 1) * v];
            let (mut k, mut n) = (0u32, 0u32);
            for &r in row {
                k += r as u32;
                n += (r > 0) as u32;
            }
            let changed = !same_cells(row, &self.current[j]);
            sum += terms.get(j, n, k, changed, || self.term(j, n, k, changed));
        }
        self.fitness_of_sum(sum)
    }

    /// The power mean from the sum of every job's term.
    pub(super) fn fitness_of_sum(&self, sum: f64) -> f64 {
        let mean = sum / self.jobs() as f64;
        if self.p == 0.0 {
            num::exp(mean)
        } else {
            num::pow(mean, 1.0 / self.p)
        }
    }

    /// Job `j`'s term of the power mean with `k` replicas on `n` nodes.
    fn term(&self, j: usize, n: u32, k: u32, changed: bool) -> f64 {
        let mut s = if k == 0 { 0.0 } else { (self.speedup)(j, n, k) };
        if changed {
            s *= self.restart_mult[j];
        }
        self.term_of_speedup(s)
    }

    /// A job's term of the power mean at speedup `s` (restart factor
    /// applied).
    pub(super) fn term_of_speedup(&self, s: f64) -> f64 {
        if self.p == 0.0 {
            num::ln(s + 1e-3)
        } else {
            num::pow(s + 1e-3, self.p)
        }
    }

    /// Cluster utility: allocated GPUs over the GPUs of the (virtual) nodes
    /// in use (1 when nothing is allocated), Pollux's second objective.
    pub fn utility(&self, x: &[u8]) -> f64 {
        let (jn, v) = (self.jobs(), self.v());
        let (mut used, mut offered) = (0u32, 0u32);
        for c in 0..v {
            let here: u32 = (0..jn).map(|j| x[j * v + c] as u32).sum();
            if here > 0 {
                used += here;
                offered += self.vnodes[c].gpus;
            }
        }
        if offered == 0 {
            1.0
        } else {
            used as f64 / offered as f64
        }
    }

    /// Enforces node capacity, per-job replica and node limits, at most one
    /// distributed job per node and minimum replicas.
    fn repair(&self, x: &mut Individual, rng: &mut Sampler, scratch: &mut Scratch) {
        self.restore_frozen(x, scratch);
        self.trim_columns(x, rng, scratch);
        self.limit_rows(x, rng, scratch);
        self.one_distributed_per_node(x, scratch);
        self.raise_short_rows(x);
    }

    /// Frozen rows go back to the current allocation, and the column sums
    /// are made ready for [`Round::trim_columns`]: the mutation's, corrected
    /// for those rows, or taken afresh.
    fn restore_frozen(&self, x: &mut [u8], scratch: &mut Scratch) {
        let v = self.v();
        let fresh = std::mem::take(&mut scratch.used_fresh);
        for j in (0..self.jobs()).filter(|&j| self.frozen[j]) {
            let row = &mut x[j * v..(j + 1) * v];
            if fresh {
                for ((u, r), cur) in scratch.used.iter_mut().zip(&*row).zip(&self.current[j]) {
                    *u = *u - *r as u32 + *cur as u32;
                }
            }
            row.copy_from_slice(&self.current[j]);
        }
        if !fresh {
            self.column_sums(x, &mut scratch.used);
        }
    }

    /// Capacity of each virtual node: a random holder loses one GPU until
    /// the column fits (frozen rows are never trimmed). Trimming column c
    /// changes only its own sum, so every sum is taken up front. The holder
    /// list (jobs in order) is kept as trimming empties cells, the same list
    /// a rescan per trim would give, so the draws are unchanged.
    fn trim_columns(&self, x: &mut [u8], rng: &mut Sampler, scratch: &mut Scratch) {
        let (jn, v) = (self.jobs(), self.v());
        let holders = &mut scratch.holders;
        for c in 0..v {
            let cap = self.vnodes[c].gpus;
            let mut used = scratch.used[c];
            if used <= cap {
                continue;
            }
            holders.clear();
            holders.extend((0..jn).filter(|&j| x[j * v + c] > 0 && !self.frozen[j]));
            while used > cap && !holders.is_empty() {
                let i = rng.below(holders.len() as u64) as usize;
                let cell = &mut x[holders[i] * v + c];
                *cell -= 1;
                used -= 1;
                if *cell == 0 {
                    holders.remove(i);
                }
            }
        }
    }

    /// Per job: random replicas go until the job's maximum holds, then
    /// random nodes until its node limit holds (node list kept as in
    /// [`Round::trim_columns`]). Each job's spread (nodes in use) is what
    /// this pass leaves, in `scratch.spread`.
    fn limit_rows(&self, x: &mut [u8], rng: &mut Sampler, scratch: &mut Scratch) {
        let (jn, v) = (self.jobs(), self.v());
        let Scratch { nodes, spread, .. } = scratch;
        spread.clear();
        for j in 0..jn {
            let row = &mut x[j * v..(j + 1) * v];
            let (mut k, mut n) = (0u32, 0u32);
            for &r in row.iter() {
                k += r as u32;
                n += (r > 0) as u32;
            }
            let fits = k <= self.max_rep[j] && n <= self.max_nodes;
            if self.frozen[j] || fits {
                spread.push(n);
                continue;
            }
            nodes.clear();
            nodes.extend((0..v).filter(|&c| row[c] > 0));
            loop {
                if k > self.max_rep[j] {
                    let i = rng.below(nodes.len() as u64) as usize;
                    let c = nodes[i];
                    row[c] -= 1;
                    k -= 1;
                    if row[c] == 0 {
                        nodes.remove(i);
                    }
                } else if nodes.len() as u32 > self.max_nodes {
                    let c = nodes.remove(rng.below(nodes.len() as u64) as usize);
                    k -= row[c] as u32;
                    row[c] = 0;
                } else {
                    break;
                }
            }
            spread.push(nodes.len() as u32);
        }
    }

    /// At most one distributed (multi-node) job per virtual node: the one
    /// with the most replicas there stays. Only jobs on several nodes now
    /// can be distributed on any node (spreads only fall below), so the scan
    /// is over them alone, and needs two of them.
    fn one_distributed_per_node(&self, x: &mut [u8], scratch: &mut Scratch) {
        let (jn, v) = (self.jobs(), self.v());
        let Scratch {
            spread,
            spread_now,
            crowd,
            ..
        } = scratch;
        spread_now.clear();
        spread_now.extend((0..jn).filter(|&j| spread[j] > 1));
        if spread_now.len() < 2 {
            return;
        }
        // Distributed jobs per column, counted once: the rule only removes
        // cells and spreads, so a column with fewer than two now never
        // becomes contested and is skipped.
        crowd.clear();
        crowd.resize(v, 0);
        for &j in spread_now.iter() {
            for (n, r) in crowd.iter_mut().zip(&x[j * v..(j + 1) * v]) {
                *n += (*r > 0) as u32;
            }
        }
        for c in (0..v).filter(|&c| crowd[c] > 1) {
            // The keeper: most replicas here, then frozen, then lowest index.
            let distributed_here = |j: usize| x[j * v + c] > 0 && spread[j] > 1;
            let rank = |j: usize| (x[j * v + c], self.frozen[j], std::cmp::Reverse(j));
            let mut here = spread_now.iter().copied().filter(|&j| distributed_here(j));
            let Some(first) = here.next() else { continue };
            let mut count = 1;
            let keep = here.fold(first, |best, j| {
                count += 1;
                if rank(j) > rank(best) {
                    j
                } else {
                    best
                }
            });
            if count < 2 {
                continue;
            }
            for &j in spread_now.iter() {
                if j != keep && !self.frozen[j] && x[j * v + c] > 0 && spread[j] > 1 {
                    x[j * v + c] = 0;
                    spread[j] -= 1;
                }
            }
        }
    }

    /// Rows short of their minimum replicas are raised to it, or emptied
    /// when that cannot be done (a minimum of one always holds).
    fn raise_short_rows(&self, x: &mut Individual) {
        let v = self.v();
        for j in (0..self.jobs()).filter(|&j| !self.frozen[j] && self.min_rep[j] > 1) {
            let k: u32 = x[j * v..(j + 1) * v].iter().map(|r| *r as u32).sum();
            if k > 0 && k < self.min_rep[j] && !self.raise_to_min(x, j) {
                x[j * v..(j + 1) * v].iter_mut().for_each(|r| *r = 0);
            }
        }
    }

    /// Grows row `j` to its minimum replicas on free GPUs (its own nodes
    /// first, then the freest), keeping every other repair rule. Without it
    /// a job whose minimum spans many nodes (a rigid 7-GPU job on 1-GPU
    /// nodes) is practically never drawn whole by mutation and starves.
    /// Returns false (row untouched) when the minimum cannot be reached.
    fn raise_to_min(&self, x: &mut Individual, j: usize) -> bool {
        let (jn, v) = (self.jobs(), self.v());
        let spread =
            |x: &Individual, i: usize| x[i * v..(i + 1) * v].iter().filter(|r| **r > 0).count();
        let free: Vec<u32> = (0..v)
            .map(|c| {
                let used: u32 = (0..jn).map(|i| x[i * v + c] as u32).sum();
                self.vnodes[c].gpus.saturating_sub(used)
            })
            .collect();
        // Nodes hosting another distributed job cannot take j if j spreads.
        let shared: Vec<bool> = (0..v)
            .map(|c| (0..jn).any(|i| i != j && x[i * v + c] > 0 && spread(x, i) > 1))
            .collect();
        let mut order: Vec<usize> = (0..v).collect();
        schedlab_core::sorting::sort_by_key(&mut order, |&c| {
            (x[j * v + c] == 0, std::cmp::Reverse(free[c]), c)
        });
        let mut row: Vec<u32> = x[j * v..(j + 1) * v].iter().map(|r| *r as u32).collect();
        let mut k: u32 = row.iter().sum();
        let target = self.min_rep[j].min(self.max_rep[j]);
        for &c in &order {
            if k >= target {
                break;
            }
            let add = free[c].min(target - k).min(u8::MAX as u32 - row[c]);
            if add == 0 {
                continue;
            }
            row[c] += add;
            k += add;
        }
        let nodes: Vec<usize> = (0..v).filter(|&c| row[c] > 0).collect();
        let ok = k >= self.min_rep[j]
            && nodes.len() as u32 <= self.max_nodes
            && (nodes.len() <= 1 || nodes.iter().all(|&c| !shared[c]));
        if ok {
            for c in 0..v {
                x[j * v + c] = row[c] as u8;
            }
        }
        ok
    }

    /// Pollux's mutations: reset rows to the current allocation, zero
    /// random elements, add replicas on virtual nodes with free GPUs.
    fn mutate(&self, x: &mut Individual, rng: &mut Sampler, scratch: &mut Scratch) {
        let (jn, v) = (self.jobs(), self.v());
        for j in 0..jn {
            if rng.chance(0.1) {
                x[j * v..(j + 1) * v].copy_from_slice(&self.current[j]);
            }
            if rng.chance(0.1) {
                for c in 0..v {
                    if rng.chance(0.1) {
                        x[j * v + c] = 0;
                    }
                }
            }
        }
        if jn == 0 {
            return;
        }
        // Adding to column c changes only its own sum, which is kept for
        // the repair.
        self.column_sums(x, &mut scratch.used);
        for c in 0..v {
            let used = scratch.used[c];
            if used < self.vnodes[c].gpus && rng.chance(0.5) {
                let j = rng.below(jn as u64) as usize;
                let free = self.vnodes[c].gpus - used;
                let cell = &mut x[j * v + c];
                let before = *cell as u32;
                *cell += 1 + rng.below(free as u64) as u8;
                scratch.used[c] = used - before + *cell as u32;
            }
        }
        scratch.used_fresh = true;
    }

    /// Single-point crossover over jobs, into `child`.
    fn crossover(&self, a: &[u8], b: &[u8], rng: &mut Sampler, child: &mut Individual) {
        let (jn, v) = (self.jobs(), self.v());
        let cut = if jn == 0 {
            0
        } else {
            rng.below(jn as u64 + 1) as usize
        };
        child.clear();
        child.extend_from_slice(&a[..cut * v]);
        child.extend_from_slice(&b[cut * v..jn * v]);
    }

    /// Runs the search from `seeds` (warm start) and returns the best
    /// individual and the final population. With `distinct`, as in pymoo's
    /// NSGA-II (the artifact's optimiser, `eliminate_duplicates=True`), the
    /// population holds distinct individuals only: a seed, mutant or child
    /// equal to a member (or to another child of the same generation) is
    /// discarded and mating is retried, up to `MATING_ROUNDS` batches per
    /// generation.
    pub fn search(
        &self,
        seeds: Vec<Individual>,
        population: usize,
        generations: usize,
        rng: &mut Sampler,
    ) -> (Individual, Vec<Individual>) {
        let size = self.jobs() * self.v();
        let nsga2 = self.survival == Survival::Nsga2;
        let terms = Terms::new(self);
        let score = |x: &[u8]| -> nsga::Objectives {
            let fitness = self.fitness_with(x, &terms);
            [fitness, if nsga2 { self.utility(x) } else { 0.0 }]
        };
        let mut store = Store::new(size, population * 2 + 1, self.distinct);
        let mut pop: Vec<Member> = Vec::with_capacity(population * 2);
        let mut scratch = Scratch::default();
        let current = self.current.concat();
        let current_slot = store.add(&current);
        pop.push((score(&current), current_slot));
        for mut s in seeds.into_iter().filter(|s| s.len() == size) {
            self.repair(&mut s, rng, &mut scratch);
            if let Some(slot) = store.admit(&s) {
                pop.push((score(&s), slot));
            }
        }
        let mut x = Individual::with_capacity(size);
        let mut attempts = 0;
        while pop.len() < population && attempts < population * MATING_ROUNDS {
            attempts += 1;
            x.clone_from(&current);
            self.mutate(&mut x, rng, &mut scratch);
            self.repair(&mut x, rng, &mut scratch);
            if let Some(slot) = store.admit(&x) {
                pop.push((score(&x), slot));
            }
        }
        // Crowding distances of the current population (NSGA-II only).
        let mut crowd: Vec<f64> = Vec::new();
        if nsga2 {
            let objs: Vec<_> = pop.iter().map(|p| p.0).collect();
            let keep = pop.len();
            let (order, distance) = nsga::survive(&objs, keep, rng);
            crowd = order.iter().map(|&i| distance[i]).collect();
            pop = reorder(pop, &order);
        }
        let mut objs: Vec<nsga::Objectives> = Vec::new();
        let mut kids = Vec::with_capacity(population);
        let mut spare = Vec::with_capacity(population);
        let child = &mut x;
        for _ in 0..generations {
            objs.clear();
            objs.extend(pop.iter().map(|p| p.0));
            kids.clear();
            let mut attempts = 0;
            while kids.len() < population && attempts < population * MATING_ROUNDS {
                attempts += 1;
                let (a, b) = if nsga2 {
                    (
                        nsga::tournament(&objs, &crowd, rng),
                        nsga::tournament(&objs, &crowd, rng),
                    )
                } else {
                    (fitter_of_two(&objs, rng), fitter_of_two(&objs, rng))
                };
                self.crossover(store.get(pop[a].1), store.get(pop[b].1), rng, child);
                self.mutate(child, rng, &mut scratch);
                self.repair(child, rng, &mut scratch);
                if let Some(slot) = store.admit(child) {
                    kids.push((score(child), slot));
                }
            }
            let survivors = population.min(pop.len() + kids.len());
            if nsga2 {
                pop.append(&mut kids);
                objs.clear();
                objs.extend(pop.iter().map(|p| p.0));
                let (order, distance) = nsga::survive(&objs, survivors, rng);
                crowd = order.iter().map(|&i| distance[i]).collect();
                let mut kept = vec![false; pop.len()];
                order.iter().for_each(|&i| kept[i] = true);
                for (i, &(_, slot)) in pop.iter().enumerate() {
                    if !kept[i] {
                        store.remove(slot);
                    }
                }
                pop = reorder(pop, &order);
            } else {
                keep_fittest(&mut pop, &mut kids, survivors, &mut store, &mut spare);
            }
        }
        if !nsga2 {
            // Sorted already after a generation (the sort then only checks).
            pop.sort_by(fitter);
        }
        // The fittest individual (the first on ties).
        let mut best = 0;
        for (i, p) in pop.iter().enumerate() {
            if p.0[0] > pop[best].0[0] {
                best = i;
            }
        }
        let best = store.get(pop[best].1).to_vec();
        (
            best,
            pop.iter()
                .map(|&(_, slot)| store.get(slot).to_vec())
                .collect(),
        )
    }
}

/// A memo of fitness terms per (job, nodes, replicas, changed), for one
/// round (NaN: not computed yet). Shapes past its bounds (rows that are
/// never repaired, such as the current allocation) are computed each time.
struct Terms {
    nodes: usize,
    replicas: usize,
    values: Vec<Cell<f64>>,
}

impl Terms {
    fn new(round: &Round) -> Terms {
        // Repaired rows span at most `max_nodes`, which keeps large
        // clusters' tables small.
        let nodes = round.v().min(round.max_nodes as usize) + 1;
        let replicas = round.max_rep.iter().copied().max().unwrap_or(0) as usize + 1;
        Terms {
            nodes,
            replicas,
            values: vec![Cell::new(f64::NAN); round.jobs() * nodes * replicas * 2],
        }
    }

    fn get(&self, j: usize, n: u32, k: u32, changed: bool, term: impl Fn() -> f64) -> f64 {
        let (n, k) = (n as usize, k as usize);
        if n >= self.nodes || k >= self.replicas {
            return term();
        }
        let cell = &self.values[((j * self.nodes + n) * self.replicas + k) * 2 + changed as usize];
        let known = cell.get();
        if !known.is_nan() {
            return known;
        }
        let t = term();
        cell.set(t);
        t
    }
}

/// Where a member of the population lives in the [`Store`].
type Slot = u32;

/// The search's individuals, `size` cells each, in the slots of one buffer,
/// and (with `distinct`) the set of them: a child is built in a scratch row
/// and copied in only when admitted, so the search allocates nothing per
/// child, and each individual is hashed once.
struct Store {
    size: usize,
    cells: Vec<u8>,
    hashes: Vec<u64>,
    free: Vec<Slot>,
    /// With `distinct`: the slots of the members, found by content.
    members: Option<HashTable<Slot>>,
}

impl Store {
    fn new(size: usize, capacity: usize, distinct: bool) -> Store {
        Store {
            size,
            cells: Vec::with_capacity(size * capacity),
            hashes: Vec::with_capacity(capacity),
            free: Vec::new(),
            members: distinct.then(|| HashTable::with_capacity(capacity)),
        }
    }

    fn get(&self, slot: Slot) -> &[u8] {
        let at = slot as usize * self.size;
        &self.cells[at..at + self.size]
    }

    /// Stores `x` unless `distinct` holds and an equal member is stored.
    fn admit(&mut self, x: &[u8]) -> Option<Slot> {
        let hash = self.hash(x);
        if let Some(members) = &self.members {
            if members
                .find(hash, |&s| same_cells(self.get(s), x))
                .is_some()
            {
                return None;
            }
        }
        Some(self.add_hashed(x, hash))
    }

    /// Stores `x` (a member even if an equal one is stored).
    fn add(&mut self, x: &[u8]) -> Slot {
        self.add_hashed(x, self.hash(x))
    }

    /// `x`'s hash where the set of members needs it (0 without `distinct`).
    fn hash(&self, x: &[u8]) -> u64 {
        if self.members.is_some() {
            hash_cells(x)
        } else {
            0
        }
    }

    fn add_hashed(&mut self, x: &[u8], hash: u64) -> Slot {
        let slot = match self.free.pop() {
            Some(slot) => {
                let at = slot as usize * self.size;
                self.cells[at..at + self.size].copy_from_slice(x);
                self.hashes[slot as usize] = hash;
                slot
            }
            None => {
                self.cells.extend_from_slice(x);
                self.hashes.push(hash);
                (self.hashes.len() - 1) as Slot
            }
        };
        if let Some(members) = &mut self.members {
            let hashes = &self.hashes;
            members.insert_unique(hash, slot, |&s| hashes[s as usize]);
        }
        slot
    }

    /// Frees `slot` (its individual leaves the population).
    fn remove(&mut self, slot: Slot) {
        if let Some(members) = &mut self.members {
            if let Ok(entry) = members.find_entry(self.hashes[slot as usize], |&s| s == slot) {
                entry.remove();
            }
        }
        self.free.push(slot);
    }
}

/// Hashes the matrix eight cells at a time (FxHash's step) with a final
/// avalanche (murmur3's), so that every bit of the key is mixed: the table
/// takes its buckets from the low bits and its tags from the high.
fn hash_cells(x: &[u8]) -> u64 {
    const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let mut h = x.len() as u64;
    let mut words = x.chunks_exact(8);
    for w in &mut words {
        h = (h.rotate_left(5) ^ cell_word(w)).wrapping_mul(K);
    }
    for &b in words.remainder() {
        h = (h.rotate_left(5) ^ b as u64).wrapping_mul(K);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// Whether two rows (or matrices) are equal. Slice equality calls `memcmp`,
/// which in wasm is a byte loop (5% of Pollux's time in V8), so wasm builds
/// compare eight cells at a time; natively `memcmp` is faster than that.
#[cfg(not(target_arch = "wasm32"))]
#[inline]
fn same_cells(a: &[u8], b: &[u8]) -> bool {
    a == b
}

/// Whether two rows (or matrices) are equal, eight cells at a time.
#[cfg(any(test, target_arch = "wasm32"))]
#[inline]
fn same_cells_by_words(a: &[u8], b: &[u8]) -> bool {
    let (mut wa, mut wb) = (a.chunks_exact(8), b.chunks_exact(8));
    a.len() == b.len()
        && (&mut wa)
            .zip(&mut wb)
            .all(|(x, y)| cell_word(x) == cell_word(y))
        // Not `==`: for slices that is a call to `memcmp`, even when empty.
        && wa.remainder().iter().zip(wb.remainder()).all(|(x, y)| x == y)
}

/// Eight cells as one little-endian word.
#[inline]
fn cell_word(w: &[u8]) -> u64 {
    u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]])
}

#[cfg(target_arch = "wasm32")]
#[inline]
fn same_cells(a: &[u8], b: &[u8]) -> bool {
    same_cells_by_words(a, b)
}

/// A member of the population: its objectives and where it is stored.
type Member = (nsga::Objectives, Slot);

/// Orders members fittest first (by the first objective).
fn fitter(a: &Member, b: &Member) -> std::cmp::Ordering {
    b.0[0].total_cmp(&a.0[0])
}

/// Elitist survival: `pop` becomes the `keep` fittest of `pop` then `kids`,
/// in the order a stable sort of them all by [`fitter`] gives, and the rest
/// leave the store. From the second generation on `pop` is in that order
/// already, so the kids alone are sorted and merged into it (survivors
/// first on ties, as in the stable sort).
fn keep_fittest(
    pop: &mut Vec<Member>,
    kids: &mut Vec<Member>,
    keep: usize,
    store: &mut Store,
    spare: &mut Vec<Member>,
) {
    // The standard sort, not the page's shared one: this is the hot one.
    kids.sort_by(fitter);
    if !pop.windows(2).all(|w| fitter(&w[0], &w[1]).is_le()) {
        // The first generation: the initial population in its own order.
        pop.append(kids);
        pop.sort_by(fitter);
        for &(_, gone) in &pop[keep.min(pop.len())..] {
            store.remove(gone);
        }
        pop.truncate(keep);
        return;
    }
    spare.clear();
    let (mut i, mut j) = (0, 0);
    while spare.len() < keep && (i < pop.len() || j < kids.len()) {
        let kid_first = j < kids.len() && (i == pop.len() || fitter(&kids[j], &pop[i]).is_lt());
        if kid_first {
            spare.push(kids[j]);
            j += 1;
        } else {
            spare.push(pop[i]);
            i += 1;
        }
    }
    for &(_, gone) in pop[i..].iter().chain(&kids[j..]) {
        store.remove(gone);
    }
    kids.clear();
    std::mem::swap(pop, spare);
}

/// The fitter (first objective) of two random members.
fn fitter_of_two(objs: &[nsga::Objectives], rng: &mut Sampler) -> usize {
    let a = rng.below(objs.len() as u64) as usize;
    let b = rng.below(objs.len() as u64) as usize;
    if objs[a][0] >= objs[b][0] {
        a
    } else {
        b
    }
}

/// The members of `pop` at `order`, in that order.
fn reorder<T>(pop: Vec<T>, order: &[usize]) -> Vec<T> {
    let mut slots: Vec<Option<T>> = pop.into_iter().map(Some).collect();
    order.iter().filter_map(|&i| slots[i].take()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pollux::virtual_nodes;
    use schedlab_model::cluster::parse_cluster;
    use std::collections::HashSet;

    fn round<'a>(
        vnodes: &'a [VNode],
        speedup: &'a dyn Fn(usize, u32, u32) -> f64,
        distinct: bool,
    ) -> Round<'a> {
        round_with(vnodes, speedup, distinct, Survival::Fitness)
    }

    fn round_with<'a>(
        vnodes: &'a [VNode],
        speedup: &'a dyn Fn(usize, u32, u32) -> f64,
        distinct: bool,
        survival: Survival,
    ) -> Round<'a> {
        let jobs = 6;
        Round {
            vnodes,
            current: vec![vec![0; vnodes.len()]; jobs],
            min_rep: vec![1; jobs],
            max_rep: vec![8; jobs],
            frozen: vec![false; jobs],
            restart_mult: vec![0.9; jobs],
            speedup,
            p: -1.0,
            max_nodes: 16,
            distinct,
            survival,
        }
    }

    /// The repair as first written (every list rescanned after each trim),
    /// kept as the reference the incremental one must equal.
    fn repair_by_rescanning(r: &Round, x: &mut Individual, rng: &mut Sampler) {
        let (jn, v) = (r.jobs(), r.v());
        for j in 0..jn {
            if r.frozen[j] {
                x[j * v..(j + 1) * v].copy_from_slice(&r.current[j]);
            }
        }
        // Capacity of each virtual node (frozen rows are never trimmed).
        // Trimming column c changes only its own sum, so every sum can be
        // taken up front, row by row.
        let mut used_by_column = Vec::new();
        r.column_sums(x, &mut used_by_column);
        let mut holders: Vec<usize> = Vec::with_capacity(jn);
        for c in 0..v {
            let cap = r.vnodes[c].gpus;
            let mut used = used_by_column[c];
            while used > cap {
                holders.clear();
                holders.extend((0..jn).filter(|&j| x[j * v + c] > 0 && !r.frozen[j]));
                if holders.is_empty() {
                    break;
                }
                let j = holders[rng.below(holders.len() as u64) as usize];
                x[j * v + c] -= 1;
                used -= 1;
            }
        }
        let mut nodes: Vec<usize> = Vec::with_capacity(v);
        for j in (0..jn).filter(|&j| !r.frozen[j]) {
            let row = &mut x[j * v..(j + 1) * v];
            let mut k: u32 = row.iter().map(|r| *r as u32).sum();
            loop {
                nodes.clear();
                nodes.extend((0..v).filter(|&c| row[c] > 0));
                if k > r.max_rep[j] {
                    let c = nodes[rng.below(nodes.len() as u64) as usize];
                    row[c] -= 1;
                    k -= 1;
                } else if nodes.len() as u32 > r.max_nodes {
                    let c = nodes[rng.below(nodes.len() as u64) as usize];
                    k -= row[c] as u32;
                    row[c] = 0;
                } else {
                    break;
                }
            }
        }
        // At most one distributed (multi-node) job per virtual node: the
        // one with the most replicas there stays.
        let mut spread: Vec<u32> = (0..jn)
            .map(|j| x[j * v..(j + 1) * v].iter().filter(|r| **r > 0).count() as u32)
            .collect();
        // Only jobs on several nodes now can be distributed on any node
        // (spreads only fall below), so the scan is over them alone.
        let spread_now: Vec<usize> = (0..jn).filter(|&j| spread[j] > 1).collect();
        let mut dist: Vec<usize> = Vec::with_capacity(jn);
        for c in 0..v {
            dist.clear();
            dist.extend(
                spread_now
                    .iter()
                    .copied()
                    .filter(|&j| x[j * v + c] > 0 && spread[j] > 1),
            );
            if dist.len() > 1 {
                let keep = *dist
                    .iter()
                    .max_by(|a, b| {
                        x[**a * v + c]
                            .cmp(&x[**b * v + c])
                            .then(r.frozen[**a].cmp(&r.frozen[**b]))
                            .then(b.cmp(a))
                    })
                    .unwrap_or(&dist[0]);
                for &j in &dist {
                    if j != keep && !r.frozen[j] {
                        x[j * v + c] = 0;
                        spread[j] -= 1;
                    }
                }
            }
        }
        for j in (0..jn).filter(|&j| !r.frozen[j]) {
            let k: u32 = x[j * v..(j + 1) * v].iter().map(|r| *r as u32).sum();
            if k > 0 && k < r.min_rep[j] && !r.raise_to_min(x, j) {
                x[j * v..(j + 1) * v].iter_mut().for_each(|r| *r = 0);
            }
        }
    }

    #[test]
    fn keeping_the_fittest_is_a_stable_sort_of_survivors_then_kids() {
        let mut rng = Sampler::derive(3, "keep");
        // Few distinct values, so that ties decide much of the order.
        let member = |slot: Slot, rng: &mut Sampler| ([rng.below(4) as f64, 0.0], slot);
        for sorted in [false, true] {
            for (n_pop, n_kids, keep) in [(0, 5, 3), (6, 0, 4), (8, 8, 8), (10, 7, 12), (5, 9, 2)] {
                let mut store = Store::new(1, 32, false);
                let slots: Vec<Slot> = (0..n_pop + n_kids).map(|i| store.add(&[i as u8])).collect();
                let mut pop: Vec<Member> = (0..n_pop).map(|i| member(slots[i], &mut rng)).collect();
                if sorted {
                    pop.sort_by(fitter);
                }
                let mut kids: Vec<Member> = (n_pop..n_pop + n_kids)
                    .map(|i| member(slots[i], &mut rng))
                    .collect();
                let mut expected: Vec<Member> = pop.iter().chain(&kids).copied().collect();
                expected.sort_by(fitter);
                let keep = keep.min(expected.len());
                let mut spare = Vec::new();
                keep_fittest(&mut pop, &mut kids, keep, &mut store, &mut spare);
                let slots_of = |m: &[Member]| m.iter().map(|p| p.1).collect::<Vec<_>>();
                assert_eq!(
                    slots_of(&pop),
                    slots_of(&expected[..keep]),
                    "sorted {sorted}"
                );
                assert!(kids.is_empty());
                let mut freed = store.free.clone();
                freed.sort_unstable();
                let mut gone = slots_of(&expected[keep..]);
                gone.sort_unstable();
                assert_eq!(freed, gone);
            }
        }
    }

    #[test]
    fn repair_equals_the_rescanning_reference_draw_for_draw() {
        let cluster = parse_cluster("t4:6x4,rtx:3x8,a100:2x8").unwrap();
        let vnodes = virtual_nodes(&cluster);
        let v = vnodes.len();
        let speedup = |_: usize, _: u32, k: u32| k as f64;
        let mut gen = Sampler::new(11);
        let mut trimmed = 0;
        for case in 0..400 {
            let jobs = 1 + gen.below(12) as usize;
            let cell = |gen: &mut Sampler| {
                if gen.chance(0.4) {
                    gen.below(7) as u8
                } else {
                    0
                }
            };
            let mut r = round(&vnodes, &speedup, false);
            r.current = (0..jobs)
                .map(|_| (0..v).map(|_| cell(&mut gen)).collect())
                .collect();
            r.frozen = (0..jobs).map(|_| gen.chance(0.15)).collect();
            r.min_rep = (0..jobs).map(|_| 1 + gen.below(6) as u32).collect();
            r.max_rep = r.min_rep.iter().map(|m| m + gen.below(10) as u32).collect();
            r.restart_mult = vec![0.9; jobs];
            r.max_nodes = 1 + gen.below(4) as u32;
            let x: Individual = (0..jobs * v).map(|_| cell(&mut gen)).collect();
            let (mut fast, mut slow) = (x.clone(), x.clone());
            let (mut rng_fast, mut rng_slow) = (Sampler::new(case), Sampler::new(case));
            r.repair(&mut fast, &mut rng_fast, &mut Scratch::default());
            repair_by_rescanning(&r, &mut slow, &mut rng_slow);
            assert_eq!(fast, slow, "case {case}");
            assert_eq!(
                rng_fast.next_u64(),
                rng_slow.next_u64(),
                "case {case}: draws differ"
            );
            trimmed += (fast != x) as usize;
        }
        // The random matrices exercise the trims, not only rows that fit.
        assert!(trimmed > 300, "{trimmed}");
    }

    /// wasm's `same_cells` is slice equality, whatever the length and
    /// wherever the difference (in the eight-cell words or in the remainder).
    #[test]
    fn same_cells_by_words_is_slice_equality() {
        let same_cells = same_cells_by_words;
        for len in 0..20 {
            let a: Vec<u8> = (0..len as u8).map(|i| i.wrapping_mul(37)).collect();
            assert!(same_cells(&a, &a.clone()));
            for at in 0..len {
                let mut b = a.clone();
                b[at] ^= 1;
                assert!(!same_cells(&a, &b), "length {len}, cell {at}");
            }
            assert!(!same_cells(&a, &a[..len.saturating_sub(1)]) || len == 0);
        }
    }

    #[test]
    fn memoised_terms_give_the_fitness_to_the_bit() {
        let cluster = parse_cluster("t4:4x4,rtx:2x8").unwrap();
        let vnodes = virtual_nodes(&cluster);
        let v = vnodes.len();
        let speedup =
            |j: usize, n: u32, k: u32| (k as f64).sqrt() / (1.0 + 0.1 * (n + j as u32) as f64);
        let mut gen = Sampler::new(5);
        for p in [-1.0, 0.0, 0.5] {
            let mut r = round(&vnodes, &speedup, true);
            r.p = p;
            r.max_rep = vec![3, 8, 1, 16, 2, 5];
            r.current[1][0] = 2;
            r.restart_mult = (0..6).map(|j| 0.5 + 0.1 * j as f64).collect();
            r.max_nodes = 3;
            let terms = Terms::new(&r);
            // Rows past the memo's bounds (k above every maximum, n above
            // max_nodes: these rows are not repaired) too.
            for _ in 0..300 {
                let x: Individual = (0..6 * v)
                    .map(|_| {
                        if gen.chance(0.3) {
                            gen.below(9) as u8
                        } else {
                            0
                        }
                    })
                    .collect();
                let direct = {
                    let mut sum = 0.0;
                    for j in 0..6 {
                        let row = &x[j * v..(j + 1) * v];
                        let k: u32 = row.iter().map(|c| *c as u32).sum();
                        let n = row.iter().filter(|c| **c > 0).count() as u32;
                        let mut s = if k == 0 { 0.0 } else { speedup(j, n, k) };
                        if row != r.current[j].as_slice() {
                            s *= r.restart_mult[j];
                        }
                        sum += if p == 0.0 {
                            num::ln(s + 1e-3)
                        } else {
                            num::pow(s + 1e-3, p)
                        };
                    }
                    let mean = sum / 6.0;
                    if p == 0.0 {
                        num::exp(mean)
                    } else {
                        num::pow(mean, 1.0 / p)
                    }
                };
                assert_eq!(r.fitness_with(&x, &terms).to_bits(), direct.to_bits());
            }
        }
    }

    #[test]
    fn distinct_populations_hold_no_copies_and_still_fit_capacity() {
        let cluster = parse_cluster("t4:4x4").unwrap();
        let vnodes = virtual_nodes(&cluster);
        let speedup = |_: usize, n: u32, k: u32| k as f64 / (1.0 + 0.2 * (n as f64 - 1.0));
        let count_distinct = |pop: &[Individual]| pop.iter().collect::<HashSet<_>>().len();
        let r = round(&vnodes, &speedup, true);
        let (best, pop) = r.search(Vec::new(), 50, 20, &mut Sampler::derive(7, "ga"));
        assert_eq!(count_distinct(&pop), pop.len(), "no copies with distinct");
        assert_eq!(pop.len(), 50);
        for c in 0..vnodes.len() {
            let used: u32 = (0..6).map(|j| best[j * vnodes.len() + c] as u32).sum();
            assert!(used <= vnodes[c].gpus);
        }
        // Without it, the elitist survival fills up with copies of the best.
        let r = round(&vnodes, &speedup, false);
        let (_, pop) = r.search(Vec::new(), 50, 20, &mut Sampler::derive(7, "ga"));
        assert!(count_distinct(&pop) < pop.len());
    }

    #[test]
    fn nsga2_survival_never_loses_the_fittest_and_keeps_utility_spread() {
        let cluster = parse_cluster("t4:4x4").unwrap();
        let vnodes = virtual_nodes(&cluster);
        let speedup = |_: usize, n: u32, k: u32| k as f64 / (1.0 + 0.2 * (n as f64 - 1.0));
        let r = round_with(&vnodes, &speedup, true, Survival::Nsga2);
        let mut rng = Sampler::derive(3, "ga");
        let (best0, pop0) = r.search(Vec::new(), 40, 5, &mut rng);
        // Warm-started from that population, the fittest can only improve.
        let (best1, pop1) = r.search(pop0.clone(), 40, 30, &mut rng);
        // Every seed competed in the second search: none beats its pick.
        for x in pop0.iter().chain(std::iter::once(&best0)) {
            assert!(
                r.fitness(x) <= r.fitness(&best1),
                "a seed was fitter than the pick"
            );
        }
        assert_eq!(pop1.iter().collect::<HashSet<_>>().len(), pop1.len());
        for c in 0..vnodes.len() {
            let used: u32 = (0..6).map(|j| best1[j * vnodes.len() + c] as u32).sum();
            assert!(used <= vnodes[c].gpus);
        }
        // The second objective keeps individuals of several utilities alive.
        let utilities: HashSet<u64> = pop1.iter().map(|x| r.utility(x).to_bits()).collect();
        assert!(utilities.len() > 1, "{utilities:?}");
    }
}
