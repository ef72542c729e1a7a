//! Recorded answers served again (`Emulator(recordings=DIR)`): a layer in
//! front of the emulator's own routes answers a request that matches a
//! recording with the recorded answer; any other request gets the emulator's
//! own behaviour. The folder is the one a client's `record_to` writes (the
//! layout is documented in `urlscan_core::record`); this module reads it on
//! its own, so the emulator stays independent of the client.
//!
//! A request matches a recording when its method, path and query (by name;
//! the values of a repeated name in order) and its JSON body (if any) are the
//! recorded ones. The API key is not part of it: any caller gets the answer.
//! `REDACTED` in a recorded path, query value or body string stands for any
//! text (what the recorder hid: a URL's credentials, a token). Where several
//! recordings match, one without `REDACTED` wins, then the first by file name.
//! A recorded answer is served as recorded (status, headers, body; a JSON body
//! indented by two spaces), ahead of the emulator's latency, faults and rate
//! limits.
//!
//! The folder is read whole when the emulator starts, and everything in it is
//! checked then: a `.json` file that is not valid JSON, a recording that is
//! malformed or of a newer format, a missing body file, a symbolic link (none is followed), a pipe or device, a file
//! larger than [`MAX_FILE_BYTES`], more than [`MAX_FILES`] entries or
//! [`MAX_TOTAL_BYTES`] in all, or two recordings of the same request, is an
//! error naming the file. Names starting with a dot (`.git`, a writer's
//! temporary files) are skipped, and so are JSON files that are no recording
//! (no `urlscan_rs_recording` member: an index, notes); files not ending in
//! `.json` are read only as the body files entries name.
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderName, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use serde_json::Value;

/// The member that marks a recording, and the format version this reads.
pub const FORMAT_KEY: &str = "urlscan_rs_recording";
pub const FORMAT: u64 = 1;
/// What a recorded text holds where the recorder hid a secret: any text matches it.
pub const REDACTED: &str = "REDACTED";
/// Entries (`.json` files) a folder may hold.
pub const MAX_FILES: usize = 100_000;
/// The largest file read (an entry or a body file): the client's default `max_body_bytes`.
pub const MAX_FILE_BYTES: u64 = 256 << 20;
/// All the files read, together.
pub const MAX_TOTAL_BYTES: u64 = 2 << 30;
/// Folders inside folders, at most.
pub const MAX_DEPTH: usize = 64;
/// The largest request body read to compare with a recording.
const REQUEST_BODY_MAX: usize = 64 << 20;

/// Why a recording folder cannot be served.
#[derive(Debug)]
pub enum LoadError {
    /// The system refused to read `path`.
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// What is at a path (or the folder as a whole) is not what a recording is.
    Invalid(String),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Io { path, error } => {
                write!(f, "cannot read the recording {}: {error}", path.display())
            }
            LoadError::Invalid(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for LoadError {}

/// One recorded answer and the request it answers.
#[derive(Debug)]
struct Recorded {
    /// Its file, for messages.
    file: PathBuf,
    method: String,
    path: String,
    query: Vec<(String, String)>,
    json: Option<Value>,
    /// Whether any part of the request holds `REDACTED`.
    wild: bool,
    status: StatusCode,
    headers: Vec<(HeaderName, HeaderValue)>,
    body: Bytes,
}

/// The recordings of a folder, ready to serve.
pub struct Recordings {
    root: PathBuf,
    entries: Vec<Recorded>,
    /// Entries by (method, path), for paths without `REDACTED`.
    exact: HashMap<(String, String), Vec<usize>>,
    /// Entries whose path holds `REDACTED`.
    wild_paths: Vec<usize>,
    served: AtomicU64,
}

impl std::fmt::Debug for Recordings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recordings")
            .field("root", &self.root)
            .field("entries", &self.entries.len())
            .finish()
    }
}

fn invalid(file: &Path, why: impl std::fmt::Display) -> LoadError {
    LoadError::Invalid(format!("recording {}: {why}", file.display()))
}

