//! A checking scan of a JSON object: whether the body is one valid JSON
//! document (RFC 8259, UTF-8) that is an object, and where each of its
//! members sits, in one pass that builds nothing but that index.
//!
//! Result bodies (0.1-2 MB, mostly short strings) were checked by serde_json
//! (each value read as a `RawValue`, that is skipped over and checked, after
//! a UTF-8 pass over the whole body):
//! the largest part of the client's CPU for a result. This scan reads
//! strings and runs of spaces 16 bytes at a time (`blocks`: SSE2, NEON or
//! portable words) and checks UTF-8 only in strings with non-ASCII bytes,
//! the only place the grammar allows them: 1.2x serde_json's speed on
//! emulated results, 5% less client CPU for a `result()` loop.
//!
//! It answers yes or "ask serde_json": a body it refuses goes to serde_json,
//! whose message says what is wrong and where, and whose acceptance wins.
//! So a refusal here can cost time, never an answer; only accepting a body
//! serde_json refuses would be a defect, and the property tests look for that.

use super::blocks;
use super::doc::{DocIndex, Entry, Key, PageIndex};

/// Containers open at once (one bit each in a `u128`) beyond which the
/// scan leaves the body to serde_json, whose check has no such limit.
const MAX_DEPTH: usize = 128;

/// The members of the JSON object that is `body` (key and value span, in
/// order, duplicates kept), if `body` is valid JSON and an object; None
/// otherwise, or when the scan cannot tell (see the module docs).
pub fn object_members(b: &[u8]) -> Option<DocIndex> {
    scan::<false>(b, &mut PageIndex::default())
}

/// What a search page's scan found: the page's members, each hit's, and
/// the members of each hit's objects (`page`, `task`; spans relative to the page).
pub struct PageMembers {
    pub top: DocIndex,
    pub hits: PageIndex,
}

/// `object_members` of a search page, and in the same pass the members of
/// each element of its `results` list and of their objects. None also when
/// `results` is there twice or holds something other than objects: the
/// caller reads such a page another way.
pub fn page_members(b: &[u8]) -> Option<PageMembers> {
    // About 2 KB a hit as the service sends them: room for the page's hits.
    let mut hits = PageIndex::with_capacity(b.len() / 2048 + 1);
    let top = scan::<true>(b, &mut hits)?;
    Some(PageMembers { top, hits })
}

