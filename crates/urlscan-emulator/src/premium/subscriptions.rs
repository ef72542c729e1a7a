//! Subscriptions to saved searches: `/api/v1/user/subscriptions/`.
use std::sync::Arc;

use axum::extract::Path;
use axum::response::Response;
use axum::routing::{get, MethodRouter};
use serde_json::{json, Map, Value};

use super::super::answer::{ok_json, or_return, validation};
use super::super::state::premium_records::{Item, PremiumState};
use super::super::state::{AppState, KeyInfo};
use super::common::notify::*;
use super::common::{check_refs, find, Access, FieldType, RequestField};
use super::entry::Entry;
use super::need;
use super::resource::{self, Resource};
use super::searches;

pub(super) fn routes() -> Vec<(String, MethodRouter<Arc<AppState>>)> {
    resource::routes_with::<Subscriptions>("/results/{datasource}", get(results))
}

use urlscan_rules::WATCH_KEYS;

/// The schema types `incidentWatchKeys` as one value of the enum; a list of
/// them is accepted as well.
fn watch_keys(label: &str, v: &Value) -> Option<String> {
    let ok = |x: &Value| x.as_str().is_some_and(|s| WATCH_KEYS.contains(&s));
    let fine = match v {
        Value::Array(a) => a.iter().all(ok),
        _ => ok(v),
    };
    (!fine).then(|| format!("\"{label}\" {}", super::common::one_of(WATCH_KEYS)))
}

pub(super) const FIELDS: &[RequestField] = &[
    RequestField::required("searchIds", FieldType::Ids),
    FREQUENCY.on_create(),
    EMAILS.on_create(),
    RequestField::required("name", FieldType::Text),
    DESCRIPTION,
    IS_ACTIVE.on_create(),
    IGNORE_TIME.on_create(),
    WEEK_DAYS,
    PERMISSIONS,
    RequestField::optional("channelIds", FieldType::Ids),
    RequestField::optional("incidentChannelIds", FieldType::Ids),
    RequestField::optional("incidentProfileId", FieldType::Str),
    RequestField::optional(
        "incidentVisibility",
        FieldType::OneOf(urlscan_rules::INCIDENT_VISIBILITIES),
    ),
    RequestField::optional(
        "incidentCreationMode",
        FieldType::OneOf(urlscan_rules::INCIDENT_CREATION_MODES),
    ),
    RequestField::optional("incidentWatchKeys", FieldType::Custom(watch_keys)),
];

struct Subscriptions;

impl Resource for Subscriptions {
    const PATH: &'static str = "/api/v1/user/subscriptions";
    const ONE: &'static str = "subscription";
    type Read = need::Premium;
    type Write = need::PremiumWrite;
    const FIELDS: &'static [RequestField] = FIELDS;

    fn items(p: &mut PremiumState) -> &mut Vec<Item> {
        &mut p.subscriptions
    }

    /// The saved searches and channels it names exist for the caller.
    fn check_request(
        p: &PremiumState,
        k: &KeyInfo,
        fields: &Map<String, Value>,
    ) -> Result<(), Response> {
        let w = Self::ONE;
        check_refs(fields, w, "searchIds", &p.searches, k, "saved search")?;
        check_refs(fields, w, "channelIds", &p.channels, k, "channel")?;
        check_refs(fields, w, "incidentChannelIds", &p.channels, k, "channel")
    }
}

/// The hits of the subscription's saved searches of that datasource, merged
/// newest first (at most 100). Deleted searches and stored queries that do
/// not parse contribute nothing.
async fn results(
    Path((id, datasource)): Path<(String, String)>,
    req: Entry<need::Premium>,
) -> Response {
    if !["scans", "hostnames"].contains(&datasource.as_str()) {
        return validation("\"datasource\" must be one of [scans, hostnames]");
    }
    let k = req.key();
    let saved: Vec<Item> = {
        let mut p = req.st.premium();
        let what = Subscriptions::WHAT;
        let sub = or_return!(find(&mut p.subscriptions, &id, k, Access::Read, what)).clone();
        let ids: Vec<&str> = sub
            .body
            .get("searchIds")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        p.searches
            .iter()
            .filter(|s| ids.contains(&s.id.as_str()))
            .filter(|s| s.body.get("datasource").and_then(Value::as_str) == Some(&datasource))
            .cloned()
            .collect()
    };
    const MAX: usize = 100;
    let mut seen = std::collections::HashSet::new();
    let mut hits: Vec<Value> = saved
        .iter()
        .filter_map(|s| searches::hits(&req.st, &req.caller, s, MAX))
        .flatten()
        .filter(|h| seen.insert(h.get("_id").map(Value::to_string).unwrap_or_default()))
        .collect();
    let sort_key = |h: &Value| h.pointer("/sort/0").and_then(Value::as_i64).unwrap_or(0);
    hits.sort_by_key(|h| std::cmp::Reverse(sort_key(h)));
    hits.truncate(MAX);
    ok_json(json!({ "results": hits }))
}
