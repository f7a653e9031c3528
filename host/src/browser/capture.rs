//! Screenshots and PDFs: what the browser renders, as bytes.
//!
//! Owns clip computation (viewport, full page, one element). Writing the bytes
//! to disk is `artifacts`' job.

use base64::Engine;
use serde_json::{Value, json};

use super::read::on_element;
use super::tab::Tab;
use crate::error::ApiError;

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum ImageFormat {
    #[default]
    Png,
    Jpeg,
    Webp,
}

impl ImageFormat {
    pub fn extension(self) -> &'static str {
        match self {
            ImageFormat::Png => "png",
            ImageFormat::Jpeg => "jpg",
            ImageFormat::Webp => "webp",
        }
    }
}

pub enum Area<'a> {
    Viewport,
    FullPage,
    /// An element (ref, locator or CSS selector), found by the deadline.
    Element(&'a str, tokio::time::Instant),
}

pub async fn screenshot(
    tab: &Tab,
    area: Area<'_>,
    format: ImageFormat,
    quality: Option<u8>,
) -> Result<Vec<u8>, ApiError> {
    let mut params = json!({ "format": format!("{format:?}").to_lowercase() });
    if let (Some(q), ImageFormat::Jpeg | ImageFormat::Webp) = (quality, format) {
        params["quality"] = json!(q.min(100));
    }
    match area {
        Area::Viewport => {}
        Area::FullPage => {
            let metrics = tab.call("Page.getLayoutMetrics", json!({})).await?;
            let size = &metrics["cssContentSize"];
            params["clip"] = json!({
                "x": 0, "y": 0,
                "width": size["width"].as_f64().unwrap_or(1280.0).ceil(),
                "height": size["height"].as_f64().unwrap_or(800.0).ceil(),
                "scale": 1,
            });
            params["captureBeyondViewport"] = json!(true);
        }
        Area::Element(selector, deadline) => {
            let rect = on_element(
                tab,
                Some(selector),
                "el.scrollIntoView({block: 'center', inline: 'center'}); \
                 const r = el.getBoundingClientRect(); \
                 return [r.x + scrollX, r.y + scrollY, r.width, r.height]",
                Value::Null,
                deadline,
            )
            .await?;
            let n = |i: usize| rect[i].as_f64().unwrap_or(0.0);
            if n(2) < 1.0 || n(3) < 1.0 {
                return Err(ApiError::invalid(format!(
                    "{selector:?} has no visible size to capture"
                )));
            }
            params["clip"] =
                json!({ "x": n(0), "y": n(1), "width": n(2), "height": n(3), "scale": 1 });
            params["captureBeyondViewport"] = json!(true);
        }
    }
    let reply = tab.call("Page.captureScreenshot", params).await?;
    decode(&reply)
}

pub async fn pdf(tab: &Tab, landscape: bool) -> Result<Vec<u8>, ApiError> {
    let reply = tab
        .call(
            "Page.printToPDF",
            json!({ "printBackground": true, "landscape": landscape }),
        )
        .await?;
    decode(&reply)
}

fn decode(reply: &Value) -> Result<Vec<u8>, ApiError> {
    let data = reply["data"]
        .as_str()
        .ok_or_else(|| ApiError::internal("the browser returned no image data"))?;
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|e| ApiError::internal(format!("the browser returned bad base64: {e}")))
}
