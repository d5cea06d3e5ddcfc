//! SPEA2 (Zitzler, Laumanns and Thiele, 2001) as the PCS artifact runs it
//! through jMetalPy (spec seed001 §2.5): a population of `population`
//! random points; each generation `offspring` children from binary
//! tournaments (lower strength raw fitness wins, then the larger distance
//! to the nearest neighbour in objective space, then a coin), SBX
//! crossover (probability 1, index 20) and polynomial mutation
//! (probability 1/variables, index 20); parents and children are merged,
//! ranked by raw fitness R(i) = Σ strengths of the points dominating i
//! (strength = how many a point dominates), and the next population is
//! filled rank by rank, the last rank truncated by removing, one at a time,
//! the point nearest to another (ties: the next-nearest distances), with
//! distances recomputed after each removal. It stops once `evaluations`
//! points have been evaluated; the result is the final population.

use super::front::{dominates, Point};
use super::operators::{polynomial, sbx};
use schedlab_core::rng::Sampler;

/// SPEA2's settings (defaults: the artifact's).
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub population: usize,
    pub offspring: usize,
    pub evaluations: usize,
    pub crossover_eta: f64,
    pub mutation_eta: f64,
    /// Per-variable mutation probability (None: 1 / number of variables).
    pub mutation_p: Option<f64>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            population: 70,
            offspring: 105,
            evaluations: 1280,
            crossover_eta: 20.0,
            mutation_eta: 20.0,
            mutation_p: None,
        }
    }
}

/// Raw fitness of each point: the summed strengths of its dominators.
pub fn raw_fitness(f: &[Vec<f64>]) -> Vec<f64> {
    let n = f.len();
    let strength: Vec<usize> = (0..n)
        .map(|i| (0..n).filter(|&j| dominates(&f[i], &f[j])).count())
        .collect();
    (0..n)
        .map(|i| {
            (0..n)
                .filter(|&j| dominates(&f[j], &f[i]))
                .map(|j| strength[j] as f64)
                .sum()
        })
        .collect()
}

fn distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            let d = x - y;
            if d.is_finite() {
                d * d
            } else {
                f64::INFINITY
            }
        })
        .sum::<f64>()
        .sqrt()
}

/// Each point's distances to the others, nearest first.
fn neighbour_distances(f: &[Vec<f64>], alive: &[usize]) -> Vec<Vec<f64>> {
    alive
        .iter()
        .map(|&i| {
            let mut d: Vec<f64> = alive
                .iter()
                .filter(|&&j| j != i)
                .map(|&j| distance(&f[i], &f[j]))
                .collect();
            schedlab_core::sorting::sort_by(&mut d, f64::total_cmp);
            d
        })
        .collect()
}

/// Keeps `keep` of `members` by removing, one at a time, the member
/// closest to another (lexicographic on sorted neighbour distances).
fn truncate(f: &[Vec<f64>], mut members: Vec<usize>, keep: usize) -> Vec<usize> {
    while members.len() > keep {
        let d = neighbour_distances(f, &members);
        let worst = (0..members.len())
            .min_by(|&a, &b| {
                d[a].iter()
                    .zip(&d[b])
                    .map(|(x, y)| x.total_cmp(y))
                    .find(|o| o.is_ne())
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then(a.cmp(&b))
            })
            .expect("members is not empty");
        members.remove(worst);
    }
    members
}

/// Environmental selection: the `keep` best of `pool` by raw fitness, the
/// last rank truncated by distance.
pub fn select(pool: &[Point], keep: usize) -> Vec<Point> {
    let f: Vec<Vec<f64>> = pool.iter().map(|p| p.f.clone()).collect();
    let raw = raw_fitness(&f);
    let mut ranks: Vec<f64> = raw.clone();
    schedlab_core::sorting::sort_by(&mut ranks, f64::total_cmp);
    ranks.dedup();
    let mut chosen: Vec<usize> = Vec::with_capacity(keep);
    for r in ranks {
        let members: Vec<usize> = (0..pool.len()).filter(|&i| raw[i] == r).collect();
        if chosen.len() + members.len() <= keep {
            chosen.extend(members);
        } else {
            let room = keep - chosen.len();
            chosen.extend(truncate(&f, members, room));
        }
        if chosen.len() >= keep {
            break;
        }
    }
    chosen.into_iter().map(|i| pool[i].clone()).collect()
}

