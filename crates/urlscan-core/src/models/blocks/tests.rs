//! The back-ends classify alike, and containers end where serde_json says.
use proptest::prelude::*;
use serde_json::Value;

use super::*;

/// The classes by definition, a byte at a time.
fn by_definition(chunk: &[u8]) -> (Block, Run, u32) {
    let bits = |f: &dyn Fn(u8) -> bool| -> u64 {
        chunk
            .iter()
            .enumerate()
            .filter(|(_, &c)| f(c))
            .fold(0, |m, (i, _)| m | 1 << i)
    };
    let block = Block {
        quote: bits(&|c| c == b'"'),
        backslash: bits(&|c| c == b'\\'),
        open: bits(&|c| c == b'{' || c == b'['),
        close: bits(&|c| c == b'}' || c == b']'),
    };
    let stop = chunk
        .iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .unwrap_or(chunk.len());
    let run = Run {
        stop: stop as u32,
        wide: chunk[..stop].iter().any(|&c| c >= 0x80),
    };
    let spaces = chunk.iter().take_while(|&&c| c == b' ').count() as u32;
    (block, run, spaces)
}

/// Bytes a classifier could confuse: the classes, their neighbours by one
/// bit or one value, and anything else.
fn tricky() -> impl Strategy<Value = u8> {
    prop_oneof![
        prop::sample::select(
            b"\"\\{}[] \x00\x1f\x20\x7f\x80\xff;=]^|~\x02\x3b\x3d\x5c\x7b\x7d\x22".to_vec()
        ),
        any::<u8>(),
    ]
}

proptest! {
    #[test]
    fn each_back_end_classifies_by_definition(bytes in prop::collection::vec(tricky(), 64)) {
        let chunk: &[u8; 64] = bytes[..].try_into().unwrap();
        let (block_want, _, _) = by_definition(chunk);
        prop_assert_eq!(portable::block(chunk), block_want);
        prop_assert_eq!(fast::block(chunk), block_want);
        for k in 0..4 {
            let c: &[u8; 16] = chunk[16 * k..16 * k + 16].try_into().unwrap();
            let (_, run_want, spaces_want) = by_definition(c);
            prop_assert_eq!(portable::run(c), run_want);
            prop_assert_eq!(fast::run(c), run_want);
            prop_assert_eq!(portable::leading_spaces(c), spaces_want);
            prop_assert_eq!(fast::leading_spaces(c), spaces_want);
        }
    }

    #[test]
    fn runs_of_spaces_and_plain_bytes_stop_where_they_end(
        spaces in 0usize..17,
        plain in 0usize..17,
        rest in prop::collection::vec(tricky(), 32),
    ) {
        // Long runs, which random bytes seldom make.
        let mut bytes = vec![b' '; spaces];
        bytes.extend(std::iter::repeat_n(b'a', plain));
        bytes.extend(rest);
        let c: &[u8; 16] = bytes[..16].try_into().unwrap();
        let (_, run_want, spaces_want) = by_definition(c);
        prop_assert_eq!(portable::leading_spaces(c), spaces_want);
        prop_assert_eq!(fast::leading_spaces(c), spaces_want);
        prop_assert_eq!(portable::run(c), run_want);
        prop_assert_eq!(fast::run(c), run_want);
    }

    #[test]
    fn containers_end_where_serde_json_says(doc in json(), pad in 0usize..70, pretty in any::<bool>()) {
        // The container at `pad` in a body that goes on after it, ends
        // where its own text ends, by either back-end.
        let text = if pretty { serde_json::to_string_pretty(&doc).unwrap() } else { doc.to_string() };
        let body = format!("{}{text}, [\"]\", {{\"x\": \"}}\"}}]", " ".repeat(pad));
        let want = (doc.is_array() || doc.is_object()).then_some(pad + text.len());
        if want.is_some() {
            prop_assert_eq!(container_end_with(body.as_bytes(), pad, portable::block), want);
            prop_assert_eq!(container_end_with(body.as_bytes(), pad, fast::block), want);
            prop_assert_eq!(container_end(body.as_bytes(), pad), want);
        }
    }
}

fn json() -> impl Strategy<Value = Value> {
    // Strings heavy in what delimits: quotes, backslash runs, brackets.
    let text = prop::collection::vec(
        prop_oneof![
            Just('"'),
            Just('\\'),
            Just('['),
            Just(']'),
            Just('{'),
            Just('}'),
            any::<char>()
        ],
        0..80,
    )
    .prop_map(|c| c.into_iter().collect::<String>());
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<i64>().prop_map(Value::from),
        text.clone().prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::btree_map(text.clone(), inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

#[test]
fn backslash_runs_across_blocks() {
    // A string's backslashes ending exactly at a block's edge, in runs of
    // every length: an even run does not escape the quote after it.
    for run in 0..140 {
        for pad in 0..66 {
            let s = format!(
                "{}[\"{}{}\"]",
                " ".repeat(pad),
                "a".repeat(run % 7),
                "\\\\".repeat(run / 2)
            );
            let body = format!("{s} ]");
            assert_eq!(container_end(body.as_bytes(), pad), Some(s.len()), "{body}");
            let odd = format!("{}[\"{}\\\"\"]", " ".repeat(pad), "\\\\".repeat(run / 2));
            assert_eq!(container_end(odd.as_bytes(), pad), Some(odd.len()), "{odd}");
        }
    }
}

#[test]
fn unclosed_or_not_a_container() {
    assert_eq!(container_end(b"[1, [2]", 0), None);
    assert_eq!(container_end(b"[\"]\"", 0), None);
    assert_eq!(container_end(b"]", 0), None);
    assert_eq!(container_end(b"", 0), None);
    assert_eq!(container_end(b"[]", 2), None);
    assert!(!BACKEND.is_empty());
}

/// Where each container of a valid JSON text ends, a byte at a time.
fn ends_by_bytes(b: &[u8]) -> Vec<(usize, usize)> {
    let (mut out, mut open, mut in_string, mut escape) = (Vec::new(), Vec::new(), false, false);
    for (i, &c) in b.iter().enumerate() {
        if in_string {
            (in_string, escape) = (escape || c != b'"', !escape && c == b'\\');
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'{' | b'[' => open.push(i),
            b'}' | b']' => out.push((open.pop().unwrap(), i + 1)),
            _ => {}
        }
    }
    out
}

#[test]
fn the_back_ends_read_the_recorded_answers_alike() {
    // The service's own answers in `tests/data`, as sent and indented: the
    // checking scan, a search page's scan and every container's end agree
    // between this build's back-end and the portable one (and with serde_json).
    use crate::models::check::{object_members, page_members};
    use crate::models::index::object_index_by_serde;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    for path in files {
        let sent = std::fs::read(&path).unwrap();
        let value: Value = serde_json::from_slice(&sent).unwrap();
        for body in [sent, serde_json::to_vec_pretty(&value).unwrap()] {
            let read = || {
                let page = page_members(&body).map(|p| (p.top, p.hits));
                let ends: Vec<_> = ends_by_bytes(&body)
                    .iter()
                    .map(|&(a, _)| container_end(&body, a))
                    .collect();
                (object_members(&body), page, ends)
            };
            let (fast, portable) = (read(), portably(read));
            assert_eq!(fast, portable, "{path:?}");
            assert_eq!(fast.0, object_index_by_serde(&body).ok(), "{path:?}");
            let want: Vec<_> = ends_by_bytes(&body).iter().map(|&(_, z)| Some(z)).collect();
            assert_eq!(fast.2, want, "{path:?}");
        }
    }
}
