//! Placement: which physical GPUs an allocation occupies.
//!
//! The [`Packer`] is the one place that turns "job J gets K GPUs of type T"
//! into node-level GPU sets. Policies walk their jobs in priority order and
//! claim through a packer, so a claim that cannot be placed (fragmentation)
//! is seen by the policy at once and it can skip the job, as a real
//! scheduler would.
//!
//! Rules (`PlacementRule::Packed`, the default): a job that fits in one node
//! gets one node; a larger job gets whole free nodes plus at most one partial
//! node. Among candidate nodes the fullest that still fits is chosen (best
//! fit), nodes the job already uses are preferred so that a running job is
//! not moved needlessly. `PlacementRule::Any` spreads over the fewest nodes
//! without the whole-node rule (the AFS paper's identical-latency model).

use super::{Cluster, GpuKind};
use serde::Serialize;

/// GPUs used on one node, as a bit mask over the node's local GPU indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct NodeShare {
    pub node: u32,
    pub mask: u64,
}

impl NodeShare {
    pub fn count(&self) -> u32 {
        self.mask.count_ones()
    }
}

/// A part of one GPU shared with other jobs: a fraction of its compute (in
/// thousandths, so placements compare exactly) and the memory reserved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Slice {
    /// Thousandths of the GPU (1..=1000).
    pub share: u16,
    /// Memory reserved on the GPU, in MB.
    pub mem_mb: u32,
}

impl Slice {
    /// Whole thousandths of a GPU.
    pub const WHOLE: u16 = 1000;

    pub fn fraction(&self) -> f64 {
        self.share as f64 / Self::WHOLE as f64
    }
}

/// A time share of one GPU: the job runs on the GPU for `share`
/// thousandths of the time, other jobs' parts (or nobody) the rest. Fluid
/// allocations (PCS's simulator, spec seed001 §7.7) are whole GPUs plus
/// parts: a job's fractional GPU share laid out on GPUs by McNaughton's
/// wrap-around rule, so that its parts never run at the same instant and it
/// uses at most one GPU beyond its whole ones at a time. Unlike a slice,
/// a part reserves no memory (jobs take turns, they do not co-reside).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Part {
    pub node: u32,
    /// The GPU's index on its node.
    pub gpu: u8,
    /// Thousandths of the GPU's time (1..=1000).
    pub share: u16,
}

impl Part {
    /// The part's GPU as a node mask.
    pub fn mask(&self) -> u64 {
        1u64 << self.gpu
    }
}

/// The physical GPUs of one allocation (all of one type), sorted by node:
/// whole GPUs, or (with `slice`) a part of exactly one GPU that other jobs'
/// slices may share; a fluid allocation adds time-shared `parts` to its
/// whole GPUs (possibly none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Placement {
    pub kind: GpuKind,
    pub shares: Vec<NodeShare>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slice: Option<Slice>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Part>,
}

impl Placement {
    /// Whole GPUs on the given nodes.
    pub fn whole(kind: GpuKind, shares: Vec<NodeShare>) -> Placement {
        Placement {
            kind,
            shares,
            slice: None,
            parts: Vec::new(),
        }
    }

    /// Whole GPUs plus time-shared parts (a fluid allocation).
    pub fn fluid(kind: GpuKind, shares: Vec<NodeShare>, parts: Vec<Part>) -> Placement {
        Placement {
            kind,
            shares,
            slice: None,
            parts,
        }
    }

    /// The fraction of its GPUs the job holds (1 for whole GPUs).
    pub fn fraction(&self) -> f64 {
        self.slice.map_or(1.0, |s| s.fraction())
    }

    /// The GPU time the parts add up to (0 without parts).
    pub fn parts_fraction(&self) -> f64 {
        self.parts.iter().map(|p| p.share as f64).sum::<f64>() / Slice::WHOLE as f64
    }

    /// GPUs held, counting a slice as its fraction and parts as their time
    /// shares (GPU-seconds, energy).
    pub fn gpu_equiv(&self) -> f64 {
        self.gpus() as f64 * self.fraction() + self.parts_fraction()
    }

    pub fn gpus(&self) -> u32 {
        self.shares.iter().map(|s| s.count()).sum()
    }

    pub fn nodes(&self) -> u32 {
        self.shares.len() as u32
    }

    /// Replicas per node, in node order (the Pollux "placement" tuple).
    pub fn per_node(&self) -> Vec<u32> {
        self.shares.iter().map(|s| s.count()).collect()
    }

    /// Same nodes with the same number of GPUs on each (the Pollux
    /// simulator's notion of "unchanged"; moving within a node is free).
    pub fn same_nodes(&self, other: &Placement) -> bool {
        self.kind == other.kind
            && self.shares.len() == other.shares.len()
            && self
                .shares
                .iter()
                .zip(&other.shares)
                .all(|(a, b)| a.node == b.node && a.count() == b.count())
    }

