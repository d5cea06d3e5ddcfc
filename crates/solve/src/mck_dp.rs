//! Exact multiple-choice knapsack by dynamic programming over the capacity
//! vectors: for small clusters (Sia's 64 GPUs of three types make 10,625
//! capacity vectors) the table answers in a few milliseconds whatever the
//! weights, where a branch and bound can need hundreds of thousands of
//! nodes on a crowded round. Used when the structured branch and bound
//! ([`super::mck_exact`]) runs out of nodes or has too many items. Ties
//! keep the earlier choice (none before any option, options in order).

use super::mck::Mck;

/// Largest table (capacity vectors times free items) the method builds:
/// 8 M two-byte entries.
const MAX_CELLS: usize = 1 << 23;

/// The capacity vectors `0..=left` (the table's cells per item), when the
/// table for `p` stays within [`MAX_CELLS`].
pub(super) fn table_states(p: &Mck, left: &[u32]) -> Option<usize> {
    let states = left
        .iter()
        .try_fold(1usize, |s, c| s.checked_mul(*c as usize + 1))?;
    let free = p.items.iter().filter(|it| it.forced.is_none()).count();
    let small_items = p
        .items
        .iter()
        .all(|it| it.choices.len() < u16::MAX as usize);
    (states.checked_mul(free.max(1))? <= MAX_CELLS && small_items).then_some(states)
}

/// The best pick of the free items within `left` (forced items `None`), or
/// `None` when the table would exceed [`MAX_CELLS`].
pub(super) fn solve(p: &Mck, left: &[u32]) -> Option<Vec<Option<usize>>> {
    let n_states = table_states(p, left)?;
    let stride: Vec<usize> = left
        .iter()
        .scan(1usize, |s, c| {
            let here = *s;
            *s *= *c as usize + 1;
            Some(here)
        })
        .collect();
    let free: Vec<usize> = (0..p.items.len())
        .filter(|&i| p.items[i].forced.is_none())
        .collect();
    // best[s]: the most weight of the items so far within capacity vector s.
    let mut best = vec![0.0f64; n_states];
    let mut next = vec![0.0f64; n_states];
    // choice[k * n_states + s]: 1 + the option item k takes at s (0: none).
    let mut choice = vec![0u16; n_states * free.len()];
    let mut need = vec![0u32; left.len()];
    for (k, &i) in free.iter().enumerate() {
        next.copy_from_slice(&best);
        let row = &mut choice[k * n_states..(k + 1) * n_states];
        for (c, ch) in p.items[i].choices.iter().enumerate() {
            need.iter_mut().for_each(|a| *a = 0);
            for (r, a) in &ch.usage {
                need[*r] += a;
            }
            if ch.weight <= 0.0 || need.iter().zip(left).any(|(a, l)| a > l) {
                continue;
            }
            let offset: usize = need.iter().zip(&stride).map(|(a, s)| *a as usize * s).sum();
            for_each_run(left, &need, &stride, |start, len| {
                for s in start..start + len {
                    let v = best[s - offset] + ch.weight;
                    if v > next[s] {
                        next[s] = v;
                        row[s] = c as u16 + 1;
                    }
                }
            });
        }
        std::mem::swap(&mut best, &mut next);
    }
    let mut pick = vec![None; p.items.len()];
    let mut s = n_states - 1;
    for (k, &i) in free.iter().enumerate().rev() {
        let c = choice[k * n_states + s];
        if c > 0 {
            let ch = &p.items[i].choices[c as usize - 1];
            for (r, a) in &ch.usage {
                s -= *a as usize * stride[*r];
            }
            pick[i] = Some(c as usize - 1);
        }
    }
    Some(pick)
}

/// Calls `run(start, len)` for each contiguous run of capacity vectors `s`
/// with `need <= s <= left` (runs along resource 0).
fn for_each_run(left: &[u32], need: &[u32], stride: &[usize], mut run: impl FnMut(usize, usize)) {
    let dims = left.len();
    if dims == 0 {
        run(0, 1);
        return;
    }
    let len = (left[0] - need[0]) as usize + 1;
    let mut digit: Vec<u32> = need.to_vec();
    loop {
        let start: usize = digit.iter().zip(stride).map(|(d, s)| *d as usize * s).sum();
        run(start, len);
        // Advance the outer digits (resource 1 on) like an odometer.
        let mut r = 1;
        loop {
            if r == dims {
                return;
            }
            if digit[r] < left[r] {
                digit[r] += 1;
                break;
            }
            digit[r] = need[r];
            r += 1;
        }
    }
}
