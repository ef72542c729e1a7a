//! Reading JSON answers: decoding whose errors name the JSON path, and the
//! readers that are lenient on missing lists and counts, strict on wrong ones.
use serde::de::{DeserializeOwned, Deserializer};
use serde::Deserialize;
use serde_json::Value;

use crate::error::{Error, Result};

pub fn decode<T: DeserializeOwned>(body: &[u8], what: &str) -> Result<T> {
    // One UTF-8 check for the whole body is cheaper than one per string.
    let parsed = match std::str::from_utf8(body) {
        Ok(text) => decode_from(serde_json::Deserializer::from_str(text)),
        Err(_) => decode_from(serde_json::Deserializer::from_slice(body)),
    };
    parsed.map_err(|(path, e)| decode_error(e, what, &path, body))
}

/// A value and the whole input read; on error, the JSON path where it happened.
fn decode_from<'de, R: serde_json::de::Read<'de>, T: DeserializeOwned>(
    mut de: serde_json::Deserializer<R>,
) -> std::result::Result<T, (String, serde_json::Error)> {
    let v = serde_path_to_error::deserialize(&mut de)
        .map_err(|e| (e.path().to_string(), e.into_inner()))?;
    de.end().map_err(|e| (String::new(), e))?;
    Ok(v)
}

/// The error of a body that is not what the interface says: a value of the
/// wrong type names its JSON path and what was found
/// (`countries: expected a list, found a string ("de")`); other errors
/// (bad JSON, a missing required field) name the answer and show the body's start.
pub fn decode_error(e: serde_json::Error, what: &str, path: &str, body: &[u8]) -> Error {
    let mut msg = e.to_string();
    if e.line() > 0 {
        let at = format!(" at line {} column {}", e.line(), e.column());
        if let Some(stripped) = msg.strip_suffix(&at) {
            msg = stripped.to_string();
        }
    }
    if e.classify() == serde_json::error::Category::Data {
        if let Some(rest) = msg.strip_prefix("invalid type: ") {
            // serde's "invalid type: string \"x\", expected a boolean"
            if let Some((found, expected)) = rest.split_once(", expected ") {
                msg = format!("expected {expected}, found {}", serde_found(found));
            }
        }
        if msg.contains(": expected ") {
            return Error::Decode(msg); // already names its path
        }
        if msg.starts_with("expected ") {
            let path = if path.is_empty() || path == "." {
                what
            } else {
                path
            };
            return Error::Decode(format!("{path}: {msg}"));
        }
    }
    let snippet: String = String::from_utf8_lossy(&body[..body.len().min(120)]).into_owned();
    let path = if path.is_empty() || path == "." {
        String::new()
    } else {
        format!("{path}: ")
    };
    Error::Decode(format!("{what}: {path}{msg} (body starts {snippet:?})"))
}

/// serde's name of an unexpected value in this crate's words
/// (`integer \`5\`` is `a number (5)`).
fn serde_found(found: &str) -> String {
    let quoted = |s: &str| {
        s.strip_prefix('`')
            .and_then(|s| s.strip_suffix('`'))
            .unwrap_or(s)
            .to_string()
    };
    if let Some(v) = found.strip_prefix("string ") {
        format!("a string ({v})")
    } else if let Some(v) = found.strip_prefix("integer ") {
        format!("a number ({})", quoted(v))
    } else if let Some(v) = found.strip_prefix("floating point ") {
        format!("a number ({})", quoted(v))
    } else if let Some(v) = found.strip_prefix("boolean ") {
        format!("a boolean ({})", quoted(v))
    } else {
        match found {
            "sequence" => "a list".to_string(),
            "map" => "an object".to_string(),
            "unit value" | "null" => "null".to_string(),
            other => other.to_string(),
        }
    }
}

/// What a JSON value of the wrong type is, shortly: `a string ("many")`.
pub fn found(v: &Value) -> String {
    let kind = match v {
        Value::Null => return "null".to_string(),
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    };
    shortly(kind, &v.to_string())
}

/// `kind (text)`, the text cut at 40 characters.
fn shortly(kind: &str, text: &str) -> String {
    if text.chars().count() > 40 {
        let cut: String = text.chars().take(37).collect();
        format!("{kind} ({cut}...)")
    } else {
        format!("{kind} ({text})")
    }
}

/// One JSON value read from its span (its bytes, a string's quotes
/// included), as the tables and the lazy models read values without
/// decoding the document: one set of readers for both.
pub mod span {
    use std::borrow::Cow;

