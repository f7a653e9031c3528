//! Emulation: what a session's tabs pretend to be (viewport, device, place,
//! network, color scheme, user agent, time zone, locale). Settings are
//! session-wide: `set …` applies them to every tab now and every tab opened
//! later.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::devices::Device;
use crate::error::ApiError;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Viewport {
    pub width: u32,
    pub height: u32,
    pub scale: f64,
    pub mobile: bool,
    pub touch: bool,
}

/// A session's emulation state (what `inspect` shows, what new tabs get).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Emulation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewport: Option<Viewport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<String>,
    /// Latitude, longitude (degrees).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geo: Option<(f64, f64)>,
    #[serde(default)]
    pub offline: bool,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// `dark` or `light`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    /// The browser's own user agent, read when a locale needs one to
    /// override (CDP sets the language only with a user agent).
    #[serde(skip)]
    pub base_user_agent: Option<String>,
}

/// One `set …` command's change.
#[derive(Debug, Clone)]
pub enum Setting {
    Viewport { width: u32, height: u32, scale: f64 },
    Device(&'static Device),
    Geo { latitude: f64, longitude: f64 },
    Offline(bool),
    Headers(BTreeMap<String, String>),
    Media(String),
    UserAgent(String),
    Timezone(String),
    Locale(String),
}

/// Which CDP state a setting touches (a locale changes the user agent's
/// language and the Accept-Language header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    Metrics,
    Agent,
    Geo,
    Network,
    Media,
    Timezone,
}

const ALL: [Group; 6] = [
    Group::Metrics,
    Group::Agent,
    Group::Geo,
    Group::Network,
    Group::Media,
    Group::Timezone,
];

/// One CDP call: method and params.
pub type Call = (&'static str, Value);

impl Setting {
    /// Checks the values a browser would refuse or misread.
    pub fn check(&self) -> Result<(), ApiError> {
        match self {
            Setting::Viewport {
                width,
                height,
                scale,
            } => {
                for (what, v) in [("width", width), ("height", height)] {
                    if !(1..=16_384).contains(v) {
                        return Err(ApiError::invalid(format!(
                            "viewport {what} {v} is outside 1 to 16384"
                        )));
                    }
                }
                if !(scale.is_finite() && *scale > 0.0 && *scale <= 8.0) {
                    return Err(ApiError::invalid(format!(
                        "--scale {scale} is outside (0, 8]"
                    )));
                }
            }
            Setting::Geo {
                latitude,
                longitude,
            } => {
                if !(latitude.is_finite() && (-90.0..=90.0).contains(latitude)) {
                    return Err(ApiError::invalid(format!(
                        "latitude {latitude} is outside -90 to 90"
                    )));
                }
                if !(longitude.is_finite() && (-180.0..=180.0).contains(longitude)) {
                    return Err(ApiError::invalid(format!(
                        "longitude {longitude} is outside -180 to 180"
                    )));
                }
            }
            Setting::Headers(headers) => {
                for (name, value) in headers {
                    let valid = !name.is_empty()
                        && name
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
                    if !valid {
                        return Err(ApiError::invalid(format!("{name:?} is not a header name")));
                    }
                    if value.chars().any(|c| c == '\r' || c == '\n' || c == '\0') {
                        return Err(ApiError::invalid(format!(
                            "header {name}: the value has a line break or NUL"
                        )));
                    }
                }
            }
            Setting::Media(m) => {
                if m != "dark" && m != "light" {
                    return Err(ApiError::invalid(format!("media {m:?}: say dark or light")));
                }
            }
            Setting::UserAgent(ua) => {
                if ua.trim().is_empty() || ua.chars().any(char::is_control) {
                    return Err(ApiError::invalid(
                        "the user agent is empty or has control characters",
                    ));
                }
            }
            Setting::Timezone(tz) => {
                let valid = !tz.is_empty()
                    && tz.len() <= 64
                    && tz
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"/_-+".contains(&b));
                if !valid {
                    return Err(ApiError::invalid(format!(
                        "{tz:?} is not a time zone (an IANA name such as Europe/Berlin)"
                    )));
                }
            }
            Setting::Locale(l) => {
                let mut parts = l.split(['-', '_']);
                let lang = parts.next().unwrap_or_default();
                let valid = (2..=3).contains(&lang.len())
                    && lang.bytes().all(|b| b.is_ascii_alphabetic())
                    && parts.all(|p| {
                        (2..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric())
                    });
                if !valid {
                    return Err(ApiError::invalid(format!(
                        "{l:?} is not a locale (a BCP 47 tag such as de-DE)"
                    )));
                }
            }
            Setting::Device(_) | Setting::Offline(_) => {}
        }
        Ok(())
    }

    fn groups(&self) -> &'static [Group] {
        match self {
            Setting::Viewport { .. } => &[Group::Metrics],
            Setting::Device(_) => &[Group::Metrics, Group::Agent],
            Setting::Geo { .. } => &[Group::Geo],
            Setting::Offline(_) | Setting::Headers(_) => &[Group::Network],
            Setting::Media(_) => &[Group::Media],
            Setting::UserAgent(_) => &[Group::Agent],
            Setting::Timezone(_) => &[Group::Timezone],
            Setting::Locale(_) => &[Group::Agent, Group::Network],
        }
    }
}

