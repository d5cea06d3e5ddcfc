//! Algorithm 1 of AFS (Hwang et al., NSDI'21 §3.3; spec seed003 §2.3–2.4):
//! hand out the cluster's GPUs one at a time to the winner of the
//! TOPPRIORITY tournament. Pure functions over [`Entry`]s so that the
//! two-stage behaviour can be tested without an engine.
//!
//! Reading of the printed algorithm (spec §2.3, §7):
//! - lines 9–12: the optional swap makes j_a the shorter job, then rule (3)
//!   is evaluated unconditionally;
//! - stage one is explicit: jobs without GPUs outrank all others; AFS-L
//!   serves them by increasing len(1), AFS-P in random order (its pairwise
//!   test between two 0-GPU jobs is always a coin flip). When n ≥ M this is
//!   the whole answer: the M shortest jobs get one GPU each (a partial
//!   selection, O(n));
//! - stage two runs the tournament among jobs that can still use a GPU:
//!   never past the job's cap (peak-throughput GPU count) and never when
//!   one more GPU adds nothing; GPUs nobody can use stay idle;
//! - the tournament starts from one random job per scheduling event (the
//!   paper's "picks two jobs at random") and scans the jobs in arrival
//!   order, as `for j ∈ J` does. The relation is not transitive in general
//!   (see `rule.rs`), so the scan is replayed faithfully; after a grant only
//!   the suffix of the scan from the winner's position is recomputed, which
//!   gives the same champion as a full rescan.
//! - randomness is a seeded hash of (event seed, job ids, GPU counts), so a
//!   replayed comparison flips the same coin.
//!
//! Rigid jobs (not part of the AFS model) take their whole request as their
//! first grant and are saturated after it.

use super::rule::{gain, saved};

/// One job in an allocation round.
#[derive(Debug, Clone)]
pub struct Entry {
    pub job: u32,
    /// GPUs of the first grant (1 for elastic jobs, the request for rigid ones).
    pub min: u32,
    /// Most GPUs the job may get.
    pub cap: u32,
    /// Remaining work (AFS-L only; lengths are rem / p).
    pub rem: f64,
    /// Tie-break key: smaller wins ties.
    pub key: u64,
    /// GPUs granted so far.
    pub cnt: u32,
    /// Throughput at `cnt` and at `cnt + 1` GPUs.
    pub p: f64,
    pub p_next: f64,
}

impl Entry {
    pub fn new(job: u32, min: u32, cap: u32, rem: f64, key: u64) -> Entry {
        Entry {
            job,
            min: min.max(1),
            cap: cap.max(min.max(1)),
            rem,
            key,
            cnt: 0,
            p: 0.0,
            p_next: 0.0,
        }
    }

    /// Remaining time at the current count (infinite without GPUs).
    pub fn len(&self) -> f64 {
        if self.p > 0.0 {
            self.rem / self.p
        } else {
            f64::INFINITY
        }
    }

    fn can_grow(&self) -> bool {
        self.cnt >= 1 && self.cnt < self.cap && self.p_next > self.p
    }
}

/// What the scheduler knows about job lengths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Knowledge {
    /// AFS-L: remaining work is known.
    Length,
    /// AFS-P: evaluate (3) both ways; `random` ties flip a seeded coin,
    /// otherwise the job with the larger gain g wins (then the smaller key).
    NoLength { random: bool },
}

/// GPUs granted in each stage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stages {
    pub stage_one: u32,
    pub stage_two: u32,
}

/// A 64-bit mix (SplitMix64 finaliser): the seeded hash behind every
/// random choice, so that replaying a comparison gives the same answer.
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Runs Algorithm 1 over `entries` (arrival order) with `total` GPUs.
/// `rate(i, k)` is the throughput of `entries[i]` on k GPUs. Returns the GPUs
/// granted per stage; the shares are in `entries[i].cnt`.
pub fn allocate(
    entries: &mut [Entry],
    total: u32,
    knowledge: Knowledge,
    seed: u64,
    rate: &mut (impl FnMut(usize, u32) -> f64 + ?Sized),
) -> Stages {
    allocate_logged(entries, total, knowledge, seed, rate, None)
}

/// What an allocation noted for its reasons ([`allocate_logged`]), by
/// entry index.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Log {
    /// Each entry's stage-one key: its remaining time on its first grant
    /// (AFS-L; infinite when it cannot run), 0 for AFS-P.
    pub first: Vec<f64>,
    /// The entries in stage one's order (by key, then tie key, then
    /// index) when it sorted them all; empty when it only selected the
    /// first ones (jobs outnumbering GPUs).
    pub order: Vec<usize>,
    /// Each entry's last stage-two [`Grant`] (the grant that set its share;
    /// an earlier one is overwritten, so the log does not grow with the
    /// grants); None without one.
    pub grants: Vec<Option<Grant>>,
}

/// [`allocate`], filling `log` when given (reasons).
pub fn allocate_logged(
    entries: &mut [Entry],
    total: u32,
    knowledge: Knowledge,
    seed: u64,
    rate: &mut (impl FnMut(usize, u32) -> f64 + ?Sized),
    mut log: Option<&mut Log>,
) -> Stages {
    let mut stages = Stages::default();
    let left = stage_one_keyed(entries, total, knowledge, rate, log.as_deref_mut());
    stages.stage_one = total - left;
    let grants = log.map(|l| &mut l.grants);
    stages.stage_two = stage_two_logged(entries, left, knowledge, seed, rate, grants);
    stages
}

