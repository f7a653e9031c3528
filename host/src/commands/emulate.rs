//! Emulation commands: `set viewport|device|geo|offline|headers|media|
//! user-agent|timezone|locale`. Each applies to every tab of the session and
//! to tabs opened later; a value the browser refuses changes nothing.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{Command, Cx, Scope};
use crate::browser::cdp::CdpError;
use crate::browser::devtools::{Emulation, Setting, devices};
use crate::error::ApiError;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct EmulationOut {
    /// The session's emulation now.
    pub emulation: Emulation,
    /// Tabs it was applied to.
    pub tabs: usize,
    /// `set device --list`: the known devices.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<String>,
    /// Where the browser now contradicts itself (a time zone against the
    /// locale, a Windows agent on a Linux platform, …): a site may notice.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<crate::browser::signals::Warning>,
}

fn human(out: &EmulationOut) -> String {
    if !out.devices.is_empty() {
        return out.devices.join("\n");
    }
    let e = serde_json::to_value(&out.emulation).unwrap_or_default();
    let parts: Vec<String> = e
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, v)| !(k.as_str() == "offline" && **v == json!(false)))
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    let what = if parts.is_empty() {
        "defaults".to_string()
    } else {
        parts.join(", ")
    };
    let mut text = format!("{what} (on {} tabs)", out.tabs);
    for w in &out.warnings {
        text.push_str(&format!("\nwarning: {}", w.message));
    }
    text
}

/// Applies `setting` to every tab: the active tab first, so a value the
/// browser refuses fails there and nothing is kept.
async fn apply(cx: &mut Cx, setting: Setting) -> Result<EmulationOut, ApiError> {
    setting.check()?;
    let session = cx.session()?;
    let shared = session.devtools().clone();
    let relay = session.is_relay();
    let active = session.tab(None).await?;
    let mut tabs = session.all_tabs();
    tabs.sort_by_key(|t| t.id() != active.id());
    let mut next = shared.emulation().with(&setting);
    if next.needs_base_agent() {
        let ua = active.eval("navigator.userAgent").await?;
        next.base_user_agent = ua.as_str().map(str::to_string);
    }
    if let Setting::Geo { .. } = setting
        && !relay
    {
        // The page may read the position without a prompt. Not in the
        // user's own browser: that stays the user's decision.
        let _ = active
            .cdp()
            .connection()
            .call(
                None,
                "Browser.grantPermissions",
                json!({ "permissions": ["geolocation"] }),
            )
            .await;
    }
    let calls = shared.emulation_calls(next.calls_for(&setting));
    for (i, tab) in tabs.iter().enumerate() {
        for (method, params) in &calls {
            match tab.cdp().call(method, params.clone()).await {
                Ok(_) => {}
                Err(CdpError::Protocol { message, .. }) if i == 0 => {
                    // Put back what this tab had for the same setting.
                    for (m, p) in shared.emulation_calls(shared.emulation().calls_for(&setting)) {
                        let _ = tab.cdp().call(m, p).await;
                    }
                    return Err(ApiError::invalid(format!(
                        "the browser refused it: {message}"
                    )));
                }
                Err(e) => return Err(e.into()),
            }
        }
    }
    *shared.emulation.lock().unwrap_or_else(|e| e.into_inner()) = next.clone();
    shared.signals.refresh(&active).await;
    Ok(EmulationOut {
        warnings: shared.signals.warnings(&next),
        emulation: next,
        tabs: tabs.len(),
        devices: Vec::new(),
    })
}

macro_rules! setting_command {
    ($ty:ident, $name:literal, $about:literal, |$me:ident| $make:expr) => {
        impl Command for $ty {
            const NAME: &'static str = $name;
            const ABOUT: &'static str = $about;
            const SCOPE: Scope = Scope::SessionCreate;
            type Output = EmulationOut;

            async fn run(self, mut cx: Cx) -> Result<EmulationOut, ApiError> {
                let $me = self;
                let setting: Setting = $make?;
                apply(&mut cx, setting).await
            }

            fn human(out: &EmulationOut) -> String {
                human(out)
            }
        }
    };
}

/// Set the viewport size (CSS pixels) and pixel ratio.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetViewport {
    pub width: u32,
    pub height: u32,
    /// Device pixel ratio (default 1).
    #[arg(long)]
    pub scale: Option<f64>,
}

