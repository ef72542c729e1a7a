//! Data dumps: `/api/v1/datadump/list/...`, `/api/v1/datadump/link/...` and
//! the temporary download addresses the links point at.
//!
//! A dump file covers one window (a day, an hour or a minute, UTC) and holds
//! the public scans submitted in it: `search` and `api` are gzipped
//! newline-delimited JSON (search hits, full results), `screenshots` and
//! `dom` gzipped tar archives (`{uuid}.png`, `{uuid}.html`). A file exists
//! once its window has ended on the emulator clock.
use std::io::Write;
use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, MethodRouter};
use chrono::NaiveDate;
use serde_json::{json, Value};

use super::super::answer::{err, ok_json, validation};
use super::super::content;
use super::super::premium_model::now;
use super::super::state::AppState;
use super::common::iso;
use super::entry::Entry;
use super::need;

type St = State<Arc<AppState>>;

pub(super) fn routes() -> Vec<(&'static str, MethodRouter<Arc<AppState>>)> {
    vec![
        ("/api/v1/datadump/list/{window}/{ftype}/{date}", get(list)),
        ("/api/v1/datadump/link/{*path}", get(link)),
        ("/datadump-files/{*path}", get(file)),
    ]
}

const WINDOWS: &[&str] = &["days", "hours", "minutes"];
const TYPES: &[&str] = &["api", "search", "screenshots", "dom"];
/// How long a download link stays valid (emulator time).
const LINK_TTL_MS: i64 = 60 * 60 * 1000;

/// A dump file: path, window start and end (epoch ms).
struct DumpFile {
    path: String,
    start: i64,
    end: i64,
}

fn parse_date(s: &str) -> Option<NaiveDate> {
    if s.len() != 8 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    NaiveDate::parse_from_str(s, "%Y%m%d").ok()
}

/// The files of a window kind, type and day that exist at `now`.
fn files(window: &str, ftype: &str, date: NaiveDate, now: i64) -> Vec<DumpFile> {
    let d = date.format("%Y%m%d").to_string();
    let day0 = date
        .and_hms_opt(0, 0, 0)
        .map(|t| t.and_utc().timestamp_millis())
        .unwrap_or_default();
    let all: Vec<DumpFile> = match window {
        "days" => vec![DumpFile {
            path: format!("days/{ftype}/{d}.gz"),
            start: day0,
            end: day0 + 86_400_000,
        }],
        "hours" => (0..24)
            .map(|h| DumpFile {
                path: format!("hours/{ftype}/{d}/{d}-{h:02}.gz"),
                start: day0 + h * 3_600_000,
                end: day0 + (h + 1) * 3_600_000,
            })
            .collect(),
        _ => (0..1440)
            .map(|m| DumpFile {
                path: format!("minutes/{ftype}/{d}/{d}-{:02}-{:02}.gz", m / 60, m % 60),
                start: day0 + m * 60_000,
                end: day0 + (m + 1) * 60_000,
            })
            .collect(),
    };
    all.into_iter().filter(|f| f.end <= now).collect()
}

/// The dump file a path names, if it exists at `now`.
fn file_of(path: &str, now: i64) -> Option<DumpFile> {
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (window, ftype) = (*parts.first()?, *parts.get(1)?);
    if !WINDOWS.contains(&window) || !TYPES.contains(&ftype) {
        return None;
    }
    let date = parse_date(parts.get(2)?.trim_end_matches(".gz"))?;
    let want = parts.join("/");
    files(window, ftype, date, now)
        .into_iter()
        .find(|f| f.path == want)
}

/// A ustar archive.
fn tar(entries: &[(String, Vec<u8>, i64)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, data, mtime_s) in entries {
        let mut h = [0u8; 512];
        let mut put = |at: usize, s: &[u8]| h[at..at + s.len()].copy_from_slice(s);
        put(0, &name.as_bytes()[..name.len().min(100)]);
        put(100, b"0000644\0");
        put(108, b"0000000\0");
        put(116, b"0000000\0");
        put(124, format!("{:011o}\0", data.len()).as_bytes());
        put(136, format!("{:011o}\0", (*mtime_s).max(0)).as_bytes());
        put(148, b"        ");
        put(156, b"0");
        put(257, b"ustar\0");
        put(263, b"00");
        put(265, b"urlscan");
        put(297, b"urlscan");
        let sum: u32 = h.iter().map(|&b| b as u32).sum();
        h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        out.extend_from_slice(&h);
        out.extend_from_slice(data);
        out.resize(out.len().div_ceil(512) * 512, 0);
    }
    out.resize(out.len() + 1024, 0);
    out
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing into a Vec cannot fail.
    let _ = enc.write_all(data);
    enc.finish().unwrap_or_default()
}

