//! Recording the service's answers into a folder a team can commit, for an
//! emulator to replay (`Client(record_to=DIR)`, `Emulator(recordings=DIR)`).
//!
//! Each answer a client gets from the service (after its retries: the last
//! one) is one file, named by the request it answers:
//!
//! ```text
//! DIR/<METHOD>/<path, one folder per segment>/<digest>.json
//! DIR/GET/api/v1/result/<uuid>/1f0c3a9e5b7d2468.json
//! DIR/GET/screenshots/<uuid>.png/7a41c0de99b2e310.json   (+ 7a41c0de99b2e310.png beside it)
//! ```
//!
//! The digest is the first 16 hex digits of the SHA-256 of the request's
//! identity: its method, path, query (by name; the values of a repeated name
//! in the order sent) and JSON body, as written in the file (so redacted).
//! The same request is the same file: recording again replaces it, and the
//! last answer to a request is the one kept (a result polled until it
//! finished keeps its finished answer). The file is JSON, indented by two
//! spaces (a diff shows what changed):
//!
//! ```json
//! {
//!   "urlscan_rs_recording": 1,
//!   "request": {"method": "GET", "path": "/api/v1/search/",
//!               "query": {"q": "page.domain:example.com", "size": "100"}},
//!   "response": {"status": 200,
//!                "headers": {"content-type": "application/json; charset=utf-8"},
//!                "json": {"results": [...], "total": 1}}
//! }
//! ```
//!
//! A request with a JSON body (a submission) has it as `request.json`. A JSON
//! answer is `response.json` (its value: re-indented, keys in the order
//! sent); any other body is kept byte for byte in a file beside the entry,
//! named in `response.body_file` (`<digest>.png`, `.html`, `.txt`, `.bin`);
//! an empty body has neither. A repeated query name has a list of values.
//!
//! What is never written: the API key (not in a request's path, query or
//! body, and any copy of it in an answer is replaced by `REDACTED`), request
//! headers (the key's and any authorization travel there), the base URL (with
//! any credentials in it), and answer headers other than [`KEPT_HEADERS`]
//! (no cookie, no rate-limit state). The request's path, query values and
//! JSON strings are redacted by the package's one rule (`crate::redact`: the
//! userinfo of a URL, and the values of secret-looking parameters, become
//! `REDACTED`); an emulator replaying the file takes `REDACTED` there to
//! stand for any text. A [`Scrub`] (Python: `record_hook`) sees each entry
//! before it is written and may change it or drop it.
//!
//! Files are written by the package's writers' rule (`crate::disk`): under
//! the folder only, whole or not at all, never through a link nor into a
//! pipe or device at a name. A failed write fails the call that got the
//! answer (the recording would be incomplete). Answers are bounded by the
//! client's `max_body_bytes`; answers a result cache serves are not recorded
//! (nothing was asked of the service), nor downloads from other hosts (a
//! data-dump file's temporary link).
use std::path::{Path, PathBuf};
use std::sync::Arc;

use std::borrow::Cow;

use bytes::Bytes;
use reqwest::header::HeaderMap;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::redact;

/// The member that marks a file as a recording, and its format's version.
pub const FORMAT_KEY: &str = "urlscan_rs_recording";
pub const FORMAT: u64 = 1;

/// The answer headers kept (names in lower case); `location` redacted.
pub const KEPT_HEADERS: &[&str] = &["content-type", "content-disposition", "location"];

/// Folders of a request's path kept in a file's name, at most this many bytes
/// (deeper ones are left out: the digest still tells requests apart).
const MAX_FOLDERS_LEN: usize = 700;
/// A path segment longer than this is cut, with a digest of the whole.
const MAX_SEGMENT: usize = 100;

/// An answer's body, as an entry holds it.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// A JSON answer (`response.json`).
    Json(Value),
    /// Any other body, byte for byte (`response.body_file`; none when empty).
    Bytes(Bytes),
}

/// One recorded answer and what identifies its request.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub method: String,
    /// The path below the base URL, as sent (percent-encoded), redacted.
    pub path: String,
    /// The query's pairs, by name (a stable sort: a repeated name keeps its order), redacted.
    pub query: Vec<(String, String)>,
    /// The request's JSON body, its strings redacted.
    pub request_json: Option<Value>,
    pub status: u16,
    /// [`KEPT_HEADERS`] that came, in that order.
    pub headers: Vec<(String, String)>,
    pub body: Body,
}

