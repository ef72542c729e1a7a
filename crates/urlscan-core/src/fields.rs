//! The fields of the endpoint rows (body fields, query parameters, ids): each
//! described once (keyword, wire name, kind, required, nullable, doc). A body
//! or query is built from snake_case options by its row's fields, every
//! documented rule checked before anything is sent; `Kind::takes` says what a
//! caller gives, for the generated stubs and the command line.
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::validate;
use urlscan_rules::{self as rules, shown};

#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// Any string (empty included).
    Str,
    /// A non-empty string.
    Text,
    /// A search query: non-empty, at most `rules::QUERY_MAX_LEN`.
    Query,
    Bool,
    /// A switch the service takes as present or absent (any value sent turns
    /// it on): true is sent as the string "true", false is not sent.
    Switch,
    /// An integer within [min, max].
    Int(i64, i64),
    StrList,
    /// Ids of other objects (channels, saved searches), each checked as an
    /// id in a path is.
    IdList,
    Enum(&'static [&'static str]),
    EnumList(&'static [&'static str]),
    /// One value of the enum, or a list of them.
    EnumOrList(&'static [&'static str]),
    Emails,
    /// "HH:MM", 24-hour.
    HhMm,
    Countries,
    /// A path matching the incident `extraPath` pattern, at most 2,000 characters.
    ExtraPath,
    /// A URL to scan (`rules::scan_url`).
    ScanUrl,
    /// An http or https address with a host (webhooks).
    WebUrl,
    /// An incident observable: hostname, domain, IP or URL.
    Observable,
    /// HTTP headers: an object of header names to header values.
    Headers,
    /// Saved-search user tags, each prefixed by its scope.
    UserTags,
    /// A search cursor: the last hit's sort values joined by a comma.
    SearchAfter,
    /// One value of the enum, whatever its case and surrounding spaces
    /// (sent lowercase, trimmed).
    AnyCase(&'static [&'static str]),
    /// Scan tags: at most `rules::MAX_TAGS` strings, none empty.
    Tags,
    /// A two-letter ISO 3166-1 country code (sent lowercase).
    Country,
    /// A string sent on as an HTTP header's value (no CR, LF or other
    /// control characters).
    HeaderValue,
    /// A scan's uuid (sent lowercase).
    Uuid,
    /// A SHA-256 hash in hex (sent lowercase).
    Sha256,
    /// Shards of a walk run at once: an integer in [1, max], or "auto".
    Shards(i64),
}

/// What a kind of field takes from a caller: the closed set the stubs, the
/// generator and the command line map to types and arguments. A new `Kind`
/// must say which (the matches below have no catch-all).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Takes {
    /// One string.
    Text,
    /// True or false.
    Flag,
    Int,
    /// A list of strings.
    Texts,
    /// An object of header names to values.
    Headers,
    /// One value of the kind's enum.
    One,
    /// A list of values of the enum.
    Many,
    /// One value of the enum, or a list of them.
    OneOrMany,
    /// An integer, or the string "auto".
    IntOrAuto,
}

impl Takes {
    pub fn name(self) -> &'static str {
        match self {
            Takes::Text => "text",
            Takes::Flag => "flag",
            Takes::Int => "int",
            Takes::Texts => "texts",
            Takes::Headers => "headers",
            Takes::One => "one",
            Takes::Many => "many",
            Takes::OneOrMany => "one_or_many",
            Takes::IntOrAuto => "int_or_auto",
        }
    }
}

