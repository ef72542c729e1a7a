//! The premium endpoints of the emulator: live scanning, saved searches,
//! subscriptions, channels, incidents, hostnames, brands, files and data dumps.
//!
//! Items the user creates (saved searches, subscriptions, channels,
//! incidents) belong to their owner. Team members may read an item whose
//! `permissions` hold `team:read` or `team:write` and change it only with
//! `team:write`; a saved search with `public:read` is readable by every key.
//! Anyone else gets 404, as if the item did not exist.
// Checks return the finished error answer; boxing every one buys nothing here.
#![allow(clippy::result_large_err)]
use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::MethodRouter;
use axum::Router;
use serde_json::{json, Map, Value};

use super::answer::{caller, err, validation, Need};
use super::document::Doc;
use super::state::{AppState, Caller, KeyInfo};

mod brands;
mod channels;
mod datadumps;
mod files;
mod hostnames;
mod incidents;
mod livescan;
pub(crate) mod records;
mod resource;
#[cfg(test)]
mod rules_agree;
mod searches;
mod subscriptions;
#[cfg(test)]
mod tests;

pub(crate) use hostnames::{approx_apex, document as hostname_document, host_names};
pub(crate) use incidents::open_for_subscription;
#[cfg(test)]
pub(crate) use incidents::scan_spec as incident_scan_spec;
pub(crate) use records::Item;
pub use records::PremiumState;

/// Routes of the premium endpoints, merged into the emulator's router.
pub fn router() -> Router<Arc<AppState>> {
    let fixed = [
        livescan::routes(),
        incidents::routes(),
        hostnames::routes(),
        brands::routes(),
        files::routes(),
        datadumps::routes(),
    ];
    let mut routes: Vec<(String, MethodRouter<Arc<AppState>>)> = fixed
        .into_iter()
        .flatten()
        .map(|(path, mr)| (path.to_string(), mr))
        .collect();
    routes.extend(searches::routes());
    routes.extend(subscriptions::routes());
    routes.extend(channels::routes());
    let mut r = Router::new();
    // Like the rest of the emulator: with and without a trailing slash.
    for (path, mr) in routes {
        if path.contains("{*") {
            r = r.route(&path, mr);
        } else {
            r = r.route(&path, mr.clone()).route(&format!("{path}/"), mr);
        }
    }
    r
}

/// Bring time-driven state (incidents, live-scan purges) up to the emulator
/// clock; called before premium requests are answered and after `advance`.
pub fn tick(st: &AppState, now_ms: i64) {
    let made = {
        let mut p = st.premium.lock().unwrap();
        livescan::tick(&mut p, now_ms);
        incidents::tick(&mut p, now_ms);
        p.dump_tokens.retain(|_, (_, exp)| *exp > now_ms);
        incidents::drain(&mut p)
    };
    incidents::record(st, made);
}

/// Put the scans incidents made (when created, changed or restarted) into
/// the scan store, and queue the changes they saw. Call it without holding
/// the premium lock.
pub(crate) fn flush(st: &AppState) {
    let made = incidents::drain(&mut st.premium.lock().unwrap());
    incidents::record(st, made);
}

/// Documents of the hostnames data source visible to the caller.
pub(crate) fn hostname_documents(st: &AppState, c: &Caller, now_ms: i64) -> Vec<Doc> {
    hostnames::documents(st, c, now_ms)
}

/// Documents of the incidents data source: the incidents the caller may read.
pub(crate) fn incident_documents(st: &AppState, c: &Caller) -> Vec<Doc> {
    let Some(k) = c.key() else {
        return vec![];
    };
    incidents::documents(&st.premium.lock().unwrap(), k)
}

/// The current emulator time, after bringing time-driven state up to it.
fn now(st: &AppState) -> i64 {
    let now = st.now_ms();
    tick(st, now);
    now
}

/// The caller, if it may do what `need` says, and the emulator time, after
/// bringing time-driven state up to it.
fn enter(st: &AppState, headers: &HeaderMap, need: Need) -> Result<(Caller, i64), Response> {
    let c = caller(st, headers, need)?;
    Ok((c, now(st)))
}

// ---------------------------------------------------------------- items

#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
enum Access {
    None,
    Read,
    Write,
}

