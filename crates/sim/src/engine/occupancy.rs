//! Which GPUs are held: whole GPUs as per-node bit masks, and GPUs that
//! slices share with the fraction and memory each slice takes. The engine
//! checks every placement of a decision against it before applying it.
//! It also meters, per GPU type, the time GPUs are busy (a shared GPU
//! counts once) and the time idle GPUs sit on powered nodes (a node with no
//! busy GPU is off): STS's cost accounting (spec seed002 §2.2, §5).

use schedlab_model::cluster::{gpu_mem_mb, node_mask, Cluster, GpuKind, Placement, Slice};
use schedlab_model::perf::price::PriceTable;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, Default)]
struct SharedGpu {
    share: u16,
    mem_mb: u32,
    jobs: u32,
}

#[derive(Debug, Clone)]
pub(super) struct Occupancy {
    /// GPUs held whole, per node.
    whole: Vec<u64>,
    /// GPUs with at least one slice, per node.
    sliced: Vec<u64>,
    /// What the slices take of each shared GPU, by (node, GPU bit).
    shared: BTreeMap<(u32, u64), SharedGpu>,
    /// GPUs held whole or in part.
    busy: u32,
    meter: Meter,
}

/// Busy and powered-idle GPU-seconds per GPU type (catalog index), and
/// what the busy GPUs cost: each node at its type's cost for its count of
/// distinct busy GPUs (`perf::price::PriceTable`, linear in Table III, not
/// quite linear in the STS authors' node costs).
#[derive(Debug, Clone)]
struct Meter {
    node_kind: Vec<u8>,
    node_gpus: Vec<u32>,
    /// Distinct busy GPUs per node.
    node_busy: Vec<u32>,
    busy_now: Vec<u32>,
    idle_on_now: Vec<u32>,
    busy_s: Vec<f64>,
    idle_on_s: Vec<f64>,
    t_mark: f64,
    /// Node cost per hour by busy count, per node (index k for k busy
    /// GPUs, 0 for none); None when no type of the cluster has a price.
    node_cost: Option<Vec<Vec<f64>>>,
    /// Dollars per idle GPU-hour per type (the per-GPU price, for theta).
    idle_price: Vec<f64>,
    /// Sum of the nodes' costs per hour now.
    busy_rate_now: f64,
    /// Dollars the busy GPUs have cost up to the mark.
    busy_usd: f64,
}

/// GPU time of one type over a run.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct KindTime {
    /// GPU-seconds some job held the GPU (whole or a slice of it).
    pub busy_s: f64,
    /// GPU-seconds the GPU sat idle on a node that had a busy GPU.
    pub idle_on_s: f64,
}

impl Meter {
    fn new(cluster: &Cluster, prices: &PriceTable) -> Meter {
        let kinds = schedlab_model::cluster::CATALOG.len();
        let priced = cluster.kinds.iter().any(|k| prices.has(*k));
        Meter {
            node_kind: cluster.nodes.iter().map(|n| n.kind.0).collect(),
            node_gpus: cluster.nodes.iter().map(|n| n.gpus).collect(),
            node_busy: vec![0; cluster.nodes.len()],
            busy_now: vec![0; kinds],
            idle_on_now: vec![0; kinds],
            busy_s: vec![0.0; kinds],
            idle_on_s: vec![0.0; kinds],
            t_mark: 0.0,
            node_cost: priced.then(|| {
                cluster
                    .nodes
                    .iter()
                    .map(|n| {
                        (0..=n.gpus)
                            .map(|k| prices.usd_h(n.kind, k).unwrap_or(0.0))
                            .collect()
                    })
                    .collect()
            }),
            idle_price: (0..kinds)
                .map(|k| prices.per_gpu_usd_h(GpuKind(k as u8)).unwrap_or(0.0))
                .collect(),
            busy_rate_now: 0.0,
            busy_usd: 0.0,
        }
    }

    /// What the GPUs cost per hour now (busy ones, plus `idle_price` x the
    /// idle ones on powered nodes), the rate at which `at` grows in dollars.
    fn rate_usd_h(&self, idle_price: f64) -> Option<f64> {
        self.node_cost.as_ref()?;
        let idle: f64 = (0..self.idle_price.len())
            .map(|k| self.idle_price[k] * self.idle_on_now[k] as f64)
            .sum();
        Some(self.busy_rate_now + idle_price * idle)
    }

    fn accrue(&mut self, now: f64) {
        let dt = now - self.t_mark;
        if dt > 0.0 {
            for k in 0..self.busy_now.len() {
                self.busy_s[k] += self.busy_now[k] as f64 * dt;
                self.idle_on_s[k] += self.idle_on_now[k] as f64 * dt;
            }
            self.busy_usd += self.busy_rate_now * dt / 3600.0;
            self.t_mark = now;
        }
    }