/// One side of a rule (3) comparison: a job's remaining time at its
/// tentative share (AFS-L), relative gain g and relative time saved h.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Side {
    pub job: u32,
    pub len: f64,
    pub g: f64,
    pub h: f64,
}

/// A GPU handed out in stage two: the winner of the TOPPRIORITY scan and
/// the job it beat for it (the champion it took the crown from, or, when
/// it held the crown from the start of the scan, the challenger that came
/// closest to taking it); None when it had no challenger.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grant {
    /// The GPU count the grant brings the winner to.
    pub gpus: u32,
    pub winner: Side,
    pub rival: Option<Side>,
}

/// Stage one: every job is a `min`-GPU job; they are served shortest
/// len(min) first (AFS-L) or in key order (AFS-P). Returns GPUs left.
pub fn stage_one(
    entries: &mut [Entry],
    total: u32,
    knowledge: Knowledge,
    rate: &mut (impl FnMut(usize, u32) -> f64 + ?Sized),
) -> u32 {
    stage_one_keyed(entries, total, knowledge, rate, None)
}

/// [`stage_one`], noting in `log` when given each entry's sort key (its
/// length on the first grant) and the order, when it sorted every entry.
fn stage_one_keyed(
    entries: &mut [Entry],
    total: u32,
    knowledge: Knowledge,
    rate: &mut (impl FnMut(usize, u32) -> f64 + ?Sized),
    mut log: Option<&mut Log>,
) -> u32 {
    let n = entries.len();
    // Sort key per entry: (length at the first grant, tie key).
    let mut first: Vec<(f64, f64)> = Vec::with_capacity(n);
    for (i, e) in entries.iter().enumerate() {
        let p = rate(i, e.min);
        let len = match knowledge {
            Knowledge::Length if p > 0.0 => e.rem / p,
            Knowledge::Length => f64::INFINITY,
            Knowledge::NoLength { .. } => 0.0,
        };
        first.push((len, p));
    }
    if let Some(log) = log.as_deref_mut() {
        log.first.clear();
        log.first.extend(first.iter().map(|f| f.0));
        log.order.clear();
    }
    let cmp = |a: &usize, b: &usize| {
        first[*a]
            .0
            .total_cmp(&first[*b].0)
            .then(entries[*a].key.cmp(&entries[*b].key))
            .then(a.cmp(b))
    };
    let mut order: Vec<usize> = (0..n).collect();
    let all_single = entries.iter().all(|e| e.min == 1);
    let sorted = !(all_single && n > total as usize);
    if !sorted {
        // Fast path (n ≥ M): only the `total` best matter, in any order.
        if total == 0 {
            return 0;
        }
        order.select_nth_unstable_by(total as usize - 1, cmp);
        order.truncate(total as usize);
    } else {
        order.sort_unstable_by(cmp);
    }
    let mut left = total;
    for &i in &order {
        if left == 0 {
            break;
        }
        let e = &mut entries[i];
        if e.min <= left && first[i].1 > 0.0 {
            e.cnt = e.min;
            e.p = first[i].1;
            left -= e.min;
        }
    }
    if let (Some(log), true) = (log, sorted) {
        log.order = order;
    }
    left
}

/// Does challenger `y` replace champion `x` in the TOPPRIORITY scan?
fn replaces(x: &Entry, y: &Entry, knowledge: Knowledge, seed: u64) -> bool {
    let (gx, hx) = (gain(x.p, x.p_next), saved(x.p, x.p_next));
    let (gy, hy) = (gain(y.p, y.p_next), saved(y.p, y.p_next));
    match knowledge {
        Knowledge::Length => {
            if x.len() < y.len() {
                // j_a = champion (shorter), j_b = challenger: (3) -> challenger.
                hy > gx
            } else {
                // Swapped: j_a = challenger, j_b = champion: (3) -> champion stays.
                hx <= gy
            }
        }
        Knowledge::NoLength { random } => {
            if hy > gx {
                true
            } else if hx > gy || x.job == y.job {
                false
            } else if random {
                let (lo, hi) = if x.job < y.job { (x, y) } else { (y, x) };
                let h = mix(seed
                    ^ mix(((lo.job as u64) << 32) | hi.job as u64)
                    ^ mix(((lo.cnt as u64) << 32) | hi.cnt as u64));
                let winner = if h & 1 == 0 { lo.job } else { hi.job };
                winner == y.job
            } else {
                gy > gx || (gy == gx && y.key < x.key)
            }
        }
    }
}

/// Positions the AFS-L scan tests at once; its arrays are padded to a
/// multiple of it with entries that never take the crown.
const LANES: usize = 4;

/// A champion's length, g and h.
type Champ = (f64, f64, f64);

/// First position at or after `from` whose job takes the crown from
/// champion `c`. The crown changes hands about once per replay on the
/// benchmark trace, so a replay is mostly this search: `LANES` positions
/// at a time without branches, with AVX2 where the CPU has it (the same
/// comparisons, so the same answer).
fn next_taker(l: &[f64], g: &[f64], h: &[f64], from: usize, c: Champ) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { next_taker_avx2(l, g, h, from, c) };
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return first_taker(l, from, |at| chunk_takers_simd128(l, g, h, at, c));
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    first_taker(l, from, |at| chunk_takers(l, g, h, at, c))
}

/// `next_taker` compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn next_taker_avx2(l: &[f64], g: &[f64], h: &[f64], from: usize, c: Champ) -> Option<usize> {
    first_taker(l, from, |at| chunk_takers_avx2(l, g, h, at, c))
}

