//! CoDDL's network packing (Hwang et al., NSDI'21 §4.4 and Appendix E;
//! spec seed003 §2.10).
//!
//! **Regulation (Proposition 2).** With 2^k GPUs per machine every share
//! must be 0, 2^l (l < k) or a multiple of 2^k. Then every job uses the
//! fewest machines and at most one job per machine talks to remote GPUs.
//! Starting from the largest compliant value below each share, the
//! difference is handed back by adding whole machines to jobs that have
//! them (method 1) or doubling a sub-machine share (method 2); among
//! candidates the job with the largest remaining deficit s − r goes first,
//! then the earlier one in the policy's order, never past the job's cap.
//!
//! **Placement (Proposition 1).** Whole-machine jobs take free machines,
//! then the sub-machine jobs (powers of two) are packed in decreasing size;
//! since every size divides the machine size, any machine with room works,
//! so each job picks the machine holding most of its previous GPUs (then
//! the fullest that fits), and inside it its previous GPU indices. A job
//! migrates (keeps none of its GPUs) only when no such choice exists.
//! The paper gives the objective, not this greedy; it is ours.

use super::{node_mask, Cluster, NodeShare, Placement};

/// Is `r` a compliant share for machines of `node` GPUs (a power of two)?
pub fn is_compliant(r: u32, node: u32) -> bool {
    r == 0 || (r < node && r.is_power_of_two()) || r.is_multiple_of(node)
}

/// x_i of Proposition 2: the largest compliant share not above `s`.
pub fn floor_compliant(s: u32, node: u32) -> u32 {
    if s == 0 {
        0
    } else if s > node {
        s / node * node
    } else {
        1 << (31 - s.leading_zeros())
    }
}

/// Regulates `shares` (in priority order) for machines of `node` GPUs:
/// compliant results r_i ≥ x_i, r_i ≤ max(caps_i, x_i), Σr = Σs when the
/// caps allow (Proposition 2), otherwise the rest stays idle.
pub fn regulate(shares: &[u32], caps: &[u32], node: u32) -> Vec<u32> {
    let mut r: Vec<u32> = shares.iter().map(|&s| floor_compliant(s, node)).collect();
    let mut d: u64 =
        shares.iter().map(|&s| s as u64).sum::<u64>() - r.iter().map(|&x| x as u64).sum::<u64>();
    let deficit = |r: &[u32], i: usize| shares[i] as i64 - r[i] as i64;
    while d > 0 {
        // Method 1: one more whole machine for a job that has whole machines.
        let m1 = (d >= node as u64)
            .then(|| {
                (0..r.len())
                    .filter(|&i| r[i] >= node && r[i] + node <= caps[i].max(r[i]))
                    .max_by_key(|&i| (deficit(&r, i), std::cmp::Reverse(i)))
            })
            .flatten();
        if let Some(i) = m1 {
            r[i] += node;
            d -= node as u64;
            continue;
        }
        // Method 2: double a sub-machine share.
        let m2 = (0..r.len())
            .filter(|&i| {
                r[i] > 0 && r[i] < node && r[i] as u64 <= d && 2 * r[i] <= caps[i].max(r[i])
            })
            .max_by_key(|&i| (deficit(&r, i), std::cmp::Reverse(i)));
        match m2 {
            Some(i) => {
                d -= r[i] as u64;
                r[i] *= 2;
            }
            None => break,
        }
    }
    r
}

/// Which machine sizes netpack can work with: one GPU type, every node the
/// same power-of-two size.
pub fn node_size(cluster: &Cluster) -> Option<u32> {
    let n = cluster.nodes.first()?.gpus;
    (cluster.kinds.len() == 1 && n.is_power_of_two() && cluster.nodes.iter().all(|x| x.gpus == n))
        .then_some(n)
}

