//! One-pass indexes of JSON objects: where each top-level value sits in the
//! body, without building it. Search pages are read this way once, for both
//! the cursor (ids, sort values) and the bindings (lazy documents).
use std::borrow::Cow;

use bytes::Bytes;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::doc::Doc;
pub use super::doc::{DocIndex, Entry, Key, PageIndex, Parts};
use super::json::{decode, decode_error, lenient_value_u64, wrong};
use super::scanning::{ResultHead, TaskHead};
use super::search::{SearchHitHead, SearchPageHead};

use crate::error::{Error, Result};

fn text(body: &[u8]) -> Result<&str> {
    std::str::from_utf8(body).map_err(|e| Error::Decode(format!("invalid JSON document: {e}")))
}

/// The index of the JSON object that is `body`, which is checked to be
/// valid JSON.
pub fn object_index(body: &[u8]) -> Result<DocIndex> {
    if let Some(index) = super::check::object_members(body) {
        return Ok(index);
    }
    // serde_json says what is wrong (or indexes a body the scan left to it).
    object_index_by_serde(body)
}

/// `object_index` by serde_json alone.
pub fn object_index_by_serde(body: &[u8]) -> Result<DocIndex> {
    let t = text(body)?;
    let entries = serde_json::from_str::<Entries<'_>>(t)
        .map_err(|e| Error::Decode(format!("invalid JSON document: {e}")))?;
    Ok(entries.index(t.as_ptr() as usize))
}

/// The index of a JSON object inside a body already parsed (so known to be
/// valid JSON): a scan of its structure only, without checking it again,
/// several times cheaper than `object_index` on the small objects a field
/// read opens (`hit.page`, `result.verdicts`). Keys with escapes are
/// decoded. None when the bytes are not an object after all.
pub fn parsed_object_index(body: &[u8]) -> Option<DocIndex> {
    // Room for the members of a typical part (`page`, `task`): no regrowth.
    let mut out = DocIndex::with_capacity(24);
    scan_members(body, |key, start, end| {
        out.push(Entry { key, start, end });
        Some(())
    })?;
    Some(out)
}

/// `parsed_object_index` into `out` (cleared first), so a caller that reads
/// many objects reuses one buffer. None (and `out` partly filled) when the
/// bytes are not an object after all.
pub fn parsed_object_index_into(body: &[u8], out: &mut DocIndex) -> Option<()> {
    out.clear();
    scan_members(body, |key, start, end| {
        out.push(Entry { key, start, end });
        Some(())
    })
}

/// The span of the value of `key` in a JSON object inside a body already
/// parsed, as `parsed_object_index` would give it (the last of duplicate
/// keys), without building the index: `Some(None)` when absent, None when
/// the bytes are not an object after all.
pub fn parsed_member(body: &[u8], key: &str) -> Option<Option<(usize, usize)>> {
    let mut found = None;
    scan_members(body, last_of(body, key, &mut found))?;
    Some(found)
}

/// A `scan_members` callback that keeps in `found` the span of the member
/// `key` (the last of duplicate keys).
fn last_of<'a>(
    body: &'a [u8],
    key: &'a str,
    found: &'a mut Option<(usize, usize)>,
) -> impl FnMut(Key, usize, usize) -> Option<()> + 'a {
    move |k, start, end| {
        if k.is(body, key) {
            *found = Some((start, end));
        }
        Some(())
    }
}

/// Each member of the JSON object that is `body` (known to be valid JSON):
/// its key and the span of its value, in order. None when the bytes are not
/// an object after all, or when `member` gives None.
fn scan_members(body: &[u8], member: impl FnMut(Key, usize, usize) -> Option<()>) -> Option<()> {
    let end = scan_object_at(body, blank_end(body, 0), member)?;
    (blank_end(body, end) == body.len()).then_some(())
}

