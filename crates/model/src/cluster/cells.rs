//! Locality cells (HiveD's cell model without preemption; spec seed000
//! §2.8): a node's GPUs form a buddy tree of aligned power-of-two cells
//! (1, 2, 4, .. the node), a job of width g takes one cell of the next
//! power of two on one node (wider jobs: whole nodes plus one such cell),
//! and pools own *home cells*, their quotas laid out once as buddy cells.
//!
//! `engine.placement=cells` turns it on for every policy: claims through a
//! [`super::Packer`] pick cells by buddy best fit (the cell whose largest
//! free enclosing block is smallest, then the fullest node), so large cells
//! stay whole; policies that keep pools within quota (per-pool FCFS, the
//! dedicated streams) place in-quota jobs inside the pool's home cells
//! (`View::home_cells`), which makes the no-sharing reference a real
//! HiveD-style partition of the servers.

use super::{node_mask, Cluster, GpuKind, NodeShare, Placement, Pools};
use schedlab_core::error::{Error, Result};

/// The cell a job of `gpus` GPUs takes on one node: the next power of two.
pub fn cell_gpus(gpus: u32) -> u32 {
    gpus.max(1).next_power_of_two()
}

/// Mask of the aligned block of `size` GPUs at `offset`.
fn block(offset: u32, size: u32) -> u64 {
    node_mask(size) << offset
}

/// Size of the largest fully free aligned block (within a node of
/// `node_gpus`) that contains the free cell at `offset` of `size`.
fn free_enclosing(avail: u64, node_gpus: u32, offset: u32, size: u32) -> u32 {
    let mut b = size;
    while b * 2 <= node_gpus {
        let o = offset & !(b * 2 - 1);
        if avail & block(o, b * 2) != block(o, b * 2) {
            break;
        }
        b *= 2;
    }
    b
}

/// The best cell for `count` GPUs (at most a node) among `avail`'s free
/// GPUs on nodes of `kind` (any kind when `None`): an aligned block of
/// `cell_gpus(count)` (or a whole node of exactly `count`) holding `count`
/// free GPUs, by buddy best fit (the
/// smallest fully free enclosing block, then the fullest node, then the
/// lowest node and offset). Returns the node and the GPUs taken.
pub fn best_cell(
    cluster: &Cluster,
    kind: Option<GpuKind>,
    count: u32,
    avail: &[u64],
) -> Option<(u32, u64)> {
    // (enclosing free block, free GPUs on the node, node, offset): smaller is better.
    type Key = (u32, u32, u32, u32);
    let mut best: Option<(Key, u32, u64)> = None;
    for n in &cluster.nodes {
        // A whole node is a cell whatever its size (nodes of 6 GPUs too).
        let size = if count == n.gpus {
            n.gpus
        } else {
            cell_gpus(count)
        };
        if kind.is_some_and(|k| k != n.kind) || size > n.gpus {
            continue;
        }
        let a = avail[n.id as usize];
        if a.count_ones() < count {
            continue;
        }
        for offset in (0..=n.gpus - size).step_by(size as usize) {
            let free = a & block(offset, size);
            if free.count_ones() < count {
                continue;
            }
            let whole = free == block(offset, size);
            let enclosing = if whole {
                free_enclosing(a, n.gpus, offset, size)
            } else {
                0
            };
            let key = (enclosing, a.count_ones(), n.id, offset);
            if best.as_ref().is_none_or(|b| key < b.0) {
                best = Some((key, n.id, super::placement::take_bits(free, 0, count)));
            }
        }
    }
    best.map(|(_, node, mask)| (node, mask))
}

/// Where `count` GPUs of `kind` go under the cells rule within `avail`:
/// one cell on one node when the job fits a node, else whole free nodes
/// (lowest ids) plus one cell for the remainder.
pub fn find(cluster: &Cluster, kind: GpuKind, count: u32, avail: &[u64]) -> Option<Placement> {
    let node_gpus = cluster.max_node_gpus(kind);
    if node_gpus == 0 || count == 0 {
        return None;
    }
    if count <= node_gpus {
        let (node, mask) = best_cell(cluster, Some(kind), count, avail)?;
        return Some(Placement::whole(kind, vec![NodeShare { node, mask }]));
    }
    let mut rest = avail.to_vec();
    let mut shares = Vec::new();
    let mut need = count;
    for n in cluster.nodes.iter().filter(|n| n.kind == kind) {
        if need >= n.gpus && rest[n.id as usize] == node_mask(n.gpus) {
            shares.push(NodeShare {
                node: n.id,
                mask: node_mask(n.gpus),
            });
            rest[n.id as usize] = 0;
            need -= n.gpus;
        }
    }
    if need >= node_gpus {
        return None;
    }
    if need > 0 {
        let (node, mask) = best_cell(cluster, Some(kind), need, &rest)?;
        shares.push(NodeShare { node, mask });
    }
    schedlab_core::sorting::sort_by_key(&mut shares, |s| s.node);
    Some(Placement::whole(kind, shares))
}

