//! Words: tokens, a crude English stemmer and stopwords, shared by
//! relevance scoring and theme clustering. Deliberately simple and
//! deterministic; "sandboxing", "sandboxed" and "sandboxes" all become
//! "sandbox", which is what matching a topic needs.

/// Words too common to say anything about a topic or a theme.
pub const STOPWORDS: &[&str] = &[
    "about",
    "above",
    "after",
    "again",
    "against",
    "also",
    "always",
    "among",
    "another",
    "answer",
    "anything",
    "around",
    "because",
    "been",
    "before",
    "being",
    "below",
    "best",
    "between",
    "both",
    "cannot",
    "could",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "either",
    "even",
    "every",
    "explained",
    "few",
    "first",
    "from",
    "further",
    "gets",
    "give",
    "given",
    "good",
    "half",
    "have",
    "having",
    "here",
    "into",
    "itself",
    "just",
    "keep",
    "keeps",
    "know",
    "last",
    "less",
    "like",
    "made",
    "make",
    "makes",
    "many",
    "matter",
    "means",
    "might",
    "more",
    "most",
    "much",
    "must",
    "need",
    "never",
    "news",
    "next",
    "nothing",
    "once",
    "only",
    "other",
    "ours",
    "over",
    "part",
    "people",
    "point",
    "read",
    "really",
    "same",
    "says",
    "should",
    "show",
    "since",
    "some",
    "still",
    "such",
    "take",
    "than",
    "that",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "thing",
    "things",
    "this",
    "those",
    "though",
    "through",
    "time",
    "today",
    "true",
    "turn",
    "under",
    "until",
    "upon",
    "used",
    "using",
    "very",
    "want",
    "ways",
    "well",
    "were",
    "what",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "whole",
    "with",
    "within",
    "without",
    "work",
    "works",
    "would",
    "year",
    "years",
    "your",
    "yours",
    "actually",
    "brief",
    "plain",
    "language",
    "experience",
    "months",
    "reminder",
    "story",
    "full",
    "inside",
    "online",
    "post",
    "posts",
    "week",
    "weekly",
    "done",
];

/// Lowercase alphanumeric words of `text`, in order.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// Strips one common English suffix, keeping at least four letters, then
/// a final `e`, so "share", "shared" and "shares" meet at "shar" and
/// "isolate", "isolates" and "isolation" at "isolat".
pub fn stem(word: &str) -> String {
    const SUFFIXES: &[(&str, &str)] = &[
        ("ations", "at"),
        ("ation", "at"),
        ("ities", ""),
        ("ity", ""),
        ("ings", ""),
        ("ing", ""),
        ("ies", "y"),
        ("es", ""),
        ("ed", ""),
        ("s", ""),
    ];
    let mut out = word.to_string();
    if !word.ends_with("ss") {
        for (suffix, with) in SUFFIXES {
            if let Some(head) = word.strip_suffix(suffix)
                && head.chars().count() >= 4
            {
                out = format!("{head}{with}");
                break;
            }
        }
    }
    if out.chars().count() > 4 && out.ends_with('e') {
        out.pop();
    }
    out
}

/// True for words that carry meaning: four letters or more, not a
/// stopword, not a number.
pub fn significant(word: &str) -> bool {
    word.chars().count() >= 4
        && !word.chars().all(|c| c.is_ascii_digit())
        && !STOPWORDS.contains(&word)
}

/// The topic's stems, in order, without repeats. Words of three letters
/// count too ("rust", "wasm", "gpu"), stopwords do not.
pub fn topic_terms(topic: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in words(topic) {
        if w.chars().count() < 3 || STOPWORDS.contains(&w.as_str()) {
            continue;
        }
        let s = stem(&w);
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// How well a record matches the topic, 0..=1: per topic term, 1 when the
/// title has it, ½ when only the text does; averaged. Matching is by
/// substring of the lowercased text, so "sandbox" matches "sandboxing" and
/// the hashtag "#webassemblysandboxing".
pub fn relevance(terms: &[String], title: &str, body: &str) -> f64 {
    if terms.is_empty() {
        return 0.0;
    }
    let title = title.to_lowercase();
    let body = body.to_lowercase();
    let total: f64 = terms
        .iter()
        .map(|t| {
            if title.contains(t.as_str()) {
                1.0
            } else if body.contains(t.as_str()) {
                0.5
            } else {
                0.0
            }
        })
        .sum();
    total / terms.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_collapse_word_forms() {
        for w in ["sandboxing", "sandboxed", "sandboxes", "sandbox"] {
            assert_eq!(stem(w), "sandbox", "{w}");
        }
        assert_eq!(stem("capabilities"), stem("capability"));
        for w in ["share", "shared", "shares"] {
            assert_eq!(stem(w), "shar", "{w}");
        }
        for w in ["isolate", "isolates", "isolation", "isolated"] {
            assert_eq!(stem(w), "isolat", "{w}");
        }
        assert_eq!(stem("processes"), "process");
        assert_eq!(stem("deadlines"), stem("deadline"));
        assert_eq!(stem("epochs"), "epoch");
        assert_eq!(stem("access"), "access");
        assert_eq!(stem("webassembly"), "webassembly");
    }

    #[test]
    fn topic_terms_and_relevance() {
        let terms = topic_terms("WebAssembly sandboxing, with Rust");
        assert_eq!(terms, ["webassembly", "sandbox", "rust"]);
        let full = relevance(&terms, "Sandboxing WebAssembly in Rust", "");
        assert_eq!(full, 1.0);
        let half = relevance(&terms, "Untitled", "rust webassembly sandboxes");
        assert_eq!(half, 0.5);
        assert_eq!(relevance(&terms, "Cooking", "pasta"), 0.0);
        assert!(relevance(&terms, "#webassemblysandboxing", "") > 0.6);
    }
}
