//! Typed views of the service's answers. Each answer keeps its body as
//! received (`Doc::body`) so nothing the service sent is lost; the typed part
//! holds what the core itself needs and proves the shape is right.
use bytes::Bytes;
use serde::de::{DeserializeOwned, Deserializer, IgnoredAny};
use serde::Deserialize;
use serde_json::Value;

use crate::core::error::{Error, Result};

pub mod index;
pub mod scanning;
pub mod search;

pub use scanning::{ResultHead, Submission};
pub use search::{SearchHitHead, SearchPageHead};

/// A decoded JSON answer: the body as sent, and a typed head.
#[derive(Debug, Clone)]
pub struct Doc<T> {
    pub body: Bytes,
    pub head: T,
    /// Where the body's top-level values are, when it was read that way.
    pub index: Option<index::DocIndex>,
}

impl<T: DeserializeOwned> Doc<T> {
    pub fn decode(body: Bytes, what: &str) -> Result<Doc<T>> {
        let head = decode(&body, what)?;
        Ok(Doc {
            body,
            head,
            index: None,
        })
    }
}

impl<T> Doc<T> {
    /// The whole body as a JSON value.
    pub fn value(&self) -> Result<Value> {
        decode(&self.body, "response")
    }
}

pub fn decode<T: DeserializeOwned>(body: &[u8], what: &str) -> Result<T> {
    // One UTF-8 check for the whole body is cheaper than one per string.
    let parsed = match std::str::from_utf8(body) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(body),
    };
    parsed.map_err(|e| {
        let snippet: String = String::from_utf8_lossy(&body[..body.len().min(120)]).into_owned();
        Error::Decode(format!("{what}: {e} (body starts {snippet:?})"))
    })
}

/// Any JSON object; proves the answer is an object without building it.
#[derive(Debug, Clone, Deserialize)]
pub struct AnyObject {}

/// `{}` or `null` where a list is expected reads as an empty list (the service
/// sends both); so does any other non-list. Read in one pass, without
/// buffering the list (pages hold hundreds of KB); an element that is not a
/// `T` is an error.
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
            mut m: M,
        ) -> std::result::Result<Vec<T>, M::Error> {
            while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(Vec::new())
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
        fn visit_bool<E>(self, _: bool) -> std::result::Result<Vec<T>, E> {
            Ok(Vec::new())
        }
        fn visit_i64<E>(self, _: i64) -> std::result::Result<Vec<T>, E> {
            Ok(Vec::new())
        }
        fn visit_u64<E>(self, _: u64) -> std::result::Result<Vec<T>, E> {
            Ok(Vec::new())
        }
        fn visit_f64<E>(self, _: f64) -> std::result::Result<Vec<T>, E> {
            Ok(Vec::new())
        }
        fn visit_str<E>(self, _: &str) -> std::result::Result<Vec<T>, E> {
            Ok(Vec::new())
        }
    }
    d.deserialize_any(V(std::marker::PhantomData))
}

/// A number that may come as null, a float or a numeric string.
pub fn lenient_u64<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<u64>, D::Error> {
    Ok(Option::<Value>::deserialize(d)?
        .as_ref()
        .and_then(lenient_value_u64))
}

pub fn lenient_value_u64(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64().or_else(|| n.as_f64().map(|f| f.max(0.0) as u64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}