setting_command!(
    SetViewport,
    "set viewport",
    "Set the viewport size (and --scale) for the session's tabs",
    |me| Ok::<_, ApiError>(Setting::Viewport {
        width: me.width,
        height: me.height,
        scale: me.scale.unwrap_or(1.0),
    })
);

/// Emulate a phone, tablet or desktop: viewport, pixel ratio, touch, user agent.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetDevice {
    /// A device name, e.g. "iPhone 14" or pixel-7 (--list shows all).
    #[arg(required_unless_present = "list")]
    pub name: Option<String>,
    /// List the known devices instead.
    #[arg(long)]
    #[serde(default)]
    pub list: bool,
}

impl Command for SetDevice {
    const NAME: &'static str = "set device";
    const ABOUT: &'static str = "Emulate a device (viewport, pixel ratio, touch, user agent)";
    const SCOPE: Scope = Scope::SessionCreate;
    type Output = EmulationOut;

    async fn run(self, mut cx: Cx) -> Result<EmulationOut, ApiError> {
        if self.list {
            return Ok(EmulationOut {
                emulation: cx.session()?.devtools().emulation(),
                tabs: 0,
                devices: devices::names().map(str::to_string).collect(),
                warnings: Vec::new(),
            });
        }
        let name = self.name.unwrap_or_default();
        let device = devices::find(&name).map_err(ApiError::invalid)?;
        apply(&mut cx, Setting::Device(device)).await
    }

    fn human(out: &EmulationOut) -> String {
        human(out)
    }
}

/// Pretend to be at a place (the page's geolocation).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetGeo {
    /// Latitude in degrees (-90 to 90).
    #[arg(allow_negative_numbers = true)]
    pub latitude: f64,
    /// Longitude in degrees (-180 to 180).
    #[arg(allow_negative_numbers = true)]
    pub longitude: f64,
}

setting_command!(
    SetGeo,
    "set geo",
    "Set the geolocation the session's pages see",
    |me| Ok::<_, ApiError>(Setting::Geo {
        latitude: me.latitude,
        longitude: me.longitude,
    })
);

#[derive(Debug, Clone, Copy, clap::ValueEnum, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OnOff {
    On,
    Off,
}

/// Cut the session's pages off the network (or back on).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetOffline {
    #[arg(value_enum)]
    pub state: OnOff,
}

setting_command!(
    SetOffline,
    "set offline",
    "Take the session's pages offline (on) or back online (off)",
    |me| Ok::<_, ApiError>(Setting::Offline(matches!(me.state, OnOff::On)))
);

/// Send extra HTTP headers with every request ({} clears them).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetHeaders {
    /// A JSON object of header names to values, e.g. '{"X-Debug": "1"}'.
    pub json: String,
}

setting_command!(
    SetHeaders,
    "set headers",
    "Send extra HTTP headers with the session's requests",
    |me| serde_json::from_str::<BTreeMap<String, String>>(&me.json)
        .map(Setting::Headers)
        .map_err(|e| ApiError::invalid(format!("headers must be a JSON object of strings: {e}")))
);

/// Emulate the dark or light color scheme.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetMedia {
    /// dark or light.
    pub scheme: String,
}

setting_command!(
    SetMedia,
    "set media",
    "Emulate prefers-color-scheme: dark or light",
    |me| Ok::<_, ApiError>(Setting::Media(me.scheme))
);

/// Send this user agent (navigator.userAgent and the header).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetUserAgent {
    pub user_agent: String,
}

setting_command!(
    SetUserAgent,
    "set user-agent",
    "Set the user agent the session's pages and servers see",
    |me| Ok::<_, ApiError>(Setting::UserAgent(me.user_agent))
);

/// Set the time zone (IANA name).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetTimezone {
    /// e.g. Europe/Berlin, America/New_York, UTC.
    pub timezone: String,
}

setting_command!(
    SetTimezone,
    "set timezone",
    "Set the time zone the session's pages see",
    |me| Ok::<_, ApiError>(Setting::Timezone(me.timezone))
);

/// Set the locale (navigator.language, Intl, Accept-Language).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetLocale {
    /// A BCP 47 tag, e.g. de-DE.
    pub locale: String,
}

setting_command!(
    SetLocale,
    "set locale",
    "Set the locale (language, formats, Accept-Language)",
    |me| Ok::<_, ApiError>(Setting::Locale(me.locale))
);
