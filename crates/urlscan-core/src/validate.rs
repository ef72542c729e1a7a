//! The documented input rules of parameters, checked before anything is
//! sent (a body's fields are checked by their kind, `fields::check`, which
//! uses these too). The rules themselves (enums, limits, formats) live in
//! `urlscan_rules`, which the emulator reads too.
//! Messages quote at most a short prefix of what was given.
use crate::error::{Error, Result};
use urlscan_rules::{self as rules, DURATION_MAX_S, QUERY_MAX_LEN};
pub use urlscan_rules::{shown, MAX_TAGS, URL_MAX_LEN as MAX_URL_LEN, VISIBILITIES};

/// Longest part of an input quoted in a message.
const QUOTE: usize = 80;

fn q(s: &str) -> String {
    format!("{:?}", shown(s, QUOTE))
}

fn bad(msg: impl Into<String>) -> Error {
    Error::Validation(msg.into())
}

/// `s` trimmed, when `ok` accepts it; otherwise the message `why` gives.
fn trimmed(s: &str, ok: impl FnOnce(&str) -> bool, why: impl FnOnce() -> String) -> Result<&str> {
    let t = s.trim();
    if ok(t) {
        Ok(t)
    } else {
        Err(bad(why()))
    }
}

/// `s` trimmed, when `ok` accepts it; otherwise "`what` must be `shape`, got `s`".
fn must_be<'a>(
    what: &str,
    s: &'a str,
    ok: impl FnOnce(&str) -> bool,
    shape: std::fmt::Arguments<'_>,
) -> Result<&'a str> {
    trimmed(s, ok, || format!("{what} must be {shape}, got {}", q(s)))
}

/// A hit's sort values as search_after: "<13-digit ms>,<id>", with an id
/// `id_ok` accepts (the message shows `example_id` as the id).
fn sort_values<'a>(
    s: &'a str,
    id_ok: impl FnOnce(&str) -> bool,
    example_id: &str,
) -> Result<&'a str> {
    let ok = |t: &str| {
        t.split_once(',').is_some_and(|(ms, id)| {
            ms.len() == 13 && ms.bytes().all(|b| b.is_ascii_digit()) && id_ok(id)
        })
    };
    must_be(
        "search_after",
        s,
        ok,
        format_args!(
            "the last hit's sort values joined by a comma, like \"1611489992146,{example_id}\""
        ),
    )
}

/// A scan id: a UUID in its canonical 8-4-4-4-12 hex form (returned lowercase).
pub fn uuid(what: &str, s: &str) -> Result<String> {
    must_be(
        what,
        s,
        rules::uuid,
        format_args!("a UUID like 0196d976-07f6-7aae-8a57-aa019145f31c"),
    )
    .map(str::to_ascii_lowercase)
}

pub fn sha256(s: &str) -> Result<String> {
    trimmed(s, rules::sha256, || {
        format!(
            "sha256 must be 64 hexadecimal characters, got {} ({} characters)",
            q(s),
            s.chars().count()
        )
    })
    .map(str::to_ascii_lowercase)
}

/// An ISO 3166-1 alpha-2 code; the service speaks lowercase.
pub fn country(c: &str) -> Result<String> {
    let t = c.trim();
    if rules::country(t) {
        Ok(t.to_ascii_lowercase())
    } else {
        Err(bad(format!(
            "country must be a two-letter ISO 3166-1 code such as \"de\", got {}",
            q(c)
        )))
    }
}

/// A search query: at most `QUERY_MAX_LEN` characters.
pub fn query(s: &str) -> Result<()> {
    let n = s.chars().count();
    if n > QUERY_MAX_LEN {
        return Err(bad(format!(
            "q must be at most {QUERY_MAX_LEN} characters, got {n}"
        )));
    }
    Ok(())
}

/// A value sent in an HTTP header (user agent, referer, extra headers).
pub fn header_value(what: &str, s: &str) -> Result<()> {
    if !rules::header_value(s) {
        return Err(bad(format!(
            "{what} must be printable characters without CR, LF or other control characters, got {}",
            q(s)
        )));
    }
    Ok(())
}

pub fn positive(what: &str, n: i64) -> Result<u64> {
    if n <= 0 {
        return Err(bad(format!("{what} must be a positive integer, got {n}")));
    }
    Ok(n as u64)
}

/// A duration in seconds: finite, at most `DURATION_MAX_S` (a week), and
/// positive (or zero where allowed), so no deadline computed from it can overflow.
pub fn seconds(what: &str, s: f64, allow_zero: bool) -> Result<f64> {
    if !s.is_finite() || s < 0.0 || (!allow_zero && s == 0.0) || s > DURATION_MAX_S {
        let expect = if allow_zero {
            "zero or more"
        } else {
            "more than zero"
        };
        return Err(bad(format!(
            "{what} must be {expect} seconds and at most {DURATION_MAX_S} (7 days), got {s}"
        )));
    }
    Ok(s)
}

/// search_after as the service validates it: "<13-digit ms>,<uuid>".
pub fn search_after(s: &str) -> Result<String> {
    let example = "2e973dc1-8e9c-4fb5-9b6b-e5d0c1a25e3c";
    sort_values(s, |id| uuid("", id).is_ok(), example).map(str::to_ascii_lowercase)
}

/// search_after of the other data sources (hostnames, incidents,
/// notifications, certificates, domains): "<13-digit ms>,<id>", the id any non-empty
/// text without a comma (kept as it is).
pub fn search_after_any(s: &str) -> Result<String> {
    let id_ok =
        |id: &str| !id.is_empty() && !id.contains(',') && !id.chars().any(char::is_whitespace);
    sort_values(s, id_ok, "example.com").map(str::to_string)
}

/// An object id (incident, saved search, subscription, channel, scanner):
/// letters, digits, `-` and `_`, so no id can change the request path.
pub fn object_id(what: &str, s: &str) -> Result<String> {
    must_be(
        what,
        s,
        rules::object_id,
        format_args!("an id of letters, digits, - and _"),
    )
    .map(str::to_string)
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
        assert_eq!(country("DE").unwrap(), "de");
        assert!(country("deu").is_err());
        let huge = "x".repeat(10_000_000);
        for e in [
            uuid("uuid", &huge).map(|_| String::new()),
            sha256(&huge),
            search_after(&huge),
        ] {
            let Err(Error::Validation(m)) = e else {
                panic!("accepted")
            };
            assert!(m.len() < 400, "{}", m.len());
        }
        // No length is stated for ids and other path segments: the HTTP
        // stack's own limit on a URI refuses what cannot be sent.
        assert!(object_id("id", &"a".repeat(1_000)).is_ok());
        assert!(segment("h", &"a".repeat(10_000)).is_ok());
        assert!(object_id("id", "a/b").is_err());
        assert!(seconds("t", 1e30, false).is_err());
        assert!(seconds("t", f64::NAN, false).is_err());
        assert!(seconds("t", 18446744073709551616.0, true).is_err());
        assert!(seconds("t", 600.0, false).is_ok());
        assert!(header_value("ua", "a\r\nb").is_err());
        assert!(query(&huge).is_err());
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
