//! AFS, Apathetic Future Share (Hwang, Kim, Kim, Shin, Park, "Elastic
//! Resource Sharing for Distributed Deep Learning", NSDI'21 §3; spec
//! seed003 §2.2–2.5): elastic GPU sharing that gives each GPU to the winner
//! of a pairwise test, rule (3), which assumes every job keeps its current
//! share in the future.
//!
//! - [`rule`]: rule (3) and its equivalent forms;
//! - [`share`]: Algorithm 1 (stage one, the TOPPRIORITY tournament);
//! - `afs_l.rs`: AFS-L (job lengths known);
//! - `afs_p.rs`: AFS-P (lengths unknown; both orderings per pair, random
//!   choice when neither wins, processor sharing with a quantum when jobs
//!   outnumber GPUs);
//! - `afs_s.rs`: AFS-S (only the peak-throughput GPU count known: max-min
//!   shares capped at k*, AFS-P's processor sharing).

pub(crate) mod afs_l;
pub(crate) mod afs_p;
pub(crate) mod afs_s;
pub mod explain;
pub mod rule;
pub mod share;

use crate::helpers::alloc::{first_grant, share_cap, Share};
use schedlab_sim::View;
use share::Entry;

/// The AFS candidates of one call: every active job but the pinned ones,
/// in arrival order, with its first grant, cap, remaining work and key.
pub(crate) fn entries(
    view: &View,
    jobs: &[u32],
    with_length: bool,
    key: impl Fn(u32) -> u64,
) -> Vec<Entry> {
    jobs.iter()
        .map(|&j| {
            let rem = if with_length {
                view.known_remaining_work(j)
            } else {
                0.0
            };
            Entry::new(j, first_grant(view, j), share_cap(view, j), rem, key(j))
        })
        .collect()
}

/// Shares from allocated entries.
pub(crate) fn to_shares(entries: &[Entry]) -> Vec<Share> {
    entries
        .iter()
        .filter(|e| e.cnt > 0)
        .map(|e| Share {
            job: e.job,
            count: e.cnt,
            min: e.min,
            cap: e.cap,
        })
        .collect()
}
