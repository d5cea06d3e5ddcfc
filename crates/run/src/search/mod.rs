//! Multi-objective search over scheduler configurations: SPEA2 as PCS's
//! preference solver runs it (`spea2.rs`, with jMetalPy's operators in
//! `operators.rs`), the random-search ablation, Pareto fronts and the named
//! picks (`front.rs`), and the PCS problem itself (`pcs.rs`). Evaluations
//! come in batches so that callers spread them over threads (natively,
//! [`parallel_map`]) or Web Workers.

pub mod front;
pub mod operators;
pub mod pcs;
pub mod spea2;

use front::Point;
use schedlab_core::rng::Sampler;

/// A batch evaluator: decision vectors in, their objective vectors out.
pub type Evaluate<'a> = dyn FnMut(&[Vec<f64>]) -> Vec<Vec<f64>> + 'a;

/// The random-search ablation: `evaluations` points drawn uniformly in
/// `bounds`, evaluated in batches of `batch`.
pub fn random_search(
    bounds: &[(f64, f64)],
    evaluations: usize,
    batch: usize,
    seed: u64,
    evaluate: &mut Evaluate,
    on_batch: &mut dyn FnMut(usize, &[Point]) -> bool,
) -> Vec<Point> {
    let mut rng = Sampler::derive(seed, "random-search");
    let mut all = Vec::with_capacity(evaluations);
    while all.len() < evaluations {
        let n = batch.max(1).min(evaluations - all.len());
        let xs: Vec<Vec<f64>> = (0..n)
            .map(|_| bounds.iter().map(|&(lo, hi)| rng.range(lo, hi)).collect())
            .collect();
        let fs = evaluate(&xs);
        all.extend(xs.into_iter().zip(fs).map(|(x, f)| Point { x, f }));
        if !on_batch(all.len(), &all) {
            break;
        }
    }
    all
}

/// A batch evaluator that runs `f` on `threads` threads and appends every
/// point it evaluates, in evaluation order, to `seen` (the searches' own
/// results keep only survivors; figures and the CLI want every point).
#[cfg(not(target_arch = "wasm32"))]
pub fn recording_evaluator<'a>(
    threads: usize,
    f: &'a (dyn Fn(&Vec<f64>) -> Vec<f64> + Sync),
    seen: &'a mut Vec<Point>,
) -> impl FnMut(&[Vec<f64>]) -> Vec<Vec<f64>> + 'a {
    move |xs: &[Vec<f64>]| {
        let fs = parallel_map(xs, threads, f);
        seen.extend(
            xs.iter()
                .cloned()
                .zip(fs.iter().cloned())
                .map(|(x, f)| Point { x, f }),
        );
        fs
    }
}

/// `f` over `items` on up to `threads` threads, results in input order.
#[cfg(not(target_arch = "wasm32"))]
pub fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: &(dyn Fn(&T) -> R + Sync),
) -> Vec<R> {
    let threads = threads.max(1).min(items.len().max(1));
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut slots: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
    let results = std::sync::Mutex::new(&mut slots);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= items.len() {
                    break;
                }
                let r = f(&items[i]);
                results.lock().expect("no worker panicked")[i] = Some(r);
            });
        }
    });
    slots
        .into_iter()
        .map(|r| r.expect("every item was evaluated"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_search_spends_its_budget_in_bounds() {
        let mut seen = 0;
        let pts = random_search(
            &[(0.0, 1.0), (5.0, 6.0)],
            25,
            10,
            3,
            &mut |xs| {
                seen += xs.len();
                xs.iter().map(|x| vec![x[0], x[1]]).collect()
            },
            &mut |_, _| true,
        );
        assert_eq!((pts.len(), seen), (25, 25));
        assert!(pts
            .iter()
            .all(|p| (0.0..1.0).contains(&p.x[0]) && (5.0..6.0).contains(&p.x[1])));
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn the_recording_evaluator_keeps_every_point_in_order() {
        let mut seen = Vec::new();
        let square = |x: &Vec<f64>| vec![x[0] * x[0]];
        let mut evaluate = recording_evaluator(2, &square, &mut seen);
        assert_eq!(
            evaluate(&[vec![2.0], vec![3.0]]),
            vec![vec![4.0], vec![9.0]]
        );
        assert_eq!(evaluate(&[vec![1.0]]), vec![vec![1.0]]);
        drop(evaluate);
        let xs: Vec<f64> = seen.iter().map(|p| p.x[0]).collect();
        let fs: Vec<f64> = seen.iter().map(|p| p.f[0]).collect();
        assert_eq!((xs, fs), (vec![2.0, 3.0, 1.0], vec![4.0, 9.0, 1.0]));
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn parallel_map_keeps_order() {
        let v: Vec<u64> = (0..100).collect();
        assert_eq!(
            parallel_map(&v, 4, &|x| x * x),
            v.iter().map(|x| x * x).collect::<Vec<_>>()
        );
    }
}
