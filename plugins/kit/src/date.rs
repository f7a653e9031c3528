//! Dates as the WIT contract wants them: RFC 3339, or nothing. Sources say
//! when something was published in many shapes; anything this module cannot
//! read becomes `None`, never "now".

/// Normalizes a date a page or API gave to RFC 3339.
///
/// Accepts `YYYY-MM-DD`, optionally followed by `T` or a space, `HH:MM`,
/// optional `:SS` and fraction (any number of digits, kept as given), and
/// an optional zone (`Z`, `±HH:MM`, `±HHMM`, `±HH`).
///
/// Dates without a zone keep their wall-clock figures and are marked UTC
/// (`Z`), always: a date alone becomes midnight UTC and
/// `2017-11-03 03:01:00.000000` becomes `2017-11-03T03:01:00.000000Z`.
/// The page gave no better answer, guessing its zone from the site would
/// be a guess, and one fixed rule lets callers compare such dates.
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
            let mut rest = z[1..].replace(':', "");
            if rest.len() == 2 {
                rest.push_str("00");
            }
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

/// [`normalize`], also reading the other ways pages and feeds write a
/// date: `YYYY/MM/DD` (year first, so never ambiguous) and dates with
/// English month names — RFC 2822 (`Tue, 07 Feb 2017 10:00:00 -0500`),
/// `7 February 2017`, `February 7th, 2017 at 10:00 AM`, asctime
/// (`Tue Feb 7 10:00:00 2017`).
///
/// The zone must be numeric, `Z`, `UT`, `UTC` or `GMT` (optionally with
/// an offset: `GMT+0100`); any other zone name makes the date unreadable
/// rather than guessed (`EST` is New York's in RFC 2822 and Sydney's in
/// Java's `Date.toString`). No zone: UTC, as in [`normalize`]. All-number
/// dates other than year-first (`05/29/2007`) stay unreadable: day and
/// month order is the site's secret.
pub fn normalize_lenient(input: &str) -> Option<String> {
    if let Some(d) = normalize(input) {
        return Some(d);
    }
    let s = input.trim();
    if let Some(d) = year_first_slashes(s) {
        return Some(d);
    }
    let (mut year, mut month, mut day) = (None, None, None);
    let mut time: Option<(u32, u32, String)> = None;
    let mut pm = None;
    let mut zone = String::new();
    let tokens = s
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty());
    for (i, token) in tokens.enumerate() {
        let lower = token.to_ascii_lowercase();
        let word = lower.trim_end_matches('.');
        if let Some(m) = month_number(word) {
            if month.replace(m).is_some() {
                return None;
            }
        } else if (i == 0 && is_weekday(word)) || word == "at" {
            // A leading weekday or `at`: nothing the date needs.
            continue;
        } else if let Some(d) = day_of_month(word) {
            if day.replace(d).is_some() {
                return None;
            }
        } else if word.len() == 4 && word.bytes().all(|c| c.is_ascii_digit()) {
            if year.replace(word.parse::<u32>().ok()?).is_some() {
                return None;
            }
        } else if word.contains(':') && word.starts_with(|c: char| c.is_ascii_digit()) {
            // `10:00`, `10:00:30.5`, `10:00am`, `10:00:30+0100`.
            let end = word
                .find(|c: char| !(c.is_ascii_digit() || c == ':' || c == '.'))
                .unwrap_or(word.len());
            let (clock, rest) = word.split_at(end);
            let mut parts = clock.splitn(2, ':');
            let hour = parts.next()?.parse::<u32>().ok()?;
            let rest_of_clock = parts.next()?;
            let minute = rest_of_clock.get(..2)?.parse::<u32>().ok()?;
            let seconds = rest_of_clock[2..].to_string();
            if !(seconds.is_empty() || seconds.starts_with(':')) || time.is_some() {
                return None;
            }
            time = Some((hour, minute, seconds));
            match rest {
                "" => {}
                "am" | "a.m" => pm = Some(false),
                "pm" | "p.m" => pm = Some(true),
                z => zone = numeric_zone(&z.to_ascii_uppercase())?,
            }
        } else if matches!(word, "am" | "a.m" | "pm" | "p.m") {
            pm = Some(word.starts_with('p'));
        } else {
            zone = numeric_zone(&token.to_ascii_uppercase())?;
        }
    }
    let (year, month, day) = (year?, month?, day?);
    let mut out = format!("{year:04}-{month:02}-{day:02}");
    if let Some((mut hour, minute, seconds)) = time {
        match pm {
            Some(_) if !(1..=12).contains(&hour) => return None,
            Some(true) if hour < 12 => hour += 12,
            Some(false) if hour == 12 => hour = 0,
            _ => {}
        }
        out = format!("{out}T{hour:02}:{minute:02}{seconds}{zone}");
    } else if pm.is_some() || !zone.is_empty() {
        return None;
    }
    normalize(&out)
}

