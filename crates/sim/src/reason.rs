//! Why a policy decided what it did, job by job (issue 49): a decision can
//! carry a [`Reason`] per job, naming the [`Rule`] that decided and the
//! numbers it compared, in the paper's own terms (Tiresias' queue and
//! attained service, AFS's rule (3) ratios, Themis' rho, ...).
//!
//! A rule is declared once, as a static beside the policy: an id, a
//! sentence with `{field}` holes and the fields' names and units, so the
//! CLI (`schedlab explain`), the page and the docs show the same words.
//! Policies build reasons only when [`crate::View::want_reasons`] says the
//! engine keeps them: they never change a decision, and runs that do not
//! record them (benchmarks, `schedlab run`) pay nothing.

use serde::Serialize;

/// What a field's number means (how it is written).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// A plain count (jobs, rank, queue level).
    Count,
    /// GPUs (fractions for slices).
    Gpus,
    /// Simulated seconds (a duration or a time of day in the run).
    Seconds,
    /// GPU-seconds of service.
    GpuSeconds,
    /// A dimensionless ratio or score (rho, a gain, a weight, a fitness).
    Ratio,
    /// Work per second (a throughput or goodput).
    Rate,
    /// Work in the model's units.
    Work,
    /// US dollars.
    Usd,
    /// A job id.
    Job,
    /// Text (a configuration label, a pool, a GPU type).
    Text,
}

/// One named number (or text) of a rule.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Field {
    pub name: &'static str,
    pub unit: Unit,
}

/// Shorthand for declaring a rule's fields.
pub const fn field(name: &'static str, unit: Unit) -> Field {
    Field { name, unit }
}

/// A rule a policy decides by, declared once.
#[derive(Debug, PartialEq, Serialize)]
pub struct Rule {
    /// `family.rule`, e.g. `tiresias.queue`.
    pub id: &'static str,
    /// The sentence, with `{field}` holes: "in queue {queue}: attained
    /// {attained} of its {threshold} threshold".
    pub words: &'static str,
    pub fields: &'static [Field],
    /// The field the policy orders its queue by, if the rule ranks jobs
    /// (the page shows the queue in that order with this key).
    pub key: Option<&'static str>,
}

/// A value of a reason's field.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Num(f64),
    Text(String),
}

impl From<f64> for Val {
    #[inline]
    fn from(x: f64) -> Val {
        Val::Num(x)
    }
}

impl From<u32> for Val {
    #[inline]
    fn from(x: u32) -> Val {
        Val::Num(x as f64)
    }
}

impl From<usize> for Val {
    #[inline]
    fn from(x: usize) -> Val {
        Val::Num(x as f64)
    }
}

impl From<String> for Val {
    #[inline]
    fn from(s: String) -> Val {
        Val::Text(s)
    }
}

impl From<&str> for Val {
    #[inline]
    fn from(s: &str) -> Val {
        Val::Text(s.to_string())
    }
}

/// Why the policy did what it did to one job in one call: the head of a
/// reason in [`Reasons`], whose values sit in the call's flat array.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reason {
    pub job: u32,
    pub rule: &'static Rule,
    /// The job's place in the policy's order (0 = served first), when the
    /// rule ranks jobs.
    pub rank: Option<u32>,
    /// Its values are `Reasons::values[start .. start + the rule's field count]`.
    pub start: u32,
}

/// One call's reasons, flat: a head per reason and every reason's numbers
/// in one array, so a reason costs no allocation of its own (a policy
/// explains every job at every call; the engine reuses the buffers).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reasons {
    pub heads: Vec<Reason>,
    /// One number per field of each reason, in order; a text field holds
    /// NaN here and its text in `texts`.
    pub values: Vec<f64>,
    /// (index into `values`, text) of the text fields.
    pub texts: Vec<(u32, String)>,
}

impl Reasons {
    /// Adds `job`'s reason: the rule, its rank and one value per field.
    #[inline]
    pub fn push(
        &mut self,
        job: u32,
        rule: &'static Rule,
        rank: Option<u32>,
        values: impl IntoIterator<Item = Val>,
    ) {
        let start = self.values.len() as u32;
        for v in values {
            match v {
                Val::Num(x) => self.values.push(x),
                Val::Text(s) => {
                    self.texts.push((self.values.len() as u32, s));
                    self.values.push(f64::NAN);
                }
            }
        }
        debug_assert_eq!(
            self.values.len() - start as usize,
            rule.fields.len(),
            "{}",
            rule.id
        );
        self.heads.push(Reason {
            job,
            rule,
            rank,
            start,
        });
    }

    /// [`Reasons::push`] for a rule whose fields are all numbers: copied
    /// straight in (no [`Val`] per field; the policies that explain every
    /// job at every call use this).
    #[inline]
    pub fn push_numbers(
        &mut self,
        job: u32,
        rule: &'static Rule,
        rank: Option<u32>,
        values: &[f64],
    ) {
        debug_assert_eq!(values.len(), rule.fields.len(), "{}", rule.id);
        debug_assert!(
            rule.fields.iter().all(|f| f.unit != Unit::Text),
            "{}",
            rule.id
        );
        let start = self.values.len() as u32;
        self.values.extend_from_slice(values);
        self.heads.push(Reason {
            job,
            rule,
            rank,
            start,
        });
    }

    pub fn len(&self) -> usize {
        self.heads.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heads.is_empty()
    }

    /// Empties the buffers, keeping their room for the next call.
    pub fn clear(&mut self) {
        self.heads.clear();
        self.values.clear();
        self.texts.clear();
    }