/// The chunk walk of `next_taker`; `takers(at)` tests the chunk at `at`.
#[inline(always)]
fn first_taker(l: &[f64], from: usize, takers: impl Fn(usize) -> u32) -> Option<usize> {
    let mut at = from - from % LANES;
    // Positions before `from` in the first chunk do not count.
    let mut keep = !0u32 << (from - at);
    while at < l.len() {
        let found = takers(at) & keep;
        if found != 0 {
            return Some(at + found.trailing_zeros() as usize);
        }
        keep = !0;
        at += LANES;
    }
    None
}

/// Which of the `LANES` positions from `at` take the crown from champion
/// `c` under rule (3) (bit j for position at + j): a longer challenger
/// needs h > the champion's g, a shorter or equal one g ≥ the champion's h.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
fn chunk_takers(l: &[f64], g: &[f64], h: &[f64], at: usize, c: Champ) -> u32 {
    let (lc, gc, hc) = c;
    let (l, g, h) = (&l[at..at + LANES], &g[at..at + LANES], &h[at..at + LANES]);
    let mut mask = 0u32;
    for j in 0..LANES {
        let longer = lc < l[j];
        let take = (longer & (h[j] > gc)) | (!longer & (g[j] >= hc));
        mask |= (take as u32) << j;
    }
    mask
}

/// `chunk_takers` with AVX2: the same ordered, non-signalling comparisons.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn chunk_takers_avx2(l: &[f64], g: &[f64], h: &[f64], at: usize, c: Champ) -> u32 {
    use std::arch::x86_64::*;
    const { assert!(LANES == 4) };
    let (l, g, h) = (&l[at..at + 4], &g[at..at + 4], &h[at..at + 4]);
    // SAFETY: each slice holds the four values loaded; the caller runs
    // only on CPUs with AVX2.
    unsafe {
        let longer = _mm256_cmp_pd::<_CMP_LT_OQ>(_mm256_set1_pd(c.0), _mm256_loadu_pd(l.as_ptr()));
        let by_h = _mm256_cmp_pd::<_CMP_GT_OQ>(_mm256_loadu_pd(h.as_ptr()), _mm256_set1_pd(c.1));
        let by_g = _mm256_cmp_pd::<_CMP_GE_OQ>(_mm256_loadu_pd(g.as_ptr()), _mm256_set1_pd(c.2));
        let take = _mm256_or_pd(_mm256_and_pd(longer, by_h), _mm256_andnot_pd(longer, by_g));
        _mm256_movemask_pd(take) as u32
    }
}

/// `chunk_takers` with wasm's SIMD128, two positions per vector: the same
/// ordered comparisons (false on NaN, as the scalar ones).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn chunk_takers_simd128(l: &[f64], g: &[f64], h: &[f64], at: usize, c: Champ) -> u32 {
    use std::arch::wasm32::*;
    const { assert!(LANES == 4) };
    let pair = |x: &[f64], k: usize| f64x2(x[at + k], x[at + k + 1]);
    let half = |k: usize| {
        let longer = f64x2_lt(f64x2_splat(c.0), pair(l, k));
        let by_h = f64x2_gt(pair(h, k), f64x2_splat(c.1));
        let by_g = f64x2_ge(pair(g, k), f64x2_splat(c.2));
        i64x2_bitmask(v128_bitselect(by_h, by_g, longer)) as u32
    };
    half(0) | half(2) << 2
}

/// The scan state of stage two: flat arrays of (length, g, h) in scan
/// order, the starting job and the positions where the crown changed hands.
struct Scan {
    /// Jobs in the scan (the arrays may be longer: padding).
    n: usize,
    l: Vec<f64>,
    g: Vec<f64>,
    h: Vec<f64>,
    alive: Vec<bool>,
    start: usize,
    /// Positions where the crown changed hands (the new champion's own).
    changes: Vec<usize>,
    /// AFS-P: the largest g among the challengers that could dethrone the
    /// champion (those after its crowning, or all if it started the scan
    /// and never lost); infinite when unknown.
    max_g: f64,
}

impl Scan {
    /// Scan arrays for the eligible `entries`, padded for `next_taker`
    /// with saturated entries (g = h = −∞ never take the crown).
    fn new(entries: &[Entry], elig: &[usize]) -> Scan {
        let n = elig.len();
        let padded = n.div_ceil(LANES) * LANES;
        let mut scan = Scan {
            n,
            l: vec![0.0; padded],
            g: vec![f64::NEG_INFINITY; padded],
            h: vec![f64::NEG_INFINITY; padded],
            alive: vec![true; n],
            start: 0,
            changes: Vec::new(),
            max_g: f64::INFINITY,
        };
        for (k, &i) in elig.iter().enumerate() {
            scan.set(k, &entries[i]);
        }
        scan
    }

    /// Refreshes position `k` from its entry.
    fn set(&mut self, k: usize, e: &Entry) {
        self.l[k] = e.len();
        self.g[k] = gain(e.p, e.p_next);
        self.h[k] = saved(e.p, e.p_next);
    }

    /// Marks position `k` saturated: it never takes the crown again.
    fn retire(&mut self, k: usize) {
        self.alive[k] = false;
        self.g[k] = f64::NEG_INFINITY;
        self.h[k] = f64::NEG_INFINITY;
    }