    /// The GPUs both placements hold (None if they share none).
    pub fn intersect(&self, other: &Placement) -> Option<Placement> {
        if self.kind != other.kind {
            return None;
        }
        let shares: Vec<NodeShare> = self
            .shares
            .iter()
            .filter_map(|a| {
                let b = other.shares.iter().find(|b| b.node == a.node)?;
                let mask = a.mask & b.mask;
                (mask != 0).then_some(NodeShare { node: a.node, mask })
            })
            .collect();
        (!shares.is_empty()).then_some(Placement {
            kind: self.kind,
            shares,
            slice: self.slice.filter(|_| self.slice == other.slice),
            parts: Vec::new(),
        })
    }

    /// Do the placements share a GPU, whole or time-shared part? (For whole
    /// GPUs, `intersect(..).is_some()` without building the intersection.)
    pub fn overlaps(&self, other: &Placement) -> bool {
        let on = |p: &Placement, node: u32, mask: u64| {
            p.shares
                .iter()
                .any(|b| b.node == node && b.mask & mask != 0)
                || p.parts
                    .iter()
                    .any(|q| q.node == node && q.mask() & mask != 0)
        };
        self.kind == other.kind
            && (self.shares.iter().any(|a| on(other, a.node, a.mask))
                || self.parts.iter().any(|q| on(other, q.node, q.mask())))
    }

    /// Does this placement hold every GPU of `other`?
    pub fn contains(&self, other: &Placement) -> bool {
        self.kind == other.kind
            && other.shares.iter().all(|b| {
                self.shares
                    .iter()
                    .any(|a| a.node == b.node && a.mask & b.mask == b.mask)
            })
    }

    /// Cluster-wide GPU indices of the parts, in the parts' order.
    pub fn part_ids(&self, cluster: &Cluster) -> Vec<u32> {
        self.parts
            .iter()
            .map(|p| cluster.nodes[p.node as usize].first_gpu + p.gpu as u32)
            .collect()
    }

    /// Cluster-wide GPU indices of the whole GPUs (or the slice's GPU).
    pub fn gpu_ids(&self, cluster: &Cluster) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.gpus() as usize);
        for s in &self.shares {
            let base = cluster.nodes[s.node as usize].first_gpu;
            let mut m = s.mask;
            while m != 0 {
                let bit = m.trailing_zeros();
                out.push(base + bit);
                m &= m - 1;
            }
        }
        out
    }
}

/// How allocations may be spread over nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PlacementRule {
    /// One node if the job fits in a node, else whole nodes plus one partial.
    Packed,
    /// Any free GPUs of the type, fewest nodes first.
    Any,
    /// CoDDL network packing (AFS §4.4): elastic policies regulate their
    /// shares and place them with `cluster::netpack`; single claims through
    /// a packer behave as `Packed`.
    #[serde(rename = "netpack")]
    NetPack,
    /// Locality cells (`cells.rs`, spec seed000 §2.8): one aligned
    /// power-of-two cell on one node by buddy best fit (wider jobs: whole
    /// nodes plus one cell); pools own home cells.
    Cells,
}

// The engine's `placement` setting names the rules (in this order in `list engine`).
schedlab_core::choice!(impl PlacementRule {
    Packed = "packed",
    Any = "any",
    NetPack = "netpack",
    Cells = "cells",
});

/// A tentative assignment of GPUs to jobs, built claim by claim.
#[derive(Debug, Clone)]
pub struct Packer<'c> {
    cluster: &'c Cluster,
    rule: PlacementRule,
    /// Unclaimed GPUs per node.
    free: Vec<u64>,
    /// GPUs still reserved for running jobs that have not claimed yet.
    reserved: Vec<u64>,
    /// Current placement of each running job, by job id; `None` once the
    /// job has claimed or been released (no shifting, no copies).
    reservations: Vec<(u32, Option<&'c Placement>)>,
    /// Unclaimed GPUs per kind (indexed by `GpuKind.0`).
    free_by_kind: Vec<u32>,
    /// Scratch for `claim` (free GPUs nobody else reserved): one
    /// allocation per packer instead of one per claim.
    avail: Vec<u64>,
    /// GPUs partly taken by slices (not free for whole-GPU claims).
    partial: Vec<PartialGpu>,
}

/// A GPU that slices share: what they take of it so far.
#[derive(Debug, Clone, Copy, PartialEq)]
struct PartialGpu {
    node: u32,
    /// The GPU's bit in the node mask.
    mask: u64,
    kind: GpuKind,
    share: u16,
    mem_mb: u32,
}

/// Memory of one GPU of `kind`, in MB.
pub fn gpu_mem_mb(kind: GpuKind) -> u32 {
    (super::CATALOG[kind.0 as usize].memory_gb * 1024.0).round() as u32
}

/// Mask with the node's `gpus` low bits set.
pub fn node_mask(gpus: u32) -> u64 {
    if gpus >= 64 {
        u64::MAX
    } else {
        (1u64 << gpus) - 1
    }
}

/// Takes `count` GPUs from `avail`, preferring those in `prefer` (lowest
/// bits first within each).
pub(super) fn take_bits(avail: u64, prefer: u64, count: u32) -> u64 {
    let mut out = 0u64;
    let mut need = count;
    for pool in [avail & prefer, avail & !prefer] {
        let mut m = pool;
        while need > 0 && m != 0 {
            let bit = m & m.wrapping_neg();
            out |= bit;
            m &= m - 1;
            need -= 1;
        }
    }
    out
}

