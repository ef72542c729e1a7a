//! The HTTP surface of the emulator, answering like the service does.
// Checks return the finished error answer; boxing every one buys nothing here.
#![allow(clippy::result_large_err)]
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put, MethodRouter};
use axum::Router;
use serde_json::{json, Map, Value};

use super::answer::{
    caller, check_limit, err, gone, not_found_scan, ok_json, or_return, pending, validation,
    with_limit_headers, Need,
};
use super::content::{self, ScanSpec};
use super::request_fields::{check, FieldType, RequestField};
use super::search::{page_response, parse_query, search_args};
use super::state::{group_of, AppState, Caller, Entry};

type St = State<Arc<AppState>>;

/// The emulator's router: these endpoints and the premium ones
/// (`premium::router()`), behind the shared layers.
pub fn router(st: Arc<AppState>, premium: Router<Arc<AppState>>) -> Router {
    let mut r = Router::new();
    let routes: Vec<(&str, MethodRouter<Arc<AppState>>)> = vec![
        ("/api/v1/quotas", get(quotas)),
        ("/user/quotas", get(quotas)),
        ("/api/v1/pro/username", get(user)),
        ("/user/username", get(user)),
        ("/api/v1/scan", post(submit)),
        ("/api/v1/result/{uuid}", get(result)),
        (
            "/api/v1/result/{uuid}/visibility",
            put(set_visibility).delete(reset_visibility),
        ),
        ("/screenshots/{file}", get(screenshot)),
        ("/dom/{uuid}", get(dom)),
        ("/responses/{sha}", get(response_body)),
        ("/api/v1/availableCountries", get(countries)),
        ("/api/v1/userAgents", get(user_agents)),
        ("/api/v1/search", get(search)),
        ("/api/v1/pro/result/{uuid}/similar", get(similar)),
        ("/api/v1/pro/phishfeed", get(phishfeed)),
    ];
    // The service answers both with and without a trailing slash.
    for (path, mr) in routes {
        r = r.route(path, mr.clone()).route(&format!("{path}/"), mr);
    }
    r.merge(premium)
        .fallback(|| async {
            err(
                StatusCode::NOT_FOUND,
                "Not Found",
                Some("We could not find this page"),
            )
        })
        .layer(middleware::from_fn_with_state(
            st.clone(),
            super::answer::compact_layout,
        ))
        // A malformed key is refused on every path, before the handlers (faults come first).
        .layer(middleware::from_fn(super::answer::key_format))
        // Faults apply inside the latency layer, before the handlers.
        .layer(middleware::from_fn_with_state(
            st.clone(),
            super::fault_middleware::middleware,
        ))
        .layer(middleware::from_fn_with_state(st.clone(), latency))
        .layer(middleware::from_fn_with_state(st.clone(), whole_request))
        .with_state(st)
}

/// The largest request body read ahead of the handlers (the handlers' own
/// extractors keep their smaller limits).
const REQUEST_BODY_MAX: usize = 64 << 20;

/// Every request body is read to its end before the handlers run, so one
/// that a handler has no use for (`PUT .../close` with `{}`) does not leave
/// the connection unusable for the client's next request. hyper bounds only
/// how long the headers take: a body that stalls is cut off here after
/// `body_timeout`, or one connection could be held open for good.
async fn whole_request(State(st): St, req: Request, next: Next) -> Response {
    let (parts, body) = req.into_parts();
    // `EmulatorConfig::validate` keeps it in range; unchecked, no limit.
    let limit = Duration::try_from_secs_f64(st.cfg.body_timeout).unwrap_or(Duration::MAX);
    match tokio::time::timeout(limit, axum::body::to_bytes(body, REQUEST_BODY_MAX)).await {
        Ok(Ok(bytes)) => next.run(Request::from_parts(parts, bytes.into())).await,
        Ok(Err(_)) => err(
            StatusCode::PAYLOAD_TOO_LARGE,
            "Payload Too Large",
            Some("The request body is too large or was cut off"),
        ),
        Err(_) => {
            let mut resp = err(
                StatusCode::REQUEST_TIMEOUT,
                "Request Timeout",
                Some("The request body did not arrive in time"),
            );
            // The rest of the body may still come: the connection cannot carry another request.
            resp.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            resp
        }
    }
}

