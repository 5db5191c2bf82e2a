//! Quantities in one unit and number form, so that a restated value is the same fact: "2 GiB" and
//! "2,147,483,648 bytes", "90000" (in a description that says milliseconds) and "90 seconds", "2h" and
//! "two hours", "50%", "0.5" and "half", "25 basis points" and "0.25%".
//!
//! A quantity is a value in its dimension's base unit (milliseconds, bytes, a ratio) or a plain count.
//! Sizes in KB, MB, GB and TB are read both ways (powers of 1,000 and of 1,024); they equal a value that
//! either reading gives.

/// What a quantity measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dim {
    Time,
    Size,
    Ratio,
    /// A plain number (a count, a page size).
    Plain,
}

/// A value in its base unit: the readings it may have (one, or two for decimal/binary sizes).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Quantity {
    pub dim: Dim,
    pub values: Vec<f64>,
}

impl Quantity {
    /// Whether two quantities state the same value: same dimension and a common reading; a plain
    /// number below 1 and a ratio compare as fractions (`0.5` = `50%`).
    pub(super) fn same(&self, other: &Quantity) -> bool {
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0);
        let dims = self.dim == other.dim
            || matches!((self.dim, other.dim), (Dim::Plain, Dim::Ratio) | (Dim::Ratio, Dim::Plain));
        dims && self.values.iter().any(|a| other.values.iter().any(|b| close(*a, *b)))
    }
}

/// The scale of a unit word (folded, or an abbreviation right after a number): its dimension and the
/// factors to the base unit.
pub(super) fn scale(unit: &str) -> Option<(Dim, &'static [f64])> {
    const K: f64 = 1024.0;
    Some(match unit {
        "millisecond" | "msec" | "ms" => (Dim::Time, &[1.0]),
        "second" | "s" | "sec" => (Dim::Time, &[1_000.0]),
        "minute" | "min" | "m" => (Dim::Time, &[60_000.0]),
        "hour" | "h" | "hr" => (Dim::Time, &[3_600_000.0]),
        "day" | "d" => (Dim::Time, &[86_400_000.0]),
        "week" | "w" => (Dim::Time, &[604_800_000.0]),
        "byte" | "b" => (Dim::Size, &[1.0]),
        "kilobyte" | "kb" | "k" => (Dim::Size, &[1_000.0, K]),
        "megabyte" | "mb" => (Dim::Size, &[1e6, K * K]),
        "gigabyte" | "gb" | "g" => (Dim::Size, &[1e9, K * K * K]),
        "terabyte" | "tb" => (Dim::Size, &[1e12, K * K * K * K]),
        "percent" | "%" => (Dim::Ratio, &[0.01]),
        "bps" | "bp" | "basis" => (Dim::Ratio, &[0.0001]),
        _ => return None,
    })
}

/// A quantity from a number as read and the unit word after it (if any).
pub(super) fn quantity(number: &str, unit: Option<&str>) -> Option<Quantity> {
    let n: f64 = number.parse().ok()?;
    match unit.and_then(scale) {
        Some((dim, factors)) => Some(Quantity { dim, values: factors.iter().map(|f| n * f).collect() }),
        None => Some(Quantity { dim: Dim::Plain, values: vec![n] }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(n: &str, u: Option<&str>) -> Quantity {
        quantity(n, u).unwrap()
    }

    #[test]
    fn restated_values_are_the_same() {
        assert!(q("2", Some("gigabyte")).same(&q("2147483648", Some("byte"))));
        assert!(q("2", Some("gigabyte")).same(&q("2000000000", Some("byte"))));
        assert!(q("90000", Some("millisecond")).same(&q("90", Some("second"))));
        assert!(q("2", Some("h")).same(&q("2", Some("hour"))));
        assert!(q("50", Some("percent")).same(&q("0.5", None)));
        assert!(q("25", Some("bps")).same(&q("0.25", Some("percent"))));
        assert!(!q("30", Some("second")).same(&q("30", Some("millisecond"))));
        assert!(!q("100", None).same(&q("50", None)));
        assert!(!q("10", Some("percent")).same(&q("10", None)));
    }
}
