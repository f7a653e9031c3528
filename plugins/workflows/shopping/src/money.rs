//! Money as shops write it: amounts with either decimal convention
//! (`1,299.00`, `1.299,00`, `€12,50`), currency symbols and codes, and
//! shipping costs stated in a product's description ("Free shipping",
//! "Shipping: $5.99"). Pure functions, no guessing beyond what is written.

/// ISO 4217 codes the workflow recognises in text (a price field or a
/// description); the region choices map onto a subset of them.
const CODES: &[&str] = &[
    "USD", "GBP", "EUR", "JPY", "CAD", "AUD", "CHF", "INR", "CNY", "SEK", "NOK", "DKK", "PLN",
    "NZD", "MXN", "BRL",
];

/// Currency symbols, longest first so `US$` wins over `$`.
const SYMBOLS: &[(&str, &str)] = &[
    ("US$", "USD"),
    ("CA$", "CAD"),
    ("AU$", "AUD"),
    ("NZ$", "NZD"),
    ("C$", "CAD"),
    ("A$", "AUD"),
    ("€", "EUR"),
    ("£", "GBP"),
    ("¥", "JPY"),
    ("円", "JPY"),
    ("₹", "INR"),
    ("$", "USD"),
];

/// The first amount in `text`, e.g. `"$1,299.00"` → 1299.0, `"€12,50"` →
/// 12.5, `"1.299,00 €"` → 1299.0, `"-5"` → -5.0. Separators: when both `,`
/// and `.` occur the last one is the decimal mark; a lone `,` followed by
/// one or two digits is a decimal comma, otherwise a thousands separator;
/// a lone `.` is a decimal point (so `1.299` is 1.299), several dots are
/// thousands separators. Spaces, no-break spaces and `'` inside the
/// number group digits. None when there is no digit.
pub fn parse_amount(text: &str) -> Option<f64> {
    let start = text.find(|c: char| c.is_ascii_digit())?;
    // A minus sign right before the number (maybe behind a symbol: `-$5`).
    let before: Vec<char> = text[..start].chars().rev().take(4).collect();
    let negative = before
        .iter()
        .position(|c| matches!(c, '-' | '−'))
        .is_some_and(|i| before[..i].iter().all(|c| !c.is_alphanumeric()));
    let mut raw = String::new();
    let mut chars = text[start..].chars().peekable();
    while let Some(c) = chars.next() {
        let next_is_digit = chars.peek().is_some_and(|n| n.is_ascii_digit());
        match c {
            '0'..='9' => raw.push(c),
            ',' | '.' if next_is_digit => raw.push(c),
            ' ' | '\u{a0}' | '\u{202f}' | '\'' if next_is_digit => {}
            _ => break,
        }
    }
    let commas = raw.matches(',').count();
    let dots = raw.matches('.').count();
    let number = match (commas, dots) {
        (0, 0) => raw,
        (_, _) if commas > 0 && dots > 0 => {
            let last_comma = raw.rfind(',').unwrap_or(0);
            let last_dot = raw.rfind('.').unwrap_or(0);
            if last_comma > last_dot {
                raw.replace('.', "").replace(',', ".")
            } else {
                raw.replace(',', "")
            }
        }
        (1, 0) => {
            let decimals = raw.len() - raw.rfind(',').unwrap_or(0) - 1;
            if (1..=2).contains(&decimals) {
                raw.replace(',', ".")
            } else {
                raw.replace(',', "")
            }
        }
        (_, 0) => raw.replace(',', ""),
        (0, 1) => raw,
        _ => raw.replace('.', ""),
    };
    let value: f64 = number.parse().ok()?;
    value
        .is_finite()
        .then_some(if negative { -value } else { value })
}

/// A currency as written in a field or next to an amount: an ISO code
/// (any case) or a symbol. None when `text` names none.
pub fn currency_of(text: &str) -> Option<String> {
    let trimmed = text.trim();
    if trimmed.len() == 3 && trimmed.chars().all(|c| c.is_ascii_alphabetic()) {
        return Some(trimmed.to_ascii_uppercase());
    }
    let upper = trimmed.to_ascii_uppercase();
    let words = upper.split(|c: char| !c.is_ascii_alphabetic());
    if let Some(code) = words.into_iter().find(|w| CODES.contains(w)) {
        return Some(code.to_string());
    }
    SYMBOLS
        .iter()
        .find(|(sym, _)| trimmed.contains(sym))
        .map(|(_, code)| code.to_string())
}

/// Phrases that mean shipping costs nothing.
const FREE: &[&str] = &[
    "free shipping",
    "free delivery",
    "ships free",
    "shipping is free",
    "shipping: free",
    "delivery: free",
    "free standard shipping",
    "free uk delivery",
    "free us shipping",
];