impl Kind {
    /// The kind's name, as the endpoint table shows it.
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Str => "Str",
            Kind::Text => "Text",
            Kind::Query => "Query",
            Kind::Bool => "Bool",
            Kind::Switch => "Switch",
            Kind::Int(..) => "Int",
            Kind::StrList => "StrList",
            Kind::IdList => "IdList",
            Kind::Enum(_) => "Enum",
            Kind::EnumList(_) => "EnumList",
            Kind::EnumOrList(_) => "EnumOrList",
            Kind::Emails => "Emails",
            Kind::HhMm => "HhMm",
            Kind::Countries => "Countries",
            Kind::ExtraPath => "ExtraPath",
            Kind::ScanUrl => "ScanUrl",
            Kind::WebUrl => "WebUrl",
            Kind::Observable => "Observable",
            Kind::Headers => "Headers",
            Kind::UserTags => "UserTags",
            Kind::SearchAfter => "SearchAfter",
            Kind::AnyCase(_) => "AnyCase",
            Kind::Tags => "Tags",
            Kind::Country => "Country",
            Kind::HeaderValue => "HeaderValue",
            Kind::Uuid => "Uuid",
            Kind::Sha256 => "Sha256",
            Kind::Shards(_) => "Shards",
        }
    }

    /// What a caller gives for a field of this kind.
    pub fn takes(&self) -> Takes {
        match self {
            Kind::Str
            | Kind::Text
            | Kind::Query
            | Kind::HhMm
            | Kind::ExtraPath
            | Kind::ScanUrl
            | Kind::WebUrl
            | Kind::Observable
            | Kind::SearchAfter
            | Kind::Country
            | Kind::HeaderValue
            | Kind::Uuid
            | Kind::Sha256 => Takes::Text,
            Kind::Bool | Kind::Switch => Takes::Flag,
            Kind::Int(..) => Takes::Int,
            Kind::StrList
            | Kind::IdList
            | Kind::Emails
            | Kind::Countries
            | Kind::UserTags
            | Kind::Tags => Takes::Texts,
            Kind::Headers => Takes::Headers,
            Kind::Enum(_) | Kind::AnyCase(_) => Takes::One,
            Kind::EnumList(_) => Takes::Many,
            Kind::EnumOrList(_) => Takes::OneOrMany,
            Kind::Shards(_) => Takes::IntOrAuto,
        }
    }

    /// The enum's values (none for the other kinds).
    pub fn choices(&self) -> &'static [&'static str] {
        match self {
            Kind::Enum(v) | Kind::EnumList(v) | Kind::EnumOrList(v) | Kind::AnyCase(v) => v,
            _ => &[],
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// The keyword a caller uses (snake_case).
    pub name: &'static str,
    /// The name on the wire.
    pub wire: &'static str,
    pub kind: Kind,
    pub required: bool,
    /// `None` from the caller is sent as JSON null (the specification allows
    /// null to clear the field); for other fields `None` means "not given".
    pub nullable: bool,
    /// What the field is, for people: the reference and the command line's
    /// help show it (every field of a row has one; `call`'s tests check).
    pub doc: &'static str,
    /// The value a caller's signature shows as the default, as JSON (None:
    /// not given, nothing sent).
    pub default: Option<&'static str>,
}

pub const fn f(name: &'static str, wire: &'static str, kind: Kind) -> Field {
    Field {
        name,
        wire,
        kind,
        required: false,
        nullable: false,
        doc: "",
        default: None,
    }
}

pub const fn req(name: &'static str, wire: &'static str, kind: Kind) -> Field {
    Field {
        name,
        wire,
        kind,
        required: true,
        nullable: false,
        doc: "",
        default: None,
    }
}

/// A path parameter naming an object by its id (`Endpoint::ids`).
pub const fn id(name: &'static str) -> Field {
    req(name, name, Kind::Str)
}

/// An optional field whose `None` is sent as null.
pub const fn null_ok(name: &'static str, wire: &'static str, kind: Kind) -> Field {
    Field {
        name,
        wire,
        kind,
        required: false,
        nullable: true,
        doc: "",
        default: None,
    }
}

pub use urlscan_rules::{FREQUENCIES, TEAM_PERMISSIONS, WEEK_DAYS};

/// Fields channels and subscriptions share: how and when they notify, and who
/// in the team may see or change them. A subscription requires some of them.
pub mod notify {
    use super::{f, rules, Field, Kind};
    pub const FREQUENCY: Field = f("frequency", "frequency", Kind::Enum(rules::FREQUENCIES))
        .doc("How often notifications are sent");
    pub const EMAILS: Field =
        f("email_addresses", "emailAddresses", Kind::Emails).doc("Recipient e-mail address");
    pub const IS_ACTIVE: Field = f("is_active", "isActive", Kind::Bool).doc("Whether it is active");
    pub const IGNORE_TIME: Field =
        f("ignore_time", "ignoreTime", Kind::Bool).doc("Whether to ignore time constraints");
    pub const WEEK_DAYS: Field = f("week_days", "weekDays", Kind::EnumList(rules::WEEK_DAYS))
        .doc("Day on which alerts are generated");
    pub const PERMISSIONS: Field = f(
        "permissions",
        "permissions",
        Kind::EnumList(rules::TEAM_PERMISSIONS),
    )
    .doc("Permission of the team's members");
    pub const DESCRIPTION: Field =
        f("description", "description", Kind::Str).doc("Short description");
}

impl Field {
    pub const fn required(mut self) -> Field {
        self.required = true;
        self
    }
    pub const fn doc(mut self, doc: &'static str) -> Field {
        self.doc = doc;
        self
    }
    /// The default a caller's signature shows (JSON); `build` sends nothing
    /// for an option not given, so the code behind the call must mean the same.
    pub const fn default(mut self, json: &'static str) -> Field {
        self.default = Some(json);
        self
    }
}

/// The known name a misspelt one most likely meant, if any is close.
pub fn closest<'a>(given: &str, names: &[&'a str]) -> Option<&'a str> {
    names
        .iter()
        .map(|n| (strsim::jaro_winkler(given, n), *n))
        .filter(|(score, _)| *score >= 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, n)| n)
}

