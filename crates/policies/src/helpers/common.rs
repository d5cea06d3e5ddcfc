//! Helpers shared by policies: choosing GPU types and walking jobs in
//! priority order through a packer.

use super::explain::Turn;
use schedlab_model::cluster::{GpuKind, Packer, Placement};
use schedlab_model::perf::BatchChoice;
use schedlab_sim::{Decision, View};

/// GPU types a job may use: its pinned type, else every type in cluster order.
pub fn kinds_for(view: &View, job: u32) -> Vec<GpuKind> {
    match view.spec(job).gpu_type.as_deref() {
        Some(_) => vec![view.default_kind(job)],
        None => view.cluster().kinds.clone(),
    }
}

/// GPU fractions a shared single-GPU job may take, smallest first (the
/// power-of-two set of STS's model, spec 2.7).
pub const SHARE_FRACTIONS: [u16; 3] = [125, 250, 500];

/// Claims a slice of one GPU for a single-GPU job whose memory need is
/// known: on the first type where the smallest admissible fraction (the
/// smallest whose share of the GPU's memory holds the job) fits, best fit
/// on GPUs other slices already share. None when the job asks for more
/// than one GPU, its memory is unknown, or no fraction holds it.
pub fn claim_shared(packer: &mut Packer, view: &View, job: u32) -> Option<Placement> {
    let need = view.memory_need_mb(job);
    if view.spec(job).gpus != 1 || need == 0 {
        return None;
    }
    kinds_for(view, job).into_iter().find_map(|k| {
        let mem = schedlab_model::cluster::gpu_mem_mb(k);
        let share = SHARE_FRACTIONS
            .into_iter()
            .find(|&f| need as u64 * 1000 <= mem as u64 * f as u64)?;
        packer.claim_slice(
            job,
            k,
            schedlab_model::cluster::Slice {
                share,
                mem_mb: need,
            },
        )
    })
}

/// Claims exactly the job's requested GPUs on the first type where they fit,
/// preferring the type it runs on now.
pub fn claim_rigid(packer: &mut Packer, view: &View, job: u32) -> Option<Placement> {
    claim_count(packer, view, job, view.spec(job).gpus)
}

/// As [`claim_rigid`], only on the GPUs `allowed` (masks per node): a
/// pool's home cells, or what a policy leaves open to lent jobs.
pub fn claim_rigid_within(
    packer: &mut Packer,
    view: &View,
    job: u32,
    allowed: &[u64],
) -> Option<Placement> {
    let g = view.spec(job).gpus;
    kinds_for(view, job)
        .into_iter()
        .find_map(|k| packer.claim_in(job, k, g, allowed))
}

/// Claims the job's requested GPUs for its pool's quota: inside the pool's
/// home cells under `engine.placement=cells`, anywhere otherwise.
pub fn claim_in_quota(packer: &mut Packer, view: &View, job: u32) -> Option<Placement> {
    match view.home_cells(view.pool_of(job)) {
        Some(home) => claim_rigid_within(packer, view, job, home),
        None => claim_rigid(packer, view, job),
    }
}

/// Claims exactly `want` GPUs on the first type where they fit, preferring
/// the type the job runs on now.
pub fn claim_count(packer: &mut Packer, view: &View, job: u32, want: u32) -> Option<Placement> {
    let mut kinds = kinds_for(view, job);
    if let Some(cur) = view.placement(job) {
        schedlab_core::sorting::sort_by_key(&mut kinds, |k| *k != cur.kind);
    }
    kinds.into_iter().find_map(|k| packer.claim(job, k, want))
}

/// Claims up to `count` GPUs (at least one) for an elastic job: the largest
/// count that can be placed, on the type with the most free GPUs (ties:
/// the type it runs on now).
pub fn claim_elastic(packer: &mut Packer, view: &View, job: u32, count: u32) -> Option<Placement> {
    let cur = view.placement(job).map(|p| p.kind);
    let mut kinds = kinds_for(view, job);
    schedlab_core::sorting::sort_by_key(&mut kinds, |k| {
        (std::cmp::Reverse(packer.free_of(*k)), Some(*k) != cur)
    });
    for c in (1..=count).rev() {
        for k in &kinds {
            if packer.free_of(*k) >= c {
                if let Some(p) = packer.claim(job, *k, c) {
                    return Some(p);
                }
            }
        }
    }
    None
}

