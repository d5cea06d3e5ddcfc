//! Stable sorting through one shared routine in the WebAssembly build.
//!
//! Every `slice::sort_by` call with its own comparator is a separate copy
//! of the standard library's driftsort (about 4 KB of wasm each); with 80
//! call sites they were a quarter of the page's code (measured with twiggy
//! on 2026-11-25). In wasm these helpers sort a permutation of indices with
//! one comparator behind `dyn` (a single copy) and then apply it; natively
//! they call the standard sort directly. A stable sort's result is unique,
//! so both give the same order to the bit.

use std::cmp::Ordering;

/// Stable sort by a comparator (as `slice::sort_by`).
#[inline]
pub fn sort_by<T>(v: &mut [T], cmp: impl FnMut(&T, &T) -> Ordering) {
    #[cfg(not(target_arch = "wasm32"))]
    v.sort_by(cmp);
    #[cfg(target_arch = "wasm32")]
    {
        if v.len() < 2 {
            return;
        }
        let mut cmp = cmp;
        let order = stable_order(v.len(), &mut |a, b| cmp(&v[a], &v[b]));
        permute(v, order);
    }
}

/// Stable sort by a key (as `slice::sort_by_key`).
#[inline]
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)))
}

/// Stable sort of an ordered slice (as `slice::sort`).
#[inline]
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp)
}

/// The stable sorted order of `n` items under `cmp` on their indices.
#[cfg(target_arch = "wasm32")]
#[inline(never)]
fn stable_order(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..n as u32).collect();
    idx.sort_by(|&a, &b| cmp(a as usize, b as usize));
    idx
}

/// Rearranges `v` so that position i holds the element that was at
/// `order[i]` (following each cycle of the permutation with swaps).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn permute<T>(v: &mut [T], mut order: Vec<u32>) {
    for start in 0..v.len() {
        let mut j = start;
        while order[j] as usize != start {
            let k = order[j] as usize;
            if k == j {
                break;
            }
            v.swap(j, k);
            order[j] = j as u32;
            j = k;
        }
        order[j] = j as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permuting_by_a_stable_order_equals_the_standard_stable_sort() {
        let mut x: u64 = 12345;
        for n in [0usize, 1, 2, 3, 7, 50, 300] {
            let v: Vec<(u32, u32)> = (0..n as u32)
                .map(|i| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (((x >> 33) % 5) as u32, i)
                })
                .collect();
            let mut want = v.clone();
            want.sort_by_key(|p| p.0);
            let mut idx: Vec<u32> = (0..n as u32).collect();
            idx.sort_by_key(|&i| v[i as usize].0);
            let mut got = v.clone();
            permute(&mut got, idx);
            assert_eq!(got, want, "n = {n}");
        }
    }
}
