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
        match &self.key {
            Key::At(a, b) => &body[*a..*b] == key.as_bytes(),
            Key::Owned(s) => s == key,
        }
    }
}

pub type DocIndex = Vec<Entry>;
