//! When Pollux's rounds may be skipped (issue 47, "cost follows change"):
//! a lone job, with no job left to arrive, for which the genetic search
//! provably returns the same row at every remaining round whatever its
//! draws.
//!
//! Pollux's search carries state from round to round: its seeded random
//! stream and its final population (the next round's warm start). Both
//! are inputs of later rounds only, so skipping a round moves them, and
//! the skip is exact only when no later round's decision depends on them
//! ([`Policy::steady_to_the_end`], which the engine asks only when no
//! arrival remains). That holds when, given a round that changed nothing
//! (its returned row, `best`, decodes to the job's placement: the current
//! row, or another one, such as a row asking for GPUs of a minority type,
//! which decoding drops):
//! - **One job, nothing to join it.** The run ends at its completion; no
//!   other job's row can enter the search.
//! - **The speedups do not move.** The job is in its model's last epoch
//!   (no rate-change boundary ahead), so its noise scale and batch plan are
//!   fixed; the learned model observed this placement this round (the
//!   observation's key is known: no refit), and `max_run` already counts
//!   it. So every shape's goodput, the fair-share reference and the caps
//!   are the same at every remaining round; only the restart factor
//!   (age - restarts·S)/(age + S) of changed rows moves, and it rises with
//!   age up to its value at the run's stop time.
//! - **Every row, at every remaining round.** A repaired row spans at most
//!   `max_nodes` virtual nodes and `max_rep` replicas, each virtual node
//!   within its GPUs, so its fitness is that of one (nodes, replicas) shape
//!   (the model is heterogeneity-unaware) at the round's restart factor.
//!   All shapes are enumerated (the space is small); `best` must beat each
//!   at every factor the rest of the run can reach, by a relative margin
//!   that covers last-bit rounding of `pow` ([`keeps_the_lead`]).
//! - **Elitism returns `best`.** The current row is always in the initial
//!   population (added unrepaired, before any seed), and `best` leads the
//!   final population, which is the next round's warm start: a valid row
//!   comes out of the repair unchanged and with no draw, so it is there
//!   too. Being the fittest, it is never lost: plain elitism keeps the
//!   fittest, and NSGA-II keeps it in the first front with an infinite
//!   crowding distance (the extreme of the fitness), of which a front has
//!   at most four, so a population of four or more keeps it. The search
//!   returns the fittest individual: `best` again. Copies of it (without
//!   `distinct`) are the same row; rows whose speedup equals its own to the
//!   bit tie with it exactly, and plain elitism's stable order keeps it
//!   first among them (it comes before them in the initial population).
//!
//! Then every remaining round returns `best`, decodes it to the same
//! placement and changes nothing, so the run jumps to the job's completion
//! with the results of calling every round. Not claimed: several jobs, a
//! job before its last epoch (its model moves at each boundary, and the
//! proof would have to cover every later epoch before the first skip:
//! after it the stream differs, so a later round that the proof did not
//! cover could decide otherwise), measured rates, a restart in progress,
//! NSGA-II with a population under four or with `best` other than the
//! current row (it orders ties at random). A pinned job's row is restored
//! by the repair in every individual, so it is returned whatever the model
//! says.

use super::ga::{Round, Survival};
use super::Pollux;
use schedlab_model::perf::Behaviour;
use schedlab_sim::View;

/// Relative margin by which the returned row must beat every bound: far
/// above the few ulps `pow` may be off, far below any real difference.
const MARGIN: f64 = 1e-9;

impl Pollux {
    /// Whether this round's decision (already made: `best`) holds for every
    /// remaining round of the run, whatever the search's draws and warm
    /// start; see the module docs.
    pub(super) fn settles(&self, view: &View, jobs: &[u32], round: &Round, best: &[u8]) -> bool {
        if view.measures_rates() {
            return false;
        }
        let [j] = jobs else { return false };
        let j = *j;
        if view.placement(j).is_none() || view.restarting(j) {
            return false;
        }
        if round.survival == Survival::Nsga2 && self.population < 4 {
            return false;
        }
        if view.pinned(j) {
            return best == round.current[0].as_slice();
        }
        let last_epoch = match &view.model(j).behaviour {
            Behaviour::Goodput(m) => m.efficiency.next_boundary(view.progress(j)).is_infinite(),
            _ => true,
        };
        if !last_epoch {
            return false;
        }
        let age = view.stop_time() - view.spec(j).arrival;
        let restarts = view.restarts(j) as f64;
        let r_now = round.restart_mult[0];
        let r_max = if age > 0.0 {
            (age - restarts * self.restart_s).max(0.0) / (age + self.restart_s)
        } else {
            1.0
        };
        keeps_the_lead(round, best, r_now, r_max.clamp(r_now, 1.0))
    }
}