/// The bytes of the regular file `path`, at most `max`; a link, pipe,
/// device or socket there is refused (and never opened).
fn read_regular(path: &Path, max: u64) -> Result<Vec<u8>, LoadError> {
    let io = |error| LoadError::Io {
        path: path.to_path_buf(),
        error,
    };
    let meta = std::fs::symlink_metadata(path).map_err(io)?;
    if let Some(kind) = not_plain(&meta.file_type()) {
        return Err(invalid(path, format!("it is {kind}, not a file")));
    }
    if meta.len() > max {
        return Err(invalid(
            path,
            format!("{} bytes, more than the {max} a file may have", meta.len()),
        ));
    }
    let file = std::fs::File::open(path).map_err(io)?;
    let opened = file.metadata().map_err(io)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // What was opened, not what the name held a moment before.
        if (opened.dev(), opened.ino()) != (meta.dev(), meta.ino()) || !opened.is_file() {
            return Err(invalid(path, "it changed while it was read"));
        }
    }
    #[cfg(not(unix))]
    if !opened.is_file() {
        return Err(invalid(path, "it is not a file"));
    }
    let mut data = Vec::new();
    file.take(max + 1).read_to_end(&mut data).map_err(io)?;
    if data.len() as u64 > max {
        return Err(invalid(
            path,
            format!("more than the {max} bytes a file may have"),
        ));
    }
    Ok(data)
}

/// What a file type is, in words, when it is neither a file nor a folder.
fn not_plain(ft: &std::fs::FileType) -> Option<&'static str> {
    if ft.is_symlink() {
        Some("a symbolic link (links in a recording folder are not followed)")
    } else if ft.is_file() || ft.is_dir() {
        None
    } else {
        Some("a pipe, socket or device")
    }
}

impl Recordings {
    /// Read and check every recording under `root` (a link to a folder is
    /// followed there, as the folder named; nowhere below it).
    pub fn load(root: &Path) -> Result<Recordings, LoadError> {
        let text = root.as_os_str().to_string_lossy();
        if text.is_empty() {
            return Err(LoadError::Invalid(
                "recordings must name a folder, got an empty path".into(),
            ));
        }
        if text.contains('\0') {
            return Err(LoadError::Invalid(format!(
                "recordings {text:?} holds a NUL character: give a folder's path"
            )));
        }
        let meta = std::fs::metadata(root).map_err(|error| LoadError::Io {
            path: root.to_path_buf(),
            error,
        })?;
        if !meta.is_dir() {
            return Err(LoadError::Invalid(format!(
                "recordings {} is not a folder (give the folder a client's record_to wrote)",
                root.display()
            )));
        }
        let mut files = Vec::new();
        let mut stack = vec![(root.to_path_buf(), 0usize)];
        while let Some((dir, depth)) = stack.pop() {
            if depth > MAX_DEPTH {
                return Err(invalid(
                    &dir,
                    format!("folders nested deeper than {MAX_DEPTH}"),
                ));
            }
            let io = |error| LoadError::Io {
                path: dir.clone(),
                error,
            };
            for item in std::fs::read_dir(&dir).map_err(io)? {
                let item = item.map_err(io)?;
                let name = item.file_name();
                if name.to_string_lossy().starts_with('.') {
                    continue;
                }
                let path = item.path();
                let ft = item.file_type().map_err(|error| LoadError::Io {
                    path: path.clone(),
                    error,
                })?;
                if let Some(kind) = not_plain(&ft) {
                    return Err(invalid(&path, format!("it is {kind}")));
                }
                if ft.is_dir() {
                    stack.push((path, depth + 1));
                } else if name.to_string_lossy().ends_with(".json") {
                    files.push(path);
                    if files.len() > MAX_FILES {
                        return Err(LoadError::Invalid(format!(
                            "recordings {}: more than {MAX_FILES} recordings",
                            root.display()
                        )));
                    }
                }
            }
        }
        // By name: the same folder gives the same order (and the same winner) everywhere.
        files.sort();
        let mut total = 0u64;
        let mut entries = Vec::with_capacity(files.len());
        for file in files {
            let data = read_regular(&file, MAX_FILE_BYTES)?;
            total += data.len() as u64;
            let e = parse(&file, &data, &mut total)?;
            if total > MAX_TOTAL_BYTES {
                return Err(LoadError::Invalid(format!(
                    "recordings {}: more than {MAX_TOTAL_BYTES} bytes in all",
                    root.display()
                )));
            }
            entries.extend(e);
        }
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut exact: HashMap<(String, String), Vec<usize>> = HashMap::new();
        let mut wild_paths = Vec::new();
        for (i, e) in entries.iter().enumerate() {
            let identity = serde_json::to_string(&(
                &e.method,
                &e.path,
                &e.query,
                e.json.as_ref().map(urlscan_rules::canonical_json),
            ))
            .unwrap_or_default();
            if let Some(j) = seen.insert(identity, i) {
                return Err(LoadError::Invalid(format!(
                    "recordings {} and {} answer the same request ({} {}); keep one",
                    entries[j].file.display(),
                    e.file.display(),
                    e.method,
                    e.path
                )));
            }
            if e.path.contains(REDACTED) {
                wild_paths.push(i);
            } else {
                exact
                    .entry((e.method.clone(), e.path.clone()))
                    .or_default()
                    .push(i);
            }
        }
        Ok(Recordings {
            root: root.to_path_buf(),
            entries,
            exact,
            wild_paths,
            served: AtomicU64::new(0),
        })
    }