/// The scan; with `HITS`, the members of the objects in the top-level
/// `results` list go to `hits` as well (a hit is an object at depth 3),
/// and those of the objects that are their members' values as its parts
/// (depth 4).
fn scan<const HITS: bool>(b: &[u8], hits: &mut PageIndex) -> Option<DocIndex> {
    let mut out = DocIndex::with_capacity(16);
    let mut i = ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return (ws(b, i + 1) == b.len()).then_some(out);
    }
    // Open containers: bit d is set when the one at depth d (the outer
    // object is 0) is an object.
    let mut depth = 1usize;
    let mut objects: u128 = 1;
    // The member of the outer object being read: its key, where its value starts.
    let mut key;
    (key, i) = member_key(b, i, true)?;
    let mut start = i;
    // With HITS: a page with `results` twice is read another way (serde_json
    // checks each; this scan would read only one).
    let mut seen_results = HITS && key.is(b, "results");
    // With HITS: inside the value of `results` (a list), the hit being read,
    // and the member of it being read.
    let mut in_results = false;
    let (mut hit_key, mut hit_start) = (Key::At(0, 0), 0);
    // The part being read (its members at depth 4): where its value
    // starts, and its first member in `hits`' part entries.
    let mut part: Option<(usize, usize)> = None;
    let (mut part_key, mut part_start) = (Key::At(0, 0), 0);
    loop {
        // A value starts at `i`.
        if HITS && in_results && depth == 2 && b.get(i) != Some(&b'{') {
            return None;
        }
        match *b.get(i)? {
            b'"' => i = string_end(b, i)?.0 + 1,
            open @ (b'{' | b'[') => {
                let j = ws(b, i + 1);
                let object = open == b'{';
                if HITS && depth == 1 && !object && key.is(b, "results") {
                    in_results = true;
                }
                if b.get(j) == Some(if object { &b'}' } else { &b']' }) {
                    if HITS && in_results && depth == 2 {
                        hits.end_hit();
                    }
                    in_results &= depth > 1;
                    i = j + 1;
                } else {
                    if depth >= MAX_DEPTH {
                        return None;
                    }
                    if object {
                        objects |= 1 << depth;
                        if HITS && in_results && depth == 2 {
                            (hit_key, i) = member_key(b, j, true)?;
                            hit_start = i;
                        } else if HITS && in_results && depth == 3 {
                            part = Some((i, hits.part_mark()));
                            (part_key, i) = member_key(b, j, true)?;
                            part_start = i;
                        } else {
                            (_, i) = member_key(b, j, false)?;
                        }
                    } else {
                        objects &= !(1 << depth);
                        i = j;
                    }
                    depth += 1;
                    continue;
                }
            }
            b't' => i = literal(b, i, b"true")?,
            b'f' => i = literal(b, i, b"false")?,
            b'n' => i = literal(b, i, b"null")?,
            _ => i = number_end(b, i)?,
        }
        // A value ended at `i`: close the containers that end with it.
        loop {
            if depth == 1 {
                let key = std::mem::replace(&mut key, Key::At(0, 0));
                out.push(Entry { key, start, end: i });
            } else if HITS && in_results && depth == 3 {
                let key = std::mem::replace(&mut hit_key, Key::At(0, 0));
                hits.push_entry(Entry {
                    key,
                    start: hit_start,
                    end: i,
                });
            } else if HITS && depth == 4 && part.is_some() {
                let key = std::mem::replace(&mut part_key, Key::At(0, 0));
                hits.push_part_entry(Entry {
                    key,
                    start: part_start,
                    end: i,
                });
            }
            i = ws(b, i);
            let object = objects >> (depth - 1) & 1 == 1;
            match b.get(i) {
                Some(b',') => {
                    i = ws(b, i + 1);
                    if object {
                        let k;
                        let hit_member = HITS && in_results && depth == 3;
                        let part_member = HITS && depth == 4 && part.is_some();
                        (k, i) = member_key(b, i, depth == 1 || hit_member || part_member)?;
                        if depth == 1 {
                            if HITS && k.is(b, "results") {
                                if seen_results {
                                    return None;
                                }
                                seen_results = true;
                            }
                            (key, start) = (k, i);
                        } else if hit_member {
                            (hit_key, hit_start) = (k, i);
                        } else if part_member {
                            (part_key, part_start) = (k, i);
                        }
                    }
                    break;
                }
                Some(b'}') if object => {}
                Some(b']') if !object => {}
                _ => return None,
            }
            if HITS && in_results {
                match depth {
                    4 => {
                        if let Some((start, from)) = part.take() {
                            hits.push_part(start, from);
                        }
                    }
                    3 => hits.end_hit(),
                    2 => in_results = false,
                    _ => {}
                }
            }
            depth -= 1;
            i += 1;
            if depth == 0 {
                return (ws(b, i) == b.len()).then_some(out);
            }
        }
    }
}

/// The key of a member starting at `i`, and where its value starts (past
/// the colon). The key is decoded only when `keep` (members of the outer
/// object), and only if it has escapes.
fn member_key(b: &[u8], i: usize, keep: bool) -> Option<(Key, usize)> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let (close, escaped) = string_end(b, i)?;
    let key = Key::quoted(b, i, close, keep && escaped)?;
    let colon = ws(b, close + 1);
    (b.get(colon) == Some(&b':')).then(|| (key, ws(b, colon + 1)))
}

/// Past the JSON blanks from `i` on. Answers indented as the service
/// indents them are more than a third spaces, in runs after each newline:
/// a run is skipped 16 bytes at a time.
fn ws(b: &[u8], mut i: usize) -> usize {
    loop {
        match b.get(i) {
            Some(b' ') => i = space_run(b, i + 1),
            Some(b'\n' | b'\r' | b'\t') => i += 1,
            _ => return i,
        }
    }
}

