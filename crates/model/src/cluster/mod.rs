//! The cluster: GPU types, nodes, racks, named built-in clusters, and
//! placement of allocations on physical GPUs.

pub mod cells;
mod gpu;
pub mod netpack;
mod placement;
pub mod pools;
mod spec;

pub use gpu::{GpuKind, GpuType, CATALOG};
pub use placement::{
    gpu_mem_mb, node_mask, NodeShare, Packer, Part, Placement, PlacementRule, Slice,
};
pub use pools::{Pool, PoolId, Pools, NO_POOL};
pub use spec::{builtin_clusters, parse_cluster, BuiltinCluster};

use serde::Serialize;

/// A node: `gpus` GPUs of one type. GPUs are numbered cluster-wide,
/// node by node, starting at `first_gpu`.
#[derive(Debug, Clone, Serialize)]
pub struct Node {
    pub id: u32,
    pub kind: GpuKind,
    pub gpus: u32,
    pub first_gpu: u32,
    pub rack: u32,
}

/// A homogeneous group of nodes as written in a cluster spec
/// (`TYPE:NODESxGPUS`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeGroup {
    pub kind: GpuKind,
    pub nodes: u32,
    pub gpus_per_node: u32,
}

/// A cluster of nodes, possibly of several GPU types.
#[derive(Debug, Clone, Serialize)]
pub struct Cluster {
    /// The name or spec string the user gave.
    pub name: String,
    /// The groups, in spec order.
    pub groups: Vec<NodeGroup>,
    pub nodes: Vec<Node>,
    /// GPU types present, in first-appearance order.
    pub kinds: Vec<GpuKind>,
    pub total_gpus: u32,
    /// Tenants' GPU quotas, if the run declares pools (`pools.rs`).
    pub pools: Pools,
}

/// Largest cluster accepted (keeps memory bounded for hostile specs).
pub const MAX_CLUSTER_GPUS: u32 = 1 << 20;
/// Largest node accepted: placement tracks a node's GPUs in a 64-bit mask.
pub const MAX_GPUS_PER_NODE: u32 = 64;

impl Cluster {
    /// Takes the pools a trace declares unless the run declared its own
    /// (`--pools` wins), then checks the quotas fit the cluster.
    pub fn adopt_pools(&mut self, from_trace: &Pools) -> schedlab_core::error::Result<()> {
        if self.pools.is_empty() {
            self.pools = from_trace.clone();
        }
        self.pools.check(&self.name, self.total_gpus)
    }

    /// Builds a cluster from groups; `rack_size` nodes per rack (0 = one rack).
    pub fn from_groups(name: impl Into<String>, groups: Vec<NodeGroup>, rack_size: u32) -> Cluster {
        let mut nodes = Vec::new();
        let mut kinds = Vec::new();
        let mut next_gpu = 0u32;
        for g in &groups {
            if !kinds.contains(&g.kind) {
                kinds.push(g.kind);
            }
            for _ in 0..g.nodes {
                let id = nodes.len() as u32;
                nodes.push(Node {
                    id,
                    kind: g.kind,
                    gpus: g.gpus_per_node,
                    first_gpu: next_gpu,
                    rack: id.checked_div(rack_size).unwrap_or(0),
                });
                next_gpu += g.gpus_per_node;
            }
        }
        Cluster {
            name: name.into(),
            groups,
            nodes,
            kinds,
            total_gpus: next_gpu,
            pools: Pools::default(),
        }
    }

    /// Total GPUs of one type.
    pub fn gpus_of(&self, kind: GpuKind) -> u32 {
        self.nodes
            .iter()
            .filter(|n| n.kind == kind)
            .map(|n| n.gpus)
            .sum()
    }

    /// Largest node size of one type (0 if the type is absent).
    pub fn max_node_gpus(&self, kind: GpuKind) -> u32 {
        self.nodes
            .iter()
            .filter(|n| n.kind == kind)
            .map(|n| n.gpus)
            .max()
            .unwrap_or(0)
    }

    /// Number of nodes of one type.
    pub fn nodes_of(&self, kind: GpuKind) -> u32 {
        self.nodes.iter().filter(|n| n.kind == kind).count() as u32
    }

    /// The largest number of GPUs any single type offers: a rigid job asking
    /// for more can never run.
    pub fn max_gpus_one_type(&self) -> u32 {
        self.kinds
            .iter()
            .map(|k| self.gpus_of(*k))
            .max()
            .unwrap_or(0)
    }

    /// The spec string that rebuilds this cluster (`t4:6x4,rtx:3x8`).
    pub fn spec_string(&self) -> String {
        self.groups
            .iter()
            .map(|g| format!("{}:{}x{}", g.kind.name(), g.nodes, g.gpus_per_node))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Node that holds a cluster-wide GPU index.
    pub fn node_of_gpu(&self, gpu: u32) -> &Node {
        let idx = self
            .nodes
            .partition_point(|n| n.first_gpu + n.gpus <= gpu)
            .min(self.nodes.len() - 1);
        &self.nodes[idx]
    }
}