/// Gang scheduling by priority: non-preemptible running jobs keep their
/// GPUs; then each job in `order` gets its full request if it can be placed
/// and is skipped otherwise; running jobs that get nothing are preempted.
/// `rigid_batch` runs every job at the trace's batch size. Returns the jobs
/// that hold GPUs after the decision.
pub fn gang_walk(view: &View, order: &[u32], out: &mut Decision, rigid_batch: bool) -> Vec<u32> {
    let (plan, placed) = gang_plan(view, order, rigid_batch, &|j| view.spec(j).gpus);
    out.apply_plan(view, plan);
    placed
}

/// The plan of [`gang_walk`] with `want(job)` GPUs per job (the request, or
/// the peak-throughput count for the max-GPU variants), not yet applied.
/// Returns the plan and the jobs it places, in priority order.
pub fn gang_plan(
    view: &View,
    order: &[u32],
    rigid_batch: bool,
    want: &dyn Fn(u32) -> u32,
) -> (crate::helpers::alloc::Plan, Vec<u32>) {
    gang_plan_turns(view, order, rigid_batch, want, None)
}

/// [`gang_plan`], noting each walked job's [`Turn`] in `turns` when given
/// (reasons; pinned jobs keep their GPUs and take no turn).
pub fn gang_plan_turns(
    view: &View,
    order: &[u32],
    rigid_batch: bool,
    want: &dyn Fn(u32) -> u32,
    turns: Option<&mut Vec<Turn>>,
) -> (crate::helpers::alloc::Plan, Vec<u32>) {
    let mut order = order.iter().copied();
    let (plan, placed, _) = gang_plan_walk(view, &mut |_| order.next(), rigid_batch, want, turns);
    (plan, placed)
}

/// [`gang_plan_turns`] over an order the caller hands out one job at a
/// time: `next(packer)` gives the next job to walk, seeing the GPUs still
/// unclaimed, or `None` to end the walk. A caller may end it once no job
/// left can be placed (a claim needs as many free GPUs as it asks, at
/// least one), and may leave out a job that holds no GPUs and asks more
/// GPUs than are unclaimed: walking it would fail its claim on every type
/// (`Packer::claim` refuses a count above a type's free GPUs and changes
/// nothing), release no reservation (it holds none) and note only a failed
/// count, which skips claims that fail anyway. The plan is then the same as
/// walking the whole order, and a long queue costs only the jobs walked.
/// Returns the plan, the jobs it places and how many jobs were walked.
pub fn gang_plan_walk(
    view: &View,
    next: &mut dyn FnMut(&Packer) -> Option<u32>,
    rigid_batch: bool,
    want: &dyn Fn(u32) -> u32,
    mut turns: Option<&mut Vec<Turn>>,
) -> (crate::helpers::alloc::Plan, Vec<u32>, usize) {
    let mut packer = view.packer_replan();
    // Room for every job the plan can hold (one per job, each holding a
    // GPU, bar slices) from the start: growing it by doublings copied it
    // whenever the heap had no room behind it, which varied from run to run
    // by tens of millions of instructions (issue 49's measure).
    let room = view.active().len().min(view.cluster().total_gpus as usize);
    let mut plan = Vec::with_capacity(room);
    let batch = |j: u32| rigid_batch.then(|| BatchChoice::Fixed(view.rigid_batch(j)));
    for &j in view.running().iter() {
        if view.pinned(j) {
            if let Some(p) = view.placement(j) {
                if packer.claim_exact(j, p) {
                    plan.push((j, p.clone(), batch(j)));
                }
            }
        }
    }
    let pinned: std::collections::BTreeSet<u32> = plan.iter().map(|(j, _, _)| *j).collect();
    let mut walked = 0;
    let mut failed = FailedCounts::default();
    // The unclaimed GPUs a turn records, summed over the cluster's types
    // (`Packer::free_total` sums the catalog's dozen, a type the cluster
    // lacks having none): read at every turn of a walk that gives reasons.
    let kinds = &view.cluster().kinds;
    while let Some(j) = next(&packer) {
        walked += 1;
        if pinned.contains(&j) {
            continue;
        }
        let free = if turns.is_some() {
            kinds.iter().map(|&k| packer.free_of(k)).sum()
        } else {
            0
        };
        let need = want(j);
        let unplaceable = view.placement(j).is_none() && failed.rules_out(view, j, need);
        let placed = match (!unplaceable)
            .then(|| claim_count(&mut packer, view, j, need))
            .flatten()
        {
            Some(p) => {
                plan.push((j, p, batch(j)));
                failed.clear();
                true
            }
            None => {
                if unplaceable {
                    // No placement, so no reservation to release.
                } else {
                    if view.placement(j).is_none() {
                        failed.note(&packer, view, j, need);
                    }
                    packer.release(j);
                }
                false
            }
        };
        if let Some(turns) = turns.as_deref_mut() {
            turns.push(Turn {
                job: j,
                need,
                free,
                placed,
            });
        }
    }
    let placed = plan.iter().map(|(j, _, _)| *j).collect();
    (plan, placed, walked)
}

