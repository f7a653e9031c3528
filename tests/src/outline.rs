//! Reading a snapshot's text in tests: the line that holds something, and
//! the ref in front of it.

/// The line of `text` that contains `needle` (leading spaces trimmed);
/// panics, showing the whole text, when none does.
pub fn line<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in\n{text}"))
        .trim_start()
}

/// The ref just before `needle` on its line (an inline token counts).
pub fn ref_of(text: &str, needle: &str) -> String {
    let l = line(text, needle);
    let before = &l[..l.find(needle).unwrap_or(0)];
    before
        .split_whitespace()
        .rev()
        .find(|t| t.starts_with('@'))
        .unwrap_or_else(|| panic!("line {l:?} has no ref before {needle:?}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ref_is_the_last_one_before_the_needle() {
        let text = "page \"x\"\n  list:\n   @e1 link \"a\" · @e2 link \"b\"\n";
        assert_eq!(line(text, "\"b\""), "@e1 link \"a\" · @e2 link \"b\"");
        assert_eq!(ref_of(text, "\"b\""), "@e2");
        assert_eq!(ref_of(text, "\"a\""), "@e1");
    }
}