/// The (virtual nodes, replicas) shape of a row: all its fitness depends on.
fn shape(row: &[u8]) -> (u32, u32) {
    let nodes = row.iter().filter(|&&r| r > 0).count() as u32;
    (nodes, row.iter().map(|&r| r as u32).sum())
}

/// Whether the search returns `best` again at every remaining round, with
/// the lone job's restart factor between `r_now` (this round's) and `r_max`
/// (the run's last). `best` must beat, by the margin: when it is the
/// current row (no discount), every changed row at its factor's largest;
/// when it is another row (the same discount as every changed row, rising
/// with age), the current row now and every row of another shape at both
/// ends of the factor (with one job the fitness is the speedup plus 1e-3,
/// so a lead over a shape is linear in the factor and holds between). Rows
/// of a shape whose speedup is best's to the bit (its own; other node
/// counts where the model does not tell them apart) tie with it exactly at
/// every round; plain elitism keeps it ahead of them (it leads the carried
/// population, and ties keep their order), NSGA-II's random tie order does
/// not, so that case is claimed for `Survival::Fitness` only.
pub(super) fn keeps_the_lead(round: &Round, best: &[u8], r_now: f64, r_max: f64) -> bool {
    if !(0.0..=1.0).contains(&r_now) || !(r_now..=1.0).contains(&r_max) {
        return false;
    }
    let current = &round.current[0];
    let fitness = |s: f64| round.fitness_of_sum(round.term_of_speedup(s));
    let unchanged = round.fitness(current);
    let speedup = |(n, k): (u32, u32)| {
        if k == 0 {
            0.0
        } else {
            (round.speedup)(0, n, k)
        }
    };
    // Shapes at `tie` (bit for bit) score as best at every round.
    let leads = |kept: f64, r: f64, tie: Option<f64>| {
        let margin = MARGIN * kept;
        kept.is_finite()
            && kept > 0.0
            && shapes(round)
                .map(speedup)
                .filter(|s| tie.is_none_or(|t| s.to_bits() != t.to_bits()))
                .all(|s| fitness(s * r) < kept - margin)
    };
    if best == current.as_slice() {
        return current.iter().any(|&r| r > 0) && leads(unchanged, r_max, None);
    }
    if round.survival != Survival::Fitness {
        return false;
    }
    let s_best = speedup(shape(best));
    let now = fitness(s_best * r_now);
    now > unchanged + MARGIN * now
        && leads(now, r_now, Some(s_best))
        && leads(fitness(s_best * r_max), r_max, Some(s_best))
}

