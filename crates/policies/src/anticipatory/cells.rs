//! A-SIA's locality extension (spec seed000 §2.8) under
//! `engine.placement=cells`: a window's reservation for pool q is a set of
//! tentative dedicated cells in q's home (its waiting jobs with their own
//! widths first, then the predicted load in cells of the pool's most common
//! width, the remainder in smaller powers of two); if any cannot be placed,
//! no job is lent until it can (every later opportunistic request fails).
//! Lent jobs then take cells outside the reservations and never in the
//! buddy of a dedicated job's cell, so pools' cells can merge back.

use super::Ledger;
use crate::claim_rigid_within;
use schedlab_model::cluster::{cells::buddy, Packer, PoolId};
use schedlab_sim::{Decision, View};
use std::collections::BTreeSet;

/// Where lent jobs may go in one step of the spare stream.
pub enum Room<'c> {
    /// Fungible GPUs (no cells): the count-based reservations suffice.
    Fungible,
    /// The packer with the reservations claimed, the GPUs (per node) lent
    /// jobs may take, and the GPUs dedicated jobs hold.
    Cells(Box<Packer<'c>>, Vec<u64>, Vec<u64>),
}

/// GPUs of `open` in aligned blocks of `size` that hold no `dedicated` GPU.
fn away_from(open: &[u64], dedicated: &[u64], size: u32, view: &View) -> Vec<u64> {
    let mut out = open.to_vec();
    for (n, o) in view.cluster().nodes.iter().zip(out.iter_mut()) {
        if size > n.gpus {
            *o = 0;
            continue;
        }
        for offset in (0..=n.gpus - size).step_by(size as usize) {
            let b = schedlab_model::cluster::node_mask(size) << offset;
            if dedicated[n.id as usize] & b != 0 {
                *o &= !b;
            }
        }
    }
    out
}

impl<'c> Room<'c> {
    /// The room for lending after reserving `reserve[q]` GPUs for every
    /// pool q; `None` when a reservation cannot be placed. Dedicated jobs
    /// are the running ones not in `opportunistic` plus this call's
    /// in-quota starts.
    pub fn of(
        view: &View,
        ledger: &Ledger,
        packer: &Packer<'c>,
        out: &Decision,
        opportunistic: &BTreeSet<u32>,
        reserve: &[u64],
    ) -> Option<Room<'c>> {
        if view.home_cells(0).is_none() {
            return Some(Room::Fungible);
        }
        let mut held = packer.clone();
        for (q, &want) in reserve.iter().enumerate().take(ledger.pools()) {
            let home = view.home_cells(q as PoolId)?;
            let mut left = want as u32;
            for &j in &ledger.pending[q] {
                let g = view.spec(j).gpus;
                if g > left {
                    break;
                }
                claim_rigid_within(&mut held, view, j, home)?;
                left -= g;
            }
            let width = common_width(view, ledger, q);
            while left > 0 {
                let c = if left >= width {
                    width
                } else {
                    1 << (31 - left.leading_zeros())
                };
                // A reservation holds no job: claimed under an id no job has.
                view.cluster()
                    .kinds
                    .iter()
                    .find_map(|&k| held.claim_in(u32::MAX, k, c, home))?;
                left -= c;
            }
        }
        let mut open: Vec<u64> = view
            .cluster()
            .nodes
            .iter()
            .map(|n| schedlab_model::cluster::node_mask(n.gpus))
            .collect();
        let dedicated = view
            .running()
            .iter()
            .filter(|j| !opportunistic.contains(j))
            .filter_map(|&j| view.placement(j))
            .chain(
                out.changes
                    .iter()
                    .filter(|(j, _)| !opportunistic.contains(j))
                    .filter_map(|(_, a)| a.as_ref().map(|a| &a.placement)),
            );
        let mut held_dedicated = vec![0u64; open.len()];
        for p in dedicated {
            for s in &p.shares {
                open[s.node as usize] &= !buddy(s.mask, view.cluster().nodes[s.node as usize].gpus);
                held_dedicated[s.node as usize] |= s.mask;
            }
        }
        for q in (0..ledger.pools()).filter(|&q| ledger.isolated[q]) {
            let home = view.home_cells(q as PoolId)?;
            for (o, h) in open.iter_mut().zip(home) {
                *o &= !h;
            }
        }
        Some(Room::Cells(Box::new(held), open, held_dedicated))
    }

    /// Starts `job` on lent GPUs in this room; false when it does not fit.
    pub fn start(
        &self,
        view: &View,
        ledger: &mut Ledger,
        packer: &mut Packer,
        out: &mut Decision,
        job: u32,
    ) -> bool {
        match self {
            Room::Fungible => ledger.start(view, packer, out, job, false),
            Room::Cells(held, open, dedicated) => {
                // As far from dedicated jobs as possible: first blocks of a
                // whole node without any, then ever smaller blocks.
                let largest = view
                    .cluster()
                    .nodes
                    .iter()
                    .map(|n| n.gpus)
                    .max()
                    .unwrap_or(1);
                let cell = schedlab_model::cluster::cells::cell_gpus(view.spec(job).gpus);
                let mut sizes: Vec<u32> =
                    std::iter::successors(Some(largest.next_power_of_two()), |s| {
                        (*s > cell * 2).then_some(s / 2)
                    })
                    .collect();
                sizes.retain(|&s| s > cell);
                let placed = sizes
                    .iter()
                    .map(|&s| away_from(open, dedicated, s, view))
                    .chain(std::iter::once(open.clone()))
                    .find_map(|allowed| {
                        claim_rigid_within(&mut (**held).clone(), view, job, &allowed)
                    });
                let Some(p) = placed else {
                    return false;
                };
                if !packer.claim_exact(job, &p) {
                    return false;
                }
                ledger.started(view, out, job, p, false);
                true
            }
        }
    }
}

/// The most common width among the pool's waiting and running jobs (ties:
/// the narrower; 1 when it has none): the cell size of its predicted load.
fn common_width(view: &View, ledger: &Ledger, q: usize) -> u32 {
    let mut counts: Vec<(u32, u32)> = Vec::new();
    let running = view
        .running()
        .iter()
        .filter(|&&j| super::ledger_pool(view, j) == q);
    for &j in ledger.pending[q].iter().chain(running) {
        let g = schedlab_model::cluster::cells::cell_gpus(view.spec(j).gpus);
        match counts.iter_mut().find(|(w, _)| *w == g) {
            Some(c) => c.1 += 1,
            None => counts.push((g, 1)),
        }
    }
    counts
        .into_iter()
        .max_by_key(|&(w, n)| (n, std::cmp::Reverse(w)))
        .map_or(1, |(w, _)| w)
}
