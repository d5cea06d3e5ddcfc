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
    rate: &mut dyn FnMut(usize, u32) -> f64,
) -> Stages {
    let mut stages = Stages::default();
    let left = stage_one(entries, total, knowledge, rate);
    stages.stage_one = total - left;
    stages.stage_two = stage_two(entries, left, knowledge, seed, rate);
    stages
}

/// Stage one: every job is a `min`-GPU job; they are served shortest
/// len(min) first (AFS-L) or in key order (AFS-P). Returns GPUs left.
pub fn stage_one(
    entries: &mut [Entry],
    total: u32,
    knowledge: Knowledge,
    rate: &mut dyn FnMut(usize, u32) -> f64,
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
    let cmp = |a: &usize, b: &usize| {
        first[*a]
            .0
            .total_cmp(&first[*b].0)
            .then(entries[*a].key.cmp(&entries[*b].key))
            .then(a.cmp(b))
    };
    let mut order: Vec<usize> = (0..n).collect();
    let all_single = entries.iter().all(|e| e.min == 1);
    if all_single && n > total as usize {
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
    for i in order {
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

/// Does challenger `y` take the crown from champion `x` (AFS-L)? `x` is
/// the shorter job iff L_x < L_y; rule (3) then favours the longer job iff
/// its h beats the shorter job's g.
#[inline(always)]
fn takes(lx: f64, gx: f64, hx: f64, ly: f64, gy: f64, hy: f64) -> bool {
    if lx < ly {
        hy > gx
    } else {
        gy >= hx
    }
}

/// The scan state of stage two: flat arrays of (length, g, h) in scan
/// order, the starting job and the positions where the crown changed hands.
struct Scan {
    l: Vec<f64>,
    g: Vec<f64>,
    h: Vec<f64>,
    alive: Vec<bool>,
    start: usize,
    /// Positions where the crown changed hands (the new champion's own).
    changes: Vec<usize>,
    /// Bounds over the challengers that could dethrone the champion (those
    /// after its crowning, or all if it started the scan and never lost):
    /// its length then, max g of those not longer, max h of those longer.
    /// For AFS-P only the max g is used.
    bound: (f64, f64, f64),
}

impl Scan {
    /// Replays the scan from position `from` (the champion before it is the
    /// last change, or the start) and returns the final champion, setting
    /// the bounds on the way.
    fn replay(
        &mut self,
        from: usize,
        knowledge: Knowledge,
        entries: &[Entry],
        elig: &[usize],
        seed: u64,
    ) -> usize {
        let n = self.l.len();
        let before = self.changes.len();
        let mut c = self.changes.last().copied().unwrap_or(self.start);
        let (mut lc, mut gc, mut hc) = (self.l[c], self.g[c], self.h[c]);
        let (mut gs, mut hl) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        let regained = |changes: &[usize], start: usize| changes.last() == Some(&start);
        match knowledge {
            Knowledge::Length => {
                // Branch-free except for the (rarer) change of champion:
                // which job is longer is a coin toss the CPU cannot predict.
                let (l, g, h) = (&self.l[..n], &self.g[..n], &self.h[..n]);
                for k in from..n {
                    let (lk, gk, hk) = (l[k], g[k], h[k]);
                    let longer = lc < lk;
                    let take = (longer & (hk > gc)) | (!longer & (gk >= hc));
                    hl = hl.max(if longer { hk } else { f64::NEG_INFINITY });
                    gs = gs.max(if longer { f64::NEG_INFINITY } else { gk });
                    if take & (k != c) {
                        self.changes.push(k);
                        c = k;
                        (lc, gc, hc) = (lk, gk, hk);
                        gs = f64::NEG_INFINITY;
                        hl = f64::NEG_INFINITY;
                    }
                }
                // The champion's own entry (when it started the scan) must
                // not count in its bounds: recompute them if it was scanned.
                if c == self.start && self.changes.len() == before && from <= c {
                    gs = f64::NEG_INFINITY;
                    hl = f64::NEG_INFINITY;
                    for k in (from..n).filter(|&k| k != c) {
                        if l[k] > lc {
                            hl = hl.max(h[k]);
                        } else {
                            gs = gs.max(g[k]);
                        }
                    }
                }
            }
            Knowledge::NoLength { .. } => {
                for k in from..n {
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
                        (lc, gc, hc) = (self.l[k], gk, hk);
                        gs = f64::NEG_INFINITY;
                    } else {
                        gs = gs.max(gk);
                    }
                }
            }
        }
        // Bounds must cover every challenger after the champion's crowning
        // (everyone if it started the scan). If it was crowned before
        // `from`, add the positions in between.
        if self.changes.len() == before && from > 0 {
            let first = self.changes.last().map_or(0, |p| p + 1);
            for k in first..from {
                if k == c {
                    continue;
                }
                match knowledge {
                    Knowledge::Length if self.l[k] > lc => hl = hl.max(self.h[k]),
                    _ => gs = gs.max(self.g[k]),
                }
            }
        }
        // A starting job that regained the crown at its own position is not
        // covered by bounds over the positions after it: force a replay.
        let covered = !(c == self.start && regained(&self.changes, self.start));
        self.bound = if covered {
            (lc, gs, hl)
        } else {
            (f64::NEG_INFINITY, f64::INFINITY, f64::INFINITY)
        };
        c
    }
}

/// Stage two: the tournament for the `left` GPUs among jobs that already
/// have their first grant. Returns the GPUs granted.
///
/// The scan of TOPPRIORITY is replayed exactly over flat arrays of
/// (length, g, h) in scan order, with two shortcuts that do not change its
/// result:
/// - after a grant only the part of the scan from the winner's position on
///   is replayed (the prefix does not involve the winner unless it started
///   the scan);
/// - while the same job keeps winning, the replay is skipped when bounds
///   from the last replay prove that nobody can take the crown from it: a
///   challenger y can only replace champion x if g_y ≥ h_x and, if y is
///   longer, h_y > g_x; the winner's length, g and h only fall as it gains
///   GPUs, so the bounds stay valid.
///
/// The rule (3) relation is not transitive, so no priority queue gives the
/// same answer: with many jobs of similar marginal gain the crown often
/// changes hands along the scan (we measured no Condorcet winner in over
/// half of the grants on a 1,024-GPU trace). The cost is O(n) per GPU in
/// the worst case, as in the paper (O(M·n) per event).
pub fn stage_two(
    entries: &mut [Entry],
    mut left: u32,
    knowledge: Knowledge,
    seed: u64,
    rate: &mut dyn FnMut(usize, u32) -> f64,
) -> u32 {
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
    let n = elig.len();
    if n == 0 {
        return 0;
    }
    let mut scan = Scan {
        l: elig.iter().map(|&i| entries[i].len()).collect(),
        g: elig
            .iter()
            .map(|&i| gain(entries[i].p, entries[i].p_next))
            .collect(),
        h: elig
            .iter()
            .map(|&i| saved(entries[i].p, entries[i].p_next))
            .collect(),
        alive: vec![true; n],
        start: 0,
        changes: Vec::new(),
        bound: (0.0, 0.0, 0.0),
    };
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
    while left > 0 {
        let w = champ;
        let i = elig[w];
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
        let grows = entries[i].can_grow();
        let was_start = w == scan.start;
        if grows {
            let e = &entries[i];
            scan.l[w] = e.len();
            scan.g[w] = gain(e.p, e.p_next);
            scan.h[w] = saved(e.p, e.p_next);
            // Streak: keep the crown without a replay if provably unbeaten.
            let (lb, gs, hl) = scan.bound;
            let unbeaten = match knowledge {
                Knowledge::Length => scan.l[w] <= lb && gs < scan.h[w] && hl <= scan.g[w],
                Knowledge::NoLength { .. } => gs < scan.h[w],
            };
            if unbeaten {
                let keeps = was_start || {
                    let x = scan
                        .changes
                        .len()
                        .checked_sub(2)
                        .map_or(scan.start, |c| scan.changes[c]);
                    match knowledge {
                        Knowledge::Length => takes(
                            scan.l[x], scan.g[x], scan.h[x], scan.l[w], scan.g[w], scan.h[w],
                        ),
                        Knowledge::NoLength { .. } => {
                            replaces(&entries[elig[x]], &entries[i], knowledge, seed)
                        }
                    }
                };
                if keeps {
                    continue;
                }
            }
        } else {
            // Saturated: never takes the crown again.
            scan.alive[w] = false;
            scan.g[w] = f64::NEG_INFINITY;
            scan.h[w] = f64::NEG_INFINITY;
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
    granted
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::SpeedupCurve;

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

    /// The naive Algorithm 1 loop: one full scan per GPU.
    fn naive(
        entries: &mut [Entry],
        total: u32,
        knowledge: Knowledge,
        seed: u64,
        rate: &mut dyn FnMut(usize, u32) -> f64,
    ) {
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
            let mut x = s;
            for &y in &elig {
                if replaces(&entries[x], &entries[y], knowledge, seed) {
                    x = y;
                }
            }
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
    }

    /// The fast tournament (Condorcet shortcut, streaks, suffix replays)
    /// gives exactly the naive scan's shares, on random jobs with random
    /// curves (ties in length included), for both variants.
    #[test]
    fn fast_tournament_matches_the_naive_scan() {
        let mut rng = crate::workload::sample::Sampler::new(11);
        for case in 0..400 {
            let big = case % 4 == 0;
            let n = 1 + rng.below(if big { 150 } else { 40 }) as usize;
            let total = rng.below(if big { 1500 } else { 200 }) as u32;
            let curves: Vec<SpeedupCurve> = (0..n)
                .map(|_| SpeedupCurve::bsp(1 + rng.below(52) as u32, rng.range(0.0, 0.3)))
                .collect();
            let base: Vec<Entry> = (0..n)
                .map(|i| {
                    let rem = if rng.chance(0.2) {
                        500.0
                    } else {
                        rng.range(1.0, 1e5)
                    };
                    Entry::new(i as u32, 1, 1 + rng.below(60) as u32, rem, rng.next_u64())
                })
                .collect();
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
}
