//! Theme clustering: deterministic, named by a key phrase every member
//! holds; the rest honestly unrelated.

use crate::terms::topic_terms;
use crate::themes::{Input, cluster};

fn input(title: &str, text: &str) -> Input {
    Input {
        title: title.into(),
        description: String::new(),
        text: text.into(),
    }
}

fn sample() -> Vec<Input> {
    vec![
        input(
            "How WASI capabilities sandbox WebAssembly components",
            "The host grants capabilities as resources.",
        ),
        input(
            "Fuel, epochs and deadlines",
            "Fuel metering counts instructions; epoch interruption is cheaper.",
        ),
        input(
            "Capability-based security in Wasmtime",
            "Capabilities are handles, not names.",
        ),
        input(
            "Epochs on in our plugin host",
            "Epoch deadlines hold to a few milliseconds.",
        ),
        input(
            "Shared-nothing components",
            "No shared linear memory between components.",
        ),
        input("Ten pasta recipes", "Boil water."),
    ]
}

#[test]
fn groups_records_by_shared_terms() {
    let topic = topic_terms("webassembly sandboxing");
    let themes = cluster(&sample(), &topic);
    let names: Vec<&str> = themes.iter().map(|t| t.name.as_str()).collect();
    let members: Vec<Vec<usize>> = themes.iter().map(|t| t.members.clone()).collect();
    assert_eq!(members[0], [0, 2], "{themes:#?}");
    assert!(names[0].starts_with("capabilities"), "{names:?}");
    assert_eq!(members[1], [1, 3], "{themes:#?}");
    assert!(names[1].starts_with("epoch"), "{names:?}");
    // Every record is in exactly one theme; leftovers are "unrelated".
    let mut all: Vec<usize> = members.concat();
    all.sort();
    assert_eq!(all, [0, 1, 2, 3, 4, 5]);
    assert_eq!(themes.last().map(|t| t.name.as_str()), Some("unrelated"));
    assert_eq!(themes.last().map(|t| t.members.clone()), Some(vec![4, 5]));
    // The topic's own words never name a theme.
    assert!(
        names
            .iter()
            .all(|n| !n.contains("webassembly") && !n.contains("sandbox"))
    );
}

#[test]
fn clustering_is_deterministic() {
    let topic = topic_terms("webassembly sandboxing");
    let a = cluster(&sample(), &topic);
    for _ in 0..5 {
        assert_eq!(cluster(&sample(), &topic), a);
    }
    assert!(cluster(&[], &topic).is_empty());
    let single = cluster(&sample()[..1], &topic);
    assert_eq!(single.len(), 1);
    assert_eq!(single[0].name, "unrelated");
    assert!(single[0].is_unrelated());
}