/// `2014/12/15` or `2014/1/5`, optionally followed by a time as
/// [`normalize`] reads it.
fn year_first_slashes(s: &str) -> Option<String> {
    let (date, time) = match s.find([' ', 'T']) {
        Some(i) => s.split_at(i),
        None => (s, ""),
    };
    let mut parts = date.split('/');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || y.len() != 4 || m.len() > 2 || d.len() > 2 {
        return None;
    }
    let num = |p: &str| {
        p.parse::<u32>()
            .ok()
            .filter(|_| p.bytes().all(|c| c.is_ascii_digit()))
    };
    normalize(&format!("{}-{:02}-{:02}{time}", num(y)?, num(m)?, num(d)?))
}

/// A month's number from its English name or abbreviation (`sept` too).
fn month_number(word: &str) -> Option<u32> {
    const MONTHS: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    if word.len() < 3 {
        return None;
    }
    MONTHS
        .iter()
        .position(|m| m.starts_with(word))
        .map(|i| i as u32 + 1)
}

fn is_weekday(word: &str) -> bool {
    const DAYS: [&str; 7] = [
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    ];
    word.len() >= 3 && DAYS.iter().any(|d| d.starts_with(word))
}

/// `7`, `07`, `7th`, `1st`: a day of the month.
fn day_of_month(word: &str) -> Option<u32> {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    if digits.is_empty()
        || digits.len() > 2
        || !digits.bytes().all(|c| c.is_ascii_digit())
        || !matches!(suffix, "" | "st" | "nd" | "rd" | "th")
    {
        return None;
    }
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

/// `Z`, `UT`, `UTC`, `GMT`, each optionally followed by an offset, or an
/// offset alone (`+0100`, `-05:00`, `+01`), as [`normalize`] writes zones.
fn numeric_zone(token: &str) -> Option<String> {
    let offset = ["UTC", "GMT", "UT", "Z"]
        .iter()
        .find_map(|name| token.strip_prefix(name))
        .unwrap_or(token);
    if offset.is_empty() {
        return Some("Z".to_string());
    }
    let z = normalize(&format!("2000-01-01T00:00{offset}"))?;
    z.get(19..).map(str::to_string)
}

/// The instant a date denotes, in milliseconds since the Unix epoch: what
/// [`normalize`] accepts (a zone-less date counts as UTC, as there),
/// with the fraction cut to milliseconds. Lets callers compare dates
/// written in different zones.
pub fn unix_millis(input: &str) -> Option<i64> {
    let s = normalize(input)?;
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut rest = &s[19..];
    let mut millis = 0;
    if let Some(fraction) = rest.strip_prefix('.') {
        let end = fraction
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(fraction.len());
        let digits = format!("{:0<3}", &fraction[..end.min(3)]);
        millis = digits.parse::<i64>().ok()?;
        rest = &fraction[end..];
    }
    let offset_minutes = match rest {
        "Z" => 0,
        z => {
            let sign = if z.starts_with('-') { -1 } else { 1 };
            sign * (z.get(1..3)?.parse::<i64>().ok()? * 60 + z.get(4..6)?.parse::<i64>().ok()?)
        }
    };
    let days = days_from_civil(year, month as u32, day as u32);
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
    Some(secs * 1000 + millis)
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

/// Howard Hinnant's days-from-civil algorithm, the inverse of
/// [`civil_from_days`].
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from(if m > 2 { m - 3 } else { m + 9 });
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
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
        assert_eq!(
            normalize("2024-03-05T10:20:30+01").as_deref(),
            Some("2024-03-05T10:20:30+01:00")
        );
    }

    #[test]
    fn zoneless_dates_keep_their_figures_and_are_marked_utc() {
        // Engadget's JSON-LD `datePublished` (Readability's engadget page).
        assert_eq!(
            normalize("2017-11-03 03:01:00.000000").as_deref(),
            Some("2017-11-03T03:01:00.000000Z")
        );
        assert_eq!(
            normalize(" 2016-02-01 01:28:49 ").as_deref(),
            Some("2016-02-01T01:28:49Z")
        );
        assert_eq!(
            unix_millis("2017-11-03 03:01:00.000000"),
            unix_millis("2017-11-03T03:01:00Z")
        );
    }

    #[test]
    fn lenient_reads_written_out_dates() {
        for (input, want) in [
            ("2017-03-09T23:16:02+00:00", "2017-03-09T23:16:02+00:00"),
            (
                "Tue, 07 Feb 2017 10:00:00 -0500",
                "2017-02-07T10:00:00-05:00",
            ),
            ("Tue, 07 Feb 2017 10:00:00 GMT", "2017-02-07T10:00:00Z"),
            ("7 February 2017", "2017-02-07T00:00:00Z"),
            ("February 7th, 2017 at 10:05 PM", "2017-02-07T22:05:00Z"),
            ("Sept. 1, 2016, 12:30 a.m.", "2016-09-01T00:30:00Z"),
            ("Fri Mar 13 21:30:09 2015", "2015-03-13T21:30:09Z"),
            (
                "Fri Mar 13 21:30:09 UTC+0100 2015",
                "2015-03-13T21:30:09+01:00",
            ),
            ("2014/12/15", "2014-12-15T00:00:00Z"),
            ("2014/1/5 10:00", "2014-01-05T10:00:00Z"),
        ] {
            assert_eq!(normalize_lenient(input).as_deref(), Some(want), "{input}");
        }
        for bad in [
            "",
            "yesterday",
            "05/29/2007 09:49:00",
            "Fri Mar 13 21:30:09 EST 2015",
            "February 2017",
            "February 30, 2017",
            "May 5, 2017 13:00 PM",
            "7 February 2017 February",
            "2014/13/01",
        ] {
            assert_eq!(normalize_lenient(bad), None, "{bad}");
        }
    }

    #[test]
    fn compares_instants_across_zones() {
        assert_eq!(unix_millis("1970-01-01"), Some(0));
        assert_eq!(
            unix_millis("2015-07-24T05:36:09+01:00"),
            unix_millis("2015-07-24T04:36:09Z")
        );
        assert_eq!(
            unix_millis("2017-03-09T23:16:02+00:00"),
            Some(1_489_101_362_000)
        );
        assert_eq!(
            unix_millis("2019-10-18T17:23:34.816Z"),
            Some(1_571_419_414_816)
        );
        assert_eq!(
            unix_millis("2019-10-18T17:23:34.8169Z"),
            Some(1_571_419_414_816)
        );
        assert_eq!(
            unix_millis("2019-10-18T17:23:34.8Z"),
            Some(1_571_419_414_800)
        );
        assert_eq!(
            unix_millis("2000-02-29T23:30:00-01:30"),
            unix_millis("2000-03-01T01:00:00Z")
        );
        assert_eq!(unix_millis("yesterday"), None);
        for secs in [0_i64, 951_782_400, 1_709_636_400, -86_400] {
            let text = from_unix(secs as f64).expect("present");
            assert_eq!(unix_millis(&text), Some(secs * 1000), "{text}");
        }
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
            "2024-03-05T10:20+05:3",
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
