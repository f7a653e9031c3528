//! Day and instant arithmetic on the RFC 3339 dates providers give
//! (`kit::date::normalize` shapes): enough to place a date in a timebox and
//! say how old it is, relative to the run's `_now` — never the wall clock.

use webrig_workflow_sdk::kit::date;

/// Seconds in a day.
pub const DAY: i64 = 86_400;

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// days-from-civil).
pub fn day_number(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from(if m > 2 { m - 3 } else { m + 9 });
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `YYYY-MM-DD` of a day number (the inverse of [`day_number`]).
pub fn format_day(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// A strict `YYYY-MM-DD` (what the `date` parameter kind promises) as a
/// day number; anything else, including impossible dates, is `None`.
pub fn parse_day(s: &str) -> Option<i64> {
    if s.len() != 10 {
        return None;
    }
    let normalized = date::normalize(s)?;
    unix_secs(&normalized).map(|secs| secs.div_euclid(DAY))
}

/// The instant a date denotes, in seconds since the Unix epoch: whatever
/// `kit::date::normalize` reads, zones applied (a zone-less date counts
/// as UTC, as there). Fractions are dropped.
pub fn unix_secs(input: &str) -> Option<i64> {
    let s = date::normalize(input)?;
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut zone = s.get(19..)?;
    if let Some(fraction) = zone.strip_prefix('.') {
        let end = fraction
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(fraction.len());
        zone = &fraction[end..];
    }
    let offset_minutes = match zone {
        "Z" => 0,
        z => {
            let sign = if z.starts_with('-') { -1 } else { 1 };
            let hours = z.get(1..3)?.parse::<i64>().ok()?;
            let minutes = z.get(4..6)?.parse::<i64>().ok()?;
            sign * (hours * 60 + minutes)
        }
    };
    let days = day_number(year, u32::try_from(month).ok()?, u32::try_from(day).ok()?);
    Some(days * DAY + hour * 3600 + minute * 60 + second - offset_minutes * 60)
}

/// The UTC day (day number) of an instant given as a date string.
pub fn utc_day(input: &str) -> Option<i64> {
    unix_secs(input).map(|s| s.div_euclid(DAY))
}

/// The calendar day (day number) a date string names in its own offset:
/// `2026-11-30T22:30:00-05:00` is 30 November where it was written, even
/// though it is 1 December in UTC. A page's date is shown and placed in
/// the timebox as the page wrote it.
pub fn local_day(input: &str) -> Option<i64> {
    unix_secs(input)?;
    let s = date::normalize(input)?;
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    Some(day_number(
        y,
        u32::try_from(m).ok()?,
        u32::try_from(d).ok()?,
    ))
}

/// `YYYY-MM-DD` of a date string in its own offset ([`local_day`]), for
/// display.
pub fn display_day(input: &str) -> Option<String> {
    local_day(input).map(format_day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_round_trip() {
        assert_eq!(day_number(1970, 1, 1), 0);
        assert_eq!(format_day(day_number(2026, 12, 1)), "2026-12-01");
        assert_eq!(format_day(day_number(2024, 2, 29)), "2024-02-29");
        assert_eq!(parse_day("2026-11-01"), Some(day_number(2026, 11, 1)));
        for bad in [
            "2026-02-30",
            "2026-11-1",
            "26-11-01",
            "2026-11-01T00:00Z",
            "today",
        ] {
            assert_eq!(parse_day(bad), None, "{bad}");
        }
    }

    #[test]
    fn instants_apply_zones() {
        assert_eq!(unix_secs("1970-01-02"), Some(DAY));
        assert_eq!(
            unix_secs("2026-11-18T14:30:00+01:00"),
            unix_secs("2026-11-18T13:30:00Z")
        );
        assert_eq!(
            unix_secs("2026-11-30T23:30:00-02:00"),
            unix_secs("2026-12-01T01:30:00.250Z")
        );
        // Late evening west of UTC is the next UTC day, but the page
        // wrote the 30th, and that is the day shown.
        assert_eq!(utc_day("2026-11-30T23:30:00-02:00"), utc_day("2026-12-01"));
        assert_eq!(
            display_day("2026-11-30T23:30:00-02:00").as_deref(),
            Some("2026-11-30")
        );
        assert_eq!(
            display_day("2026-12-01T00:30:00+09:00").as_deref(),
            Some("2026-12-01")
        );
        assert_eq!(
            unix_secs("2023-11-20T10:00:00.0000000Z"),
            unix_secs("2023-11-20T10:00:00Z")
        );
        assert_eq!(unix_secs("not a date"), None);
    }
}
