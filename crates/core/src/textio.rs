//! Reading input text: files with a size limit, and CSV rows by column
//! name, with errors that name file, line and field. Every importer (job
//! traces, model profiles, measured tables) reads through here.

use crate::error::{Error, Result};

/// Column positions of a CSV header, looked up by (lower-case) name.
pub struct Columns {
    names: Vec<String>,
}

impl Columns {
    pub fn new(header: &csv::StringRecord) -> Columns {
        Columns {
            names: header
                .iter()
                .map(|h| h.trim().trim_start_matches('\u{feff}').to_ascii_lowercase())
                .collect(),
        }
    }

    pub fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    pub fn has(&self, name: &str) -> bool {
        self.index(name).is_some()
    }

    pub fn has_all(&self, names: &[&str]) -> bool {
        names.iter().all(|n| self.has(n))
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }
}

/// One record with its file and line, for typed field access.
pub struct Row<'a> {
    pub file: &'a str,
    pub line: usize,
    pub cols: &'a Columns,
    pub rec: &'a csv::StringRecord,
}

impl<'a> Row<'a> {
    fn err(&self, field: &str, message: String) -> Error {
        Error::input(self.file, self.line, field, message)
    }

    /// The raw text of a column (None if the column is absent or the cell empty).
    pub fn text(&self, field: &str) -> Option<&'a str> {
        let i = self.cols.index(field)?;
        let v = self.rec.get(i)?.trim();
        (!v.is_empty()).then_some(v)
    }

    pub fn required_text(&self, field: &str) -> Result<&'a str> {
        self.text(field)
            .ok_or_else(|| self.err(field, "missing value".into()))
    }

    pub fn f64_opt(&self, field: &str) -> Result<Option<f64>> {
        match self.text(field) {
            None => Ok(None),
            Some(t) => {
                let v: f64 = t
                    .parse()
                    .map_err(|_| self.err(field, format!("'{t}' is not a number")))?;
                if !v.is_finite() {
                    return Err(self.err(field, format!("'{t}' is not a finite number")));
                }
                Ok(Some(v))
            }
        }
    }

    pub fn f64(&self, field: &str) -> Result<f64> {
        self.f64_opt(field)?
            .ok_or_else(|| self.err(field, "missing value".into()))
    }

    pub fn u32_opt(&self, field: &str) -> Result<Option<u32>> {
        match self.text(field) {
            None => Ok(None),
            Some(t) => {
                // Accept "4" and "4.0" (some traces write integers as floats).
                let v: f64 = t
                    .parse()
                    .map_err(|_| self.err(field, format!("'{t}' is not a number")))?;
                if !v.is_finite() || v < 0.0 || v.fract() != 0.0 || v > u32::MAX as f64 {
                    return Err(self.err(field, format!("'{t}' is not a non-negative integer")));
                }
                Ok(Some(v as u32))
            }
        }
    }

    pub fn u32(&self, field: &str) -> Result<u32> {
        self.u32_opt(field)?
            .ok_or_else(|| self.err(field, "missing value".into()))
    }

    pub fn bool_opt(&self, field: &str) -> Result<Option<bool>> {
        match self.text(field) {
            None => Ok(None),
            Some(t) => match t.to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" | "y" => Ok(Some(true)),
                "0" | "false" | "no" | "n" => Ok(Some(false)),
                _ => Err(self.err(field, format!("'{t}' is not true/false"))),
            },
        }
    }

    pub fn error(&self, field: &str, message: impl Into<String>) -> Error {
        self.err(field, message.into())
    }
}

/// A CSV reader over text that skips `#` comment lines and trims cells.
pub fn reader(text: &str) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .flexible(true)
        .from_reader(text.as_bytes())
}

/// The 1-based line a record starts on. The csv crate's own count lags
/// one line behind after a CRLF line end (it places the record at the
/// `\n` of the line before), so the line is counted from the record's
/// first byte that is not a line end.
pub fn record_line(text: &str, rec: &csv::StringRecord) -> usize {
    let Some(p) = rec.position() else { return 0 };
    let bytes = text.as_bytes();
    let mut at = (p.byte() as usize).min(bytes.len());
    while at < bytes.len() && (bytes[at] == b'\r' || bytes[at] == b'\n') {
        at += 1;
    }
    bytes[..at].iter().filter(|b| **b == b'\n').count() + 1
}

/// Converts a csv crate error into an input error with the line.
pub fn csv_error(file: &str, e: &csv::Error) -> Error {
    let line = e.position().map_or(0, |p| p.line() as usize);
    Error::input(file, line, "", format!("malformed CSV: {e}"))
}

/// Largest input text accepted (a clear error instead of exhausting memory).
pub const MAX_INPUT_BYTES: usize = 512 * 1024 * 1024;

/// Reads a file with a size check first (a clear error, not an OOM).
pub fn read_text(path: &str) -> Result<String> {
    let meta = std::fs::metadata(path)
        .map_err(|e| Error::input(path, 0, "", format!("cannot open: {e}")))?;
    if meta.len() as usize > MAX_INPUT_BYTES {
        return Err(Error::input(
            path,
            0,
            "",
            format!(
                "file is {} MB; the limit is {} MB",
                meta.len() >> 20,
                MAX_INPUT_BYTES >> 20
            ),
        ));
    }
    let bytes =
        std::fs::read(path).map_err(|e| Error::input(path, 0, "", format!("cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let upto = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = upto.iter().filter(|b| **b == b'\n').count() + 1;
        Error::input(path, line, "", "not UTF-8 text")
    })
}
