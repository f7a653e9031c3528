//! The device table behind `set device NAME`: viewport, scale, touch and
//! user agent of common phones, tablets and desktops.
//!
//! Owns the data and the name lookup; applying a device to a tab (CDP
//! emulation calls) belongs to the caller.
//!
//! Values are Playwright's device descriptors
//! (`packages/playwright-core/src/server/deviceDescriptorsSource.json`,
//! playwright-core 1.64, Apache-2.0, © Microsoft Corporation), portrait
//! variants only. Galaxy S9+ is left out: its 4.5 scale factor is an outlier
//! that the Galaxy S24 replaces as the current Samsung flagship.

/// One emulated device.
#[derive(Debug, Clone, PartialEq)]
pub struct Device {
    /// Display name, as Playwright spells it.
    pub name: &'static str,
    /// Viewport in CSS pixels.
    pub width: u32,
    pub height: u32,
    /// Device pixels per CSS pixel.
    pub scale: f64,
    /// Mobile viewport (meta viewport honoured, overlay scrollbars).
    pub mobile: bool,
    /// Touch events instead of (besides) the mouse.
    pub touch: bool,
    pub user_agent: &'static str,
}

const IOS_16: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1";
const IOS_17: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1";
const IOS_18: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1";
const IPAD: &str = "Mozilla/5.0 (iPad; CPU OS 12_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1";
const DESKTOP_CHROME: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/154.0.8037.0 Safari/537.36";

const fn phone(
    name: &'static str,
    width: u32,
    height: u32,
    scale: f64,
    user_agent: &'static str,
) -> Device {
    Device {
        name,
        width,
        height,
        scale,
        mobile: true,
        touch: true,
        user_agent,
    }
}

const fn desktop(name: &'static str, scale: f64) -> Device {
    Device {
        name,
        width: 1280,
        height: 720,
        scale,
        mobile: false,
        touch: false,
        user_agent: DESKTOP_CHROME,
    }
}

/// Every known device, phones first, then tablets, then desktops.
pub static DEVICES: &[Device] = &[
    phone(
        "iPhone SE",
        320,
        568,
        2.0,
        "Mozilla/5.0 (iPhone; CPU iPhone OS 10_3_1 like Mac OS X) AppleWebKit/603.1.30 (KHTML, like Gecko) Version/26.6 Mobile/14E304 Safari/602.1",
    ),
    phone(
        "iPhone SE (3rd gen)",
        375,
        667,
        2.0,
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/603.1.30 (KHTML, like Gecko) Version/26.6 Mobile/19E241 Safari/602.1",
    ),
    phone(
        "iPhone 12",
        390,
        664,
        3.0,
        "Mozilla/5.0 (iPhone; CPU iPhone OS 14_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1",
    ),
    phone(
        "iPhone 12 Pro",
        390,
        664,
        3.0,
        "Mozilla/5.0 (iPhone; CPU iPhone OS 14_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1",
    ),
    phone(
        "iPhone 12 Pro Max",
        428,
        746,
        3.0,
        "Mozilla/5.0 (iPhone; CPU iPhone OS 14_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1",
    ),
    phone(
        "iPhone 13",
        390,
        664,
        3.0,
        "Mozilla/5.0 (iPhone; CPU iPhone OS 15_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1",
    ),
    phone(
        "iPhone 13 Pro",
        390,
        664,
        3.0,
        "Mozilla/5.0 (iPhone; CPU iPhone OS 15_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1",
    ),
    phone(
        "iPhone 13 Pro Max",
        428,
        746,
        3.0,
        "Mozilla/5.0 (iPhone; CPU iPhone OS 15_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1",
    ),
    phone("iPhone 14", 390, 664, 3.0, IOS_16),
    phone("iPhone 14 Plus", 428, 746, 3.0, IOS_16),
    phone("iPhone 14 Pro", 393, 660, 3.0, IOS_16),
    phone("iPhone 14 Pro Max", 430, 740, 3.0, IOS_16),
    phone("iPhone 15", 393, 659, 3.0, IOS_17),
    phone("iPhone 15 Plus", 430, 739, 3.0, IOS_17),
    phone("iPhone 15 Pro", 393, 659, 3.0, IOS_17),
    phone("iPhone 15 Pro Max", 430, 739, 3.0, IOS_17),
    phone("iPhone 16", 393, 659, 3.0, IOS_18),
    phone("iPhone 16 Pro", 402, 681, 3.0, IOS_18),
    phone("iPhone 16 Pro Max", 440, 763, 3.0, IOS_18),
    phone(
        "Pixel 5",
        393,
        727,
        2.75,
        "Mozilla/5.0 (Linux; Android 11; Pixel 5) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/154.0.8037.0 Mobile Safari/537.36",
    ),
    phone(
        "Pixel 7",
        412,
        839,
        2.625,
        "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/154.0.8037.0 Mobile Safari/537.36",
    ),
    phone(
        "Pixel 8",
        412,
        839,
        2.625,
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/154.0.8037.0 Mobile Safari/537.36",
    ),
    phone(
        "Galaxy S8",
        360,
        740,
        3.0,
        "Mozilla/5.0 (Linux; Android 7.0; SM-G950U Build/NRD90M) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/154.0.8037.0 Mobile Safari/537.36",
    ),
    phone(
        "Galaxy S24",
        360,
        780,
        3.0,
        "Mozilla/5.0 (Linux; Android 14; SM-S921U) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/154.0.8037.0 Mobile Safari/537.36",
    ),
    phone(
        "Galaxy A55",
        480,
        1040,
        2.25,
        "Mozilla/5.0 (Linux; Android 14; SM-A556B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/154.0.8037.0 Mobile Safari/537.36",
    ),
    phone("iPad (gen 7)", 810, 1080, 2.0, IPAD),
    phone("iPad Mini", 768, 1024, 2.0, IPAD),
    phone("iPad Pro 11", 834, 1194, 2.0, IPAD),
    phone(
        "Galaxy Tab S4",
        712,
        1138,
        2.25,
        "Mozilla/5.0 (Linux; Android 8.1.0; SM-T837A) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/154.0.8037.0 Safari/537.36",
    ),
    phone(
        "Galaxy Tab S9",
        640,
        1024,
        2.5,
        "Mozilla/5.0 (Linux; Android 14; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/154.0.8037.0 Safari/537.36",
    ),
    desktop("Desktop Chrome", 1.0),
    desktop("Desktop Chrome HiDPI", 2.0),
];