    /// How many recordings the folder holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Requests answered from the recordings so far.
    pub fn served(&self) -> u64 {
        self.served.load(Ordering::Relaxed)
    }

    /// The entries that may answer `method path` (before the query and body
    /// are compared): exact ones first, then those holding `REDACTED`.
    fn candidates(&self, method: &str, path: &str) -> Vec<&Recorded> {
        let mut out: Vec<&Recorded> = self
            .exact
            .get(&(method.to_string(), path.to_string()))
            .into_iter()
            .flatten()
            .map(|&i| &self.entries[i])
            .collect();
        out.extend(
            self.wild_paths
                .iter()
                .map(|&i| &self.entries[i])
                .filter(|e| e.method == method && glob(&e.path, path)),
        );
        // One with nothing hidden is the closer match.
        out.sort_by_key(|e| e.wild);
        out
    }

    /// The recording that answers this request, if one does.
    fn find<'a>(
        candidates: &[&'a Recorded],
        query: Option<&str>,
        body: &[u8],
    ) -> Option<&'a Recorded> {
        let mut pairs: Vec<(String, String)> =
            url::form_urlencoded::parse(query.unwrap_or_default().as_bytes())
                .into_owned()
                .collect();
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        let json: Option<Value> = match body.iter().all(u8::is_ascii_whitespace) {
            true => None,
            false => Some(serde_json::from_slice(body).ok()?),
        };
        candidates.iter().copied().find(|e| {
            e.query.len() == pairs.len()
                && e.query
                    .iter()
                    .zip(&pairs)
                    .all(|((k, v), (k2, v2))| k == k2 && glob(v, v2))
                && match (&e.json, &json) {
                    (None, None) => true,
                    (Some(a), Some(b)) => same_json(a, b),
                    _ => false,
                }
        })
    }
}

/// Whether `value` is `pattern`, where each `REDACTED` in it stands for any text.
fn glob(pattern: &str, value: &str) -> bool {
    let parts: Vec<&str> = pattern.split(REDACTED).collect();
    let [first, middle @ .., last] = parts.as_slice() else {
        return pattern == value;
    };
    if value.len() < first.len() + last.len() || !value.starts_with(first) || !value.ends_with(last)
    {
        return false;
    }
    let mut rest = &value[first.len()..value.len() - last.len()];
    for m in middle {
        match rest.find(m) {
            Some(i) => rest = &rest[i + m.len()..],
            None => return false,
        }
    }
    true
}

