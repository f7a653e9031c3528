//! A product looked up by name: which search hit is it.

use webrig_workflow_sdk::types::Hit;

/// The hit that best matches `name`: the most of the name's words in its
/// title, then the fewest other words, then the first listed. None when no
/// title shares a word with the name.
pub fn best_match<'a>(name: &str, hits: &'a [Hit]) -> Option<&'a Hit> {
    let words = |s: &str| -> Vec<String> {
        s.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let wanted = words(name);
    let mut best: Option<(usize, usize, &Hit)> = None;
    for h in hits {
        let title = words(&h.item.title);
        let matched = wanted.iter().filter(|w| title.contains(w)).count();
        let extra = title.iter().filter(|w| !wanted.contains(w)).count();
        if matched == 0 {
            continue;
        }
        let better = match best {
            None => true,
            Some((m, e, _)) => matched > m || (matched == m && extra < e),
        };
        if better {
            best = Some((matched, extra, h));
        }
    }
    best.map(|(_, _, h)| h)
}
