//! The one rule for showing a URL where secrets must not go: span
//! attributes, event hooks, log lines and error messages. A looked-up URL is
//! an analyst's input, and phishing links carry passwords and tokens; the API
//! key itself is never in a URL (it travels in a header), so it needs no rule
//! here.
//!
//! As the OpenTelemetry HTTP semantic conventions ask of `url.full`: the
//! userinfo is shown as `REDACTED:REDACTED`, and the value of every query
//! parameter whose name looks secret (see [`is_secret_param`]) as `REDACTED`.
//! URLs inside other values are redacted too (a search the package builds,
//! `q=task.url:"https://user:pw@host/?token=x"`, sent encoded), as are URLs
//! percent-encoded in a path segment. Everything else is kept as it was, byte
//! for byte.
use std::borrow::Cow;

/// What stands for a secret.
pub const REDACTED: &str = "REDACTED";

/// Query parameter names whose values are secrets, compared without case:
/// credentials, tokens and signatures of the common schemes (OAuth, AWS and
/// Google signed URLs, Azure SAS, sessions, one-time codes).
pub const SECRET_PARAMS: &[&str] = &[
    "access_token",
    "api_key",
    "api-key",
    "apikey",
    "auth",
    "authorization",
    "awsaccesskeyid",
    "client_secret",
    "code",
    "credential",
    "credentials",
    "id_token",
    "jwt",
    "key",
    "otp",
    "pass",
    "passwd",
    "password",
    "pwd",
    "refresh_token",
    "secret",
    "session",
    "session_id",
    "sessionid",
    "sid",
    "sig",
    "signature",
    "token",
    "x-amz-credential",
    "x-amz-security-token",
    "x-amz-signature",
    "x-goog-credential",
    "x-goog-signature",
];

/// Name endings that make a parameter secret too (`csrf_token`,
/// `github_secret`, `user_password`, `aws_signature`, ...), without case.
pub const SECRET_SUFFIXES: &[&str] = &["token", "secret", "password", "passwd", "signature"];

/// Header names never shown (besides the API key's, never shown at all):
/// credentials a request or an answer may carry.
pub const SECRET_HEADERS: &[&str] = &[
    "api-key",
    "authorization",
    "cookie",
    "proxy-authorization",
    "set-cookie",
    "x-api-key",
    "x-auth-token",
];

/// URLs nested deeper than this (a URL in a query value of a URL in ...)
/// are not read further: the value is shown as `REDACTED` whole. (A
/// borrowed answer means "unchanged" throughout: a replacement is owned.)
const MAX_DEPTH: usize = 8;

/// Whether a query parameter's value is a secret, by its (decoded) name.
pub fn is_secret_param(name: &str) -> bool {
    let n = name.trim().to_ascii_lowercase();
    SECRET_PARAMS.contains(&n.as_str()) || SECRET_SUFFIXES.iter().any(|s| n.ends_with(s))
}

/// Whether a header is never shown, by its name.
pub fn is_secret_header(name: &str) -> bool {
    SECRET_HEADERS
        .iter()
        .any(|h| h.eq_ignore_ascii_case(name.trim()))
}

/// `u` (an absolute URL, or a path with its query) with its userinfo and
/// the values of secret-looking query (and fragment) parameters redacted.
pub fn url(u: &str) -> Cow<'_, str> {
    url_at(u, 0)
}

/// `s`, any text, with each URL in it redacted as [`url`] does: those with
/// a scheme (`https://...`, up to a space, a quote or an angle bracket), and
/// words that are a path with a query (`/api/v1/search/?q=...`, as log
/// lines show them).
pub fn text(s: &str) -> Cow<'_, str> {
    text_at(s, 0)
}

