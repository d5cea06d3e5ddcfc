//! Declared parameters: one declaration (name, default, range, help) per
//! knob, used by the CLI (`--set P.KEY=VALUE`), the page's controls and the
//! docs alike.

use crate::error::{Error, Result};
use serde::Serialize;
use std::collections::BTreeMap;

/// What kind of value a parameter takes, with its admissible range.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ParamKind {
    Float {
        min: f64,
        max: f64,
    },
    Int {
        min: i64,
        max: i64,
    },
    Bool,
    Choice {
        options: &'static [&'static str],
    },
    /// Comma-separated numbers, each in `[min, max]` (may be empty).
    List {
        min: f64,
        max: f64,
    },
}

/// A parameter value.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ParamValue {
    Float(f64),
    Int(i64),
    Bool(bool),
    Text(String),
    List(Vec<f64>),
}

impl std::fmt::Display for ParamValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamValue::Float(v) => write!(f, "{v}"),
            ParamValue::Int(v) => write!(f, "{v}"),
            ParamValue::Bool(v) => write!(f, "{v}"),
            ParamValue::Text(v) => write!(f, "{v}"),
            ParamValue::List(v) => {
                let parts: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                write!(f, "{}", parts.join(","))
            }
        }
    }
}

/// One declared parameter.
#[derive(Debug, Clone, Serialize)]
pub struct ParamSpec {
    pub name: &'static str,
    pub kind: ParamKind,
    /// The default, written as the user would type it (parsed by `kind`).
    pub default: &'static str,
    pub help: &'static str,
}

impl ParamSpec {
    pub const fn float(
        name: &'static str,
        default: &'static str,
        min: f64,
        max: f64,
        help: &'static str,
    ) -> Self {
        ParamSpec {
            name,
            kind: ParamKind::Float { min, max },
            default,
            help: crate::prose::doc(help),
        }
    }

    pub const fn int(
        name: &'static str,
        default: &'static str,
        min: i64,
        max: i64,
        help: &'static str,
    ) -> Self {
        ParamSpec {
            name,
            kind: ParamKind::Int { min, max },
            default,
            help: crate::prose::doc(help),
        }
    }

    pub const fn boolean(name: &'static str, default: &'static str, help: &'static str) -> Self {
        ParamSpec {
            name,
            kind: ParamKind::Bool,
            default,
            help: crate::prose::doc(help),
        }
    }

    pub const fn choice(
        name: &'static str,
        default: &'static str,
        options: &'static [&'static str],
        help: &'static str,
    ) -> Self {
        ParamSpec {
            name,
            kind: ParamKind::Choice { options },
            default,
            help: crate::prose::doc(help),
        }
    }

    pub const fn list(
        name: &'static str,
        default: &'static str,
        min: f64,
        max: f64,
        help: &'static str,
    ) -> Self {
        ParamSpec {
            name,
            kind: ParamKind::List { min, max },
            default,
            help: crate::prose::doc(help),
        }
    }

    /// Parses and range-checks a textual value for this parameter.
    pub fn parse(&self, owner: &str, text: &str) -> Result<ParamValue> {
        let bad = |why: String| Error::config(format!("{owner}.{}={text}: {why}", self.name));
        let text = text.trim();
        match &self.kind {
            ParamKind::Float { min, max } => {
                let v: f64 = text.parse().map_err(|_| bad("expected a number".into()))?;
                if !v.is_finite() || v < *min || v > *max {
                    return Err(bad(format!("must be in [{min}, {max}]")));
                }
                Ok(ParamValue::Float(v))
            }
            ParamKind::Int { min, max } => {
                let v: i64 = text
                    .parse()
                    .map_err(|_| bad("expected an integer".into()))?;
                if v < *min || v > *max {
                    return Err(bad(format!("must be in [{min}, {max}]")));
                }
                Ok(ParamValue::Int(v))
            }
            ParamKind::Bool => match text {
                "true" | "1" | "yes" | "on" => Ok(ParamValue::Bool(true)),
                "false" | "0" | "no" | "off" => Ok(ParamValue::Bool(false)),
                _ => Err(bad("expected true or false".into())),
            },
            ParamKind::Choice { options } => {
                if options.contains(&text) {
                    Ok(ParamValue::Text(text.to_string()))
                } else {
                    Err(bad(format!("must be one of {}", options.join(", "))))
                }
            }
            ParamKind::List { min, max } => {
                let mut out = Vec::new();
                for (i, part) in text.split(',').map(str::trim).enumerate() {
                    if part.is_empty() && text.is_empty() {
                        break;
                    }
                    let v: f64 = part
                        .parse()
                        .map_err(|_| bad(format!("item {}: '{part}' is not a number", i + 1)))?;
                    if !v.is_finite() || v < *min || v > *max {
                        return Err(bad(format!("item {}: must be in [{min}, {max}]", i + 1)));
                    }
                    out.push(v);
                }
                Ok(ParamValue::List(out))
            }
        }
    }
}

