//! What a page says about itself in its `<head>` and data blocks:
//! `<meta name|property|itemprop=… content=…>`, `<link rel=…>`, and
//! JSON-LD (`<script type="application/ld+json">`), flattened so callers
//! find a `Product` or `NewsArticle` wherever the page nested it.

use super::{Document, NodeId};
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

/// The `content` of the first `<meta>` whose `name` equals one of `keys`
/// or whose `property` lists it (RDFa allows several, space-separated),
/// ASCII case-insensitive, trying keys in order; blank values skipped.
/// Unlike [`meta_content`] it ignores `itemprop`: a microdata property
/// belongs to an item (maybe a comment's), see [`itemprop_values`].
pub fn meta_named(doc: &Document, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|key| {
        doc.find_all("meta").find_map(|m| {
            let named = doc
                .attr(m, "name")
                .is_some_and(|v| v.trim().eq_ignore_ascii_case(key))
                || doc.attr(m, "property").is_some_and(|v| {
                    v.split_ascii_whitespace()
                        .any(|p| p.eq_ignore_ascii_case(key))
                });
            let content = doc.attr(m, "content")?.trim();
            (named && !content.is_empty()).then(|| content.to_string())
        })
    })
}

/// Microdata: every element whose `itemprop` lists `prop`, in document
/// order, with its value — the `content` attribute (which pages put on
/// any element), else `datetime` or `value`, else `href`/`src`, else the
/// element's text. Blank values are skipped.
pub fn itemprop_values(doc: &Document, prop: &str) -> Vec<(NodeId, String)> {
    doc.elements()
        .filter(|&e| {
            doc.attr(e, "itemprop")
                .is_some_and(|v| v.split_ascii_whitespace().any(|p| p == prop))
        })
        .filter_map(|e| {
            let value = ["content", "datetime", "value", "href", "src"]
                .iter()
                .find_map(|a| doc.attr(e, a).map(str::to_string))
                .unwrap_or_else(|| doc.text(e));
            let value = value.trim();
            (!value.is_empty()).then(|| (e, value.to_string()))
        })
        .collect()
}

/// The `itemtype` of the microdata item that the property at `id` belongs
/// to: the nearest ancestor with `itemscope` (an element's own `itemscope`
/// makes it the value of its property, not its owner). `None` when there
/// is no such item or it has no type.
pub fn item_type(doc: &Document, id: NodeId) -> Option<&str> {
    doc.ancestors(id)
        .find(|&a| doc.attr(a, "itemscope").is_some())
        .and_then(|scope| doc.attr(scope, "itemtype"))
        .map(str::trim)
        .filter(|t| !t.is_empty())
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
/// `<![CDATA[ … ]]>` and `<!-- … -->` wrappers, a trailing `;` and raw
/// line breaks or tabs inside strings (which JSON forbids and pages
/// write) are forgiven; blocks that still are not JSON are skipped: one
/// broken block must not hide the others.
pub fn json_ld_blocks(doc: &Document) -> Vec<Value> {
    doc.find_all("script")
        .filter(|&s| {
            doc.attr(s, "type")
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/ld+json"))
        })
        .filter_map(|s| {
            let raw = doc.children(s).first().and_then(|&c| doc.text_node(c))?;
            parse_json_ld(raw)
        })
        .collect()
}

fn parse_json_ld(raw: &str) -> Option<Value> {
    let mut s = raw.trim();
    for (open, close) in [("<![CDATA[", "]]>"), ("<!--", "-->")] {
        if let Some(inner) = s.strip_prefix(open) {
            s = inner.trim_start();
            if let Some(inner) = s.trim_end().strip_suffix(close) {
                s = inner.trim_end();
            }
        }
    }
    // `//<![CDATA[` … `//]]>`, as some CMSs write it.
    if let Some(inner) = s.strip_prefix("//<![CDATA[") {
        s = inner.trim();
        s = s.strip_suffix("//]]>").unwrap_or(s).trim();
    }
    let s = s.trim_end_matches(';').trim_end();
    serde_json::from_str(s).ok().or_else(|| {
        // Control characters are whitespace outside strings and invalid
        // inside them: a space is right in both places.
        let cleaned: String = s
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        serde_json::from_str(&cleaned).ok()
    })
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
    fn meta_named_ignores_itemprop_and_reads_property_lists() {
        let doc = Document::parse(
            r#"<div itemscope itemtype="https://schema.org/Comment"><meta itemprop="datePublished" content="2020-01-02"></div>
            <meta property="og:type article:published_time" content="2019-05-06">
            <meta name=" DatePublished " content="2018-01-01">"#,
        );
        assert_eq!(
            meta_named(&doc, &["article:published_time"]).as_deref(),
            Some("2019-05-06")
        );
        assert_eq!(
            meta_named(&doc, &["datepublished"]).as_deref(),
            Some("2018-01-01")
        );
        assert_eq!(
            meta_content(&doc, &["datePublished"]).as_deref(),
            Some("2020-01-02")
        );
    }

    #[test]
    fn reads_microdata_values_and_their_item_types() {
        let doc = Document::parse(
            r#"<article itemscope itemtype="http://schema.org/NewsArticle">
              <time itemprop="datePublished dateCreated" datetime="2015-05-04T13:36:31+02:00">4 May</time>
              <span itemprop="author" itemscope itemtype="http://schema.org/Person"><span itemprop="name">Ann</span></span>
              <div itemprop="comment" itemscope itemtype="http://schema.org/Comment">
                <span itemprop="datePublished">2015-05-06</span>
              </div>
            </article>
            <span itemprop="datePublished" content=" "></span>"#,
        );
        let dates = itemprop_values(&doc, "datePublished");
        assert_eq!(dates.len(), 2);
        assert_eq!(dates[0].1, "2015-05-04T13:36:31+02:00");
        assert_eq!(
            item_type(&doc, dates[0].0),
            Some("http://schema.org/NewsArticle")
        );
        assert_eq!(dates[1].1, "2015-05-06");
        assert_eq!(
            item_type(&doc, dates[1].0),
            Some("http://schema.org/Comment")
        );
        let author = itemprop_values(&doc, "author");
        assert_eq!(
            item_type(&doc, author[0].0),
            Some("http://schema.org/NewsArticle")
        );
        assert_eq!(itemprop_values(&doc, "dateCreated").len(), 1);
        assert_eq!(
            item_type(&doc, doc.find("span").expect("present")),
            Some("http://schema.org/NewsArticle")
        );
    }

    #[test]
    fn forgives_json_ld_wrappers_and_raw_line_breaks() {
        let doc = Document::parse(
            "<script type=\"application/ld+json\">\n<![CDATA[\n{\"@type\":\"Article\",\"datePublished\":\"2001-10-29T01:59:14Z\"}\n]]>\n</script>\
             <script type=\"application/ld+json\"><!-- {\"@type\":\"WebPage\"} --></script>\
             <script type=\"application/ld+json\">//<![CDATA[\n{\"@type\":\"Blog\"};\n//]]></script>\
             <script type=\"application/ld+json\">{\"@type\":\"Person\",\"name\":\"Two\nlines\"}</script>",
        );
        let objs = json_ld_objects(&doc);
        assert_eq!(objs.len(), 4, "{objs:?}");
        assert_eq!(
            ld_text(&objs[0]["datePublished"]).as_deref(),
            Some("2001-10-29T01:59:14Z")
        );
        assert!(has_type(&objs[1], "WebPage"));
        assert!(has_type(&objs[2], "Blog"));
        assert_eq!(ld_text(&objs[3]["name"]).as_deref(), Some("Two lines"));
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
