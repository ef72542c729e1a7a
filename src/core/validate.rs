//! The documented input rules, checked before anything is sent.
use crate::core::error::{Error, Result};

pub const VISIBILITIES: &[&str] = &["public", "unlisted", "private"];
pub const MAX_TAGS: usize = 10;
pub const MAX_URL_LEN: usize = 2083;

fn bad(msg: impl Into<String>) -> Error {
    Error::Validation(msg.into())
}

/// A scan id: a UUID in its canonical 8-4-4-4-12 hex form (returned lowercase).
pub fn uuid(what: &str, s: &str) -> Result<String> {
    let t = s.trim();
    let ok = t.len() == 36
        && t.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        });
    if !ok {
        return Err(bad(format!(
            "{what} must be a UUID like 0196d976-07f6-7aae-8a57-aa019145f31c, got {s:?}"
        )));
    }
    Ok(t.to_ascii_lowercase())
}

pub fn sha256(s: &str) -> Result<String> {
    let t = s.trim();
    if t.len() != 64 || !t.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(bad(format!(
            "sha256 must be 64 hexadecimal characters, got {s:?} ({} characters)",
            s.chars().count()
        )));
    }
    Ok(t.to_ascii_lowercase())
}

pub fn visibility(v: &str, allowed: &[&str]) -> Result<String> {
    let l = v.trim().to_ascii_lowercase();
    if allowed.contains(&l.as_str()) {
        Ok(l)
    } else {
        Err(bad(format!(
            "visibility must be one of {}, got {v:?}",
            allowed.join(", ")
        )))
    }
}

pub fn tags(tags: &[String]) -> Result<()> {
    if tags.len() > MAX_TAGS {
        return Err(bad(format!(
            "at most {MAX_TAGS} tags are allowed per scan, got {}",
            tags.len()
        )));
    }
    if let Some(t) = tags.iter().find(|t| t.trim().is_empty()) {
        return Err(bad(format!("tags must not be empty, got {t:?}")));
    }
    Ok(())
}

/// An ISO 3166-1 alpha-2 code; the service speaks lowercase.
pub fn country(c: &str) -> Result<String> {
    let t = c.trim();
    if t.len() == 2 && t.chars().all(|ch| ch.is_ascii_alphabetic()) {
        Ok(t.to_ascii_lowercase())
    } else {
        Err(bad(format!(
            "country must be a two-letter ISO 3166-1 code such as \"de\", got {c:?}"
        )))
    }
}

pub fn scan_url(u: &str) -> Result<String> {
    let t = u.trim();
    if t.is_empty() {
        return Err(bad("url must not be empty"));
    }
    if t.len() > MAX_URL_LEN {
        return Err(bad(format!(
            "url is {} characters long; the service accepts at most {MAX_URL_LEN}",
            t.len()
        )));
    }
    if let Some((scheme, _)) = t.split_once("://") {
        let s = scheme.to_ascii_lowercase();
        if s != "http" && s != "https" {
            return Err(bad(format!(
                "only http and https URLs can be scanned, got scheme {scheme:?}"
            )));
        }
    }
    if t.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(bad(format!("url must not contain whitespace, got {u:?}")));
    }
    Ok(t.to_string())
}

pub fn positive(what: &str, n: i64) -> Result<u64> {
    if n <= 0 {
        return Err(bad(format!("{what} must be a positive integer, got {n}")));
    }
    Ok(n as u64)
}

pub fn seconds(what: &str, s: f64, allow_zero: bool) -> Result<f64> {
    if !s.is_finite() || s < 0.0 || (!allow_zero && s == 0.0) {
        let expect = if allow_zero {
            "zero or more"
        } else {
            "more than zero"
        };
        return Err(bad(format!("{what} must be {expect} seconds, got {s}")));
    }
    Ok(s)
}

/// search_after as the service validates it: "<13-digit ms>,<uuid>".
pub fn search_after(s: &str) -> Result<String> {
    let t = s.trim();
    let ok = t.split_once(',').is_some_and(|(ms, id)| {
        ms.len() == 13 && ms.bytes().all(|b| b.is_ascii_digit()) && uuid("", id).is_ok()
    });
    if !ok {
        return Err(bad(format!(
            "search_after must be the last hit's sort values joined by a comma, like \"1611489992146,2e973dc1-8e9c-4fb5-9b6b-e5d0c1a25e3c\", got {s:?}"
        )));
    }
    Ok(t.to_ascii_lowercase())
}

