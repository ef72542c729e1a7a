//! Request bodies of the premium resources, built from snake_case options:
//! each resource's fields are described once (wire name, kind, required), and
//! every documented rule is checked before anything is sent.
use serde_json::{Map, Value};

use crate::core::error::{Error, Result};
use crate::core::validate;

#[derive(Debug, Clone, Copy)]
pub enum Kind {
    Str,
    Bool,
    /// An integer within [min, max].
    Int(i64, i64),
    StrList,
    Enum(&'static [&'static str]),
    EnumList(&'static [&'static str]),
    Emails,
    /// "HH:MM", 24-hour.
    HhMm,
    Countries,
    /// A path matching the incident `extraPath` pattern, at most 2,000 characters.
    ExtraPath,
    /// Any JSON object (e.g. extra headers).
    Object,
    /// Saved-search user tags, each prefixed by its scope.
    UserTags,
    /// A search cursor: the last hit's sort values joined by a comma.
    SearchAfter,
}

#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// The keyword a caller uses (snake_case).
    pub name: &'static str,
    /// The name on the wire.
    pub wire: &'static str,
    pub kind: Kind,
    pub required: bool,
}

pub const fn f(name: &'static str, wire: &'static str, kind: Kind) -> Field {
    Field {
        name,
        wire,
        kind,
        required: false,
    }
}

pub const fn req(name: &'static str, wire: &'static str, kind: Kind) -> Field {
    Field {
        name,
        wire,
        kind,
        required: true,
    }
}

pub const WEEK_DAYS: &[&str] = &[
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];
pub const TEAM_PERMISSIONS: &[&str] = &["team:read", "team:write"];
pub const FREQUENCIES: &[&str] = &["live", "hourly", "daily"];

/// Build the wire object from the caller's options. `creating` enforces the
/// required fields; updates send only what is given. `None` values are left out.
pub fn build(
    what: &str,
    fields: &[Field],
    opts: &Map<String, Value>,
    creating: bool,
) -> Result<Map<String, Value>> {
    let mut out = Map::new();
    for (k, v) in opts {
        let field = fields
            .iter()
            .find(|f| f.name == k || f.wire == k)
            .ok_or_else(|| {
                let names: Vec<_> = fields.iter().map(|f| f.name).collect();
                Error::Validation(format!(
                    "{what}: unknown option {k:?}; the options are {}",
                    names.join(", ")
                ))
            })?;
        if v.is_null() {
            continue;
        }
        let checked = check(what, field, v)?;
        insert_path(&mut out, field.wire, checked);
    }
    if creating {
        let missing: Vec<_> = fields
            .iter()
            .filter(|f| f.required && !has_path(&out, f.wire))
            .map(|f| f.name)
            .collect();
        if !missing.is_empty() {
            return Err(Error::Validation(format!(
                "{what}: missing required option(s): {}",
                missing.join(", ")
            )));
        }
    }
    Ok(out)
}

/// Wire names may be dotted ("task.url") to build nested objects.
fn insert_path(out: &mut Map<String, Value>, wire: &str, v: Value) {
    match wire.split_once('.') {
        None => {
            out.insert(wire.to_string(), v);
        }
        Some((head, rest)) => {
            let inner = out
                .entry(head.to_string())
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(m) = inner {
                insert_path(m, rest, v);
            }
        }
    }
}

fn has_path(out: &Map<String, Value>, wire: &str) -> bool {
    match wire.split_once('.') {
        None => out.contains_key(wire),
        Some((head, rest)) => out
            .get(head)
            .and_then(Value::as_object)
            .is_some_and(|m| has_path(m, rest)),
    }
}

fn bad(what: &str, field: &Field, msg: String) -> Error {
    Error::Validation(format!("{what}: {} {msg}", field.name))
}

fn strings<'a>(what: &str, field: &Field, v: &'a Value) -> Result<Vec<&'a str>> {
    let arr = v
        .as_array()
        .ok_or_else(|| bad(what, field, format!("must be a list of strings, got {v}")))?;
    arr.iter()
        .map(|x| {
            x.as_str()
                .ok_or_else(|| bad(what, field, format!("must hold only strings, got {x}")))
        })
        .collect()
}

fn one_of(what: &str, field: &Field, s: &str, allowed: &[&str]) -> Result<()> {
    if allowed.contains(&s) {
        Ok(())
    } else {
        Err(bad(
            what,
            field,
            format!("must be one of {}, got {s:?}", allowed.join(", ")),
        ))
    }
}

pub fn is_email(s: &str) -> bool {
    let Some((user, domain)) = s.split_once('@') else {
        return false;
    };
    !user.is_empty()
        && !domain.starts_with('.')
        && domain.contains('.')
        && !domain.ends_with('.')
        && !s.chars().any(|c| c.is_whitespace() || c == ',' || c == ';')
        && !domain.contains('@')
}

pub const EXTRA_PATH_MAX: usize = 2000;

pub fn is_extra_path(s: &str) -> bool {
    s.starts_with('/')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/_-?#=.~%:@!$&'()*+,;[]".contains(c))
}