/// The buddy of the cell a share occupies: the sibling of the smallest
/// aligned block holding its GPUs (none for a whole node). Opportunistic
/// jobs stay out of dedicated jobs' buddies so that a pool's cells can
/// merge back into larger ones (§2.8).
pub fn buddy(mask: u64, node_gpus: u32) -> u64 {
    if mask == 0 {
        return 0;
    }
    let mut size = cell_gpus(mask.count_ones());
    let mut offset = mask.trailing_zeros() & !(size - 1);
    while size < node_gpus && mask & !block(offset, size) != 0 {
        size *= 2;
        offset &= !(size - 1);
    }
    if size >= node_gpus {
        return 0;
    }
    block(offset ^ size, size)
}

/// Every pool's home cells: GPUs per node (masks), in pool order.
#[derive(Debug, Clone, PartialEq)]
pub struct Homes {
    masks: Vec<Vec<u64>>,
}

impl Homes {
    /// Lays each pool's quota out as buddy cells: whole nodes of the
    /// largest node size, then the powers of two of the remainder, placed
    /// largest first (pools by decreasing quota, then declaration order),
    /// each next to the pool's own cells when it can. An error names the
    /// pool that does not fit.
    pub fn bind(cluster: &Cluster, pools: &Pools) -> Result<Homes> {
        let largest = cluster.nodes.iter().map(|n| n.gpus).max().unwrap_or(0);
        let mut free: Vec<u64> = cluster.nodes.iter().map(|n| node_mask(n.gpus)).collect();
        let mut masks = vec![vec![0u64; cluster.nodes.len()]; pools.len()];
        // Every pool's cells, largest first (buddy allocation of decreasing
        // sizes packs), pools by decreasing quota within a size.
        let mut cells: Vec<(u32, usize)> = Vec::new();
        for (p, pool) in pools.pools.iter().enumerate() {
            let whole = (pool.quota / largest.max(1)) as usize;
            cells.extend(std::iter::repeat_n((largest, p), whole));
            let rest = pool.quota % largest.max(1);
            cells.extend(
                (0..32)
                    .rev()
                    .map(|b| (1u32 << b, p))
                    .filter(|(c, _)| rest & c != 0),
            );
        }
        schedlab_core::sorting::sort_by_key(&mut cells, |&(size, p)| {
            (
                std::cmp::Reverse(size),
                std::cmp::Reverse(pools.pools[p].quota),
                p,
            )
        });
        for (size, p) in cells {
            let pool = &pools.pools[p];
            // Next to the pool's own cells first, so that a pool's home
            // stays on as few servers as it can.
            let near: Vec<u64> = free
                .iter()
                .zip(&masks[p])
                .map(|(&f, &mine)| if mine != 0 { f } else { 0 })
                .collect();
            let found = best_cell(cluster, None, size, &near)
                .or_else(|| best_cell(cluster, None, size, &free));
            let Some((node, mask)) = found else {
                return Err(Error::config(format!(
                    "engine.placement=cells: pool '{}' (quota {}) does not fit cluster {} as locality cells: no free aligned cell of {size} GPUs is left (every pool's quota must lay out as whole nodes and power-of-two cells)",
                    pool.name, pool.quota, cluster.name
                )));
            };
            free[node as usize] &= !mask;
            masks[p][node as usize] |= mask;
        }
        Ok(Homes { masks })
    }

    /// The pool's home GPUs per node.
    pub fn of(&self, pool: usize) -> Option<&[u64]> {
        self.masks.get(pool).map(|m| &m[..])
    }