    /// The position of the champion that champion `w` took the crown from,
    /// None when `w` held it from the start of the scan. The champion is
    /// the last change of hands, or the start when there is none.
    #[inline]
    fn dethroned(&self, w: usize) -> Option<usize> {
        match self.changes.len() {
            0 => None,
            n if self.changes[n - 1] == w => Some(if n >= 2 {
                self.changes[n - 2]
            } else {
                self.start
            }),
            _ => None,
        }
    }

    /// When the champion at position `w`, with length, g and h `c`, held
    /// the crown from the start: the challenger with the smallest margin to
    /// rule (3) (AFS-L: a longer one needs h > the champion's g, a shorter
    /// one g >= its h; AFS-P: h > the champion's g); the last of equal
    /// margins. Reads the other positions' current values and skips `w`'s.
    /// Retired positions (g = h = −∞) have margin −∞ and are never chosen;
    /// the others' margins are finite (their g and h are positive), so
    /// `>=` orders them as `total_cmp` would.
    fn closest(&self, w: usize, c: Champ, knowledge: Knowledge) -> Option<usize> {
        let (lc, gc, hc) = c;
        let by_length = knowledge == Knowledge::Length;
        let n = self.n;
        let (l, g, h) = (&self.l[..n], &self.g[..n], &self.h[..n]);
        let mut best = (f64::MIN, None);
        let mut search = |from: usize, to: usize| {
            for k in from..to {
                let margin = if !by_length || lc < l[k] {
                    h[k] - gc
                } else {
                    g[k] - hc
                };
                if margin >= best.0 {
                    best = (margin, Some(k));
                }
            }
        };
        search(0, w);
        search(w + 1, n);
        best.1
    }

    /// The champion before position `from`: the last change, or the start.
    fn champion(&self) -> usize {
        self.changes.last().copied().unwrap_or(self.start)
    }

    /// Replays the scan from position `from` and returns the final champion.
    fn replay(
        &mut self,
        from: usize,
        knowledge: Knowledge,
        entries: &[Entry],
        elig: &[usize],
        seed: u64,
    ) -> usize {
        match knowledge {
            Knowledge::Length => self.replay_length(from),
            Knowledge::NoLength { .. } => {
                self.replay_no_length(from, knowledge, entries, elig, seed)
            }
        }
    }

    /// AFS-L: jumps from one change of champion to the next. Keeps no
    /// streak bounds: on the benchmark trace they let 0.3 % of the grants
    /// skip their replay, not worth updating them in every replay.
    fn replay_length(&mut self, from: usize) -> usize {
        let mut c = self.champion();
        let mut k = from;
        while let Some(t) = next_taker(
            &self.l,
            &self.g,
            &self.h,
            k,
            (self.l[c], self.g[c], self.h[c]),
        ) {
            // The starting job does not challenge itself.
            if t != c {
                self.changes.push(t);
                c = t;
            }
            k = t + 1;
        }
        c
    }

    /// AFS-P: the scan with its coin flips, setting `max_g` on the way.
    fn replay_no_length(
        &mut self,
        from: usize,
        knowledge: Knowledge,
        entries: &[Entry],
        elig: &[usize],
        seed: u64,
    ) -> usize {
        let before = self.changes.len();
        let mut c = self.champion();
        let (mut gc, mut hc) = (self.g[c], self.h[c]);
        let mut gs = f64::NEG_INFINITY;
        for k in from..self.n {
            if k == c {
                continue;
            }
            let (gk, hk) = (self.g[k], self.h[k]);
            let take = if hk > gc {
                true
            } else if hc > gk {
                false
            } else {
                replaces(&entries[elig[c]], &entries[elig[k]], knowledge, seed)
            };
            if take {
                self.changes.push(k);
                c = k;
                (gc, hc) = (gk, hk);
                gs = f64::NEG_INFINITY;
            } else {
                gs = gs.max(gk);
            }
        }
        // The bound must cover every challenger after the champion's
        // crowning (everyone if it started the scan). If it was crowned
        // before `from`, add the positions in between.
        if self.changes.len() == before && from > 0 {
            let first = self.changes.last().map_or(0, |p| p + 1);
            for k in (first..from).filter(|&k| k != c) {
                gs = gs.max(self.g[k]);
            }
        }
        // A starting job that regained the crown at its own position is not
        // covered by a bound over the positions after it: force a replay.
        let regained = c == self.start && self.changes.last() == Some(&self.start);
        self.max_g = if regained { f64::INFINITY } else { gs };
        c
    }
}

/// Stage two: the tournament for the `left` GPUs among jobs that already
/// have their first grant. Returns the GPUs granted.
///
/// The scan of TOPPRIORITY is replayed exactly over flat arrays of
/// (length, g, h) in scan order, with shortcuts that do not change its
/// result:
/// - after a grant only the part of the scan from the winner's position on
///   is replayed (the prefix does not involve the winner unless it started
///   the scan);
/// - AFS-L jumps between changes of champion, testing several positions
///   at once (`next_taker`);
/// - AFS-P: while the same job keeps winning, the replay is skipped when a
///   bound from the last replay proves that nobody can take the crown from
///   it: a challenger y can only replace champion x if g_y ≥ h_x; the
///   winner's h only falls as it gains GPUs, so the bound stays valid.
///
/// The rule (3) relation is not transitive, so no priority queue gives the
/// same answer: with many jobs of similar marginal gain the crown often
/// changes hands along the scan (we measured no Condorcet winner in over
/// half of the grants on a 1,024-GPU trace). The cost is O(n) per GPU in
/// the worst case, as in the paper (O(M·n) per event).
pub fn stage_two(
    entries: &mut [Entry],
    left: u32,
    knowledge: Knowledge,
    seed: u64,
    rate: &mut (impl FnMut(usize, u32) -> f64 + ?Sized),
) -> u32 {
    stage_two_logged(entries, left, knowledge, seed, rate, None)
}