fn check(what: &str, field: &Field, v: &Value) -> Result<Value> {
    match field.kind {
        Kind::Str => match v {
            Value::String(s) if !s.trim().is_empty() => Ok(v.clone()),
            Value::String(_) => Err(bad(what, field, "must not be empty".into())),
            _ => Err(bad(what, field, format!("must be a string, got {v}"))),
        },
        Kind::Bool => match v {
            Value::Bool(_) => Ok(v.clone()),
            _ => Err(bad(what, field, format!("must be true or false, got {v}"))),
        },
        Kind::Int(min, max) => match v.as_i64() {
            Some(n) if (min..=max).contains(&n) && !v.is_boolean() => Ok(v.clone()),
            Some(n) => Err(bad(
                what,
                field,
                format!("must be between {min} and {max}, got {n}"),
            )),
            None => Err(bad(what, field, format!("must be an integer, got {v}"))),
        },
        Kind::StrList => {
            strings(what, field, v)?;
            Ok(v.clone())
        }
        Kind::Enum(allowed) => {
            let s = v
                .as_str()
                .ok_or_else(|| bad(what, field, format!("must be a string, got {v}")))?;
            one_of(what, field, s, allowed)?;
            Ok(v.clone())
        }
        Kind::EnumList(allowed) => {
            for s in strings(what, field, v)? {
                one_of(what, field, s, allowed)?;
            }
            Ok(v.clone())
        }
        Kind::Emails => {
            for s in strings(what, field, v)? {
                if !is_email(s) {
                    return Err(bad(
                        what,
                        field,
                        format!("must hold e-mail addresses, got {s:?}"),
                    ));
                }
            }
            Ok(v.clone())
        }
        Kind::HhMm => {
            let s = v
                .as_str()
                .ok_or_else(|| bad(what, field, format!("must be a string \"HH:MM\", got {v}")))?;
            let ok = s.len() == 5
                && s.as_bytes()[2] == b':'
                && s[..2].parse::<u8>().is_ok_and(|h| h < 24)
                && s[3..].parse::<u8>().is_ok_and(|m| m < 60)
                && s.bytes()
                    .enumerate()
                    .all(|(i, b)| i == 2 || b.is_ascii_digit());
            if ok {
                Ok(v.clone())
            } else {
                Err(bad(
                    what,
                    field,
                    format!("must be a 24-hour UTC time \"HH:MM\", got {s:?}"),
                ))
            }
        }
        Kind::Countries => {
            let mut out = Vec::new();
            for s in strings(what, field, v)? {
                out.push(Value::String(validate::country(s)?));
            }
            Ok(Value::Array(out))
        }
        Kind::ExtraPath => {
            let s = v
                .as_str()
                .ok_or_else(|| bad(what, field, format!("must be a string, got {v}")))?;
            if s.chars().count() > EXTRA_PATH_MAX {
                return Err(bad(
                    what,
                    field,
                    format!(
                        "must be at most {EXTRA_PATH_MAX} characters, got {}",
                        s.chars().count()
                    ),
                ));
            }
            if !is_extra_path(s) {
                return Err(bad(
                    what,
                    field,
                    format!("must start with / and hold only letters, digits and /_-?#=.~%:@!$&'()*+,;[], got {s:?}"),
                ));
            }
            Ok(v.clone())
        }
        Kind::UserTags => {
            for s in strings(what, field, v)? {
                let ok = ["pro.", "public.", "private.", "team."]
                    .iter()
                    .any(|p| s.strip_prefix(p).is_some_and(|rest| !rest.is_empty()));
                if !ok {
                    return Err(bad(
                        what,
                        field,
                        format!("must be prefixed by its scope (pro., public., private. or team.), got {s:?}"),
                    ));
                }
            }
            Ok(v.clone())
        }
        Kind::Object => match v {
            Value::Object(_) => Ok(v.clone()),
            _ => Err(bad(what, field, format!("must be a mapping, got {v}"))),
        },
        Kind::SearchAfter => match v {
            Value::String(s) => validate::search_after_any(s)
                .map(Value::String)
                .map_err(|e| Error::Validation(format!("{what}: {e}"))),
            _ => Err(bad(what, field, format!("must be a string, got {v}"))),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const FIELDS: &[Field] = &[
        req("name", "name", Kind::Str),
        f("utc_time", "utcTime", Kind::HhMm),
        f("week_days", "weekDays", Kind::EnumList(WEEK_DAYS)),
        f("email_addresses", "emailAddresses", Kind::Emails),
        f("limit", "limit", Kind::Int(10, 10_000)),
        f("extra_path", "extraPath", Kind::ExtraPath),
    ];

    fn build_one(v: Value) -> Result<Map<String, Value>> {
        build("test", FIELDS, v.as_object().unwrap(), true)
    }

    #[test]
    fn maps_and_checks() {
        let m = build_one(json!({"name": "n", "utc_time": "09:30", "week_days": ["Monday"], "extra_path": "/a?b=c"})).unwrap();
        assert_eq!(
            Value::Object(m),
            json!({"name": "n", "utcTime": "09:30", "weekDays": ["Monday"], "extraPath": "/a?b=c"})
        );
        for bad in [
            json!({}),
            json!({"name": "n", "nope": 1}),
            json!({"name": "n", "utc_time": "24:00"}),
            json!({"name": "n", "utc_time": "9:30"}),
            json!({"name": "n", "week_days": ["monday"]}),
            json!({"name": "n", "email_addresses": ["not-an-email"]}),
            json!({"name": "n", "limit": 9}),
            json!({"name": "n", "extra_path": "no-slash"}),
            json!({"name": "n", "extra_path": "/<script>"}),
            json!({"name": "n", "extra_path": format!("/{}", "a".repeat(2000))}),
        ] {
            assert!(
                matches!(build_one(bad.clone()), Err(Error::Validation(_))),
                "{bad}"
            );
        }
        assert!(build(
            "t",
            FIELDS,
            json!({"limit": 10}).as_object().unwrap(),
            false
        )
        .is_ok());
    }
}
