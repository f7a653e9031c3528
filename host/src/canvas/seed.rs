//! A canvas document from a workflow's design tokens: inspiredesign's
//! `tokens.json` (its merged, proposed system) becomes the document's
//! tokens and a starter page that uses them, so the research lane leads
//! into the design lane (`run workflow inspiredesign … --canvas NAME`).

use serde_json::{Value, json};

use super::doc::Document;
use super::patch::{self, Op};

/// Tokens a seed takes from one list, at most.
const EACH: usize = 8;

/// The document `name` seeded from `tokens` (tokens.json's value).
pub fn from_design_tokens(name: &str, tokens: &Value) -> Result<Document, String> {
    let system = tokens
        .get("proposed")
        .filter(|v| v.is_object())
        .ok_or("tokens.json has no proposed system")?;
    let mut set: Vec<(String, String)> = Vec::new();
    let mut color = |key: &str, token: &str| {
        if let Some(c) = system
            .get(key)
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
        {
            set.push((token.into(), c.into()));
        }
    };
    color("background", "--color-background");
    color("foreground", "--color-foreground");
    color("accent", "--color-accent");
    let list = |key: &str, field: Option<&str>| -> Vec<String> {
        system
            .get(key)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| match field {
                        Some(f) => v.get(f).and_then(Value::as_str).map(str::to_string),
                        None => v
                            .as_str()
                            .map(str::to_string)
                            .or_else(|| v.as_u64().map(|n| n.to_string())),
                    })
                    .take(EACH)
                    .collect()
            })
            .unwrap_or_default()
    };
    for (i, c) in list("palette", Some("color")).iter().enumerate() {
        set.push((format!("--color-palette-{}", i + 1), c.clone()));
    }
    for (i, f) in list("fonts", Some("family")).iter().enumerate() {
        set.push((format!("--font-{}", i + 1), f.clone()));
    }
    for (i, s) in list("type_scale", None).iter().enumerate() {
        set.push((format!("--font-size-{}", i + 1), format!("{s}px")));
    }
    for (i, s) in list("spacing", None).iter().enumerate() {
        set.push((format!("--space-{}", i + 1), format!("{s}px")));
    }
    for (i, r) in list("radii", None).iter().enumerate() {
        set.push((format!("--radius-{}", i + 1), format!("{r}px")));
    }
    for (i, s) in list("shadows", None).iter().enumerate() {
        set.push((format!("--shadow-{}", i + 1), s.clone()));
    }
    let has = |t: &str| set.iter().any(|(n, _)| n == t);
    let var = |t: &str, fallback: &str| {
        if has(t) {
            format!("var({t})")
        } else {
            fallback.to_string()
        }
    };
    let brief = tokens.get("brief").and_then(Value::as_str).unwrap_or("");
    let title = if brief.is_empty() {
        "A starter page"
    } else {
        brief
    };
    let title: String = title.chars().take(120).collect();
    let mut ops = vec![
        json!({ "op": "tokens.merge", "tokens": set.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect::<serde_json::Map<String, Value>>() }),
    ];
    ops.push(json!({ "op": "node.insert", "parent": "p1", "node": {
        "id": "hero", "kind": "frame", "tag": "section", "name": "Hero",
        "style": {
            "background": var("--color-background", "#fff"),
            "color": var("--color-foreground", "#111"),
            "font-family": var("--font-1", "system-ui"),
            "padding": var("--space-4", "32px"),
        }
    }}));
    ops.push(json!({ "op": "node.insert", "parent": "hero", "node": {
        "id": "headline", "kind": "frame", "tag": "h1",
        "style": { "font-size": var("--font-size-1", "40px") } } }));
    ops.push(json!({ "op": "node.insert", "parent": "headline", "node": {
        "id": "headline-text", "kind": "text", "text": title } }));
    ops.push(json!({ "op": "node.insert", "parent": "hero", "node": {
        "id": "cta", "kind": "frame", "tag": "button",
        "style": {
            "background": var("--color-accent", "#06c"),
            "color": var("--color-background", "#fff"),
            "border": "0",
            "border-radius": var("--radius-1", "6px"),
            "padding": "12px 20px",
        } } }));
    ops.push(json!({ "op": "node.insert", "parent": "cta", "node": {
        "id": "cta-text", "kind": "text", "text": "Get started" } }));
    ops.push(json!({ "op": "node.insert", "parent": "p1", "node": {
        "id": "palette", "kind": "frame", "tag": "div", "name": "Palette",
        "style": { "display": "flex", "gap": "8px", "padding": "16px" } } }));
    for (i, _) in set
        .iter()
        .filter(|(n, _)| n.starts_with("--color-palette-"))
        .enumerate()
    {
        let token = format!("--color-palette-{}", i + 1);
        ops.push(json!({ "op": "node.insert", "parent": "palette", "node": {
            "id": format!("swatch-{}", i + 1), "kind": "shape", "tokens": [token],
            "style": { "width": "48px", "height": "48px", "background": format!("var({token})"),
                       "border-radius": var("--radius-1", "6px") } } }));
    }
    let ops: Vec<Op> = serde_json::from_value(Value::Array(ops)).map_err(|e| e.to_string())?;
    patch::apply(&Document::new(name), &ops).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_proposed_system_becomes_tokens_and_a_page_that_uses_them() {
        let tokens = json!({
            "brief": "calm fintech",
            "proposed": {
                "background": "rgb(255, 255, 255)", "foreground": "rgb(17, 17, 17)",
                "accent": "rgb(0, 102, 204)",
                "palette": [{ "color": "rgb(0, 102, 204)", "share": 0.2 }, { "color": "rgb(240, 240, 240)", "share": 0.1 }],
                "fonts": [{ "family": "Inter", "share": 1.0 }],
                "type_scale": [40, 24, 16], "spacing": [8, 16, 24, 32], "radii": [6], "shadows": []
            }
        });
        let doc = from_design_tokens("brand", &tokens).expect("seeded");
        assert_eq!(doc.tokens["--color-accent"], "rgb(0, 102, 204)");
        assert_eq!(doc.tokens["--font-size-1"], "40px");
        assert_eq!(doc.tokens["--space-4"], "32px");
        assert_eq!(
            doc.nodes["hero"].style["background"],
            "var(--color-background)"
        );
        assert_eq!(
            doc.nodes["headline-text"].text.as_deref(),
            Some("calm fintech")
        );
        assert!(doc.nodes.contains_key("swatch-2"));
        doc.check().expect("consistent");
        assert!(from_design_tokens("x", &json!({ "nope": 1 })).is_err());
    }
}