fn same_team(team: &Option<String>, k: &KeyInfo) -> bool {
    team.is_some() && *team == k.team
}

impl Item {
    fn new(k: &KeyInfo, now: i64, body: Map<String, Value>) -> Item {
        Item {
            id: new_id(now),
            owner: k.user.clone(),
            team: k.team.clone(),
            created_ms: now,
            body,
        }
    }

    fn has_perm(&self, p: &str) -> bool {
        self.body
            .get("permissions")
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|v| v.as_str() == Some(p)))
    }

    fn access(&self, k: &KeyInfo) -> Access {
        if self.owner == k.user || (same_team(&self.team, k) && self.has_perm("team:write")) {
            Access::Write
        } else if (same_team(&self.team, k) && self.has_perm("team:read"))
            || self.has_perm("public:read")
        {
            Access::Read
        } else {
            Access::None
        }
    }

    /// The body plus `_id` and `createdAt` first, like the service's documents.
    fn json(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("_id".into(), json!(self.id));
        m.extend(self.body.clone());
        m.insert("createdAt".into(), json!(iso(self.created_ms)));
        m
    }
}

/// Find an item by id for the caller: 404 when missing or not readable,
/// 403 when only readable but `want` is write access.
fn find<'a>(
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

fn not_found(what: &str) -> Response {
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

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The key of a caller that passed a `Need::Premium*` check.
fn key_of(c: &Caller) -> &KeyInfo {
    c.key().expect("premium endpoints need a key")
}

/// A 24-hex-character id (4 bytes of seconds, 8 random bytes), like the
/// service's document ids.
pub(crate) fn new_id(now_ms: i64) -> String {
    format!(
        "{:08x}{:016x}",
        (now_ms / 1000) as u32,
        rand::random::<u64>()
    )
}

fn iso(ms: i64) -> String {
    super::ratelimit::iso_ms(ms)
}

fn hex_sha256(data: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(data))
}

/// A stable number from text, for deterministic choices.
fn h64(s: &str) -> u64 {
    use sha2::Digest;
    let d = sha2::Sha256::digest(s.as_bytes());
    u64::from_be_bytes(d[..8].try_into().unwrap_or_default())
}

// ---------------------------------------------------------------- validation

/// The type a request field must have.
#[derive(Clone, Copy)]
pub(super) enum FieldType {
    /// Any string.
    Str,
    /// A non-empty string.
    Text,
    OneOf(&'static [&'static str]),
    Bool,
    Int(i64, i64),
    /// An array of strings.
    Strs,
    /// An array of values from the list.
    Each(&'static [&'static str]),
    /// An array of email addresses.
    Emails,
    /// The inner type, or null (kept, to clear the field).
    NullOr(&'static FieldType),
    /// A custom check; gets the field label and the value, answers the problem.
    Custom(fn(&str, &Value) -> Option<String>),
}

/// A request field.
pub(super) struct RequestField {
    /// The wire name.
    pub(super) name: &'static str,
    pub(super) ty: FieldType,
    /// Required on create.
    pub(super) required: bool,
}

impl RequestField {
    pub(super) const fn required(name: &'static str, ty: FieldType) -> RequestField {
        RequestField {
            name,
            ty,
            required: true,
        }
    }

    pub(super) const fn optional(name: &'static str, ty: FieldType) -> RequestField {
        RequestField {
            name,
            ty,
            required: false,
        }
    }
}

fn one_of(list: &[&str]) -> String {
    format!("must be one of [{}]", list.join(", "))
}

fn valid_email(s: &str) -> bool {
    urlscan_rules::email(s)
}

/// The length limit of free text (`urlscan_rules::TEXT_MAX_LEN`).
fn too_long(s: &str) -> bool {
    s.chars().count() > urlscan_rules::TEXT_MAX_LEN
}

/// The first problem of an array value: not an array, or the first element
/// `each` finds fault with (given the element's label, `label[i]`).
fn check_array(
    label: &str,
    v: &Value,
    each: &dyn Fn(&str, &Value) -> Option<String>,
) -> Option<String> {
    let Some(a) = v.as_array() else {
        return Some(format!("\"{label}\" must be an array"));
    };
    a.iter()
        .enumerate()
        .find_map(|(i, x)| each(&format!("{label}[{i}]"), x))
}

