//! Pollux's view of a cluster: 4-GPU virtual nodes (thesis §3.4.3: "every
//! node is presented as 4-GPU virtual nodes"; an 8-GPU node is two), so the
//! heterogeneity-unaware genetic algorithm sees one homogeneous grid.

use schedlab_model::cluster::{Cluster, GpuKind, NodeShare, Placement};

/// A virtual node: `gpus` GPUs of physical node `node` starting at bit `offset`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VNode {
    pub node: u32,
    pub offset: u32,
    pub gpus: u32,
    pub kind: GpuKind,
}

/// Size of a virtual node.
pub const VNODE_GPUS: u32 = 4;

pub fn virtual_nodes(cluster: &Cluster) -> Vec<VNode> {
    let mut out = Vec::new();
    for n in &cluster.nodes {
        let mut offset = 0;
        while offset < n.gpus {
            let gpus = VNODE_GPUS.min(n.gpus - offset);
            out.push(VNode {
                node: n.id,
                offset,
                gpus,
                kind: n.kind,
            });
            offset += gpus;
        }
    }
    out
}

/// Preference when a job's GPUs span types: the majority type wins, ties go
/// to the more powerful type (a100 > quad > rtx > t4, then catalog order).
pub fn type_rank(kind: GpuKind) -> u32 {
    match kind.name() {
        "a100" | "a100-80" => 0,
        "quad" => 1,
        "rtx" => 2,
        "t4" => 3,
        _ => 4 + kind.0 as u32,
    }
}

/// The majority type of a row (ties to the faster type), if any GPUs.
pub fn majority_kind(vnodes: &[VNode], row: &[u8]) -> Option<GpuKind> {
    let mut per_kind: Vec<(GpuKind, u32)> = Vec::new();
    for (v, r) in vnodes.iter().zip(row) {
        if *r > 0 {
            match per_kind.iter_mut().find(|(k, _)| *k == v.kind) {
                Some(e) => e.1 += *r as u32,
                None => per_kind.push((v.kind, *r as u32)),
            }
        }
    }
    per_kind
        .iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(type_rank(b.0).cmp(&type_rank(a.0))))
        .map(|e| e.0)
}

/// Turns rows of replicas per virtual node into placements. GPUs of a
/// job's minority types are dropped (they stay idle this round); a job keeps
/// the very GPUs it holds on a virtual node where its count is unchanged,
/// and other replicas take the lowest free GPUs of the virtual node.
pub fn decode(
    vnodes: &[VNode],
    rows: &[&[u8]],
    current: &[Option<&Placement>],
) -> Vec<Option<Placement>> {
    let vmask = |v: &VNode| ((1u64 << v.gpus) - 1) << v.offset;
    let mut used: Vec<u64> = vec![0; vnodes.len()];
    let mut bits: Vec<Vec<u64>> = vec![vec![0; vnodes.len()]; rows.len()];
    let kinds: Vec<Option<GpuKind>> = rows.iter().map(|r| majority_kind(vnodes, r)).collect();
    // Unchanged counts keep their GPUs.
    for (j, row) in rows.iter().enumerate() {
        let Some(cur) = current[j] else { continue };
        for (c, v) in vnodes.iter().enumerate() {
            if row[c] == 0 || Some(v.kind) != kinds[j] || cur.kind != v.kind {
                continue;
            }
            let held = cur
                .shares
                .iter()
                .find(|s| s.node == v.node)
                .map_or(0, |s| s.mask & vmask(v));
            if held.count_ones() == row[c] as u32 && held & used[c] == 0 {
                bits[j][c] = held;
                used[c] |= held;
            }
        }
    }
    for (j, row) in rows.iter().enumerate() {
        for (c, v) in vnodes.iter().enumerate() {
            if row[c] == 0 || bits[j][c] != 0 || Some(v.kind) != kinds[j] {
                continue;
            }
            let mut free = vmask(v) & !used[c];
            let mut take = 0u64;
            for _ in 0..row[c] {
                if free == 0 {
                    break;
                }
                let bit = free & free.wrapping_neg();
                take |= bit;
                free &= !bit;
            }
            bits[j][c] = take;
            used[c] |= take;
        }
    }
    (0..rows.len())
        .map(|j| {
            let kind = kinds[j]?;
            let mut shares: Vec<NodeShare> = Vec::new();
            for (c, v) in vnodes.iter().enumerate() {
                if bits[j][c] == 0 {
                    continue;
                }
                match shares.iter_mut().find(|s| s.node == v.node) {
                    Some(s) => s.mask |= bits[j][c],
                    None => shares.push(NodeShare {
                        node: v.node,
                        mask: bits[j][c],
                    }),
                }
            }
            schedlab_core::sorting::sort_by_key(&mut shares, |s| s.node);
            (!shares.is_empty()).then_some(Placement::whole(kind, shares))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::cluster::parse_cluster;

    #[test]
    fn eight_gpu_nodes_become_two_virtual_nodes() {
        let c = parse_cluster("sia-hetero-64").unwrap();
        let v = virtual_nodes(&c);
        assert_eq!(v.len(), 16);
        assert_eq!(v.iter().filter(|x| x.kind.name() == "rtx").count(), 6);
        assert_eq!(v.iter().filter(|x| x.kind.name() == "a100").count(), 4);
    }

    #[test]
    fn majority_type_wins_ties_to_the_faster_type() {
        let c = parse_cluster("t4:1x4,a100:1x8").unwrap();
        let v = virtual_nodes(&c);
        // 2 on t4, 2 on a100: tie, a100 wins; 4 GPUs on the a100 node's two vnodes.
        let p = decode(&v, &[&[2, 1, 1]], &[None]).remove(0).unwrap();
        assert_eq!(p.kind.name(), "a100");
        assert_eq!(p.gpus(), 2);
        assert_eq!(p.shares[0].mask, 0b1_0001);
        let p = decode(&v, &[&[3, 1, 0]], &[None]).remove(0).unwrap();
        assert_eq!(p.kind.name(), "t4");
        assert_eq!(p.gpus(), 3);
        assert!(decode(&v, &[&[0, 0, 0]], &[None])[0].is_none());
    }

    #[test]
    fn jobs_sharing_a_node_get_disjoint_gpus_and_keep_theirs() {
        let c = parse_cluster("t4:2x4").unwrap();
        let v = virtual_nodes(&c);
        let held = Placement::whole(
            v[1].kind,
            vec![NodeShare {
                node: 1,
                mask: 0b1100,
            }],
        );
        let out = decode(&v, &[&[2, 2], &[0, 1]], &[Some(&held), None]);
        let (a, b) = (out[0].as_ref().unwrap(), out[1].as_ref().unwrap());
        assert_eq!(a.shares[1].mask, 0b1100, "kept its GPUs on node 1");
        assert_eq!(b.shares[0].mask & a.shares[1].mask, 0);
        assert_eq!(b.gpus(), 1);
    }
}