/// Build the wire object from the caller's options. `creating` enforces the
/// required fields; updates send only what is given. `None` values are left
/// out, except for nullable fields, where they are sent as null.
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
                let hint = closest(k, &names)
                    .map(|n| format!("; did you mean {n:?}?"))
                    .unwrap_or_default();
                Error::Validation(format!(
                    "{what}: unknown option {:?}{hint} (the options are {})",
                    shown(k, 40),
                    names.join(", ")
                ))
            })?;
        if v.is_null() {
            if field.nullable {
                insert_path(&mut out, field.wire, Value::Null);
            }
            continue;
        }
        let checked = check(what, field, v)?;
        // A switch turned off is not sent.
        if !checked.is_null() {
            insert_path(&mut out, field.wire, checked);
        }
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

/// A rule's error (from `validate`) as the body's: prefixed by `what`.
fn named(what: &str, e: Error) -> Error {
    match e {
        Error::Validation(m) => Error::Validation(format!("{what}: {m}")),
        e => e,
    }
}

fn bad(what: &str, field: &Field, msg: String) -> Error {
    Error::Validation(format!("{what}: {} {msg}", field.name))
}

/// The value is not of the type the field takes (`shape`).
fn not_a(what: &str, field: &Field, shape: &str, v: &Value) -> Error {
    bad(what, field, format!("must be {shape}, got {}", sv(v)))
}

/// A value for a message: short, whatever was given.
fn sv(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{:?}", shown(s, 80)),
        other => shown(&other.to_string(), 80),
    }
}

fn strings<'a>(what: &str, field: &Field, v: &'a Value) -> Result<Vec<&'a str>> {
    let arr = v
        .as_array()
        .ok_or_else(|| not_a(what, field, "a list of strings", v))?;
    arr.iter()
        .map(|x| {
            x.as_str().ok_or_else(|| {
                bad(
                    what,
                    field,
                    format!("must hold only strings, got {}", sv(x)),
                )
            })
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
            format!(
                "must be one of {}, got {:?}",
                allowed.join(", "),
                shown(s, 40)
            ),
        ))
    }
}

pub fn is_email(s: &str) -> bool {
    rules::email(s)
}

pub const EXTRA_PATH_MAX: usize = rules::EXTRA_PATH_MAX;

pub fn is_extra_path(s: &str) -> bool {
    rules::extra_path(s)
}

/// A JSON string of any length.
fn any_str<'a>(what: &str, field: &Field, v: &'a Value) -> Result<&'a str> {
    v.as_str().ok_or_else(|| not_a(what, field, "a string", v))
}

