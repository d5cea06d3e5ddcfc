//! NSGA-II's survival and mating selection for two objectives, both
//! maximised (Deb et al. 2002, as pymoo implements them: rank and crowding
//! survival, binary tournament by dominance then crowding distance).
//!
//! Pollux runs pymoo's NSGA-II with its fitness and a cluster-utility
//! objective; the policy picks the fittest individual at the end, but the
//! second objective shapes which individuals survive each generation.

use schedlab_core::pareto::dominates_max;
use schedlab_core::rng::Sampler;

/// Objective values of one individual (both to be maximised).
pub type Objectives = [f64; 2];

/// Fronts of non-dominated individuals, best front first (indices into
/// `objs`, each front in ascending index order).
///
/// Two objectives allow Zhang et al.'s efficient non-dominated sort: in
/// decreasing order of both objectives an individual can only be dominated
/// by one before it, and it joins the first front none of whose members
/// dominates it. Within a front taken in that order the second objective
/// never falls, so the last member added dominates the newcomer whenever
/// any member does: one comparison per front instead of one per pair.
pub fn fronts(objs: &[Objectives]) -> Vec<Vec<usize>> {
    if objs.iter().flatten().any(|v| v.is_nan()) {
        // NaN compares false both ways, so the order above does not exist.
        return fronts_pairwise(objs);
    }
    // `partial_cmp` (not `total_cmp`): -0 and +0 tie, as in `dominates_max`.
    let desc = |a: f64, b: f64| b.partial_cmp(&a).unwrap_or(std::cmp::Ordering::Equal);
    let mut order: Vec<usize> = (0..objs.len()).collect();
    order.sort_unstable_by(|&a, &b| {
        desc(objs[a][0], objs[b][0])
            .then(desc(objs[a][1], objs[b][1]))
            .then(a.cmp(&b))
    });
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut last: Vec<Objectives> = Vec::new();
    for i in order {
        let p = &objs[i];
        let k = last
            .iter()
            .position(|q| !dominates_max(q, p))
            .unwrap_or(out.len());
        if k == out.len() {
            out.push(Vec::new());
            last.push(*p);
        }
        out[k].push(i);
        last[k] = *p;
    }
    for front in &mut out {
        front.sort_unstable();
    }
    out
}

/// [`fronts`] by comparing every pair (Deb et al.'s fast non-dominated
/// sort), for objectives that include NaN.
fn fronts_pairwise(objs: &[Objectives]) -> Vec<Vec<usize>> {
    let n = objs.len();
    let mut beaten_by = vec![0usize; n];
    let mut beats: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in 0..n {
        for j in i + 1..n {
            if dominates_max(&objs[i], &objs[j]) {
                beats[i].push(j);
                beaten_by[j] += 1;
            } else if dominates_max(&objs[j], &objs[i]) {
                beats[j].push(i);
                beaten_by[i] += 1;
            }
        }
    }
    let mut out = Vec::new();
    let mut front: Vec<usize> = (0..n).filter(|&i| beaten_by[i] == 0).collect();
    while !front.is_empty() {
        let mut next = Vec::new();
        for &i in &front {
            for &j in &beats[i] {
                beaten_by[j] -= 1;
                if beaten_by[j] == 0 {
                    next.push(j);
                }
            }
        }
        next.sort_unstable();
        out.push(std::mem::take(&mut front));
        front = next;
    }
    out
}

/// Crowding distance of each member of one front (same order as `front`):
/// infinite at each objective's extremes, else the sum over objectives of
/// the normalised gap between its neighbours.
pub fn crowding(objs: &[Objectives], front: &[usize]) -> Vec<f64> {
    let n = front.len();
    let mut dist = vec![0.0; n];
    if n <= 2 {
        return vec![f64::INFINITY; n];
    }
    for m in [0, 1] {
        let value = |k: usize| objs[front[k]][m];
        // Ties are broken by index, so the unstable sort's order is unique
        // (and the standard one: the page's shared stable sort is slower).
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_unstable_by(|&a, &b| value(a).total_cmp(&value(b)).then(a.cmp(&b)));
        let (lo, hi) = (value(order[0]), value(order[n - 1]));
        dist[order[0]] = f64::INFINITY;
        dist[order[n - 1]] = f64::INFINITY;
        if hi - lo <= 0.0 {
            continue;
        }
        for w in 1..n - 1 {
            dist[order[w]] += (value(order[w + 1]) - value(order[w - 1])) / (hi - lo);
        }
    }
    dist
}