type Scan = (content::ScanSpec, String, i64);

/// Public scans submitted in `[start, end)` and finished by `end`: spec,
/// search hit, finish time.
fn scans_between(st: &AppState, start: i64, end: i64) -> Vec<Scan> {
    let store = st.store();
    store
        .by_time
        .values()
        .filter(|e| e.spec.time_ms >= start && e.spec.time_ms < end)
        .filter(|e| e.visibility == "public" && e.finish_ms <= end)
        .map(|e| (e.spec.clone(), e.hit.clone(), e.finish_ms))
        .collect()
}

/// The gzipped content of a dump file from the scans of (at least) its window.
fn render(st: &AppState, ftype: &str, f: &DumpFile, scans: &[Scan]) -> Vec<u8> {
    let scans: Vec<&Scan> = scans
        .iter()
        .filter(|(s, _, fin)| s.time_ms >= f.start && s.time_ms < f.end && *fin <= f.end)
        .collect();
    let raw = match ftype {
        "search" => scans
            .iter()
            .map(|(_, h, _)| format!("{h}\n"))
            .collect::<String>()
            .into_bytes(),
        "api" => scans
            .iter()
            .map(|(s, _, _)| format!("{}\n", content::result_json(s, &st.base_url)))
            .collect::<String>()
            .into_bytes(),
        "screenshots" => tar(&scans
            .iter()
            .map(|(s, _, _)| {
                (
                    format!("{}.png", s.uuid),
                    content::screenshot_png(s),
                    s.time_ms / 1000,
                )
            })
            .collect::<Vec<_>>()),
        _ => tar(&scans
            .iter()
            .map(|(s, _, _)| {
                (
                    format!("{}.html", s.uuid),
                    content::dom(s).into_bytes(),
                    s.time_ms / 1000,
                )
            })
            .collect::<Vec<_>>()),
    };
    gzip(&raw)
}

fn build(st: &AppState, ftype: &str, f: &DumpFile) -> Vec<u8> {
    let scans = scans_between(st, f.start, f.end);
    let body = render(st, ftype, f, &scans);
    remember_size(st, ftype, f, &scans, body.len());
    body
}

/// Sizes kept at most (a few per file of a long history).
const SIZES_KEPT: usize = 100_000;

/// What decides a file's bytes besides its type and path: the scans in it.
fn fingerprint(f: &DumpFile, scans: &[Scan]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for (s, _, fin) in scans {
        if s.time_ms >= f.start && s.time_ms < f.end && *fin <= f.end {
            s.uuid.hash(&mut h);
        }
    }
    h.finish()
}

fn remember_size(st: &AppState, ftype: &str, f: &DumpFile, scans: &[Scan], size: usize) {
    let key = (ftype.to_string(), f.path.clone(), fingerprint(f, scans));
    let mut p = st.premium();
    if p.dump_sizes.len() >= SIZES_KEPT {
        p.dump_sizes.clear();
    }
    p.dump_sizes.insert(key, size);
}

/// A file's size: rendered once for the scans it holds, then remembered (a
/// listing would otherwise render and gzip every file of the day each time).
fn size_of(st: &AppState, ftype: &str, f: &DumpFile, scans: &[Scan]) -> usize {
    let key = (ftype.to_string(), f.path.clone(), fingerprint(f, scans));
    if let Some(size) = st.premium().dump_sizes.get(&key) {
        return *size;
    }
    let size = render(st, ftype, f, scans).len();
    remember_size(st, ftype, f, scans, size);
    size
}

