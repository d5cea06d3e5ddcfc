//! PCS's active jobs kept by size class, in arrival order, with each
//! class's summed demand, updated from each call's arrivals and
//! completions. With them a call serves each class's first jobs and stops
//! where the class's share runs out ([`super::wfq::leading_allocation`]),
//! instead of visiting every queued job: a prediction's fork of a long
//! queue calls the policy at each of its events, so the old cost grew with
//! the queue at every one of them.
//!
//! Only jobs whose description cannot change (class, demand, efficiency:
//! the policy's `fixed` cache) are kept. The queues stand for the active
//! jobs only while they hold as many jobs as are active; otherwise (a job
//! without a fixed description, an arrival taken back by a fork, a policy
//! that missed arrivals) the policy takes its general path and rebuilds
//! them from that call's jobs.

use super::wfq::FluidJob;
use std::collections::BTreeSet;

#[derive(Debug, Clone, Default)]
pub struct ClassQueues {
    /// Per class, its active jobs' ids (ids are in arrival order).
    members: Vec<BTreeSet<u32>>,
    /// Per class, the sum of its jobs' demands (GPUs; exact in integers).
    demand: Vec<u64>,
    len: usize,
}

impl ClassQueues {
    /// Queues for `classes` classes holding `jobs` (id, description).
    pub fn build<'a>(classes: usize, jobs: impl Iterator<Item = (u32, &'a FluidJob)>) -> Self {
        let mut q = ClassQueues {
            members: vec![BTreeSet::new(); classes],
            demand: vec![0; classes],
            len: 0,
        };
        for (id, job) in jobs {
            q.insert(id, job);
        }
        q
    }

    /// Adds a job (again: no change).
    pub fn insert(&mut self, id: u32, job: &FluidJob) {
        if self.members[job.class].insert(id) {
            self.demand[job.class] += job.demand as u64;
            self.len += 1;
        }
    }

    /// Removes a job (absent: no change).
    pub fn remove(&mut self, id: u32, job: &FluidJob) {
        if self.members[job.class].remove(&id) {
            self.demand[job.class] -= job.demand as u64;
            self.len -= 1;
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// How many jobs a class holds.
    pub fn count(&self, class: usize) -> usize {
        self.members[class].len()
    }

    /// Each class's summed demand, as the full pass sums it (integers, so
    /// the same value whatever the order of the additions).
    pub fn demands(&self) -> Vec<f64> {
        self.demand.iter().map(|&d| d as f64).collect()
    }

    /// A class's jobs in arrival order.
    pub fn members(&self, class: usize) -> impl Iterator<Item = u32> + '_ {
        self.members[class].iter().copied()
    }
}
