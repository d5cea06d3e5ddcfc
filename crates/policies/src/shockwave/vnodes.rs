//! The heterogeneity-unaware view Sia's simulator gives Pollux and
//! Shockwave (thesis §3.4.3; spec seed004 §3.3 and §3.5): every node is
//! split into 4-GPU virtual nodes and all GPUs look alike. A job's GPUs are
//! taken from the freest virtual nodes first; when they span several types,
//! the job is re-packed onto the type holding most of them (ties go to the
//! more powerful type: a100 > quad > rtx > t4); if it does not fit there,
//! the next type in that order is tried.

use schedlab_model::cluster::{node_mask, Cluster, GpuKind, Packer, Placement};

/// Tie order of the majority-type repair (most powerful first); types not
/// listed rank after these, by catalog memory.
const POWER: &[&str] = &[
    "a100-80",
    "a100",
    "a100-pcie",
    "v100",
    "a10",
    "quad",
    "rtx",
    "p100",
    "t4",
    "gtx1080",
    "k80",
    "m60",
];

fn power_rank(k: GpuKind) -> usize {
    POWER
        .iter()
        .position(|n| *n == k.name())
        .unwrap_or(POWER.len())
}

/// One virtual node: a slice of a physical node's GPUs.
#[derive(Debug, Clone, Copy)]
struct VNode {
    node: u32,
    kind: GpuKind,
    mask: u64,
}

/// Virtual nodes plus which GPUs are taken.
pub struct VirtualView<'c> {
    vnodes: Vec<VNode>,
    used: Vec<u64>,
    cluster: &'c Cluster,
}

impl<'c> VirtualView<'c> {
    /// Splits every node into `size`-GPU virtual nodes (the last one of a
    /// node may be smaller).
    pub fn new(cluster: &'c Cluster, size: u32) -> Self {
        let size = size.max(1);
        let mut vnodes = Vec::new();
        for n in &cluster.nodes {
            let mut first = 0;
            while first < n.gpus {
                let len = size.min(n.gpus - first);
                vnodes.push(VNode {
                    node: n.id,
                    kind: n.kind,
                    mask: node_mask(len) << first,
                });
                first += len;
            }
        }
        VirtualView {
            vnodes,
            used: vec![0; cluster.nodes.len()],
            cluster,
        }
    }

    /// Marks a placement's GPUs as taken.
    pub fn take(&mut self, p: &Placement) {
        for s in &p.shares {
            self.used[s.node as usize] |= s.mask;
        }
    }

    fn free_in(&self, v: &VNode) -> u32 {
        (v.mask & !self.used[v.node as usize]).count_ones()
    }

    /// Free GPUs of the whole cluster, as the unaware scheduler counts them.
    pub fn free_total(&self) -> u32 {
        self.cluster
            .nodes
            .iter()
            .map(|n| (node_mask(n.gpus) & !self.used[n.id as usize]).count_ones())
            .sum()
    }

    /// The types an unaware allocation of `count` GPUs is repaired onto,
    /// in order: the type holding most of its virtual GPUs first (ties: the
    /// more powerful type), then the other types it touched, then the rest
    /// by power. Empty if the cluster has fewer free GPUs.
    pub fn repair_order(&self, count: u32) -> Vec<GpuKind> {
        if count == 0 || self.free_total() < count {
            return Vec::new();
        }
        let mut order: Vec<usize> = (0..self.vnodes.len()).collect();
        schedlab_core::sorting::sort_by_key(&mut order, |&i| {
            (std::cmp::Reverse(self.free_in(&self.vnodes[i])), i)
        });
        let mut need = count;
        let mut by_kind: Vec<(GpuKind, u32)> = self.cluster.kinds.iter().map(|k| (*k, 0)).collect();
        for i in order {
            if need == 0 {
                break;
            }
            let v = &self.vnodes[i];
            let take = self.free_in(v).min(need);
            if take == 0 {
                break;
            }
            need -= take;
            if let Some(e) = by_kind.iter_mut().find(|(k, _)| *k == v.kind) {
                e.1 += take;
            }
        }
        schedlab_core::sorting::sort_by_key(&mut by_kind, |(k, n)| {
            (std::cmp::Reverse(*n), power_rank(*k), k.0)
        });
        by_kind.into_iter().map(|(k, _)| k).collect()
    }

    /// The majority type of an unaware allocation of `count` GPUs.
    pub fn majority_kind(&self, count: u32) -> Option<GpuKind> {
        self.repair_order(count).first().copied()
    }

    /// Places a job the unaware way: on the majority type if it fits there,
    /// else on the next type of `repair_order` where it fits (the artifact
    /// skips the job instead, which can starve a job whose majority type is
    /// too small for it; see docs/SIA.md). None if it fits nowhere.
    pub fn place(&mut self, packer: &mut Packer, job: u32, count: u32) -> Option<Placement> {
        let p = self
            .repair_order(count)
            .into_iter()
            .find_map(|kind| packer.claim(job, kind, count))?;
        self.take(&p);
        Some(p)
    }
}