/// Ranks `objs` and returns the indices of the `keep` survivors (whole
/// fronts first; the last front that does not fit by crowding distance,
/// largest first, ties in random order) and each survivor's crowding
/// distance within its front (for the next tournaments; 0 for the others).
pub fn survive(objs: &[Objectives], keep: usize, rng: &mut Sampler) -> (Vec<usize>, Vec<f64>) {
    let mut crowd = vec![0.0; objs.len()];
    let mut chosen = Vec::with_capacity(keep);
    for front in fronts(objs) {
        if chosen.len() >= keep {
            break;
        }
        let d = crowding(objs, &front);
        for (k, &i) in front.iter().enumerate() {
            crowd[i] = d[k];
        }
        if chosen.len() + front.len() <= keep {
            chosen.extend_from_slice(&front);
            continue;
        }
        // Random tie order, then by crowding, largest first (ties keep the
        // random order: the unstable sort sees it as part of the key).
        let mut order: Vec<usize> = (0..front.len()).collect();
        rng.shuffle(&mut order);
        let mut ranked: Vec<(usize, usize)> = order.into_iter().enumerate().collect();
        ranked.sort_unstable_by(|a, b| d[b.1].total_cmp(&d[a.1]).then(a.0.cmp(&b.0)));
        let room = keep - chosen.len();
        chosen.extend(ranked.into_iter().take(room).map(|(_, k)| front[k]));
    }
    (chosen, crowd)
}

/// Binary tournament: the dominating one of two random individuals, else
/// the less crowded, else either at random.
pub fn tournament(objs: &[Objectives], crowd: &[f64], rng: &mut Sampler) -> usize {
    let n = objs.len() as u64;
    let a = rng.below(n) as usize;
    let b = rng.below(n) as usize;
    if dominates_max(&objs[a], &objs[b]) {
        a
    } else if dominates_max(&objs[b], &objs[a]) {
        b
    } else if crowd[a] > crowd[b] {
        a
    } else if crowd[b] > crowd[a] {
        b
    } else if rng.chance(0.5) {
        a
    } else {
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fronts_peel_non_dominated_layers() {
        let objs = [
            [3.0, 1.0],
            [1.0, 3.0],
            [2.0, 2.0],
            [1.0, 1.0],
            [0.5, 0.5],
            [2.0, 0.5],
        ];
        let f = fronts(&objs);
        assert_eq!(f[0], vec![0, 1, 2]);
        assert_eq!(f[1], vec![3, 5]);
        assert_eq!(f[2], vec![4]);
    }

    #[test]
    fn the_sorted_fronts_are_the_pairwise_ones() {
        // Few distinct values, so that ties, equal points and -0 / +0 abound.
        let values = [-1.0, -0.0, 0.0, 0.5, 1.0, 2.0, f64::INFINITY];
        let mut rng = Sampler::derive(7, "fronts");
        for n in [0, 1, 2, 3, 10, 60, 200] {
            for _ in 0..20 {
                let objs: Vec<Objectives> = (0..n)
                    .map(|_| {
                        let mut pick = || values[rng.below(values.len() as u64) as usize];
                        [pick(), pick()]
                    })
                    .collect();
                assert_eq!(fronts(&objs), fronts_pairwise(&objs), "{objs:?}");
            }
        }
        // Continuous values (the search's fitness and utility).
        let objs: Vec<Objectives> = (0..200).map(|_| [rng.uniform(), rng.uniform()]).collect();
        assert_eq!(fronts(&objs), fronts_pairwise(&objs));
        // NaN takes the pairwise path: it neither dominates nor is dominated.
        let objs = [[1.0, 1.0], [f64::NAN, 2.0], [0.5, 0.5]];
        assert_eq!(fronts(&objs), vec![vec![0, 1], vec![2]]);
    }

    #[test]
    fn survival_keeps_whole_fronts_then_the_extremes_of_the_last() {
        // Front 0: four points on a line; keep 3 -> both extremes (infinite
        // crowding) and one of the interior points.
        let objs = [[4.0, 1.0], [3.0, 2.0], [2.0, 3.0], [1.0, 4.0], [0.0, 0.0]];
        let (kept, crowd) = survive(&objs, 3, &mut Sampler::derive(1, "t"));
        assert_eq!(kept.len(), 3);
        assert!(kept.contains(&0) && kept.contains(&3));
        assert!(!kept.contains(&4));
        assert!(crowd[0].is_infinite() && crowd[3].is_infinite());
        assert!((crowd[1] - 4.0 / 3.0).abs() < 1e-12, "{}", crowd[1]);
        let (kept, _) = survive(&objs, 5, &mut Sampler::derive(1, "t"));
        assert_eq!(kept, vec![0, 1, 2, 3, 4]);
    }
}
