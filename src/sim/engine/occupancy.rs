//! Which GPUs are held: whole GPUs as per-node bit masks, and GPUs that
//! slices share with the fraction and memory each slice takes. The engine
//! checks every placement of a decision against it before applying it.

use crate::cluster::{gpu_mem_mb, node_mask, Cluster, Placement, Slice};
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
}

impl Occupancy {
    pub(super) fn new(nodes: usize) -> Occupancy {
        Occupancy {
            whole: vec![0; nodes],
            sliced: vec![0; nodes],
            shared: BTreeMap::new(),
            busy: 0,
        }
    }

    /// GPUs held whole or in part.
    pub(super) fn busy_gpus(&self) -> u32 {
        self.busy
    }

    /// Checks a placement and takes its GPUs; `need_mb` is the memory the
    /// job needs (0 if unknown), which a slice must reserve. On error
    /// nothing is taken and the message says what is wrong.
    pub(super) fn claim(
        &mut self,
        cluster: &Cluster,
        p: &Placement,
        need_mb: u32,
    ) -> Result<(), String> {
        if p.gpus() == 0 {
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
        match p.slice {
            None => {
                for s in &p.shares {
                    if self.sliced[s.node as usize] & s.mask != 0 {
                        return Err(format!(
                            "placed whole on a GPU of node {} that slices share",
                            s.node
                        ));
                    }
                }
                for s in &p.shares {
                    self.whole[s.node as usize] |= s.mask;
                }
                self.busy += p.gpus();
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
                let cur = self
                    .shared
                    .get(&(s.node, s.mask))
                    .copied()
                    .unwrap_or_default();
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
                if cur.jobs == 0 {
                    self.busy += 1;
                }
                self.sliced[s.node as usize] |= s.mask;
                self.shared.insert(
                    (s.node, s.mask),
                    SharedGpu {
                        share: cur.share + slice.share,
                        mem_mb: cur.mem_mb + slice.mem_mb,
                        jobs: cur.jobs + 1,
                    },
                );
            }
        }
        Ok(())
    }

    /// Gives a held placement's GPUs back.
    pub(super) fn release(&mut self, p: &Placement) {
        match p.slice {
            None => {
                for s in &p.shares {
                    self.whole[s.node as usize] &= !s.mask;
                }
                self.busy -= p.gpus();
            }
            Some(slice) => {
                let Some(s) = p.shares.first() else { return };
                let key = (s.node, s.mask);
                if let Some(g) = self.shared.get_mut(&key) {
                    g.share -= slice.share;
                    g.mem_mb -= slice.mem_mb;
                    g.jobs -= 1;
                    if g.jobs == 0 {
                        self.shared.remove(&key);
                        self.sliced[s.node as usize] &= !s.mask;
                        self.busy -= 1;
                    }
                }
            }
        }
    }
}