fn url_at(u: &str, depth: usize) -> Cow<'_, str> {
    if depth > MAX_DEPTH {
        return Cow::Owned(REDACTED.to_string());
    }
    let (main, fragment) = match u.split_once('#') {
        Some((m, f)) => (m, Some(f)),
        None => (u, None),
    };
    let (head, query) = match main.split_once('?') {
        Some((h, q)) => (h, Some(q)),
        None => (main, None),
    };
    let head2 = head_at(head, depth);
    let query2 = query.map(|q| pairs_at(q, depth));
    let fragment2 = fragment.map(|f| {
        if f.contains('=') {
            pairs_at(f, depth)
        } else {
            text_at(f, depth + 1)
        }
    });
    let same = matches!(head2, Cow::Borrowed(_))
        && query2
            .as_ref()
            .is_none_or(|q| matches!(q, Cow::Borrowed(_)))
        && fragment2
            .as_ref()
            .is_none_or(|f| matches!(f, Cow::Borrowed(_)));
    if same {
        return Cow::Borrowed(u);
    }
    let mut parts = vec![head2];
    if let Some(q) = query2 {
        parts.push(Cow::Borrowed("?"));
        parts.push(q);
    }
    if let Some(f) = fragment2 {
        parts.push(Cow::Borrowed("#"));
        parts.push(f);
    }
    Cow::Owned(parts.concat())
}

/// The scheme's start for a `://` at `at`: the letters, digits, `+`, `-`
/// and `.` before it, starting with a letter; None when there are none.
fn scheme_start(s: &str, at: usize) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut start = at;
    while start > 0 {
        let c = bytes[start - 1];
        if c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.') {
            start -= 1;
        } else {
            break;
        }
    }
    // The first character of a scheme is a letter: skip what may not start one.
    while start < at && !bytes[start].is_ascii_alphabetic() {
        start += 1;
    }
    (start < at).then_some(start)
}

/// The part before the query: the userinfo of an absolute URL replaced, and
/// URLs in the path (literal or percent-encoded in a segment) redacted.
fn head_at(head: &str, depth: usize) -> Cow<'_, str> {
    let (prefix, path) = match head.find("://") {
        Some(i) if scheme_start(head, i) == Some(0) => {
            let rest = &head[i + 3..];
            let end = rest.find(['/', '\\']).unwrap_or(rest.len());
            let authority = &rest[..end];
            let path = &rest[end..];
            match authority.rfind('@') {
                Some(at) => (
                    Cow::Owned(format!(
                        "{}{REDACTED}:{REDACTED}{}",
                        &head[..i + 3],
                        &authority[at..]
                    )),
                    path,
                ),
                None => (Cow::Borrowed(&head[..i + 3 + end]), path),
            }
        }
        _ => (Cow::Borrowed(""), head),
    };
    let path2 = path_at(path, depth);
    if matches!(prefix, Cow::Borrowed(_)) && matches!(path2, Cow::Borrowed(_)) {
        return Cow::Borrowed(head);
    }
    Cow::Owned([prefix, path2].concat())
}

fn path_at(path: &str, depth: usize) -> Cow<'_, str> {
    // A literal URL in the path (`/redirect/https://u:p@h/`).
    if path.contains("://") {
        return text_at(path, depth + 1);
    }
    if !path.contains('%') {
        return Cow::Borrowed(path);
    }
    let mut any = false;
    let segments: Vec<Cow<'_, str>> = path
        .split('/')
        .map(|seg| {
            if !seg.contains('%') {
                return Cow::Borrowed(seg);
            }
            let decoded = percent_encoding::percent_decode_str(seg).decode_utf8_lossy();
            match text_at(&decoded, depth + 1) {
                Cow::Borrowed(_) => Cow::Borrowed(seg),
                Cow::Owned(r) => {
                    any = true;
                    Cow::Owned(percent_encoding::utf8_percent_encode(&r, SEGMENT).to_string())
                }
            }
        })
        .collect();
    if !any {
        return Cow::Borrowed(path);
    }
    Cow::Owned(segments.join("/"))
}

/// What a path segment percent-encodes: the URL specification's path
/// percent-encode set, and `/` and `%`.
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}')
    .add(b'/')
    .add(b'%');

/// `name=value&...` (a query, or a fragment of such pairs), each value of a
/// secret-looking name redacted, each value holding a URL redacted inside.
fn pairs_at(q: &str, depth: usize) -> Cow<'_, str> {
    let mut any = false;
    let pieces: Vec<Cow<'_, str>> = q
        .split('&')
        .map(|piece| {
            let out = piece_at(piece, depth);
            any |= matches!(out, Cow::Owned(_));
            out
        })
        .collect();
    if !any {
        return Cow::Borrowed(q);
    }
    Cow::Owned(pieces.join("&"))
}

fn form_decode(s: &str) -> String {
    let plus = s.replace('+', " ");
    percent_encoding::percent_decode_str(&plus)
        .decode_utf8_lossy()
        .into_owned()
}