/// What the caller learns after each generation (and can stop the search with).
pub struct Progress<'a> {
    pub evaluations: usize,
    pub population: &'a [Point],
}

/// SPEA2 as an ask/tell state machine: [`Spea2::ask`] hands out the next
/// batch of decision vectors (the first population, then each generation's
/// children), [`Spea2::tell`] takes their objectives. The caller evaluates a
/// batch however it likes (threads natively, a pool of Web Workers in the
/// page), so both drive the same sequence from the same seed.
pub struct Spea2 {
    bounds: Vec<(f64, f64)>,
    settings: Settings,
    rng: Sampler,
    p_mut: f64,
    population: Vec<Point>,
    /// The batch handed out and not yet told.
    pending: Vec<Vec<f64>>,
    evaluations: usize,
}

impl Spea2 {
    pub fn new(bounds: &[(f64, f64)], settings: &Settings, seed: u64) -> Spea2 {
        let n_vars = bounds.len();
        Spea2 {
            bounds: bounds.to_vec(),
            settings: settings.clone(),
            rng: Sampler::derive(seed, "spea2"),
            p_mut: settings.mutation_p.unwrap_or(1.0 / n_vars.max(1) as f64),
            population: Vec::new(),
            pending: Vec::new(),
            evaluations: 0,
        }
    }

    /// Points evaluated so far.
    pub fn evaluations(&self) -> usize {
        self.evaluations
    }

    /// The current population (the result once [`Spea2::done`]).
    pub fn population(&self) -> &[Point] {
        &self.population
    }

    /// Whether the evaluation budget is spent.
    pub fn done(&self) -> bool {
        self.evaluations >= self.settings.evaluations && !self.population.is_empty()
    }

    /// The next batch to evaluate (empty once done). Asking again before
    /// telling returns the same batch.
    pub fn ask(&mut self) -> Vec<Vec<f64>> {
        if self.pending.is_empty() && !self.done() {
            self.pending = if self.population.is_empty() {
                let rng = &mut self.rng;
                (0..self.settings.population)
                    .map(|_| {
                        self.bounds
                            .iter()
                            .map(|&(lo, hi)| rng.range(lo, hi))
                            .collect()
                    })
                    .collect()
            } else {
                self.children()
            };
        }
        self.pending.clone()
    }

    /// The objectives of the batch last asked, in its order.
    pub fn tell(&mut self, fs: Vec<Vec<f64>>) {
        assert_eq!(
            fs.len(),
            self.pending.len(),
            "one objective vector per asked point"
        );
        let xs = std::mem::take(&mut self.pending);
        self.evaluations += xs.len();
        let first = self.population.is_empty();
        let mut pool = std::mem::take(&mut self.population);
        pool.extend(xs.into_iter().zip(fs).map(|(x, f)| Point { x, f }));
        self.population = if first {
            pool
        } else {
            select(&pool, self.settings.population)
        };
    }