/// Places compliant shares (Proposition 1), keeping previous GPUs where it
/// can. `jobs` holds (job, share, previous placement). Returns None if the
/// shares do not fit (non-compliant or more than the cluster).
pub fn place(
    cluster: &Cluster,
    jobs: &[(u32, u32, Option<&Placement>)],
) -> Option<Vec<(u32, Placement)>> {
    let node = node_size(cluster)?;
    let kind = cluster.kinds[0];
    let full = node_mask(node);
    let mut free: Vec<u64> = vec![full; cluster.nodes.len()];
    let prev_mask = |p: Option<&Placement>, n: usize| -> u64 {
        p.and_then(|p| p.shares.iter().find(|s| s.node as usize == n))
            .map_or(0, |s| s.mask)
    };
    let mut order: Vec<usize> = (0..jobs.len()).filter(|&i| jobs[i].1 > 0).collect();
    if order.iter().any(|&i| !is_compliant(jobs[i].1, node)) {
        return None;
    }
    // Largest first; among equals, jobs with previous GPUs first (they have
    // something to keep), then by id.
    schedlab_core::sorting::sort_by_key(&mut order, |&i| {
        (std::cmp::Reverse(jobs[i].1), jobs[i].2.is_none(), jobs[i].0)
    });
    // GPUs anyone in this plan held before: others avoid them when they can.
    let mut prev_all = vec![0u64; free.len()];
    for (_, _, p) in jobs {
        for s in p.iter().flat_map(|p| p.shares.iter()) {
            if let Some(m) = prev_all.get_mut(s.node as usize) {
                *m |= s.mask;
            }
        }
    }
    let mut out = Vec::with_capacity(order.len());
    for i in order {
        let (job, r, prev) = jobs[i];
        let mut shares = Vec::new();
        if r >= node {
            let mut need = r / node;
            let mut cands: Vec<usize> = (0..free.len()).filter(|&n| free[n] == full).collect();
            schedlab_core::sorting::sort_by_key(&mut cands, |&n| {
                let own = prev_mask(prev, n);
                (
                    std::cmp::Reverse(own.count_ones()),
                    (prev_all[n] & !own).count_ones(),
                    n,
                )
            });
            for n in cands {
                if need == 0 {
                    break;
                }
                free[n] = 0;
                shares.push(NodeShare {
                    node: n as u32,
                    mask: full,
                });
                need -= 1;
            }
            if need > 0 {
                return None;
            }
        } else {
            let n = (0..free.len())
                .filter(|&n| free[n].count_ones() >= r)
                .min_by_key(|&n| {
                    let own = prev_mask(prev, n);
                    let others = (free[n] & prev_all[n] & !own).count_ones();
                    (
                        std::cmp::Reverse((free[n] & own).count_ones()),
                        free[n].count_ones() - others < r,
                        free[n].count_ones(),
                        n,
                    )
                })?;
            let own = prev_mask(prev, n);
            let keep = free[n] & own;
            let fresh = free[n] & !own & !prev_all[n];
            let mut mask = 0u64;
            let mut need = r;
            for pool in [keep, fresh, free[n] & !keep & !fresh] {
                let mut m = pool;
                while need > 0 && m != 0 {
                    let bit = m & m.wrapping_neg();
                    mask |= bit;
                    m &= m - 1;
                    need -= 1;
                }
            }
            free[n] &= !mask;
            shares.push(NodeShare {
                node: n as u32,
                mask,
            });
        }
        schedlab_core::sorting::sort_by_key(&mut shares, |s| s.node);
        out.push((job, Placement::whole(kind, shares)));
    }
    Some(out)
}

/// Did a job keep none of its previous GPUs (a migration)?
pub fn migrated(old: &Placement, new: &Placement) -> bool {
    !old.shares.iter().any(|o| {
        new.shares
            .iter()
            .any(|s| s.node == o.node && s.mask & o.mask != 0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::parse_cluster;

    #[test]
    fn compliant_values_for_four_gpu_machines() {
        let ok: Vec<u32> = (0..=17).filter(|&r| is_compliant(r, 4)).collect();
        assert_eq!(ok, vec![0, 1, 2, 4, 8, 12, 16]);
        assert_eq!(floor_compliant(3, 4), 2);
        assert_eq!(floor_compliant(7, 4), 4);
        assert_eq!(floor_compliant(4, 4), 4);
        assert_eq!(floor_compliant(13, 4), 12);
    }

    #[test]
    fn regulation_keeps_the_total() {
        // 3 + 3 + 7 + 3 = 16 on 4-GPU machines.
        let s = [3, 3, 7, 3];
        let r = regulate(&s, &[64; 4], 4);
        assert!(r.iter().all(|&x| is_compliant(x, 4)), "{r:?}");
        assert_eq!(r.iter().sum::<u32>(), 16, "{r:?}");
        for (x, si) in r.iter().zip(s) {
            assert!(*x >= floor_compliant(si, 4));
        }
    }

    #[test]
    fn placement_uses_fewest_machines_and_keeps_gpus() {
        let c = parse_cluster("gtx1080:4x4").unwrap();
        let first = place(
            &c,
            &[
                (1, 8, None),
                (2, 2, None),
                (3, 4, None),
                (4, 1, None),
                (5, 1, None),
            ],
        )
        .unwrap();
        let get =
            |v: &[(u32, Placement)], j: u32| v.iter().find(|(x, _)| *x == j).unwrap().1.clone();
        assert_eq!(get(&first, 1).nodes(), 2);
        assert_eq!(get(&first, 2).nodes(), 1);
        assert_eq!(get(&first, 3).nodes(), 1);
        // Job 1 shrinks to 4: it keeps one of its machines.
        let p1 = get(&first, 1);
        let p3 = get(&first, 3);
        let second = place(&c, &[(1, 4, Some(&p1)), (3, 8, Some(&p3))]).unwrap();
        assert!(!migrated(&p1, &get(&second, 1)));
        assert!(!migrated(&p3, &get(&second, 3)));
    }
}
