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

    /// The raw text of a column (None if the column is absent or the cell
    /// empty). A leading `'` that [`crate::csvout`] put before `= + - @`
    /// to keep spreadsheets from running the cell is taken off again.
    pub fn text(&self, field: &str) -> Option<&'a str> {
        let i = self.cols.index(field)?;
        let v = self.rec.get(i)?.trim();
        let v = crate::csvout::unescape(v);
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
                    .map_err(|_| self.err(field, format!("'{}' is not a number", clip(t))))?;
                if !v.is_finite() {
                    return Err(self.err(field, format!("'{}' is not a finite number", clip(t))));
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
                // Accept "4" and "4.0" (some traces write integers as floats),
                // not "-0": a sign is no part of a count.
                let v: f64 = t
                    .parse()
                    .map_err(|_| self.err(field, format!("'{}' is not a number", clip(t))))?;
                if t.starts_with('-') || !v.is_finite() || v.fract() != 0.0 || v > u32::MAX as f64 {
                    return Err(self.err(
                        field,
                        format!("'{}' is not a non-negative integer", clip(t)),
                    ));
                }
                Ok(Some(v as u32))
            }
        }
    }

    pub fn u32(&self, field: &str) -> Result<u32> {
        self.u32_opt(field)?
            .ok_or_else(|| self.err(field, "missing value".into()))
    }

    /// A count that must be at least 1 when given (0 is refused, not read
    /// as "the default").
    pub fn positive_u32_opt(&self, field: &str) -> Result<Option<u32>> {
        match self.u32_opt(field)? {
            Some(0) => Err(self.err(
                field,
                "must be at least 1 (leave it empty for the default)".into(),
            )),
            v => Ok(v),
        }
    }

    pub fn bool_opt(&self, field: &str) -> Result<Option<bool>> {
        match self.text(field) {
            None => Ok(None),
            Some(t) => match t.to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" | "y" => Ok(Some(true)),
                "0" | "false" | "no" | "n" => Ok(Some(false)),
                _ => Err(self.err(field, format!("'{}' is not true/false", clip(t)))),
            },
        }
    }

    pub fn error(&self, field: &str, message: impl Into<String>) -> Error {
        self.err(field, message.into())
    }
}

/// A CSV reader over text that skips `#` comment lines and trims cells.
pub fn reader(text: &str) -> csv::Reader<&[u8]> {
    builder().from_reader(text.as_bytes())
}

fn builder() -> csv::ReaderBuilder {
    let mut b = csv::ReaderBuilder::new();
    b.comment(Some(b'#')).trim(csv::Trim::All).flexible(true);
    b
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
    Error::input(
        file,
        line,
        "",
        format!("malformed CSV: {}", clip(&e.to_string())),
    )
}

/// A CSV table read row by row, the one loop every CSV importer (traces,
/// profiles, pools) runs: the header's columns, true line numbers (blank
/// lines, comments and CRLF counted), rows of empty cells skipped, and a
/// row with more cells than the header refused.
pub struct CsvTable<'a> {
    file: &'a str,
    rdr: csv::Reader<std::io::Cursor<std::borrow::Cow<'a, [u8]>>>,
    cols: Columns,
    lines: LineIndex,
    /// The header's line (0 when the columns are positional).
    header_line: usize,
}

impl<'a> CsvTable<'a> {
    /// Reads the header (the first line that is not a comment).
    pub fn open(file: &'a str, text: &'a str) -> Result<CsvTable<'a>> {
        let input = lf_only(text);
        let lines = LineIndex::of_bytes(input.get_ref());
        let mut rdr = builder().from_reader(input);
        let header = rdr
            .headers()
            .map_err(|e| at_line(file, &e, &lines))?
            .clone();
        let header_line = header.position().map_or(1, |p| {
            lines.line_of(record_start(rdr.get_ref().get_ref(), p.byte() as usize))
        });
        Ok(CsvTable {
            file,
            rdr,
            cols: Columns::new(&header),
            lines,
            header_line,
        })
    }

    /// A table without a header row, its columns named by position.
    pub fn positional(file: &'a str, text: &'a str, names: &[&str]) -> CsvTable<'a> {
        let input = lf_only(text);
        let lines = LineIndex::of_bytes(input.get_ref());
        CsvTable {
            file,
            rdr: builder().has_headers(false).from_reader(input),
            cols: Columns::new(&csv::StringRecord::from(names.to_vec())),
            lines,
            header_line: 0,
        }
    }

    pub fn columns(&self) -> &Columns {
        &self.cols
    }

    pub fn file(&self) -> &'a str {
        self.file
    }

    /// The header's 1-based line (for errors about columns).
    pub fn header_line(&self) -> usize {
        self.header_line.max(1)
    }

    /// Refuses the table unless the header has every column of `need`.
    pub fn require(&self, need: &[&str], what: &str) -> Result<()> {
        let missing: Vec<&str> = need.iter().copied().filter(|n| !self.cols.has(n)).collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(Error::input(
            self.file,
            self.header_line(),
            missing[0],
            format!(
                "{what} needs the column{} {} (the header has {})",
                if missing.len() > 1 { "s" } else { "" },
                missing.join(", "),
                clip(&self.cols.names().join(","))
            ),
        ))
    }

    /// Calls `f` with every data row, in order.
    pub fn rows(&mut self, mut f: impl FnMut(&Row) -> Result<()>) -> Result<()> {
        let mut rec = csv::StringRecord::new();
        let width = self.cols.names().len();
        loop {
            match self.rdr.read_record(&mut rec) {
                Ok(false) => return Ok(()),
                Ok(true) => {
                    let line = rec.position().map_or(0, |p| {
                        let text: &[u8] = self.rdr.get_ref().get_ref();
                        self.lines.line_of(record_start(text, p.byte() as usize))
                    });
                    if rec.iter().all(|c| c.trim().is_empty()) {
                        continue;
                    }
                    if let Some(extra) = rec.iter().skip(width).find(|c| !c.trim().is_empty()) {
                        return Err(Error::input(
                            self.file,
                            line,
                            "",
                            format!(
                                "{} cells but the header names {width} columns (extra cell '{}')",
                                rec.len(),
                                clip(extra)
                            ),
                        ));
                    }
                    let row = Row {
                        file: self.file,
                        line,
                        cols: &self.cols,
                        rec: &rec,
                    };
                    f(&row)?;
                }
                Err(e) => return Err(at_line(self.file, &e, &self.lines)),
            }
        }
    }
}

