//! Points in time as tasks carry them: milliseconds since the Unix epoch, shown the way the
//! wire wants them (ISO 8601, UTC, `2025-11-25T10:30:00.000Z`), and read back from the way any
//! server writes them.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

/// A moment in a task's life (`createdAt`, `lastUpdatedAt`), to the millisecond.
///
/// Displays as ISO 8601 in UTC, as the tasks extension sends it:
///
/// ```
/// use mcp::tasks::Timestamp;
/// let t = Timestamp::from_unix_millis(1_764_066_600_123);
/// assert_eq!(t.to_string(), "2025-11-25T10:30:00.123Z");
/// assert_eq!(t.unix_millis(), 1_764_066_600_123);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    millis: u64,
}

impl Timestamp {
    /// The moment `millis` milliseconds after 1970-01-01T00:00:00Z.
    pub const fn from_unix_millis(millis: u64) -> Self {
        Self { millis }
    }

    /// Milliseconds since 1970-01-01T00:00:00Z.
    pub const fn unix_millis(self) -> u64 {
        self.millis
    }

    /// This machine's clock, now. A clock set before 1970 reads as 1970.
    pub fn now() -> Self {
        let since = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        Self::from_unix_millis(u64::try_from(since.as_millis()).unwrap_or(u64::MAX))
    }

    /// Reads an ISO 8601 date and time with its offset, as RFC 3339 profiles it
    /// (`2025-11-25T10:30:00Z`, `2025-11-25T12:30:00.5+02:00`): what other servers put in
    /// `createdAt`. Digits past the millisecond are dropped. `None` for anything else, and for
    /// moments before 1970.
    ///
    /// ```
    /// use mcp::tasks::Timestamp;
    /// let t = Timestamp::parse("2025-11-25T12:30:00.123456+02:00");
    /// assert_eq!(t, Some(Timestamp::from_unix_millis(1_764_066_600_123)));
    /// assert_eq!(t.map(|t| t.to_string()).as_deref(), Some("2025-11-25T10:30:00.123Z"));
    /// assert_eq!(Timestamp::parse("25 Nov 2025"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Self> {
        let mut text = Cursor(text.as_bytes());
        let year = text.digits(4)?;
        text.expect(b"-")?;
        let month = text.digits(2)?;
        text.expect(b"-")?;
        let day = text.digits(2)?;
        text.expect(b"Tt ")?;
        let hour = text.digits(2)?;
        text.expect(b":")?;
        let minute = text.digits(2)?;
        text.expect(b":")?;
        // 60 is a leap second; counting it as the next second's start is close enough.
        let second = text.digits(2)?;
        let millis = if text.expect(b".").is_some() {
            text.fraction_millis()?
        } else {
            0
        };
        let offset_minutes = text.offset()?;
        let valid = (1..=12).contains(&month)
            && (1..=days_in_month(year, month)).contains(&day)
            && hour < 24
            && minute < 60
            && second <= 60;
        if !valid || !text.0.is_empty() {
            return None;
        }
        let days = i64::try_from(days_from_civil(year, month, day)).ok()?;
        let seconds = days * 86_400 + i64::try_from(hour * 3600 + minute * 60 + second).ok()?
            - offset_minutes * 60;
        let millis = seconds.checked_mul(1000)? + i64::try_from(millis).ok()?;
        u64::try_from(millis).ok().map(Self::from_unix_millis)
    }
}

/// What is left of a timestamp being read.
struct Cursor<'a>(&'a [u8]);

impl Cursor<'_> {
    /// Exactly `n` ASCII digits, as a number.
    fn digits(&mut self, n: usize) -> Option<u64> {
        let (head, rest) = self.0.split_at_checked(n)?;
        if !head.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.0 = rest;
        Some(head.iter().fold(0, |n, d| n * 10 + u64::from(d - b'0')))
    }

    /// One of `choices`.
    fn expect(&mut self, choices: &[u8]) -> Option<()> {
        let (first, rest) = self.0.split_first()?;
        if !choices.contains(first) {
            return None;
        }
        self.0 = rest;
        Some(())
    }

    /// The digits of a fraction of a second (at least one), as whole milliseconds.
    fn fraction_millis(&mut self) -> Option<u64> {
        let count = self.0.iter().take_while(|b| b.is_ascii_digit()).count();
        if count == 0 {
            return None;
        }
        let millis = self.0[..count.min(3)]
            .iter()
            .chain(std::iter::repeat(&b'0'))
            .take(3)
            .fold(0, |n, d| n * 10 + u64::from(d - b'0'));
        self.0 = &self.0[count..];
        Some(millis)
    }

    /// The offset from UTC, in minutes: `Z`, or a sign and hours with optional minutes
    /// (`+02:00`, `+0200`, `+02`).
    fn offset(&mut self) -> Option<i64> {
        if self.expect(b"Zz").is_some() {
            return Some(0);
        }
        let sign = match self.0.first()? {
            b'+' => 1,
            b'-' => -1,
            _ => return None,
        };
        self.0 = &self.0[1..];
        let hours = self.digits(2)?;
        let colon = self.expect(b":").is_some();
        let minutes = if !colon && self.0.is_empty() {
            0
        } else {
            self.digits(2)?
        };
        if hours > 23 || minutes > 59 {
            return None;
        }
        i64::try_from(hours * 60 + minutes).ok().map(|m| sign * m)
    }
}