impl Emulation {
    /// This state with `setting` applied (the caller keeps it once every
    /// tab took it).
    pub fn with(&self, setting: &Setting) -> Emulation {
        let mut next = self.clone();
        match setting.clone() {
            Setting::Viewport {
                width,
                height,
                scale,
            } => {
                let (mobile, touch) = next
                    .viewport
                    .as_ref()
                    .map_or((false, false), |v| (v.mobile, v.touch));
                next.viewport = Some(Viewport {
                    width,
                    height,
                    scale,
                    mobile,
                    touch,
                });
            }
            Setting::Device(d) => {
                next.device = Some(d.name.to_string());
                next.viewport = Some(Viewport {
                    width: d.width,
                    height: d.height,
                    scale: d.scale,
                    mobile: d.mobile,
                    touch: d.touch,
                });
                next.user_agent = Some(d.user_agent.to_string());
            }
            Setting::Geo {
                latitude,
                longitude,
            } => next.geo = Some((latitude, longitude)),
            Setting::Offline(on) => next.offline = on,
            Setting::Headers(h) => next.headers = h,
            Setting::Media(m) => next.media = Some(m),
            Setting::UserAgent(ua) => next.user_agent = Some(ua),
            Setting::Timezone(tz) => next.timezone = Some(tz),
            Setting::Locale(l) => next.locale = Some(l),
        }
        next
    }

    /// The calls that bring a tab to this state for what `setting` touches.
    pub fn calls_for(&self, setting: &Setting) -> Vec<Call> {
        setting
            .groups()
            .iter()
            .flat_map(|g| self.group_calls(*g))
            .collect()
    }

    /// Every call a new tab needs (nothing for defaults).
    pub fn calls(&self) -> Vec<Call> {
        let network = self.offline || !self.headers.is_empty() || self.locale.is_some();
        ALL.iter()
            .filter(|g| **g != Group::Network || network)
            .flat_map(|g| self.group_calls(*g))
            .collect()
    }

    /// Whether a locale needs the browser's own user agent first.
    pub fn needs_base_agent(&self) -> bool {
        self.locale.is_some() && self.user_agent.is_none() && self.base_user_agent.is_none()
    }

