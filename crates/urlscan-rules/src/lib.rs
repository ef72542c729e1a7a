//! The service's rules, written once: enums, limits and formats from the
//! specification (and the reference where it is silent). The client's checks
//! before sending (`core::validate`, `core::fields`) and the emulator's checks
//! on arrival (its `F(...)` field tables) both read this module; each side
//! keeps its own handling logic, so the emulator stays an independent check of
//! the client. `src/tests.rs` lists every rule and asserts both sides accept
//! and refuse the same sample values.

// ---------------------------------------------------------------- enums

/// Scan visibility (submission, live scan, store).
pub const VISIBILITIES: &[&str] = &["public", "unlisted", "private"];
/// `set_visibility` also takes "deleted".
pub const VISIBILITY_CHANGES: &[&str] = &["public", "unlisted", "private", "deleted"];
/// Saved search `datasource`.
pub const SAVED_SEARCH_DATASOURCES: &[&str] = &["hostnames", "scans"];
/// The search data sources (`GET /api/v1/search?datasource=`): the
/// reference's five, and `domains` (the specification searches "scans,
/// hostnames, domains, TLS certificates and incidents"; no document shows its
/// hits, see the README). The first is the default. What the client reads
/// and tables each as is `urlscan_tables::sources`; the emulator has one
/// generator per name (tests hold both sides to this list).
pub const SEARCH_DATASOURCES: &[&str] = &[
    "scans",
    "hostnames",
    "incidents",
    "notifications",
    "certificates",
    "domains",
];
/// Subscription and channel `frequency`.
pub const FREQUENCIES: &[&str] = &["live", "hourly", "daily"];
pub const WEEK_DAYS: &[&str] = &[
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];
/// Saved search `permissions`.
pub const SEARCH_PERMISSIONS: &[&str] = &["public:read", "team:read", "team:write"];
/// Subscription and channel `permissions`.
pub const TEAM_PERMISSIONS: &[&str] = &["team:read", "team:write"];
pub const TLP: &[&str] = &["red", "amber+strict", "amber", "green", "clear"];
/// Scope prefixes of saved-search `userTags`.
pub const USER_TAG_SCOPES: &[&str] = &["pro.", "public.", "private.", "team."];
pub const CHANNEL_TYPES: &[&str] = &["webhook", "email"];
/// Incident `visibility` and subscription `incidentVisibility`.
pub const INCIDENT_VISIBILITIES: &[&str] = &["unlisted", "private"];
/// What the malicious lookup (`/api/v1/malicious/{type}/{value}`) looks up.
pub const MALICIOUS_TYPES: &[&str] = &["ip", "hostname", "domain", "url"];
pub const SCAN_INTERVAL_MODES: &[&str] = &["automatic", "manual"];
pub const WATCHED_ATTRIBUTES: &[&str] =
    &["detections", "tls", "dns", "labels", "page", "meta", "ip"];
pub const INCIDENT_CREATION_MODES: &[&str] = &["none", "default", "always", "ignore-if-exists"];
pub const WATCH_KEYS: &[&str] = &[
    "scans/page.url",
    "scans/page.domain",
    "scans/page.ip",
    "scans/page.apexDomain",
    "hostnames/hostname",
    "hostnames/domain",
];
/// Live-scan `enableFeatures`.
pub const LIVESCAN_ENABLE_FEATURES: &[&str] = &["bannerBypass", "downloadWait", "fullscreen"];
/// Live-scan `disableFeatures`.
pub const LIVESCAN_DISABLE_FEATURES: &[&str] = &[
    "annotation",
    "dom",
    "downloads",
    "hideheadless",
    "pageInformation",
    "responses",
    "screenshot",
];
pub const LIVESCAN_RESOURCE_TYPES: &[&str] =
    &["result", "screenshot", "dom", "response", "download"];
pub const DATADUMP_TIME_WINDOWS: &[&str] = &["days", "hours", "minutes"];
pub const DATADUMP_FILE_TYPES: &[&str] = &["api", "search", "screenshots", "dom"];

// ---------------------------------------------------------------- limits

