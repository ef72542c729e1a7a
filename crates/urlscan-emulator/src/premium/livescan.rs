//! Live scanning: `/api/v1/livescan/...`.
//!
//! A live scan is temporary: it lives on its scanner until it is stored as a
//! permanent snapshot (PUT), purged (DELETE) or 60 minutes of emulator time
//! have passed since it was tasked. Only the caller and the caller's team see
//! it; others get 404.
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put, MethodRouter};
use serde_json::{json, Map, Value};

use super::super::answer::{
    check_limit, err, ok_json, or_return, pending, validation, with_limit_headers,
};
use super::super::content::{self, ScanSpec};
use super::super::state::premium_records::LiveScan;
use super::super::state::{AppState, Caller, KeyInfo};
use super::common::{check, iso, key_of, same_team, FieldType, RequestField};
use super::entry::Entry;
use super::need;

pub(super) fn routes() -> Vec<(&'static str, MethodRouter<Arc<AppState>>)> {
    vec![
        ("/api/v1/livescan/scanners", get(scanners)),
        ("/api/v1/livescan/{scanner}/task", post(start::<false>)),
        ("/api/v1/livescan/{scanner}/scan", post(start::<true>)),
        ("/api/v1/livescan/{scanner}/{id}", put(store).delete(purge)),
        ("/api/v1/livescan/{scanner}/{id}/{rid}", get(resource)),
    ]
}

impl LiveScan {
    pub(super) fn spec(&self) -> ScanSpec {
        self.spec.clone()
    }
    fn visible_to(&self, k: &KeyInfo) -> bool {
        self.owner == k.user || same_team(&self.team, k)
    }
}

struct Scanner {
    id: &'static str,
    country: &'static str,
    city: &'static str,
    region: &'static str,
    language: &'static str,
    provider: &'static str,
}

const SCANNERS: &[Scanner] = &[
    Scanner {
        id: "de01",
        country: "de",
        city: "Frankfurt",
        region: "Europe",
        language: "de-DE",
        provider: "Hetzner Online GmbH",
    },
    Scanner {
        id: "us01",
        country: "us",
        city: "New York",
        region: "Americas",
        language: "en-US",
        provider: "DigitalOcean, LLC",
    },
    Scanner {
        id: "jp01",
        country: "jp",
        city: "Tokyo",
        region: "Asia",
        language: "ja-JP",
        provider: "SAKURA Internet Inc.",
    },
    Scanner {
        id: "gb01",
        country: "gb",
        city: "London",
        region: "Europe",
        language: "en-GB",
        provider: "Linode, LLC",
    },
    Scanner {
        id: "sg01",
        country: "sg",
        city: "Singapore",
        region: "Asia",
        language: "en-SG",
        provider: "Vultr Holdings, LLC",
    },
];

const USER_AGENTS: &[&str] = &[
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
];

pub(super) use urlscan_rules::{
    LIVESCAN_DISABLE_FEATURES as DISABLE, LIVESCAN_ENABLE_FEATURES as ENABLE,
};

fn scanner_of(id: &str) -> Option<&'static Scanner> {
    SCANNERS.iter().find(|s| s.id == id)
}

fn unknown_scanner(id: &str) -> Response {
    let d = format!("There is no live scanner with the id '{id}'.");
    err(StatusCode::NOT_FOUND, "Scanner not found", Some(&d))
}

fn not_found_live() -> Response {
    err(
        StatusCode::NOT_FOUND,
        "Scan not found",
        Some("This scan is unknown on this scanner or was purged."),
    )
}

async fn scanners(req: Entry<need::Premium>) -> Response {
    let list: Vec<Value> = SCANNERS
        .iter()
        .enumerate()
        .map(|(i, s)| {
            json!({
                "_id": s.id,
                "id": s.id,
                "name": format!("{} ({})", s.city, s.id),
                "description": format!("Live scanner in {}, {}", s.city, s.country.to_ascii_uppercase()),
                "country": s.country,
                "city": s.city,
                "region": s.region,
                "online": true,
                "state": {"state": "online", "lastChecked": iso(req.now - 15_000)},
                "tags": ["datacenter"],
                "connectionType": "datacenter",
                "connectionProvider": s.provider,
                "apparentCountry": s.country,
                "browserLanguage": s.language,
                "maxTabs": 10,
                "currentTabs": i % 3,
                "userAgents": USER_AGENTS,
                "features": ENABLE,
            })
        })
        .collect();
    ok_json(json!({ "scanners": list }))
}

fn extra_headers(label: &str, v: &Value) -> Option<String> {
    use urlscan_rules::{header_name, header_value};
    match v.as_object() {
        Some(m)
            if m.iter()
                .all(|(k, x)| header_name(k) && x.as_str().is_some_and(header_value)) =>
        {
            None
        }
        Some(_) => Some(format!(
            "\"{label}\" must map header names to header values (strings without CR or LF)"
        )),
        None => Some(format!("\"{label}\" must be of type object")),
    }
}