    fn group_calls(&self, group: Group) -> Vec<Call> {
        match group {
            Group::Metrics => match &self.viewport {
                Some(v) => vec![
                    (
                        "Emulation.setDeviceMetricsOverride",
                        json!({
                            "width": v.width, "height": v.height,
                            "deviceScaleFactor": v.scale, "mobile": v.mobile,
                        }),
                    ),
                    (
                        "Emulation.setTouchEmulationEnabled",
                        json!({ "enabled": v.touch, "maxTouchPoints": if v.touch { 5 } else { 1 } }),
                    ),
                ],
                None => vec![],
            },
            Group::Agent => {
                let agent = self.user_agent.clone().or(self.base_user_agent.clone());
                let mut calls = Vec::new();
                if let Some(agent) = agent {
                    let mut params = json!({ "userAgent": agent });
                    if let Some(l) = &self.locale {
                        params["acceptLanguage"] = json!(l);
                    }
                    calls.push(("Emulation.setUserAgentOverride", params));
                }
                if let Some(l) = &self.locale {
                    calls.push(("Emulation.setLocaleOverride", json!({ "locale": l })));
                }
                calls
            }
            Group::Geo => match self.geo {
                Some((latitude, longitude)) => vec![(
                    "Emulation.setGeolocationOverride",
                    json!({ "latitude": latitude, "longitude": longitude, "accuracy": 10 }),
                )],
                None => vec![],
            },
            Group::Network => {
                let mut headers: serde_json::Map<String, Value> = self
                    .headers
                    .iter()
                    .map(|(k, v)| (k.clone(), json!(v)))
                    .collect();
                if let Some(l) = &self.locale
                    && !self
                        .headers
                        .keys()
                        .any(|k| k.eq_ignore_ascii_case("accept-language"))
                {
                    headers.insert("Accept-Language".into(), json!(l));
                }
                vec![
                    (
                        "Network.emulateNetworkConditions",
                        json!({ "offline": self.offline, "latency": 0,
                                "downloadThroughput": -1, "uploadThroughput": -1 }),
                    ),
                    ("Network.setExtraHTTPHeaders", json!({ "headers": headers })),
                ]
            }
            Group::Media => match &self.media {
                Some(m) => vec![(
                    "Emulation.setEmulatedMedia",
                    json!({ "features": [{ "name": "prefers-color-scheme", "value": m }] }),
                )],
                None => vec![],
            },
            Group::Timezone => match &self.timezone {
                Some(tz) => vec![("Emulation.setTimezoneOverride", json!({ "timezoneId": tz }))],
                None => vec![],
            },
        }
    }

    /// Whether a new tab needs any call (defaults need none).
    pub fn is_default(&self) -> bool {
        *self
            == Emulation {
                base_user_agent: self.base_user_agent.clone(),
                ..Emulation::default()
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_checked() {
        let bad = [
            Setting::Viewport {
                width: 0,
                height: 10,
                scale: 1.0,
            },
            Setting::Viewport {
                width: 10,
                height: 10,
                scale: f64::NAN,
            },
            Setting::Geo {
                latitude: 91.0,
                longitude: 0.0,
            },
            Setting::Geo {
                latitude: 0.0,
                longitude: -181.0,
            },
            Setting::Media("sepia".into()),
            Setting::Timezone("Mars/Olympus Mons".into()),
            Setting::Locale("english".into()),
            Setting::UserAgent(" ".into()),
            Setting::Headers([("Bad Name".to_string(), "x".to_string())].into()),
            Setting::Headers([("X".to_string(), "a\r\nb: c".to_string())].into()),
        ];
        for s in bad {
            assert!(s.check().is_err(), "{s:?}");
        }
        assert!(Setting::Locale("de-DE".into()).check().is_ok());
        assert!(
            Setting::Timezone("America/Argentina/Buenos_Aires".into())
                .check()
                .is_ok()
        );
    }

    #[test]
    fn a_locale_sets_language_header_and_agent() {
        let mut e = Emulation::default().with(&Setting::Locale("de-DE".into()));
        assert!(e.needs_base_agent());
        e.base_user_agent = Some("UA".into());
        let calls = e.calls_for(&Setting::Locale("de-DE".into()));
        let methods: Vec<_> = calls.iter().map(|(m, _)| *m).collect();
        assert!(methods.contains(&"Emulation.setUserAgentOverride"));
        assert!(methods.contains(&"Emulation.setLocaleOverride"));
        let headers = calls
            .iter()
            .find(|(m, _)| *m == "Network.setExtraHTTPHeaders")
            .map(|(_, p)| p.clone())
            .unwrap_or_default();
        assert_eq!(headers["headers"]["Accept-Language"], "de-DE");
    }

    #[test]
    fn defaults_need_no_calls_and_a_viewport_keeps_the_device_kind() {
        assert!(Emulation::default().is_default());
        let d = Setting::Viewport {
            width: 400,
            height: 300,
            scale: 2.0,
        };
        let e = Emulation::default().with(&d);
        assert!(!e.is_default());
        assert_eq!(e.calls_for(&d).len(), 2);
    }
}