/// The device called `name`, ignoring case, spaces and punctuation
/// (`iphone-14-pro` and `iPad_gen_7` both work). A miss names up to five
/// close names.
pub fn find(name: &str) -> Result<&'static Device, String> {
    let wanted = normalize(name);
    if let Some(device) = DEVICES.iter().find(|d| normalize(d.name) == wanted) {
        return Ok(device);
    }
    let mut scored: Vec<(f64, &'static str)> = DEVICES
        .iter()
        .map(|d| {
            let candidate = normalize(d.name);
            let mut score = strsim::jaro_winkler(&wanted, &candidate);
            if !wanted.is_empty() && candidate.contains(&wanted) {
                score += 1.0;
            }
            (score, d.name)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let close: Vec<&str> = scored
        .iter()
        .filter(|(score, _)| *score >= 0.7)
        .take(5)
        .map(|(_, name)| *name)
        .collect();
    let mut message = format!("unknown device {name:?}");
    if !close.is_empty() {
        message.push_str(&format!("; did you mean: {}", close.join(", ")));
    }
    message.push_str(" (`webrig set device --list` lists all)");
    Err(message)
}

/// All device names, in table order.
pub fn names() -> impl Iterator<Item = &'static str> {
    DEVICES.iter().map(|d| d.name)
}

/// Lowercase letters and digits only: what users type varies in spacing
/// and punctuation, never in those.
fn normalize(name: &str) -> String {
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn lookup_ignores_case_spaces_dashes_and_underscores() {
        for (typed, expected) in [
            ("iPhone 14 Pro", "iPhone 14 Pro"),
            ("iphone-14-pro", "iPhone 14 Pro"),
            ("IPHONE_14_PRO", "iPhone 14 Pro"),
            ("iphone14pro", "iPhone 14 Pro"),
            ("  pixel 7 ", "Pixel 7"),
            ("ipad-gen-7", "iPad (gen 7)"),
            ("desktop chrome hidpi", "Desktop Chrome HiDPI"),
            ("iphone se 3rd gen", "iPhone SE (3rd gen)"),
        ] {
            assert_eq!(find(typed).map(|d| d.name), Ok(expected), "{typed}");
        }
    }

    #[test]
    fn lookup_is_exact_not_prefix() {
        assert_eq!(find("iPhone 14").map(|d| d.name), Ok("iPhone 14"));
        assert_eq!(find("iPhone 15 Pro").map(|d| d.name), Ok("iPhone 15 Pro"));
        assert!(find("iPhone 1").is_err());
    }

    #[test]
    fn looked_up_values_match_the_table() {
        let d = find("pixel-7").expect("Pixel 7 is in the table");
        assert_eq!((d.width, d.height, d.scale), (412, 839, 2.625));
        assert!(d.mobile && d.touch);
        assert!(d.user_agent.contains("Pixel 7"));
        let d = find("Desktop Chrome").expect("Desktop Chrome is in the table");
        assert_eq!(
            (d.width, d.height, d.scale, d.mobile, d.touch),
            (1280, 720, 1.0, false, false)
        );
    }

    #[test]
    fn miss_suggests_close_names() {
        let err = find("iphone 14 pro maks").expect_err("no such device");
        assert!(
            err.contains("unknown device \"iphone 14 pro maks\""),
            "{err}"
        );
        assert!(err.contains("iPhone 14 Pro Max"), "{err}");
        assert!(err.contains("webrig set device --list"), "{err}");
        let err = find("galaxy").expect_err("no such device");
        assert!(
            err.contains("Galaxy S24") && err.contains("Galaxy Tab S9"),
            "{err}"
        );
        let suggested = err.split("did you mean: ").nth(1).unwrap_or("");
        assert!(suggested.split(", ").count() <= 5, "{err}");
    }

    #[test]
    fn miss_with_nothing_close_still_says_how_to_list() {
        for typed in ["toaster", "", "🙂", "-_- "] {
            let err = find(typed).expect_err("no such device");
            assert!(err.contains("webrig set device --list"), "{err}");
        }
    }

    #[test]
    fn every_entry_is_sane() {
        assert!(DEVICES.len() >= 20);
        for d in DEVICES {
            assert!(d.width > 0 && d.height > 0, "{}", d.name);
            assert!((1.0..=4.0).contains(&d.scale), "{}", d.name);
            assert!(
                !d.mobile || d.touch,
                "{}: mobile devices have touch",
                d.name
            );
            assert!(d.user_agent.starts_with("Mozilla/5.0 ("), "{}", d.name);
            assert_eq!(d.name.trim(), d.name);
            if d.mobile {
                assert!(d.height > d.width, "{}: portrait", d.name);
            }
        }
    }

    #[test]
    fn normalized_names_are_unique_and_all_findable() {
        let mut seen = HashSet::new();
        for name in names() {
            assert!(seen.insert(normalize(name)), "duplicate {name}");
            assert_eq!(find(name).map(|d| d.name), Ok(name));
        }
        assert_eq!(seen.len(), DEVICES.len());
    }
}