/// The URL to scan: the same rule as a scan submission.
fn task_url(label: &str, v: &Value) -> Option<String> {
    match v.as_str() {
        None => Some(format!("\"{label}\" must be a string")),
        Some(s) => urlscan_rules::scan_url(s).err().map(|_| {
            format!("\"{label}\" must be a valid uri with a scheme matching the http|https pattern")
        }),
    }
}

/// A stored live scan's body (`task.visibility`).
pub(super) const STORE: &[RequestField] = &[RequestField::optional(
    "visibility",
    FieldType::OneOf(urlscan_rules::VISIBILITIES),
)];

pub(super) const TASK: &[RequestField] = &[
    RequestField::required("url", FieldType::Custom(task_url)),
    RequestField::optional("visibility", FieldType::OneOf(urlscan_rules::VISIBILITIES)),
    RequestField::optional("tags", FieldType::Strs),
];
pub(super) const SCANNER: &[RequestField] = &[
    RequestField::optional(
        "pageTimeout",
        FieldType::Int(0, urlscan_rules::LIVESCAN_MS_MAX),
    ),
    RequestField::optional(
        "captureDelay",
        FieldType::Int(0, urlscan_rules::LIVESCAN_MS_MAX),
    ),
    RequestField::optional("extraHeaders", FieldType::Custom(extra_headers)),
    RequestField::optional("enableFeatures", FieldType::Each(ENABLE)),
    RequestField::optional("disableFeatures", FieldType::Each(DISABLE)),
];

/// Validate `{"task": {...}, "scanner": {...}}`: task, its options and the
/// normalised URL.
type Task = (Map<String, Value>, Map<String, Value>, String);

fn parse_task(body: &[u8]) -> Result<Task, Response> {
    let Ok(Value::Object(mut obj)) = serde_json::from_slice::<Value>(body) else {
        return Err(validation("\"value\" must be of type object"));
    };
    let extra: Vec<String> = obj
        .keys()
        .filter(|k| !["task", "scanner"].contains(&k.as_str()))
        .map(|k| format!("\"{k}\" is not allowed"))
        .collect();
    if !extra.is_empty() {
        return Err(validation(&extra.join(". ")));
    }
    let task = match obj.remove("task") {
        Some(Value::Object(m)) => m,
        None | Some(Value::Null) => return Err(validation("\"task\" is required")),
        Some(_) => return Err(validation("\"task\" must be of type object")),
    };
    let scanner = match obj.remove("scanner") {
        Some(Value::Object(m)) => m,
        None | Some(Value::Null) => Map::new(),
        Some(_) => return Err(validation("\"scanner\" must be of type object")),
    };
    let task = check(&task, "task", TASK, &[], true)?;
    let scanner = check(&scanner, "scanner", SCANNER, &[], true)?;
    let raw = task.get("url").and_then(Value::as_str).unwrap_or("").trim();
    let with_scheme = if raw.contains("://") {
        raw.to_string()
    } else {
        format!("http://{raw}")
    };
    match url::Url::parse(&with_scheme) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => {
            Ok((task, scanner, u.to_string()))
        }
        _ => Err(validation(
            "\"task.url\" must be a valid uri with a scheme matching the http|https pattern",
        )),
    }
}

/// Start a scan: `/task` answers at once and the scan finishes later on the
/// emulator clock; `/scan` (`BLOCKING`) finishes it before answering.
async fn start<const BLOCKING: bool>(
    Path(scanner): Path<String>,
    req: Entry<need::PremiumWrite, Bytes>,
) -> Response {
    let Some(sc) = scanner_of(&scanner) else {
        return unknown_scanner(&scanner);
    };
    or_return!(check_limit(&req.st, &req.caller, "livescan"));
    let resp = match parse_task(&req.body) {
        Err(r) => r,
        Ok((task, opts, url)) => {
            let k = req.key();
            let uuid = uuid::Uuid::new_v4().to_string();
            let referer = opts
                .get("extraHeaders")
                .and_then(Value::as_object)
                .and_then(|h| h.iter().find(|(n, _)| n.eq_ignore_ascii_case("referer")))
                .and_then(|(_, v)| v.as_str().map(String::from));
            let spec = ScanSpec {
                uuid: uuid.clone(),
                url,
                time_ms: req.now,
                visibility: task
                    .get("visibility")
                    .and_then(Value::as_str)
                    .unwrap_or("public")
                    .to_string(),
                country: Some(sc.country.to_string()),
                tags: super::common::strings(&task, "tags"),
                method: "api".into(),
                source: super::common::hex_sha256(k.user.as_bytes())[..8].to_string(),
                user_agent: None,
                referer,
                planted: None,
            };
            let finish_ms = if BLOCKING {
                req.now
            } else {
                req.now + (req.st.cfg.scan_duration * 1000.0).round() as i64
            };
            req.st.premium().livescans.insert(
                uuid.clone(),
                LiveScan {
                    scanner: sc.id,
                    spec,
                    owner: k.user.clone(),
                    team: k.team.clone(),
                    finish_ms,
                    disabled: super::common::strings(&opts, "disableFeatures"),
                },
            );
            ok_json(json!({ "uuid": uuid }))
        }
    };
    with_limit_headers(&req.st, &req.caller, "livescan", resp)
}

