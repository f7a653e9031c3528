//! Dates as the WIT contract wants them: RFC 3339, or nothing. Sources say
//! when something was published in many shapes; anything this module cannot
//! read becomes `None`, never "now".

/// Normalizes a date a page or API gave to RFC 3339.
///
/// Accepts `YYYY-MM-DD`, optionally followed by `T` or a space, `HH:MM`,
/// optional `:SS` and fraction, and an optional zone (`Z`, `±HH:MM`,
/// `±HHMM`). A date alone becomes midnight UTC; a time without zone is
/// taken as UTC (the page gave no better answer).
pub fn normalize(input: &str) -> Option<String> {
    let s = input.trim();
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = s.get(r)?;
        if part.is_empty() || !part.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        part.parse().ok()
    };
    let year = digits(0..4)?;
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    let month = digits(5..7)?;
    let day = digits(8..10)?;
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    let date = format!("{year:04}-{month:02}-{day:02}");
    if s.len() == 10 {
        return Some(format!("{date}T00:00:00Z"));
    }
    if !matches!(b.get(10), Some(b'T' | b't' | b' ')) {
        return None;
    }
    let hour = digits(11..13)?;
    if b.get(13) != Some(&b':') {
        return None;
    }
    let minute = digits(14..16)?;
    let mut i = 16;
    let mut second = 0;
    if b.get(i) == Some(&b':') {
        second = digits(i + 1..i + 3)?;
        i += 3;
    }
    let mut fraction = String::new();
    if b.get(i) == Some(&b'.') {
        let start = i + 1;
        let mut end = start;
        while b.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
        }
        if end == start {
            return None;
        }
        fraction = format!(".{}", &s[start..end]);
        i = end;
    }
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let zone = match &s[i..] {
        "" | "Z" | "z" => "Z".to_string(),
        z if (z.starts_with('+') || z.starts_with('-')) => {
            let sign = &z[..1];
            let rest = z[1..].replace(':', "");
            if rest.len() != 4 || !rest.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let (zh, zm) = rest.split_at(2);
            if zh.parse::<u32>().ok()? > 23 || zm.parse::<u32>().ok()? > 59 {
                return None;
            }
            format!("{sign}{zh}:{zm}")
        }
        _ => return None,
    };
    Some(format!(
        "{date}T{hour:02}:{minute:02}:{second:02}{fraction}{zone}"
    ))
}

/// Seconds since the Unix epoch (UTC) as RFC 3339. Fractions are dropped;
/// times outside years 0..=9999 give `None`.
pub fn from_unix(secs: f64) -> Option<String> {
    if !secs.is_finite() {
        return None;
    }
    let secs = secs.floor() as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    if !(0..=9999).contains(&y) {
        return None;
    }
    Some(format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    ))
}

/// Howard Hinnant's days-to-civil algorithm (proleptic Gregorian).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_common_shapes() {
        assert_eq!(
            normalize("2024-03-05").as_deref(),
            Some("2024-03-05T00:00:00Z")
        );
        assert_eq!(
            normalize("2024-03-05T10:20:30.123Z").as_deref(),
            Some("2024-03-05T10:20:30.123Z")
        );
        assert_eq!(
            normalize("2024-03-05 10:20+0100").as_deref(),
            Some("2024-03-05T10:20:00+01:00")
        );
        assert_eq!(
            normalize("2024-03-05T10:20:30").as_deref(),
            Some("2024-03-05T10:20:30Z")
        );
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        for bad in [
            "",
            "yesterday",
            "2024-13-01",
            "2023-02-29",
            "2024-03-05T25:00Z",
            "2024-03-05Tx",
            "2024-03-05T10:20+5",
        ] {
            assert_eq!(normalize(bad), None, "{bad}");
        }
    }

    #[test]
    fn converts_unix_seconds() {
        assert_eq!(from_unix(0.0).as_deref(), Some("1970-01-01T00:00:00Z"));
        assert_eq!(
            from_unix(1_709_636_400.0).as_deref(),
            Some("2024-03-05T11:00:00Z")
        );
        assert_eq!(
            from_unix(951_782_400.0).as_deref(),
            Some("2000-02-29T00:00:00Z")
        );
        assert_eq!(from_unix(f64::NAN), None);
        assert_eq!(from_unix(1e18), None);
    }
}