fn piece_at(piece: &str, depth: usize) -> Cow<'_, str> {
    let Some((name, value)) = piece.split_once('=') else {
        // A bare word: redacted only if it holds a URL.
        return match text_at(&form_decode(piece), depth + 1) {
            Cow::Borrowed(_) => Cow::Borrowed(piece),
            Cow::Owned(r) => {
                Cow::Owned(url::form_urlencoded::byte_serialize(r.as_bytes()).collect())
            }
        };
    };
    if is_secret_param(&form_decode(name)) {
        if value.is_empty() || value == REDACTED {
            return Cow::Borrowed(piece);
        }
        return Cow::Owned(format!("{name}={REDACTED}"));
    }
    if !value.contains("://") && !value.contains('%') && !value.contains('?') {
        return Cow::Borrowed(piece);
    }
    match text_at(&form_decode(value), depth + 1) {
        Cow::Borrowed(_) => Cow::Borrowed(piece),
        Cow::Owned(r) => {
            let encoded: String = url::form_urlencoded::byte_serialize(r.as_bytes()).collect();
            Cow::Owned(format!("{name}={encoded}"))
        }
    }
}

/// Whether `c` ends a URL in running text.
fn ends_url(c: char) -> bool {
    c.is_whitespace() || c.is_control() || matches!(c, '"' | '\'' | '<' | '>' | '`')
}

