//! Phishing classification: which brand a URL impersonates (brand names
//! glued to phishing words on a domain the brand does not own); the brand and
//! verdict sections of a result are rendered in `result`.

use std::collections::HashSet;

use super::urls::{apex_of, is_ip_literal, suffix_of};
use super::words::{self, Brand};

fn is_phish_remainder(s: &str) -> bool {
    let core = s.trim_end_matches(|c: char| c.is_ascii_digit());
    if core.is_empty() {
        return !s.is_empty();
    }
    // Up to three phishing words glued together ("securelogin").
    fn seg(s: &str, depth: usize) -> bool {
        if s.is_empty() {
            return true;
        }
        if depth == 0 {
            return false;
        }
        words::PHISH_WORDS
            .iter()
            .any(|w| s.starts_with(w) && seg(&s[w.len()..], depth - 1))
    }
    seg(core, 3)
}

fn token_hits_keyword(token: &str, kw: &str) -> bool {
    if token == kw {
        return true;
    }
    if let Some(rest) = token.strip_prefix(kw) {
        if is_phish_remainder(rest) {
            return true;
        }
    }
    if let Some(rest) = token.strip_suffix(kw) {
        if !rest.is_empty() && is_phish_remainder(rest) {
            return true;
        }
    }
    false
}

/// Apex domains owned by brands, well-known sites and infrastructure (a
/// set: every scan asks, several times).
fn legit_apexes() -> &'static HashSet<String> {
    static CELL: std::sync::OnceLock<HashSet<String>> = std::sync::OnceLock::new();
    CELL.get_or_init(|| {
        let mut v: HashSet<String> = HashSet::new();
        for b in words::BRANDS.iter() {
            for l in &b.legit {
                v.insert(l.to_string());
            }
        }
        for k in words::KNOWN_SITES.iter() {
            v.insert(k.apex.to_string());
        }
        for t in words::THIRD_PARTIES.iter() {
            v.insert(apex_of(t.host));
        }
        for r in words::REDIRECTORS.iter() {
            v.insert(r.0.to_string());
        }
        v.remove("");
        v
    })
}

pub(super) fn is_legit_apex(apex: &str) -> bool {
    legit_apexes().contains(apex)
}

/// The brand a URL impersonates, if any.
pub(super) fn classify(host: &str, path: &str) -> Option<&'static Brand> {
    let apex = apex_of(host);
    if is_legit_apex(&apex) {
        return None;
    }
    if !is_ip_literal(host) {
        let label_part = host
            .strip_suffix(suffix_of(&apex))
            .unwrap_or(host)
            .trim_end_matches('.');
        let tokens: Vec<&str> = label_part
            .split(['.', '-', '_'])
            .filter(|t| !t.is_empty())
            .collect();
        for b in words::BRANDS.iter() {
            if tokens
                .iter()
                .any(|t| b.keywords.iter().any(|k| token_hits_keyword(t, k)))
            {
                return Some(b);
            }
        }
    }
    let lower = path.to_ascii_lowercase();
    let ptoks: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|t| !t.is_empty())
        .collect();
    const STRONG: &[&str] = &[
        "login",
        "signin",
        "verify",
        "account",
        "secure",
        "update",
        "auth",
        "billing",
        "wallet",
        "confirm",
        "unlock",
        "recovery",
        "validation",
        "session",
        "payment",
        "invoice",
    ];
    let strong = ptoks.iter().any(|t| STRONG.contains(t))
        || lower.ends_with(".php")
        || lower.ends_with(".html")
        || lower.ends_with(".htm");
    if strong {
        for b in words::BRANDS.iter() {
            if ptoks
                .iter()
                .any(|t| b.keywords.iter().any(|k| token_hits_keyword(t, k)))
            {
                return Some(b);
            }
        }
    }
    None
}
