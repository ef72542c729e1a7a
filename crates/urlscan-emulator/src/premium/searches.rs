//! Saved searches: `/api/v1/user/searches/`.
use std::sync::Arc;

use axum::extract::{Path, RawQuery};
use axum::response::Response;
use axum::routing::{get, MethodRouter};
use serde_json::{json, Map, Value};

use super::super::answer::or_return;
use super::super::premium_model::saved_matches;
use super::super::query::Query;
use super::super::search::{page_response, parse_query, search_args};
use super::super::state::premium_records::{Item, PremiumState};
use super::super::state::{AppState, Caller, KeyInfo};
use super::common::{find, Access, FieldType, RequestField};
use super::entry::Entry;
use super::hostnames;
use super::need;
use super::resource::{self, Resource};

pub(super) fn routes() -> Vec<(String, MethodRouter<Arc<AppState>>)> {
    resource::routes_with::<Searches>("/results", get(results))
}

use urlscan_rules::{SEARCH_PERMISSIONS as PERMISSIONS, TLP, USER_TAG_SCOPES as TAG_SCOPES};

fn user_tags(label: &str, v: &Value) -> Option<String> {
    super::common::check_array(label, v, &|l, t| match t.as_str() {
        Some(s) if urlscan_rules::user_tag(s) => None,
        _ => Some(format!(
            "\"{l}\" must be a string prefixed with one of [{}]",
            TAG_SCOPES.join(", ")
        )),
    })
}

/// A saved search's query: not empty, at most `rules::QUERY_MAX_LEN`.
fn query(label: &str, v: &Value) -> Option<String> {
    match v.as_str() {
        None => Some(format!("\"{label}\" must be a string")),
        Some(s) if s.trim().is_empty() => Some(format!("\"{label}\" is not allowed to be empty")),
        Some(s) if s.chars().count() > urlscan_rules::QUERY_MAX_LEN => Some(format!(
            "\"{label}\" length must be less than or equal to {} characters long",
            urlscan_rules::QUERY_MAX_LEN
        )),
        Some(_) => None,
    }
}

pub(super) const FIELDS: &[RequestField] = &[
    RequestField::required(
        "datasource",
        FieldType::OneOf(urlscan_rules::SAVED_SEARCH_DATASOURCES),
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

struct Searches;

impl Resource for Searches {
    const PATH: &'static str = "/api/v1/user/searches";
    const ONE: &'static str = "search";
    const WHAT: &'static str = "saved search";
    type Read = need::Premium;
    type Write = need::PremiumWrite;
    const FIELDS: &'static [RequestField] = FIELDS;
    const READ_ONLY: &'static [&'static str] = &["_id", "createdAt", "ownerDescription"];
    const LISTS: &'static [&'static str] = &["userTags", "permissions"];

    fn items(p: &mut PremiumState) -> &mut Vec<Item> {
        &mut p.searches
    }

    /// The schema's `usertags` is accepted as a spelling of `userTags`.
    fn prepare(obj: &mut Map<String, Value>) {
        if let Some(v) = obj.remove("usertags") {
            obj.entry("userTags").or_insert(v);
        }
    }

    /// The caller's own and the team's shared ones; public ones of others
    /// are readable by id but not listed.
    fn listed(s: &Item, k: &KeyInfo) -> bool {
        super::super::premium_model::saved_search_listed(s, k)
    }

    fn decorate(it: &Item, m: &mut Map<String, Value>) {
        m.insert("ownerDescription".into(), json!(it.owner));
    }
}

/// A saved search's parsed query and its data source (`scans` or
/// `hostnames`).
fn saved_query(c: &Caller, saved: &Item) -> Result<(Query, &'static str), Response> {
    let q = saved
        .body
        .get("query")
        .and_then(Value::as_str)
        .unwrap_or("");
    let query = parse_query(c, q)?;
    let datasource = match saved.body.get("datasource").and_then(Value::as_str) {
        Some("hostnames") => "hostnames",
        _ => "scans",
    };
    Ok((query, datasource))
}

/// Run the saved query over its data source (scans or hostnames), like the
/// search endpoint; takes its `size` and `search_after` parameters.
async fn results(
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
    req: Entry<need::Premium>,
) -> Response {
    let saved = {
        let mut p = req.st.premium();
        let what = Searches::WHAT;
        or_return!(find(&mut p.searches, &id, req.key(), Access::Read, what)).clone()
    };
    let (query, ds) = or_return!(saved_query(&req.caller, &saved));
    // The saved search's data source, whatever the request names.
    let raw = Some(format!("{}&datasource={ds}", raw.unwrap_or_default()));
    let args = or_return!(search_args(&req.caller, raw));
    page_response(&req.st, &req.caller, &args, &query, &|_| true)
}

/// Hits of a saved search for a subscription, newest first (`None` when the
/// stored query does not parse).
pub(super) fn hits(st: &AppState, c: &Caller, saved: &Item, size: usize) -> Option<Vec<Value>> {
    let (query, ds) = saved_query(c, saved).ok()?;
    Some(match ds {
        "hostnames" => hostnames::search_hits(st, c, &query, size),
        _ => st
            .search(
                c,
                &query,
                &|_| true,
                size,
                None,
                None,
                &saved_matches(st, c),
            )
            .hits
            .iter()
            .filter_map(|h| serde_json::from_str(h).ok())
            .collect(),
    })
}
