//! The single-job stochastic model of STS (spec seed002 §2.4): on one GPU
//! type with speeds s_1 < .. < s_K (epochs per second) costing P_1 < .. <
//! P_K per second, choose the epochs x_1 <= .. <= x_{K-1} at which the job
//! steps up a level so that its expected cost, the integral of
//! F^c(w) Q(s(w)) with Q = P / s, is least while the full run (W = w_max)
//! still meets the deadline.
//!
//! Solved exactly by the Lagrangian bisection of spec §2.4.1: with
//! Phi_k = (s_k P_{k+1} - s_{k+1} P_k) / (s_{k+1} - s_k) (increasing in k on
//! a strictly convex cost curve), each threshold is x_k(lambda) =
//! clamp((F^c)^-1(lambda / Phi_k)), and the time of the full run is
//! non-increasing in lambda, so one bisection finds the lambda that meets
//! the deadline. Levels above the lower convex hull of {(0, 0), (s_k, P_k)}
//! are never optimal and are dropped first.

use schedlab_model::perf::epochs::Survival;

/// One rung of a ladder: speed (epochs/s) and cost ($/s) at a GPU count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Level {
    pub gpus: u32,
    pub speed: f64,
    pub cost: f64,
}

/// A job's situation: its epoch law, epochs done and left to the deadline.
#[derive(Debug, Clone, Copy)]
pub struct Job<'a> {
    pub survival: &'a Survival,
    /// Epochs done (x_0).
    pub done: f64,
    /// Maximum epochs (w_max).
    pub max: f64,
    /// Seconds from now to the due date.
    pub deadline: f64,
}

/// The optimal staircase.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Levels used, in order, with the epoch at which each one ends
    /// (the last ends at `max`).
    pub steps: Vec<(Level, f64)>,
    /// Expected cost of the rest of the run, $ (over the law given W > done).
    pub expected_cost: f64,
    /// Whether the full run meets the deadline (false: it runs at the top
    /// level and is late).
    pub feasible: bool,
}

impl Plan {
    /// The level to run now.
    pub fn first(&self) -> Level {
        self.steps[0].0
    }

    /// Seconds until the plan steps up (None if it never does).
    pub fn switch_after(&self, done: f64) -> Option<f64> {
        (self.steps.len() > 1).then(|| (self.steps[0].1 - done) / self.steps[0].0.speed)
    }

    /// Seconds of the full run (W = max).
    pub fn worst_time(&self, done: f64) -> f64 {
        let mut from = done;
        let mut t = 0.0;
        for (l, to) in &self.steps {
            t += (to - from) / l.speed;
            from = *to;
        }
        t
    }
}

/// The lower convex hull of {(0, 0), levels} by increasing speed: levels on
/// or below it (collinear ones kept, they tie), speeds strictly increasing.
pub fn hull(levels: &[Level]) -> Vec<Level> {
    let mut pts: Vec<Level> = Vec::with_capacity(levels.len());
    for l in levels {
        if !(l.speed > 0.0 && l.speed.is_finite()) {
            continue;
        }
        if let Some(p) = pts.last().copied() {
            if l.speed <= p.speed {
                // Not faster: it replaces the last point only at the same
                // speed for less.
                if l.speed < p.speed || l.cost >= p.cost {
                    continue;
                }
                pts.pop();
            }
        }
        // Pop points strictly above the segment from their predecessor to l.
        while let Some(b) = pts.last().copied() {
            let (ax, ay) = pts
                .len()
                .checked_sub(2)
                .map_or((0.0, 0.0), |i| (pts[i].speed, pts[i].cost));
            let cross = (b.speed - ax) * (l.cost - ay) - (b.cost - ay) * (l.speed - ax);
            if cross < 0.0 {
                pts.pop();
            } else {
                break;
            }
        }
        pts.push(*l);
    }
    pts
}

