//! Incidents: an observable scanned repeatedly on the emulator clock.
//!
//! Lifecycle (state `active` or `closed`):
//! * a new incident (created, copied or forked) is `active` and is scanned at
//!   once, then every `scanInterval` seconds. Each interval scans with
//!   `userAgentsPerInterval` user agents and `countriesPerInterval`
//!   countries, taken round-robin from `userAgents` and `countries`, one
//!   incident state per (user agent, country) pair;
//! * `PUT .../close` closes an active incident; `PUT .../restart` reopens a
//!   closed one with a new `expireAt` (now + `expireAfter`, default 7 days)
//!   and no states;
//! * it closes by itself when `expireAt` is reached, or once the observable
//!   has been suspended, inactive or malicious for the matching `stopDelay*`
//!   seconds.
//!
//! The observable's condition is fixed by the observable itself, so tests
//! can choose it. It shows from the first scan:
//! * host starting with `suspended.`: suspended (the page is a suspension
//!   notice);
//! * host starting with `inactive.`: inactive (no DNS answer, no page);
//! * host starting with `malicious.`, or any URL the scan content generator
//!   classifies as phishing (a brand name glued to phishing words on a domain
//!   the brand does not own, e.g. `paypal-secure-login.xyz`): malicious;
//! * anything else: active and benign, closed only by `expireAt` or by hand.
//!
//! With `scanIntervalMode` automatic (the default), a malicious observable
//! is then scanned every `scanIntervalAfterMalicious` seconds and a suspended
//! one every `scanIntervalAfterSuspended` seconds.
//!
//! Every incident state is a real scan of the observable (in the scan store,
//! owned by the incident's owner and team, with the incident's visibility);
//! the state names it in `state.scanId`. Observables whose first label is
//! `changing` (e.g. `changing.example.net`) show another page IP and title at
//! each interval; when a watched attribute differs from the previous
//! interval's observation, the change is queued for notification.
//!
//! Access: the owner may do everything; the owner's team may read (details,
//! states, copy, fork); anyone else gets 404.
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post, put, MethodRouter};
use serde_json::{json, Map, Value};

use super::super::answer::{err, ok_json, or_return, validation};
use super::super::premium_model::flush;
use super::super::premium_model::incidents::{observe, target_url, DEFAULT_EXPIRE_S};
use super::super::state::premium_records::{Incident, PremiumState};
use super::super::state::Guard;
use super::super::state::{AppState, KeyInfo};
use super::common::{check, check_refs, wrapped, Access, FieldType, RequestField};
use super::entry::Entry;
use super::need;

pub(super) fn routes() -> Vec<(&'static str, MethodRouter<Arc<AppState>>)> {
    vec![
        ("/api/v1/user/incidents", post(create)),
        ("/api/v1/user/incidents/{id}", get(read).put(update)),
        ("/api/v1/user/incidents/{id}/close", put(close)),
        ("/api/v1/user/incidents/{id}/restart", put(restart)),
        ("/api/v1/user/incidents/{id}/copy", post(copy)),
        ("/api/v1/user/incidents/{id}/fork", post(fork)),
        ("/api/v1/user/watchableAttributes", get(attributes)),
        ("/api/v1/user/incidentstates/{id}", get(states)),
    ]
}

pub(super) use urlscan_rules::WATCHED_ATTRIBUTES as ATTRIBUTES;

// ---------------------------------------------------------------- validation

fn observable(label: &str, v: &Value) -> Option<String> {
    match v.as_str().map(str::trim) {
        Some(s) if urlscan_rules::observable(s).is_ok() && target_url(s, None).is_some() => None,
        _ => Some(format!(
            "\"{label}\" must be a hostname, domain, IP address or URL"
        )),
    }
}

fn extra_path(label: &str, v: &Value) -> Option<String> {
    let Some(s) = v.as_str() else {
        return Some(format!("\"{label}\" must be a string"));
    };
    if s.chars().count() > urlscan_rules::EXTRA_PATH_MAX {
        return Some(format!(
            "\"{label}\" length must be less than or equal to {} characters long",
            urlscan_rules::EXTRA_PATH_MAX
        ));
    }
    (!urlscan_rules::extra_path(s)).then(|| {
        format!("\"{label}\" with value \"{}\" fails to match the required pattern: /^\\/[a-zA-Z0-9\\/_\\-?#=.~%:@!$&'()*+,;\\[\\]]*$/", urlscan_rules::shown(s, 80))
    })
}

fn countries(label: &str, v: &Value) -> Option<String> {
    super::common::check_array(label, v, &|l, c| match c.as_str() {
        Some(s) if urlscan_rules::country(s) => None,
        _ => Some(format!(
            "\"{l}\" must be a two-letter ISO 3166-1 country code"
        )),
    })
}

