//! Pareto dominance, non-dominated subsets and the named picks of a
//! two-objective front (all objectives are minimised).

/// One evaluated point: decision variables and objective values.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Point {
    pub x: Vec<f64>,
    pub f: Vec<f64>,
}

pub use schedlab_core::pareto::dominates;

/// The points no other point dominates (first of equal copies kept), in input order.
pub fn non_dominated(points: &[Point]) -> Vec<Point> {
    let mut out: Vec<Point> = Vec::new();
    for (i, p) in points.iter().enumerate() {
        if p.f.iter().any(|v| !v.is_finite()) {
            continue;
        }
        let beaten = points
            .iter()
            .enumerate()
            .any(|(j, q)| j != i && (dominates(&q.f, &p.f) || (j < i && q.f == p.f)));
        if !beaten {
            out.push(p.clone());
        }
    }
    out
}

/// The three configurations the PCS paper evaluates per front (spec §2.5,
/// §7.16: the choice is manual there; this is the spec's suggested rule on
/// the first two objectives): `jct` has the lowest first objective, `pred`
/// the lowest second, `bal` is the knee: the point farthest from the line
/// joining the two extremes, with both objectives scaled to [0, 1] over the front.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Picks {
    pub jct: Point,
    pub bal: Point,
    pub pred: Point,
}

pub fn picks(front: &[Point]) -> Option<Picks> {
    let by = |k: usize| {
        front.iter().min_by(|a, b| {
            a.f[k]
                .total_cmp(&b.f[k])
                .then(a.f[1 - k].total_cmp(&b.f[1 - k]))
        })
    };
    let jct = by(0)?.clone();
    let pred = by(1)?.clone();
    let scale = |v: f64, k: usize| {
        let span = pred.f[k].max(jct.f[k]) - pred.f[k].min(jct.f[k]);
        if span > 0.0 {
            (v - jct.f[k].min(pred.f[k])) / span
        } else {
            0.0
        }
    };
    let (ax, ay) = (scale(jct.f[0], 0), scale(jct.f[1], 1));
    let (bx, by_) = (scale(pred.f[0], 0), scale(pred.f[1], 1));
    let len = ((bx - ax).powi(2) + (by_ - ay).powi(2)).sqrt();
    let distance = |p: &Point| {
        let (px, py) = (scale(p.f[0], 0), scale(p.f[1], 1));
        if len > 0.0 {
            ((bx - ax) * (ay - py) - (ax - px) * (by_ - ay)).abs() / len
        } else {
            0.0
        }
    };
    let bal = front
        .iter()
        .max_by(|a, b| distance(a).total_cmp(&distance(b)))?
        .clone();
    Some(Picks { jct, bal, pred })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(f: &[f64]) -> Point {
        Point {
            x: vec![],
            f: f.to_vec(),
        }
    }

    #[test]
    fn dominance_and_the_front() {
        assert!(dominates(&[1.0, 2.0], &[1.0, 3.0]));
        assert!(!dominates(&[1.0, 2.0], &[1.0, 2.0]));
        assert!(!dominates(&[0.0, 3.0], &[1.0, 2.0]));
        let pts = vec![
            p(&[1.0, 5.0]),
            p(&[2.0, 2.0]),
            p(&[3.0, 3.0]),
            p(&[5.0, 1.0]),
            p(&[2.0, 2.0]),
        ];
        let f = non_dominated(&pts);
        assert_eq!(f, vec![p(&[1.0, 5.0]), p(&[2.0, 2.0]), p(&[5.0, 1.0])]);
    }

    #[test]
    fn the_knee_is_between_the_extremes() {
        let front = vec![
            p(&[1.0, 10.0]),
            p(&[2.0, 2.0]),
            p(&[6.0, 1.5]),
            p(&[10.0, 1.0]),
        ];
        let k = picks(&front).unwrap();
        assert_eq!(k.jct.f, vec![1.0, 10.0]);
        assert_eq!(k.pred.f, vec![10.0, 1.0]);
        assert_eq!(k.bal.f, vec![2.0, 2.0]);
    }
}