/// search_after of the other data sources (hostnames, incidents,
/// notifications, certificates): "<13-digit ms>,<id>", the id any non-empty
/// text without a comma (kept as it is).
pub fn search_after_any(s: &str) -> Result<String> {
    let t = s.trim();
    let ok = t.split_once(',').is_some_and(|(ms, id)| {
        ms.len() == 13
            && ms.bytes().all(|b| b.is_ascii_digit())
            && !id.is_empty()
            && !id.contains(',')
            && !id.chars().any(char::is_whitespace)
    });
    if !ok {
        return Err(bad(format!(
            "search_after must be the last hit's sort values joined by a comma, like \"1611489992146,example.com\", got {s:?}"
        )));
    }
    Ok(t.to_string())
}

/// An object id (incident, saved search, subscription, channel, scanner):
/// letters, digits, `-` and `_`, so no id can change the request path.
pub fn object_id(what: &str, s: &str) -> Result<String> {
    let t = s.trim();
    if t.is_empty()
        || t.len() > 128
        || !t
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(bad(format!(
            "{what} must be an id of letters, digits, - and _ (at most 128), got {s:?}"
        )));
    }
    Ok(t.to_string())
}

/// A free-form path segment (scanner id, hostname, ...): percent-encoded so no
/// input can change the request path.
pub fn segment(what: &str, s: &str) -> Result<String> {
    let t = s.trim();
    if t.is_empty() {
        return Err(bad(format!("{what} must not be empty")));
    }
    if t == "." || t == ".." {
        return Err(bad(format!("{what} must not be {t:?}")));
    }
    Ok(
        percent_encoding::utf8_percent_encode(t, percent_encoding::NON_ALPHANUMERIC)
            .to_string()
            .replace("%2D", "-")
            .replace("%2E", ".")
            .replace("%5F", "_")
            .replace("%7E", "~"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids() {
        assert_eq!(
            uuid("x", "0196D976-07F6-7AAE-8A57-AA019145F31C").unwrap(),
            "0196d976-07f6-7aae-8a57-aa019145f31c"
        );
        for bad in [
            "",
            "abc",
            "0196d976-07f6-7aae-8a57-aa019145f31",
            "../../etc/passwd",
            "0196d976x07f6-7aae-8a57-aa019145f31c",
        ] {
            assert!(uuid("scan id", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn other_rules() {
        assert!(sha256(&"a".repeat(64)).is_ok());
        assert!(sha256(&"g".repeat(64)).is_err());
        assert!(sha256("abc").is_err());
        assert!(visibility("Private", VISIBILITIES).is_ok());
        assert!(visibility("secret", VISIBILITIES).is_err());
        assert!(tags(&vec!["t".to_string(); 11]).is_err());
        assert!(tags(&vec!["t".to_string(); 10]).is_ok());
        assert_eq!(country("DE").unwrap(), "de");
        assert!(country("deu").is_err());
        assert!(scan_url("ftp://x.org").is_err());
        assert!(scan_url("example.com").is_ok());
        assert!(scan_url(&format!("https://a.com/{}", "x".repeat(2100))).is_err());
        assert!(positive("size", 0).is_err());
        assert!(search_after("1611489992146,2e973dc1-8e9c-4fb5-9b6b-e5d0c1a25e3c").is_ok());
        assert!(search_after("[1611489992146]").is_err());
        assert_eq!(
            search_after_any(" 1611489992146,Example.com ").unwrap(),
            "1611489992146,Example.com"
        );
        assert!(search_after_any("1611489992146,").is_err());
        assert!(search_after_any("1611489992146,a,b").is_err());
        assert!(search_after_any("161148999214,a").is_err());
        assert_eq!(segment("h", "a/b c").unwrap(), "a%2Fb%20c");
        assert_eq!(
            segment("h", "www.example-1.com").unwrap(),
            "www.example-1.com"
        );
        assert!(segment("h", "..").is_err());
        assert!(object_id("id", "6b0134846f2edf4d9502ca64").is_ok());
        assert!(object_id("id", "../x").is_err());
        assert!(object_id("id", "").is_err());
    }
}