/// `scan_members` of the object that opens at `i` in `body`; where it ends
/// (past its `}`).
fn scan_object_at(
    body: &[u8],
    mut i: usize,
    mut member: impl FnMut(Key, usize, usize) -> Option<()>,
) -> Option<usize> {
    let ws = |i: usize| blank_end(body, i);
    if body.get(i) != Some(&b'{') {
        return None;
    }
    i = ws(i + 1);
    if body.get(i) == Some(&b'}') {
        return Some(i + 1);
    }
    loop {
        if body.get(i) != Some(&b'"') {
            return None;
        }
        let (close, escaped) = string_end(body, i)?;
        let key = Key::quoted(body, i, close, escaped)?;
        i = ws(close + 1);
        if body.get(i) != Some(&b':') {
            return None;
        }
        let start = ws(i + 1);
        let end = value_end(body, start)?;
        member(key, start, end)?;
        i = ws(end);
        match body.get(i) {
            Some(b',') => i = ws(i + 1),
            Some(b'}') => return Some(i + 1),
            _ => return None,
        }
    }
}

/// Where the JSON blanks (space, tab, newline, return) starting at `i` end.
/// Answers indented as the service indents them hold long runs of spaces:
/// those are skipped eight at a time.
pub(crate) fn blank_end(body: &[u8], mut i: usize) -> usize {
    const SPACES: u64 = 0x2020_2020_2020_2020;
    loop {
        match body.get(i) {
            Some(b' ') => {
                i += 1;
                while let Some(word) = body.get(i..i + 8) {
                    if u64::from_le_bytes(word.try_into().unwrap_or_default()) != SPACES {
                        break;
                    }
                    i += 8;
                }
            }
            Some(b'\n' | b'\r' | b'\t') => i += 1,
            _ => return i,
        }
    }
}

/// The closing quote of the string opening at `open`, and whether it has escapes.
fn string_end(body: &[u8], open: usize) -> Option<(usize, bool)> {
    let mut escaped = false;
    let mut i = open + 1;
    loop {
        // Eight bytes at a time up to the next quote or backslash: most bytes
        // of a part are in its strings (1.45x faster on the `page` and `task`
        // parts of search hits than a byte at a time).
        while let Some(word) = body.get(i..i + 8) {
            let stop = quote_or_backslash(u64::from_le_bytes(word.try_into().ok()?));
            if stop != 0 {
                i += stop.trailing_zeros() as usize / 8;
                break;
            }
            i += 8;
        }
        match body.get(i)? {
            b'"' => return Some((i, escaped)),
            b'\\' => {
                escaped = true;
                i += 2;
            }
            _ => i += 1,
        }
    }
}

/// The high bit of each byte of `word` that is a quote or a backslash. A
/// flag above the lowest may be spurious (a borrow); the lowest is exact.
fn quote_or_backslash(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & (ONES << 7);
    zero(word ^ (ONES * u64::from(b'"'))) | zero(word ^ (ONES * u64::from(b'\\')))
}

/// Where the value starting at `start` ends (exclusive).
fn value_end(body: &[u8], start: usize) -> Option<usize> {
    match body.get(start)? {
        b'"' => string_end(body, start).map(|(close, _)| close + 1),
        b'{' | b'[' => super::blocks::container_end(body, start),
        _ => {
            let len = body[start..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace())
                .unwrap_or(body.len() - start);
            (len > 0).then_some(start + len)
        }
    }
}

/// Where each element of a JSON array inside a body already parsed (so
/// known to be valid JSON) sits: a scan of its structure, as
/// `parsed_object_index` does for objects. None when the bytes are not an
/// array after all.
pub fn parsed_array_spans(body: &[u8]) -> Option<Vec<(usize, usize)>> {
    let mut out = Vec::new();
    scan_array(body, None, |span, _| out.push(span))?;
    Some(out)
}

/// An element's span, and the span of one of its members (see `parsed_array_members`).
pub type ElementMember = ((usize, usize), Option<Option<(usize, usize)>>);

