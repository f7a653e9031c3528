//! Inline styles: React's camelCase keys and numbers to CSS declarations
//! and back.
//!
//! The rule for numbers is React's (`dangerousStyleValue`): a number gets
//! `px` unless it is 0 or the property is unitless (its list below) or a
//! custom property. Printing back writes a number only where reading it
//! gives exactly the same value, else a quoted string.

/// React's unitless properties, as CSS names.
const UNITLESS: &[&str] = &[
    "animation-iteration-count",
    "aspect-ratio",
    "border-image-outset",
    "border-image-slice",
    "border-image-width",
    "box-flex",
    "box-flex-group",
    "box-ordinal-group",
    "column-count",
    "columns",
    "flex",
    "flex-grow",
    "flex-positive",
    "flex-shrink",
    "flex-negative",
    "flex-order",
    "grid-area",
    "grid-row",
    "grid-row-end",
    "grid-row-span",
    "grid-row-start",
    "grid-column",
    "grid-column-end",
    "grid-column-span",
    "grid-column-start",
    "font-weight",
    "line-clamp",
    "line-height",
    "opacity",
    "order",
    "orphans",
    "scale",
    "tab-size",
    "widows",
    "z-index",
    "zoom",
    "fill-opacity",
    "flood-opacity",
    "stop-opacity",
    "stroke-dasharray",
    "stroke-dashoffset",
    "stroke-miterlimit",
    "stroke-opacity",
    "stroke-width",
];

fn unitless(property: &str) -> bool {
    property.starts_with("--") || UNITLESS.contains(&property)
}

/// A style key as a CSS property: `marginTop` → `margin-top`,
/// `WebkitTransition` → `-webkit-transition`, `msFlex` → `-ms-flex`;
/// `--brand` stays.
pub fn css_name(key: &str) -> String {
    if key.starts_with("--") {
        return key.to_string();
    }
    let key = match key.strip_prefix("ms") {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_uppercase()) => format!("Ms{rest}"),
        _ => key.to_string(),
    };
    let mut out = String::new();
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('-');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A CSS property as a style key (the inverse of [`css_name`]).
pub fn js_key(property: &str) -> String {
    if property.starts_with("--") {
        return property.to_string();
    }
    let (prefix, rest) = match property.strip_prefix("-ms-") {
        Some(rest) => ("ms-", rest),
        None => ("", property.strip_prefix('-').unwrap_or(property)),
    };
    let lead_upper = property.starts_with('-') && prefix.is_empty();
    let mut out = String::new();
    let mut upper = lead_upper;
    for c in format!("{prefix}{rest}").chars() {
        if c == '-' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// How JS prints a number (integers without a fraction).
pub fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// A numeric style value as React renders it.
pub fn number_value(property: &str, n: f64) -> String {
    if n == 0.0 || unitless(property) {
        number_text(n)
    } else {
        format!("{}px", number_text(n))
    }
}

/// One style entry as JS source: `marginTop: 8`, `color: 'red'`.
pub fn entry(property: &str, value: &str) -> String {
    let key = js_key(property);
    let key_text = if !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        && !key.starts_with(|c: char| c.is_ascii_digit())
    {
        key
    } else {
        single_quoted(&key)
    };
    let number = value
        .strip_suffix("px")
        .unwrap_or(value)
        .parse::<f64>()
        .ok()
        .filter(|n| n.is_finite() && number_value(property, *n) == value);
    match number {
        Some(n) => format!("{key_text}: {}", number_text(n)),
        None => format!("{key_text}: {}", single_quoted(value)),
    }
}

fn single_quoted(s: &str) -> String {
    let mut out = String::from("'");
    for c in s.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_map_both_ways() {
        for (js, css) in [
            ("marginTop", "margin-top"),
            ("WebkitTransition", "-webkit-transition"),
            ("msFlex", "-ms-flex"),
            ("--brand", "--brand"),
            ("color", "color"),
        ] {
            assert_eq!(css_name(js), css);
            assert_eq!(js_key(css), js);
        }
    }

    #[test]
    fn numbers_get_px_like_react() {
        assert_eq!(number_value("margin-top", 8.0), "8px");
        assert_eq!(number_value("margin-top", 0.0), "0");
        assert_eq!(number_value("opacity", 0.5), "0.5");
        assert_eq!(number_value("z-index", 10.0), "10");
        assert_eq!(entry("margin-top", "8px"), "marginTop: 8");
        assert_eq!(entry("margin-top", "8.50px"), "marginTop: '8.50px'");
        assert_eq!(entry("opacity", "0.5"), "opacity: 0.5");
        assert_eq!(entry("color", "red"), "color: 'red'");
        assert_eq!(entry("--brand", "#f00"), "'--brand': '#f00'");
    }
}
