//! POP (Narayanan et al., SOSP'21), the partitioned baseline of COpter's
//! evaluation (thesis ch. 4, Table 4.1 "POP-16"; spec seed004 §2.9): the
//! caller assigns every item to one of `k` parts (at random: Sia keys each job's
//! part by the run's seed and the job, so a job keeps its part from round to
//! round instead of being reshuffled into another part's GPUs), every
//! resource's capacity (after the forced options) is split into `k` equal
//! shares, and each part is solved on its own. The parts' capacities add up to the whole, so the union
//! of their answers is feasible; it is checked like every other answer.
//!
//! The parts are independent, so a deployment solves them in parallel: the
//! result carries both the slowest part's time (what POP would take on `k`
//! cores) and the serial sum (what it took here, one part after another).

use super::mck::{Item, Mck, MckResult, Method};
use web_time::Instant;

/// A POP answer and its timing.
#[derive(Debug, Clone)]
pub struct PopResult {
    pub result: MckResult,
    /// Seconds of the slowest part (POP's time with one core per part).
    pub slowest_part_s: f64,
    /// Seconds of all parts, solved one after another.
    pub total_s: f64,
}

/// Solves `problem` in `k` parts, item `i` in part `part_of[i] % k` (forced
/// items keep their option whatever their part); `method` picks each part's
/// method from its variable count (so a part can be exact while the whole is not).
pub fn solve_pop(
    problem: &Mck,
    k: usize,
    part_of: &[usize],
    method: impl Fn(usize) -> Method,
    node_limit: u64,
) -> PopResult {
    let k = k.max(1);
    let mut pick: Vec<Option<usize>> = problem.items.iter().map(|it| it.forced).collect();
    let shares = match residual(problem) {
        Some(left) => split_capacity(&left, k),
        // The forced options alone do not fit: the whole problem's own
        // fallback says so.
        None => {
            let t0 = Instant::now();
            let result = problem.solve(method(0), node_limit);
            let s = t0.elapsed().as_secs_f64();
            return PopResult {
                result,
                slowest_part_s: s,
                total_s: s,
            };
        }
    };
    let free: Vec<usize> = (0..problem.items.len())
        .filter(|&i| problem.items[i].forced.is_none())
        .collect();
    let (mut slowest, mut total) = (0.0f64, 0.0);
    let mut fallback: Option<String> = None;
    let mut fractional_items = 0;
    let mut part_method = method(0);
    for (part, capacity) in shares.into_iter().enumerate() {
        let members: Vec<usize> = free
            .iter()
            .copied()
            .filter(|&i| part_of[i] % k == part)
            .collect();
        if members.is_empty() {
            continue;
        }
        let sub = Mck {
            items: members
                .iter()
                .map(|&i| Item {
                    choices: problem.items[i].choices.clone(),
                    forced: None,
                })
                .collect(),
            capacity,
        };
        let vars: usize = sub.items.iter().map(|it| it.choices.len()).sum();
        let t0 = Instant::now();
        let r = sub.solve(method(vars), node_limit);
        let s = t0.elapsed().as_secs_f64();
        slowest = slowest.max(s);
        total += s;
        fractional_items += r.fractional_items;
        part_method = r.method;
        if let Some(why) = r.fallback {
            fallback.get_or_insert(format!("POP part {part}: {why}"));
        }
        for (m, p) in members.iter().zip(r.pick) {
            pick[*m] = p;
        }
    }
    let mut result = MckResult {
        objective: problem.objective_of(&pick),
        pick,
        // The parts' method (the last part's, when they differ).
        method: part_method,
        fallback,
        fractional_items,
        // A part may be optimal; the union is not, for the whole.
        optimal: false,
    };
    if let Err(e) = problem.check(&result.pick) {
        // Cannot happen when the shares add up; answer safely if it does.
        let whole = problem.solve(Method::Greedy, node_limit);
        result = MckResult {
            fallback: Some(format!("POP answer rejected ({e}); greedy on the whole")),
            ..whole
        };
    }
    PopResult {
        result,
        slowest_part_s: slowest,
        total_s: total,
    }
}

