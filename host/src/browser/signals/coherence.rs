//! Tier 1: does what a session's pages see of the browser hang together?
//! The user agent's platform token against `navigator.platform`, the
//! languages and `Accept-Language` against the locale, the time zone
//! against the locale's region, the geolocation and the proxy's exit
//! country. Pure: the facts come from the page ([`Facts`]) and the
//! session's emulation; this module only compares them.
//!
//! The tables are small on purpose: common zones only, one country each
//! (the country whose own zone it is in the tz database's `zone.tab`).
//! A zone or locale not listed is unknown, and unknown says nothing:
//! no guessing, so no false alarm.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What the page reported of the browser (read by the signals probe).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Facts {
    #[serde(default)]
    pub user_agent: String,
    #[serde(default)]
    pub platform: String,
    #[serde(default)]
    pub languages: Vec<String>,
    #[serde(default)]
    pub timezone: String,
    #[serde(default)]
    pub locale: String,
}

/// Everything compared: the page's facts plus what the session sends and
/// claims beyond the page (headers, position, the proxy's exit).
#[derive(Debug, Clone, Default)]
pub struct Input {
    pub facts: Facts,
    /// The `Accept-Language` the session sends when it sets one (a header
    /// or a locale); None: the browser's own, which follows its languages.
    pub accept_language: Option<String>,
    /// Emulated position (latitude, longitude).
    pub geo: Option<(f64, f64)>,
    /// The proxy's exit country (ISO 3166 alpha-2), when known. The input
    /// the session's proxy fills; None says nothing.
    pub proxy_country: Option<String>,
}

/// One disagreement, named by what disagrees.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Warning {
    /// `platform`, `timezone_locale`, `language_locale`,
    /// `accept_language_locale`, `geo_timezone`, `proxy_timezone` or
    /// `proxy_locale`.
    pub kind: String,
    pub message: String,
}

fn warn(kind: &str, message: String) -> Warning {
    Warning {
        kind: kind.to_string(),
        message,
    }
}

