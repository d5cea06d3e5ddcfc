//! PCS's reasons (`sim::reason`): each job's size class, the class's
//! weight and its water-filled share, the job's place in the class's FIFO
//! and the fluid share it gets under the efficiency cap. (The completion
//! time PCS predicts at arrival is the engine's forecast, `engine.predict`;
//! `schedlab explain` shows it with the job.)

use super::wfq::{fluid_allocation_and_shares, FluidJob};
use super::{size_on_one_gpu, Pcs};
use schedlab_sim::{field, Decision, Field, Rule, Unit, View};

const FIELDS: &[Field] = &[
    field("class", Unit::Count),
    field("size", Unit::Seconds),
    field("weight", Unit::Ratio),
    field("class_share", Unit::Gpus),
    field("class_jobs", Unit::Count),
    field("place", Unit::Count),
    field("share", Unit::Gpus),
    field("cap", Unit::Gpus),
];

/// Holds a share of its class's GPUs.
pub static SHARE: Rule = Rule {
    id: "pcs.share",
    words: "class {class} (its size: {size} on one GPU; class weight {weight}): weighted water-filling gives the class {class_share} GPUs, handed out first come first served within it; #{place} of {class_jobs}, it gets {share} GPUs (its efficiency cap at the clip: {cap})",
    fields: FIELDS,
    key: Some("class"),
};

/// Waits: the jobs ahead in its class used the class's share.
pub static WAITS: Rule = Rule {
    id: "pcs.waits",
    words: "waits: class {class} (its size: {size} on one GPU; class weight {weight}) gets {class_share} GPUs by weighted water-filling, first come first served within it, and the jobs ahead of it (#{place} of {class_jobs}) use them",
    fields: FIELDS,
    key: Some("class"),
};

/// Each fixed job's size on one GPU and efficiency cap (size NaN: not yet
/// known), so the reasons do not ask for its rate or scan its curve again
/// at every call. Only the reasons read it; a copy starts empty, so the
/// policy's forks (which never give reasons) do not carry it.
#[derive(Debug, Default)]
pub(super) struct Sizes(Vec<(f64, u32)>);

impl Clone for Sizes {
    fn clone(&self) -> Sizes {
        Sizes::default()
    }
}

impl Pcs {
    /// Reasons for the call's `jobs` (arrival order) on `capacity` GPUs,
    /// from the same WFQ the decision used (the general path).
    pub(super) fn explain(&mut self, view: &View, out: &mut Decision, jobs: &[u32], capacity: u32) {
        // Descriptions made in this call; the cached ones are only read
        // (borrowed, as `Pcs::fluid` does: no copies).
        let made: Vec<Option<FluidJob>> = jobs.iter().map(|&j| self.fluid_job(view, j)).collect();
        let fluid: Vec<&FluidJob> = jobs
            .iter()
            .zip(&made)
            .map(|(&j, m)| match m {
                Some(f) => f,
                None => self.fixed[j as usize]
                    .as_ref()
                    .expect("cached by fluid_job"),
            })
            .collect();
        let (shares, alloc) = fluid_allocation_and_shares(&self.cfg, capacity as f64, &fluid);
        let mut members = vec![0usize; self.cfg.classes()];
        for f in &fluid {
            members[f.class] += 1;
        }
        let rows = jobs.iter().zip(&fluid).zip(&alloc);
        let clip = self.cfg.clip;
        let rows = rows.map(|((&j, f), &a)| (j, *f, size_on_one_gpu(view, j), cap(f, clip), a));
        self.explain_rows(out, &shares, members.iter().copied(), rows);
    }

    /// Reasons when the class queues stand for the active jobs, from the
    /// class `shares` and the `served` jobs (arrival order) of the leading
    /// pass the decision makes (equal to the full WFQ's, to the bit; every
    /// other job gets 0), so no job's rate or share is computed again.
    pub(super) fn explain_queued(
        &mut self,
        view: &View,
        out: &mut Decision,
        shares: &[f64],
        served: &[(u32, f64)],
    ) {
        // Queued jobs are fixed: their sizes and caps cannot change.
        let sizes = &mut self.sizes.0;
        for &j in view.active() {
            let idx = j as usize;
            if sizes.len() <= idx {
                sizes.resize(idx + 1, (f64::NAN, 0));
            }
            if sizes[idx].0.is_nan() {
                let f = self.fixed[idx].as_ref().expect("queued jobs are fixed");
                sizes[idx] = (size_on_one_gpu(view, j), cap(f, self.cfg.clip));
            }
        }
        let queues = self.queues.as_ref().expect("synced");
        let fixed = &self.fixed;
        let describe = |j: u32| fixed[j as usize].as_ref().expect("queued jobs are fixed");
        let members = (0..self.cfg.classes()).map(|c| queues.count(c));
        let mut next = served.iter().peekable();
        let rows = view.active().iter().map(|&j| {
            let share = next.next_if(|(s, _)| *s == j).map_or(0.0, |(_, x)| *x);
            let (size, cap) = self.sizes.0[j as usize];
            (j, describe(j), size, cap, share)
        });
        self.explain_rows(out, shares, members, rows);
    }

    /// One reason per (job, description, size, cap, fluid share) row, in arrival
    /// order, given the class shares and how many jobs each class holds.
    fn explain_rows<'a>(
        &self,
        out: &mut Decision,
        shares: &[f64],
        members: impl Iterator<Item = usize>,
        rows: impl Iterator<Item = (u32, &'a FluidJob, f64, u32, f64)>,
    ) {
        // The queue's order: by class, first come first served within it
        // (a job's rank = the jobs of lower classes + those ahead in its own).
        // Per class, in one buffer: (its jobs, the next rank it gives, its
        // jobs seen so far).
        let mut below = 0u32;
        let mut classes: Vec<(usize, u32, usize)> = members
            .map(|m| {
                below += m as u32;
                (m, below - m as u32, 0)
            })
            .collect();
        for (j, f, size, cap, alloc) in rows {
            let (members, next_rank, seen) = &mut classes[f.class];
            *seen += 1;
            let rank = *next_rank;
            *next_rank += 1;
            out.explain_numbers(
                j,
                if alloc > 1e-9 { &SHARE } else { &WAITS },
                Some(rank),
                &[
                    f.class as f64,
                    size,
                    self.cfg.weights[f.class],
                    shares[f.class],
                    *members as f64,
                    *seen as f64,
                    alloc,
                    cap as f64,
                ],
            );
        }
    }
}

/// A job's efficiency cap at the clip: GPUs before its efficiency first
/// drops below it (at least 1), else its whole demand.
fn cap(f: &FluidJob, clip: f64) -> u32 {
    f.efficiency
        .iter()
        .position(|e| *e < clip)
        .map_or(f.demand, |g| (g as u32).max(1))
}