/// The member `key` of each element of a JSON array inside a body already
/// parsed, found in the same pass as the elements (each element's bytes
/// crossed once): the element's span, and the member's span relative to
/// the element as `parsed_member` gives it (`Some(None)` absent, None for
/// an element that is no object). None when the bytes are not an array
/// after all.
pub fn parsed_array_members(body: &[u8], key: &str) -> Option<Vec<ElementMember>> {
    let mut out = Vec::new();
    scan_array(body, Some(key), |span, member| out.push((span, member)))?;
    Some(out)
}

/// Each element of the array that is `body`, with its member `key` when
/// asked for (see `parsed_array_members`).
fn scan_array(
    body: &[u8],
    key: Option<&str>,
    mut each: impl FnMut((usize, usize), Option<Option<(usize, usize)>>),
) -> Option<()> {
    let ws = |i: usize| blank_end(body, i);
    let mut i = ws(0);
    if body.get(i) != Some(&b'[') {
        return None;
    }
    i = ws(i + 1);
    if body.get(i) == Some(&b']') {
        return (ws(i + 1) == body.len()).then_some(());
    }
    loop {
        let (end, member) = match key {
            Some(key) if body.get(i) == Some(&b'{') => {
                let mut found = None;
                let end = scan_object_at(body, i, last_of(body, key, &mut found))?;
                (end, Some(found.map(|(a, b)| (a - i, b - i))))
            }
            _ => (value_end(body, i)?, None),
        };
        each((i, end), member);
        i = ws(end);
        match body.get(i) {
            Some(b',') => i = ws(i + 1),
            Some(b']') => return (ws(i + 1) == body.len()).then_some(()),
            _ => return None,
        }
    }
}

/// Where each element of the JSON array that is `body` sits.
pub fn array_spans(body: &[u8]) -> Result<Vec<(usize, usize)>> {
    let t = text(body)?;
    let items = serde_json::from_str::<Vec<&RawValue>>(t)
        .map_err(|e| Error::Decode(format!("invalid JSON document: {e}")))?;
    let origin = t.as_ptr() as usize;
    Ok(items
        .iter()
        .map(|v| {
            let start = v.get().as_ptr() as usize - origin;
            (start, start + v.get().len())
        })
        .collect())
}

/// A search page: the cursor's head and each hit's index.
pub fn search_page(body: Bytes) -> Result<Doc<SearchPageHead>> {
    if let Some(head) = search_page_scanned(&body) {
        return Ok(Doc {
            body,
            head,
            index: None,
        });
    }
    search_page_by_serde(body)
}

/// `search_page` by the checking scan (`check`), for a page as the service
/// sends it: the body checked whole in one pass, then the hits' members
/// found by structure alone. None for anything else (a wrong type, an
/// escaped key that does not decode, a body the scan leaves to serde_json),
/// which serde_json reads and names.
fn search_page_scanned(body: &[u8]) -> Option<SearchPageHead> {
    let super::check::PageMembers {
        top,
        hits: page_hits,
    } = super::check::page_members(body)?;
    let member = |k: &str| top.iter().rev().find(|e| e.key.is(body, k));
    let scalar = |k: &str| -> Option<Option<Value>> {
        match member(k) {
            None => Some(None),
            Some(e) => serde_json::from_slice::<Value>(&body[e.start..e.end])
                .ok()
                .map(Some),
        }
    };
    let (total, took, has_more) =
        page_counts(scalar("total")?, scalar("took")?, scalar("has_more")?).ok()?;
    let (mut results, mut hits) = (Vec::new(), PageIndex::default());
    let listed = match member("results") {
        Some(e) if body[e.start] == b'[' => {
            hits = page_hits;
            results = hits
                .iter()
                .map(|index| hit_head(body, index))
                .collect::<Option<Vec<_>>>()?;
            true
        }
        _ => false,
    };
    // `search_page_by_serde` names the fault.
    if !listed && announced(total, has_more).is_some() {
        return None;
    }
    let empty = |v: &[u8]| v == b"null" || parsed_object_index(v).is_some_and(|i| i.is_empty());
    if member("results").is_some_and(|e| !listed && !empty(&body[e.start..e.end])) {
        return None;
    }
    Some(SearchPageHead {
        results,
        total,
        has_more,
        took,
        hits,
    })
}