/// Added latency, per endpoint group, like a remote service.
async fn latency(State(st): St, req: Request, next: Next) -> Response {
    st.requests
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let secs = st.cfg.latency.for_group(group_of(req.uri().path()));
    if secs > 0.0 {
        tokio::time::sleep(Duration::from_secs_f64(secs)).await;
    }
    let mut resp = next.run(req).await;
    // The service's `Date` is its own clock: the emulator's, moved by `advance` (hyper would
    // send the wall clock), so a client judging item times by it sees what it would see there.
    let date = chrono::DateTime::from_timestamp_millis(st.now_ms())
        .map(|t| t.format("%a, %d %b %Y %H:%M:%S GMT").to_string());
    if let Some(value) = date.and_then(|d| HeaderValue::from_str(&d).ok()) {
        resp.headers_mut().insert(header::DATE, value);
    }
    resp
}

// ---------------------------------------------------------------- account

fn limits_json(st: &AppState, c: &Caller) -> Map<String, Value> {
    let now = st.now_ms();
    let rl = st.limiter.lock().unwrap();
    let mut actions: Vec<&String> = rl.limits.keys().collect();
    actions.sort();
    let mut m = Map::new();
    for a in actions {
        let mut w = Map::new();
        for (name, u) in rl.usage(&c.subject(), a, c.anonymous(), now) {
            w.insert(name, serde_json::to_value(u).unwrap_or_default());
        }
        m.insert(a.clone(), Value::Object(w));
    }
    m
}

async fn quotas(State(st): St, headers: HeaderMap, uri: axum::http::Uri) -> Response {
    let anonymous_ok = uri.path().starts_with("/user/");
    let c = or_return!(caller(
        &st,
        &headers,
        if anonymous_ok {
            Need::Anyone
        } else {
            Need::Key
        }
    ));
    let mut limits = limits_json(&st, &c);
    if anonymous_ok {
        limits.insert(
            "maxSearchResults".into(),
            json!(super::search::max_search_results(c.premium())),
        );
        limits.insert(
            "maxRetentionPeriodDays".into(),
            json!(if c.premium() { 365 } else { 30 }),
        );
        limits.insert(
            "queryVisibility".into(),
            json!(if c.anonymous() {
                ["public"].as_slice()
            } else {
                ["public", "unlisted", "private"].as_slice()
            }),
        );
    }
    let scope = match &c {
        Caller::Anonymous => "ip-address",
        Caller::Key(k) if k.team.is_some() => "team",
        Caller::Key(_) => "user",
    };
    ok_json(json!({"scope": scope, "source": scope, "limits": limits}))
}

async fn user(State(st): St, headers: HeaderMap) -> Response {
    let c = or_return!(caller(&st, &headers, Need::Key));
    let Caller::Key(k) = &c else {
        return not_found_scan();
    };
    let mut limits = limits_json(&st, &c);
    limits.insert(
        "maxSearchResults".into(),
        json!(super::search::max_search_results(k.premium)),
    );
    limits.insert("queryableFields".into(), json!(queryable_fields(k.premium)));
    let team = k
        .team
        .as_ref()
        .map(|t| json!({"_id": format!("team-{t}"), "name": t, "slug": t}));
    ok_json(json!({
        "username": k.user,
        "email": k.email,
        "createdAt": "2024-01-15T10:30:00.000Z",
        "team": team,
        "scopes": if k.readwrite { vec!["read", "readwrite"] } else { vec!["read"] },
        "limits": limits,
        "products": if k.premium { vec!["pro", "livescan"] } else { vec![] },
        "features": if k.premium { vec!["country-select", "livescan/tier/base", "api/extended-quotas"] } else { vec!["country-select"] },
    }))
}

fn queryable_fields(premium: bool) -> Vec<&'static str> {
    let mut f = vec![
        "date",
        "domain",
        "page.domain",
        "page.apexDomain",
        "page.url",
        "page.ip",
        "page.asn",
        "page.asnname",
        "page.country",
        "page.server",
        "page.title",
        "page.status",
        "page.mimeType",
        "page.tlsIssuer",
        "task.url",
        "task.domain",
        "task.apexDomain",
        "task.method",
        "task.source",
        "task.tags",
        "task.visibility",
        "task.time",
        "ip",
        "asn",
        "asnname",
        "hash",
        "filename",
        "server",
        "country",
        "hostname",
    ];
    if premium {
        f.extend([
            "verdicts.malicious",
            "verdicts.score",
            "verdicts.overall.malicious",
            "brand.key",
        ]);
    }
    f
}

/// Countries the emulator offers for scanning (lowercase, as the service sends them).
pub const SCAN_COUNTRIES: &[&str] = &[
    "at", "au", "br", "ca", "ch", "de", "dk", "es", "fi", "fr", "gb", "in", "it", "jp", "nl", "no",
    "pl", "se", "sg", "us",
];