/// Expected cost of running `steps` from `done`, $ (F^c conditioned on W > done).
fn expected_cost(job: &Job, steps: &[(Level, f64)]) -> f64 {
    let s = job.survival;
    let norm = s.at(job.done).max(f64::MIN_POSITIVE);
    let mut from = job.done;
    let mut total = 0.0;
    for (l, to) in steps {
        total += l.cost / l.speed * (s.integral(*to) - s.integral(from)) / norm;
        from = *to;
    }
    total
}

/// Thresholds for a multiplier lambda: x_k = clamp((F^c)^-1(lambda / Phi_k)).
fn thresholds(job: &Job, levels: &[Level], phi: &[f64], lambda: f64) -> Vec<(Level, f64)> {
    let norm = job.survival.at(job.done);
    let mut steps = Vec::with_capacity(levels.len());
    let mut prev = job.done;
    for (k, l) in levels.iter().enumerate() {
        let x = if k + 1 == levels.len() {
            job.max
        } else {
            let p = lambda / phi[k];
            let x = if p >= 1.0 {
                job.done
            } else {
                job.survival.inverse(p * norm)
            };
            x.clamp(prev, job.max)
        };
        if x > prev || k + 1 == levels.len() {
            steps.push((*l, x));
        }
        prev = x;
    }
    steps
}

fn run_time(job: &Job, steps: &[(Level, f64)]) -> f64 {
    let mut from = job.done;
    steps
        .iter()
        .map(|(l, to)| {
            let t = (to - from) / l.speed;
            from = *to;
            t
        })
        .sum()
}

