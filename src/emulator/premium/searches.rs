//! Saved searches: `/api/v1/user/searches/`.
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, put, MethodRouter};
use serde_json::{json, Map, Value};

use super::super::routes::{
    caller, ok_json, or_return, page_response, parse_query, search_args, Need,
};
use super::super::state::{AppState, Caller};
use super::{check, find, hostnames, key_of, now, wrapped, Access, FieldType, Item, RequestField};

type St = State<Arc<AppState>>;

pub(super) fn routes() -> Vec<(&'static str, MethodRouter<Arc<AppState>>)> {
    vec![
        ("/api/v1/user/searches", get(list).post(create)),
        ("/api/v1/user/searches/{id}", put(update).delete(remove)),
        ("/api/v1/user/searches/{id}/results", get(results)),
    ]
}

use crate::rules::{SEARCH_PERMISSIONS as PERMISSIONS, TLP, USER_TAG_SCOPES as TAG_SCOPES};
/// Read-only fields a client may send back unchanged.
const READ_ONLY: &[&str] = &["_id", "createdAt", "ownerDescription"];

fn user_tags(label: &str, v: &Value) -> Option<String> {
    let Some(a) = v.as_array() else {
        return Some(format!("\"{label}\" must be an array"));
    };
    a.iter().enumerate().find_map(|(i, t)| match t.as_str() {
        Some(s) if crate::rules::user_tag(s) => None,
        _ => Some(format!(
            "\"{label}[{i}]\" must be a string prefixed with one of [{}]",
            TAG_SCOPES.join(", ")
        )),
    })
}

/// A saved search's query: not empty, at most `rules::QUERY_MAX_LEN`.
fn query(label: &str, v: &Value) -> Option<String> {
    match v.as_str() {
        None => Some(format!("\"{label}\" must be a string")),
        Some(s) if s.trim().is_empty() => Some(format!("\"{label}\" is not allowed to be empty")),
        Some(s) if s.chars().count() > crate::rules::QUERY_MAX_LEN => Some(format!(
            "\"{label}\" length must be less than or equal to {} characters long",
            crate::rules::QUERY_MAX_LEN
        )),
        Some(_) => None,
    }
}

pub(super) const FIELDS: &[RequestField] = &[
    RequestField::required(
        "datasource",
        FieldType::OneOf(crate::rules::SAVED_SEARCH_DATASOURCES),
    ),
    RequestField::required("name", FieldType::Text),
    RequestField::required("query", FieldType::Custom(query)),
    RequestField::optional("description", FieldType::Str),
    RequestField::optional("longDescription", FieldType::Str),
    RequestField::optional("tlp", FieldType::OneOf(TLP)),
    RequestField::optional("userTags", FieldType::Custom(user_tags)),
    RequestField::optional("permissions", FieldType::Each(PERMISSIONS)),
    // The official command-line client also sends these.
    RequestField::optional("pass", FieldType::Int(0, i64::MAX)),
    RequestField::optional("tags", FieldType::Strs),
];

/// Validate a `{"search": {...}}` body; the schema's `usertags` is accepted
/// as a spelling of `userTags`.
fn parse(body: &[u8], creating: bool) -> Result<Map<String, Value>, Response> {
    let mut obj = wrapped(body, "search")?;
    if let Some(v) = obj.remove("usertags") {
        obj.entry("userTags").or_insert(v);
    }
    check(&obj, "search", FIELDS, READ_ONLY, creating)
}

fn search_json(it: &Item) -> Value {
    let mut m = it.json();
    for k in ["userTags", "permissions"] {
        m.entry(k).or_insert(json!([]));
    }
    m.insert("ownerDescription".into(), json!(it.owner));
    Value::Object(m)
}

async fn list(State(st): St, headers: HeaderMap) -> Response {
    let c = or_return!(caller(&st, &headers, Need::Premium));
    now(&st);
    let k = key_of(&c);
    let p = st.premium.lock().unwrap();
    // The caller's own and the team's shared ones; public ones of others are
    // readable by id but not listed.
    let searches: Vec<Value> = p
        .searches
        .iter()
        .filter(|s| {
            s.owner == k.user || (super::same_team(&s.team, k) && s.access(k) >= Access::Read)
        })
        .map(search_json)
        .collect();
    ok_json(json!({ "searches": searches }))
}

async fn create(State(st): St, headers: HeaderMap, body: Bytes) -> Response {
    let c = or_return!(caller(&st, &headers, Need::PremiumWrite));
    let now = now(&st);
    let fields = or_return!(parse(&body, true));
    let it = Item::new(key_of(&c), now, fields);
    let out = search_json(&it);
    st.premium.lock().unwrap().searches.push(it);
    ok_json(json!({ "search": out }))
}

async fn update(
    State(st): St,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    let c = or_return!(caller(&st, &headers, Need::PremiumWrite));
    now(&st);
    let mut p = st.premium.lock().unwrap();
    let it = or_return!(find(
        &mut p.searches,
        &id,
        key_of(&c),
        Access::Write,
        "saved search"
    ));
    let fields = or_return!(parse(&body, false));
    it.body.extend(fields);
    ok_json(json!({ "search": search_json(it) }))
}

async fn remove(State(st): St, headers: HeaderMap, Path(id): Path<String>) -> Response {
    let c = or_return!(caller(&st, &headers, Need::PremiumWrite));
    now(&st);
    let mut p = st.premium.lock().unwrap();
    or_return!(find(
        &mut p.searches,
        &id,
        key_of(&c),
        Access::Write,
        "saved search"
    ));
    p.searches.retain(|s| s.id != id);
    ok_json(json!({}))
}

/// Run the saved query over its data source (scans or hostnames), like the
/// search endpoint; takes its `size` and `search_after` parameters.
async fn results(
    State(st): St,
    headers: HeaderMap,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    let c = or_return!(caller(&st, &headers, Need::Premium));
    now(&st);
    let saved = {
        let mut p = st.premium.lock().unwrap();
        or_return!(find(
            &mut p.searches,
            &id,
            key_of(&c),
            Access::Read,
            "saved search"
        ))
        .clone()
    };
    let q = saved
        .body
        .get("query")
        .and_then(Value::as_str)
        .unwrap_or("");
    let query = or_return!(parse_query(&c, q));
    // The saved search's data source, whatever the request names.
    let ds = match saved.body.get("datasource").and_then(Value::as_str) {
        Some("hostnames") => "hostnames",
        _ => "scans",
    };
    let raw = Some(format!("{}&datasource={ds}", raw.unwrap_or_default()));
    let args = or_return!(search_args(&c, raw));
    page_response(&st, &c, &args, &query, &|_| true)
}

/// Hits of a saved search for a subscription, newest first (`None` when the
/// stored query does not parse).
pub(super) fn hits(st: &AppState, c: &Caller, saved: &Item, size: usize) -> Option<Vec<Value>> {
    let q = saved
        .body
        .get("query")
        .and_then(Value::as_str)
        .unwrap_or("");
    let query = parse_query(c, q).ok()?;
    Some(match saved.body.get("datasource").and_then(Value::as_str) {
        Some("hostnames") => hostnames::search_hits(st, c, &query, size),
        _ => st
            .search(c, &query, &|_| true, size, None, None)
            .hits
            .iter()
            .filter_map(|h| serde_json::from_str(h).ok())
            .collect(),
    })
}