/// A hit's id and sort values, as `Entries::head` reads them; None for a wrong type.
fn hit_head(body: &[u8], index: &[Entry]) -> Option<SearchHitHead> {
    let get = |k: &str| {
        index
            .iter()
            .rev()
            .find(|e| e.key.is(body, k))
            .map(|e| &body[e.start..e.end])
    };
    let id = match get("_id") {
        None | Some(b"null") => None,
        Some(v) if v.first() == Some(&b'"') => Some(serde_json::from_slice::<String>(v).ok()?),
        Some(_) => return None,
    };
    let sort = match get("sort") {
        None | Some(b"null") => Vec::new(),
        Some(v) if v.first() == Some(&b'[') => serde_json::from_slice::<Vec<Value>>(v).ok()?,
        Some(v) if v.first() == Some(&b'{') && parsed_object_index(v)?.is_empty() => Vec::new(),
        Some(_) => return None,
    };
    Some(SearchHitHead { id, sort })
}

/// A page's `total` and `took` (counts, read leniently) and `has_more` (a
/// boolean or null), as both readings of a page take them; an error names
/// the member.
fn page_counts(
    total: Option<Value>,
    took: Option<Value>,
    has_more: Option<Value>,
) -> Result<(Option<u64>, Option<u64>, Option<bool>)> {
    let count = |k: &str, v: Option<Value>| match v {
        None => Ok(None),
        Some(v) => lenient_value_u64(&v).map_err(|m| Error::Decode(format!("{k}: {m}"))),
    };
    let total = count("total", total)?;
    let has_more = match has_more {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(b),
        Some(other) => {
            return Err(Error::Decode(format!(
                "has_more: {}",
                wrong("a boolean", &other)
            )))
        }
    };
    Ok((total, count("took", took)?, has_more))
}

/// What announces hits on a page (`total` above 0, `has_more` true), if
/// anything does: a page without its `results` list is read as empty only
/// where nothing does, or hits would be lost without a word.
fn announced(total: Option<u64>, has_more: Option<bool>) -> Option<String> {
    match total {
        Some(t) if t > 0 => Some(format!("total says {t}")),
        _ => (has_more == Some(true)).then(|| "has_more says true".into()),
    }
}

/// `search_page` by serde_json, in one pass.
pub fn search_page_by_serde(body: Bytes) -> Result<Doc<SearchPageHead>> {
    let t = text(&body)?;
    let mut de = serde_json::Deserializer::from_str(t);
    let page = de
        .deserialize_map(PageVisitor)
        .and_then(|p| de.end().map(|()| p))
        .map_err(|e| decode_error(e, "search page", "", &body))?;
    let origin = t.as_ptr() as usize;
    let mut results = Vec::with_capacity(page.hits.len());
    let mut hits = PageIndex::default();
    for (i, e) in page.hits.into_iter().enumerate() {
        results.push(e.head(i)?);
        hits.push_hit(e.index(origin));
    }
    let (total, took, has_more) = page_counts(page.total, page.took, page.has_more)?;
    let head = SearchPageHead {
        results,
        total,
        has_more,
        took,
        hits,
    };
    if let Some(announced) = announced(total, has_more).filter(|_| !page.listed) {
        return Err(Error::Decode(format!(
            "search page: results is missing or not a list while {announced}"
        )));
    }
    Ok(Doc {
        body,
        head,
        index: None,
    })
}

