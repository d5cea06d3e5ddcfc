//! Sia's configurations (thesis §3.3.3, spec seed004 §2.4, E11): per GPU
//! type, one-node configurations with a power-of-two GPU count up to the
//! node size, then whole-node configurations of 2..N nodes. About
//! N + log2(R) per type instead of Pollux's O(N^R) placements, and each one
//! can be placed without splitting a partial node.

use schedlab_model::cluster::{Cluster, GpuKind};

/// A configuration: `nodes` nodes holding `gpus` GPUs of `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Config {
    pub kind: GpuKind,
    pub nodes: u32,
    pub gpus: u32,
}

/// The artifact's per-type node caps (most nodes profiled per type).
fn artifact_node_cap(kind: GpuKind) -> Option<u32> {
    match kind.name() {
        "t4" => Some(16),
        "rtx" => Some(3),
        "a100" => Some(2),
        "quad" => Some(1),
        _ => None,
    }
}

/// How many nodes a multi-node configuration may span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeCap {
    /// min(N, 64 / R): at most 64 GPUs per job (spec's recommended reading).
    Gpus64,
    /// The artifact's profiled caps (t4 16, rtx 3, a100 2, quad 1), else as Gpus64.
    Artifact,
    /// Every node of the type.
    Unlimited,
}

/// All configurations of a cluster, grouped by type in cluster order.
pub fn configurations(cluster: &Cluster, cap: NodeCap) -> Vec<Config> {
    let mut out = Vec::new();
    for &kind in &cluster.kinds {
        let r = cluster.max_node_gpus(kind);
        let n = cluster.nodes_of(kind);
        if r == 0 || n == 0 {
            continue;
        }
        let mut g = 1;
        while g <= r {
            out.push(Config {
                kind,
                nodes: 1,
                gpus: g,
            });
            g *= 2;
        }
        // A node size that is not a power of two is also offered whole
        // (its power-of-two "virtual nodes" together).
        if !r.is_power_of_two() {
            out.push(Config {
                kind,
                nodes: 1,
                gpus: r,
            });
        }
        let gpus64 = (64 / r).max(1);
        let max_nodes = match cap {
            NodeCap::Gpus64 => n.min(gpus64),
            NodeCap::Artifact => n.min(artifact_node_cap(kind).unwrap_or(gpus64)),
            NodeCap::Unlimited => n,
        };
        for k in 2..=max_nodes {
            out.push(Config {
                kind,
                nodes: k,
                gpus: k * r,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::cluster::parse_cluster;

    fn shape(c: &[Config]) -> Vec<(&'static str, u32, u32)> {
        c.iter().map(|x| (x.kind.name(), x.nodes, x.gpus)).collect()
    }

    /// The configuration table of spec §2.4.
    #[test]
    fn the_papers_clusters() {
        let hetero = configurations(&parse_cluster("sia-hetero-64").unwrap(), NodeCap::Gpus64);
        assert_eq!(hetero.len(), 19);
        assert_eq!(hetero.iter().filter(|c| c.kind.name() == "t4").count(), 8);
        assert_eq!(hetero.iter().filter(|c| c.kind.name() == "rtx").count(), 6);
        assert_eq!(hetero.iter().filter(|c| c.kind.name() == "a100").count(), 5);
        let homog = configurations(&parse_cluster("homog-64").unwrap(), NodeCap::Gpus64);
        assert_eq!(homog.len(), 18);
        assert_eq!(homog.last().map(|c| (c.nodes, c.gpus)), Some((16, 64)));
        let phys = configurations(&parse_cluster("sia-physical-44").unwrap(), NodeCap::Gpus64);
        assert_eq!(phys.len(), 14);
        let example = configurations(&parse_cluster("a100:1x2,rtx:1x4").unwrap(), NodeCap::Gpus64);
        assert_eq!(
            shape(&example),
            vec![
                ("a100", 1, 1),
                ("a100", 1, 2),
                ("rtx", 1, 1),
                ("rtx", 1, 2),
                ("rtx", 1, 4)
            ]
        );
    }

    #[test]
    fn caps_at_scale() {
        let big = parse_cluster("sia-hetero-2048").unwrap();
        let rtx = |c: &[Config]| {
            c.iter()
                .filter(|x| x.kind.name() == "rtx")
                .map(|x| x.nodes)
                .max()
        };
        assert_eq!(rtx(&configurations(&big, NodeCap::Gpus64)), Some(8));
        assert_eq!(rtx(&configurations(&big, NodeCap::Artifact)), Some(3));
        assert_eq!(rtx(&configurations(&big, NodeCap::Unlimited)), Some(96));
    }

    #[test]
    fn non_power_of_two_nodes() {
        let c = configurations(&parse_cluster("v100:2x6").unwrap(), NodeCap::Gpus64);
        assert_eq!(
            shape(&c),
            vec![
                ("v100", 1, 1),
                ("v100", 1, 2),
                ("v100", 1, 4),
                ("v100", 1, 6),
                ("v100", 2, 12)
            ]
        );
    }
}