    /// Node `node` gains (or loses) `delta` distinct busy GPUs at `now`.
    fn change(&mut self, node: u32, delta: i64, now: f64) {
        self.accrue(now);
        let n = node as usize;
        let k = self.node_kind[n] as usize;
        let idle_on = |busy: u32, gpus: u32| if busy > 0 { gpus - busy } else { 0 };
        let old = self.node_busy[n];
        let new = (old as i64 + delta) as u32;
        self.node_busy[n] = new;
        self.busy_now[k] = self.busy_now[k] + new - old;
        self.idle_on_now[k] =
            self.idle_on_now[k] + idle_on(new, self.node_gpus[n]) - idle_on(old, self.node_gpus[n]);
        if let Some(cost) = &self.node_cost {
            let c = &cost[n];
            self.busy_rate_now += c[new as usize] - c[old as usize];
            if self.busy_now.iter().all(|b| *b == 0) {
                // Exactly zero when nothing runs (no drift from the sums).
                self.busy_rate_now = 0.0;
            }
        }
    }

    /// Time per GPU type up to `now` (without moving the mark).
    fn at(&self, now: f64) -> Vec<KindTime> {
        let dt = (now - self.t_mark).max(0.0);
        (0..self.busy_now.len())
            .map(|k| KindTime {
                busy_s: self.busy_s[k] + self.busy_now[k] as f64 * dt,
                idle_on_s: self.idle_on_s[k] + self.idle_on_now[k] as f64 * dt,
            })
            .collect()
    }

    /// Dollars the GPUs cost up to `now`: the busy GPUs at their nodes'
    /// costs plus `idle_price` x the idle GPUs on powered nodes at the
    /// per-GPU price; None when no type has a price.
    fn cost_usd(&self, now: f64, idle_price: f64) -> Option<f64> {
        self.node_cost.as_ref()?;
        let dt = (now - self.t_mark).max(0.0);
        let busy = self.busy_usd + self.busy_rate_now * dt / 3600.0;
        let idle: f64 = self
            .at(now)
            .iter()
            .zip(&self.idle_price)
            .map(|(t, p)| p * t.idle_on_s / 3600.0)
            .sum();
        Some(busy + idle_price * idle)
    }
}

impl Occupancy {
    pub(super) fn new(cluster: &Cluster, prices: &PriceTable) -> Occupancy {
        let nodes = cluster.nodes.len();
        Occupancy {
            whole: vec![0; nodes],
            sliced: vec![0; nodes],
            shared: BTreeMap::new(),
            busy: 0,
            meter: Meter::new(cluster, prices),
        }
    }

    /// Busy and powered-idle GPU-seconds per GPU type (catalog index) up to `now`.
    pub(super) fn gpu_time(&self, now: f64) -> Vec<KindTime> {
        self.meter.at(now)
    }

    /// Dollars the GPUs cost up to `now` (None: no GPU type has a price).
    pub(super) fn cost_usd(&self, now: f64, idle_price: f64) -> Option<f64> {
        self.meter.cost_usd(now, idle_price)
    }

    /// Dollars per hour the GPUs cost now (None: no GPU type has a price).
    pub(super) fn cost_rate_usd_h(&self, idle_price: f64) -> Option<f64> {
        self.meter.rate_usd_h(idle_price)
    }

    /// GPUs held whole or in part.
    pub(super) fn busy_gpus(&self) -> u32 {
        self.busy
    }

    /// Checks a placement and takes its GPUs at `now`; `need_mb` is the
    /// memory the job needs (0 if unknown), which a slice must reserve. On
    /// error nothing is taken and the message says what is wrong.
    pub(super) fn claim(
        &mut self,
        cluster: &Cluster,
        p: &Placement,
        need_mb: u32,
        now: f64,
    ) -> Result<(), String> {
        if p.gpus() == 0 && p.parts.is_empty() {
            return Err("assigned zero GPUs".into());
        }
        for s in &p.shares {
            let Some(node) = cluster.nodes.get(s.node as usize) else {
                return Err(format!("placed on node {} which does not exist", s.node));
            };
            if node.kind != p.kind || s.mask & !node_mask(node.gpus) != 0 {
                return Err(format!("placed on GPUs node {} does not have", s.node));
            }
            if self.whole[s.node as usize] & s.mask != 0 {
                return Err(format!(
                    "placed on GPUs of node {} that are already in use",
                    s.node
                ));
            }
        }
        if !p.parts.is_empty() {
            self.check_parts(cluster, p)?;
        }
        match p.slice {
            None => {
                for s in &p.shares {
                    if self.sliced[s.node as usize] & s.mask != 0 {
                        return Err(format!(
                            "placed whole on a GPU of node {} that slices or time-shared parts share",
                            s.node
                        ));
                    }
                }
                for s in &p.shares {
                    self.whole[s.node as usize] |= s.mask;
                    self.meter.change(s.node, s.count() as i64, now);
                }
                self.busy += p.gpus();
                for part in &p.parts {
                    self.take_shared(part.node, part.mask(), part.share, 0, now);
                }
            }
            Some(slice) => {
                let [s] = &p.shares[..] else {
                    return Err("a slice must be on exactly one GPU".into());
                };
                if s.mask.count_ones() != 1 {
                    return Err("a slice must be on exactly one GPU".into());
                }
                if slice.share == 0 || slice.share > Slice::WHOLE {
                    return Err(format!("slice of {} thousandths of a GPU", slice.share));
                }
                if need_mb > slice.mem_mb {
                    return Err(format!(
                        "slice reserves {} MB but the job needs {need_mb} MB",
                        slice.mem_mb
                    ));
                }
                let cur = self.shared_on(s.node, s.mask);
                if cur.share + slice.share > Slice::WHOLE {
                    return Err(format!(
                        "slices on a GPU of node {} would take {} thousandths (> 1000)",
                        s.node,
                        cur.share + slice.share
                    ));
                }
                let mem = gpu_mem_mb(p.kind);
                if cur.mem_mb + slice.mem_mb > mem {
                    return Err(format!(
                        "slices on a GPU of node {} would reserve {} MB of its {mem} MB",
                        s.node,
                        cur.mem_mb + slice.mem_mb
                    ));
                }
                self.take_shared(s.node, s.mask, slice.share, slice.mem_mb, now);
            }
        }
        Ok(())
    }