/// A result document in one pass: the index of its parts, and the head
/// (`task`) read from its own part only.
pub fn result_doc(body: Bytes) -> Result<Doc<ResultHead>> {
    let index = object_index(&body)?;
    let task = super::doc::member(&index, &body, "task")
        .map(|e| decode::<Option<TaskHead>>(&body[e.start..e.end], "scan result task"))
        .transpose()?
        .flatten();
    Ok(Doc {
        head: ResultHead { task },
        body,
        index: Some(index),
    })
}

/// The entries of one object, values unparsed.
struct Entries<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl Entries<'_> {
    fn index(self, origin: usize) -> DocIndex {
        self.0
            .into_iter()
            .map(|(k, v)| {
                let key = match k {
                    Cow::Borrowed(s) => {
                        let a = s.as_ptr() as usize - origin;
                        Key::At(a, a + s.len())
                    }
                    Cow::Owned(s) => Key::Owned(s),
                };
                let start = v.get().as_ptr() as usize - origin;
                Entry {
                    key,
                    start,
                    end: start + v.get().len(),
                }
            })
            .collect()
    }

    /// The id and sort values a cursor needs, of hit `i` of a page: null
    /// or missing reads as none, `{}` as no sort values; another type is an error.
    fn head(&self, i: usize) -> Result<SearchHitHead> {
        let get = |k: &str| {
            self.0
                .iter()
                .rev()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.get())
        };
        let value = |k: &str| -> Result<Value> {
            match get(k) {
                Some(r) => serde_json::from_str::<Value>(r)
                    .map_err(|e| Error::Decode(format!("results[{i}].{k}: {e}"))),
                None => Ok(Value::Null),
            }
        };
        let bad = |k: &str, what: &str, v: &Value| {
            Error::Decode(format!("results[{i}].{k}: {}", wrong(what, v)))
        };
        let id = match value("_id")? {
            Value::Null => None,
            Value::String(s) => Some(s),
            other => return Err(bad("_id", "a string", &other)),
        };
        let sort = match value("sort")? {
            Value::Null => Vec::new(),
            Value::Array(a) => a,
            Value::Object(o) if o.is_empty() => Vec::new(),
            other => return Err(bad("sort", "a list", &other)),
        };
        Ok(SearchHitHead { id, sort })
    }
}

impl<'de> Deserialize<'de> for Entries<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        // Only an object reaches the visitor: serde refuses the rest by `expecting`.
        d.deserialize_map(EntriesVisitor(None))
    }
}

