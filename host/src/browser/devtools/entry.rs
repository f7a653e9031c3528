//! What the network capture records of one request (shared by the ring,
//! `network`, HAR export and the debug bundle).
//!
//! Entries hold what the browser said, secrets included; every output
//! masks them through `redact::request`. A new field that can hold a URL
//! or page-controlled text needs its line there (a test fails until it
//! has one).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One header as the browser reported it (order and repeats kept).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Header {
    pub name: String,
    pub value: String,
}

/// CDP's `Network.ResourceTiming`: `request_time` in seconds (monotonic
/// clock), the rest in milliseconds after it; -1 when a phase did not
/// happen (a reused connection has no DNS or connect phase).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Timing {
    pub request_time: f64,
    pub dns_start: f64,
    pub dns_end: f64,
    pub connect_start: f64,
    pub connect_end: f64,
    pub ssl_start: f64,
    pub ssl_end: f64,
    pub send_start: f64,
    pub send_end: f64,
    pub receive_headers_end: f64,
}

/// One request a tab made, as far as it got.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Request {
    /// Position in the tab's ring (`network --since SEQ`).
    pub seq: u64,
    /// The browser's request id (`network body ID`).
    pub id: String,
    pub tab: String,
    pub method: String,
    pub url: String,
    /// Lowercase CDP resource type: document, stylesheet, image, media,
    /// font, script, xhr, fetch, websocket, manifest, other, …
    #[serde(rename = "type")]
    pub resource_type: String,
    /// Wall-clock start, seconds since the Unix epoch.
    pub started: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub request_headers: Vec<Header>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post_data: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// e.g. `http/1.1`, `h2`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_address: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub response_headers: Vec<Header>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
    /// Bytes on the wire (headers and body, as received).
    #[serde(default)]
    pub transfer_bytes: u64,
    /// Decoded body bytes.
    #[serde(default)]
    pub body_bytes: u64,
    #[serde(default)]
    pub from_cache: bool,
    /// Start to the last byte (or the failure), milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    /// Why it failed (`net::ERR_…`, blocked, aborted by a route).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
    /// Refused by the session's domain policy: why, naming the rule; or,
    /// for a WebSocket the page's guard missed, that it escaped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked: Option<String>,
    /// Who started it: `parser URL:LINE`, `script URL:LINE`, `other`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initiator: Option<String>,
    /// Still waiting for its answer or its body.
    #[serde(default)]
    pub pending: bool,
}