/// The smallest count per GPU type that failed to place since the free GPUs
/// last changed, for jobs holding no GPUs: a later such job asking at least
/// as many, on types that all failed, cannot be placed either, so the walk
/// skips its claim.
///
/// Exact (the plan is the one claiming every job would give): within one
/// walk the free GPUs change only when a claim succeeds (a failed claim and
/// `release` leave them alone), and the memo is cleared then. A job holding
/// no GPUs has no reservation, so [`claim_count`] fails on a type exactly
/// when the packer finds no room for the count on the free GPUs of that
/// type, whatever the job; [`Packer::fail_monotone_up_to`] gives the count
/// up to which such a failure holds for every larger count, and only
/// counts within it are noted or skipped.
#[derive(Default)]
struct FailedCounts {
    /// (type, smallest failed count, the type's monotone bound).
    by_kind: Vec<(GpuKind, u32, u32)>,
}

impl FailedCounts {
    fn clear(&mut self) {
        self.by_kind.clear();
    }

    /// Notes that `job` (holding no GPUs) could not get `need` GPUs on any
    /// of its types.
    fn note(&mut self, packer: &Packer, view: &View, job: u32, need: u32) {
        for kind in kinds_for(view, job) {
            let bound = packer.fail_monotone_up_to(kind);
            if need == 0 || need > bound {
                continue;
            }
            match self.by_kind.iter_mut().find(|(k, _, _)| *k == kind) {
                Some((_, g, _)) => *g = (*g).min(need),
                None => self.by_kind.push((kind, need, bound)),
            }
        }
    }

    /// Whether `job` (holding no GPUs) asking `need` GPUs would fail on
    /// every one of its types.
    fn rules_out(&self, view: &View, job: u32, need: u32) -> bool {
        if self.by_kind.is_empty() {
            return false;
        }
        // `kinds_for` without its allocation: this runs for every job walked.
        let failed = |kind: &GpuKind| {
            self.by_kind
                .iter()
                .any(|(k, g, bound)| k == kind && *g <= need && need <= *bound)
        };
        match view.spec(job).gpu_type {
            Some(_) => failed(&view.default_kind(job)),
            None => view.cluster().kinds.iter().all(failed),
        }
    }
}

/// The GPU count a gang-scheduled job asks for: its request (`peak` false)
/// or, for the max-GPU variants of AFS §5.2 (spec seed003 §3.8), the GPU
/// count at its peak throughput (elastic jobs only; rigid ones keep theirs).
pub fn gang_request(view: &View, job: u32, peak: bool) -> u32 {
    if peak && view.spec(job).adaptivity != schedlab_model::workload::Adaptivity::Rigid {
        view.max_useful_gpus(job)
    } else {
        view.spec(job).gpus
    }
}

schedlab_core::choice! {
    /// `request`: the GPUs a gang-scheduled job gets when scheduled.
    pub enum Request {
        /// Its trace request.
        Trace = "trace",
        /// The count at its peak throughput (AFS §5.2's max-GPU variant).
        Peak = "peak",
    }
}

impl Request {
    /// Whether jobs get their peak-throughput GPU count ([`gang_request`]'s `peak`).
    pub fn peak(self) -> bool {
        match self {
            Request::Trace => false,
            Request::Peak => true,
        }
    }
}

/// The declared `request` parameter of the gang policies.
pub const REQUEST_PARAM: schedlab_core::params::ParamSpec = schedlab_core::params::ParamSpec::choice(
    "request",
    "trace",
    <Request as schedlab_core::settings::Choice>::NAMES,
    "GPUs each job gets when scheduled: its trace request, or the count at its peak throughput (AFS §5.2's max-GPU variant; rigid jobs keep their request)",
);
