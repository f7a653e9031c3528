//! The masked source the markup crate reads (see the crate docs), and the
//! graph and text mapping between it and the real file.

use webrig_adapter_sdk::types::{Error, Graph, NodeKind};

use crate::find::Found;

/// The byte after `{` that marks a masked `${`.
const MARK: char = '\u{1}';
/// Stand-ins for a backtick and a backslash in printed text, replaced by
/// character references after printing (the markup crate would escape
/// the `&` of a reference given to it).
const BACKTICK: char = '\u{E000}';
const BACKSLASH: char = '\u{E001}';
const STAND_INS: [char; 3] = [MARK, BACKTICK, BACKSLASH];

/// `source` with every byte outside the template blanked (a space: the
/// length and char boundaries stay) and each `${` written `{\x01`.
pub fn mask(source: &str, found: &Found) -> Result<String, Error> {
    let (start, end) = found.content;
    let inner = &source[start..end];
    if inner.contains(STAND_INS) {
        return Err(Error::InvalidInput(
            "the template holds a control or private-use character this adapter uses".into(),
        ));
    }
    let mut bytes = source.as_bytes().to_vec();
    for (i, b) in bytes.iter_mut().enumerate() {
        if i < start || i >= end {
            *b = b' ';
        }
    }
    for &at in &found.substitutions {
        if source.as_bytes().get(at..at + 2) == Some(b"${") {
            bytes[at] = b'{';
            bytes[at + 1] = MARK as u8;
        }
    }
    String::from_utf8(bytes).map_err(|_| Error::Internal("masking broke UTF-8".into()))
}

fn masked_sub(s: &str) -> String {
    s.replace("${", &format!("{{{MARK}"))
}

/// Printed text back to what the file holds.
pub fn unmask_text(s: &str) -> String {
    s.replace(&format!("{{{MARK}"), "${")
        .replace(BACKTICK, "&#96;")
        .replace(BACKSLASH, "&#92;")
}

/// A read graph as the file says it: substitutions as `${…}`, reasons
/// in this family's words.
pub fn unmask_graph(g: &mut Graph) {
    for n in &mut g.nodes {
        n.text = n.text.replace(&format!("{{{MARK}"), "${");
        if let Some(why) = &mut n.unsupported {
            *why = why
                .replace(
                    "Svelte expression attribute",
                    "a ${…} substitution in the attribute",
                )
                .replace("Svelte expression", "a ${…} substitution")
                .replace(&format!("{{{MARK}"), "${");
        }
    }
}

/// A graph to emit, in the masked file's terms.
pub fn mask_graph(g: &mut Graph) -> Result<(), Error> {
    for n in &mut g.nodes {
        let bad = |s: &str| s.contains(STAND_INS);
        if bad(&n.text) || n.attributes.iter().any(|a| bad(&a.value) || bad(&a.name)) {
            return Err(Error::InvalidInput(format!(
                "node {} holds a control or private-use character this adapter uses",
                n.id
            )));
        }
        if n.kind == NodeKind::Opaque {
            n.text = masked_sub(&n.text);
            continue;
        }
        let stand_in = |s: &str| {
            s.replace('`', &BACKTICK.to_string())
                .replace('\\', &BACKSLASH.to_string())
        };
        n.text = stand_in(&n.text);
        for a in &mut n.attributes {
            // The markup reader takes any brace in a value for an
            // expression, even escaped: such a value cannot read back.
            if a.value.contains(['{', '}']) {
                return Err(Error::InvalidInput(format!(
                    "node {}: the attribute {} holds a brace, which the template reader takes for a substitution",
                    n.id, a.name
                )));
            }
            a.value = stand_in(&a.value);
        }
        for d in &mut n.style {
            if d.value.contains(['`', '\\']) || d.property.contains(['`', '\\']) {
                return Err(Error::InvalidInput(format!(
                    "node {}: a backtick or backslash in a style cannot be written into the template",
                    n.id
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masking_keeps_length_and_marks_substitutions() {
        let src = "const é = 1; x.innerHTML = `<b>${é}</b>`;";
        let start = src.find('`').expect("backtick") + 1;
        let end = src.rfind('`').expect("backtick");
        let found = Found {
            tag: "x-a".into(),
            content: (start, end),
            substitutions: vec![start + 3],
        };
        let m = mask(src, &found).expect("mask");
        assert_eq!(m.len(), src.len());
        assert_eq!(&m[start..end], "<b>{\u{1}é}</b>");
        assert!(m[..start].bytes().all(|b| b == b' '));
        assert_eq!(unmask_text(&m[start..end]), "<b>${é}</b>");
    }

    #[test]
    fn stand_ins_become_references() {
        assert_eq!(unmask_text("a\u{E000}b\u{E001}c"), "a&#96;b&#92;c");
    }
}
