//! The page's data API (issue 4), kept free of wasm-bindgen so it builds and
//! is tested natively; `src/wasm.rs` only converts these values to JavaScript.
//!
//! - [`catalog`]: what the page offers (bundled traces, clusters, policies
//!   with their parameter declarations, engine parameters, formats, models,
//!   metric descriptions), read from the registries, never from lists here.
//! - [`runner`]: one policy's run, stepped in slices so a Web Worker can
//!   report progress and be cancelled between them.
//! - [`columns`]: a finished run as flat columns (the page receives them as
//!   typed arrays) plus per-GPU and per-job segment indexes for the
//!   animation and the Gantt view.
//! - [`insight`]: policies' per-round insight (Sia's goodput matrix) as
//!   columns, and the round at or before a time.
//! - [`series`]: utilisation and queue length over time, JCT CDF points.
//! - [`charts`]: the comparison charts, drawn with plotters on any backend.

pub mod catalog;
pub mod charts;
pub mod columns;
pub mod insight;
pub mod runner;
pub mod sandbox;
pub mod search;
pub mod series;

use schedlab_core::error::Error;
use serde::Serialize;

/// An error as the page shows it: the kind, and for input errors the file,
/// line and field, plus the full one-line text.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ErrorInfo {
    /// `input`, `config`, `cancelled` or `internal`.
    pub kind: &'static str,
    pub file: String,
    /// 1-based line, 0 when the error concerns the whole file or no file.
    pub line: usize,
    pub field: String,
    pub message: String,
    /// `Display` text of the error (what the CLI prints).
    pub text: String,
}

impl From<&Error> for ErrorInfo {
    fn from(e: &Error) -> Self {
        let text = e.to_string();
        match e {
            Error::Input {
                file,
                line,
                field,
                message,
            } => ErrorInfo {
                kind: "input",
                file: file.clone(),
                line: *line,
                field: field.clone(),
                message: message.clone(),
                text,
            },
            Error::Config(m) => ErrorInfo::plain("config", m.clone(), text),
            Error::Cancelled => ErrorInfo::plain("cancelled", text.clone(), text),
            Error::Internal(m) => ErrorInfo::plain("internal", m.clone(), text),
        }
    }
}

impl ErrorInfo {
    fn plain(kind: &'static str, message: String, text: String) -> Self {
        ErrorInfo {
            kind,
            file: String::new(),
            line: 0,
            field: String::new(),
            message,
            text,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::workload::Trace;

    #[test]
    fn input_errors_keep_file_line_and_field() {
        let e = Trace::parse(
            "up.csv",
            "name,arrival,model,gpus,duration\na,0,linear,1,10\nb,zz,linear,1,10\n",
            None,
        )
        .unwrap_err();
        let info = ErrorInfo::from(&e);
        assert_eq!(info.kind, "input");
        assert_eq!(info.file, "up.csv");
        assert_eq!(info.line, 3);
        assert_eq!(info.field, "arrival");
        assert!(
            info.text.contains("line 3, field 'arrival'"),
            "{}",
            info.text
        );
        let c = ErrorInfo::from(&Error::config("bad"));
        assert_eq!((c.kind, c.line, c.text.as_str()), ("config", 0, "bad"));
        assert_eq!(ErrorInfo::from(&Error::Cancelled).kind, "cancelled");
    }
}
