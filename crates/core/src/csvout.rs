//! The one CSV writer of every table schedlab writes (run reports, merged
//! sweeps, traces): RFC 4180 quoting by the csv crate, and cells that a
//! spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a
//! tab or a carriage return, and not a number) written with a leading `'`
//! (OWASP's CSV-injection advice). Readers take the `'` off again
//! (`textio::Row::text`), so traces round-trip.

/// Characters that make a spreadsheet read a cell as a formula.
const FORMULA_START: &[char] = &['=', '+', '-', '@', '\t', '\r'];

/// A cell as written: formula-like text gets a leading `'`; numbers
/// (`-3`, `+1e5`) are left alone.
pub fn escape(cell: &str) -> std::borrow::Cow<'_, str> {
    let risky = cell.starts_with(FORMULA_START) && cell.trim().parse::<f64>().is_err();
    if risky {
        std::borrow::Cow::Owned(format!("'{cell}"))
    } else {
        std::borrow::Cow::Borrowed(cell)
    }
}

/// The reverse of [`escape`] for a cell read back.
pub fn unescape(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if rest.starts_with(FORMULA_START) && rest.trim().parse::<f64>().is_err() => {
            rest
        }
        _ => cell,
    }
}

/// A CSV table being written; every cell goes through [`escape`].
pub struct CsvOut {
    w: csv::Writer<Vec<u8>>,
}

impl Default for CsvOut {
    fn default() -> Self {
        CsvOut::new()
    }
}

impl CsvOut {
    pub fn new() -> CsvOut {
        CsvOut {
            w: csv::Writer::from_writer(Vec::new()),
        }
    }

    /// Writes one row (header or data).
    pub fn row<I, S>(&mut self, cells: I)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let cells: Vec<String> = cells
            .into_iter()
            .map(|c| escape(c.as_ref()).into_owned())
            .collect();
        // Writing to memory cannot fail.
        let _ = self.w.write_record(&cells);
    }

    /// The text written so far.
    pub fn finish(self) -> String {
        let bytes = self.w.into_inner().unwrap_or_default();
        String::from_utf8(bytes).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_defused_and_numbers_kept() {
        let mut w = CsvOut::new();
        w.row(["name", "value"]);
        w.row(["=1+2.csv", "-3"]);
        w.row(["@SUM(A1)", "+1e5"]);
        w.row(["-x", "a,b"]);
        let text = w.finish();
        assert_eq!(
            text,
            "name,value\n'=1+2.csv,-3\n'@SUM(A1),+1e5\n'-x,\"a,b\"\n"
        );
        assert_eq!(unescape("'=1+2.csv"), "=1+2.csv");
        assert_eq!(unescape("'plain"), "'plain");
        assert_eq!(unescape("-3"), "-3");
    }
}