/// Words after a "free shipping" phrase that make it conditional.
const CONDITIONAL: &[&str] = &["over", "above", "orders of", "from", "when you spend"];

/// The shipping cost a description states: 0 for "free shipping" (unless
/// it is conditional, "free shipping over $50"), the amount in "shipping
/// $7.95" / "Shipping: $5.99" / "delivery 3,50 €", else None (unknown).
pub fn shipping_in_text(text: &str) -> Option<f64> {
    let lower = text.to_lowercase();
    for phrase in FREE {
        if let Some(i) = lower.find(phrase) {
            let after = &lower[i + phrase.len()..];
            let window: String = after.chars().take(24).collect();
            if !CONDITIONAL.iter().any(|c| window.contains(c)) {
                return Some(0.0);
            }
        }
    }
    for word in ["shipping", "delivery", "postage"] {
        let mut from = 0;
        while let Some(i) = lower[from..].find(word) {
            let at = from + i + word.len();
            let after: String = lower[at..].chars().take(24).collect();
            // The amount must follow closely: "shipping: $5.99", not
            // "shipping within 3 days" or "shipping costs vary, 2 to 5".
            if let Some(d) = after.find(|c: char| c.is_ascii_digit()) {
                let lead =
                    after[..d].trim_matches(|c: char| c.is_whitespace() || ":-–".contains(c));
                if lead.is_empty() || (lead.chars().count() <= 3 && currency_of(lead).is_some()) {
                    return parse_amount(&after).filter(|v| *v >= 0.0);
                }
            }
            from = at;
        }
    }
    None
}

/// Rounds to cents, the unit prices are compared and written in.
pub fn cents(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// `$89.99`, `£95.00`, `€12.50`, `¥1299`, `95.00 CHF`.
pub fn format(v: f64, currency: &str) -> String {
    let decimals = if currency == "JPY" { 0 } else { 2 };
    let amount = format!("{:.*}", decimals, v);
    match currency {
        "USD" => format!("${amount}"),
        "GBP" => format!("£{amount}"),
        "EUR" => format!("€{amount}"),
        "JPY" => format!("¥{amount}"),
        other => format!("{amount} {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_in_both_conventions() {
        assert_eq!(parse_amount("1,299.00"), Some(1299.0));
        assert_eq!(parse_amount("$1,299"), Some(1299.0));
        assert_eq!(parse_amount("€12,50"), Some(12.5));
        assert_eq!(parse_amount("1.299,00 €"), Some(1299.0));
        assert_eq!(parse_amount("1 299,95"), Some(1299.95));
        assert_eq!(parse_amount("CHF 1'299.50"), Some(1299.5));
        assert_eq!(parse_amount("89.99"), Some(89.99));
        assert_eq!(parse_amount("1.234.567"), Some(1234567.0));
        assert_eq!(parse_amount("USD 12."), Some(12.0));
        assert_eq!(parse_amount("-5.00"), Some(-5.0));
        assert_eq!(parse_amount("0"), Some(0.0));
    }

    #[test]
    fn no_digit_is_no_amount() {
        assert_eq!(parse_amount(""), None);
        assert_eq!(parse_amount("Price on request"), None);
        assert_eq!(parse_amount("free"), None);
    }

    #[test]
    fn currencies_from_codes_and_symbols() {
        assert_eq!(currency_of("usd").as_deref(), Some("USD"));
        assert_eq!(currency_of("€12,50").as_deref(), Some("EUR"));
        assert_eq!(currency_of("£95").as_deref(), Some("GBP"));
        assert_eq!(currency_of("US$ 10").as_deref(), Some("USD"));
        assert_eq!(currency_of("12.00 CHF").as_deref(), Some("CHF"));
        assert_eq!(currency_of("12.00"), None);
    }

    #[test]
    fn shipping_phrases() {
        assert_eq!(shipping_in_text("Free shipping. A light shoe."), Some(0.0));
        assert_eq!(shipping_in_text("Free UK delivery."), Some(0.0));
        assert_eq!(shipping_in_text("Shipping: $5.99. Waterproof."), Some(5.99));
        assert_eq!(shipping_in_text("Standard shipping $7.95."), Some(7.95));
        assert_eq!(shipping_in_text("Delivery 3,50 €"), Some(3.5));
        assert_eq!(shipping_in_text("Free shipping on orders over $50"), None);
        assert_eq!(shipping_in_text("Shipping within 3 days"), None);
        assert_eq!(shipping_in_text("A light trail shoe."), None);
    }

    #[test]
    fn formats_with_symbols() {
        assert_eq!(format(89.99, "USD"), "$89.99");
        assert_eq!(format(95.0, "GBP"), "£95.00");
        assert_eq!(format(1299.0, "JPY"), "¥1299");
        assert_eq!(format(12.5, "CHF"), "12.50 CHF");
        assert_eq!(cents(1.005 + 2.0), 3.01);
    }
}