impl<'c> Packer<'c> {
    /// Every GPU free, no reservations: for policies that re-plan everything
    /// and do not care which GPUs a job had.
    pub fn empty(cluster: &'c Cluster, rule: PlacementRule) -> Self {
        let mut free_by_kind = vec![0u32; super::CATALOG.len()];
        for n in &cluster.nodes {
            free_by_kind[n.kind.0 as usize] += n.gpus;
        }
        Packer {
            cluster,
            rule,
            free: cluster.nodes.iter().map(|n| node_mask(n.gpus)).collect(),
            reserved: vec![0; cluster.nodes.len()],
            reservations: Vec::new(),
            free_by_kind,
            avail: Vec::new(),
            partial: Vec::new(),
        }
    }

    /// Every GPU free, but the current placements of running jobs are
    /// reserved for them: a job claimed later keeps its GPUs if it keeps its
    /// size, and new jobs only take reserved GPUs when nothing else fits.
    pub fn replanning(
        cluster: &'c Cluster,
        rule: PlacementRule,
        running: impl IntoIterator<Item = (u32, &'c Placement)>,
    ) -> Self {
        let mut p = Self::empty(cluster, rule);
        for (job, pl) in running {
            if pl.slice.is_some() {
                // Slices stay where they are: the GPU is partly taken.
                p.mark_claimed(pl);
                continue;
            }
            for s in &pl.shares {
                p.reserved[s.node as usize] |= s.mask;
            }
            p.reservations.push((job, Some(pl)));
        }
        schedlab_core::sorting::sort_by_key(&mut p.reservations, |(j, _)| *j);
        p
    }

    /// GPUs of running jobs are taken; only the idle ones can be claimed.
    /// For non-preemptive policies that only start waiting jobs.
    pub fn idle_only<'p>(
        cluster: &'c Cluster,
        rule: PlacementRule,
        running: impl IntoIterator<Item = &'p Placement>,
    ) -> Self {
        let mut p = Self::empty(cluster, rule);
        for pl in running {
            p.mark_claimed(pl);
        }
        p
    }

    fn mark_claimed(&mut self, pl: &Placement) {
        if let (Some(slice), Some(s)) = (pl.slice, pl.shares.first()) {
            self.take_slice(pl.kind, s.node, s.mask, slice);
            return;
        }
        // A GPU with time-shared parts is not free for a whole claim.
        let parts = pl.parts.iter().map(|p| NodeShare {
            node: p.node,
            mask: p.mask(),
        });
        for s in pl.shares.iter().copied().chain(parts) {
            let taken = self.free[s.node as usize] & s.mask;
            self.free[s.node as usize] &= !s.mask;
            self.reserved[s.node as usize] &= !s.mask;
            self.free_by_kind[pl.kind.0 as usize] -= taken.count_ones();
        }
    }