/// The optimal staircase on `levels` (any order; off-hull levels dropped).
/// None if no level has a positive speed.
pub fn solve(job: &Job, levels: &[Level]) -> Option<Plan> {
    let mut sorted = levels.to_vec();
    schedlab_core::sorting::sort_by(&mut sorted, |a, b| a.speed.total_cmp(&b.speed));
    let levels = hull(&sorted);
    let top = *levels.last()?;
    let left = (job.max - job.done).max(0.0);
    let plan = |steps: Vec<(Level, f64)>, feasible| {
        let expected_cost = expected_cost(job, &steps);
        Some(Plan {
            steps,
            expected_cost,
            feasible,
        })
    };
    if left / top.speed > job.deadline {
        return plan(vec![(top, job.max)], false);
    }
    if left / levels[0].speed <= job.deadline || levels.len() == 1 {
        return plan(vec![(levels[0], job.max)], true);
    }
    // Phi_k between consecutive levels; collinear levels (Phi = 0) tie on
    // cost, so a vanishing, increasing Phi orders them.
    let tiny = 1e-12 * top.cost;
    let phi: Vec<f64> = levels
        .windows(2)
        .enumerate()
        .map(|(k, w)| {
            let (a, b) = (w[0], w[1]);
            let v = (a.speed * b.cost - b.speed * a.cost) / (b.speed - a.speed);
            v.max(tiny * (k + 1) as f64)
        })
        .collect();
    let (mut lo, mut hi) = (0.0, phi[phi.len() - 1]);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if run_time(job, &thresholds(job, &levels, &phi, mid)) > job.deadline {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-12 * hi {
            break;
        }
    }
    plan(thresholds(job, &levels, &phi, hi), true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::perf::epochs::EpochDistribution;

    fn ladder(k: u32, beta: f64, price: f64, epoch_s: f64) -> Vec<Level> {
        (1..=k)
            .map(|g| Level {
                gpus: g,
                speed: g as f64 / (1.0 + beta * (g as f64 - 1.0)) / epoch_s,
                cost: price * g as f64,
            })
            .collect()
    }

    fn law(n: usize, f: impl Fn(f64) -> f64) -> Survival {
        let w: Vec<f64> = (0..=n)
            .map(|e| if e < 3 { 0.0 } else { f(e as f64 / n as f64) })
            .collect();
        EpochDistribution::from_weights(&w).unwrap().survival()
    }

    /// Best cost over a grid of thresholds x_1 <= x_2 on three levels.
    fn brute(job: &Job, levels: &[Level]) -> f64 {
        let n = 400;
        let mut best = f64::INFINITY;
        for i in 0..=n {
            let x1 = job.done + (job.max - job.done) * i as f64 / n as f64;
            for j in i..=n {
                let x2 = job.done + (job.max - job.done) * j as f64 / n as f64;
                let steps = vec![(levels[0], x1), (levels[1], x2), (levels[2], job.max)];
                if run_time(job, &steps) <= job.deadline * (1.0 + 1e-9) {
                    best = best.min(expected_cost(job, &steps));
                }
            }
        }
        best
    }

    #[test]
    fn matches_brute_force_and_steps_up() {
        let laws = [
            law(50, |x| x.powf(0.5) * (1.0 - x).powf(4.0)),
            law(50, |x| x.powf(3.0) * (1.0 - x).powf(0.5)),
            law(30, |_| 1.0),
        ];
        let levels = ladder(3, 0.2, 1.0, 10.0);
        for s in &laws {
            for done in [0.0, 7.5] {
                let max = s.max_epochs();
                let fastest = (max - done) / levels[2].speed;
                let slowest = (max - done) / levels[0].speed;
                for frac in [0.2, 0.5, 0.8] {
                    let job = Job {
                        survival: s,
                        done,
                        max,
                        deadline: fastest + frac * (slowest - fastest),
                    };
                    let plan = solve(&job, &levels).unwrap();
                    assert!(plan.feasible);
                    assert!(plan.worst_time(done) <= job.deadline * (1.0 + 1e-6));
                    // Thresholds and levels non-decreasing.
                    for w in plan.steps.windows(2) {
                        assert!(w[0].1 <= w[1].1 && w[0].0.speed < w[1].0.speed);
                    }
                    let b = brute(&job, &levels);
                    assert!(
                        plan.expected_cost <= b * (1.0 + 1e-6),
                        "{} > brute {b}",
                        plan.expected_cost
                    );
                    assert!(
                        plan.expected_cost >= b * (1.0 - 2e-2),
                        "{} << brute {b}",
                        plan.expected_cost
                    );
                }
            }
        }
    }

    #[test]
    fn slack_runs_slow_and_impossible_deadlines_run_fast() {
        let s = law(40, |x| (1.0 - x).powf(2.0));
        let levels = ladder(4, 0.1, 2.0, 5.0);
        let job = |deadline| Job {
            survival: &s,
            done: 0.0,
            max: 40.0,
            deadline,
        };
        let slow = solve(&job(1e9), &levels).unwrap();
        assert_eq!(
            (slow.steps.len(), slow.first().gpus, slow.feasible),
            (1, 1, true)
        );
        let late = solve(&job(1.0), &levels).unwrap();
        assert_eq!((late.first().gpus, late.feasible), (4, false));
        let tight = solve(&job(40.0 / levels[3].speed * 1.2), &levels).unwrap();
        assert!(tight.steps.len() >= 2 && tight.switch_after(0.0).unwrap() > 0.0);
    }

    #[test]
    fn hull_drops_levels_that_cost_more_per_epoch_for_no_gain() {
        let mut l = ladder(3, 0.1, 1.0, 1.0);
        // A superlinear 2-GPU level lies below the segment: 1-GPU leaves the hull.
        l[1].speed = 2.2;
        let h = hull(&l);
        assert_eq!(h.iter().map(|x| x.gpus).collect::<Vec<_>>(), vec![2, 3]);
        // Linear speed-up: all collinear, all kept.
        let lin: Vec<Level> = (1..=3)
            .map(|g| Level {
                gpus: g,
                speed: g as f64,
                cost: g as f64,
            })
            .collect();
        assert_eq!(hull(&lin).len(), 3);
    }
}