/// The strings in array field `k` (none when absent or not an array).
fn strings(m: &Map<String, Value>, k: &str) -> Vec<String> {
    m.get(k)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn check_ty(label: &str, ty: FieldType, v: &Value) -> Option<String> {
    let array = |each: &dyn Fn(&str, &Value) -> Option<String>| check_array(label, v, each);
    match ty {
        FieldType::Str => match v.as_str() {
            None => Some(format!("\"{label}\" must be a string")),
            Some(s) if too_long(s) => Some(format!(
                "\"{label}\" length must be less than or equal to {} characters long",
                urlscan_rules::TEXT_MAX_LEN
            )),
            Some(_) => None,
        },
        FieldType::Text => match v.as_str() {
            None => Some(format!("\"{label}\" must be a string")),
            Some(s) if s.trim().is_empty() => {
                Some(format!("\"{label}\" is not allowed to be empty"))
            }
            Some(s) if too_long(s) => Some(format!(
                "\"{label}\" length must be less than or equal to {} characters long",
                urlscan_rules::TEXT_MAX_LEN
            )),
            Some(_) => None,
        },
        FieldType::OneOf(list) => match v.as_str() {
            Some(s) if list.contains(&s) => None,
            _ => Some(format!("\"{label}\" {}", one_of(list))),
        },
        FieldType::Bool => (!v.is_boolean()).then(|| format!("\"{label}\" must be a boolean")),
        FieldType::Int(min, max) => match v.as_i64() {
            None => Some(format!("\"{label}\" must be an integer")),
            Some(n) if n < min => Some(format!(
                "\"{label}\" must be greater than or equal to {min}"
            )),
            Some(n) if n > max => Some(format!("\"{label}\" must be less than or equal to {max}")),
            Some(_) => None,
        },
        FieldType::Strs => array(&|l, x| match x.as_str() {
            Some(s) if !too_long(s) => None,
            _ => Some(format!(
                "\"{l}\" must be a string of at most {} characters",
                urlscan_rules::TEXT_MAX_LEN
            )),
        }),
        FieldType::Each(list) => array(&|l, x| match x.as_str() {
            Some(s) if list.contains(&s) => None,
            _ => Some(format!("\"{l}\" {}", one_of(list))),
        }),
        FieldType::Emails => array(&|l, x| match x.as_str() {
            Some(s) if valid_email(s) => None,
            _ => Some(format!("\"{l}\" must be a valid email")),
        }),
        FieldType::Custom(f) => f(label, v),
        FieldType::NullOr(inner) => check_ty(label, *inner, v),
    }
}

/// Validate the fields of a request object. Keys in `ignore` (read-only
/// fields a client may echo back) are dropped; other unknown keys, missing
/// required fields (on create) and wrong types are reported together.
/// Null counts as absent. Answers the accepted fields in `fields` order.
fn check(
    obj: &Map<String, Value>,
    wrapper: &str,
    fields: &[RequestField],
    ignore: &[&str],
    creating: bool,
) -> Result<Map<String, Value>, Response> {
    let mut problems = Vec::new();
    for k in obj.keys() {
        if !ignore.contains(&k.as_str()) && !fields.iter().any(|f| f.name == k) {
            problems.push(format!("\"{wrapper}.{k}\" is not allowed"));
        }
    }
    let mut out = Map::new();
    for RequestField { name, ty, required } in fields {
        let label = format!("{wrapper}.{name}");
        match obj.get(*name) {
            Some(Value::Null) if matches!(ty, FieldType::NullOr(_)) => {
                out.insert((*name).to_string(), Value::Null);
            }
            None | Some(Value::Null) => {
                if creating && *required {
                    problems.push(format!("\"{label}\" is required"));
                }
            }
            Some(v) => match check_ty(&label, *ty, v) {
                Some(p) => problems.push(p),
                None => {
                    out.insert((*name).to_string(), v.clone());
                }
            },
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(validation(&problems.join(". ")))
    }
}

/// The object under `key` of a JSON request body `{key: {...}}`.
fn wrapped(body: &[u8], key: &str) -> Result<Map<String, Value>, Response> {
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
fn check_refs(
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

pub(crate) use urlscan_rules::WEEK_DAYS;
use urlscan_rules::{FREQUENCIES, TEAM_PERMISSIONS};
