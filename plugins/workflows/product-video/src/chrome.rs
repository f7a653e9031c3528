//! The small lines around a product on its page — "$89.99", "In stock",
//! "4.5 out of 5 (212 reviews)" — read when the page came through a
//! general web reader instead of the shopping provider (which gives them
//! as metadata). Also the amount and stock-word parsers both paths share.

/// An amount as written ("89.99", "1,299.00", "12,50").
pub fn amount(text: &str) -> Option<f64> {
    let start = text.find(|c: char| c.is_ascii_digit())?;
    let raw: String = text[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',' || *c == '.')
        .collect();
    let raw = raw.trim_end_matches([',', '.']);
    let decimal_comma = raw.rfind(',').is_some_and(|i| {
        raw.rfind('.').is_none_or(|d| d < i) && (1..=2).contains(&(raw.len() - i - 1))
    });
    let normal = if decimal_comma {
        raw.replace('.', "").replace(',', ".")
    } else {
        raw.replace(',', "")
    };
    normal.parse().ok().filter(|v: &f64| v.is_finite())
}

/// `in_stock`, `limited`, `pre_order`, `back_order` or `out_of_stock`
/// from schema.org values
/// (`https://schema.org/InStock`) or words ("In stock").
pub fn availability(text: &str) -> Option<String> {
    let key: String = text
        .rsplit(['/', ':'])
        .next()
        .unwrap_or(text)
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase();
    let has = |w: &[&str]| w.iter().any(|x| key.contains(x));
    if has(&["outofstock", "soldout", "discontinued"]) {
        Some("out_of_stock".into())
    } else if has(&["preorder", "presale"]) {
        // Not stock at all yet: a pre-order is not "limited stock".
        Some("pre_order".into())
    } else if has(&["backorder"]) {
        Some("back_order".into())
    } else if has(&["limited", "onlyafewleft"]) {
        Some("limited".into())
    } else if has(&["instock", "onlineonly", "instoreonly"]) {
        Some("in_stock".into())
    } else {
        None
    }
}

/// A line that is only a price with its currency symbol: "$89.99",
/// "£95.00", "€12,50", "¥1299".
pub fn money_line(line: &str) -> Option<(f64, String)> {
    let line = line.trim();
    if line.chars().count() > 16 {
        return None;
    }
    let currency = [
        ("US$", "USD"),
        ("$", "USD"),
        ("£", "GBP"),
        ("€", "EUR"),
        ("¥", "JPY"),
    ]
    .iter()
    .find(|(sym, _)| line.starts_with(sym) || line.ends_with(sym))
    .map(|(_, c)| c.to_string())?;
    let rest = line.trim_matches(|c: char| !c.is_ascii_digit());
    if !rest
        .chars()
        .all(|c| c.is_ascii_digit() || ",. ".contains(c))
    {
        return None;
    }
    amount(rest).filter(|v| *v > 0.0).map(|v| (v, currency))
}

/// "4.5 out of 5 (212 reviews)", "Rated 4.5/5 from 212 reviews".
pub fn rating_line(line: &str) -> Option<(f64, Option<u64>)> {
    let lower = line.to_lowercase();
    let at = lower.find(" out of 5").or_else(|| lower.find("/5"))?;
    let value = lower[..at]
        .rsplit(|c: char| !(c.is_ascii_digit() || c == '.'))
        .next()
        .and_then(amount)?;
    let reviews = lower.find("review").and_then(|r| {
        lower[at + 2..r]
            .rsplit(|c: char| !c.is_ascii_digit() && c != ',')
            .find(|w| w.chars().any(|c| c.is_ascii_digit()))
            .and_then(amount)
            .map(|n| n as u64)
    });
    (0.0..=5.0).contains(&value).then_some((value, reviews))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts() {
        assert_eq!(amount("1,299.00"), Some(1299.0));
        assert_eq!(amount("€12,50"), Some(12.5));
        assert_eq!(amount(" 89.99 USD"), Some(89.99));
        assert_eq!(amount("n/a"), None);
    }

    #[test]
    fn page_lines() {
        assert_eq!(money_line("$89.99"), Some((89.99, "USD".into())));
        assert_eq!(money_line("12,50 €"), Some((12.5, "EUR".into())));
        assert_eq!(money_line("Shipping $4.99"), None);
        assert_eq!(money_line("$0.00"), None);
        assert_eq!(
            rating_line("4.5 out of 5 (212 reviews)"),
            Some((4.5, Some(212)))
        );
        assert_eq!(
            rating_line("Rated 4.8/5 from 1,301 reviews"),
            Some((4.8, Some(1301)))
        );
        assert_eq!(rating_line("Rated 4/5"), Some((4.0, None)));
        assert_eq!(rating_line("Size 10 out of stock"), None);
        assert_eq!(availability("In stock").as_deref(), Some("in_stock"));
        assert_eq!(
            availability("https://schema.org/OutOfStock").as_deref(),
            Some("out_of_stock")
        );
        assert_eq!(availability("Trail shoe"), None);
        assert_eq!(
            availability("https://schema.org/PreOrder").as_deref(),
            Some("pre_order")
        );
        assert_eq!(availability("BackOrder").as_deref(), Some("back_order"));
    }
}