    /// One generation's children: binary tournaments, SBX and mutation.
    fn children(&mut self) -> Vec<Vec<f64>> {
        let population = &self.population;
        let f: Vec<Vec<f64>> = population.iter().map(|p| p.f.clone()).collect();
        let raw = raw_fitness(&f);
        let alive: Vec<usize> = (0..population.len()).collect();
        let nearest: Vec<f64> = neighbour_distances(&f, &alive)
            .iter()
            .map(|d| d.first().copied().unwrap_or(f64::INFINITY))
            .collect();
        let tournament = |rng: &mut Sampler| {
            let a = rng.below(population.len() as u64) as usize;
            let b = rng.below(population.len() as u64) as usize;
            let better = raw[a]
                .total_cmp(&raw[b])
                .then(nearest[b].total_cmp(&nearest[a]));
            match better {
                std::cmp::Ordering::Less => a,
                std::cmp::Ordering::Greater => b,
                std::cmp::Ordering::Equal => {
                    if rng.uniform() < 0.5 {
                        a
                    } else {
                        b
                    }
                }
            }
        };
        let (bounds, settings, rng) = (&self.bounds, &self.settings, &mut self.rng);
        let mut children: Vec<Vec<f64>> = Vec::with_capacity(settings.offspring);
        while children.len() < settings.offspring {
            let (a, b) = (tournament(rng), tournament(rng));
            let (mut c1, mut c2) = sbx(
                &population[a].x,
                &population[b].x,
                bounds,
                settings.crossover_eta,
                rng,
            );
            polynomial(&mut c1, bounds, self.p_mut, settings.mutation_eta, rng);
            polynomial(&mut c2, bounds, self.p_mut, settings.mutation_eta, rng);
            children.push(c1);
            if children.len() < settings.offspring {
                children.push(c2);
            }
        }
        children
    }
}

/// Runs SPEA2 on `bounds` with a batch evaluator (a batch of decision
/// vectors in, their objective vectors out; batches let the caller spread
/// evaluations over threads or workers). `on_generation` returning false
/// stops the search early.
pub fn run(
    bounds: &[(f64, f64)],
    settings: &Settings,
    seed: u64,
    evaluate: &mut super::Evaluate,
    on_generation: &mut dyn FnMut(&Progress) -> bool,
) -> Vec<Point> {
    let mut search = Spea2::new(bounds, settings, seed);
    loop {
        let xs = search.ask();
        if xs.is_empty() {
            break;
        }
        let fs = evaluate(&xs);
        search.tell(fs);
        if !on_generation(&Progress {
            evaluations: search.evaluations(),
            population: search.population(),
        }) {
            break;
        }
    }
    search.population
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::front::non_dominated;

    /// ZDT1 (30 variables in [0, 1]): its Pareto front is f2 = 1 − sqrt(f1)
    /// with g = 1 (all variables after the first at 0).
    fn zdt1(x: &[f64]) -> Vec<f64> {
        let g = 1.0 + 9.0 * x[1..].iter().sum::<f64>() / (x.len() - 1) as f64;
        vec![x[0], g * (1.0 - (x[0] / g).sqrt())]
    }

    #[test]
    fn spea2_finds_the_known_front_of_zdt1() {
        let bounds = vec![(0.0, 1.0); 10];
        let settings = Settings {
            population: 40,
            offspring: 40,
            evaluations: 12_000,
            ..Settings::default()
        };
        let pop = run(
            &bounds,
            &settings,
            1,
            &mut |xs| xs.iter().map(|x| zdt1(x)).collect(),
            &mut |_| true,
        );
        let front = non_dominated(&pop);
        assert!(front.len() >= 20, "{}", front.len());
        // Every point close to the true front, spread over f1.
        for p in &front {
            let gap = p.f[1] - (1.0 - p.f[0].sqrt());
            assert!(gap < 0.05, "{:?} is {gap} above the front", p.f);
        }
        let lo = front.iter().map(|p| p.f[0]).fold(1.0, f64::min);
        let hi = front.iter().map(|p| p.f[0]).fold(0.0, f64::max);
        assert!(lo < 0.1 && hi > 0.9, "{lo} .. {hi}");
    }

    #[test]
    fn selection_keeps_the_front_and_spreads_it() {
        let pts: Vec<Point> = [[0.0, 4.0], [0.1, 3.9], [2.0, 2.0], [4.0, 0.0], [3.0, 3.0]]
            .iter()
            .map(|f| Point {
                x: vec![],
                f: f.to_vec(),
            })
            .collect();
        let kept = select(&pts, 3);
        let fs: Vec<Vec<f64>> = kept.iter().map(|p| p.f.clone()).collect();
        // Four non-dominated points for three places: the crowded pair loses one.
        assert!(fs.contains(&vec![2.0, 2.0]) && fs.contains(&vec![4.0, 0.0]));
        assert!(!fs.contains(&vec![3.0, 3.0]));
        assert_eq!(kept.len(), 3);
    }
}
