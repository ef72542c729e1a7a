//! The fields of request bodies and the checks of their values, as the
//! service makes them: each endpoint's handler declares its fields once
//! (`RequestField`) and `check` answers every problem in one 400.
// The error is the 400 answer itself, made once per refused request.
#![allow(clippy::result_large_err)]
use axum::response::Response;
use serde_json::{Map, Value};

use crate::answer::validation;

/// The type a request field must have.
#[derive(Clone, Copy)]
pub(crate) enum FieldType {
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
    /// Any JSON value (what the service is known to take of any type).
    Any,
}

/// A request field.
pub(crate) struct RequestField {
    /// The wire name.
    pub(crate) name: &'static str,
    pub(crate) ty: FieldType,
    /// Required on create.
    pub(crate) required: bool,
}

impl RequestField {
    pub(crate) const fn required(name: &'static str, ty: FieldType) -> RequestField {
        RequestField {
            name,
            ty,
            required: true,
        }
    }

    pub(crate) const fn optional(name: &'static str, ty: FieldType) -> RequestField {
        RequestField {
            name,
            ty,
            required: false,
        }
    }

    /// The same field, required on create.
    pub(crate) const fn on_create(mut self) -> RequestField {
        self.required = true;
        self
    }
}

pub(crate) fn one_of(list: &[&str]) -> String {
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
pub(crate) fn check_array(
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
        FieldType::Any => None,
        FieldType::NullOr(inner) => check_ty(label, *inner, v),
    }
}

/// Validate the fields of a request object. Keys in `ignore` (read-only
/// fields a client may echo back) are dropped; other unknown keys, missing
/// required fields (on create) and wrong types are reported together.
/// Null counts as absent. Answers the accepted fields in `fields` order.
pub(crate) fn check(
    obj: &Map<String, Value>,
    wrapper: &str,
    fields: &[RequestField],
    ignore: &[&str],
    creating: bool,
) -> Result<Map<String, Value>, Response> {
    let mut problems = Vec::new();
    // A body without a wrapper ("") names its fields alone.
    let label = |name: &str| match wrapper {
        "" => name.to_string(),
        w => format!("{w}.{name}"),
    };
    for k in obj.keys() {
        if !ignore.contains(&k.as_str()) && !fields.iter().any(|f| f.name == k) {
            problems.push(format!("\"{}\" is not allowed", label(k)));
        }
    }
    let mut out = Map::new();
    for RequestField { name, ty, required } in fields {
        let label = label(name);
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
