//! Unit tests: parsing spans, hostile input, emitter refusals.

use super::*;
use webrig_adapter_sdk::types::NodeKind;

#[test]
fn spans_are_exact() {
    let src = "<div id=\"a\"><p>Hi &amp; bye</p>\n  <br><img src=x /></div>";
    let doc = parse_doc(src, Dialect::Html).expect("parses");
    let g = subtree(&doc, doc.top[0]);
    let p = &g.nodes[1];
    assert_eq!(p.tag, "p");
    let s = p.span.expect("span");
    assert_eq!(&src[s.start as usize..s.end as usize], "<p>Hi &amp; bye</p>");
    assert_eq!(g.nodes[2].text, "Hi & bye");
    assert_eq!(g.nodes.len(), 5);
}