/// [`stage_two`], noting each entry's last grant in `log` when given.
pub fn stage_two_logged(
    entries: &mut [Entry],
    mut left: u32,
    knowledge: Knowledge,
    seed: u64,
    rate: &mut (impl FnMut(usize, u32) -> f64 + ?Sized),
    mut log: Option<&mut Vec<Option<Grant>>>,
) -> u32 {
    if let Some(log) = log.as_deref_mut() {
        log.clear();
        log.resize(entries.len(), None);
    }
    if left == 0 {
        return 0;
    }
    for (i, e) in entries.iter_mut().enumerate() {
        if e.cnt >= 1 {
            e.p_next = if e.cnt < e.cap {
                rate(i, e.cnt + 1)
            } else {
                e.p
            };
        }
    }
    // Scan positions: the eligible jobs in arrival (entry) order.
    let elig: Vec<usize> = (0..entries.len())
        .filter(|&i| entries[i].can_grow())
        .collect();
    if elig.is_empty() {
        return 0;
    }
    let mut scan = Scan::new(entries, &elig);
    let pick_start = |alive: &[bool], salt: u64| -> Option<usize> {
        let count = alive.iter().filter(|a| **a).count();
        if count == 0 {
            return None;
        }
        let want = (mix(seed ^ salt) % count as u64) as usize;
        alive
            .iter()
            .enumerate()
            .filter(|(_, a)| **a)
            .nth(want)
            .map(|(k, _)| k)
    };
    let mut salt = 0u64;
    match pick_start(&scan.alive, salt) {
        Some(s) => scan.start = s,
        None => return 0,
    }
    let mut champ = scan.replay(0, knowledge, entries, &elig, seed);
    let mut granted = 0;
    // Reasons: a few numbers per grant, the grants rebuilt at the end.
    let mut trail = log.is_some().then(|| Trail::new(scan.n, knowledge));
    while left > 0 {
        let w = champ;
        let i = elig[w];
        if let Some(t) = trail.as_mut() {
            t.note(w, entries[i].p, &scan, entries, &elig);
        }
        let e = &mut entries[i];
        e.cnt += 1;
        e.p = e.p_next;
        e.p_next = if e.cnt < e.cap {
            rate(i, e.cnt + 1)
        } else {
            e.p
        };
        left -= 1;
        granted += 1;
        let was_start = w == scan.start;
        if entries[i].can_grow() {
            scan.set(w, &entries[i]);
            if keeps_crown(&scan, w, knowledge, entries, &elig, seed) {
                continue;
            }
        } else {
            scan.retire(w);
            if was_start {
                salt += 1;
                match pick_start(&scan.alive, salt) {
                    Some(s) => scan.start = s,
                    None => break,
                }
            }
        }
        let from = if was_start {
            scan.changes.clear();
            0
        } else {
            // w took the crown at its own position, the last change.
            scan.changes.pop();
            w
        };
        champ = scan.replay(from, knowledge, entries, &elig, seed);
        if !scan.alive[champ] {
            break;
        }
    }
    if let (Some(mut t), Some(log)) = (trail, log) {
        t.resolve(&scan, entries, &elig);
        t.grants(entries, &elig, rate, log);
    }
    granted
}

/// Stage two's reasons, kept in a few numbers per grant: for each scan
/// position, at its last grant so far, the position of its rival, the
/// rival's GPU count then and the winner's throughput before the grant.
/// Only each entry's last grant is read, and a job's values at a given
/// GPU count are those [`Scan::set`] computes from its throughputs there,
/// so [`Trail::grants`] rebuilds the grants at the end of stage two.
///
/// A winner that held the crown from the start of the scan has as rival
/// the closest challenger, a search over every position: it is made when
/// the next grant goes to another job (or at the end), as between a job's
/// grants in a row only its own position changes.
struct Trail {
    /// Per position: its last grant so far.
    last: Vec<Noted>,
    /// The position whose last grant's rival is `HELD`, or `NONE`.
    pending: usize,
    knowledge: Knowledge,
}

/// A position's last grant so far, as [`Trail`] notes it.
#[derive(Clone, Copy)]
struct Noted {
    /// The rival's position, or `NO_GRANT`, `ALONE` (no other job could
    /// take a GPU) or `HELD` (to search for).
    rival: u32,
    /// The rival's GPU count at the grant.
    rival_cnt: u32,
    /// The winner's throughput before the grant.
    p_before: f64,
}

const NO_GRANT: u32 = u32::MAX;
const ALONE: u32 = u32::MAX - 1;
const HELD: u32 = u32::MAX - 2;
const NONE: usize = usize::MAX;

impl Trail {
    fn new(n: usize, knowledge: Knowledge) -> Trail {
        let none = Noted {
            rival: NO_GRANT,
            rival_cnt: 0,
            p_before: 0.0,
        };
        Trail {
            last: vec![none; n],
            pending: NONE,
            knowledge,
        }
    }

    /// Notes the grant to the champion at position `w`, whose throughput
    /// is `p_before`, before it takes the GPU. Made at every grant, so
    /// kept to a few loads and one store, and out of stage two's loop
    /// (inlined there, it made the loop slower with reasons off too).
    #[inline(never)]
    fn note(&mut self, w: usize, p_before: f64, scan: &Scan, entries: &[Entry], elig: &[usize]) {
        if self.pending != w && self.pending != NONE {
            return self.note_after_search(w, p_before, scan, entries, elig);
        }
        self.note_here(w, p_before, scan, entries, elig);
    }

