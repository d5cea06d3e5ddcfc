//! Typed settings declared once. [`settings!`](crate::settings!) turns one
//! declaration per setting (name, type, default, range, help) into a struct
//! with a typed field per setting, its [`ParamSpec`] list (for `list
//! policies`, the page's form and the docs) and its parsing from `--set`
//! overrides; [`choice!`](crate::choice!) declares a choice as an enum with
//! its option names. Text is parsed and range-checked once, where it enters
//! (`Params::resolve`), and the rest of the code reads plain typed fields.
//!
//! ```
//! schedlab_core::choice! {
//!     /// How jobs are ordered.
//!     pub enum Order { Arrival = "arrival", Size = "size" }
//! }
//! schedlab_core::settings! {
//!     /// A toy policy's settings.
//!     pub struct ToySettings {
//!         round_s: f64 = float("60", 1.0, 3600.0, "Round length in seconds"),
//!         order: Order = choice("arrival", "Which job goes first"),
//!     }
//! }
//! use schedlab_core::settings::Settings;
//! let s = ToySettings::resolve("toy", &[("order".into(), "size".into())]).unwrap();
//! assert_eq!((s.round_s, s.order), (60.0, Order::Size));
//! assert!(ToySettings::resolve("toy", &[("order".into(), "random".into())]).is_err());
//! ```

use crate::error::Result;
use crate::params::{ParamSpec, ParamValue, Params};

/// A struct of declared settings (written by [`settings!`](crate::settings!)).
pub trait Settings: Sized {
    /// One declaration per field, in field order.
    const SPECS: &'static [ParamSpec];

    /// The typed values of parameters resolved against [`Self::SPECS`]
    /// (`Params::resolve` has checked every value, so this cannot fail).
    fn from_params(p: &Params) -> Self;

    /// The values as parameters (reports print them).
    fn to_params(&self) -> Params;

    /// The declared defaults overridden by `(key, text)` pairs of `owner`:
    /// an unknown key or a bad value is an error naming `owner.key`.
    fn resolve(owner: &str, overrides: &[(String, String)]) -> Result<Self> {
        Ok(Self::from_params(&Params::resolve(
            owner,
            Self::SPECS,
            overrides,
        )?))
    }

    /// The declared defaults.
    fn defaults() -> Self {
        Self::resolve("", &[]).expect("declared defaults are valid (a test checks them)")
    }
}

/// A setting's choice: an enum whose variants have option names (written by
/// [`choice!`](crate::choice!)). Matching on it is exhaustive, so no option
/// falls through to a default.
pub trait Choice: Copy + PartialEq + Sized + 'static {
    /// The option names, in declaration order.
    const NAMES: &'static [&'static str];
    /// The variants, in the same order.
    const ALL: &'static [Self];

    /// The variant's option name.
    fn name(self) -> &'static str;

    /// The variant named `name`, if any.
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.name() == name)
    }
}

/// A type a declared setting can have: read from resolved parameters and
/// written back as a parameter value.
pub trait SettingType: Sized {
    /// The value of the resolved parameter `name` (declared with a kind
    /// that gives this type; a mismatch is a bug and panics with the name).
    fn read(p: &Params, name: &str) -> Self;
    /// The value as reports print it.
    fn value(&self) -> ParamValue;
}

impl SettingType for f64 {
    fn read(p: &Params, name: &str) -> Self {
        p.f64(name)
    }
    fn value(&self) -> ParamValue {
        ParamValue::Float(*self)
    }
}

impl SettingType for bool {
    fn read(p: &Params, name: &str) -> Self {
        p.bool(name)
    }
    fn value(&self) -> ParamValue {
        ParamValue::Bool(*self)
    }
}

impl SettingType for Vec<f64> {
    fn read(p: &Params, name: &str) -> Self {
        p.list(name).to_vec()
    }
    fn value(&self) -> ParamValue {
        ParamValue::List(self.clone())
    }
}

/// Integer settings: the declared range keeps the value inside the type
/// (a test checks every declaration), so the conversion clamps nothing.
macro_rules! integer_setting {
    ($($t:ty),*) => {$(
        impl SettingType for $t {
            fn read(p: &Params, name: &str) -> Self {
                let v = p.i64(name);
                <$t>::try_from(v).unwrap_or_else(|_| {
                    panic!("parameter '{name}' = {v} does not fit {}", stringify!($t))
                })
            }
            fn value(&self) -> ParamValue {
                ParamValue::Int(*self as i64)
            }
        }
    )*};
}
integer_setting!(i64, u32, u64, usize);

