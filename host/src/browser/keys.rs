//! Key names and combos (`Enter`, `Control+a`, `Shift+Tab`) as CDP key events.

use crate::error::ApiError;

/// One key as `Input.dispatchKeyEvent` wants it.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    pub key: String,
    pub code: String,
    pub key_code: u32,
    /// Text the key types (None for non-printing keys).
    pub text: Option<String>,
}

pub const ALT: u32 = 1;
pub const CONTROL: u32 = 2;
pub const META: u32 = 4;
pub const SHIFT: u32 = 8;

/// A combo: modifiers bitmask, the modifier keys in order, and the main key.
#[derive(Debug, Clone, PartialEq)]
pub struct Combo {
    pub modifiers: u32,
    pub held: Vec<Key>,
    pub key: Key,
}

fn named(name: &str) -> Option<(&'static str, &'static str, u32, Option<&'static str>)> {
    Some(match name.to_ascii_lowercase().as_str() {
        "enter" | "return" => ("Enter", "Enter", 13, Some("\r")),
        "tab" => ("Tab", "Tab", 9, None),
        "escape" | "esc" => ("Escape", "Escape", 27, None),
        "backspace" => ("Backspace", "Backspace", 8, None),
        "delete" | "del" => ("Delete", "Delete", 46, None),
        "space" | " " => (" ", "Space", 32, Some(" ")),
        "arrowup" | "up" => ("ArrowUp", "ArrowUp", 38, None),
        "arrowdown" | "down" => ("ArrowDown", "ArrowDown", 40, None),
        "arrowleft" | "left" => ("ArrowLeft", "ArrowLeft", 37, None),
        "arrowright" | "right" => ("ArrowRight", "ArrowRight", 39, None),
        "home" => ("Home", "Home", 36, None),
        "end" => ("End", "End", 35, None),
        "pageup" => ("PageUp", "PageUp", 33, None),
        "pagedown" => ("PageDown", "PageDown", 34, None),
        "insert" => ("Insert", "Insert", 45, None),
        "shift" => ("Shift", "ShiftLeft", 16, None),
        "control" | "ctrl" => ("Control", "ControlLeft", 17, None),
        "alt" | "option" => ("Alt", "AltLeft", 18, None),
        "meta" | "cmd" | "command" => ("Meta", "MetaLeft", 91, None),
        "f1" => ("F1", "F1", 112, None),
        "f2" => ("F2", "F2", 113, None),
        "f3" => ("F3", "F3", 114, None),
        "f4" => ("F4", "F4", 115, None),
        "f5" => ("F5", "F5", 116, None),
        "f6" => ("F6", "F6", 117, None),
        "f7" => ("F7", "F7", 118, None),
        "f8" => ("F8", "F8", 119, None),
        "f9" => ("F9", "F9", 120, None),
        "f10" => ("F10", "F10", 121, None),
        "f11" => ("F11", "F11", 122, None),
        "f12" => ("F12", "F12", 123, None),
        _ => return None,
    })
}

/// A single key by name, or a single character.
pub fn key(name: &str) -> Result<Key, ApiError> {
    if let Some((key, code, key_code, text)) = named(name) {
        return Ok(Key {
            key: key.into(),
            code: code.into(),
            key_code,
            text: text.map(str::to_string),
        });
    }
    let mut chars = name.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Ok(char_key(c)),
        _ => Err(ApiError::invalid(format!("unknown key {name:?}"))
            .with_hint("use names like Enter, Tab, Escape, ArrowDown, F5, or one character")),
    }
}

/// The key that types `c` (US layout for code/keyCode of letters and digits).
pub fn char_key(c: char) -> Key {
    let (code, key_code) = if c.is_ascii_alphabetic() {
        (
            format!("Key{}", c.to_ascii_uppercase()),
            c.to_ascii_uppercase() as u32,
        )
    } else if c.is_ascii_digit() {
        (format!("Digit{c}"), c as u32)
    } else {
        (String::new(), 0)
    };
    Key {
        key: c.to_string(),
        code,
        key_code,
        text: Some(c.to_string()),
    }
}

/// Parses `Control+Shift+a`, `Enter`, `+` (the plus key itself).
pub fn combo(spec: &str) -> Result<Combo, ApiError> {
    if spec.is_empty() {
        return Err(ApiError::invalid("the key is empty"));
    }
    let parts: Vec<&str> = if spec == "+" || spec.ends_with("++") {
        let head = spec.trim_end_matches('+');
        let mut p: Vec<&str> = if head.is_empty() {
            vec![]
        } else {
            head.split('+').collect()
        };
        p.push("+");
        p
    } else {
        spec.split('+').collect()
    };
    let (last, mods) = parts
        .split_last()
        .ok_or_else(|| ApiError::invalid("the key is empty"))?;
    let mut modifiers = 0;
    let mut held = Vec::new();
    for m in mods {
        let bit = match m.to_ascii_lowercase().as_str() {
            "alt" | "option" => ALT,
            "control" | "ctrl" => CONTROL,
            "meta" | "cmd" | "command" => META,
            "shift" => SHIFT,
            other => {
                return Err(
                    ApiError::invalid(format!("{other:?} is not a modifier in {spec:?}"))
                        .with_hint("modifiers are Control, Shift, Alt, Meta"),
                );
            }
        };
        modifiers |= bit;
        held.push(key(m)?);
    }
    let mut main = key(last)?;
    // With Control/Meta/Alt held a key types nothing (it is a shortcut).
    if modifiers & (CONTROL | META | ALT) != 0 {
        main.text = None;
    } else if modifiers & SHIFT != 0
        && let Some(upper) = main.text.as_ref().map(|t| t.to_uppercase())
    {
        main.key.clone_from(&upper);
        main.text = Some(upper);
    }
    Ok(Combo {
        modifiers,
        held,
        key: main,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combos_parse_modifiers_and_keys() {
        let c = combo("Control+a").expect("parses");
        assert_eq!(c.modifiers, CONTROL);
        assert_eq!(c.key.code, "KeyA");
        assert_eq!(c.key.text, None);
        let e = combo("Enter").expect("parses");
        assert_eq!((e.modifiers, e.key.key_code), (0, 13));
        let p = combo("Shift++").expect("parses");
        assert_eq!((p.modifiers, p.key.key.as_str()), (SHIFT, "+"));
        assert!(combo("Hyper+a").is_err());
        assert!(combo("Control+Banana").is_err());
    }
}