/// Scan and live-scan URLs: 5 to 2083 characters (the reference).
pub const URL_MIN_LEN: usize = 5;
pub const URL_MAX_LEN: usize = 2083;
pub const MAX_TAGS: usize = 10;
/// Hostname history `limit`.
pub const HOSTNAME_LIMIT_MIN: i64 = 10;
pub const HOSTNAME_LIMIT_MAX: i64 = 10_000;
pub const HOSTNAME_MAX_LEN: usize = 253;
/// Search page `size` (and a saved search's `size`).
pub const SEARCH_SIZE_MAX: i64 = 10_000;
/// The largest total a search reports exactly; past it the service says
/// `has_more` (the reference).
pub const SEARCH_TOTAL_CAP: u64 = 10_000;
/// Incident `extraPath`.
pub const EXTRA_PATH_MAX: usize = 2000;
/// The characters of the `extraPath` pattern besides letters and digits:
/// `^/[a-zA-Z0-9/_\-?#=.~%:@!$&'()*+,;\[\]]*$`.
pub const EXTRA_PATH_SPECIALS: &str = "/_-?#=.~%:@!$&'()*+,;[]";
/// Live-scan `pageTimeout` and `captureDelay` in milliseconds. The reference
/// gives no upper bound; of the two limits in use the stricter is kept.
pub const LIVESCAN_MS_MAX: i64 = 300_000;
// Incident intervals, delays and counts, free text and ids have no limit
// in the specification or the reference: the client checks none (the
// emulator has limits of its own, documented as emulator behaviour).
/// A search query (and a saved search's query): longer ones cannot travel in
/// a request line.
pub const QUERY_MAX_LEN: usize = 8_000;
/// Durations given to the client (timeouts, waits, intervals), in seconds.
pub const DURATION_MAX_S: f64 = 7.0 * 86_400.0;

// ---------------------------------------------------------------- formats

/// A URL the service scans: http or https with a host, 5 to 2083
/// characters, no whitespace or control characters. A URL without a scheme
/// (`example.com/path`) is accepted as the service accepts it: scanned as
/// `http://` + the URL. Returns the reason when refused.
pub fn scan_url(u: &str) -> Result<(), String> {
    let t = u.trim();
    let n = t.chars().count();
    if t.is_empty() {
        return Err("must not be empty".into());
    }
    if !(URL_MIN_LEN..=URL_MAX_LEN).contains(&n) {
        return Err(format!(
            "must be {URL_MIN_LEN} to {URL_MAX_LEN} characters long, got {n}"
        ));
    }
    if t.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("must not contain whitespace or control characters".into());
    }
    let full = match scheme_of(t) {
        Some(s) if s.eq_ignore_ascii_case("http") || s.eq_ignore_ascii_case("https") => {
            // The authority must follow "scheme://" at once: "https:///path",
            // "http:host" and "http://" are refused.
            let rest = &t[s.len() + 1..];
            let Some(auth) = rest.strip_prefix("//") else {
                return Err("must be an http or https URL with a host (scheme://host/...)".into());
            };
            if auth.is_empty() || auth.starts_with('/') {
                return Err("must have a host after the scheme".into());
            }
            t.to_string()
        }
        Some(s) => {
            return Err(format!(
                "must be an http or https URL, got the scheme {:?}",
                shown(s, 20)
            ))
        }
        None => format!("http://{t}"),
    };
    match url::Url::parse(&full) {
        Ok(p) if p.host_str().is_some_and(|h| !h.is_empty()) => Ok(()),
        Ok(_) => Err("must have a host".into()),
        Err(e) => Err(format!("is not a valid URL ({e})")),
    }
}

/// A webhook address: an http or https URL with its scheme and a host, at
/// most `URL_MAX_LEN` characters, no whitespace or control characters.
pub fn web_url(s: &str) -> Result<(), String> {
    let n = s.chars().count();
    if n > URL_MAX_LEN {
        return Err(format!("must be at most {URL_MAX_LEN} characters, got {n}"));
    }
    if s.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("must not contain whitespace or control characters".into());
    }
    match scheme_of(s) {
        Some(sc) if sc.eq_ignore_ascii_case("http") || sc.eq_ignore_ascii_case("https") => {
            scan_url(s)
        }
        _ => Err("must be an http or https URL (with its scheme)".into()),
    }
}