/// Sees each entry before it is written: returns it (changed or not), or
/// `None` to write nothing; an error fails the call that got the answer.
pub trait Scrub: Send + Sync {
    fn scrub(&self, entry: Entry) -> Result<Option<Entry>>;
}

/// Writes the answers of a client into a folder (`Config::recorder`).
pub struct Recorder {
    dir: PathBuf,
    scrub: Option<Arc<dyn Scrub>>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("dir", &self.dir)
            .field("scrub", &self.scrub.is_some())
            .finish()
    }
}

impl Recorder {
    /// Record into `dir` (made if missing; a relative path is taken from the
    /// current folder now, so a later `chdir` does not move the recordings).
    pub fn open(dir: &Path, scrub: Option<Arc<dyn Scrub>>) -> Result<Recorder> {
        let text = dir.as_os_str().to_string_lossy();
        if text.is_empty() {
            return Err(Error::Validation(
                "record_to must name a folder, got an empty path".into(),
            ));
        }
        if text.contains('\0') {
            return Err(Error::Validation(format!(
                "record_to {:?} holds a NUL character: give a folder's path",
                crate::validate::shown(&text, 60)
            )));
        }
        let dir = std::path::absolute(dir)
            .map_err(|e| crate::disk::io_error("use the recording folder", dir, &e))?;
        crate::disk::checked_folder(&dir)?;
        std::fs::create_dir_all(&dir)
            .map_err(|e| crate::disk::io_error("create the recording folder", &dir, &e))?;
        Ok(Recorder { dir, scrub })
    }

    /// The folder recorded into (absolute).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The hook given, if any.
    pub fn scrub(&self) -> Option<&Arc<dyn Scrub>> {
        self.scrub.as_ref()
    }

    /// Write `entry` (after the hook), with every copy of each of `secrets`
    /// replaced by `REDACTED`; the entry's file, or None when the hook dropped
    /// it. Blocking (files, and the hook).
    pub fn record(&self, entry: Entry, secrets: &[String]) -> Result<Option<PathBuf>> {
        let entry = match &self.scrub {
            Some(s) => match s.scrub(entry)? {
                Some(e) => checked(e)?,
                None => return Ok(None),
            },
            None => entry,
        };
        let rel = relative_name(&entry);
        let dest = crate::disk::contained(&self.dir, &rel)?;
        let digest = digest(&entry);
        let mut response = Map::new();
        response.insert("status".into(), json!(entry.status));
        let headers: Map<String, Value> = entry
            .headers
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        response.insert("headers".into(), Value::Object(headers));
        match &entry.body {
            Body::Json(v) => {
                response.insert("json".into(), v.clone());
            }
            Body::Bytes(b) if b.is_empty() => {}
            Body::Bytes(b) => {
                let ext = extension(header(&entry.headers, "content-type"));
                let name = format!("{digest}.{ext}");
                let side = dest.with_file_name(&name);
                // The body first: an entry never names a file that is not there.
                crate::disk::write_whole(&side, &without(b, secrets))?;
                response.insert("body_file".into(), Value::String(name));
            }
        }
        let mut doc = Map::new();
        doc.insert(FORMAT_KEY.into(), json!(FORMAT));
        doc.insert("request".into(), request_json(&entry));
        doc.insert("response".into(), Value::Object(response));
        let mut text = serde_json::to_vec_pretty(&Value::Object(doc))
            .map_err(|e| Error::Validation(format!("cannot write the recording: {e}")))?;
        text.push(b'\n');
        crate::disk::write_whole(&dest, &without(&text, secrets))?;
        Ok(Some(dest))
    }
}

/// A request and the service's answer to it, as the transport hands them
/// over (this module knows nothing of the transport's own types).
pub struct Exchange<'a> {
    pub method: &'a str,
    /// Below the base URL, percent-encoded.
    pub path: &'a str,
    pub query: &'a [(Cow<'static, str>, String)],
    /// The request's JSON body, if any.
    pub json: Option<&'a Value>,
    pub status: u16,
    pub headers: &'a HeaderMap,
    pub body: &'a Bytes,
}

