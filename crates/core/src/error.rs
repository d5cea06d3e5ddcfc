//! The crate's error type. Input errors carry the file, line and field so
//! that the CLI and the page can say exactly what is wrong.

use std::fmt;

/// Result alias used throughout the crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Everything that can go wrong, as data (never a panic).
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// Bad input data: a trace, profile or cluster file.
    Input {
        file: String,
        /// 1-based line number, 0 when the error concerns the whole file.
        line: usize,
        field: String,
        message: String,
    },
    /// Bad configuration: cluster spec, policy name, parameter value.
    Config(String),
    /// The run was cancelled by the caller (progress callback returned false).
    Cancelled,
    /// An internal invariant broke; reported instead of panicking.
    Internal(String),
}

impl Error {
    pub fn input(
        file: impl Into<String>,
        line: usize,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Error::Input {
            file: file.into(),
            line,
            field: field.into(),
            message: message.into(),
        }
    }

    pub fn config(message: impl Into<String>) -> Self {
        Error::Config(message.into())
    }

    /// True for errors caused by what the user supplied (CLI exit code 2).
    pub fn is_user_error(&self) -> bool {
        matches!(self, Error::Input { .. } | Error::Config(_))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input {
                file,
                line,
                field,
                message,
            } => {
                if *line > 0 {
                    write!(f, "{file}: line {line}")?;
                } else {
                    write!(f, "{file}")?;
                }
                if !field.is_empty() {
                    write!(f, ", field '{field}'")?;
                }
                write!(f, ": {message}")
            }
            Error::Config(m) => write!(f, "{m}"),
            Error::Cancelled => write!(f, "cancelled"),
            Error::Internal(m) => write!(f, "internal error: {m}"),
        }
    }
}

impl std::error::Error for Error {}
