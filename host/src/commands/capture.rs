//! Capture commands: screenshot, pdf. Files are written by `artifacts`.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::session::absolutize;
use super::{Command, Cx, Scope};
use crate::artifacts;
use crate::browser::capture::{self, Area, ImageFormat};
use crate::error::ApiError;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Saved {
    pub path: PathBuf,
    pub bytes: usize,
}

fn human_saved(out: &Saved) -> String {
    format!("{} ({} bytes)", out.path.display(), out.bytes)
}

/// Where to write: the given path, or a fresh name in the artifacts folder
/// (`ext` empty: a folder's name).
pub(super) fn destination(
    cx: &Cx,
    path: Option<PathBuf>,
    stem: &str,
    ext: &str,
) -> Result<PathBuf, ApiError> {
    if let Some(path) = path {
        cx.require_local_files("--path")?;
        return Ok(path);
    }
    let dir = cx
        .state()
        .home()
        .ensure_dir(Some("artifacts"))
        .map_err(|e| ApiError::internal(format!("{e:#}")))?;
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    Ok(match ext {
        "" => dir.join(format!("{stem}-{stamp}")),
        ext => dir.join(format!("{stem}-{stamp}.{ext}")),
    })
}

/// [`destination`], checked: absolute, free unless `overwrite`, in a folder
/// that exists. Checked before the work, so a refused path costs nothing.
pub(super) fn output_path(
    cx: &Cx,
    path: Option<PathBuf>,
    overwrite: bool,
    stem: &str,
    ext: &str,
) -> Result<PathBuf, ApiError> {
    let path = destination(cx, path, stem, ext)?;
    check_writable(&path, overwrite)?;
    Ok(path)
}

/// Capture the viewport, the full page, or one element.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Screenshot {
    /// @eN ref, locator or CSS selector of an element to capture (default: the viewport).
    pub target: Option<String>,
    /// Capture the whole scrollable page.
    #[arg(long, conflicts_with = "target")]
    #[serde(default)]
    pub full: bool,
    /// File to write (default: a new file in the artifacts folder).
    #[arg(long, value_name = "FILE")]
    pub path: Option<PathBuf>,
    /// Replace the file if it exists.
    #[arg(long)]
    #[serde(default)]
    pub overwrite: bool,
    /// Image format (default: png).
    #[arg(long, value_enum)]
    pub format: Option<ImageFormat>,
    /// JPEG/WebP quality 0-100.
    #[arg(long)]
    pub quality: Option<u8>,
}

impl Command for Screenshot {
    const NAME: &'static str = "screenshot";
    const ABOUT: &'static str = "Save a screenshot of the viewport, full page or an element";
    const SCOPE: Scope = Scope::Tab;
    type Output = Saved;

    fn prepare(&mut self) -> Result<(), ApiError> {
        absolutize(&mut self.path)
    }

    async fn run(self, mut cx: Cx) -> Result<Saved, ApiError> {
        if self.full && self.target.is_some() {
            return Err(ApiError::invalid(
                "give either --full or an element, not both",
            ));
        }
        let format = self.format.unwrap_or_default();
        let path = output_path(
            &cx,
            self.path,
            self.overwrite,
            "screenshot",
            format.extension(),
        )?;
        let area = match (&self.target, self.full) {
            (Some(sel), _) => Area::Element(sel, cx.deadline()),
            (None, true) => Area::FullPage,
            (None, false) => Area::Viewport,
        };
        let tab = cx.tab().await?;
        let bytes = capture::screenshot(&tab, area, format, self.quality).await?;
        let path = artifacts::write_new(&path, &bytes, self.overwrite)?;
        Ok(Saved {
            path,
            bytes: bytes.len(),
        })
    }

    fn human(out: &Saved) -> String {
        human_saved(out)
    }
}

/// Print the page to PDF.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pdf {
    /// File to write (default: a new file in the artifacts folder).
    #[arg(long, value_name = "FILE")]
    pub path: Option<PathBuf>,
    /// Replace the file if it exists.
    #[arg(long)]
    #[serde(default)]
    pub overwrite: bool,
    /// Landscape orientation.
    #[arg(long)]
    #[serde(default)]
    pub landscape: bool,
}

impl Command for Pdf {
    const NAME: &'static str = "pdf";
    const ABOUT: &'static str = "Save the page as a PDF";
    const SCOPE: Scope = Scope::Tab;
    type Output = Saved;

    fn prepare(&mut self) -> Result<(), ApiError> {
        absolutize(&mut self.path)
    }

    async fn run(self, mut cx: Cx) -> Result<Saved, ApiError> {
        let path = output_path(&cx, self.path, self.overwrite, "page", "pdf")?;
        let tab = cx.tab().await?;
        let bytes = capture::pdf(&tab, self.landscape).await?;
        let path = artifacts::write_new(&path, &bytes, self.overwrite)?;
        Ok(Saved {
            path,
            bytes: bytes.len(),
        })
    }

    fn human(out: &Saved) -> String {
        human_saved(out)
    }
}

/// Fails fast, before rendering, on a path that will be refused anyway.
pub(super) fn check_writable(path: &std::path::Path, overwrite: bool) -> Result<(), ApiError> {
    if !path.is_absolute() {
        return Err(ApiError::invalid(format!(
            "{} is not an absolute path",
            path.display()
        )));
    }
    if !overwrite && std::fs::symlink_metadata(path).is_ok() {
        return Err(
            ApiError::invalid(format!("{} already exists", path.display()))
                .with_hint("pick another path, or pass --overwrite"),
        );
    }
    match path.parent() {
        Some(dir) if dir.is_dir() => Ok(()),
        _ => Err(ApiError::invalid(format!(
            "cannot write {}: its directory does not exist",
            path.display()
        ))),
    }
}