/// An incident observable: a hostname, domain, IP address or URL (http or
/// https); hosts need a dot (or are IPv6 addresses).
pub fn observable(s: &str) -> Result<(), String> {
    const WHAT: &str = "must be a hostname, domain, IP address or http(s) URL";
    let t = s.trim();
    let n = t.chars().count();
    if t.is_empty() || n > URL_MAX_LEN {
        return Err(format!("{WHAT} of 1 to {URL_MAX_LEN} characters"));
    }
    if t.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!("{WHAT}, without whitespace or control characters"));
    }
    // An IPv6 address is no URL host without brackets: taken as it is.
    if t.parse::<std::net::IpAddr>().is_ok() {
        return Ok(());
    }
    let full = if t.contains("://") {
        web_url(t)?;
        t.to_string()
    } else {
        format!("https://{t}")
    };
    let ok = url::Url::parse(&full).is_ok_and(|u| {
        matches!(u.scheme(), "http" | "https")
            && u.host_str()
                .is_some_and(|h| h.contains('.') || h.contains(':'))
    });
    if ok {
        Ok(())
    } else {
        Err(WHAT.into())
    }
}

/// The scheme of a URL, if it has one; `host:port/...` has none.
fn scheme_of(t: &str) -> Option<&str> {
    let (head, rest) = t.split_once(':')?;
    let scheme_like = head.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && head
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if !scheme_like {
        return None;
    }
    // "example.com:8080/x" is a host and a port, not a scheme.
    let port: String = rest.chars().take_while(|c| *c != '/').collect();
    let is_port =
        !port.is_empty() && port.chars().all(|c| c.is_ascii_digit()) && !rest.starts_with("//");
    (!is_port).then_some(head)
}

/// An e-mail address: something@domain.tld, no spaces or separators.
pub fn email(s: &str) -> bool {
    let Some((user, domain)) = s.split_once('@') else {
        return false;
    };
    !user.is_empty()
        && !domain.starts_with('.')
        && domain.contains('.')
        && !domain.ends_with('.')
        && !s.chars().any(|c| c.is_whitespace() || c == ',' || c == ';')
        && !domain.contains('@')
}

/// "HH:MM", 24-hour.
pub fn hh_mm(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 5
        && b[2] == b':'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 2 || c.is_ascii_digit())
        && s[..2].parse::<u8>().is_ok_and(|h| h < 24)
        && s[3..].parse::<u8>().is_ok_and(|m| m < 60)
}

/// The incident `extraPath` pattern and length.
pub fn extra_path(s: &str) -> bool {
    s.chars().count() <= EXTRA_PATH_MAX
        && s.starts_with('/')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || EXTRA_PATH_SPECIALS.contains(c))
}

/// An ISO 3166-1 alpha-2 code (either case).
pub fn country(s: &str) -> bool {
    s.len() == 2 && s.chars().all(|c| c.is_ascii_alphabetic())
}

/// 64 hexadecimal characters.
pub fn sha256(s: &str) -> bool {
    s.len() == 64 && s.chars().all(|c| c.is_ascii_hexdigit())
}