fn days_in_month(year: u64, month: u64) -> u64 {
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to the proleptic Gregorian date (Howard Hinnant's `days_from_civil`,
/// the inverse of [`civil_from_days`]), negative before the epoch.
fn days_from_civil(year: u64, month: u64, day: u64) -> i128 {
    // Counted from 0000-03-01, as in `civil_from_days`.
    let year = i128::from(year) - i128::from(month <= 2);
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let shifted_month = i128::from(if month > 2 { month - 3 } else { month + 9 });
    let day_of_year = (153 * shifted_month + 2) / 5 + i128::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let millis = self.millis % 1000;
        let seconds = self.millis / 1000;
        let (days, of_day) = (seconds / 86_400, seconds % 86_400);
        let (year, month, day) = civil_from_days(days);
        let (hour, minute, second) = (of_day / 3600, of_day / 60 % 60, of_day % 60);
        if year > 9999 {
            return write!(
                f,
                "{year}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{millis:03}Z"
            );
        }
        // Every task answer carries two of these: digits put in place cost a fraction of
        // what the formatting machinery does.
        let mut text = *b"0000-00-00T00:00:00.000Z";
        for (at, value, width) in [
            (0, year, 4),
            (5, month, 2),
            (8, day, 2),
            (11, hour, 2),
            (14, minute, 2),
            (17, second, 2),
            (20, millis, 3),
        ] {
            let mut value = value;
            for digit in text[at..at + width].iter_mut().rev() {
                *digit = b'0' + (value % 10) as u8;
                value /= 10;
            }
        }
        f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

/// The proleptic Gregorian date `days` days after 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, for days on or after the epoch).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    // Counted from 0000-03-01, so that the leap day is the last day of a year.
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_as_iso_8601_in_utc() {
        let cases = [
            (0, "1970-01-01T00:00:00.000Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (951_868_799_999, "2000-02-29T23:59:59.999Z"),
            (951_868_800_000, "2000-03-01T00:00:00.000Z"),
            (1_709_164_800_001, "2024-02-29T00:00:00.001Z"),
            (1_735_689_599_000, "2024-12-31T23:59:59.000Z"),
            (4_102_444_800_000, "2100-01-01T00:00:00.000Z"),
            (4_107_456_000_000, "2100-02-28T00:00:00.000Z"),
            (4_107_542_400_000, "2100-03-01T00:00:00.000Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
            (253_402_300_800_000, "10000-01-01T00:00:00.000Z"),
        ];
        for (millis, text) in cases {
            assert_eq!(Timestamp::from_unix_millis(millis).to_string(), text);
        }
    }

    #[test]
    fn reads_back_what_it_shows() {
        for millis in [0, 951_782_400_000, 1_709_164_800_001, 4_107_542_400_000] {
            let shown = Timestamp::from_unix_millis(millis).to_string();
            assert_eq!(
                Timestamp::parse(&shown).map(Timestamp::unix_millis),
                Some(millis)
            );
        }
    }

    #[test]
    fn reads_what_other_servers_write() {
        let at = |text: &str| Timestamp::parse(text).map(Timestamp::unix_millis);
        let base = 1_764_066_600_000; // 2025-11-25T10:30:00Z
        assert_eq!(at("2025-11-25T10:30:00Z"), Some(base));
        assert_eq!(at("2025-11-25t10:30:00z"), Some(base));
        assert_eq!(at("2025-11-25 10:30:00Z"), Some(base));
        assert_eq!(at("2025-11-25T10:30:00.5Z"), Some(base + 500));
        assert_eq!(at("2025-11-25T10:30:00.123999999Z"), Some(base + 123));
        assert_eq!(at("2025-11-25T12:30:00+02:00"), Some(base));
        assert_eq!(at("2025-11-25T05:00:00-0530"), Some(base));
        assert_eq!(at("2025-11-25T11:30:00+01"), Some(base));
        assert_eq!(at("2024-02-29T00:00:00Z"), Some(1_709_164_800_000));
        assert_eq!(at("1970-01-01T00:00:00Z"), Some(0));
    }

    #[test]
    fn refuses_what_is_not_a_moment_after_1970() {
        for text in [
            "",
            "2025-11-25",
            "2025-11-25T10:30:00",
            "2025-11-25T10:30Z",
            "2025-11-25T10:30:00.Z",
            "2025-11-25T10:30:00Zjunk",
            "2025-13-01T00:00:00Z",
            "2025-02-29T00:00:00Z",
            "2025-11-31T00:00:00Z",
            "2025-11-25T24:00:00Z",
            "2025-11-25T10:60:00Z",
            "2025-11-25T10:30:00+24:00",
            "2025-11-25T10:30:00+02:",
            "1969-12-31T23:59:59Z",
            "1970-01-01T00:30:00+01:00",
            "+2025-11-25T10:30:00Z",
            "２０２５-11-25T10:30:00Z",
        ] {
            assert_eq!(Timestamp::parse(text), None, "{text:?}");
        }
    }

    #[test]
    fn now_is_after_this_code_was_written() {
        assert!(Timestamp::now() > Timestamp::from_unix_millis(1_764_000_000_000));
    }
}
