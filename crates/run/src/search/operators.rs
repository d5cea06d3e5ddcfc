//! Real-coded variation operators as jMetalPy implements them (the PCS
//! artifact's search uses jMetalPy): simulated binary crossover (SBX) and
//! polynomial mutation, both bounded (Deb and Agrawal).

use schedlab_core::num;
use schedlab_core::rng::Sampler;

const EPS: f64 = 1e-14;

/// SBX on two parents: each variable is crossed with probability 1/2 (when
/// the parents differ), with distribution index `eta`; children stay in bounds.
pub fn sbx(
    a: &[f64],
    b: &[f64],
    bounds: &[(f64, f64)],
    eta: f64,
    rng: &mut Sampler,
) -> (Vec<f64>, Vec<f64>) {
    let mut c1 = a.to_vec();
    let mut c2 = b.to_vec();
    for i in 0..a.len() {
        if rng.uniform() > 0.5 || (a[i] - b[i]).abs() <= EPS {
            continue;
        }
        let (y1, y2) = (a[i].min(b[i]), a[i].max(b[i]));
        let (lb, ub) = bounds[i];
        let spread = |beta: f64, r: f64| {
            let alpha = 2.0 - num::pow(beta, -(eta + 1.0));
            if r <= 1.0 / alpha {
                num::pow(r * alpha, 1.0 / (eta + 1.0))
            } else {
                num::pow(1.0 / (2.0 - r * alpha), 1.0 / (eta + 1.0))
            }
        };
        let r = rng.uniform();
        let bq = spread(1.0 + 2.0 * (y1 - lb) / (y2 - y1), r);
        let x1 = (0.5 * (y1 + y2 - bq * (y2 - y1))).clamp(lb, ub);
        let bq = spread(1.0 + 2.0 * (ub - y2) / (y2 - y1), r);
        let x2 = (0.5 * (y1 + y2 + bq * (y2 - y1))).clamp(lb, ub);
        if rng.uniform() <= 0.5 {
            c1[i] = x2;
            c2[i] = x1;
        } else {
            c1[i] = x1;
            c2[i] = x2;
        }
    }
    (c1, c2)
}

/// Polynomial mutation: each variable with probability `p`, distribution index `eta`.
pub fn polynomial(x: &mut [f64], bounds: &[(f64, f64)], p: f64, eta: f64, rng: &mut Sampler) {
    for (v, &(lo, hi)) in x.iter_mut().zip(bounds) {
        if rng.uniform() > p {
            continue;
        }
        if lo == hi {
            *v = lo;
            continue;
        }
        let d1 = (*v - lo) / (hi - lo);
        let d2 = (hi - *v) / (hi - lo);
        let r = rng.uniform();
        let pw = 1.0 / (eta + 1.0);
        let dq = if r <= 0.5 {
            let val = 2.0 * r + (1.0 - 2.0 * r) * num::pow(1.0 - d1, eta + 1.0);
            num::pow(val, pw) - 1.0
        } else {
            let val = 2.0 * (1.0 - r) + 2.0 * (r - 0.5) * num::pow(1.0 - d2, eta + 1.0);
            1.0 - num::pow(val, pw)
        };
        *v = (*v + dq * (hi - lo)).clamp(lo, hi);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_stay_in_bounds_and_near_their_parents() {
        let mut rng = Sampler::new(3);
        let bounds = [(0.0, 1.0), (-3.0, 3.0)];
        let mut far = 0;
        for _ in 0..2000 {
            let (a, b) = sbx(&[0.2, -1.0], &[0.4, 2.0], &bounds, 20.0, &mut rng);
            for c in [&a, &b] {
                assert!((0.0..=1.0).contains(&c[0]) && (-3.0..=3.0).contains(&c[1]));
                if (c[0] - 0.3).abs() > 0.3 {
                    far += 1;
                }
            }
            let mut m = a.clone();
            polynomial(&mut m, &bounds, 1.0, 20.0, &mut rng);
            assert!((0.0..=1.0).contains(&m[0]) && (-3.0..=3.0).contains(&m[1]));
        }
        // Distribution index 20 keeps children close to the parents.
        assert!(far < 100, "{far}");
    }
}