    pub fn cluster(&self) -> &'c Cluster {
        self.cluster
    }

    pub fn rule(&self) -> PlacementRule {
        self.rule
    }

    /// Unclaimed GPUs of one type (reserved ones included).
    pub fn free_of(&self, kind: GpuKind) -> u32 {
        self.free_by_kind[kind.0 as usize]
    }

    /// Unclaimed GPUs of every type.
    pub fn free_total(&self) -> u32 {
        self.free_by_kind.iter().sum()
    }

    /// Index of the job's entry in `reservations` (held or released).
    fn slot_of(&self, job: u32) -> Option<usize> {
        self.reservations
            .binary_search_by_key(&job, |(j, _)| *j)
            .ok()
    }

    /// Drops a running job's reservation (it is not going to run, or has
    /// been placed); its reserved GPUs become ordinary free GPUs.
    pub fn release(&mut self, job: u32) {
        let slot = self.slot_of(job);
        self.release_slot(slot);
    }

    fn release_slot(&mut self, slot: Option<usize>) {
        if let Some(pl) = slot.and_then(|i| self.reservations[i].1.take()) {
            for s in &pl.shares {
                self.reserved[s.node as usize] &= !s.mask;
            }
        }
    }

    /// The largest count up to which a failed claim of `kind` stays failed
    /// for every larger count, while the free GPUs do not change (0: no
    /// such promise). Lets a walk over a long queue skip requests that
    /// cannot be placed without asking [`Packer::claim`] again.
    ///
    /// Why it holds: a claim by a job holding no reservation fails only when
    /// `find` fails on the free GPUs (step 3; the unreserved ones are a
    /// subset). Under `Packed` and `NetPack`, with nodes of `kind` of `N`
    /// GPUs, `W` of them wholly free and at most `P` free on any other:
    /// - a count `c <= N` goes on one node with `c` free: it fails iff no
    ///   node has `c` free, which stays so for every larger `c`, and then
    ///   `W = 0` (or `c = N`, `W = 0` too), so every count above `N` (it
    ///   needs a whole node) fails as well;
    /// - a count `c = qN + r > N` takes `q` whole nodes, then `r` GPUs on
    ///   another node: it fits iff `W > q`, or `W = q` and (`r = 0` or
    ///   `P >= r`). A failure is `W < q` (so `W < q'` for every larger
    ///   count) or `W = q`, `r > P` (a larger count has `q' > W`, or `q' = q`
    ///   and `r' > r > P`): it stays failed.
    ///
    /// When the nodes of `kind` differ in size the second case breaks (a
    /// small whole node plus part of a big one can hold more than any one
    /// node), so the promise stops at the largest node. `Any` and `Cells`
    /// make none.
    pub fn fail_monotone_up_to(&self, kind: GpuKind) -> u32 {
        match self.rule {
            PlacementRule::Packed | PlacementRule::NetPack => {
                let mut sizes = self
                    .cluster
                    .nodes
                    .iter()
                    .filter(|n| n.kind == kind)
                    .map(|n| n.gpus);
                let first = sizes.next().unwrap_or(0);
                if first > 0 && first <= 64 && sizes.all(|g| g == first) {
                    u32::MAX
                } else {
                    self.cluster.max_node_gpus(kind).min(64)
                }
            }
            PlacementRule::Any | PlacementRule::Cells => 0,
        }
    }

    /// Would `count` GPUs of `kind` fit now, using reserved GPUs if needed?
    pub fn fits(&self, kind: GpuKind, count: u32) -> bool {
        count > 0
            && self.free_of(kind) >= count
            && self.find(kind, count, &self.free, None).is_some()
    }

    /// Claims `count` GPUs of `kind` for `job`. Returns the placement, or
    /// `None` (nothing changes) if it cannot be placed under the rule.
    pub fn claim(&mut self, job: u32, kind: GpuKind, count: u32) -> Option<Placement> {
        self.claim_with(job, kind, count, true)
    }

    /// As [`Packer::claim`] but never takes GPUs other running jobs have
    /// reserved: a placement that evicts nobody.
    pub fn claim_without_evicting(
        &mut self,
        job: u32,
        kind: GpuKind,
        count: u32,
    ) -> Option<Placement> {
        self.claim_with(job, kind, count, false)
    }

    fn claim_with(
        &mut self,
        job: u32,
        kind: GpuKind,
        count: u32,
        evict: bool,
    ) -> Option<Placement> {
        if count == 0 || self.free_of(kind) < count {
            return None;
        }
        let slot = self.slot_of(job);
        // The job's reservation, if it still holds one.
        let own = slot.and_then(|i| self.reservations[i].1);
        // 1. Keep the current GPUs when the size and type are unchanged.
        if let Some(cur) = own {
            if cur.kind == kind
                && cur.gpus() == count
                && cur
                    .shares
                    .iter()
                    .all(|s| self.free[s.node as usize] & s.mask == s.mask)
            {
                // The whole GPUs only: time-shared parts are laid out anew
                // by the policy that uses them (`policy::fluid`).
                let kept = Placement {
                    parts: Vec::new(),
                    ..cur.clone()
                };
                self.release_slot(slot);
                self.mark_claimed(&kept);
                return Some(kept);
            }
        }
        // 2. Free GPUs nobody else has reserved (plus our own).
        let avail = self.unreserved(own);
        let placed = self
            .find(kind, count, &avail, own)
            // 3. Take GPUs reserved by lower-priority running jobs.
            .or_else(|| {
                evict
                    .then(|| self.find(kind, count, &self.free, own))
                    .flatten()
            });
        self.avail = avail;
        let placed = placed?;
        self.release_slot(slot);
        self.mark_claimed(&placed);
        Some(placed)
    }

    /// Free GPUs per node that no other running job has reserved, plus
    /// `own`'s (the claiming job's reservation). Reuses the packer's buffer:
    /// hand it back through `self.avail`.
    fn unreserved(&mut self, own: Option<&Placement>) -> Vec<u64> {
        let mut avail = std::mem::take(&mut self.avail);
        avail.clear();
        avail.extend(self.free.iter().zip(&self.reserved).map(|(f, r)| f & !r));
        if let Some(cur) = own {
            for s in &cur.shares {
                avail[s.node as usize] |= self.free[s.node as usize] & s.mask;
            }
        }
        avail
    }

    /// Claims `count` GPUs of `kind` under `PlacementRule::Any` whatever the
    /// packer's rule: the fallback of a placer that splits a job across
    /// nodes rather than evicting others (the Sia simulator's fast placer).
    pub fn claim_split(&mut self, job: u32, kind: GpuKind, count: u32) -> Option<Placement> {
        let rule = std::mem::replace(&mut self.rule, PlacementRule::Any);
        let placed = self.claim(job, kind, count);
        self.rule = rule;
        placed
    }

    /// Claims `count` GPUs of `kind` among the GPUs `allowed` (per node)
    /// that are free and reserved by nobody, under the packer's rule: a
    /// pool's home cells, or everything but cells a policy keeps clear.
    pub fn claim_in(
        &mut self,
        job: u32,
        kind: GpuKind,
        count: u32,
        allowed: &[u64],
    ) -> Option<Placement> {
        if count == 0 || self.free_of(kind) < count {
            return None;
        }
        let avail: Vec<u64> = self
            .free
            .iter()
            .zip(&self.reserved)
            .zip(allowed.iter().chain(std::iter::repeat(&0)))
            .map(|((f, r), a)| f & !r & a)
            .collect();
        let placed = self.find(kind, count, &avail, None)?;
        self.release(job);
        self.mark_claimed(&placed);
        Some(placed)
    }

    /// Claims an explicit placement (e.g. a policy's own placer); `false` if
    /// any of its GPUs is already claimed.
    pub fn claim_exact(&mut self, job: u32, placement: &Placement) -> bool {
        if let (Some(slice), [s]) = (placement.slice, &placement.shares[..]) {
            let mem = gpu_mem_mb(placement.kind);
            let room = match self
                .partial
                .iter()
                .find(|p| p.node == s.node && p.mask == s.mask)
            {
                Some(p) => p.share + slice.share <= Slice::WHOLE && p.mem_mb + slice.mem_mb <= mem,
                None => {
                    (s.node as usize) < self.free.len()
                        && self.free[s.node as usize] & s.mask == s.mask
                        && s.mask.count_ones() == 1
                }
            };
            if room {
                self.release(job);
                self.take_slice(placement.kind, s.node, s.mask, slice);
            }
            return room;
        }
        let ok = placement.shares.iter().all(|s| {
            (s.node as usize) < self.free.len()
                && self.cluster.nodes[s.node as usize].kind == placement.kind
                && self.free[s.node as usize] & s.mask == s.mask
        });
        if ok {
            self.release(job);
            self.mark_claimed(placement);
        }
        ok
    }

    /// Returns a claimed placement's GPUs to the free pool (evictions).
    pub fn unclaim(&mut self, placement: &Placement) {
        if let (Some(slice), Some(s)) = (placement.slice, placement.shares.first()) {
            if let Some(i) = self
                .partial
                .iter()
                .position(|p| p.node == s.node && p.mask == s.mask)
            {
                let p = &mut self.partial[i];
                p.share = p.share.saturating_sub(slice.share);
                p.mem_mb = p.mem_mb.saturating_sub(slice.mem_mb);
                if p.share == 0 {
                    self.partial.swap_remove(i);
                    self.free[s.node as usize] |= s.mask;
                    self.free_by_kind[placement.kind.0 as usize] += 1;
                }
            }
            return;
        }
        for s in &placement.shares {
            let back = s.mask & !self.free[s.node as usize];
            self.free[s.node as usize] |= back;
            self.free_by_kind[placement.kind.0 as usize] += back.count_ones();
        }
    }

    /// Records a slice on a GPU: the first slice takes the GPU out of the
    /// free pool, later ones add to what it holds.
    fn take_slice(&mut self, kind: GpuKind, node: u32, mask: u64, slice: Slice) {
        if let Some(p) = self
            .partial
            .iter_mut()
            .find(|p| p.node == node && p.mask == mask)
        {
            p.share += slice.share;
            p.mem_mb += slice.mem_mb;
            return;
        }
        if self.free[node as usize] & mask != 0 {
            self.free[node as usize] &= !mask;
            self.reserved[node as usize] &= !mask;
            self.free_by_kind[kind.0 as usize] -= 1;
        }
        self.partial.push(PartialGpu {
            node,
            mask,
            kind,
            share: slice.share,
            mem_mb: slice.mem_mb,
        });
    }

    /// Claims a slice of one GPU of `kind` for `job`: best fit on a GPU
    /// other slices already share (the fullest that still has room for the
    /// fraction and the memory), else a free GPU on the fullest node.
    pub fn claim_slice(&mut self, job: u32, kind: GpuKind, slice: Slice) -> Option<Placement> {
        if slice.share == 0 || slice.share > Slice::WHOLE || slice.mem_mb > gpu_mem_mb(kind) {
            return None;
        }
        let mem = gpu_mem_mb(kind);
        let shared = self
            .partial
            .iter()
            .filter(|p| {
                p.kind == kind
                    && p.share + slice.share <= Slice::WHOLE
                    && p.mem_mb + slice.mem_mb <= mem
            })
            .max_by_key(|p| (p.share, std::cmp::Reverse((p.node, p.mask))))
            .map(|p| (p.node, p.mask));
        let (node, mask) = match shared {
            Some(at) => at,
            None => {
                // A slice never evicts: a fresh GPU is one no other running
                // job has reserved (its own reservation allowed).
                let own = self.slot_of(job).and_then(|i| self.reservations[i].1);
                let avail = self.unreserved(own);
                let whole = self.find(kind, 1, &avail, None);
                self.avail = avail;
                let s = whole?.shares[0];
                (s.node, s.mask)
            }
        };
        self.release(job);
        self.take_slice(kind, node, mask, slice);
        Some(Placement {
            kind,
            shares: vec![NodeShare { node, mask }],
            slice: Some(slice),
            parts: Vec::new(),
        })
    }

    /// Unclaimed GPUs on one node.
    pub fn free_on(&self, node: u32) -> u32 {
        self.free[node as usize].count_ones()
    }

    /// Unclaimed GPUs on one node, as a mask of local GPU indices.
    pub fn free_mask(&self, node: u32) -> u64 {
        self.free[node as usize]
    }

    /// Finds a placement in `avail` without claiming it.
    fn find(
        &self,
        kind: GpuKind,
        count: u32,
        avail: &[u64],
        prefer: Option<&Placement>,
    ) -> Option<Placement> {
        let prefer_mask = |node: u32| -> u64 {
            prefer
                .filter(|p| p.kind == kind)
                .and_then(|p| p.shares.iter().find(|s| s.node == node))
                .map_or(0, |s| s.mask)
        };
        let nodes = self.cluster.nodes.iter().filter(|n| n.kind == kind);
        match self.rule {
            PlacementRule::Cells => super::cells::find(self.cluster, kind, count, avail),
            PlacementRule::Packed | PlacementRule::NetPack => {
                let max_node = self.cluster.max_node_gpus(kind);
                if count <= max_node {
                    // Best fit on a single node: prefer our old node, then the
                    // fullest node that fits, then the lowest id.
                    let best = nodes
                        .filter(|n| avail[n.id as usize].count_ones() >= count)
                        .min_by_key(|n| {
                            let a = avail[n.id as usize];
                            (
                                (a & prefer_mask(n.id)).count_ones() == 0,
                                a.count_ones(),
                                n.id,
                            )
                        })?;
                    let mask = take_bits(avail[best.id as usize], prefer_mask(best.id), count);
                    return Some(Placement::whole(
                        kind,
                        vec![NodeShare {
                            node: best.id,
                            mask,
                        }],
                    ));
                }
                // Whole free nodes (largest first, ours first), then one partial node.
                let mut whole: Vec<&super::Node> = nodes
                    .clone()
                    .filter(|n| avail[n.id as usize] == node_mask(n.gpus))
                    .collect();
                schedlab_core::sorting::sort_by_key(&mut whole, |n| {
                    (prefer_mask(n.id) == 0, std::cmp::Reverse(n.gpus), n.id)
                });
                let mut shares = Vec::new();
                let mut need = count;
                for n in whole {
                    if need >= n.gpus {
                        shares.push(NodeShare {
                            node: n.id,
                            mask: node_mask(n.gpus),
                        });
                        need -= n.gpus;
                    }
                    if need == 0 {
                        break;
                    }
                }
                if need > 0 {
                    let used: Vec<u32> = shares.iter().map(|s| s.node).collect();
                    let part = nodes
                        .filter(|n| {
                            !used.contains(&n.id) && avail[n.id as usize].count_ones() >= need
                        })
                        .min_by_key(|n| {
                            let a = avail[n.id as usize];
                            (
                                (a & prefer_mask(n.id)).count_ones() == 0,
                                a.count_ones(),
                                n.id,
                            )
                        })?;
                    let mask = take_bits(avail[part.id as usize], prefer_mask(part.id), need);
                    shares.push(NodeShare {
                        node: part.id,
                        mask,
                    });
                }
                schedlab_core::sorting::sort_by_key(&mut shares, |s| s.node);
                Some(Placement::whole(kind, shares))
            }
            PlacementRule::Any => {
                // Most preferred GPUs first, then most available, then the
                // lowest id, packed into one key (counts are at most 64);
                // keys are unique, so an unstable sort keeps the order.
                let mut cands: Vec<(u64, u64)> = avail
                    .iter()
                    .zip(&self.cluster.nodes)
                    .filter(|(a, n)| **a != 0 && n.kind == kind)
                    .map(|(_, n)| {
                        let (a, p) = (avail[n.id as usize], prefer_mask(n.id));
                        let mine = u64::from(64 - (a & p).count_ones());
                        let all = u64::from(64 - a.count_ones());
                        ((mine << 40) | (all << 32) | u64::from(n.id), p)
                    })
                    .collect();
                cands.sort_unstable_by_key(|c| c.0);
                let mut shares = Vec::new();
                let mut need = count;
                for (key, prefer) in cands {
                    if need == 0 {
                        break;
                    }
                    let node = key as u32;
                    let a = avail[node as usize];
                    let take = need.min(a.count_ones());
                    shares.push(NodeShare {
                        node,
                        mask: take_bits(a, prefer, take),
                    });
                    need -= take;
                }
                if need > 0 {
                    return None;
                }
                schedlab_core::sorting::sort_by_key(&mut shares, |s| s.node);
                Some(Placement::whole(kind, shares))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::parse_cluster;

    fn t4() -> GpuKind {
        GpuKind::by_name("t4").unwrap()
    }

    /// A fixed linear congruential stream: `next(n)` draws from 0..n, the same
    /// draws on every run, so a random test's failure can be replayed.
    fn lcg(mut seed: u64) -> impl FnMut(u32) -> u32 {
        move |n| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % u64::from(n)) as u32
        }
    }

    /// Every count from 1 to the cluster's size on a copy of `p`: placed or not.
    fn fits_by_count(p: &Packer, total: u32) -> Vec<bool> {
        (1..=total)
            .map(|c| p.clone().claim(u32::MAX, t4(), c).is_some())
            .collect()
    }

    #[test]
    fn a_claim_above_the_free_gpus_fails_and_changes_nothing() {
        // What lets a walk leave out a waiting job asking more GPUs than are
        // unclaimed (Tiresias's groups by count): random reservations and
        // claims (fixed LCG), then counts above the free GPUs, by a job
        // holding a reservation and by one holding none.
        let mut next = lcg(47);
        let c = parse_cluster("t4:6x4").unwrap();
        for rule in [
            PlacementRule::Packed,
            PlacementRule::NetPack,
            PlacementRule::Any,
        ] {
            for _ in 0..100 {
                let mut first = Packer::empty(&c, rule);
                let held: Vec<(u32, Placement)> = (0..next(6))
                    .filter_map(|job| first.claim(job, t4(), 1 + next(5)).map(|p| (job, p)))
                    .collect();
                let mut p = Packer::replanning(&c, rule, held.iter().map(|(j, pl)| (*j, pl)));
                for job in 100..100 + next(4) {
                    let _ = p.claim(job, t4(), 1 + next(4));
                }
                let free = p.free_of(t4());
                assert_eq!(free, p.free_total());
                for job in held.iter().map(|h| h.0).chain([1000]) {
                    for count in free + 1..free + 4 {
                        let before = format!("{p:?}");
                        assert!(p.claim(job, t4(), count).is_none());
                        assert_eq!(format!("{p:?}"), before, "job {job}, {count} of {free}");
                    }
                }
            }
        }
    }

    /// A type the cluster does not have never has a free GPU: random
    /// claims, slices, releases and unclaims on two GPU types (fixed LCG)
    /// keep `free_total` equal to the sum over the cluster's types (what a
    /// walk that gives reasons reads at every turn).
    #[test]
    fn the_free_total_is_the_sum_over_the_clusters_kinds() {
        let mut next = lcg(49);
        let c = parse_cluster("t4:3x4,a100:2x8").unwrap();
        let kinds = [t4(), GpuKind::by_name("a100").unwrap()];
        let sum = |p: &Packer| c.kinds.iter().map(|&k| p.free_of(k)).sum::<u32>();
        for rule in [PlacementRule::Packed, PlacementRule::Any] {
            for _ in 0..50 {
                let mut first = Packer::empty(&c, rule);
                let mut held: Vec<(u32, Placement)> = Vec::new();
                for job in 0..next(8) {
                    let kind = kinds[next(2) as usize];
                    let p = if next(3) == 0 {
                        let slice = Slice {
                            share: 250,
                            mem_mb: 100,
                        };
                        first.claim_slice(job, kind, slice)
                    } else {
                        first.claim(job, kind, 1 + next(4))
                    };
                    held.extend(p.map(|p| (job, p)));
                    assert_eq!(first.free_total(), sum(&first));
                }
                let mut p = Packer::replanning(&c, rule, held.iter().map(|(j, pl)| (*j, pl)));
                assert_eq!(p.free_total(), sum(&p));
                for (job, pl) in &held {
                    match next(3) {
                        0 => p.release(*job),
                        1 => {
                            let _ = p.claim(*job, pl.kind, 1 + next(4));
                        }
                        _ => {
                            if p.claim_exact(*job, pl) {
                                p.unclaim(pl);
                            }
                        }
                    }
                    assert_eq!(p.free_total(), sum(&p));
                }
                for job in 100..100 + next(4) {
                    let _ = p.claim(job, kinds[next(2) as usize], 1 + next(6));
                    assert_eq!(p.free_total(), sum(&p));
                }
            }
        }
    }

    #[test]
    fn failed_counts_stay_failed_up_to_the_promised_bound() {
        // Random fill levels (fixed LCG), homogeneous and mixed node sizes.
        let mut next = lcg(47);
        for spec in ["t4:6x4", "t4:5x8", "t4:2x8,t4:3x4"] {
            let c = parse_cluster(spec).unwrap();
            for rule in [PlacementRule::Packed, PlacementRule::NetPack] {
                for _ in 0..200 {
                    let mut p = Packer::empty(&c, rule);
                    for job in 0..next(12) {
                        let _ = p.claim(job, t4(), 1 + next(6));
                    }
                    let bound = p.fail_monotone_up_to(t4()).min(c.total_gpus);
                    let fits = fits_by_count(&p, c.total_gpus);
                    if let Some(g) = fits.iter().position(|f| !f) {
                        let g = g as u32 + 1;
                        for count in g..=bound {
                            assert!(
                                !fits[count as usize - 1],
                                "{spec}: {g} failed, {count} placed"
                            );
                        }
                    }
                }
            }
        }
        // Mixed sizes: the promise stops at the largest node, and must: 6
        // GPUs fit on no node (5 free on the 8-GPU one), 9 do (4 + 5).
        let c = parse_cluster("t4:1x8,t4:1x4").unwrap();
        let mut p = Packer::empty(&c, PlacementRule::Packed);
        assert_eq!(p.fail_monotone_up_to(t4()), 8);
        let small = p.claim(1, t4(), 4).unwrap(); // best fit: the 4-GPU node
        p.claim(2, t4(), 3).unwrap(); // the 8-GPU node, 5 left
        p.unclaim(&small);
        let fits = fits_by_count(&p, 12);
        assert!(!fits[5] && fits[8]);
        assert_eq!(
            Packer::empty(&parse_cluster("t4:6x4").unwrap(), PlacementRule::Packed)
                .fail_monotone_up_to(t4()),
            u32::MAX
        );
        assert_eq!(
            Packer::empty(&c, PlacementRule::Any).fail_monotone_up_to(t4()),
            0
        );
    }

    #[test]
    fn small_jobs_stay_on_one_node_best_fit() {
        let c = parse_cluster("t4:3x4").unwrap();
        let mut p = Packer::empty(&c, PlacementRule::Packed);
        let a = p.claim(1, t4(), 3).unwrap();
        assert_eq!(a.nodes(), 1);
        // 1 GPU should fill the node that has exactly one left (best fit).
        let b = p.claim(2, t4(), 1).unwrap();
        assert_eq!(b.shares[0].node, a.shares[0].node);
        // 2 GPUs: a fresh node.
        let c2 = p.claim(3, t4(), 2).unwrap();
        assert_ne!(c2.shares[0].node, a.shares[0].node);
        // 3 GPUs go to the node that still has all 4 free.
        let d = p.claim(4, t4(), 3).unwrap();
        assert_eq!(d.shares[0].node, 2);
        // 2 + 1 GPUs are free on two nodes: 3 cannot fit and is never split.
        assert_eq!(p.free_of(t4()), 3);
        assert!(p.claim(5, t4(), 3).is_none());
        assert!(p.claim(5, t4(), 2).is_some());
    }

    #[test]
    fn large_jobs_take_whole_nodes_plus_one_partial() {
        let c = parse_cluster("t4:4x4").unwrap();
        let mut p = Packer::empty(&c, PlacementRule::Packed);
        let a = p.claim(1, t4(), 6).unwrap();
        assert_eq!(a.per_node().iter().copied().max(), Some(4));
        assert_eq!(a.gpus(), 6);
        assert_eq!(a.nodes(), 2);
        // The 1-GPU job fills the partial node (best fit).
        let b = p.claim(2, t4(), 1).unwrap();
        assert_eq!(b.shares[0].node, a.shares[1].node);
        // 8 GPUs take the two whole free nodes; then 2 GPUs no longer fit.
        let c8 = p.claim(3, t4(), 8).unwrap();
        assert_eq!(c8.per_node(), vec![4, 4]);
        assert_eq!(p.free_of(t4()), 1);
        assert!(p.claim(4, t4(), 2).is_none());
    }

    #[test]
    fn running_jobs_keep_their_gpus() {
        let c = parse_cluster("t4:2x4").unwrap();
        let mut p0 = Packer::empty(&c, PlacementRule::Packed);
        let old = p0.claim(7, t4(), 2).unwrap();
        let mut p = Packer::replanning(&c, PlacementRule::Packed, [(7, &old)]);
        // A new job avoids the reserved GPUs while others exist.
        let n = p.claim(1, t4(), 4).unwrap();
        assert_ne!(n.shares[0].node, old.shares[0].node);
        let kept = p.claim(7, t4(), 2).unwrap();
        assert_eq!(kept, old);
    }

    #[test]
    fn a_slice_never_takes_a_gpu_a_running_job_holds() {
        let c = parse_cluster("t4:1x2").unwrap();
        let mut p0 = Packer::empty(&c, PlacementRule::Packed);
        let old = p0.claim(7, t4(), 1).unwrap();
        let mut p = Packer::replanning(&c, PlacementRule::Packed, [(7, &old)]);
        let half = Slice {
            share: Slice::WHOLE / 2,
            mem_mb: 1024,
        };
        let a = p.claim_slice(1, t4(), half).unwrap();
        assert_ne!(a.shares[0].mask, old.shares[0].mask);
        // The other half shares that GPU; a third slice has no unreserved GPU.
        assert_eq!(p.claim_slice(2, t4(), half).unwrap().shares, a.shares);
        assert!(p.claim_slice(3, t4(), half).is_none());
        // The running job itself may turn its GPU into a slice.
        assert_eq!(p.claim_slice(7, t4(), half).unwrap().shares, old.shares);
    }

    #[test]
    fn any_rule_spreads() {
        let c = parse_cluster("gtx1080:2x4").unwrap();
        let k = GpuKind::by_name("gtx1080").unwrap();
        let mut p = Packer::empty(&c, PlacementRule::Any);
        p.claim(1, k, 3).unwrap();
        p.claim(2, k, 3).unwrap();
        let x = p.claim(3, k, 2).unwrap();
        assert_eq!(x.nodes(), 2);
        assert_eq!(p.free_total(), 0);
    }

    #[test]
    fn gpu_ids_are_cluster_wide() {
        let c = parse_cluster("t4:2x4").unwrap();
        let mut p = Packer::empty(&c, PlacementRule::Packed);
        let _ = p.claim(1, t4(), 4).unwrap();
        let b = p.claim(2, t4(), 2).unwrap();
        assert_eq!(b.gpu_ids(&c), vec![4, 5]);
    }
}
