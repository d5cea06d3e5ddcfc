//! AFS's reasons (`sim::reason`): for each job, the grant that set its
//! share. Stage one serves jobs without GPUs (AFS-L shortest first on their
//! first grant); each further GPU goes to the winner of rule (3), and the
//! reason names the job it beat with both sides' ratios, g = (p' − p) / p
//! and h = (p' − p) / p'.

use super::share::{Entry, Log};
use schedlab_sim::{field, Decision, Field, Rule, Unit, Val};

const FIELDS: &[Field] = &[
    field("place", Unit::Count),
    field("min", Unit::Gpus),
    field("len1", Unit::Seconds),
    field("gpus", Unit::Gpus),
    field("len", Unit::Seconds),
    field("g", Unit::Ratio),
    field("h", Unit::Ratio),
    field("rival", Unit::Job),
    field("rival_len", Unit::Seconds),
    field("rival_g", Unit::Ratio),
    field("rival_h", Unit::Ratio),
];

/// AFS-L: no GPU; the first grants went to shorter jobs.
pub static L_WAITS: Rule = Rule {
    id: "afs-l.waits",
    words: "waits: stage one gives a first grant to jobs without GPUs, shortest first, and the GPUs ran out at #{place}; it would take {len1} on {min} GPUs",
    fields: FIELDS,
    key: Some("len1"),
};

/// AFS-L: its first grant and nothing more.
pub static L_FIRST: Rule = Rule {
    id: "afs-l.first",
    words: "holds its first grant of {min} GPUs (stage one, #{place} by remaining time on it, {len1}) and won no more in stage two",
    fields: FIELDS,
    key: Some("len1"),
};

/// AFS-L: the longer job won its last GPU.
pub static L_LONGER: Rule = Rule {
    id: "afs-l.longer_won",
    words: "GPU #{gpus} by rule (3): the longer job here ({len} against {rival_len} for job {rival}), its relative time saved h = {h} beat the shorter job's relative gain g = {rival_g}",
    fields: FIELDS,
    key: Some("len1"),
};

/// AFS-L: the shorter job kept its last GPU.
pub static L_SHORTER: Rule = Rule {
    id: "afs-l.shorter_won",
    words: "GPU #{gpus} by rule (3): the shorter job here ({len} against {rival_len} for job {rival}), and the longer job's relative time saved h = {rival_h} did not beat its relative gain g = {g}",
    fields: FIELDS,
    key: Some("len1"),
};

/// Its last GPU had no contender.
pub static ALONE: Rule = Rule {
    id: "afs.alone",
    words: "GPU #{gpus}: no other job could use one more GPU (its relative gain g = {g})",
    fields: FIELDS,
    key: None,
};

/// AFS-P: its first grant and nothing more.
pub static P_FIRST: Rule = Rule {
    id: "afs-p.first",
    words: "holds its first grant of {min} GPUs (stage one serves jobs without GPUs in a seeded random order; it was #{place}) and won no more in stage two",
    fields: FIELDS,
    key: None,
};

/// AFS-P: no GPU in stage one.
pub static P_WAITS: Rule = Rule {
    id: "afs-p.waits",
    words: "waits: stage one serves jobs without GPUs in a seeded random order and the GPUs ran out at #{place}",
    fields: FIELDS,
    key: None,
};

/// AFS-P: rule (3) decided both ways for it.
pub static P_BY_H: Rule = Rule {
    id: "afs-p.won",
    words: "GPU #{gpus} by rule (3) tried both ways (lengths unknown): its relative time saved h = {h} beat job {rival}'s relative gain g = {rival_g}",
    fields: FIELDS,
    key: None,
};

/// AFS-P: rule (3) decided nothing; the tie-break did.
pub static P_TIE: Rule = Rule {
    id: "afs-p.tie",
    words: "GPU #{gpus}: rule (3) tried both ways decides nothing between it (g = {g}, h = {h}) and job {rival} (g = {rival_g}, h = {rival_h}); the tie-break (a seeded coin, or with tie_break=arrival the larger gain) gave it the GPU",
    fields: FIELDS,
    key: None,
};

/// Which variant's rules to use.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    L,
    P,
}