impl Entry {
    /// What is recorded of an answer: redacted, headers kept by
    /// [`KEPT_HEADERS`], a JSON body as its value.
    pub fn of(x: Exchange<'_>) -> Entry {
        // The path as the HTTP stack sends it (the same percent-encoding an emulator sees).
        let sent = url::Url::parse(&format!("http://h{}", x.path))
            .map(|u| u.path().to_string())
            .unwrap_or_else(|_| x.path.to_string());
        let path = redact::url(&sent).into_owned();
        let mut query: Vec<(String, String)> = x
            .query
            .iter()
            .map(|(k, v)| (k.to_string(), redact_value(k, v)))
            .collect();
        query.sort_by(|a, b| a.0.cmp(&b.0));
        let mut headers = Vec::new();
        for name in KEPT_HEADERS {
            if let Some(v) = x.headers.get(*name) {
                let v = String::from_utf8_lossy(v.as_bytes()).into_owned();
                let v = match *name {
                    "location" => redact::url(&v).into_owned(),
                    _ => v,
                };
                headers.push((name.to_string(), v));
            }
        }
        let is_json = header(&headers, "content-type")
            .is_some_and(|t| t.to_ascii_lowercase().contains("json"));
        let body = match is_json {
            true => match serde_json::from_slice::<Value>(x.body) {
                Ok(v) => Body::Json(v),
                Err(_) => Body::Bytes(x.body.clone()),
            },
            false => Body::Bytes(x.body.clone()),
        };
        Entry {
            method: x.method.to_string(),
            path,
            query,
            request_json: x.json.map(redact_json),
            status: x.status,
            headers,
            body,
        }
    }
}

/// The secrets of a configuration that no recorded byte may hold: the API
/// key, and the base URL's password when it is long enough to be told from
/// other text (a short one would rewrite answers at random).
pub fn secrets_of(api_key: Option<&str>, base_url: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(k) = api_key {
        out.push(k.to_string());
    }
    if let Some(pw) = url::Url::parse(base_url)
        .ok()
        .and_then(|u| u.password().map(String::from))
    {
        let pw = percent_encoding::percent_decode_str(&pw)
            .decode_utf8_lossy()
            .into_owned();
        if pw.len() >= 8 {
            out.push(pw);
        }
    }
    out
}

/// `data` with every copy of each secret replaced by `REDACTED`.
fn without(data: &[u8], secrets: &[String]) -> Vec<u8> {
    let mut out = data.to_vec();
    for s in secrets
        .iter()
        .map(String::as_bytes)
        .filter(|s| !s.is_empty())
    {
        if !out.windows(s.len()).any(|w| w == s) {
            continue;
        }
        let mut next = Vec::with_capacity(out.len());
        let mut i = 0;
        while i < out.len() {
            if out[i..].starts_with(s) {
                next.extend_from_slice(redact::REDACTED.as_bytes());
                i += s.len();
            } else {
                next.push(out[i]);
                i += 1;
            }
        }
        out = next;
    }
    out
}

/// A query value as recorded: the whole of a secret-looking name's,
/// URLs inside any other's redacted.
fn redact_value(name: &str, value: &str) -> String {
    if redact::is_secret_param(name) && !value.is_empty() {
        return redact::REDACTED.to_string();
    }
    redact::text(value).into_owned()
}

