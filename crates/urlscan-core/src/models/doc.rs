//! A decoded answer and the index of where its top-level values sit.
use bytes::Bytes;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::json::decode;
use crate::error::Result;
use crate::recycle::{self, Kept};

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

    /// The key's bytes: in `body` for `Key::At`, its decoded text otherwise.
    pub fn bytes<'a>(&'a self, body: &'a [u8]) -> &'a [u8] {
        match self {
            Key::At(a, b) => &body[*a..*b],
            Key::Owned(s) => s.as_bytes(),
        }
    }

    /// Whether this key (in `body`, for `Key::At`) is `key`.
    pub fn is(&self, body: &[u8], key: &str) -> bool {
        // Length and first byte before the bytes: most keys differ there,
        // and a slice comparison calls memcmp for every equal length.
        let (at, k) = (self.bytes(body), key.as_bytes());
        at.len() == k.len() && at.first() == k.first() && at == k
    }
}

pub type DocIndex = Vec<Entry>;

/// The member named `key` of an object indexed as `index` (of `body`): the last of duplicate
/// keys, as every reader of a body here takes it.
pub fn member<'a>(index: &'a [Entry], body: &[u8], key: &str) -> Option<&'a Entry> {
    index.iter().rev().find(|e| e.key_is(body, key))
}

/// The members of an object that is the value of a hit's member
/// (`hit.page`), found with the hit's: `start` is where that value starts,
/// its members are `from..to` of the page's part entries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PartAt {
    pub start: usize,
    from: usize,
    to: usize,
}

/// The members of each hit of a search page, and of each hit's objects
/// (`page`, `task`), in two flat lists in body order: a page's index is a
/// few allocations, read front to back, however many hits it has (a list
/// a hit and a part left a page of 10,000 hits scattered over the heap).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageIndex {
    entries: Vec<Entry>,
    part_entries: Vec<Entry>,
    parts: Vec<PartAt>,
    /// Where each hit's entries and parts end.
    ends: Vec<(usize, usize)>,
}

/// The parts of one hit (see `PageIndex::parts`).
#[derive(Debug, Clone, Copy)]
pub struct Parts<'a> {
    list: &'a [PartAt],
    entries: &'a [Entry],
}

impl<'a> Parts<'a> {
    pub const NONE: Parts<'static> = Parts {
        list: &[],
        entries: &[],
    };

    /// The members of the part whose value starts at `start`, if it is one.
    pub fn at(&self, start: usize) -> Option<&'a [Entry]> {
        let p = self.list.iter().find(|p| p.start == start)?;
        Some(&self.entries[p.from..p.to])
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Each part: where its value starts, and its members.
    pub fn iter(&self) -> impl Iterator<Item = (usize, &'a [Entry])> + 'a {
        let entries = self.entries;
        self.list
            .iter()
            .map(move |p| (p.start, &entries[p.from..p.to]))
    }
}

/// The lists of the last large page index dropped (`recycle`).
static KEPT: Kept<PageIndex> = Kept::new();

impl PageIndex {
    /// Room for about `hits` hits: the lists of the page index dropped last
    /// when they hold that many (see `recycle`).
    pub fn with_capacity(hits: usize) -> PageIndex {
        // With a quarter to spare: `hits` is a guess from the body's length,
        // and a list that outgrows its room is copied to one twice the size.
        let hits = hits + hits / 4;
        let (entries, part_entries, parts) = (hits * 16, hits * 40, hits * 4);
        let fits = |k: &PageIndex| {
            k.entries.capacity() >= entries
                && k.part_entries.capacity() >= part_entries
                && k.parts.capacity() >= parts
                && k.ends.capacity() >= hits
        };
        KEPT.take(fits).unwrap_or_else(|| PageIndex {
            entries: Vec::with_capacity(entries),
            part_entries: Vec::with_capacity(part_entries),
            parts: Vec::with_capacity(parts),
            ends: Vec::with_capacity(hits),
        })
    }

