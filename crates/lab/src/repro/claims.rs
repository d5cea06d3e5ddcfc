//! One published claim beside ours: the unit every reproduction reports in, so that
//! `schedlab reproduce all` can say in one table which of the papers' claims hold.

use serde::Serialize;

/// A claim of a paper, the published value, ours, and whether ours holds.
#[derive(Debug, Clone, Serialize)]
pub struct Claim {
    /// Where the claim is in the paper (figure, table, section) and what it says.
    pub what: String,
    /// The published value or statement, as the paper (or its artifact) gives it.
    pub theirs: String,
    /// Ours, as measured by this run.
    pub ours: String,
    /// Ours / theirs, when both are single numbers.
    pub ratio: Option<f64>,
    /// How `holds` is judged: a tolerance, a range, an ordering.
    pub tolerance: String,
    /// `None` when the claim is reported for information only (no target).
    pub holds: Option<bool>,
}

impl Claim {
    /// A claim judged by a yes/no test.
    pub fn judged(
        what: impl Into<String>,
        theirs: impl Into<String>,
        ours: impl Into<String>,
        tolerance: impl Into<String>,
        holds: bool,
    ) -> Claim {
        Claim {
            what: what.into(),
            theirs: theirs.into(),
            ours: ours.into(),
            ratio: None,
            tolerance: tolerance.into(),
            holds: Some(holds),
        }
    }

    /// A number beside the published number, held when the ratio ours / theirs is
    /// within `[1 / (1 + tol), 1 + tol]`.
    pub fn within(what: impl Into<String>, theirs: f64, ours: f64, tol: f64) -> Claim {
        let ratio = ours / theirs;
        let holds = ratio.is_finite() && ratio <= 1.0 + tol && ratio >= 1.0 / (1.0 + tol);
        Claim {
            what: what.into(),
            theirs: number(theirs),
            ours: number(ours),
            ratio: ratio.is_finite().then_some(ratio),
            tolerance: format!("ratio within {:.0}%", tol * 100.0),
            holds: Some(holds),
        }
    }

    /// A number beside the published one, for information only.
    pub fn info(what: impl Into<String>, theirs: Option<f64>, ours: f64) -> Claim {
        let ratio = theirs.map(|t| ours / t).filter(|r| r.is_finite());
        Claim {
            what: what.into(),
            theirs: theirs.map_or("–".into(), number),
            ours: number(ours),
            ratio,
            tolerance: "information".into(),
            holds: None,
        }
    }

    /// The same claim with the ratio set (both values are numbers).
    pub fn with_ratio(mut self, ratio: f64) -> Claim {
        self.ratio = ratio.is_finite().then_some(ratio);
        self
    }
}

/// A number with three significant digits (plain decimals for everyday sizes).
pub fn number(x: f64) -> String {
    if !x.is_finite() {
        return "–".into();
    }
    let a = x.abs();
    if a != 0.0 && !(0.001..1e6).contains(&a) {
        format!("{x:.2e}")
    } else if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

/// How many claims hold, fail, and are information only.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct Tally {
    pub hold: usize,
    pub fail: usize,
    pub info: usize,
}

impl Tally {
    pub fn of(claims: &[Claim]) -> Tally {
        let mut t = Tally::default();
        for c in claims {
            match c.holds {
                Some(true) => t.hold += 1,
                Some(false) => t.fail += 1,
                None => t.info += 1,
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn within_is_symmetric_in_ratio() {
        assert_eq!(Claim::within("x", 2.0, 2.4, 0.25).holds, Some(true));
        assert_eq!(Claim::within("x", 2.0, 1.6, 0.25).holds, Some(true));
        assert_eq!(Claim::within("x", 2.0, 1.5, 0.25).holds, Some(false));
        assert_eq!(Claim::within("x", 2.0, 2.6, 0.25).holds, Some(false));
        assert_eq!(Claim::within("x", 0.0, 1.0, 0.25).holds, Some(false));
        assert_eq!(Claim::within("x", 2.0, 2.4, 0.25).ratio, Some(1.2));
    }

    #[test]
    fn tally_counts_each_kind() {
        let c = vec![
            Claim::within("a", 1.0, 1.0, 0.1),
            Claim::within("b", 1.0, 2.0, 0.1),
            Claim::info("c", None, 3.0),
        ];
        assert_eq!(
            Tally::of(&c),
            Tally {
                hold: 1,
                fail: 1,
                info: 1
            }
        );
    }

    #[test]
    fn numbers_keep_three_digits() {
        assert_eq!(number(0.0), "0.000");
        assert_eq!(number(1.23456), "1.23");
        assert_eq!(number(12.3456), "12.3");
        assert_eq!(number(1234.5), "1234");
        assert_eq!(number(f64::NAN), "–");
        assert_eq!(number(1.5e-5), "1.50e-5");
    }
}