async fn list(
    Path((window, ftype, date)): Path<(String, String, String)>,
    req: Entry<need::Premium>,
) -> Response {
    let mut problems = Vec::new();
    if !WINDOWS.contains(&window.as_str()) {
        problems.push(format!("\"timeWindow\" {}", super::common::one_of(WINDOWS)));
    }
    if !TYPES.contains(&ftype.as_str()) {
        problems.push(format!("\"fileType\" {}", super::common::one_of(TYPES)));
    }
    let day = parse_date(&date);
    if day.is_none() {
        problems.push("\"date\" must be a date in the form YYYYMMDD".to_string());
    }
    let Some(day) = day.filter(|_| problems.is_empty()) else {
        return validation(&problems.join(". "));
    };
    let listed = files(&window, &ftype, day, req.now);
    let (Some(first), Some(last)) = (listed.first(), listed.last()) else {
        return ok_json(json!({ "files": [] }));
    };
    let scans = scans_between(&req.st, first.start, last.end);
    // Most minute and hour windows are empty; their file is the same.
    let empty = render(&req.st, &ftype, first, &[]).len();
    let out: Vec<Value> = listed
        .iter()
        .map(|f| {
            let any = scans
                .iter()
                .any(|(s, _, _)| s.time_ms >= f.start && s.time_ms < f.end);
            let size = if any {
                size_of(&req.st, &ftype, f, &scans)
            } else {
                empty
            };
            json!({"path": f.path, "size": size, "timestamp": iso(f.end)})
        })
        .collect();
    ok_json(json!({ "files": out }))
}

/// 302 to a temporary address on the emulator that needs no API key.
async fn link(Path(path): Path<String>, req: Entry<need::Premium>) -> Response {
    let Some(f) = file_of(&path, req.now) else {
        return err(
            StatusCode::NOT_FOUND,
            "File not found",
            Some("There is no data dump file at this path."),
        );
    };
    let token = hex::encode(rand::random::<[u8; 16]>());
    req.st
        .premium()
        .dump_tokens
        .insert(token.clone(), (f.path.clone(), req.now + LINK_TTL_MS));
    let location = format!(
        "{}/datadump-files/{}?token={token}",
        req.st.base_url, f.path
    );
    (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
}

/// `Range: bytes=N-` (the only form a resumed download sends): N.
fn range_start(headers: &HeaderMap) -> Option<usize> {
    let v = headers.get(header::RANGE)?.to_str().ok()?;
    let n = v.strip_prefix("bytes=")?.strip_suffix('-')?;
    n.trim().parse().ok()
}

async fn file(
    State(st): St,
    Path(path): Path<String>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let now = now(&st);
    let token = url::form_urlencoded::parse(raw.unwrap_or_default().as_bytes())
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default();
    let granted = st
        .premium()
        .dump_tokens
        .get(&token)
        .is_some_and(|(p, exp)| *p == path.trim_matches('/') && *exp > now);
    if !granted {
        return err(
            StatusCode::FORBIDDEN,
            "Access denied",
            Some("The download link is invalid or has expired."),
        );
    }
    let Some(f) = file_of(&path, now) else {
        return err(StatusCode::NOT_FOUND, "Not Found", None);
    };
    let ftype = path.split('/').nth(1).unwrap_or("search").to_string();
    let name = f.path.rsplit('/').next().unwrap_or("dump.gz").to_string();
    let body = build(&st, &ftype, &f);
    let kind = [
        (header::CONTENT_TYPE, "application/gzip".to_string()),
        (
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{name}\""),
        ),
    ];
    // A resumed download asks for the rest, as object stores answer it.
    match range_start(&headers) {
        Some(from) if from >= body.len() => (
            StatusCode::RANGE_NOT_SATISFIABLE,
            [(header::CONTENT_RANGE, format!("bytes */{}", body.len()))],
        )
            .into_response(),
        Some(from) => {
            let range = format!("bytes {from}-{}/{}", body.len() - 1, body.len());
            let mut resp =
                (StatusCode::PARTIAL_CONTENT, kind, body[from..].to_vec()).into_response();
            if let Ok(v) = header::HeaderValue::from_str(&range) {
                resp.headers_mut().insert(header::CONTENT_RANGE, v);
            }
            resp
        }
        None => (kind, body).into_response(),
    }
}
