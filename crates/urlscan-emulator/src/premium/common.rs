//! What the premium endpoints share: access to the items users own, and the
//! checks of request fields.
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

    fn has_perm(&self, p: &str) -> bool {
        self.body
            .get("permissions")
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|v| v.as_str() == Some(p)))
    }

    pub(super) fn access(&self, k: &KeyInfo) -> Access {
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
    /// An array of ids of other objects (`urlscan_rules::object_id`).
    Ids,
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

    /// The same field, required on create.
    pub(super) const fn on_create(mut self) -> RequestField {
        self.required = true;
        self
    }
}

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

pub(super) fn one_of(list: &[&str]) -> String {
    format!("must be one of [{}]", list.join(", "))
}

fn valid_email(s: &str) -> bool {
    urlscan_rules::email(s)
}

/// Emulator behaviour: free text (names, descriptions, tags, user agents) of
/// at most this many characters. The service states no limit, so the client
/// checks none; the emulator keeps one so a test can see a 400 for text.
pub(crate) const TEXT_MAX_LEN: usize = 8_000;

/// The length limit of free text (`TEXT_MAX_LEN`).
fn too_long(s: &str) -> bool {
    s.chars().count() > TEXT_MAX_LEN
}

/// The first problem of an array value: not an array, or the first element
/// `each` finds fault with (given the element's label, `label[i]`).
pub(super) fn check_array(
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

fn check_ty(label: &str, ty: FieldType, v: &Value) -> Option<String> {
    let array = |each: &dyn Fn(&str, &Value) -> Option<String>| check_array(label, v, each);
    match ty {
        FieldType::Str => match v.as_str() {
            None => Some(format!("\"{label}\" must be a string")),
            Some(s) if too_long(s) => Some(format!(
                "\"{label}\" length must be less than or equal to {} characters long",
                TEXT_MAX_LEN
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
                TEXT_MAX_LEN
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
                TEXT_MAX_LEN
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
        FieldType::Ids => array(&|l, x| match x.as_str() {
            Some(s) if urlscan_rules::object_id(s) => None,
            _ => Some(format!("\"{l}\" must be an id of letters, digits, - and _")),
        }),
        FieldType::Custom(f) => f(label, v),
        FieldType::NullOr(inner) => check_ty(label, *inner, v),
    }
}

/// Validate the fields of a request object. Keys in `ignore` (read-only
/// fields a client may echo back) are dropped; other unknown keys, missing
/// required fields (on create) and wrong types are reported together.
/// Null counts as absent. Answers the accepted fields in `fields` order.
pub(super) fn check(
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