/// A JSON body with the URLs in its strings redacted.
fn redact_json(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(redact::text(s).into_owned()),
        Value::Array(a) => Value::Array(a.iter().map(redact_json).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| {
                    let v = match (redact::is_secret_param(k), v) {
                        (true, Value::String(s)) if !s.is_empty() => {
                            Value::String(redact::REDACTED.into())
                        }
                        _ => redact_json(v),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// An entry a hook gave back, checked for what a file must hold.
fn checked(e: Entry) -> Result<Entry> {
    let refuse = |what: String| Err(Error::Validation(format!("record_hook returned {what}")));
    let token = !e.method.is_empty()
        && e.method.len() <= 16
        && e.method.bytes().all(|b| b.is_ascii_uppercase());
    if !token {
        return refuse(format!(
            "the method {:?}: an HTTP method in capitals (GET, POST, ...)",
            crate::validate::shown(&e.method, 40)
        ));
    }
    if !e.path.starts_with('/') || e.path.chars().any(char::is_control) {
        return refuse(format!(
            "the path {:?}: a path starting with /, without control characters",
            crate::validate::shown(&e.path, 80)
        ));
    }
    if !(100..=599).contains(&e.status) {
        return refuse(format!("the status {}: 100 to 599", e.status));
    }
    for (k, v) in &e.headers {
        let name_ok = reqwest::header::HeaderName::from_bytes(k.as_bytes()).is_ok();
        if !name_ok || reqwest::header::HeaderValue::from_str(v).is_err() {
            return refuse(format!(
                "the header {:?}: a header's name and value",
                crate::validate::shown(k, 40)
            ));
        }
    }
    Ok(e)
}

/// The request's part of the file.
fn request_json(e: &Entry) -> Value {
    let mut query = Map::new();
    for (k, v) in &e.query {
        match query.get_mut(k) {
            None => {
                query.insert(k.clone(), Value::String(v.clone()));
            }
            Some(Value::Array(a)) => a.push(Value::String(v.clone())),
            Some(first) => {
                let first = first.take();
                query.insert(k.clone(), json!([first, v]));
            }
        }
    }
    let mut m = Map::new();
    m.insert("method".into(), Value::String(e.method.clone()));
    m.insert("path".into(), Value::String(e.path.clone()));
    m.insert("query".into(), Value::Object(query));
    if let Some(body) = &e.request_json {
        m.insert("json".into(), body.clone());
    }
    Value::Object(m)
}

/// 16 hex digits of the SHA-256 of the request's identity.
fn digest(e: &Entry) -> String {
    let query: Vec<[&str; 2]> = e
        .query
        .iter()
        .map(|(k, v)| [k.as_str(), v.as_str()])
        .collect();
    let identity = json!([
        e.method,
        e.path,
        query,
        e.request_json.as_ref().map(urlscan_rules::canonical_json)
    ]);
    let bytes = serde_json::to_vec(&identity).unwrap_or_default();
    hex::encode(Sha256::digest(&bytes))[..16].to_string()
}

/// `DIR`-relative name of an entry's file: `<METHOD>/<folders of the path>/<digest>.json`.
pub fn relative_name(e: &Entry) -> String {
    let mut rel = folder_name(&e.method);
    let mut used = 0;
    for seg in e.path.split('/').filter(|s| !s.is_empty()) {
        let name = folder_name(seg);
        used += name.len() + 1;
        if used > MAX_FOLDERS_LEN {
            break;
        }
        rel.push('/');
        rel.push_str(&name);
    }
    format!("{rel}/{}.json", digest(e))
}

/// A path segment as a folder's name every file system takes: characters
/// outside `A-Z a-z 0-9 . _ ~ % - @ + , =` as `_`, no leading or trailing
/// dot, no name the package keeps for itself or Windows for a device.
fn folder_name(seg: &str) -> String {
    let mut s: String = seg
        .chars()
        .map(|c| match c {
            c if c.is_ascii_alphanumeric() => c,
            '.' | '_' | '~' | '%' | '-' | '@' | '+' | ',' | '=' => c,
            _ => '_',
        })
        .collect();
    if s.len() > MAX_SEGMENT {
        let whole = hex::encode(Sha256::digest(seg.as_bytes()));
        s = format!("{}~{}", &s[..64], &whole[..8]);
    }
    // Only ASCII is left: a dot at either end becomes `_` (hidden names and `..` are not made,
    // and Windows would drop a trailing dot).
    let mut b = s.into_bytes();
    let n = b.len();
    let lead = b.iter().take_while(|c| **c == b'.').count();
    let trail = b.iter().rev().take_while(|c| **c == b'.').count();
    for i in (0..lead).chain(n - trail..n) {
        b[i] = b'_';
    }
    let mut s = String::from_utf8(b).unwrap_or_default();
    let lower = s.to_ascii_lowercase();
    if lower.starts_with("_urlscan") {
        s.replace_range(0..1, "-");
    }
    if lower.ends_with(".part") || lower.ends_with(".tmp") {
        s.push('_');
    }
    if crate::disk::windows_device(&lower) {
        s.insert(0, '_');
    }
    s
}

/// The file extension of a body kept beside its entry, by its type (never
/// `json`: only entries end so).
fn extension(content_type: Option<&str>) -> &'static str {
    let t = content_type
        .unwrap_or_default()
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    match t.as_str() {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "text/html" => "html",
        "application/zip" | "application/x-zip-compressed" => "zip",
        "application/gzip" | "application/x-gzip" => "gz",
        t if t.starts_with("text/") || t.contains("json") || t.contains("xml") => "txt",
        _ => "bin",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{Req, Resp};
    use reqwest::header::HeaderValue;
    use reqwest::Method;

    fn of(req: &Req, resp: &Resp) -> Entry {
        Entry::of(Exchange {
            method: req.method.as_str(),
            path: &req.path,
            query: &req.query,
            json: req.body.as_ref(),
            status: resp.status,
            headers: &resp.headers,
            body: &resp.body,
        })
    }

    fn answer(ct: &str, body: &[u8]) -> Resp {
        let mut headers = HeaderMap::new();
        headers.insert("content-type", HeaderValue::from_str(ct).unwrap());
        headers.insert("set-cookie", HeaderValue::from_static("s=1"));
        headers.insert("x-rate-limit-remaining", HeaderValue::from_static("0"));
        Resp {
            status: 200,
            headers,
            body: Bytes::copy_from_slice(body),
        }
    }

    #[test]
    fn an_entry_keeps_what_identifies_the_request_and_hides_secrets() {
        let req = Req::get("/api/v1/search/")
            .query("size", 10)
            .query("q", r#"task.url:"https://u:pw@h.example/?token=t1" AND x"#)
            .query("token", "t2");
        let e = of(&req, &answer("application/json", br#"{"a": 1}"#));
        assert_eq!(
            e.query[0],
            (
                "q".into(),
                r#"task.url:"https://REDACTED:REDACTED@h.example/?token=REDACTED" AND x"#.into()
            )
        );
        assert_eq!(e.query[1], ("size".into(), "10".into()));
        assert_eq!(e.query[2], ("token".into(), "REDACTED".into()));
        assert_eq!(
            e.headers,
            vec![("content-type".to_string(), "application/json".to_string())]
        );
        assert_eq!(e.body, Body::Json(json!({"a": 1})));
        let post = Req::new(Method::POST, "/api/v1/scan/")
            .json(json!({"url": "https://a:secretpw@h/", "password": "x"}));
        let e = of(&post, &answer("text/html", b"<p>"));
        assert_eq!(
            e.request_json,
            Some(json!({"url": "https://REDACTED:REDACTED@h/", "password": "REDACTED"}))
        );
        assert_eq!(e.body, Body::Bytes(Bytes::from_static(b"<p>")));
    }

    #[test]
    fn names_are_stable_and_safe() {
        let e = of(
            &Req::get("/screenshots/abc.png"),
            &answer("image/png", b"\x89PNG"),
        );
        let name = relative_name(&e);
        assert!(
            name.starts_with("GET/screenshots/abc.png/") && name.ends_with(".json"),
            "{name}"
        );
        assert_eq!(name, relative_name(&e.clone()));
        for (seg, want) in [
            ("..", "__"),
            (".hidden", "_hidden"),
            ("a:b*c", "a_b_c"),
            ("x.part", "x.part_"),
            ("_urlscan_x", "-urlscan_x"),
            ("con", "_con"),
            ("ok.", "ok_"),
        ] {
            assert_eq!(folder_name(seg), want, "{seg}");
        }
        let root = tempfile::tempdir().unwrap();
        let long = format!("/{}/{}", "x".repeat(5000), "y/".repeat(400));
        let e = of(&Req::get(long), &answer("application/json", b"{}"));
        crate::disk::contained(root.path(), &relative_name(&e)).unwrap();
    }

    #[test]
    fn a_recording_never_holds_a_secret() {
        let root = tempfile::tempdir().unwrap();
        let rec = Recorder::open(&root.path().join("rec"), None).unwrap();
        let key = "0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f".to_string();
        let body = format!(r#"{{"echo": "{key}"}}"#);
        let e = of(
            &Req::get("/api/v1/x/"),
            &answer("application/json", body.as_bytes()),
        );
        let file = rec.record(e, std::slice::from_ref(&key)).unwrap().unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            !text.contains(&key) && text.contains("\"echo\": \"REDACTED\""),
            "{text}"
        );
        let png = [b"\x89PNG".as_slice(), key.as_bytes()].concat();
        let e = of(&Req::get("/screenshots/a.png"), &answer("image/png", &png));
        let file = rec.record(e, std::slice::from_ref(&key)).unwrap().unwrap();
        let side = std::fs::read(file.with_extension("png")).unwrap();
        assert_eq!(side, b"\x89PNGREDACTED");
        assert!(matches!(
            Recorder::open(Path::new(""), None),
            Err(Error::Validation(_))
        ));
    }
}