// Emulator behaviour: the specification gives incident intervals, delays,
// counts and expiry no bounds (the client checks none); the emulator, which
// schedules real scans by them, keeps these.
/// A minute to 30 days between scans.
pub(crate) const INTERVAL_MIN: i64 = 60;
pub(crate) const INTERVAL_MAX: i64 = 30 * 86_400;
const YEAR_S: i64 = 365 * 86_400;
/// Delays of up to a year; expiry a minute to a year ahead.
pub(crate) const DELAY_MAX: i64 = YEAR_S;
pub(crate) const EXPIRE_MIN: i64 = 60;
pub(crate) const EXPIRE_MAX: i64 = YEAR_S;
/// User agents and countries per interval: 1 to 10.
pub(crate) const PER_INTERVAL_MAX: i64 = 10;
const INTERVAL: FieldType = FieldType::Int(INTERVAL_MIN, INTERVAL_MAX);
const DELAY: FieldType = FieldType::Int(0, DELAY_MAX);
const PER_INTERVAL: FieldType = FieldType::Int(1, PER_INTERVAL_MAX);

pub(super) const FIELDS: &[RequestField] = &[
    RequestField::required("observable", FieldType::Custom(observable)),
    RequestField::required(
        "visibility",
        FieldType::OneOf(urlscan_rules::INCIDENT_VISIBILITIES),
    ),
    RequestField::required("channels", FieldType::Ids),
    // The specification allows null, to clear it.
    RequestField::optional(
        "extraPath",
        FieldType::NullOr(&FieldType::Custom(extra_path)),
    ),
    RequestField::optional("scanInterval", INTERVAL),
    RequestField::optional(
        "scanIntervalMode",
        FieldType::OneOf(urlscan_rules::SCAN_INTERVAL_MODES),
    ),
    RequestField::optional("watchedAttributes", FieldType::Each(ATTRIBUTES)),
    RequestField::optional("userAgents", FieldType::Strs),
    RequestField::optional("userAgentsPerInterval", PER_INTERVAL),
    RequestField::optional("countries", FieldType::Custom(countries)),
    RequestField::optional("countriesPerInterval", PER_INTERVAL),
    RequestField::optional("stopDelaySuspended", DELAY),
    RequestField::optional("stopDelayInactive", DELAY),
    RequestField::optional("stopDelayMalicious", DELAY),
    RequestField::optional("scanIntervalAfterSuspended", INTERVAL),
    RequestField::optional("scanIntervalAfterMalicious", INTERVAL),
    RequestField::optional("incidentProfile", FieldType::Str),
    RequestField::optional("expireAfter", FieldType::Int(EXPIRE_MIN, EXPIRE_MAX)),
];

/// Response-only fields a client may echo back; they are ignored.
pub(super) const READ_ONLY: &[&str] = &[
    "_id",
    "createdAt",
    "scannedAt",
    "expireAt",
    "sourceType",
    "sourceId",
    "state",
    "stateSize",
    "stateCount",
    "owner",
    "type",
    "labels",
];

fn parse(
    p: &PremiumState,
    k: &KeyInfo,
    body: &[u8],
    creating: bool,
) -> Result<Map<String, Value>, Response> {
    let obj = wrapped(body, "incident")?;
    let mut fields = check(&obj, "incident", FIELDS, READ_ONLY, creating)?;
    check_refs(&fields, "incident", "channels", &p.channels, k, "channel")?;
    if let Some(Value::Array(cs)) = fields.get_mut("countries") {
        for c in cs.iter_mut() {
            *c = json!(c.as_str().unwrap_or_default().to_ascii_lowercase());
        }
    }
    if let Some(Value::String(o)) = fields.get_mut("observable") {
        *o = o.trim().to_string();
    }
    Ok(fields)
}

// ---------------------------------------------------------------- handlers

fn not_found() -> Response {
    super::common::not_found("incident")
}

/// The incident `id` if the caller may access it as `want`.
fn find<'a>(
    p: &'a mut PremiumState,
    id: &str,
    k: &KeyInfo,
    want: Access,
) -> Result<&'a mut Incident, Response> {
    let Some(inc) = p.incidents.iter_mut().find(|i| i.id == id) else {
        return Err(not_found());
    };
    match inc.access(k) {
        Access::None => Err(not_found()),
        a if a < want => Err(err(
            StatusCode::FORBIDDEN,
            "You are not allowed to modify this incident",
            Some("Only the owner of an incident may change it."),
        )),
        _ => Ok(inc),
    }
}

/// Answer `v` after releasing the premium state and putting the scans the
/// incidents made into the scan store (`flush` takes the lock itself).
fn flushed(st: &AppState, p: Guard<'_, PremiumState>, v: Value) -> Response {
    drop(p);
    flush(st);
    ok_json(v)
}

async fn create(req: Entry<need::PremiumWrite, Bytes>) -> Response {
    let k = req.key();
    let mut p = req.st.premium();
    let fields = or_return!(parse(&p, k, &req.body, true));
    let inc = Incident::start(k, req.now, fields, "api", None, vec![]);
    let out = json!({ "incident": inc.json() });
    p.incidents.push(inc);
    flushed(&req.st, p, out)
}