    /// What other jobs' slices and parts take of one GPU now.
    fn shared_on(&self, node: u32, mask: u64) -> SharedGpu {
        self.shared.get(&(node, mask)).copied().unwrap_or_default()
    }

    /// Checks a fluid placement's time-shared parts (before anything is
    /// taken): GPUs that exist, are of the placement's type, are not held
    /// whole (by anyone, the job itself included), appear once, and keep
    /// every GPU's shares at or below one whole GPU.
    fn check_parts(&self, cluster: &Cluster, p: &Placement) -> Result<(), String> {
        if p.slice.is_some() {
            return Err("a placement has either a slice or time-shared parts, not both".into());
        }
        let total: u32 = p.parts.iter().map(|x| x.share as u32).sum();
        if total > Slice::WHOLE as u32 {
            return Err(format!(
                "has parts adding up to {total} thousandths of a GPU (at most 1000: a job's parts are its fraction beyond its whole GPUs)"
            ));
        }
        for (i, part) in p.parts.iter().enumerate() {
            let Some(node) = cluster.nodes.get(part.node as usize) else {
                return Err(format!(
                    "has a part on node {} which does not exist",
                    part.node
                ));
            };
            if node.kind != p.kind || part.gpu as u32 >= node.gpus {
                return Err(format!(
                    "has a part on a GPU node {} does not have",
                    part.node
                ));
            }
            if part.share == 0 || part.share > Slice::WHOLE {
                return Err(format!("has a part of {} thousandths of a GPU", part.share));
            }
            let mask = part.mask();
            let own_whole = p
                .shares
                .iter()
                .any(|s| s.node == part.node && s.mask & mask != 0);
            if own_whole || self.whole[part.node as usize] & mask != 0 {
                return Err(format!(
                    "has a part on GPU {} of node {}, which is held whole",
                    part.gpu, part.node
                ));
            }
            if p.parts[..i]
                .iter()
                .any(|q| q.node == part.node && q.gpu == part.gpu)
            {
                return Err(format!(
                    "has two parts on GPU {} of node {}",
                    part.gpu, part.node
                ));
            }
            let cur = self.shared_on(part.node, mask);
            if cur.share + part.share > Slice::WHOLE {
                return Err(format!(
                    "parts and slices on GPU {} of node {} would take {} thousandths (> 1000)",
                    part.gpu,
                    part.node,
                    cur.share + part.share
                ));
            }
        }
        Ok(())
    }

    /// Adds a slice or part to a shared GPU (checked by the caller).
    fn take_shared(&mut self, node: u32, mask: u64, share: u16, mem_mb: u32, now: f64) {
        let cur = self.shared_on(node, mask);
        if cur.jobs == 0 {
            self.busy += 1;
            self.meter.change(node, 1, now);
        }
        self.sliced[node as usize] |= mask;
        self.shared.insert(
            (node, mask),
            SharedGpu {
                share: cur.share + share,
                mem_mb: cur.mem_mb + mem_mb,
                jobs: cur.jobs + 1,
            },
        );
    }

    /// Takes a slice or part off a shared GPU.
    fn give_shared(&mut self, node: u32, mask: u64, share: u16, mem_mb: u32, now: f64) {
        let key = (node, mask);
        if let Some(g) = self.shared.get_mut(&key) {
            g.share -= share;
            g.mem_mb -= mem_mb;
            g.jobs -= 1;
            if g.jobs == 0 {
                self.shared.remove(&key);
                self.sliced[node as usize] &= !mask;
                self.busy -= 1;
                self.meter.change(node, -1, now);
            }
        }
    }

    /// Gives a held placement's GPUs back at `now`.
    pub(super) fn release(&mut self, p: &Placement, now: f64) {
        match p.slice {
            None => {
                for s in &p.shares {
                    self.whole[s.node as usize] &= !s.mask;
                    self.meter.change(s.node, -(s.count() as i64), now);
                }
                self.busy -= p.gpus();
                for part in &p.parts {
                    self.give_shared(part.node, part.mask(), part.share, 0, now);
                }
            }
            Some(slice) => {
                let Some(s) = p.shares.first() else { return };
                self.give_shared(s.node, s.mask, slice.share, slice.mem_mb, now);
            }
        }
    }
}