/// Reasons for the entries of the final allocation and each entry's last
/// grant, from the log `share::allocate_logged` filled (by entry index):
/// `first[i]` is entry i's stage-one key (its remaining time on its first
/// grant for AFS-L, 0 for AFS-P), the order stage one served them in;
/// `order` is that order when stage one sorted every entry, else empty.
pub fn explain(out: &mut Decision, variant: Variant, entries: &[Entry], log: &Log) {
    let (grants, len1, order) = (&log.grants, &log.first, &log.order);
    // Stage one's order: by length on the first grant, then the tie key,
    // then the entry (a total order, so an unstable sort gives the same);
    // stage one's own when it sorted every entry.
    let mut place = vec![0usize; entries.len()];
    if order.len() == entries.len() {
        for (k, &i) in order.iter().enumerate() {
            place[i] = k + 1;
        }
    } else {
        let mut order: Vec<(u64, u64, usize)> = (0..entries.len())
            .map(|i| (total_order_key(len1[i]), entries[i].key, i))
            .collect();
        order.sort_unstable();
        for (k, &(_, _, i)) in order.iter().enumerate() {
            place[i] = k + 1;
        }
    }
    for (i, e) in entries.iter().enumerate() {
        let nan = f64::NAN;
        let head = [place[i] as f64, e.min as f64, len1[i], e.cnt as f64];
        let (rule, tail) = match grants.get(i).copied().flatten() {
            Some(g) => {
                let r = g.rival;
                let tail = [
                    g.winner.len,
                    g.winner.g,
                    g.winner.h,
                    r.map_or(nan, |r| r.job as f64),
                    r.map_or(nan, |r| r.len),
                    r.map_or(nan, |r| r.g),
                    r.map_or(nan, |r| r.h),
                ];
                let rule = match (r, variant) {
                    (None, _) => &ALONE,
                    (Some(r), Variant::L) if r.len < g.winner.len => &L_LONGER,
                    (Some(_), Variant::L) => &L_SHORTER,
                    (Some(r), Variant::P) if g.winner.h > r.g => &P_BY_H,
                    (Some(_), Variant::P) => &P_TIE,
                };
                (rule, tail)
            }
            None => {
                let rule = match (e.cnt > 0, variant) {
                    (true, Variant::L) => &L_FIRST,
                    (false, Variant::L) => &L_WAITS,
                    (true, Variant::P) => &P_FIRST,
                    (false, Variant::P) => &P_WAITS,
                };
                (rule, [nan; 7])
            }
        };
        let rank = (variant == Variant::L).then_some(place[i] as u32 - 1);
        let mut values = [0.0; 11];
        values[..4].copy_from_slice(&head);
        values[4..].copy_from_slice(&tail);
        out.explain_numbers(e.job, rule, rank, &values);
    }
}

/// `x`'s place in `f64::total_cmp`'s order, as an unsigned integer.
fn total_order_key(x: f64) -> u64 {
    let bits = x.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

const PS_FIELDS: &[Field] = &[
    field("quanta", Unit::Count),
    field("held", Unit::Seconds),
    field("quantum_end", Unit::Seconds),
    field("quantum", Unit::Seconds),
    field("jobs", Unit::Count),
    field("gpus", Unit::Gpus),
];

/// Processor sharing (jobs outnumber GPUs): holds a GPU for a quantum.
pub static PS_RUNS: Rule = Rule {
    id: "afs-p.quantum",
    words: "runs a quantum: {jobs} jobs share {gpus} GPUs in quanta of {quantum}, fewest quanta held first; it has held {quanta} quanta ({held}) and this one ends at {quantum_end} held",
    fields: PS_FIELDS,
    key: Some("quanta"),
};

/// Processor sharing: waits for its turn.
pub static PS_WAITS: Rule = Rule {
    id: "afs-p.turn",
    words: "waits its turn: {jobs} jobs share {gpus} GPUs in quanta of {quantum}, fewest quanta held first (running quanta finish first); it has held {quanta} quanta ({held})",
    fields: PS_FIELDS,
    key: Some("quanta"),
};

/// Reasons for processor sharing: `jobs` with (quanta held, seconds held,
/// quantum end if it holds a GPU), ranked by quanta held.
pub fn explain_time_share(
    out: &mut Decision,
    jobs: &[(u32, f64, f64, Option<f64>)],
    quantum: f64,
    gpus: u32,
) {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&jobs[a], &jobs[b]);
        x.3.is_none()
            .cmp(&y.3.is_none())
            .then(x.1.total_cmp(&y.1))
            .then(x.0.cmp(&y.0))
    });
    for (rank, &i) in order.iter().enumerate() {
        let (job, quanta, held, end) = jobs[i];
        out.explain(
            job,
            if end.is_some() { &PS_RUNS } else { &PS_WAITS },
            Some(rank as u32),
            [
                Val::from(quanta),
                Val::from(held),
                Val::from(end.unwrap_or(f64::NAN)),
                Val::from(quantum),
                Val::from(jobs.len()),
                Val::from(gpus),
            ],
        );
    }
}

const MAXMIN_FIELDS: &[Field] = &[
    field("gpus", Unit::Gpus),
    field("cap", Unit::Gpus),
    field("jobs", Unit::Count),
    field("free", Unit::Gpus),
];

/// AFS-S: the max-min share capped at the peak GPU count.
pub static S_SHARE: Rule = Rule {
    id: "afs-s.share",
    words: "max-min share of {gpus} GPUs: {free} GPUs water-filled over {jobs} jobs, each capped at its peak-throughput count (its cap {cap}); AFS-S knows no throughput curve to run rule (3) on",
    fields: MAXMIN_FIELDS,
    key: None,
};

/// AFS-S reasons: each job's water-filled share and cap.
pub fn explain_max_min(out: &mut Decision, shares: &[(u32, u32, u32)], free: u32) {
    for &(job, gpus, cap) in shares {
        out.explain(
            job,
            &S_SHARE,
            None,
            [
                Val::from(gpus),
                Val::from(cap),
                Val::from(shares.len()),
                Val::from(free),
            ],
        );
    }
}

#[cfg(test)]
mod tests {
    use super::total_order_key;

    #[test]
    fn total_order_key_orders_as_total_cmp() {
        let xs = [
            f64::NEG_INFINITY,
            -3.5,
            -0.0,
            0.0,
            1e-300,
            2.0,
            f64::INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        for a in xs {
            for b in xs {
                assert_eq!(
                    total_order_key(a).cmp(&total_order_key(b)),
                    a.total_cmp(&b),
                    "{a} against {b}"
                );
            }
        }
    }
}
