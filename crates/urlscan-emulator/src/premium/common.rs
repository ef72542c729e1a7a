//! What the premium endpoints share: access to the items users own, and the
//! fields channels and subscriptions share (the checks of request fields are
//! `request_fields`').
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{json, Map, Value};

use super::super::answer::{err, validation};
pub(super) use super::super::premium_model::{
    h64, hex_sha256, iso, new_id, same_team, strings, Access,
};
use super::super::state::premium_records::Item;
use super::super::state::{Caller, KeyInfo};

// ---------------------------------------------------------------- items

impl Item {
    pub(super) fn new(k: &KeyInfo, now: i64, body: Map<String, Value>) -> Item {
        Item {
            id: new_id(now),
            owner: k.user.clone(),
            team: k.team.clone(),
            created_ms: now,
            body,
        }
    }

    /// The body plus `_id` and `createdAt` first, like the service's documents.
    pub(super) fn json(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("_id".into(), json!(self.id));
        m.extend(self.body.clone());
        m.insert("createdAt".into(), json!(iso(self.created_ms)));
        m
    }
}

/// Find an item by id for the caller: 404 when missing or not readable,
/// 403 when only readable but `want` is write access.
pub(super) fn find<'a>(
    items: &'a mut [Item],
    id: &str,
    k: &KeyInfo,
    want: Access,
    what: &str,
) -> Result<&'a mut Item, Response> {
    let Some(it) = items.iter_mut().find(|i| i.id == id) else {
        return Err(not_found(what));
    };
    match it.access(k) {
        Access::None => Err(not_found(what)),
        a if a < want => Err(forbidden(what)),
        _ => Ok(it),
    }
}

pub(super) fn not_found(what: &str) -> Response {
    let title = format!("{} not found", capitalize(what));
    let d = format!("We could not find this {what}.");
    err(StatusCode::NOT_FOUND, &title, Some(&d))
}

fn forbidden(what: &str) -> Response {
    let m = format!("You are not allowed to modify this {what}");
    err(
        StatusCode::FORBIDDEN,
        &m,
        Some("Only the owner, or team members when the item grants team:write, may change it."),
    )
}

pub(super) fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The key of a caller that passed a `Need::Premium*` check.
pub(super) fn key_of(c: &Caller) -> &KeyInfo {
    c.key().expect("premium endpoints need a key")
}

// ---------------------------------------------------------------- validation

pub(super) use crate::request_fields::{check, check_array, one_of, FieldType, RequestField};

/// Fields channels and subscriptions share: how and when they notify, and
/// who in the team may see or change them. A subscription requires some.
pub(super) mod notify {
    use super::{FieldType, RequestField};
    use urlscan_rules as rules;
    const fn o(name: &'static str, ty: FieldType) -> RequestField {
        RequestField::optional(name, ty)
    }
    pub(crate) const FREQUENCY: RequestField = o("frequency", FieldType::OneOf(rules::FREQUENCIES));
    pub(crate) const EMAILS: RequestField = o("emailAddresses", FieldType::Emails);
    pub(crate) const IS_ACTIVE: RequestField = o("isActive", FieldType::Bool);
    pub(crate) const IGNORE_TIME: RequestField = o("ignoreTime", FieldType::Bool);
    pub(crate) const WEEK_DAYS: RequestField = o("weekDays", FieldType::Each(rules::WEEK_DAYS));
    pub(crate) const PERMISSIONS: RequestField =
        o("permissions", FieldType::Each(rules::TEAM_PERMISSIONS));
    pub(crate) const DESCRIPTION: RequestField = o("description", FieldType::Str);
}

/// The object under `key` of a JSON request body `{key: {...}}`.
pub(super) fn wrapped(body: &[u8], key: &str) -> Result<Map<String, Value>, Response> {
    let v: Value = match serde_json::from_slice(body) {
        Ok(v @ Value::Object(_)) => v,
        _ => return Err(validation("\"value\" must be of type object")),
    };
    let mut obj = match v {
        Value::Object(m) => m,
        _ => unreachable!(),
    };
    let mut problems: Vec<String> = obj
        .keys()
        .filter(|k| *k != key)
        .map(|k| format!("\"{k}\" is not allowed"))
        .collect();
    let inner = match obj.remove(key) {
        Some(Value::Object(m)) => Some(m),
        None | Some(Value::Null) => {
            problems.insert(0, format!("\"{key}\" is required"));
            None
        }
        Some(_) => {
            problems.insert(0, format!("\"{key}\" must be of type object"));
            None
        }
    };
    match inner {
        Some(m) if problems.is_empty() => Ok(m),
        _ => Err(validation(&problems.join(". "))),
    }
}

/// Ids in `field` of a validated body that do not name an item the caller
/// may read: the first one as a validation answer.
pub(super) fn check_refs(
    body: &Map<String, Value>,
    wrapper: &str,
    field: &str,
    items: &[Item],
    k: &KeyInfo,
    what: &str,
) -> Result<(), Response> {
    let ids = body.get(field).and_then(Value::as_array);
    for (i, id) in ids.into_iter().flatten().enumerate() {
        let known = id.as_str().is_some_and(|id| {
            items
                .iter()
                .any(|it| it.id == id && it.access(k) >= Access::Read)
        });
        if !known {
            return Err(validation(&format!(
                "\"{wrapper}.{field}[{i}]\" references an unknown {what}: {id}"
            )));
        }
    }
    Ok(())
}
