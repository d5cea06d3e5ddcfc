//! Sia's ILP: the LP relaxation plus the integerisation shim against the
//! exact branch-and-bound answer on random Sia-shaped rounds.

use schedlab::cluster::parse_cluster;
use schedlab::policy::sia::{configurations, normalize, restart_factor, weight, NodeCap};
use schedlab::rng::Sampler;
use schedlab::solve::{Choice, Item, Mck, Method};

/// A random round: `jobs` jobs with concave goodput curves on random
/// clusters of up to three types, weights as Sia builds them (p = -0.5,
/// lambda = 1.1), a few forced jobs.
fn random_round(rng: &mut Sampler, jobs: usize) -> Mck {
    let specs = [
        "t4:6x4,rtx:3x8,a100:2x8",
        "t4:4x4,a100:1x8",
        "rtx:2x8",
        "t4:3x4,rtx:1x8,quad:1x4",
        "a100:1x2,rtx:1x4",
    ];
    let cluster = parse_cluster(specs[rng.below(specs.len() as u64) as usize]).unwrap();
    let configs = configurations(&cluster, NodeCap::Gpus64);
    let kinds = cluster.kinds.clone();
    let mut items = Vec::new();
    for _ in 0..jobs {
        let speed: Vec<f64> = kinds.iter().map(|_| rng.range(0.5, 4.0)).collect();
        let alpha = rng.range(0.0, 0.3);
        // Sia's scale-up rule: a job grows to at most twice the most GPUs it
        // has run on (new jobs start on one GPU).
        let ran = [0u32, 1, 1, 2, 4, 8][rng.below(6) as usize];
        let max_gpus = (2 * ran).max(1);
        let cand: Vec<_> = configs.iter().filter(|c| c.gpus <= max_gpus).collect();
        let current = if ran > 0 {
            cand.iter().position(|c| c.gpus == ran)
        } else {
            None
        };
        let r = if current.is_some() {
            restart_factor(rng.range(60.0, 20_000.0), rng.below(4) as u32, 30.0)
        } else {
            1.0
        };
        let raw: Vec<f64> = cand
            .iter()
            .map(|c| {
                let k = kinds.iter().position(|x| *x == c.kind).unwrap();
                let g = c.gpus as f64;
                let multi = if c.nodes > 1 { 0.85 } else { 1.0 };
                speed[k] * g / (1.0 + alpha * (g - 1.0)) * multi
            })
            .collect();
        let g = normalize(&raw, 1);
        let choices = cand
            .iter()
            .zip(&g)
            .enumerate()
            .map(|(k, (c, gi))| Choice {
                weight: weight(*gi, if Some(k) == current { 1.0 } else { r }, -0.5, 1.1),
                usage: vec![(kinds.iter().position(|x| *x == c.kind).unwrap(), c.gpus)],
            })
            .collect::<Vec<_>>();
        let forced = if rng.chance(0.1) {
            Some(rng.below(choices.len() as u64) as usize)
        } else {
            None
        };
        items.push(Item { choices, forced });
    }
    let capacity: Vec<u32> = kinds.iter().map(|k| cluster.gpus_of(*k)).collect();
    // Forced options must fit together; drop forcing where they would not.
    let mut p = Mck { items, capacity };
    let mut used = vec![0u32; p.capacity.len()];
    for it in &mut p.items {
        if let Some(f) = it.forced {
            let (r, a) = it.choices[f].usage[0];
            if used[r] + a > p.capacity[r] {
                it.forced = None;
            } else {
                used[r] += a;
            }
        }
    }
    p
}

#[test]
fn lp_shim_matches_the_exact_ilp_in_at_least_95_percent_of_rounds() {
    let mut rng = Sampler::new(2024);
    let (mut same, mut total, mut worst, mut plain_same) = (0, 0, 1.0f64, 0);
    for round in 0..300 {
        let jobs = 2 + (round % 25);
        let p = random_round(&mut rng, jobs);
        let exact = p.solve(Method::Exact, 200_000);
        let shim = p.solve(Method::LpShim, 2000);
        let plain = p.solve(Method::LpShimPlain, 2000);
        p.check(&plain.pick)
            .expect("the thesis shim never violates capacity");
        if (plain.objective - exact.objective).abs() <= 1e-7 * exact.objective.abs().max(1.0) {
            plain_same += 1;
        }
        assert!(
            exact.fallback.is_none() && exact.optimal,
            "round {round}: exact failed: {:?}",
            exact.fallback
        );
        assert!(
            shim.fallback.is_none(),
            "round {round}: LP failed: {:?}",
            shim.fallback
        );
        p.check(&shim.pick)
            .expect("the shim never violates capacity or forced choices");
        assert!(
            shim.objective <= exact.objective + 1e-6,
            "round {round}: shim beat the optimum"
        );
        total += 1;
        if (shim.objective - exact.objective).abs() <= 1e-7 * exact.objective.abs().max(1.0) {
            same += 1;
        }
        worst = worst.min(shim.objective / exact.objective);
    }
    let share = same as f64 / total as f64;
    println!("LP + shim + repair equals the exact optimum in {same}/{total} rounds ({:.1}%), worst ratio {worst:.4}", 100.0 * share);
    println!("LP + the thesis shim alone: {plain_same}/{total} rounds");
    assert!(share >= 0.95, "only {:.1}% of rounds match", 100.0 * share);
}
