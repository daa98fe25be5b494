//! Points in time as tasks carry them: milliseconds since the Unix epoch, shown the way the
//! wire wants them (ISO 8601, UTC, `2025-11-25T10:30:00.000Z`).

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
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let millis = self.millis % 1000;
        let seconds = self.millis / 1000;
        let (days, of_day) = (seconds / 86_400, seconds % 86_400);
        let (year, month, day) = civil_from_days(days);
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
            of_day / 3600,
            of_day / 60 % 60,
            of_day % 60
        )
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
        ];
        for (millis, text) in cases {
            assert_eq!(Timestamp::from_unix_millis(millis).to_string(), text);
        }
    }

    #[test]
    fn now_is_after_this_code_was_written() {
        assert!(Timestamp::now() > Timestamp::from_unix_millis(1_764_000_000_000));
    }
}