/// Every shape a repaired row of the lone job can take: the empty row, and
/// n virtual nodes (at most `max_nodes`) holding n to `max_rep` replicas
/// within the n largest nodes' GPUs.
fn shapes<'r>(round: &'r Round) -> impl Iterator<Item = (u32, u32)> + 'r {
    let mut caps: Vec<u32> = round.vnodes.iter().map(|v| v.gpus).collect();
    caps.sort_unstable_by(|a, b| b.cmp(a));
    let widest = caps.len().min(round.max_nodes as usize);
    let room: Vec<u32> = caps
        .iter()
        .take(widest)
        .scan(0, |sum, c| {
            *sum += c;
            Some(*sum)
        })
        .collect();
    let max_rep = round.max_rep[0];
    std::iter::once((0, 0)).chain(room.into_iter().enumerate().flat_map(move |(i, room)| {
        (i as u32 + 1..=max_rep.min(room)).map(move |k| (i as u32 + 1, k))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pollux::virtual_nodes;
    use schedlab_core::rng::Sampler;
    use schedlab_model::cluster::parse_cluster;

    fn round<'a>(
        vnodes: &'a [crate::pollux::VNode],
        speedup: &'a dyn Fn(usize, u32, u32) -> f64,
        current: Vec<u8>,
    ) -> Round<'a> {
        Round {
            vnodes,
            current: vec![current],
            min_rep: vec![1],
            max_rep: vec![8],
            frozen: vec![false],
            restart_mult: vec![0.5],
            speedup,
            p: -1.0,
            max_nodes: 16,
            distinct: true,
            survival: Survival::Fitness,
        }
    }

    /// The lead of the current row itself (it is `best`).
    fn kept(r: &Round, r_max: f64) -> bool {
        keeps_the_lead(r, &r.current[0].clone(), r.restart_mult[0], r_max)
    }

    #[test]
    fn the_best_shape_keeps_the_lead_against_its_copies_elsewhere() {
        let cluster = parse_cluster("t4:4x4").unwrap();
        let v = virtual_nodes(&cluster);
        // Best at 4 GPUs on one node; spreading costs, more GPUs cost.
        let speedup = |_: usize, n: u32, k: u32| {
            (k.min(4) as f64) / (1.0 + 0.3 * (n as f64 - 1.0)) - 0.1 * k.saturating_sub(4) as f64
        };
        let r = round(&v, &speedup, vec![4, 0, 0, 0]);
        assert!(kept(&r, 0.999));
        // The same shape on another node ties without a discount.
        assert!(!kept(&r, 1.0));
    }

    #[test]
    fn a_shape_that_wins_once_the_discount_ages_is_not_steady() {
        let cluster = parse_cluster("t4:4x4").unwrap();
        let v = virtual_nodes(&cluster);
        // 8 GPUs are 10% better than the current 4; 5 to 7 worse.
        let speedup = |_: usize, _: u32, k: u32| match k {
            8.. => 1.1,
            5..=7 => 0.9,
            _ => k as f64 / 4.0,
        };
        let r = round(&v, &speedup, vec![4, 0, 0, 0]);
        assert!(kept(&r, 0.8), "held back by the discount");
        assert!(!kept(&r, 0.95), "wins before the run stops");
        // With at most 4 replicas the 8-GPU shape cannot be drawn.
        let mut r = round(&v, &speedup, vec![4, 0, 0, 0]);
        r.max_rep = vec![4];
        assert!(kept(&r, 0.999));
        // Nor with 4-GPU nodes and one node at most.
        let mut r = round(&v, &speedup, vec![4, 0, 0, 0]);
        r.max_nodes = 1;
        assert!(kept(&r, 0.999));
    }

    #[test]
    fn an_allocation_worse_than_none_or_unknown_is_not_steady() {
        let cluster = parse_cluster("t4:2x4").unwrap();
        let v = virtual_nodes(&cluster);
        let speedup = |_: usize, _: u32, _: u32| 0.0;
        assert!(!kept(&round(&v, &speedup, vec![1, 0]), 0.5));
        let nan = |_: usize, _: u32, k: u32| if k == 3 { f64::NAN } else { 1.0 };
        let mut r = round(&v, &nan, vec![1, 0]);
        r.max_rep = vec![1];
        assert!(kept(&r, 0.5));
        r.max_rep = vec![4];
        assert!(!kept(&r, 0.5), "an unknown score is no bound");
    }

    /// Pollux on sia-hetero-64's case: the fittest row wants more GPUs than
    /// the job holds (the extra ones are of a minority type, dropped when
    /// placed), and keeps winning as its discount fades.
    #[test]
    fn another_fittest_row_leads_while_no_other_shape_catches_it() {
        let cluster = parse_cluster("t4:4x4,rtx:2x4").unwrap();
        let v = virtual_nodes(&cluster);
        let speedup = |_: usize, n: u32, k: u32| k.min(9) as f64 / (1.0 + 0.01 * n as f64);
        let current = vec![3, 4, 0, 0, 0, 0];
        let best = vec![3, 4, 0, 0, 2, 0];
        let mut r = round(&v, &speedup, current);
        r.max_rep = vec![9];
        r.restart_mult = vec![0.9];
        assert!(keeps_the_lead(&r, &best, 0.9, 0.999));
        // Ten replicas on three nodes would beat it.
        r.max_rep = vec![10];
        let more = |_: usize, n: u32, k: u32| k as f64 / (1.0 + 0.01 * n as f64);
        r.speedup = &more;
        assert!(!keeps_the_lead(&r, &best, 0.9, 0.999));
        // Rows of its own shape tie with it: only plain elitism keeps it.
        r.max_rep = vec![9];
        assert!(keeps_the_lead(&r, &best, 0.9, 0.999));
        r.survival = Survival::Nsga2;
        assert!(!keeps_the_lead(&r, &best, 0.9, 0.999));
        // A discount so deep that the current row wins now.
        r.survival = Survival::Fitness;
        assert!(!keeps_the_lead(&r, &best, 0.7, 0.999));
    }

    /// The claim itself: with the lead, the search returns its row again
    /// whatever its stream and whatever else the warm start holds, as each
    /// round warm-starts from the last (the current row kept, or another).
    #[test]
    fn with_the_lead_the_search_returns_the_same_row_whatever_its_draws() {
        let cluster = parse_cluster("t4:3x4,rtx:2x8").unwrap();
        let v = virtual_nodes(&cluster);
        let kept_six = |_: usize, n: u32, k: u32| {
            let k = k as f64;
            (k.min(6.0) - 0.2 * (k - 6.0).max(0.0)) / (1.0 + 0.05 * (n as f64 - 1.0))
        };
        let grows = |_: usize, n: u32, k: u32| {
            let k = k as f64;
            (k.min(9.0) - 0.5 * (k - 9.0).max(0.0)) / (1.0 + 0.01 * n as f64)
        };
        // Pollux's model tells one node from several, not how many: rows
        // of 9 replicas on 3 to 9 nodes tie.
        let flat = |_: usize, n: u32, k: u32| {
            let k = k as f64;
            (k.min(9.0) - 0.5 * (k - 9.0).max(0.0)) * if n == 1 { 1.0 } else { 0.95 }
        };
        let mut current = vec![0u8; v.len()];
        current[3] = 4;
        current[4] = 2;
        let speedups: [&dyn Fn(usize, u32, u32) -> f64; 3] = [&kept_six, &grows, &flat];
        let mut draws = Sampler::new(9);
        let mut checked = [0; 3];
        for (case, speedup) in speedups.into_iter().enumerate() {
            for survival in [Survival::Fitness, Survival::Nsga2] {
                for distinct in [true, false] {
                    let mut r = round(&v, speedup, current.clone());
                    r.survival = survival;
                    r.distinct = distinct;
                    r.max_rep = vec![12];
                    r.restart_mult = vec![0.97];
                    let mut rng = Sampler::new(case as u64);
                    let (first, mut pop) = r.search(Vec::new(), 12, 30, &mut rng);
                    if !keeps_the_lead(&r, &first, 0.97, 0.999) {
                        assert!(case > 0 && survival == Survival::Nsga2, "case {case}");
                        continue;
                    }
                    assert_eq!(first == current, case == 0, "case {case}");
                    for round_no in 0..20 {
                        // Later rounds: another stream, the factor aged, a
                        // population carried with random rows mixed in.
                        r.restart_mult = vec![0.97 + 0.0015 * round_no as f64];
                        // The carried population leads with the round's pick.
                        let junk: Vec<Vec<u8>> = (0..draws.below(8))
                            .map(|_| (0..v.len()).map(|_| draws.below(5) as u8).collect())
                            .collect();
                        let at = 1 + draws.below(pop.len() as u64) as usize;
                        let seeds: Vec<Vec<u8>> = pop[..at]
                            .iter()
                            .chain(&junk)
                            .chain(&pop[at..])
                            .cloned()
                            .collect();
                        let mut rng = Sampler::new(1000 + round_no);
                        let size = 4 + draws.below(10) as usize;
                        let (best, next) =
                            r.search(seeds, size, draws.below(20) as usize, &mut rng);
                        assert_eq!(
                            best, first,
                            "case {case} {survival:?} distinct {distinct} round {round_no}"
                        );
                        pop = next;
                        checked[case] += 1;
                    }
                }
            }
        }
        // The current row kept under both survivals; another row under
        // plain elitism (with and without distinct individuals), with ties.
        assert_eq!(checked, [80, 40, 40]);
    }
}