    /// The bytes of room of its lists.
    fn room(&self) -> usize {
        use std::mem::size_of;
        self.entries.capacity() * size_of::<Entry>()
            + self.part_entries.capacity() * size_of::<Entry>()
            + self.parts.capacity() * size_of::<PartAt>()
            + self.ends.capacity() * size_of::<(usize, usize)>()
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// A member of the hit being read.
    pub fn push_entry(&mut self, e: Entry) {
        self.entries.push(e);
    }

    /// Where the next part's members will start (`push_part`'s `from`).
    pub fn part_mark(&self) -> usize {
        self.part_entries.len()
    }

    /// A member of the part being read.
    pub fn push_part_entry(&mut self, e: Entry) {
        self.part_entries.push(e);
    }

    /// The part whose value starts at `start` ends: its members are those
    /// pushed since `from` (a `part_mark`).
    pub fn push_part(&mut self, start: usize, from: usize) {
        let to = self.part_entries.len();
        self.parts.push(PartAt { start, from, to });
    }

    /// The hit being read ends (with the entries and parts pushed since the last).
    pub fn end_hit(&mut self) {
        self.ends.push((self.entries.len(), self.parts.len()));
    }

    /// A hit of these members, without parts.
    pub fn push_hit(&mut self, members: impl IntoIterator<Item = Entry>) {
        self.entries.extend(members);
        self.end_hit();
    }

    fn begin(&self, i: usize) -> (usize, usize) {
        i.checked_sub(1).map_or((0, 0), |j| self.ends[j])
    }

    /// The parts of hit `i`.
    pub fn parts(&self, i: usize) -> Parts<'_> {
        let (a, b) = (self.begin(i).1, self.ends[i].1);
        Parts {
            list: &self.parts[a..b],
            entries: &self.part_entries,
        }
    }

    /// Each hit's members.
    pub fn iter(&self) -> impl Iterator<Item = &[Entry]> + '_ {
        (0..self.len()).map(|i| &self[i])
    }
}

impl Drop for PageIndex {
    fn drop(&mut self) {
        let room = self.room();
        if room < recycle::MIN {
            return;
        }
        let mut lists = std::mem::take(self);
        lists.entries.clear();
        lists.part_entries.clear();
        lists.parts.clear();
        lists.ends.clear();
        if let Some(mut other) = KEPT.keep(lists, room, PageIndex::room) {
            // Freed here: with no room left its own drop keeps nothing.
            other.entries = Vec::new();
            other.part_entries = Vec::new();
            other.parts = Vec::new();
            other.ends = Vec::new();
        }
    }
}

impl std::ops::Index<usize> for PageIndex {
    type Output = [Entry];

    /// The members of hit `i`.
    fn index(&self, i: usize) -> &[Entry] {
        &self.entries[self.begin(i).0..self.ends[i].0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page index made with room, fresh or kept from an index dropped
    /// before, starts empty and holds what is pushed to it. (Which lists
    /// come back is not asserted: other tests' indexes share the one kept.)
    #[test]
    fn an_index_fresh_or_kept_starts_empty_and_holds_its_hits() {
        let mut first = PageIndex::with_capacity(10_000);
        for _ in 0..10_000 {
            first.push_hit([Entry {
                key: Key::At(1, 2),
                start: 3,
                end: 4,
            }]);
        }
        assert_eq!(first.len(), 10_000);
        drop(first);
        let mut next = PageIndex::with_capacity(10_000);
        assert!(next.is_empty() && next.iter().next().is_none());
        assert!(next.parts.is_empty() && next.part_entries.is_empty());
        let e = Entry {
            key: Key::At(5, 6),
            start: 7,
            end: 8,
        };
        next.push_hit([e.clone()]);
        assert_eq!((next.len(), &next[0]), (1, &[e][..]));
    }

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