/// Resolved parameter values for one owner (a policy or the engine).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Params {
    values: BTreeMap<String, ParamValue>,
}

impl Params {
    /// Defaults of `specs` overridden by `overrides` (name, text) pairs.
    /// Unknown names are an error that lists the known ones.
    pub fn resolve(
        owner: &str,
        specs: &[ParamSpec],
        overrides: &[(String, String)],
    ) -> Result<Params> {
        let mut values = BTreeMap::new();
        for spec in specs {
            values.insert(spec.name.to_string(), spec.parse(owner, spec.default)?);
        }
        for (name, text) in overrides {
            let spec = specs.iter().find(|s| s.name == name).ok_or_else(|| {
                let known: Vec<&str> = specs.iter().map(|s| s.name).collect();
                Error::config(format!(
                    "unknown parameter '{owner}.{name}'; {owner} has: {}",
                    if known.is_empty() {
                        "no parameters".to_string()
                    } else {
                        known.join(", ")
                    }
                ))
            })?;
            values.insert(name.clone(), spec.parse(owner, text)?);
        }
        Ok(Params { values })
    }

    /// The value of a declared float (or integer) parameter. Reading a name
    /// that is not declared, or of another type, is a bug in the caller
    /// (not bad user input: `resolve` already refused those), and panics
    /// with the name instead of reading as 0.
    pub fn f64(&self, name: &str) -> f64 {
        match self.values.get(name) {
            Some(ParamValue::Float(v)) => *v,
            Some(ParamValue::Int(v)) => *v as f64,
            other => self.misread(name, "a number", other),
        }
    }

    /// The value of a declared integer parameter (floats truncate).
    pub fn i64(&self, name: &str) -> i64 {
        match self.values.get(name) {
            Some(ParamValue::Int(v)) => *v,
            Some(ParamValue::Float(v)) => *v as i64,
            other => self.misread(name, "a number", other),
        }
    }

    /// The value of a declared boolean parameter.
    pub fn bool(&self, name: &str) -> bool {
        match self.values.get(name) {
            Some(ParamValue::Bool(v)) => *v,
            other => self.misread(name, "a boolean", other),
        }
    }

    /// The value of a declared choice or text parameter.
    pub fn text(&self, name: &str) -> &str {
        match self.values.get(name) {
            Some(ParamValue::Text(v)) => v,
            other => self.misread(name, "a text", other),
        }
    }

    /// The value of a declared list parameter.
    pub fn list(&self, name: &str) -> &[f64] {
        match self.values.get(name) {
            Some(ParamValue::List(v)) => v,
            other => self.misread(name, "a list", other),
        }
    }