/// Compares the input; an empty list when everything known agrees.
pub fn check(input: &Input) -> Vec<Warning> {
    let f = &input.facts;
    let mut out = Vec::new();
    if let (Some(ua), Some(platform)) = (ua_os(&f.user_agent), platform_os(&f.platform))
        && !ua.compatible(platform)
    {
        out.push(warn(
            "platform",
            format!(
                "the user agent says {} but navigator.platform is {:?} ({})",
                ua.name(),
                f.platform,
                platform.name()
            ),
        ));
    }
    let locale = (!f.locale.is_empty()).then_some(f.locale.as_str());
    let zone = zone(&f.timezone);
    if let (Some(locale), Some(zone)) = (locale, zone)
        && let Some(region) = region(locale)
        && region != zone.country
    {
        out.push(warn(
            "timezone_locale",
            format!(
                "time zone {} is in {} but locale {locale} is for {region}",
                f.timezone, zone.country
            ),
        ));
    }
    if let (Some(locale), Some(first)) = (locale, f.languages.first())
        && !same_language(first, locale)
    {
        out.push(warn(
            "language_locale",
            format!("navigator.language is {first} but the locale is {locale}"),
        ));
    }
    if let (Some(locale), Some(header)) = (locale, &input.accept_language) {
        let primary = primary_language(header);
        if !primary.is_empty() && !same_language(primary, locale) {
            out.push(warn(
                "accept_language_locale",
                format!("Accept-Language starts with {primary} but the locale is {locale}"),
            ));
        }
    }
    if let (Some((lat, lon)), Some(zone)) = (input.geo, zone) {
        let km = distance_km((lat, lon), (zone.lat, zone.lon));
        if km > zone.radius_km {
            out.push(warn(
                "geo_timezone",
                format!(
                    "the geolocation ({lat:.2}, {lon:.2}) is about {km:.0} km from {}, the reference city of time zone {}",
                    zone.city, f.timezone
                ),
            ));
        }
    }
    if let Some(country) = input
        .proxy_country
        .as_deref()
        .map(str::to_ascii_uppercase)
        .filter(|c| c.len() == 2)
    {
        if let Some(zone) = zone
            && zone.country != country
        {
            out.push(warn(
                "proxy_timezone",
                format!(
                    "the proxy exits in {country} but time zone {} is in {}",
                    f.timezone, zone.country
                ),
            ));
        }
        if let Some(locale) = locale
            && let Some(region) = region(locale)
            && region != country
        {
            out.push(warn(
                "proxy_locale",
                format!("the proxy exits in {country} but locale {locale} is for {region}"),
            ));
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(clippy::enum_variant_names)] // ChromeOS is its name
enum Os {
    Windows,
    Mac,
    Ios,
    Android,
    ChromeOs,
    Linux,
}

impl Os {
    fn name(self) -> &'static str {
        match self {
            Os::Windows => "Windows",
            Os::Mac => "macOS",
            Os::Ios => "iOS",
            Os::Android => "Android",
            Os::ChromeOs => "ChromeOS",
            Os::Linux => "Linux",
        }
    }

    /// `navigator.platform` of Android and ChromeOS reads as Linux.
    fn compatible(self, platform: Os) -> bool {
        self == platform
            || (platform == Os::Linux && matches!(self, Os::Android | Os::ChromeOs | Os::Linux))
    }
}

/// The operating system a user agent's platform token names.
fn ua_os(ua: &str) -> Option<Os> {
    // Order matters: an iPhone's agent says "like Mac OS X", Android's "Linux".
    if ua.contains("iPhone") || ua.contains("iPad") || ua.contains("iPod") {
        Some(Os::Ios)
    } else if ua.contains("Android") {
        Some(Os::Android)
    } else if ua.contains("CrOS") {
        Some(Os::ChromeOs)
    } else if ua.contains("Windows") {
        Some(Os::Windows)
    } else if ua.contains("Macintosh") || ua.contains("Mac OS X") {
        Some(Os::Mac)
    } else if ua.contains("Linux") || ua.contains("X11") {
        Some(Os::Linux)
    } else {
        None
    }
}

/// The operating system `navigator.platform` names.
fn platform_os(platform: &str) -> Option<Os> {
    let p = platform.trim();
    if p.starts_with("Win") {
        Some(Os::Windows)
    } else if p.starts_with("Mac") {
        Some(Os::Mac)
    } else if matches!(p, "iPhone" | "iPad" | "iPod") {
        Some(Os::Ios)
    } else if p.starts_with("Linux") || p == "Android" {
        Some(Os::Linux)
    } else {
        None
    }
}

/// A locale's region subtag (`de-DE` → `DE`, `zh-Hans-TW` → `TW`); None
/// when it names none, or a numeric area (`es-419`) no zone matches.
pub fn region(locale: &str) -> Option<String> {
    locale
        .split(['-', '_'])
        .skip(1)
        .find(|p| p.len() == 2 && p.bytes().all(|b| b.is_ascii_alphabetic()))
        .map(str::to_ascii_uppercase)
}

fn language(tag: &str) -> String {
    tag.split(['-', '_'])
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// Same language, and the same region when both name one (`de` and
/// `de-AT` agree; `de-DE` and `de-AT` do not).
fn same_language(a: &str, b: &str) -> bool {
    language(a) == language(b)
        && match (region(a), region(b)) {
            (Some(x), Some(y)) => x == y,
            _ => true,
        }
}

/// The first tag of an `Accept-Language` header (`de-DE,de;q=0.9` → `de-DE`).
fn primary_language(header: &str) -> &str {
    header
        .split(',')
        .next()
        .unwrap_or_default()
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
}

/// One time zone: the country it is the zone of, its reference city, and
/// how far from it a position may lie and still be in the zone's region.
#[derive(Debug, Clone, Copy)]
struct Zone {
    name: &'static str,
    country: &'static str,
    city: &'static str,
    lat: f64,
    lon: f64,
    radius_km: f64,
}

const fn z(
    name: &'static str,
    country: &'static str,
    city: &'static str,
    lat: f64,
    lon: f64,
    radius_km: f64,
) -> Zone {
    Zone {
        name,
        country,
        city,
        lat,
        lon,
        radius_km,
    }
}

/// Common zones. Radii are generous (a zone's region, not its city):
/// a warning should mean "another part of the world".
const ZONES: &[Zone] = &[
    z("Europe/London", "GB", "London", 51.51, -0.13, 1000.0),
    z("Europe/Dublin", "IE", "Dublin", 53.35, -6.26, 600.0),
    z("Europe/Lisbon", "PT", "Lisbon", 38.72, -9.14, 1200.0),
    z("Europe/Madrid", "ES", "Madrid", 40.42, -3.70, 1000.0),
    z("Europe/Paris", "FR", "Paris", 48.86, 2.35, 1000.0),
    z("Europe/Brussels", "BE", "Brussels", 50.85, 4.35, 600.0),
    z("Europe/Amsterdam", "NL", "Amsterdam", 52.37, 4.90, 600.0),
    z("Europe/Luxembourg", "LU", "Luxembourg", 49.61, 6.13, 500.0),
    z("Europe/Berlin", "DE", "Berlin", 52.52, 13.40, 1000.0),
    z("Europe/Zurich", "CH", "Zurich", 47.38, 8.54, 600.0),
    z("Europe/Vienna", "AT", "Vienna", 48.21, 16.37, 800.0),
    z("Europe/Rome", "IT", "Rome", 41.90, 12.50, 1000.0),
    z("Europe/Copenhagen", "DK", "Copenhagen", 55.68, 12.57, 700.0),
    z("Europe/Oslo", "NO", "Oslo", 59.91, 10.75, 1500.0),
    z("Europe/Stockholm", "SE", "Stockholm", 59.33, 18.07, 1500.0),
    z("Europe/Helsinki", "FI", "Helsinki", 60.17, 24.94, 1200.0),
    z("Europe/Warsaw", "PL", "Warsaw", 52.23, 21.01, 800.0),
    z("Europe/Prague", "CZ", "Prague", 50.08, 14.44, 600.0),
    z("Europe/Budapest", "HU", "Budapest", 47.50, 19.04, 600.0),
    z("Europe/Athens", "GR", "Athens", 37.98, 23.73, 900.0),
    z("Europe/Bucharest", "RO", "Bucharest", 44.43, 26.10, 700.0),
    z("Europe/Istanbul", "TR", "Istanbul", 41.01, 28.98, 1800.0),
    z("Europe/Kyiv", "UA", "Kyiv", 50.45, 30.52, 1200.0),
    z("Europe/Kiev", "UA", "Kyiv", 50.45, 30.52, 1200.0),
    z("Europe/Moscow", "RU", "Moscow", 55.76, 37.62, 2500.0),
    z("America/New_York", "US", "New York", 40.71, -74.01, 2000.0),
    z("America/Chicago", "US", "Chicago", 41.88, -87.63, 2000.0),
    z("America/Denver", "US", "Denver", 39.74, -104.99, 1500.0),
    z("America/Phoenix", "US", "Phoenix", 33.45, -112.07, 800.0),
    z(
        "America/Los_Angeles",
        "US",
        "Los Angeles",
        34.05,
        -118.24,
        1800.0,
    ),
    z(
        "America/Anchorage",
        "US",
        "Anchorage",
        61.22,
        -149.90,
        2000.0,
    ),
    z("Pacific/Honolulu", "US", "Honolulu", 21.31, -157.86, 800.0),
    z("America/Toronto", "CA", "Toronto", 43.65, -79.38, 2000.0),
    z(
        "America/Vancouver",
        "CA",
        "Vancouver",
        49.28,
        -123.12,
        1500.0,
    ),
    z(
        "America/Mexico_City",
        "MX",
        "Mexico City",
        19.43,
        -99.13,
        1500.0,
    ),
    z(
        "America/Sao_Paulo",
        "BR",
        "São Paulo",
        -23.55,
        -46.63,
        2500.0,
    ),
    z(
        "America/Argentina/Buenos_Aires",
        "AR",
        "Buenos Aires",
        -34.60,
        -58.38,
        2500.0,
    ),
    z("America/Bogota", "CO", "Bogotá", 4.71, -74.07, 1200.0),
    z("America/Lima", "PE", "Lima", -12.05, -77.04, 1500.0),
    z("America/Santiago", "CL", "Santiago", -33.45, -70.67, 2500.0),
    z("Asia/Tokyo", "JP", "Tokyo", 35.68, 139.69, 1500.0),
    z("Asia/Seoul", "KR", "Seoul", 37.57, 126.98, 600.0),
    z("Asia/Shanghai", "CN", "Shanghai", 31.23, 121.47, 3000.0),
    z("Asia/Hong_Kong", "HK", "Hong Kong", 22.32, 114.17, 300.0),
    z("Asia/Taipei", "TW", "Taipei", 25.03, 121.57, 500.0),
    z("Asia/Singapore", "SG", "Singapore", 1.35, 103.82, 300.0),
    z("Asia/Kolkata", "IN", "Kolkata", 22.57, 88.36, 2500.0),
    z("Asia/Calcutta", "IN", "Kolkata", 22.57, 88.36, 2500.0),
    z("Asia/Dubai", "AE", "Dubai", 25.20, 55.27, 500.0),
    z("Asia/Bangkok", "TH", "Bangkok", 13.76, 100.50, 1000.0),
    z("Asia/Jakarta", "ID", "Jakarta", -6.21, 106.85, 1500.0),
    z("Asia/Manila", "PH", "Manila", 14.60, 120.98, 1200.0),
    z(
        "Asia/Ho_Chi_Minh",
        "VN",
        "Ho Chi Minh City",
        10.82,
        106.63,
        1500.0,
    ),
    z(
        "Asia/Kuala_Lumpur",
        "MY",
        "Kuala Lumpur",
        3.139,
        101.69,
        1500.0,
    ),
    z("Asia/Karachi", "PK", "Karachi", 24.86, 67.01, 1500.0),
    z("Asia/Jerusalem", "IL", "Jerusalem", 31.77, 35.21, 400.0),
    z("Asia/Riyadh", "SA", "Riyadh", 24.71, 46.68, 1500.0),
    z("Asia/Tehran", "IR", "Tehran", 35.69, 51.39, 1500.0),
    z("Australia/Sydney", "AU", "Sydney", -33.87, 151.21, 2000.0),
    z(
        "Australia/Melbourne",
        "AU",
        "Melbourne",
        -37.81,
        144.96,
        1500.0,
    ),
    z(
        "Australia/Brisbane",
        "AU",
        "Brisbane",
        -27.47,
        153.03,
        2000.0,
    ),
    z("Australia/Perth", "AU", "Perth", -31.95, 115.86, 2500.0),
    z("Pacific/Auckland", "NZ", "Auckland", -36.85, 174.76, 1500.0),
    z(
        "Africa/Johannesburg",
        "ZA",
        "Johannesburg",
        -26.20,
        28.05,
        1500.0,
    ),
    z("Africa/Lagos", "NG", "Lagos", 6.52, 3.38, 1200.0),
    z("Africa/Cairo", "EG", "Cairo", 30.04, 31.24, 1200.0),
    z("Africa/Nairobi", "KE", "Nairobi", -1.29, 36.82, 1000.0),
];

fn zone(name: &str) -> Option<&'static Zone> {
    ZONES.iter().find(|z| z.name == name)
}

/// The country a time zone is the zone of, when the table knows it.
pub fn timezone_country(name: &str) -> Option<&'static str> {
    zone(name).map(|z| z.country)
}