    /// [`Trail::note`] once the pending grant's rival is found.
    #[cold]
    #[inline(never)]
    fn note_after_search(
        &mut self,
        w: usize,
        p_before: f64,
        scan: &Scan,
        entries: &[Entry],
        elig: &[usize],
    ) {
        self.resolve(scan, entries, elig);
        self.note_here(w, p_before, scan, entries, elig);
    }

    #[inline(always)]
    fn note_here(
        &mut self,
        w: usize,
        p_before: f64,
        scan: &Scan,
        entries: &[Entry],
        elig: &[usize],
    ) {
        let (rival, rival_cnt) = match scan.dethroned(w) {
            Some(r) => {
                self.pending = NONE;
                (r as u32, entries[elig[r]].cnt)
            }
            None => {
                self.pending = w;
                (HELD, 0)
            }
        };
        self.last[w] = Noted {
            rival,
            rival_cnt,
            p_before,
        };
    }

    /// Finds the rival of the pending grant (see [`Scan::closest`]); only
    /// its winner's position may have changed since.
    fn resolve(&mut self, scan: &Scan, entries: &[Entry], elig: &[usize]) {
        let w = std::mem::replace(&mut self.pending, NONE);
        if w == NONE {
            return;
        }
        let winner = self.winner(w, &entries[elig[w]]);
        let c = (winner.len, winner.g, winner.h);
        let noted = &mut self.last[w];
        noted.rival = match scan.closest(w, c, self.knowledge) {
            Some(k) => {
                noted.rival_cnt = entries[elig[k]].cnt;
                k as u32
            }
            None => ALONE,
        };
    }

    /// The winner of position `w`'s last grant, whose entry is `e` now
    /// (its share and throughput after that grant).
    fn winner(&self, w: usize, e: &Entry) -> Side {
        side_at(e, self.last[w].p_before, e.p)
    }

    /// Each position's last grant, rebuilt into `log` (by entry index).
    fn grants(
        &self,
        entries: &[Entry],
        elig: &[usize],
        rate: &mut (impl FnMut(usize, u32) -> f64 + ?Sized),
        log: &mut [Option<Grant>],
    ) {
        for (w, noted) in self.last.iter().enumerate() {
            if noted.rival == NO_GRANT {
                continue;
            }
            let e = &entries[elig[w]];
            let rival = (noted.rival != ALONE).then(|| {
                let k = elig[noted.rival as usize];
                let (o, cnt) = (&entries[k], noted.rival_cnt);
                if cnt == o.cnt {
                    side_at(o, o.p, o.p_next)
                } else {
                    // It won GPUs since: its throughputs at that count.
                    // It could still grow then, so cnt < cap.
                    side_at(o, rate(k, cnt), rate(k, cnt + 1))
                }
            });
            log[elig[w]] = Some(Grant {
                gpus: e.cnt,
                winner: self.winner(w, e),
                rival,
            });
        }
    }
}

/// `e`'s job as a side of rule (3) with throughputs `p` and `p_next`, by
/// [`Scan::set`]'s formulas.
fn side_at(e: &Entry, p: f64, p_next: f64) -> Side {
    let at = Entry { p, p_next, ..*e };
    Side {
        job: e.job,
        len: at.len(),
        g: gain(p, p_next),
        h: saved(p, p_next),
    }
}