/// A key, borrowed when it has no escapes.
struct KeyStr<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for KeyStr<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = KeyStr<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> std::result::Result<KeyStr<'de>, E> {
                Ok(KeyStr(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> std::result::Result<KeyStr<'de>, E> {
                Ok(KeyStr(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(V)
    }
}

struct RawPage<'a> {
    hits: Vec<Entries<'a>>,
    /// `results` was a list.
    listed: bool,
    total: Option<Value>,
    has_more: Option<Value>,
    took: Option<Value>,
}

struct PageVisitor;

impl<'de> Visitor<'de> for PageVisitor {
    type Value = RawPage<'de>;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> std::result::Result<RawPage<'de>, M::Error> {
        let mut page = RawPage {
            hits: Vec::new(),
            listed: false,
            total: None,
            has_more: None,
            took: None,
        };
        while let Some(k) = m.next_key::<KeyStr<'de>>()? {
            match k.0.as_ref() {
                "results" => {
                    let Hits(hits, listed) = m.next_value::<Hits<'de>>()?;
                    (page.hits, page.listed) = (hits, listed);
                }
                "total" => page.total = m.next_value()?,
                "has_more" => page.has_more = m.next_value()?,
                "took" => page.took = m.next_value()?,
                _ => {
                    m.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(page)
    }
}

/// A visitor's methods for the JSON scalars, each refused with its
/// `self.wrong(value)` (the value as JSON, for the message).
macro_rules! refuse_scalars {
    ($out:ty) => {
        refuse_scalars!($out; visit_bool: bool, visit_u64: u64, visit_i64: i64, visit_f64: f64, visit_str: &str);
    };
    ($out:ty; $($visit:ident: $t:ty),*) => {
        $(
            fn $visit<E: serde::de::Error>(self, v: $t) -> std::result::Result<$out, E> {
                Err(self.wrong(v.into()))
            }
        )*
    };
}

/// The hits of a page: a list of objects; `{}`, null or a missing list reads
/// as empty, another value (or an element that is not an object) is an error
/// naming its path.
/// The hits, and whether `results` was a list (not `null` or `{}`).
struct Hits<'a>(Vec<Entries<'a>>, bool);

/// "results: expected a list, found ..." (serde errors carry text only).
fn wrong_at<E: serde::de::Error>(path: &str, what: &str, v: Value) -> E {
    E::custom(format!("{path}: {}", wrong(what, &v)))
}

impl<'de> Deserialize<'de> for Hits<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl V {
            fn wrong<E: serde::de::Error>(&self, v: Value) -> E {
                wrong_at("results", "a list", v)
            }
        }
        impl<'de> Visitor<'de> for V {
            type Value = Hits<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a list of JSON objects")
            }
            fn visit_seq<S: SeqAccess<'de>>(
                self,
                mut s: S,
            ) -> std::result::Result<Hits<'de>, S::Error> {
                let mut out = Vec::with_capacity(s.size_hint().unwrap_or(100));
                while let Some(e) = s.next_element_seed(Hit(out.len()))? {
                    out.push(e);
                }
                Ok(Hits(out, true))
            }
            fn visit_map<M: MapAccess<'de>>(
                self,
                m: M,
            ) -> std::result::Result<Hits<'de>, M::Error> {
                let v = Value::deserialize(serde::de::value::MapAccessDeserializer::new(m))?;
                match &v {
                    Value::Object(o) if o.is_empty() => Ok(Hits(Vec::new(), false)),
                    _ => Err(self.wrong(v)),
                }
            }
            fn visit_unit<E>(self) -> std::result::Result<Hits<'de>, E> {
                Ok(Hits(Vec::new(), false))
            }
            refuse_scalars!(Hits<'de>);
        }
        d.deserialize_any(V)
    }
}

/// Hit `i` of a page: an object, indexed without building its values.
struct Hit(usize);

impl<'de> serde::de::DeserializeSeed<'de> for Hit {
    type Value = Entries<'de>;
    fn deserialize<D: Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Entries<'de>, D::Error> {
        d.deserialize_any(EntriesVisitor(Some(self.0)))
    }
}

/// The entries of an object: of hit `i` of a page (`Some(i)`), whose other
/// values are refused naming its path, or of a whole document (`None`).
struct EntriesVisitor(Option<usize>);

impl EntriesVisitor {
    fn wrong<E: serde::de::Error>(&self, v: Value) -> E {
        let path = match self.0 {
            Some(i) => format!("results[{i}]"),
            None => "document".to_string(),
        };
        wrong_at(&path, "an object", v)
    }
}

impl<'de> Visitor<'de> for EntriesVisitor {
    type Value = Entries<'de>;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> std::result::Result<Entries<'de>, M::Error> {
        let mut out = Vec::with_capacity(12);
        while let Some(k) = m.next_key::<KeyStr<'de>>()? {
            out.push((k.0, m.next_value::<&'de RawValue>()?));
        }
        Ok(Entries(out))
    }
    fn visit_seq<S: SeqAccess<'de>>(self, s: S) -> std::result::Result<Entries<'de>, S::Error> {
        let v = Value::deserialize(serde::de::value::SeqAccessDeserializer::new(s))?;
        Err(self.wrong(v))
    }
    fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Entries<'de>, E> {
        Err(self.wrong(Value::Null))
    }
    refuse_scalars!(Entries<'de>);
}

#[cfg(test)]
#[path = "index_tests.rs"]
mod tests;
