//! What a page says about itself in its `<head>` and data blocks:
//! `<meta name|property|itemprop=… content=…>`, `<link rel=…>`, and
//! JSON-LD (`<script type="application/ld+json">`), flattened so callers
//! find a `Product` or `NewsArticle` wherever the page nested it.

use super::Document;
use serde_json::Value;

/// The `content` of the first `<meta>` whose `name`, `property` or
/// `itemprop` equals one of `keys` (ASCII case-insensitive), trying keys
/// in order; blank values are skipped.
pub fn meta_content(doc: &Document, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|key| {
        doc.find_all("meta").find_map(|m| {
            let matches = ["name", "property", "itemprop"]
                .iter()
                .any(|a| doc.attr(m, a).is_some_and(|v| v.eq_ignore_ascii_case(key)));
            let content = doc.attr(m, "content")?.trim();
            (matches && !content.is_empty()).then(|| content.to_string())
        })
    })
}

/// The `href` of the first `<link>` whose `rel` lists `rel`.
pub fn link_href(doc: &Document, rel: &str) -> Option<String> {
    doc.find_all("link").find_map(|l| {
        let rels = doc.attr(l, "rel")?;
        let href = doc.attr(l, "href")?.trim();
        (rels
            .split_ascii_whitespace()
            .any(|r| r.eq_ignore_ascii_case(rel))
            && !href.is_empty())
        .then(|| href.to_string())
    })
}

/// Every JSON-LD block that parses, as written (arrays and `@graph` kept).
/// Blocks that are not valid JSON are skipped: one broken block must not
/// hide the others.
pub fn json_ld_blocks(doc: &Document) -> Vec<Value> {
    doc.find_all("script")
        .filter(|&s| {
            doc.attr(s, "type")
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/ld+json"))
        })
        .filter_map(|s| {
            let raw = doc.children(s).first().and_then(|&c| doc.text_node(c))?;
            serde_json::from_str(raw.trim().trim_end_matches(';')).ok()
        })
        .collect()
}

/// Every JSON-LD object on the page, top-level ones first, with arrays and
/// `@graph` lists unwrapped (not recursing into properties).
pub fn json_ld_objects(doc: &Document) -> Vec<Value> {
    let mut out = Vec::new();
    let mut queue: Vec<Value> = json_ld_blocks(doc);
    queue.reverse();
    while let Some(v) = queue.pop() {
        match v {
            Value::Array(items) => queue.extend(items.into_iter().rev()),
            Value::Object(mut map) => {
                if let Some(graph) = map.remove("@graph") {
                    queue.push(graph);
                }
                if map.keys().any(|k| k != "@context") {
                    out.push(Value::Object(map));
                }
            }
            _ => {}
        }
    }
    out
}

/// True when a JSON-LD object's `@type` (a string or a list) names `ty`,
/// with or without a `schema:`/URL prefix.
pub fn has_type(obj: &Value, ty: &str) -> bool {
    let matches = |v: &Value| {
        v.as_str().is_some_and(|s| {
            s.eq_ignore_ascii_case(ty)
                || s.rsplit(['/', ':', '#'])
                    .next()
                    .is_some_and(|last| last.eq_ignore_ascii_case(ty))
        })
    };
    match obj.get("@type") {
        Some(Value::Array(types)) => types.iter().any(matches),
        Some(v) => matches(v),
        None => false,
    }
}

/// A JSON-LD value as text: strings as-is, numbers printed, objects by
/// their `name` (or `@id`/`url`), lists by their first usable element.
pub fn ld_text(v: &Value) -> Option<String> {
    let s = match v {
        Value::String(s) => super::decode_entities(s.trim()),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Array(items) => return items.iter().find_map(ld_text),
        Value::Object(o) => {
            return ["name", "@value", "url", "@id"]
                .iter()
                .find_map(|k| o.get(*k).and_then(ld_text));
        }
        Value::Null => return None,
    };
    (!s.is_empty()).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<html><head>
        <meta property="og:title" content="  ">
        <meta name="twitter:title" content="Tw">
        <META PROPERTY="OG:SITE_NAME" CONTENT="Site &amp; Co">
        <link rel="alternate canonical" href="https://s.example/a">
        <script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"WebSite","name":"S"},{"@type":["Thing","schema:Product"],"name":"P"}]}</script>
        <script type="application/ld+json">{broken</script>
        <script type="application/ld+json">[{"@type":"Offer","price":5}]</script>
        </head></html>"#;

    #[test]
    fn reads_meta_and_links() {
        let doc = Document::parse(PAGE);
        assert_eq!(
            meta_content(&doc, &["og:title", "twitter:title"]).as_deref(),
            Some("Tw")
        );
        assert_eq!(
            meta_content(&doc, &["og:site_name"]).as_deref(),
            Some("Site & Co")
        );
        assert_eq!(
            link_href(&doc, "canonical").as_deref(),
            Some("https://s.example/a")
        );
    }

    #[test]
    fn flattens_json_ld_and_skips_broken_blocks() {
        let doc = Document::parse(PAGE);
        let objs = json_ld_objects(&doc);
        assert_eq!(objs.len(), 3);
        assert!(has_type(&objs[1], "Product"));
        assert_eq!(ld_text(&objs[1]["name"]).as_deref(), Some("P"));
        assert_eq!(ld_text(&objs[2]["price"]).as_deref(), Some("5"));
    }
}