/// The first byte from `i` on that is not a space.
fn space_run(b: &[u8], mut i: usize) -> usize {
    while let Some(chunk) = b.get(i..i + 16) {
        let Ok(chunk) = chunk.try_into() else { break };
        let n = blocks::leading_spaces(chunk);
        if n < 16 {
            return i + n as usize;
        }
        i += 16;
    }
    while b.get(i) == Some(&b' ') {
        i += 1;
    }
    i
}

fn literal(b: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    (b.get(i..i + word.len())? == word).then_some(i + word.len())
}

/// The end of the number starting at `i`: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
/// What follows it is the caller's to check (`01` is a `0` followed by a stray `1`).
fn number_end(b: &[u8], mut i: usize) -> Option<usize> {
    let digits = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match *b.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => i = digits(i + 1),
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        if !b.get(i + 1)?.is_ascii_digit() {
            return None;
        }
        i = digits(i + 1);
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !b.get(i)?.is_ascii_digit() {
            return None;
        }
        i = digits(i);
    }
    Some(i)
}

/// The closing quote of the valid string opening at `open`, and whether the
/// string has escapes.
fn string_end(b: &[u8], open: usize) -> Option<(usize, bool)> {
    let mut i = open + 1;
    let mut escaped = false;
    let mut wide = false;
    loop {
        i = plain_run(b, i, &mut wide);
        match *b.get(i)? {
            b'"' => {
                // Escapes are ASCII, so the raw span is valid UTF-8 exactly
                // when each run between them is.
                if wide {
                    std::str::from_utf8(&b[open + 1..i]).ok()?;
                }
                return Some((i, escaped));
            }
            b'\\' => {
                escaped = true;
                match *b.get(i + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                    b'u' if b.get(i + 2..i + 6)?.iter().all(u8::is_ascii_hexdigit) => i += 6,
                    _ => return None,
                }
            }
            // A control character, which must be escaped.
            _ => return None,
        }
    }
}

/// The first byte from `i` on that ends a run of plain string bytes (a
/// quote, a backslash or a control character), or the end of `b`; `wide`
/// is set if the run has a non-ASCII byte.
fn plain_run(b: &[u8], mut i: usize, wide: &mut bool) -> usize {
    while let Some(chunk) = b.get(i..i + 16) {
        let Ok(chunk) = chunk.try_into() else { break };
        let run = blocks::run(chunk);
        *wide |= run.wide;
        if run.stop < 16 {
            return i + run.stop as usize;
        }
        i += 16;
    }
    plain_tail(b, i, wide)
}

