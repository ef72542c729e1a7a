//! A decoded answer and the index of where its top-level values sit.
use bytes::Bytes;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::json::decode;
use crate::error::Result;

/// A decoded JSON answer: the body as sent, and a typed head.
#[derive(Debug, Clone)]
pub struct Doc<T> {
    pub body: Bytes,
    pub head: T,
    /// Where the body's top-level values are, when it was read that way.
    pub index: Option<DocIndex>,
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

/// A top-level key: its bytes in the body, or decoded when it had escapes.
#[derive(Debug, Clone, PartialEq)]
pub enum Key {
    At(usize, usize),
    Owned(String),
}

/// One top-level value: its key and the byte span of the value in the body.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub key: Key,
    pub start: usize,
    pub end: usize,
}

impl Entry {
    pub fn key<'a>(&'a self, body: &'a [u8]) -> &'a str {
        match &self.key {
            Key::At(a, b) => std::str::from_utf8(&body[*a..*b]).unwrap_or(""),
            Key::Owned(s) => s,
        }
    }

    /// Whether the key is `key` (bytes compared: lookups run per field read).
    pub fn key_is(&self, body: &[u8], key: &str) -> bool {
        self.key.is(body, key)
    }
}

impl Key {
    /// The key of the string whose quotes are at `open` and `close` in
    /// `body`: where its bytes are, or its text decoded when it has escapes
    /// (None when they do not decode, a lone surrogate).
    pub fn quoted(body: &[u8], open: usize, close: usize, escaped: bool) -> Option<Key> {
        Some(if escaped {
            Key::Owned(serde_json::from_slice::<String>(&body[open..=close]).ok()?)
        } else {
            Key::At(open + 1, close)
        })
    }

    /// Whether this key (in `body`, for `Key::At`) is `key`.
    pub fn is(&self, body: &[u8], key: &str) -> bool {
        match self {
            // Length and first byte before the bytes: most keys differ there,
            // and a slice comparison calls memcmp for every equal length.
            Key::At(a, b) => {
                let k = key.as_bytes();
                let at = &body[*a..*b];
                at.len() == k.len() && at.first() == k.first() && at == k
            }
            Key::Owned(s) => s == key,
        }
    }
}

pub type DocIndex = Vec<Entry>;

/// The member named `key` of an object indexed as `index` (of `body`): the last of duplicate
/// keys, as every reader of a body here takes it.
pub fn member<'a>(index: &'a [Entry], body: &[u8], key: &str) -> Option<&'a Entry> {
    index.iter().rev().find(|e| e.key_is(body, key))
}

/// The members of an object that is the value of a member (`hit.page`),
/// found with its parent's: `start` is where that value starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub start: usize,
    pub index: DocIndex,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_compare_by_their_bytes() {
        let body = br#"{"":1,"time":2,"tags":3}"#;
        let at = |a: usize, b: usize| Entry {
            key: Key::At(a, b),
            start: 0,
            end: 0,
        };
        let (empty, time, tags) = (at(2, 2), at(7, 11), at(16, 20));
        assert!(empty.key_is(body, "") && !empty.key_is(body, "t"));
        assert!(
            time.key_is(body, "time") && !time.key_is(body, "tags") && !time.key_is(body, "tim")
        );
        assert!(tags.key_is(body, "tags") && !tags.key_is(body, "time"));
        let owned = Entry {
            key: Key::Owned("time".into()),
            start: 0,
            end: 0,
        };
        assert!(owned.key_is(body, "time") && !owned.key_is(body, "tags"));
    }
}