    /// The text of a string with no escape, borrowed; None for anything else.
    pub fn plain_str(v: &[u8]) -> Option<&str> {
        let inner = v.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
        if inner.contains(&b'\\') {
            return None;
        }
        std::str::from_utf8(inner).ok()
    }

    /// The text of a string, escapes decoded; None for anything else.
    pub fn text(v: &[u8]) -> Option<Cow<'_, str>> {
        if let Some(s) = plain_str(v) {
            return Some(Cow::Borrowed(s));
        }
        serde_json::from_slice::<String>(v).ok().map(Cow::Owned)
    }

    /// The text of a number (not of a numeric string).
    pub fn number(v: &[u8]) -> Option<&str> {
        match v.first()? {
            b'-' | b'0'..=b'9' => std::str::from_utf8(v).ok(),
            _ => None,
        }
    }

    /// What a value of the wrong type is, shortly, as `found` says it of a
    /// decoded one: `a string ("many")`.
    pub fn found(v: &[u8]) -> String {
        let kind = match v.first() {
            Some(b'{') => "an object",
            Some(b'[') => "a list",
            Some(b'"') => "a string",
            Some(b't' | b'f') => "a boolean",
            Some(b'n') => return "null".to_string(),
            _ => "a number",
        };
        crate::models::json::shortly(kind, &String::from_utf8_lossy(v))
    }
}

/// "expected {what}, found ..." for a value of the wrong type.
pub fn wrong(what: &str, v: &Value) -> String {
    format!("expected {what}, found {}", found(v))
}

/// "`at`: expected `what`, found ..." for the JSON text `body` (or the error
/// decoding it, when it is not JSON).
pub fn wrong_json(at: &str, what: &str, body: &[u8]) -> Error {
    match decode::<Value>(body, at) {
        Ok(v) => Error::Decode(format!("{at}: {}", wrong(what, &v))),
        Err(e) => e,
    }
}

/// The first byte of JSON text that is not whitespace: what kind of value it is.
pub fn first_byte(body: &[u8]) -> Option<u8> {
    body.iter().copied().find(|b| !b.is_ascii_whitespace())
}

/// Any JSON object; proves the answer is an object without building it.
#[derive(Debug, Clone)]
pub struct AnyObject {}

impl<'de> Deserialize<'de> for AnyObject {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = AnyObject;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut m: M,
            ) -> std::result::Result<AnyObject, M::Error> {
                while m
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(AnyObject {})
            }
        }
        d.deserialize_map(V)
    }
}

/// A list; `{}`, `null` or a missing field reads as an empty list (the
/// service sends them). Any other value is an error naming what was found.
/// Read in one pass, without buffering the list (pages hold hundreds of KB);
/// an element that is not a `T` is an error.
pub fn list_or_empty<'de, D, T>(d: D) -> std::result::Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct V<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for V<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a list")
        }
        fn visit_seq<S: serde::de::SeqAccess<'de>>(
            self,
            mut s: S,
        ) -> std::result::Result<Vec<T>, S::Error> {
            let mut out = Vec::with_capacity(s.size_hint().unwrap_or(0).min(4096));
            while let Some(x) = s.next_element()? {
                out.push(x);
            }
            Ok(out)
        }
        fn visit_map<M: serde::de::MapAccess<'de>>(
            self,
            m: M,
        ) -> std::result::Result<Vec<T>, M::Error> {
            empty_object(m, "a list").map(|()| Vec::new())
        }
        fn visit_unit<E>(self) -> std::result::Result<Vec<T>, E> {
            Ok(Vec::new())
        }
        fn visit_none<E>(self) -> std::result::Result<Vec<T>, E> {
            Ok(Vec::new())
        }
        fn visit_some<D2: Deserializer<'de>>(
            self,
            d: D2,
        ) -> std::result::Result<Vec<T>, D2::Error> {
            d.deserialize_any(self)
        }
        fn visit_bool<E: serde::de::Error>(self, v: bool) -> std::result::Result<Vec<T>, E> {
            Err(E::custom(wrong("a list", &Value::from(v))))
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<Vec<T>, E> {
            Err(E::custom(wrong("a list", &Value::from(v))))
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<Vec<T>, E> {
            Err(E::custom(wrong("a list", &Value::from(v))))
        }
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<Vec<T>, E> {
            Err(E::custom(wrong("a list", &Value::from(v))))
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Vec<T>, E> {
            Err(E::custom(wrong("a list", &Value::from(v))))
        }
    }
    d.deserialize_any(V(std::marker::PhantomData))
}

/// Reads an object that stands where something else (`what`) is expected:
/// `{}` is accepted (as empty), any other object is an error showing it.
pub fn empty_object<'de, M: serde::de::MapAccess<'de>>(
    m: M,
    what: &str,
) -> std::result::Result<(), M::Error> {
    let v = Value::deserialize(serde::de::value::MapAccessDeserializer::new(m))?;
    match &v {
        Value::Object(o) if o.is_empty() => Ok(()),
        _ => Err(serde::de::Error::custom(wrong(what, &v))),
    }
}

/// A number that may come as null, a float or a numeric string; any other
/// value (`"many"`, `true`, a list) is an error.
pub fn lenient_u64<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<u64>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None => Ok(None),
        Some(v) => lenient_value_u64(&v).map_err(serde::de::Error::custom),
    }
}