/// Whether the JSON `b` is the recorded `a` (members in any order; strings by [`glob`]).
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) => glob(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

fn holds_redacted(v: &Value) -> bool {
    match v {
        Value::String(s) => s.contains(REDACTED),
        Value::Array(a) => a.iter().any(holds_redacted),
        Value::Object(m) => m.values().any(holds_redacted),
        _ => false,
    }
}

/// One entry file, checked (None: a JSON file that is no recording); its body
/// file's bytes are counted in `total`.
fn parse(file: &Path, data: &[u8], total: &mut u64) -> Result<Option<Recorded>, LoadError> {
    let doc: Value =
        serde_json::from_slice(data).map_err(|e| invalid(file, format!("not valid JSON ({e})")))?;
    let Some(top) = doc.as_object() else {
        return Ok(None);
    };
    match top.get(FORMAT_KEY).and_then(Value::as_u64) {
        Some(FORMAT) => {}
        Some(n) => {
            return Err(invalid(
                file,
                format!("format {n}, written by a newer urlscan-rs (this one reads {FORMAT})"),
            ))
        }
        // Another JSON file kept beside the recordings (an index, notes): not read.
        None if top.get(FORMAT_KEY).is_none() => return Ok(None),
        None => {
            return Err(invalid(
                file,
                format!(
                    "\"{FORMAT_KEY}\" is not a version number (this urlscan-rs reads {FORMAT})"
                ),
            ))
        }
    }
    let part = |name: &str| {
        top.get(name)
            .and_then(Value::as_object)
            .ok_or_else(|| invalid(file, format!("no \"{name}\" object")))
    };
    let (req, resp) = (part("request")?, part("response")?);
    let text = |m: &serde_json::Map<String, Value>, name: &str| {
        m.get(name)
            .and_then(Value::as_str)
            .map(String::from)
            .ok_or_else(|| invalid(file, format!("\"{name}\" is not a string")))
    };
    let method = text(req, "method")?;
    if method.is_empty() || method.len() > 16 || !method.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(invalid(
            file,
            format!("{method:?} is not an HTTP method (GET, POST, ...)"),
        ));
    }
    let path = text(req, "path")?;
    if !path.starts_with('/') || path.len() > 16_384 {
        return Err(invalid(file, "\"path\" must start with / (at most 16 KiB)"));
    }
    let mut query = Vec::new();
    match req.get("query") {
        None | Some(Value::Null) => {}
        Some(Value::Object(m)) => {
            for (k, v) in m {
                match v {
                    Value::String(s) => query.push((k.clone(), s.clone())),
                    Value::Array(a) if a.iter().all(Value::is_string) => query.extend(
                        a.iter()
                            .map(|s| (k.clone(), s.as_str().unwrap_or_default().to_string())),
                    ),
                    _ => {
                        return Err(invalid(
                            file,
                            format!("query {k:?} is not a string or a list of strings"),
                        ))
                    }
                }
            }
        }
        Some(_) => return Err(invalid(file, "\"query\" is not an object")),
    }
    query.sort_by(|a, b| a.0.cmp(&b.0));
    let json = req.get("json").filter(|v| !v.is_null()).cloned();
    let wild = path.contains(REDACTED)
        || query.iter().any(|(_, v)| v.contains(REDACTED))
        || json.as_ref().is_some_and(holds_redacted);
    let status = resp
        .get("status")
        .and_then(Value::as_u64)
        .filter(|s| (100..=599).contains(s))
        .and_then(|s| StatusCode::from_u16(s as u16).ok())
        .ok_or_else(|| invalid(file, "\"status\" is not a status from 100 to 599"))?;
    let mut headers = Vec::new();
    match resp.get("headers") {
        None | Some(Value::Null) => {}
        Some(Value::Object(m)) => {
            for (k, v) in m {
                let name = HeaderName::from_bytes(k.as_bytes()).ok();
                let value = v.as_str().and_then(|v| HeaderValue::from_str(v).ok());
                match (name, value) {
                    (Some(n), Some(v)) => headers.push((n, v)),
                    _ => return Err(invalid(file, format!("header {k:?} is not a header"))),
                }
            }
        }
        Some(_) => return Err(invalid(file, "\"headers\" is not an object")),
    }
    let body = match (resp.get("json"), resp.get("body_file")) {
        (Some(_), Some(_)) => {
            return Err(invalid(file, "both \"json\" and \"body_file\": give one"));
        }
        (Some(v), None) => {
            let compact = serde_json::to_vec(v).unwrap_or_default();
            Bytes::from(super::json_form::indent(&compact))
        }
        (None, Some(name)) => {
            let name = name
                .as_str()
                .filter(|n| {
                    !n.is_empty()
                        && n.len() <= 255
                        && !n.starts_with('.')
                        && !n.contains(['/', '\\', '\0'])
                })
                .ok_or_else(|| {
                    invalid(file, "\"body_file\" is not the name of a file beside it")
                })?;
            let side = file.with_file_name(name);
            let bytes = read_regular(&side, MAX_FILE_BYTES).map_err(|e| match e {
                LoadError::Io { error, .. } => invalid(
                    file,
                    format!("its body file {name} cannot be read ({error})"),
                ),
                other => other,
            })?;
            *total += bytes.len() as u64;
            Bytes::from(bytes)
        }
        (None, None) => Bytes::new(),
    };
    Ok(Some(Recorded {
        file: file.to_path_buf(),
        method,
        path,
        query,
        json,
        wild,
        status,
        headers,
        body,
    }))
}