/// A UUID in its 8-4-4-4-12 hex form.
pub fn uuid(s: &str) -> bool {
    s.len() == 36
        && s.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// An object id: letters, digits, `-` and `_` (nothing that could change a
/// path it is put in).
pub fn object_id(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A saved-search user tag: a scope prefix and a name.
pub fn user_tag(s: &str) -> bool {
    USER_TAG_SCOPES
        .iter()
        .any(|p| s.strip_prefix(p).is_some_and(|rest| !rest.is_empty()))
}

/// What an HTTP header value may hold: visible ASCII, spaces and tabs (no
/// CR, LF or other control characters).
pub fn header_value(s: &str) -> bool {
    s.bytes().all(|b| b == b'\t' || (b' '..=b'~').contains(&b))
}

/// An API key in the service's format: a UUID, `8-4-4-4-12` hex digits (any
/// case). The service answers any other key 400 "Invalid API key format" on
/// every endpoint, those that work without a key included.
pub fn api_key_format(k: &str) -> bool {
    let b = k.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// An HTTP header name (an RFC 9110 token).
pub fn header_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 256
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

// ---------------------------------------------------------------- across fields

/// A rule across the fields of a request body (wire names); the reason when broken.
pub type BodyRule = fn(&serde_json::Map<String, serde_json::Value>) -> Result<(), String>;

/// A channel must say where it delivers: a webhook channel (the default
/// type) its `webhookURL`, an e-mail channel at least one `emailAddresses`
/// entry. Reads the wire body of a create request.
pub fn channel_targets(body: &serde_json::Map<String, serde_json::Value>) -> Result<(), String> {
    let kind = body
        .get("type")
        .and_then(|v| v.as_str())
        .unwrap_or("webhook");
    match kind {
        "email" => {
            let n = body
                .get("emailAddresses")
                .and_then(|v| v.as_array())
                .map_or(0, Vec::len);
            if n == 0 {
                return Err("an email channel needs at least one address in emailAddresses".into());
            }
        }
        _ => {
            let has = body
                .get("webhookURL")
                .and_then(|v| v.as_str())
                .is_some_and(|s| !s.trim().is_empty());
            if !has {
                return Err("a webhook channel needs a webhookURL".into());
            }
        }
    }
    Ok(())
}

/// A string for a message: at most `max` characters, the length noted when cut.
pub fn shown(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        s.to_string()
    } else {
        let head: String = s.chars().take(max).collect();
        format!("{head}... ({n} characters)")
    }
}

/// A JSON value with every object's members sorted by name: the form in
/// which a recorded request's body is digested and compared (the recording
/// layout the client writes and the emulator replays).
pub fn canonical_json(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Array(a) => Value::Array(a.iter().map(canonical_json).collect()),
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), canonical_json(&m[k])))
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_keys_are_uuids() {
        assert!(api_key_format("0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f"));
        assert!(api_key_format("0F9E8D7C-6B5A-4C3D-9E2F-1A0B9C8D7E6F"));
        for bad in [
            "",
            "k",
            "secret-key",
            "0f9e8d7c6b5a4c3d9e2f1a0b9c8d7e6f",
            "{0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f}",
            "0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6g",
            "0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f ",
        ] {
            assert!(!api_key_format(bad), "{bad:?}");
        }
    }

    #[test]
    fn urls() {
        for ok in [
            "https://example.com",
            "http://example.com/a?b=c#d",
            "HTTPS://EXAMPLE.COM",
            "example.com",
            "example.com/path",
            "example.com:8080/x",
            "localhost:8080",
            "http://127.0.0.1:8000/",
            "http://[::1]/",
        ] {
            assert!(scan_url(ok).is_ok(), "{ok}: {:?}", scan_url(ok));
        }
        for bad in [
            "",
            "   ",
            "a.b",
            "javascript:alert(1)",
            "data:text/html,<b>x</b>",
            "file:/etc/passwd",
            "file:///etc/passwd",
            "mailto:someone@example.com",
            "ftp://example.com/",
            "https:///path",
            "http://",
            "https://",
            "http:example.com",
            "https://exa mple.com",
            "https://example.com/\r\nX: y",
            "https://example.com/\u{0}",
        ] {
            assert!(scan_url(bad).is_err(), "{bad:?}");
        }
        assert!(scan_url(&format!("https://a.com/{}", "x".repeat(2100))).is_err());
        let long = format!("https://a.com/{}", "x".repeat(10_000_000));
        assert!(scan_url(&long).unwrap_err().len() < 200);
    }

    #[test]
    fn formats() {
        assert!(hh_mm("09:30") && hh_mm("23:59") && !hh_mm("24:00") && !hh_mm("9:30"));
        assert!(!hh_mm("+9:30") && !hh_mm("09:3a"));
        assert!(email("a@b.co") && !email("a@b") && !email("a b@c.de") && !email("@b.de"));
        assert!(extra_path("/a?b=c") && !extra_path("a") && !extra_path("/<x>"));
        assert!(!extra_path(&format!("/{}", "a".repeat(2000))));
        assert!(header_value("urlscan-rs/1.0") && !header_value("a\r\nb"));
        assert!(header_name("X-Test") && !header_name("X Test") && !header_name(""));
        assert_eq!(shown("abcdef", 3), "abc... (6 characters)");
        assert!(web_url("https://hooks.example.com/x").is_ok());
        assert!(web_url("hooks.example.com").is_err() && web_url("ftp://x.de").is_err());
        for ok in [
            "example.com",
            "1.2.3.4",
            "2606:4700:5dd8::3681:bbba",
            "https://a.example.com/x",
            "a.example.com/login",
        ] {
            assert!(observable(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "localhost",
            "javascript:alert(1)",
            "ftp://x.de/",
            "a b.com",
        ] {
            assert!(observable(bad).is_err(), "{bad}");
        }
        assert!(user_tag("pro.x") && !user_tag("pro.") && !user_tag("x"));
    }
}