    /// The pool's home GPUs as cluster-wide GPU ids, ascending.
    pub fn gpu_ids(&self, cluster: &Cluster, pool: usize) -> Vec<u32> {
        let Some(masks) = self.of(pool) else {
            return Vec::new();
        };
        cluster
            .nodes
            .iter()
            .zip(masks)
            .flat_map(|(n, &m)| {
                (0..n.gpus)
                    .filter(move |b| m >> b & 1 == 1)
                    .map(move |b| n.first_gpu + b)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::parse_cluster;

    fn v100() -> GpuKind {
        GpuKind::by_name("v100").unwrap()
    }

    #[test]
    fn best_fit_keeps_large_cells_whole() {
        let c = parse_cluster("v100:2x8").unwrap();
        // Node 0 has GPUs 0-1 taken; node 1 is free.
        let avail = vec![0b1111_1100, 0xff];
        // A 2-GPU job goes next to the taken pair (enclosing free block 2),
        // not into a fresh node or the free half of node 0.
        assert_eq!(best_cell(&c, Some(v100()), 2, &avail), Some((0, 0b1100)));
        // A 4-GPU job takes node 0's free half (block 4) rather than node 1 (block 8).
        assert_eq!(
            best_cell(&c, Some(v100()), 4, &avail),
            Some((0, 0b1111_0000))
        );
        // An 8-GPU job needs a whole node.
        assert_eq!(best_cell(&c, Some(v100()), 8, &avail), Some((1, 0xff)));
        // Cells are aligned: 2 GPUs at 1-2 are not a cell.
        assert_eq!(best_cell(&c, Some(v100()), 2, &[0b0110, 0]), None);
    }

    #[test]
    fn a_whole_node_is_a_cell_whatever_its_size() {
        let c = parse_cluster("v100:2x6").unwrap();
        assert_eq!(
            best_cell(&c, None, 6, &[0b111110, 0b111111]),
            Some((1, 0b111111))
        );
        let mut c = parse_cluster("v100:6x6").unwrap();
        c.pools = Pools::parse_list("a=8,b=8,c=8,d=8").unwrap();
        assert!(Homes::bind(&c, &c.pools).is_ok());
    }

    #[test]
    fn wide_jobs_take_whole_nodes_and_one_cell() {
        let c = parse_cluster("v100:3x8").unwrap();
        let p = find(&c, v100(), 12, &[0xff, 0x0f, 0xff]).unwrap();
        assert_eq!(p.gpus(), 12);
        assert_eq!(
            p.shares[0],
            NodeShare {
                node: 0,
                mask: 0xff
            }
        );
        // The remainder takes node 1's free half, the best fit.
        assert_eq!(
            p.shares[1],
            NodeShare {
                node: 1,
                mask: 0x0f
            }
        );
        assert_eq!(
            find(&c, v100(), 20, &[0xff, 0x0f, 0xff]).map(|p| p.gpus()),
            Some(20)
        );
        assert!(find(&c, v100(), 20, &[0xff, 0x07, 0xff]).is_none());
    }

    #[test]
    fn buddies_are_siblings_of_the_smallest_enclosing_cell() {
        assert_eq!(buddy(0b0001, 8), 0b0010);
        assert_eq!(buddy(0b1100, 8), 0b0011);
        assert_eq!(buddy(0b0110, 8), 0b1111_0000);
        assert_eq!(buddy(0xff, 8), 0);
        assert_eq!(buddy(0x0f, 8), 0xf0);
    }

    #[test]
    fn homes_partition_the_cluster_into_pool_cells() {
        let mut c = parse_cluster("v100:4x8").unwrap();
        c.pools = Pools::parse_list("a=8,b=4,c=2,d=16,e=2").unwrap();
        let h = Homes::bind(&c, &c.pools).unwrap();
        let gpus = |p: usize| -> u32 { h.of(p).unwrap().iter().map(|m| m.count_ones()).sum() };
        assert_eq!(
            (gpus(0), gpus(1), gpus(2), gpus(3), gpus(4)),
            (8, 4, 2, 16, 2)
        );
        // No GPU has two owners.
        for node in 0..4 {
            let masks: Vec<u64> = (0..5).map(|p| h.of(p).unwrap()[node]).collect();
            let or = masks.iter().fold(0, |a, m| a | m);
            assert_eq!(
                or.count_ones(),
                masks.iter().map(|m| m.count_ones()).sum::<u32>()
            );
        }
        // The biggest pool gets whole nodes; b, c and e share one node in buddy cells.
        assert_eq!(h.of(3).unwrap().iter().filter(|&&m| m == 0xff).count(), 2);
        // Nodes of 6 GPUs hold one aligned 4-cell each: a third pool of 4 does not fit.
        let mut c = parse_cluster("v100:2x6").unwrap();
        c.pools = Pools::parse_list("a=4,b=4,c=4").unwrap();
        let err = Homes::bind(&c, &c.pools).unwrap_err().to_string();
        assert!(err.contains("pool 'c'") && err.contains("cells"), "{err}");
    }
}
