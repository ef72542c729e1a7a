//! Typed views of the service's answers. Each answer keeps its body as
//! received (`Doc::body`) so nothing the service sent is lost; the typed part
//! holds what the core itself needs and proves the shape is right.
use bytes::Bytes;
use serde::de::{DeserializeOwned, Deserializer, IgnoredAny};
use serde::Deserialize;
use serde_json::Value;

use crate::core::error::{Error, Result};

pub mod scanning;
pub mod search;

pub use scanning::{ResultHead, Submission};
pub use search::{SearchHitHead, SearchPageHead};

/// A decoded JSON answer: the body as sent, and a typed head.
#[derive(Debug, Clone)]
pub struct Doc<T> {
    pub body: Bytes,
    pub head: T,
}

impl<T: DeserializeOwned> Doc<T> {
    pub fn decode(body: Bytes, what: &str) -> Result<Doc<T>> {
        let head = decode(&body, what)?;
        Ok(Doc { body, head })
    }
}

impl<T> Doc<T> {
    /// The whole body as a JSON value.
    pub fn value(&self) -> Result<Value> {
        decode(&self.body, "response")
    }
}

pub fn decode<T: DeserializeOwned>(body: &[u8], what: &str) -> Result<T> {
    serde_json::from_slice(body).map_err(|e| {
        let snippet: String = String::from_utf8_lossy(&body[..body.len().min(120)]).into_owned();
        Error::Decode(format!("{what}: {e} (body starts {snippet:?})"))
    })
}

/// Any JSON object; proves the answer is an object without building it.
#[derive(Debug, Clone, Deserialize)]
pub struct AnyObject {}

/// `{}` or `null` where a list is expected reads as an empty list (the service
/// sends both); a list of anything else is kept.
pub fn list_or_empty<'de, D, T>(d: D) -> std::result::Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum ListOr<T> {
        List(Vec<T>),
        Other(IgnoredAny),
    }
    Ok(match Option::<ListOr<T>>::deserialize(d)? {
        Some(ListOr::List(v)) => v,
        _ => Vec::new(),
    })
}

/// A number that may come as null, a float or a numeric string.
pub fn lenient_u64<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<u64>, D::Error> {
    Ok(match Option::<Value>::deserialize(d)? {
        Some(Value::Number(n)) => n.as_u64().or_else(|| n.as_f64().map(|f| f.max(0.0) as u64)),
        Some(Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    })
}