    fn misread(&self, name: &str, want: &str, got: Option<&ParamValue>) -> ! {
        match got {
            None => panic!(
                "parameter '{name}' is not declared (declared: {})",
                self.values.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
            Some(v) => panic!("parameter '{name}' is {v}, not {want}"),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &ParamValue)> {
        self.values.iter()
    }

    /// Parameters with these values (typed settings written back for reports).
    pub fn from_values(values: Vec<(&str, ParamValue)>) -> Params {
        Params {
            values: values
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        }
    }
}

/// Splits `--set` entries `OWNER.KEY=VALUE` into per-owner override lists,
/// in the order given. An entry without an owner, key or `=`, or the same
/// `OWNER.KEY` given twice with different values, is an error naming it
/// (the same value twice is kept once).
pub fn split_overrides(entries: &[String]) -> Result<BTreeMap<String, Vec<(String, String)>>> {
    let mut out: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for entry in entries {
        let shown = clip(entry);
        let (lhs, value) = entry
            .split_once('=')
            .ok_or_else(|| Error::config(format!("--set {shown}: expected OWNER.KEY=VALUE")))?;
        let (owner, key) = lhs
            .split_once('.')
            .map(|(o, k)| (o.trim(), k.trim()))
            .filter(|(o, k)| !o.is_empty() && !k.is_empty())
            .ok_or_else(|| {
                Error::config(format!(
                    "--set {shown}: expected OWNER.KEY=VALUE (e.g. fifo.backfill=true)"
                ))
            })?;
        let value = value.trim();
        let list = out.entry(owner.to_string()).or_default();
        match list.iter().find(|(k, _)| k == key) {
            Some((_, v)) if v == value => {}
            Some((_, v)) => {
                return Err(Error::config(format!(
                    "--set {owner}.{key} is given twice, as {} and {}: keep one",
                    clip(v),
                    clip(value)
                )))
            }
            None => list.push((key.to_string(), value.to_string())),
        }
    }
    Ok(out)
}

/// `text` cut to about 80 characters for an error message.
fn clip(text: &str) -> String {
    const MAX: usize = 80;
    match text.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    }
}

/// A comma-separated list of names given to `flag` (`--policy`, `--schemes`,
/// a page's `policies=`), trimmed: an empty entry or a name given twice is
/// an error naming it (a repeated name would run the same thing twice).
pub fn name_list(flag: &str, text: &str) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for (i, name) in text.split(',').map(str::trim).enumerate() {
        if name.is_empty() {
            return Err(Error::config(format!(
                "{flag} {text}: entry {} is empty",
                i + 1
            )));
        }
        if out.iter().any(|p| p == name) {
            return Err(Error::config(format!(
                "{flag} {text}: '{name}' is named twice"
            )));
        }
        out.push(name.to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[ParamSpec] = &[
        ParamSpec::float("rate", "1.5", 0.0, 10.0, "a rate"),
        ParamSpec::int("n", "3", 1, 5, "a count"),
        ParamSpec::boolean("on", "false", "a switch"),
        ParamSpec::choice("mode", "a", &["a", "b"], "a mode"),
        ParamSpec::list("cuts", "1,2.5", 0.0, 10.0, "some numbers"),
    ];

    #[test]
    fn lists_parse_check_ranges_and_may_be_empty() {
        let p = Params::resolve("x", SPECS, &[]).unwrap();
        assert_eq!(p.list("cuts"), &[1.0, 2.5]);
        let p = Params::resolve("x", SPECS, &[("cuts".into(), "".into())]).unwrap();
        assert!(p.list("cuts").is_empty());
        let e = Params::resolve("x", SPECS, &[("cuts".into(), "1,,3".into())]).unwrap_err();
        assert!(e.to_string().contains("item 2"), "{e}");
        let e = Params::resolve("x", SPECS, &[("cuts".into(), "1,30".into())]).unwrap_err();
        assert!(e.to_string().contains("item 2: must be in [0, 10]"), "{e}");
    }

    #[test]
    #[should_panic(expected = "parameter 'rat' is not declared")]
    fn reading_an_undeclared_name_is_an_error_not_zero() {
        let p = Params::resolve("x", SPECS, &[]).unwrap();
        let _ = p.f64("rat");
    }

    #[test]
    #[should_panic(expected = "not a boolean")]
    fn reading_a_parameter_as_another_type_is_an_error() {
        let p = Params::resolve("x", SPECS, &[]).unwrap();
        let _ = p.bool("mode");
    }

    #[test]
    fn defaults_and_overrides() {
        let p = Params::resolve(
            "x",
            SPECS,
            &[("n".into(), "5".into()), ("on".into(), "true".into())],
        )
        .unwrap();
        assert_eq!(p.f64("rate"), 1.5);
        assert_eq!(p.i64("n"), 5);
        assert!(p.bool("on"));
        assert_eq!(p.text("mode"), "a");
    }

    #[test]
    fn range_and_unknown_errors() {
        let e = Params::resolve("x", SPECS, &[("n".into(), "9".into())]).unwrap_err();
        assert!(e.to_string().contains("x.n=9"), "{e}");
        let e = Params::resolve("x", SPECS, &[("zzz".into(), "1".into())]).unwrap_err();
        assert!(e.to_string().contains("unknown parameter 'x.zzz'"), "{e}");
        let e = Params::resolve("x", SPECS, &[("mode".into(), "c".into())]).unwrap_err();
        assert!(e.to_string().contains("one of a, b"), "{e}");
    }

    #[test]
    fn split_set_entries() {
        let m = split_overrides(&["fifo.backfill=true".into(), "engine.restart=0".into()]).unwrap();
        assert_eq!(
            m["fifo"],
            vec![("backfill".to_string(), "true".to_string())]
        );
        assert!(split_overrides(&["nodot=1".into()]).is_err());
    }

    #[test]
    fn a_setting_given_twice_must_agree() {
        let same = split_overrides(&["fifo.round_s=60".into(), "fifo.round_s=60".into()]).unwrap();
        assert_eq!(same["fifo"].len(), 1);
        let e = split_overrides(&["fifo.round_s=60".into(), "fifo.round_s = 30".into()])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("fifo.round_s is given twice, as 60 and 30"),
            "{e}"
        );
        for bad in [".k=1", "fifo.=1", " .x=2", "fifo.k"] {
            assert!(split_overrides(&[bad.into()]).is_err(), "{bad}");
        }
    }

    #[test]
    fn name_lists_refuse_empty_and_repeated_entries() {
        assert_eq!(name_list("--x", " a, b ").unwrap(), ["a", "b"]);
        let e = name_list("--x", "a,,b").unwrap_err().to_string();
        assert!(e.contains("--x a,,b: entry 2 is empty"), "{e}");
        let e = name_list("--x", "a,b,a").unwrap_err().to_string();
        assert!(e.contains("'a' is named twice"), "{e}");
        assert!(name_list("--x", "").is_err());
    }
}