/// AFS-P streak: does the winner `w`, just granted a GPU, provably keep
/// the crown without a replay? Nobody after its crowning can take it
/// (`max_g` below its new h) and it still beats the champion it took the
/// crown from (if it did not start the scan).
fn keeps_crown(
    scan: &Scan,
    w: usize,
    knowledge: Knowledge,
    entries: &[Entry],
    elig: &[usize],
    seed: u64,
) -> bool {
    if knowledge == Knowledge::Length || scan.max_g >= scan.h[w] {
        return false;
    }
    if w == scan.start {
        return true;
    }
    let x = scan
        .changes
        .len()
        .checked_sub(2)
        .map_or(scan.start, |c| scan.changes[c]);
    replaces(&entries[elig[x]], &entries[elig[w]], knowledge, seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::perf::SpeedupCurve;

    fn run(jobs: &[(f64, u32)], total: u32, knowledge: Knowledge) -> (Vec<u32>, Stages) {
        let curves: Vec<SpeedupCurve> = jobs
            .iter()
            .map(|(_, k)| SpeedupCurve::bsp(*k, 0.0))
            .collect();
        let mut entries: Vec<Entry> = jobs
            .iter()
            .enumerate()
            .map(|(i, (rem, k))| Entry::new(i as u32, 1, *k, *rem, i as u64))
            .collect();
        let st = allocate(&mut entries, total, knowledge, 7, &mut |i, k| {
            curves[i].at(k as f64)
        });
        (entries.iter().map(|e| e.cnt).collect(), st)
    }

    #[test]
    fn stage_one_serves_the_shortest_when_jobs_outnumber_gpus() {
        let jobs = [(50.0, 8), (10.0, 8), (30.0, 8), (20.0, 8), (40.0, 8)];
        let (cnt, st) = run(&jobs, 3, Knowledge::Length);
        assert_eq!(cnt, vec![0, 1, 1, 1, 0]);
        assert_eq!(
            st,
            Stages {
                stage_one: 3,
                stage_two: 0
            }
        );
    }

    #[test]
    fn stage_two_spreads_the_rest_by_rule_3() {
        // Short job saturates at 2 GPUs, long one scales to 20.
        let jobs = [(10.0, 2), (1000.0, 20)];
        let (cnt, st) = run(&jobs, 8, Knowledge::Length);
        assert_eq!(st.stage_one, 2);
        assert_eq!(cnt[0], 2, "short job is capped at its peak");
        assert_eq!(cnt[1], 6);
        assert_eq!(cnt.iter().sum::<u32>(), 8);
    }

    #[test]
    fn saturated_jobs_leave_gpus_idle() {
        let jobs = [(10.0, 2), (20.0, 3)];
        let (cnt, st) = run(&jobs, 16, Knowledge::Length);
        assert_eq!(cnt, vec![2, 3]);
        assert_eq!(st.stage_one + st.stage_two, 5);
    }

    #[test]
    fn length_unaware_variant_also_gives_everyone_one_gpu_first() {
        let jobs = [(10.0, 8), (20.0, 8), (30.0, 8), (40.0, 8)];
        let (cnt, st) = run(&jobs, 10, Knowledge::NoLength { random: true });
        assert!(cnt.iter().all(|&c| c >= 1));
        assert_eq!(st.stage_one, 4);
        assert_eq!(cnt.iter().sum::<u32>(), 10);
    }

    /// Up to `jobs` random entries (a fifth of them of equal length) with
    /// random curves up to `width` GPUs and caps up to `cap`, and up to
    /// `gpus` GPUs to share.
    fn random_jobs(
        rng: &mut schedlab_core::rng::Sampler,
        jobs: u64,
        gpus: u64,
        width: u64,
        cap: u64,
    ) -> (u32, Vec<SpeedupCurve>, Vec<Entry>) {
        let n = 1 + rng.below(jobs) as usize;
        let total = rng.below(gpus) as u32;
        let curves: Vec<SpeedupCurve> = (0..n)
            .map(|_| SpeedupCurve::bsp(1 + rng.below(width) as u32, rng.range(0.0, 0.3)))
            .collect();
        let base: Vec<Entry> = (0..n)
            .map(|i| {
                let rem = if rng.chance(0.2) {
                    500.0
                } else {
                    rng.range(1.0, 1e5)
                };
                Entry::new(i as u32, 1, 1 + rng.below(cap) as u32, rem, rng.next_u64())
            })
            .collect();
        (total, curves, base)
    }

    /// The naive Algorithm 1 loop: one full scan per GPU (its log unread).
    fn naive(
        entries: &mut [Entry],
        total: u32,
        knowledge: Knowledge,
        seed: u64,
        rate: &mut dyn FnMut(usize, u32) -> f64,
    ) {
        naive_logged(entries, total, knowledge, seed, rate);
    }

    /// The fast tournament (suffix replays, AFS-L's chunked search, AFS-P's streaks)
    /// gives exactly the naive scan's shares, on random jobs with random
    /// curves (ties in length included), for both variants.
    #[test]
    fn fast_tournament_matches_the_naive_scan() {
        let mut rng = schedlab_core::rng::Sampler::new(11);
        for case in 0..400 {
            let big = case % 4 == 0;
            let (total, curves, base) = random_jobs(
                &mut rng,
                if big { 150 } else { 40 },
                if big { 1500 } else { 200 },
                52,
                60,
            );
            for knowledge in [
                Knowledge::Length,
                Knowledge::NoLength { random: true },
                Knowledge::NoLength { random: false },
            ] {
                let seed = case as u64 * 31 + 5;
                let mut rate = |i: usize, k: u32| curves[i].at(k as f64);
                let mut a = base.clone();
                allocate(&mut a, total, knowledge, seed, &mut rate);
                let mut b = base.clone();
                naive(&mut b, total, knowledge, seed, &mut rate);
                let ca: Vec<u32> = a.iter().map(|e| e.cnt).collect();
                let cb: Vec<u32> = b.iter().map(|e| e.cnt).collect();
                assert_eq!(ca, cb, "case {case} {knowledge:?}");
            }
        }
    }

    /// A side's values as the naive scan sees them: the entry's own.
    fn naive_side(e: &Entry) -> Side {
        Side {
            job: e.job,
            len: e.len(),
            g: gain(e.p, e.p_next),
            h: saved(e.p, e.p_next),
        }
    }

    /// The naive Algorithm 1 loop of [`naive`], logging each entry's last
    /// grant as the definition in [`Grant`] says, at the grant itself: the
    /// champion the winner took the crown from in a full scan, or, when it
    /// held it from the start, the eligible job with the largest rule (3)
    /// margin (the last of equal ones). Also returns how many of the last
    /// grants had a dethroned champion as rival.
    fn naive_logged(
        entries: &mut [Entry],
        total: u32,
        knowledge: Knowledge,
        seed: u64,
        rate: &mut dyn FnMut(usize, u32) -> f64,
    ) -> (Vec<Option<Grant>>, usize) {
        let mut log = vec![None; entries.len()];
        let mut taken = vec![false; entries.len()];
        let mut left = stage_one(entries, total, knowledge, rate);
        for (i, e) in entries.iter_mut().enumerate() {
            if e.cnt >= 1 {
                e.p_next = if e.cnt < e.cap {
                    rate(i, e.cnt + 1)
                } else {
                    e.p
                };
            }
        }
        let mut salt = 0u64;
        let mut start: Option<usize> = None;
        while left > 0 {
            let elig: Vec<usize> = (0..entries.len())
                .filter(|&i| entries[i].can_grow())
                .collect();
            if elig.is_empty() {
                break;
            }
            let s = match start {
                Some(s) if elig.contains(&s) => s,
                Some(_) => {
                    salt += 1;
                    elig[(mix(seed ^ salt) % elig.len() as u64) as usize]
                }
                None => elig[(mix(seed) % elig.len() as u64) as usize],
            };
            start = Some(s);
            let (mut x, mut before) = (s, None);
            for &y in &elig {
                if y != x && replaces(&entries[x], &entries[y], knowledge, seed) {
                    before = Some(x);
                    x = y;
                }
            }
            let winner = naive_side(&entries[x]);
            let rival = before.or_else(|| {
                let mut best: Option<(f64, usize)> = None;
                for &k in elig.iter().filter(|&&k| k != x) {
                    let other = naive_side(&entries[k]);
                    let margin = if knowledge != Knowledge::Length || winner.len < other.len {
                        other.h - winner.g
                    } else {
                        other.g - winner.h
                    };
                    if best.is_none_or(|(m, _)| margin >= m) {
                        best = Some((margin, k));
                    }
                }
                best.map(|(_, k)| k)
            });
            taken[x] = before.is_some();
            log[x] = Some(Grant {
                gpus: entries[x].cnt + 1,
                winner,
                rival: rival.map(|k| naive_side(&entries[k])),
            });
            let e = &mut entries[x];
            e.cnt += 1;
            e.p = e.p_next;
            e.p_next = if e.cnt < e.cap {
                rate(x, e.cnt + 1)
            } else {
                e.p
            };
            left -= 1;
        }
        (log, taken.iter().filter(|t| **t).count())
    }

    /// The log of the fast tournament (each run of grants to one job logged
    /// when it ends) holds exactly the naive loop's last grant per entry,
    /// winner, rival and their values, for both variants.
    #[test]
    fn logged_grants_match_the_naive_scan() {
        let mut rng = schedlab_core::rng::Sampler::new(23);
        let (mut dethroned, mut held, mut sorted) = (0, 0, 0);
        for case in 0..300 {
            let (total, curves, base) =
                random_jobs(&mut rng, if case % 4 == 0 { 120 } else { 30 }, 600, 40, 50);
            for knowledge in [
                Knowledge::Length,
                Knowledge::NoLength { random: true },
                Knowledge::NoLength { random: false },
            ] {
                let seed = case as u64 * 17 + 3;
                let mut rate = |i: usize, k: u32| curves[i].at(k as f64);
                let mut a = base.clone();
                let mut log = Log::default();
                allocate_logged(&mut a, total, knowledge, seed, &mut rate, Some(&mut log));
                let mut b = base.clone();
                let (want, taken) = naive_logged(&mut b, total, knowledge, seed, &mut rate);
                assert_eq!(log.grants, want, "case {case} {knowledge:?}");
                let len1: Vec<f64> = base
                    .iter()
                    .enumerate()
                    .map(|(i, e)| match knowledge {
                        Knowledge::Length => e.rem / rate(i, e.min),
                        Knowledge::NoLength { .. } => 0.0,
                    })
                    .collect();
                assert_eq!(log.first, len1, "case {case} {knowledge:?}");
                if !log.order.is_empty() {
                    let mut want: Vec<usize> = (0..base.len()).collect();
                    want.sort_by(|&x, &y| {
                        len1[x]
                            .total_cmp(&len1[y])
                            .then(base[x].key.cmp(&base[y].key))
                            .then(x.cmp(&y))
                    });
                    assert_eq!(log.order, want, "case {case} {knowledge:?}");
                    sorted += 1;
                }
                dethroned += taken;
                held += want.iter().flatten().filter(|g| g.rival.is_some()).count() - taken;
            }
        }
        // Both kinds of rival were compared: a champion dethroned in the
        // scan, and the closest challenger of one that held the crown.
        assert!(dethroned > 100 && held > 0, "{dethroned} {held}");
        assert!(sorted > 100, "{sorted}");
    }

    /// The chunked search (portable and, where the CPU has it, AVX2) finds
    /// the same position as a plain loop over rule (3), with ties in
    /// length, padding (−∞) and every starting position.
    #[test]
    fn next_taker_matches_a_plain_loop() {
        let mut rng = schedlab_core::rng::Sampler::new(5);
        let pick = |rng: &mut schedlab_core::rng::Sampler| match rng.below(6) {
            0 => f64::NEG_INFINITY,
            1 => 0.25,
            _ => rng.range(0.0, 1.0),
        };
        for _ in 0..2000 {
            let n = LANES * (1 + rng.below(6) as usize);
            let l: Vec<f64> = (0..n).map(|_| (rng.below(8) as f64) * 10.0).collect();
            let g: Vec<f64> = (0..n).map(|_| pick(&mut rng)).collect();
            let h: Vec<f64> = g.iter().map(|&x| x / (1.0 + x.max(0.0))).collect();
            let c = ((rng.below(8) as f64) * 10.0, pick(&mut rng), pick(&mut rng));
            for from in 0..=n {
                let plain = (from..n).find(|&k| if c.0 < l[k] { h[k] > c.1 } else { g[k] >= c.2 });
                let portable = first_taker(&l, from, |at| chunk_takers(&l, &g, &h, at, c));
                assert_eq!(portable, plain);
                assert_eq!(next_taker(&l, &g, &h, from, c), plain);
            }
        }
    }
}