/// `plain_run` a byte at a time (the last few bytes of a body).
fn plain_tail(b: &[u8], mut i: usize, wide: &mut bool) -> usize {
    while let Some(&c) = b.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            break;
        }
        *wide |= c >= 0x80;
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::index::object_index_by_serde;

    /// Accepted here exactly when serde_json accepts, with the same index.
    fn agrees(body: &[u8]) -> bool {
        let fast = object_members(body);
        let slow = object_index_by_serde(body).ok();
        assert_eq!(fast, slow, "{}", String::from_utf8_lossy(body));
        fast.is_some()
    }

    #[test]
    fn valid_objects_are_indexed_as_serde_json_indexes_them() {
        for body in [
            r#"{}"#,
            " { } \n",
            r#"{"a":1}"#,
            r#"{"a": [1, {"b": "}"}], "c": "x\"}", "d" : -1.5e3 ,"e":true,"f":null}"#,
            r#"{"k\u00e9\"":{"x":[[],{}]},"a":"\\","a":2}"#,
            "{\n\t\"caf\u{e9}\": \"\u{e9}\\n\",\r\n\"n\": [ 1 , 2 ]\n}",
            r#"{"n":[0,-0,1.0e+2,1E-2,-12.5,10,0.0]}"#,
            r#"{"s":"\ud83d\ude00 \/\b\f\n\r\t \u00AF","lone":"\udc00"}"#,
            "{\"\u{10ffff}\u{800}\u{7ff}\":\"\u{1f600}\"}",
            r#"{"a":{"b":{"c":[[[{"d":[]}]]]}},"e":[{},[],"",0]}"#,
        ] {
            assert!(agrees(body.as_bytes()), "{body}");
        }
    }

    #[test]
    fn invalid_documents_are_left_to_serde_json() {
        for body in crate::models::NOT_OBJECTS {
            assert!(!agrees(body), "{}", String::from_utf8_lossy(body));
        }
        for body in [
            &b"{\"a\"}"[..],
            b"{\"a\":}",
            b"{\"a\" 1}",
            b"{\"a\":1,}",
            b"{\"a\":[1,]}",
            b"{\"a\":[1 2]}",
            b"{\"a\":1 \"b\":2}",
            b"{,}",
            b"{\"a\":[}",
            b"{\"a\":{]}",
            b"{\"a\":1}}",
            b"{\"a\":1} x",
            b"{\"a\":1}{}",
            b"{a:1}",
            b"{'a':1}",
            b"{\"a\":01}",
            b"{\"a\":-}",
            b"{\"a\":+1}",
            b"{\"a\":.5}",
            b"{\"a\":1.}",
            b"{\"a\":1.e5}",
            b"{\"a\":1e}",
            b"{\"a\":1e+}",
            b"{\"a\":0x1}",
            b"{\"a\":NaN}",
            b"{\"a\":Infinity}",
            b"{\"a\":tru}",
            b"{\"a\":nul}",
            b"{\"a\":True}",
            b"{\"a\":\"x}",
            b"{\"a\":\"\\x\"}",
            b"{\"a\":\"\\u12G4\"}",
            b"{\"a\":\"\\u12\"}",
            b"{\"a\":\"tab\there\"}",
            b"{\"a\":\"nl\nhere\"}",
            b"{\"a\":\"\x00\"}",
            b"{\"a\":\"\x1f\"}",
            b"{\"a\":1}\x00",
            b"{\"a\":\"\xff\"}",
            b"{\"a\":\"\x80\"}",
            b"{\"a\":\"\xc0\x80\"}",
            b"{\"a\":\"\xed\xa0\x80\"}",
            b"{\"a\":\"\xf5\x80\x80\x80\"}",
            b"{\"a\":\"\xe2\x82\"}",
            b"{\"\xe9\":1}",
            b"{\"a\":1,\xe9}",
            b"\xef\xbb\xbf{}",
            b"{\"a\":1 /* c */}",
            b"{\"a\":[1]// c\n}",
        ] {
            assert!(!agrees(body), "{}", String::from_utf8_lossy(body));
        }
        // A key with a lone surrogate escape: serde_json cannot decode it.
        assert!(!agrees(br#"{"\ud800":1}"#));
    }

    #[test]
    fn each_stop_byte_is_found_at_each_offset_of_a_chunk() {
        // Quotes, backslashes, control and non-ASCII bytes at every place of
        // the 16-byte reads.
        for n in 0..40 {
            let pad = "x".repeat(n);
            for (body, ok) in [
                (format!(r#"{{"{pad}":"{pad}\"{pad}"}}"#), true),
                (format!(r#"{{"a":"{pad}\\{pad}"}}"#), true),
                (format!("{{\"a\":\"{pad}\u{e9}{pad}\"}}"), true),
                (
                    format!("{{\"a\":\"{pad}\u{e9}\",\"{pad}\":\"{pad}\"}}"),
                    true,
                ),
                (format!("{{\"a\":\"{pad}\n{pad}\"}}"), false),
                (format!("{{\"a\":\"{pad}\u{7f}{pad}\"}}"), true),
            ] {
                assert_eq!(agrees(body.as_bytes()), ok, "{body}");
            }
            let mut bad = format!(r#"{{"a":"{pad}xx{pad}"}}"#).into_bytes();
            bad[6 + n] = 0xff;
            assert!(!agrees(&bad));
        }
    }

    #[test]
    fn deep_documents_are_left_to_serde_json() {
        let nested = |n: usize| format!("{{\"a\":{}1{}}}", "[".repeat(n), "]".repeat(n));
        // 128 containers open at once (the outer object and 127 lists).
        assert!(agrees(nested(127).as_bytes()));
        // Deeper, the answer is serde_json's.
        for n in [128, 400] {
            assert_eq!(object_members(nested(n).as_bytes()), None, "{n}");
            let index = crate::models::index::object_index(nested(n).as_bytes()).unwrap();
            assert_eq!(index.len(), 1);
        }
    }
}