/// Where a record really starts: the csv crate reports where it began
/// reading, before the blank and comment lines it skipped.
fn record_start(text: &[u8], mut at: usize) -> usize {
    while at < text.len() {
        let end = text[at..]
            .iter()
            .position(|b| *b == b'\n')
            .map_or(text.len(), |i| at + i);
        let line = &text[at..end];
        let blank = line.iter().all(|b| b.is_ascii_whitespace());
        if !(blank || line.first() == Some(&b'#')) {
            break;
        }
        at = end + 1;
    }
    at
}

/// The text with CRLF (and lone CR) line ends made LF, which keeps every
/// line where it was: the csv crate's record positions are wrong after
/// CRLF ends (and real traces, such as Blox's, are CRLF).
fn lf_only(text: &str) -> std::io::Cursor<std::borrow::Cow<'_, [u8]>> {
    let bytes = if text.contains('\r') {
        std::borrow::Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n").into_bytes())
    } else {
        std::borrow::Cow::Borrowed(text.as_bytes())
    };
    std::io::Cursor::new(bytes)
}

/// A csv crate error with the true line of where it happened.
fn at_line(file: &str, e: &csv::Error, lines: &LineIndex) -> Error {
    let line = e.position().map_or(0, |p| lines.line_of(p.byte() as usize));
    Error::input(
        file,
        line,
        "",
        format!("malformed CSV: {}", clip(&e.to_string())),
    )
}

/// Default largest input accepted, in MB: above the largest public trace the
/// importers read (Philly's `cluster_job_log`, about 200 MB), far below what a
/// laptop holds. `--max-input-mb` (or `SCHEDLAB_MAX_INPUT_MB`) changes it.
pub const DEFAULT_MAX_INPUT_MB: usize = 512;

/// Largest input text accepted by default (a clear error instead of exhausting memory).
pub const MAX_INPUT_BYTES: usize = DEFAULT_MAX_INPUT_MB << 20;

/// The limit in force (bytes); 0 = not set yet (the environment or the default).
static LIMIT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Sets the size limit of every input read from now on (the CLI's `--max-input-mb`).
pub fn set_input_limit_mb(mb: usize) {
    LIMIT.store(mb.max(1) << 20, std::sync::atomic::Ordering::Relaxed);
}

/// The size limit in force, in bytes: set by [`set_input_limit_mb`], else
/// `SCHEDLAB_MAX_INPUT_MB` from the environment, else the default.
pub fn input_limit() -> usize {
    let set = LIMIT.load(std::sync::atomic::Ordering::Relaxed);
    if set > 0 {
        return set;
    }
    let from_env = std::env::var("SCHEDLAB_MAX_INPUT_MB")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|mb| *mb > 0);
    from_env.map_or(MAX_INPUT_BYTES, |mb| mb << 20)
}

/// Refuses text longer than the limit (the page's uploads and any text
/// that did not come through [`read_bytes`]).
pub fn check_size(file: &str, len: usize) -> Result<()> {
    let limit = input_limit();
    if len > limit {
        return Err(too_large(file, len as u64, limit));
    }
    Ok(())
}

fn too_large(file: &str, len: u64, limit: usize) -> Error {
    Error::input(
        file,
        0,
        "",
        format!(
            "{} MB is more than the input limit of {} MB (raise it with --max-input-mb or SCHEDLAB_MAX_INPUT_MB)",
            len.div_ceil(1 << 20),
            limit >> 20
        ),
    )
}