async fn countries(State(st): St, headers: HeaderMap) -> Response {
    or_return!(caller(&st, &headers, Need::Key));
    ok_json(json!({"countries": SCAN_COUNTRIES}))
}

async fn user_agents(State(st): St, headers: HeaderMap) -> Response {
    or_return!(caller(&st, &headers, Need::Key));
    ok_json(json!({"userAgents": [
        {"group": "Chrome", "useragents": [
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"]},
        {"group": "Firefox", "useragents": [
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"]},
        {"group": "iOS", "useragents": [
            "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"]},
        {"group": "Android", "useragents": [
            "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"]},
    ]}))
}

// ---------------------------------------------------------------- scanning

/// A submission's fields as the service checks them: the emulator's row of
/// each scan option. The client declares them in
/// `urlscan_core::api::scanning::SCAN_FIELDS`; `premium::rules_agree`
/// compares the two tables.
/// A visibility change's body (`PUT /api/v1/result/{uuid}/visibility/`).
pub(crate) const VISIBILITY_CHANGE: &[RequestField] = &[RequestField::required(
    "visibility",
    FieldType::OneOf(urlscan_rules::VISIBILITY_CHANGES),
)];

pub(crate) const SCAN: &[RequestField] = &[
    RequestField::required("url", FieldType::Custom(scan_url)),
    RequestField::optional("visibility", FieldType::OneOf(urlscan_rules::VISIBILITIES)),
    RequestField::optional("tags", FieldType::Custom(scan_tags)),
    RequestField::optional("country", FieldType::Custom(country)),
    RequestField::optional("referer", FieldType::Str),
    RequestField::optional("customagent", FieldType::Str),
    // The service takes any value for it (the Go CLI sends a string).
    RequestField::optional("overrideSafety", FieldType::Any),
    // The legacy visibility switch integrations still send (see `visibility_of`).
    RequestField::optional("public", FieldType::OneOf(&["on", "off"])),
];

/// The visibility a submission asks for: `visibility` when given; else the
/// legacy `public` ("on": public; "off": the key's default, as when neither
/// is sent); else the key's default (public, the documented default). When
/// both are sent, `visibility` decides: it is the field the service
/// documents today, and no source shows `public` overriding it.
fn visibility_of(obj: &Map<String, Value>) -> String {
    let default = "public";
    match (
        obj.get("visibility").and_then(Value::as_str),
        obj.get("public").and_then(Value::as_str),
    ) {
        (Some(v), _) => v.to_string(),
        (None, Some("on")) => "public".to_string(),
        _ => default.to_string(),
    }
}

/// A submission's body: a JSON object, or else, under a form's content type,
/// a form (`url=...&public=on`, as older integrations post it); a repeated
/// form field (`tags`) becomes a list.
fn submission_body(headers: &HeaderMap, body: &[u8]) -> Option<Map<String, Value>> {
    let form = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/x-www-form-urlencoded"));
    // JSON whatever the content type says (clients post JSON under a form's type too).
    match serde_json::from_slice(body) {
        Ok(Value::Object(m)) => return Some(m),
        _ if !form => return None,
        _ => {}
    }
    let mut m = Map::new();
    for (k, v) in url::form_urlencoded::parse(body) {
        match m.get_mut(k.as_ref()) {
            Some(Value::Array(a)) => a.push(Value::String(v.into_owned())),
            Some(first) => *first = Value::Array(vec![first.take(), Value::String(v.into_owned())]),
            None if k == "tags" => {
                m.insert(
                    k.into_owned(),
                    Value::Array(vec![Value::String(v.into_owned())]),
                );
            }
            None => {
                m.insert(k.into_owned(), Value::String(v.into_owned()));
            }
        }
    }
    Some(m)
}

fn scan_url(label: &str, v: &Value) -> Option<String> {
    use urlscan_rules::{URL_MAX_LEN, URL_MIN_LEN};
    let Some(url) = v.as_str().map(str::trim) else {
        return Some(format!("\"{label}\" must be a string"));
    };
    if !(URL_MIN_LEN..=URL_MAX_LEN).contains(&url.chars().count()) {
        return Some(format!(
            "\"{label}\" length must be between {URL_MIN_LEN} and {URL_MAX_LEN} characters"
        ));
    }
    // The service's rule for what it scans (shared with the client's check):
    // http or https with a host; no scheme means http.
    urlscan_rules::scan_url(url).err().map(|_| {
        format!("\"{label}\" must be a valid uri with a scheme matching the http|https pattern")
    })
}

fn scan_tags(label: &str, v: &Value) -> Option<String> {
    match v.as_array() {
        Some(a) if a.len() > urlscan_rules::MAX_TAGS => Some(format!(
            "\"{label}\" must contain less than or equal to {} items",
            urlscan_rules::MAX_TAGS
        )),
        Some(a) if a.iter().all(Value::is_string) => None,
        _ => Some(format!("\"{label}\" must be an array of strings")),
    }
}

fn country(label: &str, v: &Value) -> Option<String> {
    match v.as_str() {
        Some(c) if urlscan_rules::country(c) => None,
        _ => Some(format!(
            "\"{label}\" must be a two-letter ISO 3166-1 country code"
        )),
    }
}

const DNS_FAIL_TLDS: &[&str] = &["invalid", "test", "local", "localhost", "internal", "bar"];

async fn submit(State(st): St, headers: HeaderMap, body: Bytes) -> Response {
    let c = or_return!(caller(&st, &headers, Need::Write));
    let Some(given) = submission_body(&headers, &body) else {
        return validation("\"value\" must be of type object");
    };
    let obj = or_return!(check(&given, "", SCAN, &[], true));
    let visibility = visibility_of(&obj);
    let action = visibility.clone();
    or_return!(check_limit(&st, &c, &action));
    let resp = submit_checked(&st, &c, &obj, visibility);
    with_limit_headers(&st, &c, &action, resp)
}

fn submit_checked(
    st: &AppState,
    c: &Caller,
    obj: &Map<String, Value>,
    visibility: String,
) -> Response {
    // Checked by `SCAN`.
    let raw_url = obj.get("url").and_then(Value::as_str).unwrap_or("").trim();
    let with_scheme = if raw_url.contains("://") {
        raw_url.to_string()
    } else {
        format!("http://{raw_url}")
    };
    let Ok(parsed) = url::Url::parse(&with_scheme) else {
        return validation("\"url\" must be a valid uri");
    };
    if !matches!(parsed.scheme(), "http" | "https") {
        return validation(
            "\"url\" must be a valid uri with a scheme matching the http|https pattern",
        );
    }
    let host = parsed.host_str().unwrap_or("").to_ascii_lowercase();
    let tld = host.rsplit('.').next().unwrap_or("");
    if parsed
        .host()
        .is_some_and(|h| matches!(h, url::Host::Domain(_)))
        && (!host.contains('.') || DNS_FAIL_TLDS.contains(&tld))
    {
        let d = format!("The domain {host} could not be resolved to a valid IPv4/IPv6 address. We won't try to load it in the browser.");
        return err(
            StatusCode::BAD_REQUEST,
            "DNS Error - Could not resolve domain",
            Some(&d),
        );
    }
    if host.split('.').next() == Some("blocked") {
        return err(
            StatusCode::BAD_REQUEST,
            "Scan prevented ...",
            Some("The submitted domain is on our blacklist. For your own safety we did not perform this scan..."),
        );
    }
    let tags: Vec<String> = obj
        .get("tags")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| t.as_str().map(String::from))
        .collect();
    let country = obj
        .get("country")
        .and_then(Value::as_str)
        .map(str::to_ascii_lowercase);
    let str_opt = |k: &str| obj.get(k).and_then(Value::as_str).map(String::from);
    let key = c.key().expect("scan needs a key");
    let now = st.now_ms();
    let uuid = uuid::Uuid::new_v4().to_string();
    let spec = ScanSpec {
        uuid: uuid.clone(),
        url: parsed.to_string(),
        time_ms: now,
        visibility: visibility.clone(),
        country: country.clone(),
        tags,
        method: "api".into(),
        source: format!("{:x}", content_hash(&key.user)),
        user_agent: str_opt("customagent"),
        referer: str_opt("referer"),
        planted: None,
    };
    let finish = now + (st.cfg.scan_duration * 1000.0).round() as i64;
    let spec = match st.scripted(spec) {
        Ok(s) => s,
        Err(e) => {
            let d = format!("the test's on_scan rule for this URL failed: {e}");
            return err(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Scenario error",
                Some(&d),
            );
        }
    };
    let result = content::result_json(&spec, &st.base_url);
    let used_country = result
        .pointer("/task/options/country")
        .or_else(|| result.pointer("/submitter/country"))
        .and_then(Value::as_str)
        .map(str::to_ascii_lowercase)
        .or(country)
        .unwrap_or_else(|| "us".into());
    let ua = result
        .pointer("/task/userAgent")
        .cloned()
        .unwrap_or(json!(null));
    let entry = st.entry(spec, Some(key.user.clone()), key.team.clone(), finish);
    st.store().insert(entry);
    st.submissions
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    ok_json(json!({
        "message": "Submission successful",
        "uuid": uuid,
        "result": format!("{}/result/{uuid}/", st.base_url),
        "api": format!("{}/api/v1/result/{uuid}/", st.base_url),
        "visibility": visibility,
        "options": {"useragent": ua},
        "url": parsed.to_string(),
        "country": used_country,
    }))
}

fn content_hash(s: &str) -> u64 {
    use sha2::Digest;
    let d = sha2::Sha256::digest(s.as_bytes());
    u64::from_be_bytes(d[..8].try_into().unwrap_or_default()) >> 32
}

/// Find a scan for reading by uuid, answering like the service when it
/// cannot be read: unknown or private to others 404, deleted 410, running 404.
pub(crate) fn readable(st: &AppState, c: &Caller, uuid: &str) -> Result<Entry, Response> {
    let id = uuid.trim().to_ascii_lowercase();
    let store = st.store();
    let Some(e) = store.get(&id) else {
        return Err(not_found_scan());
    };
    if !e.readable_by(c) {
        return Err(not_found_scan());
    }
    if e.deleted() {
        return Err(gone());
    }
    if !e.finished(st.now_ms()) {
        return Err(pending());
    }
    Ok(e.clone())
}

async fn result(State(st): St, headers: HeaderMap, Path(uuid): Path<String>) -> Response {
    let c = or_return!(caller(&st, &headers, Need::KeyLoggedIn));
    or_return!(check_limit(&st, &c, "retrieve"));
    let resp = match readable(&st, &c, &uuid) {
        Ok(e) => {
            let mut spec = e.spec.clone();
            spec.visibility = e.visibility.clone();
            let mut doc = content::result_json(&spec, &st.base_url);
            e.patch_result(&mut doc);
            // The caller's saved searches that match the scan (`state::saved_matches`).
            let tags = super::premium_model::saved_matches(&st, &c).tags(&e.doc, st.now_ms());
            doc["usertags"] = json!(tags.usertags);
            doc["metatags"] = json!(tags.meta);
            ok_json(doc)
        }
        Err(r) => r,
    };
    with_limit_headers(&st, &c, "retrieve", resp)
}

async fn screenshot(State(st): St, headers: HeaderMap, Path(file): Path<String>) -> Response {
    let c = or_return!(caller(&st, &headers, Need::Anyone));
    let Some(uuid) = file.strip_suffix(".png") else {
        return err(
            StatusCode::NOT_FOUND,
            "Not Found",
            Some("We could not find this page"),
        );
    };
    let missing = "We could not find this screenshot";
    scan_file(&st, &c, uuid, "image/png", content::screenshot_png, missing)
}

async fn dom(State(st): St, headers: HeaderMap, Path(uuid): Path<String>) -> Response {
    let c = or_return!(caller(&st, &headers, Need::KeyLoggedIn));
    let (text, missing) = (
        "text/plain; charset=utf-8",
        "We could not find this DOM snapshot",
    );
    scan_file(&st, &c, &uuid, text, content::dom, missing)
}

/// A file made from a scan the caller may read: the scan's 410 when it was
/// deleted, else 404 saying `missing` when it cannot be read.
fn scan_file<B: IntoResponse>(
    st: &AppState,
    c: &Caller,
    uuid: &str,
    content_type: &'static str,
    make: fn(&ScanSpec) -> B,
    missing: &str,
) -> Response {
    match readable(st, c, uuid) {
        Ok(e) => ([(header::CONTENT_TYPE, content_type)], make(&e.spec)).into_response(),
        Err(r) if r.status() == StatusCode::GONE => r,
        Err(_) => err(StatusCode::NOT_FOUND, "Not Found", Some(missing)),
    }
}

async fn response_body(State(st): St, headers: HeaderMap, Path(sha): Path<String>) -> Response {
    or_return!(caller(&st, &headers, Need::KeyLoggedIn));
    let sha = sha.to_ascii_lowercase();
    let text =
        |s: String| ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], s).into_response();
    if sha == content::EMPTY_SHA256 {
        return text(String::new());
    }
    let spec = st.store().spec_with_body(&sha);
    let body = spec.and_then(|s| {
        content::response_bodies(&s)
            .into_iter()
            .find(|(h, _)| *h == sha)
    });
    match body {
        Some((_, b)) => text(b),
        None => err(
            StatusCode::NOT_FOUND,
            "Not Found",
            Some("We could not find a response with this hash"),
        ),
    }
}

async fn set_visibility(
    State(st): St,
    headers: HeaderMap,
    Path(uuid): Path<String>,
    body: Bytes,
) -> Response {
    let c = or_return!(caller(&st, &headers, Need::PremiumWrite));
    let obj = match serde_json::from_slice::<Value>(&body) {
        Ok(Value::Object(m)) => m,
        _ => return validation("the body must be a JSON object"),
    };
    let fields = or_return!(check(&obj, "", VISIBILITY_CHANGE, &[], true));
    let vis = fields["visibility"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    change_visibility(&st, &c, &uuid, Some(vis))
}

async fn reset_visibility(State(st): St, headers: HeaderMap, Path(uuid): Path<String>) -> Response {
    let c = or_return!(caller(&st, &headers, Need::PremiumWrite));
    change_visibility(&st, &c, &uuid, None)
}

fn change_visibility(st: &AppState, c: &Caller, uuid: &str, to: Option<String>) -> Response {
    let id = uuid.trim().to_ascii_lowercase();
    let mut store = st.store();
    let Some(e) = store.get_mut(&id) else {
        return not_found_scan();
    };
    if !e.owned_by(c) {
        if !e.readable_by(c) {
            return not_found_scan();
        }
        return err(
            StatusCode::FORBIDDEN,
            "You are not allowed to change the visibility of this scan",
            Some("Only the owner of a scan and the owner's team can change its visibility."),
        );
    }
    let (message, vis) = match to {
        Some(v) => ("Visibility updated", v),
        None => ("Visibility reset", e.original_visibility.clone()),
    };
    e.visibility = vis.clone();
    st.refresh_hit(e);
    ok_json(json!({"uuid": id, "message": message, "visibility": vis}))
}

// ---------------------------------------------------------------- search

async fn search(State(st): St, headers: HeaderMap, RawQuery(raw): RawQuery) -> Response {
    let c = or_return!(caller(&st, &headers, Need::Anyone));
    or_return!(check_limit(&st, &c, "search"));
    let resp = match search_args(&c, raw).and_then(|a| parse_query(&c, &a.q).map(|q| (a, q))) {
        Ok((a, q)) => page_response(&st, &c, &a, &q, &|_| true),
        Err(r) => r,
    };
    with_limit_headers(&st, &c, "search", resp)
}

async fn similar(
    State(st): St,
    headers: HeaderMap,
    Path(uuid): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    let c = or_return!(caller(&st, &headers, Need::Premium));
    or_return!(check_limit(&st, &c, "search"));
    let resp = match readable(&st, &c, &uuid) {
        Err(r) => r,
        Ok(target) => {
            match search_args(&c, raw).and_then(|a| parse_query(&c, &a.q).map(|q| (a, q))) {
                Err(r) => r,
                Ok((a, q)) => {
                    // Structurally similar: same site (apex domain) or same page title.
                    let key = |e: &Entry, p: &str| super::state::lookup(&e.doc, p).cloned();
                    let apex = key(&target, "page.apexDomain");
                    let title = key(&target, "page.title");
                    let id = target.spec.uuid.clone();
                    let pred = move |e: &Entry| {
                        e.spec.uuid != id
                            && ((apex.is_some() && key(e, "page.apexDomain") == apex)
                                || (title.is_some() && key(e, "page.title") == title))
                    };
                    page_response(&st, &c, &a, &q, &pred)
                }
            }
        }
    };
    with_limit_headers(&st, &c, "search", resp)
}

async fn phishfeed(State(st): St, headers: HeaderMap, RawQuery(raw): RawQuery) -> Response {
    let c = or_return!(caller(&st, &headers, Need::Premium));
    or_return!(check_limit(&st, &c, "search"));
    let resp = match search_args(&c, raw).and_then(|a| parse_query(&c, &a.q).map(|q| (a, q))) {
        Ok((a, q)) => {
            let malicious = |e: &Entry| {
                super::state::lookup(&e.doc, "verdicts.malicious") == Some(&Value::Bool(true))
            };
            page_response(&st, &c, &a, &q, &malicious)
        }
        Err(r) => r,
    };
    with_limit_headers(&st, &c, "search", resp)
}