/// Reads a choice setting (used by [`choice!`](crate::choice!)).
pub fn read_choice<C: Choice>(p: &Params, name: &str) -> C {
    let text = p.text(name);
    C::from_name(text).unwrap_or_else(|| {
        panic!(
            "parameter '{name}' = {text} is none of {} (declared with other options)",
            C::NAMES.join(", ")
        )
    })
}

/// A shared declaration used for the field `field`: the names must agree
/// (checked when the constant is evaluated, that is at compile time).
pub const fn named(field: &str, spec: ParamSpec) -> ParamSpec {
    assert!(
        same(field.as_bytes(), spec.name.as_bytes()),
        "a shared parameter declaration is used for a field of another name"
    );
    spec
}

const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Declares a choice: an enum whose variants carry their option names.
///
/// `choice! { /// doc
///   pub enum Name { Variant = "option", ... } }` defines the enum (deriving
/// `Debug, Clone, Copy, PartialEq, Eq`) and implements [`Choice`]; further
/// derives may be given as attributes. For an enum defined elsewhere,
/// `choice!(impl Name { Variant = "option", ... })` implements it only.
#[macro_export]
macro_rules! choice {
    (impl $name:ident { $($variant:ident = $text:literal),+ $(,)? }) => {
        impl $crate::settings::Choice for $name {
            const NAMES: &'static [&'static str] = &[$($text),+];
            const ALL: &'static [Self] = &[$($name::$variant),+];
            fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }
        impl $crate::settings::SettingType for $name {
            fn read(p: &$crate::params::Params, name: &str) -> Self {
                $crate::settings::read_choice(p, name)
            }
            fn value(&self) -> $crate::params::ParamValue {
                $crate::params::ParamValue::Text(
                    $crate::settings::Choice::name(*self).to_string(),
                )
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name {
            $($(#[$vmeta])* $variant),+
        }
        $crate::choice!(impl $name { $($variant = $text),+ });
    };
}

/// Declares a struct of settings, one line per setting:
///
/// `field: Type = KIND(ARGS)`, where KIND is `float(default, min, max,
/// help)`, `int(default, min, max, help)`, `boolean(default, help)`,
/// `list(default, min, max, help)` (comma-separated numbers), `choice(default,
/// help)` (the options are the [`Choice`] type's names) or `shared(SPEC)` (a
/// [`ParamSpec`] constant several owners share; its name must be the
/// field's). Defaults are written as a user types them. The struct gets
/// public typed fields, [`Settings`] (its `SPECS`, parsing and writing
/// back), `Default` (the declared defaults), `Debug`, `Clone` and
/// `PartialEq`.
#[macro_export]
macro_rules! settings {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $field:ident : $ty:ty = $kind:ident ( $($arg:expr),* $(,)? )
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        $vis struct $name {
            $($(#[doc = $doc])* pub $field: $ty,)*
        }

        impl $crate::settings::Settings for $name {
            const SPECS: &'static [$crate::params::ParamSpec] = &[
                $($crate::__setting_spec!($kind, $field, $ty, $($arg),*)),*
            ];

            #[allow(unused_variables)]
            fn from_params(p: &$crate::params::Params) -> Self {
                $name {
                    $($field: <$ty as $crate::settings::SettingType>::read(p, stringify!($field)),)*
                }
            }

            fn to_params(&self) -> $crate::params::Params {
                $crate::params::Params::from_values(vec![
                    $((stringify!($field), $crate::settings::SettingType::value(&self.$field))),*
                ])
            }
        }

        impl Default for $name {
            fn default() -> Self {
                <$name as $crate::settings::Settings>::defaults()
            }
        }
    };
}

/// One field's declaration (an implementation detail of [`settings!`](crate::settings!)).
#[doc(hidden)]
#[macro_export]
macro_rules! __setting_spec {
    (float, $f:ident, $ty:ty, $default:expr, $min:expr, $max:expr, $help:expr) => {
        $crate::params::ParamSpec::float(stringify!($f), $default, $min, $max, $help)
    };
    (int, $f:ident, $ty:ty, $default:expr, $min:expr, $max:expr, $help:expr) => {
        $crate::params::ParamSpec::int(stringify!($f), $default, $min, $max, $help)
    };
    (boolean, $f:ident, $ty:ty, $default:expr, $help:expr) => {
        $crate::params::ParamSpec::boolean(stringify!($f), $default, $help)
    };
    (list, $f:ident, $ty:ty, $default:expr, $min:expr, $max:expr, $help:expr) => {
        $crate::params::ParamSpec::list(stringify!($f), $default, $min, $max, $help)
    };
    (choice, $f:ident, $ty:ty, $default:expr, $help:expr) => {
        $crate::params::ParamSpec::choice(
            stringify!($f),
            $default,
            <$ty as $crate::settings::Choice>::NAMES,
            $help,
        )
    };
    (shared, $f:ident, $ty:ty, $spec:expr) => {
        $crate::settings::named(stringify!($f), $spec)
    };
}

/// Checks a struct's declarations: every default parses, every integer
/// range fits the field's type, and the values written back read the same.
/// Each owner's tests call it (`schedlab_policies` for every registry entry).
pub fn check_declarations<S: Settings + PartialEq + std::fmt::Debug>(owner: &str) {
    let s = S::resolve(owner, &[]).unwrap_or_else(|e| panic!("{owner}: defaults: {e}"));
    let p = s.to_params();
    assert_eq!(
        S::from_params(&p),
        s,
        "{owner}: values written back read differently"
    );
    for spec in S::SPECS {
        if let crate::params::ParamKind::Int { min, max } = spec.kind {
            for end in [min, max] {
                // Panics (naming the parameter) when the end does not fit the field.
                let p = Params::resolve(owner, S::SPECS, &[(spec.name.into(), end.to_string())])
                    .unwrap_or_else(|e| panic!("{owner}: {e}"));
                let _ = S::from_params(&p);
            }
        }
    }
    let names: Vec<&str> = S::SPECS.iter().map(|x| x.name).collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(
        unique.len(),
        names.len(),
        "{owner}: a name is declared twice"
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::ParamKind;

    crate::choice! {
        /// A test choice.
        pub enum Mode {
            /// First.
            A = "a",
            B = "b",
        }
    }

    const SHARED: ParamSpec = ParamSpec::float("rate", "1.5", 0.0, 10.0, "a rate");

    crate::settings! {
        /// Test settings.
        pub struct Toy {
            rate: f64 = shared(SHARED),
            /// A count.
            n: u32 = int("3", 1, 5, "a count"),
            on: bool = boolean("false", "a switch"),
            mode: Mode = choice("a", "a mode"),
            cuts: Vec<f64> = list("1,2.5", 0.0, 10.0, "some numbers"),
        }
    }

    #[test]
    fn declarations_yield_specs_fields_and_parsing() {
        check_declarations::<Toy>("toy");
        let names: Vec<&str> = Toy::SPECS.iter().map(|s| s.name).collect();
        assert_eq!(names, ["rate", "n", "on", "mode", "cuts"]);
        assert!(matches!(
            Toy::SPECS[3].kind,
            ParamKind::Choice { options } if options == ["a", "b"]
        ));
        let d = Toy::default();
        assert_eq!(
            (d.rate, d.n, d.on, d.mode, d.cuts),
            (1.5, 3, false, Mode::A, vec![1.0, 2.5])
        );
        let s = Toy::resolve(
            "toy",
            &[
                ("mode".into(), "b".into()),
                ("n".into(), "5".into()),
                ("cuts".into(), "".into()),
            ],
        )
        .unwrap();
        assert_eq!((s.mode, s.n, s.cuts.len()), (Mode::B, 5, 0));
    }

    #[test]
    fn bad_text_is_refused_with_owner_and_key() {
        for (k, v, want) in [
            ("mode", "c", "toy.mode=c: must be one of a, b"),
            ("n", "0", "toy.n=0: must be in [1, 5]"),
            ("nosuch", "1", "unknown parameter 'toy.nosuch'"),
            ("on", "maybe", "toy.on=maybe: expected true or false"),
        ] {
            let e = Toy::resolve("toy", &[(k.into(), v.into())]).unwrap_err();
            assert!(e.to_string().contains(want), "{e}");
        }
    }

    #[test]
    fn written_back_parameters_print_as_resolved_ones() {
        let s = Toy::resolve("toy", &[("n".into(), "4".into())]).unwrap();
        let resolved = Params::resolve("toy", Toy::SPECS, &[("n".into(), "4".into())]).unwrap();
        assert_eq!(s.to_params(), resolved);
    }

    #[test]
    fn choices_name_their_options() {
        assert_eq!(Mode::NAMES, ["a", "b"]);
        assert_eq!(Mode::from_name("b"), Some(Mode::B));
        assert_eq!(Mode::from_name("c"), None);
        assert_eq!(Mode::B.name(), "b");
    }

    #[test]
    #[should_panic(expected = "shared parameter declaration")]
    fn a_shared_declaration_must_carry_the_field_name() {
        let _ = named("other", SHARED);
    }
}