/// A string that `rule` accepts; otherwise the rule's reason, with the value shown.
fn ruled<'a>(
    what: &str,
    field: &Field,
    v: &'a Value,
    rule: fn(&str) -> std::result::Result<(), String>,
) -> Result<&'a str> {
    let s = any_str(what, field, v)?;
    rule(s).map_err(|why| bad(what, field, format!("{why}, got {:?}", shown(s, 80))))?;
    Ok(s)
}

/// A list of strings, each of which `ok` accepts; otherwise `must`, with the
/// string shown.
fn each(what: &str, field: &Field, v: &Value, ok: fn(&str) -> bool, must: &str) -> Result<Value> {
    for s in strings(what, field, v)? {
        if !ok(s) {
            return Err(bad(what, field, format!("{must}, got {:?}", shown(s, 80))));
        }
    }
    Ok(v.clone())
}

fn string<'a>(what: &str, field: &Field, v: &'a Value) -> Result<&'a str> {
    any_str(what, field, v)
}

fn check(what: &str, field: &Field, v: &Value) -> Result<Value> {
    match field.kind {
        Kind::Str => string(what, field, v).map(|_| v.clone()),
        Kind::Text => match string(what, field, v)? {
            s if s.trim().is_empty() => Err(bad(what, field, "must not be empty".into())),
            _ => Ok(v.clone()),
        },
        Kind::Query => {
            let s = any_str(what, field, v)?;
            if s.trim().is_empty() {
                return Err(bad(what, field, "must not be empty".into()));
            }
            validate::query(s).map_err(|_| {
                bad(
                    what,
                    field,
                    format!(
                        "must be at most {} characters, got {}",
                        rules::QUERY_MAX_LEN,
                        s.chars().count()
                    ),
                )
            })?;
            Ok(v.clone())
        }
        Kind::Bool => match v {
            Value::Bool(_) => Ok(v.clone()),
            _ => Err(not_a(what, field, "true or false", v)),
        },
        Kind::Switch => match v {
            Value::Bool(true) => Ok(Value::String("true".into())),
            Value::Bool(false) => Ok(Value::Null),
            _ => Err(not_a(what, field, "true or false", v)),
        },
        Kind::Int(min, max) => match v.as_i64() {
            Some(n) if (min..=max).contains(&n) && !v.is_boolean() => Ok(v.clone()),
            Some(n) => Err(bad(
                what,
                field,
                format!("must be between {min} and {max}, got {n}"),
            )),
            None => Err(not_a(what, field, "an integer", v)),
        },
        Kind::StrList => {
            for s in strings(what, field, v)? {
                string(what, field, &Value::String(s.to_string()))?;
            }
            Ok(v.clone())
        }
        Kind::IdList => each(
            what,
            field,
            v,
            rules::object_id,
            "must hold ids of letters, digits, - and _",
        ),
        Kind::Enum(allowed) => {
            let s = any_str(what, field, v)?;
            one_of(what, field, s, allowed)?;
            Ok(v.clone())
        }
        Kind::EnumList(allowed) => {
            for s in strings(what, field, v)? {
                one_of(what, field, s, allowed)?;
            }
            Ok(v.clone())
        }
        Kind::EnumOrList(allowed) => {
            if let Some(s) = v.as_str() {
                one_of(what, field, s, allowed)?;
            } else {
                for s in strings(what, field, v)? {
                    one_of(what, field, s, allowed)?;
                }
            }
            Ok(v.clone())
        }
        Kind::Emails => each(what, field, v, rules::email, "must hold e-mail addresses"),
        Kind::HhMm => {
            let s = v
                .as_str()
                .ok_or_else(|| not_a(what, field, "a string \"HH:MM\"", v))?;
            if rules::hh_mm(s) {
                Ok(v.clone())
            } else {
                Err(bad(
                    what,
                    field,
                    format!(
                        "must be a 24-hour UTC time \"HH:MM\", got {:?}",
                        shown(s, 20)
                    ),
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
            let s = any_str(what, field, v)?;
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
            if !rules::extra_path(s) {
                return Err(bad(
                    what,
                    field,
                    format!(
                        "must start with / and hold only letters, digits and {}, got {:?}",
                        rules::EXTRA_PATH_SPECIALS,
                        shown(s, 80)
                    ),
                ));
            }
            Ok(v.clone())
        }
        Kind::ScanUrl => {
            let s = ruled(what, field, v, rules::scan_url)?;
            Ok(Value::String(s.trim().to_string()))
        }
        Kind::WebUrl => ruled(what, field, v, rules::web_url).map(|_| v.clone()),
        Kind::Observable => {
            let s = ruled(what, field, v, rules::observable)?;
            Ok(Value::String(s.trim().to_string()))
        }
        Kind::Headers => {
            let m = v
                .as_object()
                .ok_or_else(|| not_a(what, field, "a mapping", v))?;
            for (k, x) in m {
                if !rules::header_name(k) {
                    return Err(bad(
                        what,
                        field,
                        format!("must have header names as keys, got {:?}", shown(k, 40)),
                    ));
                }
                match x.as_str() {
                    Some(s) if rules::header_value(s) => {}
                    _ => {
                        return Err(bad(
                            what,
                            field,
                            format!(
                            "values must be strings without CR, LF or control characters, got {}",
                            sv(x)
                        ),
                        ))
                    }
                }
            }
            Ok(v.clone())
        }
        Kind::UserTags => each(
            what,
            field,
            v,
            rules::user_tag,
            "must be prefixed by its scope (pro., public., private. or team.)",
        ),
        Kind::AnyCase(allowed) => {
            let given = any_str(what, field, v)?;
            let s = given.trim().to_ascii_lowercase();
            if !allowed.contains(&s.as_str()) {
                // The message shows the value as given.
                one_of(what, field, given, allowed)?;
            }
            Ok(Value::String(s))
        }
        Kind::Tags => {
            let tags = strings(what, field, v)?;
            if tags.len() > rules::MAX_TAGS {
                return Err(bad(
                    what,
                    field,
                    format!(
                        "must hold at most {} tags, got {}",
                        rules::MAX_TAGS,
                        tags.len()
                    ),
                ));
            }
            if let Some(t) = tags.iter().find(|t| t.trim().is_empty()) {
                return Err(bad(
                    what,
                    field,
                    format!("must not hold an empty tag, got {t:?}"),
                ));
            }
            Ok(v.clone())
        }
        Kind::Country => {
            let s = any_str(what, field, v)?;
            validate::country(s)
                .map(Value::String)
                .map_err(|e| named(what, e))
        }
        Kind::HeaderValue => ruled(what, field, v, |s| {
            if rules::header_value(s) {
                Ok(())
            } else {
                Err(
                    "must be printable characters without CR, LF or other control characters"
                        .into(),
                )
            }
        })
        .map(|_| v.clone()),
        Kind::Uuid => {
            let s = any_str(what, field, v)?;
            validate::uuid(field.name, s)
                .map(Value::String)
                .map_err(|e| named(what, e))
        }
        Kind::Sha256 => {
            let s = any_str(what, field, v)?;
            validate::sha256(s)
                .map(Value::String)
                .map_err(|e| named(what, e))
        }
        Kind::Shards(max) => match (v.as_str(), v.as_i64()) {
            (Some("auto"), _) => Ok(v.clone()),
            (_, Some(n)) if (1..=max).contains(&n) => Ok(v.clone()),
            (_, Some(n)) => Err(bad(
                what,
                field,
                format!("must be between 1 and {max}, or \"auto\", got {n}"),
            )),
            _ => Err(not_a(what, field, "an integer or \"auto\"", v)),
        },
        Kind::SearchAfter => match v {
            Value::String(s) => validate::search_after_any(s)
                .map(Value::String)
                .map_err(|e| named(what, e)),
            _ => Err(not_a(what, field, "a string", v)),
        },
    }
}

#[cfg(test)]
#[path = "fields_tests.rs"]
mod tests;