/// The caller's live scan `id` on `scanner`, or the 404 answer.
fn live(st: &AppState, c: &Caller, scanner: &str, id: &str) -> Result<LiveScan, Response> {
    if scanner_of(scanner).is_none() {
        return Err(unknown_scanner(scanner));
    }
    let p = st.premium();
    match p.livescans.get(&id.to_ascii_lowercase()) {
        Some(s) if s.scanner == scanner && s.visible_to(key_of(c)) => Ok(s.clone()),
        _ => Err(not_found_live()),
    }
}

/// `result` (JSON), `screenshot` (PNG) and `dom` (text) by scan id;
/// `response` (text) and `download` (bytes) by SHA-256 of a response body of
/// one of the caller's scans on this scanner. A disabled feature's resource
/// is absent (404).
async fn resource(
    Path((scanner, rtype, rid)): Path<(String, String, String)>,
    req: Entry<need::Premium>,
) -> Response {
    match rtype.as_str() {
        "result" | "screenshot" | "dom" => {
            let s = or_return!(live(&req.st, &req.caller, &scanner, &rid));
            if req.now < s.finish_ms {
                return pending();
            }
            if s.disabled.contains(&rtype) {
                return not_found_live();
            }
            match rtype.as_str() {
                "result" => ok_json(content::result_json(&s.spec, &req.st.base_url)),
                "screenshot" => (
                    [(header::CONTENT_TYPE, "image/png")],
                    content::screenshot_png(&s.spec),
                )
                    .into_response(),
                _ => (
                    [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                    content::dom(&s.spec),
                )
                    .into_response(),
            }
        }
        "response" | "download" => {
            if scanner_of(&scanner).is_none() {
                return unknown_scanner(&scanner);
            }
            let sha = rid.to_ascii_lowercase();
            let k = req.key();
            let scans: Vec<LiveScan> = {
                let p = req.st.premium();
                p.livescans
                    .values()
                    .filter(|s| s.scanner == scanner && s.visible_to(k) && req.now >= s.finish_ms)
                    .filter(|s| !s.disabled.iter().any(|d| d == "responses"))
                    .cloned()
                    .collect()
            };
            let body = scans.iter().find_map(|s| {
                content::response_bodies(&s.spec)
                    .into_iter()
                    .find(|(h, _)| *h == sha)
                    .map(|(_, b)| b)
            });
            match body {
                None => not_found_live(),
                Some(b) if rtype == "response" => {
                    ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], b).into_response()
                }
                Some(b) => (
                    [(header::CONTENT_TYPE, "application/octet-stream")],
                    b.into_bytes(),
                )
                    .into_response(),
            }
        }
        _ => err(
            StatusCode::NOT_FOUND,
            "Not Found",
            Some("The resource type must be one of result, screenshot, dom, response, download."),
        ),
    }
}

/// Store the temporary scan as a permanent snapshot with the same uuid,
/// owned by the caller. Storing again changes the snapshot's visibility.
async fn store(
    Path((scanner, id)): Path<(String, String)>,
    req: Entry<need::PremiumWrite, Bytes>,
) -> Response {
    let s = or_return!(live(&req.st, &req.caller, &scanner, &id));
    let task = if req.body.iter().all(u8::is_ascii_whitespace) {
        Map::new()
    } else {
        or_return!(super::common::wrapped(&req.body, "task"))
    };
    let fields = or_return!(check(&task, "task", STORE, &[], false));
    let vis = fields
        .get("visibility")
        .and_then(Value::as_str)
        .unwrap_or(&s.spec.visibility)
        .to_string();
    let k = req.key();
    let mut spec = s.spec.clone();
    spec.visibility = vis.clone();
    let uuid = spec.uuid.clone();
    let existing = req.st.store().get(&uuid).is_some();
    if existing {
        let mut store = req.st.store();
        if let Some(e) = store.get_mut(&uuid) {
            e.visibility = vis.clone();
            req.st.refresh_hit(e);
        }
    } else {
        let (owner, team) = (Some(k.user.clone()), k.team.clone());
        let entry = req.st.entry(spec, owner, team, s.finish_ms);
        req.st.store().insert(entry);
    }
    // Stored, it leaves the temporary state: the scanner no longer holds it.
    req.st.premium().livescans.remove(&uuid);
    ok_json(json!({"uuid": uuid, "message": "Scan stored", "visibility": vis}))
}

async fn purge(
    Path((scanner, id)): Path<(String, String)>,
    req: Entry<need::PremiumWrite>,
) -> Response {
    let s = or_return!(live(&req.st, &req.caller, &scanner, &id));
    let mut p = req.st.premium();
    p.livescans.remove(&s.spec.uuid);
    ok_json(json!({"status": "purged"}))
}