async fn read(Path(id): Path<String>, req: Entry<need::Premium>) -> Response {
    let mut p = req.st.premium();
    let inc = or_return!(find(&mut p, &id, req.key(), Access::Read));
    ok_json(json!({ "incident": inc.json() }))
}

/// Change runtime options. `expireAfter` sets `expireAt` to now plus that;
/// a new interval applies from the last scan on. The observable is fixed.
async fn update(Path(id): Path<String>, req: Entry<need::PremiumWrite, Bytes>) -> Response {
    let k = req.key();
    let mut p = req.st.premium();
    or_return!(find(&mut p, &id, k, Access::Write));
    let mut fields = or_return!(parse(&p, k, &req.body, false));
    let inc = or_return!(find(&mut p, &id, k, Access::Write));
    if let Some(o) = fields.get("observable") {
        if *o != inc.fields["observable"] {
            return validation(
                "\"incident.observable\" cannot be changed; copy the incident instead",
            );
        }
    }
    if let Some(s) = fields.remove("expireAfter").and_then(|v| v.as_i64()) {
        inc.expire_after_s = Some(s);
        inc.expire_ms = req.now + s * 1000;
    }
    let new_path =
        fields.contains_key("extraPath") && fields.get("extraPath") != inc.fields.get("extraPath");
    inc.fields.extend(fields);
    if new_path {
        let o = inc.fields["observable"].as_str().unwrap_or("").to_string();
        inc.obs = observe(&o, inc.fields["extraPath"].as_str());
    }
    if !inc.closed {
        let last = inc.scanned_ms.unwrap_or(req.now);
        inc.next_scan_ms = (last + inc.interval_ms()).max(req.now);
        inc.advance(req.now);
    }
    let out = json!({ "incident": inc.json() });
    flushed(&req.st, p, out)
}

async fn close(Path(id): Path<String>, req: Entry<need::PremiumWrite>) -> Response {
    let mut p = req.st.premium();
    let inc = or_return!(find(&mut p, &id, req.key(), Access::Write));
    if inc.closed {
        return err(
            StatusCode::BAD_REQUEST,
            "Incident is already closed",
            Some("Only an active incident can be closed."),
        );
    }
    inc.closed = true;
    ok_json(json!({"message": "Incident closed"}))
}

async fn restart(Path(id): Path<String>, req: Entry<need::PremiumWrite>) -> Response {
    let mut p = req.st.premium();
    let inc = or_return!(find(&mut p, &id, req.key(), Access::Write));
    if !inc.closed {
        return err(
            StatusCode::BAD_REQUEST,
            "Incident is not closed",
            Some("Only a closed incident can be restarted."),
        );
    }
    inc.closed = false;
    inc.expire_ms = req.now + inc.expire_after_s.unwrap_or(DEFAULT_EXPIRE_S) * 1000;
    inc.states_dropped += inc.states.len() as u64;
    inc.states.clear();
    inc.last_attrs = None;
    inc.state_size = 0;
    inc.condition = None;
    inc.interval_no = 0;
    inc.labels.clear();
    inc.next_scan_ms = req.now;
    inc.advance(req.now);
    flushed(&req.st, p, json!({"message": "Incident restarted"}))
}

/// Copy (`with_history` false) or fork: a new incident of the caller with
/// the original's options, answered under the key `incidents` like the
/// service does.
fn duplicate(req: Entry<need::PremiumWrite>, id: &str, with_history: bool) -> Response {
    let k = req.key();
    let mut p = req.st.premium();
    let orig = or_return!(find(&mut p, id, k, Access::Read)).clone();
    let mut fields = orig.fields.clone();
    if let Some(s) = orig.expire_after_s {
        fields.insert("expireAfter".into(), json!(s));
    }
    let history = if with_history {
        orig.states.clone()
    } else {
        vec![]
    };
    let source = if with_history { "fork" } else { "copy" };
    let inc = Incident::start(k, req.now, fields, source, Some(orig.id.clone()), history);
    let out = json!({ "incidents": inc.json() });
    p.incidents.push(inc);
    flushed(&req.st, p, out)
}

async fn copy(Path(id): Path<String>, req: Entry<need::PremiumWrite>) -> Response {
    duplicate(req, &id, false)
}

async fn fork(Path(id): Path<String>, req: Entry<need::PremiumWrite>) -> Response {
    duplicate(req, &id, true)
}

async fn attributes(_: Entry<need::Premium>) -> Response {
    ok_json(json!({ "attributes": ATTRIBUTES }))
}

/// The incident's states, oldest first.
async fn states(Path(id): Path<String>, req: Entry<need::Premium>) -> Response {
    let mut p = req.st.premium();
    let inc = or_return!(find(&mut p, &id, req.key(), Access::Read));
    ok_json(json!({ "incidentstates": inc.states }))
}
