//! Notification channels: `/api/v1/user/channels/`. Not premium in the
//! specification: any key may use them (writing needs the readwrite scope).
//!
//! The schema describes the answer as an unwrapped channel while the
//! service's own fixtures wrap it; the emulator answers wrapped
//! (`{"channel": {...}}`, `{"channels": [...]}`).
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, MethodRouter};
use serde_json::{json, Map, Value};

use super::super::routes::{caller, ok_json, or_return, validation, Need};
use super::super::state::AppState;
use super::{
    check, find, key_of, now, wrapped, Access, FieldType, Item, RequestField, FREQUENCIES,
    TEAM_PERMISSIONS, WEEK_DAYS,
};

type St = State<Arc<AppState>>;

pub(super) fn routes() -> Vec<(&'static str, MethodRouter<Arc<AppState>>)> {
    vec![
        ("/api/v1/user/channels", get(list).post(create)),
        ("/api/v1/user/channels/{id}", get(read).put(update)),
    ]
}

fn web_url(label: &str, v: &Value) -> Option<String> {
    let ok = v.as_str().is_some_and(|s| crate::rules::web_url(s).is_ok());
    (!ok).then(|| {
        format!("\"{label}\" must be a valid uri with a scheme matching the http|https pattern")
    })
}

/// "HH:MM", 24-hour.
fn utc_time(label: &str, v: &Value) -> Option<String> {
    let ok = v.as_str().is_some_and(crate::rules::hh_mm);
    (!ok).then(|| format!("\"{label}\" must be a 24-hour time in the form HH:MM"))
}

pub(super) const FIELDS: &[RequestField] = &[
    RequestField::required("type", FieldType::OneOf(crate::rules::CHANNEL_TYPES)),
    RequestField::required("name", FieldType::Text),
    RequestField::optional("webhookURL", FieldType::Custom(web_url)),
    RequestField::optional("frequency", FieldType::OneOf(FREQUENCIES)),
    RequestField::optional("emailAddresses", FieldType::Emails),
    RequestField::optional("utcTime", FieldType::Custom(utc_time)),
    RequestField::optional("isActive", FieldType::Bool),
    RequestField::optional("isDefault", FieldType::Bool),
    RequestField::optional("ignoreTime", FieldType::Bool),
    RequestField::optional("weekDays", FieldType::Each(WEEK_DAYS)),
    RequestField::optional("permissions", FieldType::Each(TEAM_PERMISSIONS)),
    RequestField::optional("description", FieldType::Str),
];

fn parse(body: &[u8], creating: bool) -> Result<Map<String, Value>, Response> {
    let obj = wrapped(body, "channel")?;
    let fields = check(&obj, "channel", FIELDS, &["_id", "createdAt"], creating)?;
    if creating {
        targets(&fields)?;
    }
    Ok(fields)
}

/// Where the channel delivers (a webhook URL, or e-mail addresses).
pub(super) fn targets(fields: &Map<String, Value>) -> Result<(), Response> {
    crate::rules::channel_targets(fields).map_err(|why| validation(&format!("\"channel\": {why}")))
}

fn channel_json(it: &Item) -> Value {
    let mut m = it.json();
    m.entry("permissions").or_insert(json!([]));
    Value::Object(m)
}

async fn list(State(st): St, headers: HeaderMap) -> Response {
    let c = or_return!(caller(&st, &headers, Need::Key));
    now(&st);
    let k = key_of(&c);
    let p = st.premium.lock().unwrap();
    let channels: Vec<Value> = p
        .channels
        .iter()
        .filter(|ch| ch.access(k) >= Access::Read)
        .map(channel_json)
        .collect();
    ok_json(json!({ "channels": channels }))
}

async fn create(State(st): St, headers: HeaderMap, body: Bytes) -> Response {
    let c = or_return!(caller(&st, &headers, Need::Write));
    let now = now(&st);
    let mut fields = or_return!(parse(&body, true));
    for (k, v) in [
        ("isActive", true),
        ("isDefault", false),
        ("ignoreTime", false),
    ] {
        fields.entry(k).or_insert(json!(v));
    }
    let it = Item::new(key_of(&c), now, fields);
    let out = channel_json(&it);
    st.premium.lock().unwrap().channels.push(it);
    ok_json(json!({ "channel": out }))
}

async fn read(State(st): St, headers: HeaderMap, Path(id): Path<String>) -> Response {
    let c = or_return!(caller(&st, &headers, Need::Key));
    now(&st);
    let mut p = st.premium.lock().unwrap();
    let it = or_return!(find(
        &mut p.channels,
        &id,
        key_of(&c),
        Access::Read,
        "channel"
    ));
    ok_json(json!({ "channel": channel_json(it) }))
}

async fn update(
    State(st): St,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    let c = or_return!(caller(&st, &headers, Need::Write));
    now(&st);
    let mut p = st.premium.lock().unwrap();
    let it = or_return!(find(
        &mut p.channels,
        &id,
        key_of(&c),
        Access::Write,
        "channel"
    ));
    let fields = or_return!(parse(&body, false));
    let mut merged = it.body.clone();
    merged.extend(fields);
    or_return!(targets(&merged));
    it.body = merged;
    ok_json(json!({ "channel": channel_json(it) }))
}
