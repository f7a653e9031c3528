//! A labelled corpus for measuring theme quality: realistic titles and
//! leads in known groups, with two sources that belong to no group and
//! share only common words ("changes", "report") with the rest — the
//! shape that once made a theme of a GitLab survey and whale strandings.
//!
//! Measured: pairwise precision and recall of "same theme" against the
//! labels (a record in the unrelated group pairs with nothing), and that
//! every member of a theme holds the theme's key phrase.

use crate::terms;
use crate::themes::{Input, Theme, cluster};
use std::collections::BTreeSet;

/// `(group, title, text)`; group 0 belongs nowhere.
pub const CORPUS: &[(u32, &str, &str)] = &[
    (
        1,
        "Marine heatwave pushes Great Barrier Reef into fifth mass bleaching",
        "A marine heatwave that lingered over the northern reef for eleven weeks has left two thirds of surveyed coral bleached, scientists said on Monday. Water temperatures stayed two degrees above the summer maximum. The changes were recorded by aerial surveys.",
    ),
    (
        1,
        "Why marine heatwaves are getting longer",
        "Marine heatwaves now last twice as long as they did in the 1980s, according to a report that tracked sea surface temperatures across every ocean basin. Longer heatwaves give corals no time to recover between bleaching events.",
    ),
    (
        1,
        "Florida Keys corals bleach early as marine heatwave sets records",
        "Divers in the Florida Keys found bleached coral in July, a month earlier than usual, as a marine heatwave pushed water above 32 degrees. Reef managers moved nursery corals to deeper, cooler water.",
    ),
    (
        2,
        "Coral nurseries: growing reefs back one fragment at a time",
        "Coral restoration projects grow fragments on underwater trees in coral nurseries and outplant them onto damaged reefs. Survival after outplanting varies widely between sites.",
    ),
    (
        2,
        "Outplanting heat-tolerant corals shows early promise",
        "A coral restoration trial outplanted fragments bred from heat-tolerant parents. After a year, survival of the outplanted corals was double that of ordinary nursery stock.",
    ),
    (
        2,
        "Can coral restoration keep up with bleaching?",
        "Coral restoration can replant a few hectares a year, a fraction of what bleaching destroys. Researchers argue outplanting must be paired with cutting emissions.",
    ),
    (
        3,
        "Ocean acidification slows reef growth, decade-long study finds",
        "Ocean acidification has cut the rate at which reef-building corals lay down their skeletons by a fifth over ten years, a study of cores from the Red Sea found.",
    ),
    (
        3,
        "What ocean acidification means for shell-building animals",
        "As seawater absorbs carbon dioxide, ocean acidification makes it harder for corals, oysters and pteropods to build shells and skeletons. The changes are fastest in cold water.",
    ),
    (
        0,
        "GitLab survey: developers report changes in how teams ship code",
        "The annual GitLab developer survey asked 5,000 engineers about changes to their release process. Most report shipping more often than a year ago.",
    ),
    (
        0,
        "List of whale strandings in 2026",
        "This list records mass strandings of whales reported in 2026, with the species, the place and the number of animals. Changes to the list follow the news report of each event.",
    ),
];

/// The corpus as clustering inputs.
pub fn inputs() -> Vec<Input> {
    CORPUS
        .iter()
        .map(|(_, title, text)| Input {
            title: (*title).into(),
            description: String::new(),
            text: (*text).into(),
        })
        .collect()
}

/// Pairwise precision and recall of "same theme" against the labels.
pub fn pairwise(themes: &[Theme]) -> (f64, f64) {
    let gold: BTreeSet<(usize, usize)> = pairs(|i, j| {
        let (a, b) = (CORPUS[i].0, CORPUS[j].0);
        a != 0 && a == b
    });
    let same_theme = |i: usize, j: usize| {
        themes
            .iter()
            .filter(|t| !t.is_unrelated())
            .any(|t| t.members.contains(&i) && t.members.contains(&j))
    };
    let got: BTreeSet<(usize, usize)> = pairs(same_theme);
    let hits = gold.intersection(&got).count() as f64;
    let precision = if got.is_empty() {
        0.0
    } else {
        hits / got.len() as f64
    };
    let recall = if gold.is_empty() {
        0.0
    } else {
        hits / gold.len() as f64
    };
    (precision, recall)
}

fn pairs(same: impl Fn(usize, usize) -> bool) -> BTreeSet<(usize, usize)> {
    let n = CORPUS.len();
    (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .filter(|&(i, j)| same(i, j))
        .collect()
}

/// True when the text of record `i` holds every word of `phrase` (by
/// stem, in order, next to each other).
pub fn holds_phrase(input: &Input, phrase: &str) -> bool {
    let stems = |s: &str| terms::words(s).map(|w| terms::stem(&w)).collect::<Vec<_>>();
    let want = stems(phrase);
    let have = stems(&format!(
        "{} . {} . {}",
        input.title, input.description, input.text
    ));
    !want.is_empty() && have.windows(want.len()).any(|w| w == want.as_slice())
}

#[test]
fn themes_match_the_labelled_groups_and_share_their_key_phrase() {
    let inputs = inputs();
    let topic = terms::topic_terms("coral reefs");
    let themes = cluster(&inputs, &topic);
    for row in crate::themes::similarity(&inputs, &topic) {
        let cells: Vec<String> = row.iter().map(|s| format!("{s:.2}")).collect();
        println!("{}", cells.join(" "));
    }
    let (precision, recall) = pairwise(&themes);
    println!("themes: {themes:#?}\npairwise precision {precision:.3}, recall {recall:.3}");
    assert!(precision >= 0.99, "precision {precision:.3}: {themes:#?}");
    assert!(recall >= 0.99, "recall {recall:.3}: {themes:#?}");
    for t in themes.iter().filter(|t| !t.is_unrelated()) {
        let phrase = &t.terms[0];
        for &m in &t.members {
            assert!(
                holds_phrase(&inputs[m], phrase),
                "{:?} lacks {phrase:?}",
                inputs[m].title
            );
        }
    }
    // The two that belong nowhere are honestly unrelated.
    let unrelated = themes.iter().find(|t| t.is_unrelated()).expect("unrelated");
    assert_eq!(unrelated.members, [8, 9], "{themes:#?}");
}
