//! Calendar dates for `expires`: today's date in UTC and the check that a written date exists.

/// Today's date in UTC as `YYYY-MM-DD` (civil-from-days, Howard Hinnant's algorithm).
#[must_use]
pub fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let (y, m, d) = civil(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The civil date `(year, month, day)` of a day count since 1970-01-01 (Howard Hinnant's algorithm).
pub(crate) fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Days in `month` (1-12) of `year`, proleptic Gregorian.
fn days_in(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Why `year-month-day` is not a day of the calendar (`None`: it is one).
#[must_use]
pub fn impossible(year: u32, month: u32, day: u32) -> Option<String> {
    if !(1..=12).contains(&month) {
        return Some(format!("there is no month {month}"));
    }
    let last = days_in(year, month);
    (day == 0 || day > last).then(|| format!("{year:04}-{month:02} has days 01 to {last}"))
}

/// A date written `YYYY-MM-DD`, checked against the calendar. The error says what is wrong.
///
/// # Errors
/// Another shape, or a day that does not exist (`2027-02-30`, `2027-13-01`).
pub fn parse(s: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let shaped = b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
    if !shaped {
        return Err("must be a date written YYYY-MM-DD".into());
    }
    let number = |r: std::ops::Range<usize>| s.get(r).and_then(|t| t.parse::<u32>().ok()).unwrap_or(0);
    match impossible(number(0..4), number(5..7), number(8..10)) {
        Some(why) => Err(format!("`{s}` is not a date: {why}")),
        None => Ok(s.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(20_423), (2025, 12, 1));
        assert_eq!(civil(11_016), (2000, 2, 29));
    }

    #[test]
    fn only_calendar_days_parse() {
        assert_eq!(parse("2027-01-31").as_deref(), Ok("2027-01-31"));
        assert_eq!(parse("2028-02-29").as_deref(), Ok("2028-02-29"));
        assert_eq!(parse("2000-02-29").as_deref(), Ok("2000-02-29"));
        for bad in ["2027-02-29", "2100-02-29", "2027-02-30", "2027-13-01", "2027-00-10", "2027-04-31", "2027-01-00"] {
            assert!(parse(bad).unwrap_err().contains("is not a date"), "{bad}");
        }
        for bad in ["tomorrow", "2027-1-31", "2027/01/31", "2027-01-31T00:00:00Z", "２０２７-01-31"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