    /// The jobs explained, in order.
    pub fn jobs(&self) -> impl Iterator<Item = u32> + '_ {
        self.heads.iter().map(|r| r.job)
    }

    /// A reason's numbers (a text field's is NaN; see [`Reasons::texts`]).
    pub fn values_of(&self, r: &Reason) -> &[f64] {
        let at = r.start as usize;
        &self.values[at..at + r.rule.fields.len()]
    }
}

impl Rule {
    /// The rule's sentence with `values` in its holes.
    pub fn render(&self, values: &[Val]) -> String {
        render(self.words, self.fields, |i| values.get(i).cloned())
    }

    /// Position of a field by name.
    pub fn field_index(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }
}

/// Fills `{name}` holes of `words` with the fields' values, written by
/// their units ([`write_value`]); an unknown hole is left as it is.
pub fn render(words: &str, fields: &[Field], value: impl Fn(usize) -> Option<Val>) -> String {
    let mut out = String::with_capacity(words.len() + 16);
    let mut rest = words;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let name = &after[..close];
        rest = &after[close + 1..];
        match fields.iter().position(|f| f.name == name) {
            Some(i) => {
                let v = value(i);
                out.push_str(&match &v {
                    Some(v) => write_value(fields[i].unit, v),
                    None => "–".to_string(),
                });
                // "1 GPU", not "1 GPUs".
                if v == Some(Val::Num(1.0)) && rest.starts_with(" GPUs") {
                    out.push_str(" GPU");
                    rest = &rest[5..];
                }
            }
            None => {
                out.push('{');
                out.push_str(name);
                out.push('}');
            }
        }
    }
    out.push_str(rest);
    out
}

/// A value as the CLI and the page write it: three significant digits,
/// durations in s / min / h / d, "–" for a number that is not finite
/// (NaN) and "∞" for an infinite one.
pub fn write_value(unit: Unit, v: &Val) -> String {
    let x = match v {
        Val::Text(s) => return s.clone(),
        Val::Num(x) => *x,
    };
    if x.is_nan() {
        return "–".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "∞" } else { "−∞" }.to_string();
    }
    match unit {
        Unit::Count | Unit::Job => sig(x, 6),
        Unit::Gpus => sig(x, 3),
        Unit::Seconds => duration(x),
        // Five digits: a job at 3,249.5 of a 3,250 threshold is not there yet.
        Unit::GpuSeconds => format!("{} GPU·s", sig(x, 5)),
        Unit::Ratio | Unit::Rate | Unit::Work => sig(x, 3),
        Unit::Usd => format!("${}", sig(x, 3)),
        Unit::Text => sig(x, 6),
    }
}

/// Seconds as "42 s", "12.5 min", "3.2 h" or "1.5 d".
fn duration(s: f64) -> String {
    let a = s.abs();
    if a < 120.0 {
        format!("{} s", sig(s, 3))
    } else if a < 7200.0 {
        format!("{} min", sig(s / 60.0, 3))
    } else if a < 172_800.0 {
        format!("{} h", sig(s / 3600.0, 3))
    } else {
        format!("{} d", sig(s / 86_400.0, 3))
    }
}

/// `x` to `digits` significant digits, without trailing zeros (an integer
/// part longer than that is kept whole: 12345 at 3 digits is "12345").
pub fn sig(x: f64, digits: usize) -> String {
    if x == 0.0 {
        return "0".to_string();
    }
    let mag = x.abs().log10().floor() as i32;
    let decimals = (digits as i32 - 1 - mag).max(0) as usize;
    let s = format!("{x:.decimals$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" {
        "0".to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static RULE: Rule = Rule {
        id: "test.rule",
        words:
            "in queue {queue}: attained {attained} of {threshold}, waited {wait}; {missing} {ratio}",
        fields: &[
            field("queue", Unit::Count),
            field("attained", Unit::GpuSeconds),
            field("threshold", Unit::GpuSeconds),
            field("wait", Unit::Seconds),
            field("ratio", Unit::Ratio),
        ],
        key: Some("queue"),
    };

    #[test]
    fn words_fill_their_holes_by_unit() {
        let s = RULE.render(&[
            Val::Num(1.0),
            Val::Num(3249.5),
            Val::Num(3250.0),
            Val::Num(5400.0),
            Val::Num(f64::NAN),
        ]);
        assert_eq!(
            s,
            "in queue 1: attained 3249.5 GPU·s of 3250 GPU·s, waited 90 min; {missing} –"
        );
        assert_eq!(RULE.field_index("wait"), Some(3));
    }

    #[test]
    fn one_gpu_is_singular() {
        static ONE: Rule = Rule {
            id: "t.one",
            words: "needs {need} GPUs, {free} GPUs free",
            fields: &[field("need", Unit::Gpus), field("free", Unit::Gpus)],
            key: None,
        };
        assert_eq!(
            ONE.render(&[Val::Num(1.0), Val::Num(2.0)]),
            "needs 1 GPU, 2 GPUs free"
        );
    }

    #[test]
    fn significant_digits() {
        assert_eq!(sig(0.012345, 3), "0.0123");
        assert_eq!(sig(1.5, 3), "1.5");
        assert_eq!(sig(12345.0, 3), "12345");
        assert_eq!(sig(-2.0, 3), "-2");
        assert_eq!(duration(7200.0), "2 h");
        assert_eq!(duration(86_400.0 * 3.0), "3 d");
        assert_eq!(write_value(Unit::Ratio, &Val::Num(f64::INFINITY)), "∞");
    }
}