/// Capacity left after the forced options, or None if they do not fit.
fn residual(problem: &Mck) -> Option<Vec<u32>> {
    let mut left: Vec<i64> = problem.capacity.iter().map(|c| *c as i64).collect();
    for it in &problem.items {
        if let Some(f) = it.forced {
            for (r, a) in &it.choices[f].usage {
                left[*r] -= *a as i64;
            }
        }
    }
    left.iter()
        .all(|l| *l >= 0)
        .then(|| left.into_iter().map(|l| l as u32).collect())
}

/// Splits each resource into `k` shares that differ by at most one unit;
/// resource `r`'s extra units go to parts `r, r+1, ...` (mod `k`), so that
/// small resources do not all land in the first part.
fn split_capacity(left: &[u32], k: usize) -> Vec<Vec<u32>> {
    let mut shares = vec![vec![0u32; left.len()]; k];
    for (r, &cap) in left.iter().enumerate() {
        let base = cap / k as u32;
        let extra = (cap % k as u32) as usize;
        for (part, share) in shares.iter_mut().enumerate() {
            let gets_extra = (part + k - r % k) % k < extra;
            share[r] = base + gets_extra as u32;
        }
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mck::Choice;
    use schedlab_core::rng::Sampler;

    /// Items dealt at random into k parts of equal count.
    fn deal(n: usize, k: usize, seed: u64) -> Vec<usize> {
        let mut order: Vec<usize> = (0..n).collect();
        Sampler::new(seed).shuffle(&mut order);
        let mut part = vec![0; n];
        for (pos, i) in order.into_iter().enumerate() {
            part[i] = pos % k;
        }
        part
    }

    fn problem(n: usize, gpus: u32) -> Mck {
        let items = (0..n)
            .map(|i| Item {
                choices: [1u32, 2, 4]
                    .iter()
                    .map(|&g| Choice {
                        weight: (g as f64).sqrt() * (1.0 + i as f64 * 0.1),
                        usage: vec![(i % 2, g)],
                    })
                    .collect(),
                forced: if i == 3 { Some(0) } else { None },
            })
            .collect();
        Mck {
            items,
            capacity: vec![gpus, gpus / 2 + 1],
        }
    }

    #[test]
    fn shares_add_up_and_differ_by_at_most_one() {
        let left = [17, 3, 0, 64];
        let shares = split_capacity(&left, 4);
        for (r, &cap) in left.iter().enumerate() {
            let col: Vec<u32> = shares.iter().map(|s| s[r]).collect();
            assert_eq!(col.iter().sum::<u32>(), cap);
            assert!(col.iter().max().unwrap() - col.iter().min().unwrap() <= 1);
        }
        // The 3 spare units of resource 1 start at part 1, not part 0.
        assert_eq!(
            shares.iter().map(|s| s[1]).collect::<Vec<_>>(),
            [0, 1, 1, 1]
        );
    }

    #[test]
    fn pop_answers_are_feasible_keep_forced_options_and_never_beat_exact() {
        for (n, gpus, k) in [(12, 16, 4), (30, 24, 8), (7, 9, 16), (20, 40, 1)] {
            let p = problem(n, gpus);
            let exact = p.solve(Method::Exact, 100_000);
            let pop = solve_pop(&p, k, &deal(n, k, n as u64), |_| Method::Exact, 100_000);
            p.check(&pop.result.pick).unwrap();
            assert_eq!(pop.result.pick[3], Some(0), "forced option kept");
            assert!(pop.result.objective <= exact.objective + 1e-9);
            assert!(pop.slowest_part_s <= pop.total_s + 1e-12);
            if k == 1 {
                assert!((pop.result.objective - exact.objective).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn the_answer_follows_the_partition() {
        let p = problem(40, 48);
        let run = |seed| {
            solve_pop(&p, 8, &deal(40, 8, seed), |_| Method::Exact, 100_000)
                .result
                .pick
        };
        assert_eq!(run(5), run(5));
        assert!(
            (0..6).any(|s| run(s) != run(5)),
            "different partitions, different answers"
        );
    }
}