fn text_at(s: &str, depth: usize) -> Cow<'_, str> {
    if !s.contains("://") && !s.contains('?') {
        return Cow::Borrowed(s);
    }
    if depth > MAX_DEPTH {
        return Cow::Owned(REDACTED.to_string());
    }
    let mut out = String::new();
    let mut done = 0; // bytes of `s` already in `out`
    let mut any = false;
    let mut pos = 0;
    while pos < s.len() {
        // The next word: a run of characters that do not end a URL.
        let Some(start) = s[pos..].find(|c: char| !ends_url(c)).map(|i| pos + i) else {
            break;
        };
        let end = s[start..].find(ends_url).map_or(s.len(), |i| start + i);
        pos = end;
        let word = &s[start..end];
        // Where the URL in it starts: a scheme, or the word itself when it is
        // a path with a query.
        let from = match word.find("://") {
            Some(i) => match scheme_start(word, i) {
                Some(f) => f,
                None => continue,
            },
            None if word.starts_with('/') && word.contains('?') => 0,
            None => continue,
        };
        let mut until = word.len();
        // Punctuation of the text after it: a closing bracket it did not
        // open, a full stop or a comma (brackets counted once: a word of a
        // million ')' is read once, not once per bracket).
        let count = |c: char| word[from..].matches(c).count();
        let mut brackets = [
            ('(', ')', count('('), count(')')),
            ('[', ']', count('['), count(']')),
            ('{', '}', count('{'), count('}')),
        ];
        while let Some(last) = word[from..until].chars().last() {
            let unopened = brackets
                .iter_mut()
                .find(|(_, close, opened, closed)| *close == last && closed > opened);
            if let Some(b) = unopened {
                b.3 -= 1;
            } else if !matches!(last, '.' | ',' | ';' | ':' | '!') {
                break;
            }
            until -= last.len_utf8();
        }
        let candidate = &word[from..until];
        if let Cow::Owned(r) = url_at(candidate, depth) {
            any = true;
            let at = start + from;
            out.push_str(&s[done..at]);
            out.push_str(&r);
            done = at + candidate.len();
        }
    }
    if !any {
        return Cow::Borrowed(s);
    }
    out.push_str(&s[done..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn userinfo_and_secret_params() {
        assert_eq!(
            url("https://user:pw@host.example/a?token=x&b=1&SIG=y#f"),
            "https://REDACTED:REDACTED@host.example/a?token=REDACTED&b=1&SIG=REDACTED#f"
        );
        assert_eq!(
            url("https://h/?X-Amz-Signature=abc&X-Amz-Date=1"),
            "https://h/?X-Amz-Signature=REDACTED&X-Amz-Date=1"
        );
        assert_eq!(
            url("https://h/#access_token=t&x=1"),
            "https://h/#access_token=REDACTED&x=1"
        );
        // Nothing to hide: the same string.
        let plain = "https://h.example:8443/p/a%20b?q=1&page=2";
        assert!(matches!(url(plain), Cow::Borrowed(_)));
        assert_eq!(url("https://user@h/"), "https://REDACTED:REDACTED@h/");
        // '@' in the path is not userinfo.
        assert_eq!(url("https://h/a@b"), "https://h/a@b");
        assert_eq!(
            url("https://h/?csrf_token=1&monkey=2"),
            "https://h/?csrf_token=REDACTED&monkey=2"
        );
    }

    #[test]
    fn urls_inside_values_and_paths() {
        // The lookup's search, encoded as reqwest sends it.
        let q: String = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("q", r#"task.url:"https://user:pass@h.example/a?token=SECRET&sig=SECRET2" AND date:>now-1d"#)
            .append_pair("size", "10")
            .finish();
        let full = format!("http://127.0.0.1:1/api/v1/search/?{q}");
        let shown = url(&full).into_owned();
        for secret in ["pass", "SECRET", "SECRET2"] {
            assert!(!shown.contains(secret), "{shown}");
        }
        let (_, query) = shown.split_once('?').unwrap();
        let q2: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
            .into_owned()
            .collect();
        assert_eq!(
            q2[0].1,
            r#"task.url:"https://REDACTED:REDACTED@h.example/a?token=REDACTED&sig=REDACTED" AND date:>now-1d"#
        );
        assert_eq!(q2[1], ("size".into(), "10".into()));
        // A URL percent-encoded in a path segment.
        let p = "/api/v1/x/https%3A%2F%2Fu%3Apw%40h%2F%3Ftoken%3Dt/";
        let shown = url(p);
        assert!(
            !shown.contains("pw") && !shown.contains("token%3Dt"),
            "{shown}"
        );
    }

    #[test]
    fn text_finds_urls() {
        assert_eq!(
            text("error sending request for url (http://u:p@h/a?key=k): refused."),
            "error sending request for url (http://REDACTED:REDACTED@h/a?key=REDACTED): refused."
        );
        assert_eq!(
            text("GET /api/v1/search/?q=a&api_key=k -> 200"),
            "GET /api/v1/search/?q=a&api_key=REDACTED -> 200"
        );
        assert_eq!(text("no url here? none"), "no url here? none");
        assert_eq!(
            text(r#"task.url:"https://u:p@h/""#),
            r#"task.url:"https://REDACTED:REDACTED@h/""#
        );
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let mut u = "https://u:p@h/?token=t".to_string();
        for _ in 0..12 {
            u = format!(
                "https://h/?u={}",
                url::form_urlencoded::byte_serialize(u.as_bytes()).collect::<String>()
            );
        }
        let shown = url(&u);
        assert!(!shown.contains("u%3Ap%40"));
        let flat = "https://h/?u=".repeat(100_000) + "https://u:p@h/";
        assert!(!text(&flat).contains("u:p@"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// Any text is read without a panic, in one piece where it holds no URL.
        #[test]
        fn any_text(t in "\\PC{0,200}") {
            let _ = url(&t);
            let shown = text(&t);
            if !t.contains("://") && !t.contains('?') {
                proptest::prop_assert_eq!(shown, t.as_str());
            }
        }

        /// A secret in the userinfo or a secret parameter never shows, wherever the URL is:
        /// as given, in running text, or encoded in a query the package builds.
        #[test]
        fn secrets_never_show(
            secret in "[A-Za-z0-9._~-]{6,24}",
            before in "[a-z ]{0,10}",
            name in proptest::sample::select(SECRET_PARAMS),
        ) {
            let template = format!("https://REDACTED:REDACTED@h.example/p?{name}=REDACTED&page=2");
            proptest::prop_assume!(!template.contains(&secret) && !before.contains(&secret));
            let u = format!("https://user:{secret}@h.example/p?{name}={secret}&page=2");
            let shown = url(&u);
            proptest::prop_assert_eq!(shown.as_ref(), template.as_str());
            let said = format!("{before} task.url:\"{u}\" and more");
            proptest::prop_assert!(!text(&said).contains(&secret));
            let q: String = url::form_urlencoded::Serializer::new(String::new())
                .append_pair("q", &said)
                .finish();
            let full = format!("http://127.0.0.1:8080/api/v1/search/?{q}");
            proptest::prop_assert!(!url(&full).contains(&secret));
        }
    }
}
