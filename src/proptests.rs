//! Property tests: arbitrary bytes and arbitrary JSON never make the response
//! decoders or the emulator's query parser panic, and the structural index of
//! field reads agrees with the parser.
use proptest::prelude::*;
use serde_json::Value;

use urlscan_core::models::{decode, AnyObject, ResultHead, SearchPageHead, Submission};
use urlscan_core::transport::{api_error, Req, Resp};
use urlscan_emulator::query::Query;

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::hash_map(
                prop_oneof![
                    Just("results".to_string()),
                    Just("total".to_string()),
                    Just("has_more".to_string()),
                    Just("sort".to_string()),
                    Just("_id".to_string()),
                    Just("task".to_string()),
                    Just("uuid".to_string()),
                    "[a-z]{1,6}"
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Bytes that matter to JSON's grammar, for the edits of the checking scan's test.
const EDIT_BYTES: &[u8] = &[
    b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b' ', b'0', b'1', b'-', b'+', b'.', b'e',
    b'u', b'n', b't', b'/', 0x00, 0x1f, 0x7f, 0x80, 0xbf, 0xc3, 0xe9, 0xed, 0xf0, 0xff,
];

/// `body` with each edit made: (where, 0 insert / 1 replace / 2 remove, the byte).
fn edited(mut body: Vec<u8>, edits: Vec<(prop::sample::Index, u8, u8)>) -> Vec<u8> {
    for (at, how, byte) in edits {
        let i = at.index(body.len() + 1);
        match how {
            0 => body.insert(i, byte),
            1 if i < body.len() => body[i] = byte,
            _ if i < body.len() => {
                body.remove(i);
            }
            _ => {}
        }
    }
    body
}

fn decode_all(body: &[u8]) {
    let _ = decode::<SearchPageHead>(body, "search");
    let _ = decode::<ResultHead>(body, "result");
    let _ = decode::<Submission>(body, "scan");
    let _ = decode::<AnyObject>(body, "object");
    for status in [400u16, 404, 429, 503] {
        let resp = Resp {
            status,
            headers: Default::default(),
            body: bytes::Bytes::copy_from_slice(body),
        };
        let _ = api_error(&Req::get("/api/v1/scan/"), &resp);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn decoders_survive_arbitrary_bytes(body in prop::collection::vec(any::<u8>(), 0..400)) {
        decode_all(&body);
    }

    #[test]
    fn a_list_and_a_member_of_each_element_are_found_in_one_pass(
        items in prop::collection::vec(json(), 0..6),
        pretty in any::<bool>(),
        key in prop::sample::select(vec!["task", "sort", "x"]),
    ) {
        // As the elements' spans, then each object element's member, are.
        use urlscan_core::models::index::{parsed_array_members, parsed_array_spans, parsed_member};
        let doc = Value::Array(items);
        let text = if pretty { serde_json::to_string_pretty(&doc).unwrap() } else { doc.to_string() };
        let b = text.as_bytes();
        let spans = parsed_array_spans(b).unwrap();
        let want: Vec<_> = spans
            .iter()
            .map(|&(x, y)| ((x, y), (b[x] == b'{').then(|| parsed_member(&b[x..y], key)).flatten()))
            .collect();
        prop_assert_eq!(parsed_array_members(b, key), Some(want));
    }

    #[test]
    fn a_parsed_object_is_indexed_as_a_parse_would(doc in json(), pretty in any::<bool>()) {
        // The structural scan of field reads agrees with the full parse.
        let text = if pretty { serde_json::to_string_pretty(&doc).unwrap() } else { doc.to_string() };
        let scanned = urlscan_core::models::index::parsed_object_index(text.as_bytes());
        match urlscan_core::models::index::object_index(text.as_bytes()) {
            Ok(parsed) => {
                // A lookup of one key without the index finds what the index would.
                for e in &parsed {
                    let key = e.key(text.as_bytes());
                    let last = parsed.iter().rposition(|x| x.key(text.as_bytes()) == key).unwrap();
                    let found = urlscan_core::models::index::parsed_member(text.as_bytes(), key);
                    prop_assert_eq!(found, Some(Some((parsed[last].start, parsed[last].end))));
                }
                prop_assert_eq!(scanned, Some(parsed));
            }
            Err(_) => prop_assert!(!doc.is_object() && scanned.is_none()),
        }
    }

    #[test]
    fn the_checking_scan_agrees_with_serde_json(
        doc in json(),
        long in "[ -~\u{80}-\u{10ffff}]{0,48}",
        pretty in any::<bool>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, prop::sample::select(EDIT_BYTES)), 0..4),
    ) {
        // On valid JSON and on JSON with a few bytes changed, inserted or
        // removed: the scan accepts exactly what serde_json accepts, with the
        // same index. The document is an object with a string long enough to
        // cross the scan's 16-byte reads, often with non-ASCII text.
        let doc = serde_json::json!({"doc": doc, &long: long, "after": [1, "x"]});
        let text = if pretty { serde_json::to_string_pretty(&doc).unwrap() } else { doc.to_string() };
        let body = edited(text.into_bytes(), edits);
        let fast = urlscan_core::models::check::object_members(&body);
        let slow = urlscan_core::models::index::object_index_by_serde(&body).ok();
        prop_assert_eq!(fast, slow, "{}", String::from_utf8_lossy(&body));
    }

    #[test]
    fn a_scanned_search_page_agrees_with_serde_json(
        hits in prop::collection::vec(json(), 0..5),
        extra in json(),
        total in json(),
        total_count in any::<bool>(),
        pretty in any::<bool>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, prop::sample::select(EDIT_BYTES)), 0..3),
    ) {
        // Hits of any shape (mostly objects with an id and sort values), any
        // total, a few bytes changed: the page reads as serde_json reads it,
        // or fails with serde_json's message.
        let hits: Vec<serde_json::Value> = hits
            .into_iter()
            .enumerate()
            .map(|(i, h)| match i % 4 {
                0 => serde_json::json!({"_id": format!("u{i}"), "sort": [i, format!("u{i}")], "page": h}),
                1 => serde_json::json!({"_id": h, "sort": [i]}),
                2 => serde_json::json!({"k\u{e9}y": h, "_id": null, "sort": {}}),
                _ => h,
            })
            .collect();
        let total = if total_count { serde_json::json!(hits.len()) } else { total };
        let page = serde_json::json!({"results": hits, "total": total, "has_more": false, "x": extra});
        let text = if pretty { serde_json::to_string_pretty(&page).unwrap() } else { page.to_string() };
        let body = edited(text.into_bytes(), edits);
        let body = bytes::Bytes::from(body);
        let show = |d: &urlscan_core::Result<urlscan_core::models::doc::Doc<SearchPageHead>>| match d {
            Ok(d) => format!(
                "{:?} {:?} {:?} {:?} {:?}",
                d.head.results.iter().map(|r| (&r.id, &r.sort)).collect::<Vec<_>>(),
                d.head.total, d.head.has_more, d.head.took, d.head.hits.iter().collect::<Vec<_>>()
            ),
            Err(e) => e.to_string(),
        };
        let fast = urlscan_core::models::index::search_page(body.clone());
        let slow = urlscan_core::models::index::search_page_by_serde(body.clone());
        prop_assert_eq!(show(&fast), show(&slow), "{}", String::from_utf8_lossy(&body));
        // The members of each hit's objects, when found with it, are those a scan of the object finds.
        if let Ok(d) = &fast {
            for (i, hit) in d.head.hits.iter().enumerate() {
                let parts: Vec<_> = d.head.hits.parts(i).iter().collect();
                let objects: Vec<_> = hit
                    .iter()
                    .filter(|e| body[e.start] == b'{' && body[e.start + 1..e.end].iter().any(|c| !c.is_ascii_whitespace() && *c != b'}'))
                    .collect();
                prop_assert_eq!(objects.len(), parts.len());
                for (e, (start, part)) in objects.iter().zip(parts) {
                    prop_assert_eq!(e.start, start);
                    let mut want = urlscan_core::models::index::parsed_object_index(&body[e.start..e.end]).unwrap();
                    for w in &mut want {
                        w.start += e.start;
                        w.end += e.start;
                        if let urlscan_core::models::index::Key::At(a, b) = &mut w.key {
                            (*a, *b) = (*a + e.start, *b + e.start);
                        }
                    }
                    prop_assert_eq!(&want[..], part);
                }
            }
        }
    }

    #[test]
    fn decoders_survive_arbitrary_json(doc in json()) {
        decode_all(doc.to_string().as_bytes());
        if let Ok(page) = decode::<SearchPageHead>(doc.to_string().as_bytes(), "search") {
            for hit in &page.results {
                let _ = hit.cursor();
            }
        }
    }

    #[test]
    fn query_parser_survives_arbitrary_text(q in ".{0,60}", doc in json()) {
        if let Ok(query) = Query::parse(&q) {
            let _ = query.matches(&doc, 1_700_000_000_000);
            let _ = query.fields();
        }
    }

    #[test]
    fn query_parser_survives_query_like_text(parts in prop::collection::vec(
        prop_oneof![
            Just("AND "), Just("OR "), Just("NOT "), Just("("), Just(")"), Just("["), Just("]"), Just("{"), Just("}"),
            Just(" TO "), Just("\""), Just("*"), Just("?"), Just(":"), Just("\\"), Just("date:"), Just("page.domain:"),
            Just(">now-7d"), Just("<=2020-01-01"), Just("a"), Just("b.com"), Just(" "), Just("-"), Just("!"), Just("~2"), Just("^3"),
        ], 0..30)) {
        let q: String = parts.concat();
        if let Ok(query) = Query::parse(&q) {
            let doc = serde_json::json!({"page": {"domain": "www.b.com", "title": "a b"}, "date": "2020-01-01T00:00:00.000Z", "domain": ["b.com"]});
            let _ = query.matches(&doc, 1_700_000_000_000);
        }
    }
}