/// The one reader of input files: refuses what is not a regular file (a
/// device such as /dev/zero, a pipe that may never end or never start, a
/// directory) before opening it, refuses a file above the size limit, and
/// reads at most the limit even if the file grows meanwhile.
pub fn read_bytes(path: &str) -> Result<Vec<u8>> {
    use std::io::Read;
    let meta = std::fs::metadata(path)
        .map_err(|e| Error::input(path, 0, "", format!("cannot open: {}", io_reason(&e))))?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "a directory"
        } else {
            "not a regular file (a device, pipe or socket)"
        };
        return Err(Error::input(
            path,
            0,
            "",
            format!("{what}; give a file (save a stream to a file first)"),
        ));
    }
    let limit = input_limit();
    if meta.len() > limit as u64 {
        return Err(too_large(path, meta.len(), limit));
    }
    let file = std::fs::File::open(path)
        .map_err(|e| Error::input(path, 0, "", format!("cannot open: {}", io_reason(&e))))?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::input(path, 0, "", format!("cannot read: {}", io_reason(&e))))?;
    if bytes.len() > limit {
        return Err(too_large(path, bytes.len() as u64, limit));
    }
    Ok(bytes)
}

/// An IO error without the OS's error number.
fn io_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// Reads a text file through [`read_bytes`]: UTF-8, no NUL bytes (binary data).
pub fn read_text(path: &str) -> Result<String> {
    text_of(path, read_bytes(path)?)
}

/// Checks that bytes are text: UTF-8 and free of NUL bytes, with the line of
/// the first offence.
pub fn text_of(path: &str, bytes: Vec<u8>) -> Result<String> {
    let line_at = |b: &[u8], at: usize| b[..at].iter().filter(|c| **c == b'\n').count() + 1;
    if let Some(at) = bytes.iter().position(|b| *b == 0) {
        return Err(Error::input(
            path,
            line_at(&bytes, at),
            "",
            "binary data (a NUL byte), not text",
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = line_at(e.as_bytes(), at);
        Error::input(path, line, "", "not UTF-8 text")
    })
}

/// Line numbers of byte offsets in a text: counts every `\n`, so blank
/// lines, comment lines and CRLF endings are counted as an editor does.
pub struct LineIndex {
    /// Byte offset where each line after the first starts.
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        LineIndex::of_bytes(text.as_bytes())
    }

    pub fn of_bytes(text: &[u8]) -> LineIndex {
        LineIndex {
            starts: text
                .iter()
                .copied()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1)
                .collect(),
        }
    }

    /// The 1-based line holding byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|s| *s <= offset) + 1
    }
}

/// Longest value echoed in a message, in characters.
pub const ECHO_CHARS: usize = 80;

/// A value as an error message echoes it: at most [`ECHO_CHARS`]
/// characters, the rest counted, control characters escaped (one line).
pub fn clip(value: &str) -> String {
    let mut out = String::new();
    let mut n = 0;
    for c in value.chars() {
        if n == ECHO_CHARS {
            let rest = value.chars().count() - n;
            out.push_str(&format!("… ({rest} more characters)"));
            return out;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
        n += 1;
    }
    out
}

/// The closest names to `wanted` among `known` (edit distance, at most
/// `n`), for "did you mean" hints instead of whole lists.
pub fn closest<'a>(
    wanted: &str,
    known: impl IntoIterator<Item = &'a str>,
    n: usize,
) -> Vec<&'a str> {
    let w = wanted.to_ascii_lowercase();
    let mut scored: Vec<(usize, &str)> = known
        .into_iter()
        .map(|k| (edit_distance(&w, &k.to_ascii_lowercase()), k))
        .collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(b.1)));
    let cutoff = (w.chars().count() / 2).max(3);
    scored
        .into_iter()
        .filter(|(d, _)| *d <= cutoff)
        .take(n)
        .map(|(_, k)| k)
        .collect()
}

/// Levenshtein distance over characters (names are short; inputs are cut to
/// [`ECHO_CHARS`] first).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().take(ECHO_CHARS).collect();
    let b: Vec<char> = b.chars().take(ECHO_CHARS).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// "did you mean a, b?" for an unknown name (empty when nothing is close),
/// followed by where the full list is.
pub fn suggest<'a>(wanted: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    let near = closest(wanted, known, 3);
    if near.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", near.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_true_with_blank_lines_comments_and_crlf() {
        for text in [
            "a,b\r\n\r\n1,2\r\n\r\n# c\r\nx,y\r\n",
            "a,b\n\n1,2\n\n# c\nx,y\n",
        ] {
            let mut t = CsvTable::open("f.csv", text).unwrap();
            let mut lines = Vec::new();
            t.rows(|r| {
                lines.push(r.line);
                Ok(())
            })
            .unwrap();
            assert_eq!(lines, vec![3, 6], "{text:?}");
        }
    }
}