/// Great-circle distance (haversine), km.
fn distance_km(a: (f64, f64), b: (f64, f64)) -> f64 {
    let (la1, lo1) = (a.0.to_radians(), a.1.to_radians());
    let (la2, lo2) = (b.0.to_radians(), b.1.to_radians());
    let h = ((la2 - la1) / 2.0).sin().powi(2)
        + la1.cos() * la2.cos() * ((lo2 - lo1) / 2.0).sin().powi(2);
    2.0 * 6371.0 * h.sqrt().asin()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINUX_UA: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";
    const WINDOWS_UA: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";
    const IPHONE_UA: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
    const ANDROID_UA: &str = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Mobile Safari/537.36";

    fn input(ua: &str, platform: &str, tz: &str, locale: &str) -> Input {
        Input {
            facts: Facts {
                user_agent: ua.into(),
                platform: platform.into(),
                languages: vec![locale.into()],
                timezone: tz.into(),
                locale: locale.into(),
            },
            ..Input::default()
        }
    }

    fn kinds(w: &[Warning]) -> Vec<&str> {
        w.iter().map(|w| w.kind.as_str()).collect()
    }

    #[test]
    fn a_coherent_browser_has_no_warnings() {
        let mut i = input(LINUX_UA, "Linux x86_64", "Europe/Berlin", "de-DE");
        i.accept_language = Some("de-DE,de;q=0.9".into());
        i.geo = Some((48.14, 11.58)); // Munich
        i.proxy_country = Some("de".into());
        assert!(check(&i).is_empty(), "{:?}", check(&i));
        // An Android agent on a Linux platform is what a phone reports.
        assert!(check(&input(ANDROID_UA, "Linux armv8l", "Asia/Tokyo", "ja-JP")).is_empty());
    }

    #[test]
    fn tokyo_time_with_a_german_locale_names_both() {
        let w = check(&input(LINUX_UA, "Linux x86_64", "Asia/Tokyo", "de-DE"));
        assert_eq!(kinds(&w), ["timezone_locale"]);
        assert!(w[0].message.contains("Asia/Tokyo"), "{w:?}");
        assert!(w[0].message.contains("de-DE"), "{w:?}");
    }

    #[test]
    fn a_windows_agent_on_linux_is_named() {
        let w = check(&input(WINDOWS_UA, "Linux x86_64", "UTC", "en-US"));
        assert_eq!(kinds(&w), ["platform"]);
        assert!(w[0].message.contains("Windows"), "{w:?}");
        let w = check(&input(IPHONE_UA, "Linux x86_64", "UTC", "en-US"));
        assert!(w[0].message.contains("iOS"), "{w:?}");
    }

    #[test]
    fn geolocation_far_from_the_zone_is_named() {
        let mut i = input(LINUX_UA, "Linux x86_64", "Asia/Tokyo", "ja-JP");
        i.geo = Some((52.52, 13.40)); // Berlin
        let w = check(&i);
        assert_eq!(kinds(&w), ["geo_timezone"]);
        assert!(w[0].message.contains("Tokyo"), "{w:?}");
        i.geo = Some((34.69, 135.50)); // Osaka
        assert!(check(&i).is_empty());
    }

    #[test]
    fn accept_language_and_languages_must_match_the_locale() {
        let mut i = input(LINUX_UA, "Linux x86_64", "UTC", "de-DE");
        i.facts.languages = vec!["en-US".into(), "en".into()];
        i.accept_language = Some("fr-FR,fr;q=0.8".into());
        assert_eq!(
            kinds(&check(&i)),
            ["language_locale", "accept_language_locale"]
        );
        i.facts.languages = vec!["de".into()];
        i.accept_language = Some("de".into());
        assert!(check(&i).is_empty());
    }

    #[test]
    fn the_proxy_country_is_compared_when_known() {
        let mut i = input(LINUX_UA, "Linux x86_64", "Europe/Paris", "fr-FR");
        i.proxy_country = Some("US".into());
        assert_eq!(kinds(&check(&i)), ["proxy_timezone", "proxy_locale"]);
        i.proxy_country = Some("not a country".into());
        assert!(check(&i).is_empty());
    }

    #[test]
    fn unknown_zones_locales_and_platforms_say_nothing() {
        for (ua, platform, tz, locale) in [
            (LINUX_UA, "Linux x86_64", "UTC", "de-DE"),
            (LINUX_UA, "Linux x86_64", "Etc/GMT+5", "ja-JP"),
            (LINUX_UA, "Linux x86_64", "Asia/Tokyo", "de"),
            (LINUX_UA, "Linux x86_64", "Asia/Tokyo", "es-419"),
            ("curl/8", "Linux x86_64", "", ""),
            (WINDOWS_UA, "", "", ""),
            ("", "", "", ""),
        ] {
            let mut i = input(ua, platform, tz, locale);
            i.facts.languages.clear();
            assert!(
                check(&i).is_empty(),
                "{ua} {platform} {tz} {locale}: {:?}",
                check(&i)
            );
        }
    }

    #[test]
    fn every_zone_is_sane() {
        for z in ZONES {
            assert_eq!(z.country.len(), 2, "{}", z.name);
            assert!((-90.0..=90.0).contains(&z.lat) && (-180.0..=180.0).contains(&z.lon));
            assert!(z.radius_km >= 300.0, "{}", z.name);
        }
        let km = distance_km((35.68, 139.69), (52.52, 13.40));
        assert!((8800.0..9100.0).contains(&km), "{km}");
    }
}