/// The layer's own state: the recordings, and how long a body may take.
#[derive(Clone)]
pub struct Replay {
    pub recordings: Arc<Recordings>,
    pub body_timeout: Duration,
}

/// Put the layer in front of `app`.
pub fn layer(app: axum::Router, recordings: Arc<Recordings>, body_timeout: f64) -> axum::Router {
    let replay = Replay {
        recordings,
        body_timeout: Duration::try_from_secs_f64(body_timeout).unwrap_or(Duration::MAX),
    };
    app.layer(axum::middleware::from_fn_with_state(replay, middleware))
}

/// A short JSON error in the service's envelope (the routes' own helper
/// lives above this module).
fn refuse(status: StatusCode, message: &str) -> Response {
    let body = serde_json::json!({"message": message, "status": status.as_u16()});
    let mut resp = Response::new(Body::from(super::json_form::indent(
        body.to_string().as_bytes(),
    )));
    *resp.status_mut() = status;
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(super::json_form::CONTENT_TYPE),
    );
    resp
}

/// Answer a recorded request as recorded; pass any other on.
pub async fn middleware(State(r): State<Replay>, req: Request, next: Next) -> Response {
    let candidates = r
        .recordings
        .candidates(req.method().as_str(), req.uri().path());
    if candidates.is_empty() {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    let bytes =
        match tokio::time::timeout(r.body_timeout, axum::body::to_bytes(body, REQUEST_BODY_MAX))
            .await
        {
            Ok(Ok(b)) => b,
            Ok(Err(_)) => {
                return refuse(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "The request body is too large or was cut off",
                )
            }
            Err(_) => {
                let mut resp = refuse(
                    StatusCode::REQUEST_TIMEOUT,
                    "The request body did not arrive in time",
                );
                resp.headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
                return resp;
            }
        };
    match Recordings::find(&candidates, parts.uri.query(), &bytes) {
        Some(e) => {
            r.recordings.served.fetch_add(1, Ordering::Relaxed);
            log::debug!(
                "replaying {} for {} {}",
                e.file.display(),
                parts.method,
                parts.uri.path()
            );
            let mut resp = Response::new(Body::from(e.body.clone()));
            *resp.status_mut() = e.status;
            for (k, v) in &e.headers {
                // The body's length and framing are this answer's own.
                if k == header::CONTENT_LENGTH || k == header::TRANSFER_ENCODING {
                    continue;
                }
                resp.headers_mut().append(k.clone(), v.clone());
            }
            resp
        }
        None => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacted_stands_for_any_text() {
        assert!(glob("abc", "abc") && !glob("abc", "abd"));
        assert!(glob("https://REDACTED:REDACTED@h/", "https://u:p@h/"));
        assert!(glob("token=REDACTED", "token=x"));
        assert!(!glob("https://REDACTED@h/", "https://u@g/"));
        assert!(glob("REDACTED", ""));
        assert!(!glob("aREDACTEDa", "a"));
    }

    fn write(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    const ENTRY: &str = r#"{"urlscan_rs_recording": 1,
        "request": {"method": "GET", "path": "/api/v1/search/", "query": {"q": "a", "size": "10"}},
        "response": {"status": 200, "headers": {"content-type": "application/json"}, "json": {"total": 1}}}"#;

    #[test]
    fn a_folder_is_read_and_matched() {
        let d = tempfile_dir();
        write(&d, "GET/api/v1/search/0.json", ENTRY);
        write(&d, ".git/config", "not read");
        write(&d, "README.md", "not read");
        let r = Recordings::load(&d).unwrap();
        assert_eq!(r.len(), 1);
        let c = r.candidates("GET", "/api/v1/search/");
        assert!(Recordings::find(&c, Some("size=10&q=a"), b"").is_some());
        assert!(Recordings::find(&c, Some("size=11&q=a"), b"").is_none());
        assert!(r.candidates("GET", "/api/v1/search").is_empty());
        write(&d, "index.json", r#"{"uuid": "an index"}"#);
        assert_eq!(Recordings::load(&d).unwrap().len(), 1);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_hostile_folder_is_refused_naming_the_file() {
        let cases: &[(&str, &str, &str)] = &[
            ("a.json", "{not json", "not valid JSON"),
            (
                "a.json",
                r#"{"urlscan_rs_recording": "one"}"#,
                "not a version number",
            ),
            (
                "a.json",
                r#"{"urlscan_rs_recording": 9}"#,
                "newer urlscan-rs",
            ),
            (
                "a.json",
                r#"{"urlscan_rs_recording": 1, "request": {"method": "get", "path": "/"}, "response": {"status": 200}}"#,
                "not an HTTP method",
            ),
            (
                "a.json",
                r#"{"urlscan_rs_recording": 1, "request": {"method": "GET", "path": "/"}, "response": {"status": 200, "body_file": "../x"}}"#,
                "body_file",
            ),
            (
                "a.json",
                r#"{"urlscan_rs_recording": 1, "request": {"method": "GET", "path": "/"}, "response": {"status": 200, "body_file": "gone.png"}}"#,
                "gone.png",
            ),
        ];
        for (name, text, want) in cases {
            let d = tempfile_dir();
            write(&d, name, text);
            let e = Recordings::load(&d).unwrap_err().to_string();
            assert!(e.contains(want) && e.contains(name), "{e}");
            std::fs::remove_dir_all(&d).unwrap();
        }
        let d = tempfile_dir();
        write(&d, "a/1.json", ENTRY);
        write(&d, "b/2.json", ENTRY);
        let e = Recordings::load(&d).unwrap_err().to_string();
        assert!(e.contains("answer the same request"), "{e}");
        std::fs::remove_dir_all(&d).unwrap();
        #[cfg(unix)]
        {
            let d = tempfile_dir();
            let outside = tempfile_dir();
            write(&outside, "x.json", ENTRY);
            std::os::unix::fs::symlink(&outside, d.join("GET")).unwrap();
            let e = Recordings::load(&d).unwrap_err().to_string();
            assert!(e.contains("symbolic link") && e.contains("GET"), "{e}");
            std::fs::remove_dir_all(&d).unwrap();
            std::fs::remove_dir_all(&outside).unwrap();
        }
    }

    /// A fresh folder under the system's temporary one.
    fn tempfile_dir() -> PathBuf {
        static N: AtomicU64 = AtomicU64::new(0);
        let d = std::env::temp_dir().join(format!(
            "urlscan-replay-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}
