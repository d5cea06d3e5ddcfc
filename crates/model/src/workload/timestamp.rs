//! Timestamps as production traces write them: `YYYY-MM-DD HH:MM:SS`
//! (Philly, Helios) or plain seconds (PAI, Alibaba). Converted to seconds
//! since 1970-01-01 UTC; importers then shift arrivals so the first job
//! arrives at 0. Written here because it is twenty lines and a date crate
//! would be the project's largest dependency.

/// Seconds for a date-time string or a number; None if it is neither
/// (or a marker such as `None`, `NaN`, empty).
pub fn parse_time(text: &str) -> Option<f64> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    if let Ok(v) = t.parse::<f64>() {
        return v.is_finite().then_some(v);
    }
    parse_datetime(t)
}

/// `YYYY-MM-DD[ T]HH:MM[:SS[.fff]]`, as UTC seconds.
fn parse_datetime(t: &str) -> Option<f64> {
    let (date, time) = match t.find([' ', 'T']) {
        Some(i) => (&t[..i], t[i + 1..].trim()),
        None => (t, ""),
    };
    let mut d = date.split('-');
    let y: i64 = d.next()?.parse().ok()?;
    let m: i64 = d.next()?.parse().ok()?;
    let day: i64 = d.next()?.parse().ok()?;
    if d.next().is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&day) {
        return None;
    }
    if !(1..=9999).contains(&y) {
        return None;
    }
    let mut secs = 0.0;
    if !time.is_empty() {
        let mut p = time.split(':');
        let h: i64 = p.next()?.parse().ok()?;
        let mi: i64 = p.next()?.parse().ok()?;
        let s: f64 = match p.next() {
            Some(x) => x.parse().ok()?,
            None => 0.0,
        };
        if p.next().is_some()
            || !(0..24).contains(&h)
            || !(0..60).contains(&mi)
            || !(0.0..61.0).contains(&s)
        {
            return None;
        }
        secs = (h * 3600 + mi * 60) as f64 + s;
    }
    Some(days_from_civil(y, m, day) as f64 * 86_400.0 + secs)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_numbers() {
        assert_eq!(parse_time("1970-01-01 00:00:00"), Some(0.0));
        assert_eq!(parse_time("1970-01-02 00:00:01"), Some(86_401.0));
        // 2017-10-07 is day 17446 since the epoch.
        assert_eq!(
            parse_time("2017-10-07 03:43:31"),
            Some(17_446.0 * 86_400.0 + 3.0 * 3600.0 + 43.0 * 60.0 + 31.0)
        );
        assert_eq!(
            parse_time("2020-03-01T00:00:00").unwrap() - parse_time("2020-02-28").unwrap(),
            2.0 * 86_400.0
        );
        assert_eq!(parse_time(" 12.5 "), Some(12.5));
        for bad in [
            "None",
            "",
            "nan",
            "2017-13-01 00:00:00",
            "2017-10-07 25:00:00",
            "x-y-z",
        ] {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
    }
}