/// A count: a number, a numeric string (the service sends some), `""` or
/// null (unknown: None); an error message for anything else.
pub fn lenient_value_u64(v: &Value) -> std::result::Result<Option<u64>, String> {
    match v {
        Value::Null => Ok(None),
        Value::Number(n) => Ok(n.as_u64().or_else(|| n.as_f64().map(|f| f.max(0.0) as u64))),
        Value::String(s) if s.trim().is_empty() => Ok(None),
        Value::String(s) => {
            let t = s.trim();
            t.parse::<u64>()
                .ok()
                .or_else(|| {
                    t.parse::<f64>()
                        .ok()
                        .filter(|f| f.is_finite())
                        .map(|f| f.max(0.0) as u64)
                })
                .map(Some)
                .ok_or_else(|| wrong("a number", v))
        }
        _ => Err(wrong("a number", v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_is_read_as_its_decoded_value_would_be() {
        assert_eq!(span::plain_str(br#""a b""#), Some("a b"));
        assert_eq!(span::plain_str(br#""a\nb""#), None);
        assert_eq!(span::text(br#""a\nb""#).as_deref(), Some("a\nb"));
        for not_a_string in [&b"123"[..], b"\"", b"", b"null", br#""a"#] {
            assert_eq!(span::text(not_a_string), None, "{not_a_string:?}");
        }
        assert_eq!(span::number(b"-1.5e3"), Some("-1.5e3"));
        assert_eq!(span::number(br#""1""#), None);
        // Said alike of a span and of its decoded value.
        for body in [
            r#""many""#,
            "[1,2]",
            "{}",
            "true",
            "7",
            &format!("\"{}\"", "é".repeat(50)),
        ] {
            let v: Value = serde_json::from_str(body).unwrap();
            assert_eq!(span::found(body.as_bytes()), found(&v), "{body}");
        }
    }

    #[derive(Debug, Deserialize)]
    struct Page {
        #[serde(default, deserialize_with = "list_or_empty")]
        countries: Vec<String>,
        #[serde(default, deserialize_with = "lenient_u64")]
        total: Option<u64>,
        #[serde(default)]
        #[allow(dead_code)]
        items: Vec<Item>,
    }

    #[derive(Debug, Deserialize)]
    struct Item {
        #[serde(default, deserialize_with = "list_or_empty")]
        #[allow(dead_code)]
        tags: Vec<String>,
    }

    fn err(body: &str) -> String {
        match decode::<Page>(body.as_bytes(), "page") {
            Err(Error::Decode(m)) => m,
            other => panic!("{body}: {other:?}"),
        }
    }

    #[test]
    fn lists_and_counts_are_lenient_on_missing_strict_on_wrong() {
        for body in [
            r#"{}"#,
            r#"{"countries":{},"total":null}"#,
            r#"{"countries":null,"total":""}"#,
        ] {
            let p = decode::<Page>(body.as_bytes(), "page").unwrap();
            assert!(p.countries.is_empty() && p.total.is_none(), "{body}");
        }
        let p = decode::<Page>(br#"{"countries":["de"],"total":"3"}"#, "page").unwrap();
        assert_eq!((p.countries, p.total), (vec!["de".to_string()], Some(3)));
        assert_eq!(
            err(r#"{"countries":"de"}"#),
            r#"countries: expected a list, found a string ("de")"#
        );
        assert_eq!(
            err(r#"{"countries":{"a":1}}"#),
            r#"countries: expected a list, found an object ({"a":1})"#
        );
        assert_eq!(
            err(r#"{"countries":[5]}"#),
            "countries[0]: expected a string, found a number (5)"
        );
        assert_eq!(
            err(r#"{"total":"many"}"#),
            r#"total: expected a number, found a string ("many")"#
        );
        assert_eq!(
            err(r#"{"items":[{},{"tags":true}]}"#),
            "items[1].tags: expected a list, found a boolean (true)"
        );
        assert!(err(r#"{"countries":[]"#).contains("EOF while parsing"));
    }
}
