//! The tests of `index` (in a file of their own, beside it).
use super::*;

#[test]
fn pages_and_objects() {
    let body = Bytes::from_static(
        br#"{"results":[{"_id":"a","sort":[2,"a"],"page":{"x":1}},{"k\u00e9":1,"_id":null}],"total":"7","has_more":false,"extra":[1]}"#,
    );
    // A page as the service sends it is read by the checking scan, indented or not.
    {
        let pretty =
            serde_json::to_vec_pretty(&serde_json::from_slice::<Value>(&body).unwrap()).unwrap();
        for b in [&body[..], &pretty] {
            let head = search_page_scanned(b).expect("read by the scan");
            assert_eq!(head.hits.len(), 2);
            // The first hit's `page` has its members; the second hit has no object.
            assert_eq!(head.hits.parts(0).len(), 1);
            let page = &head.hits[0].iter().find(|e| e.key(b) == "page").unwrap();
            let part = head
                .hits
                .parts(0)
                .at(page.start)
                .expect("the page's members");
            assert_eq!(part.len(), 1);
            assert_eq!(part[0].key(b), "x");
            assert_eq!(&b[part[0].start..part[0].end], b"1");
            assert!(head.hits.parts(1).is_empty());
            assert_eq!(head.results[0].cursor().as_deref(), Some("2,a"));
        }
    }
    let doc = search_page(body.clone()).unwrap();
    assert_eq!(doc.head.total, Some(7));
    assert_eq!(doc.head.has_more, Some(false));
    assert_eq!(doc.head.results[0].cursor().as_deref(), Some("2,a"));
    assert_eq!(doc.head.results[1].id, None);
    let first = &doc.head.hits[0];
    let page = first.iter().find(|e| e.key(&body) == "page").unwrap();
    assert_eq!(&body[page.start..page.end], br#"{"x":1}"#);
    assert_eq!(doc.head.hits[1][0].key, Key::Owned("k\u{e9}".into()));
    // `results` twice: serde_json checks both (the first is wrong here).
    let twice = Bytes::from_static(br#"{"results":"x","results":[{"_id":"a","sort":[1]}]}"#);
    assert!(search_page_scanned(&twice).is_none());
    assert!(search_page(twice).is_err());
    for odd in [&br#"{"results":{}}"#[..], br#"{"results":null}"#, br#"{}"#] {
        let d = search_page(Bytes::copy_from_slice(odd)).unwrap();
        assert!(d.head.results.is_empty() && d.head.hits.is_empty());
    }
    for bad in [
        &br#"{"results":[1]}"#[..],
        br#"[]"#,
        br#"{"results":[{}]"#,
        b"\xff",
    ] {
        assert!(matches!(
            search_page(Bytes::copy_from_slice(bad)),
            Err(Error::Decode(_))
        ));
    }
    let idx = object_index(br#" {"a": [1, {"b": "}"}], "c": "x"} "#).unwrap();
    assert_eq!(idx.len(), 2);
}

#[test]
fn a_parsed_object_is_indexed_as_a_parse_would() {
    for body in [
        r#"{}"#,
        r#" { } "#,
        r#"{"a":1}"#,
        r#"{"a": [1, {"b": "}"}], "c": "x\"}", "d" : -1.5e3 ,"e":true,"f":null}"#,
        r#"{"k\u00e9\"":{"x":[[],{}]},"a":"\\","a":2}"#,
        "{\n\t\"caf\u{e9}\": \"\u{e9}\\n\",\r\n\"n\": [ 1 , 2 ]\n}",
    ] {
        let parsed = object_index(body.as_bytes()).unwrap();
        assert_eq!(
            parsed_object_index(body.as_bytes()),
            Some(parsed.clone()),
            "{body}"
        );
        assert_members_found(body.as_bytes(), &parsed);
    }
    // A quote or backslash at each offset of the words strings are read by.
    for n in 0..20 {
        let pad = "x\u{e9}".repeat(n / 2) + &"y".repeat(n % 2);
        for body in [
            format!(r#"{{"k{pad}":"{pad}","b":"{pad}\"{pad}","c":["{pad}\\"]}}"#),
            format!(r#"{{"{pad}":{{"{pad}":"\u00e9{pad}"}},"z":1}}"#),
        ] {
            let parsed = object_index(body.as_bytes()).unwrap();
            assert_eq!(parsed_object_index(body.as_bytes()), Some(parsed), "{body}");
        }
    }
    for not_object in crate::models::NOT_OBJECTS {
        assert_eq!(parsed_object_index(not_object), None);
        assert_eq!(parsed_member(not_object, "a"), None);
    }
}

/// `parsed_member` finds each key where a lookup in the index would (the
/// last of duplicates), and no key that is absent.
fn assert_members_found(body: &[u8], index: &DocIndex) {
    for e in index {
        let key = e.key(body);
        let last = index.iter().rposition(|x| x.key(body) == key).unwrap();
        let want = (index[last].start, index[last].end);
        assert_eq!(parsed_member(body, key), Some(Some(want)), "{key}");
    }
    assert_eq!(parsed_member(body, "no such key"), Some(None));
}

#[test]
fn wrong_types_name_their_path() {
    let err = |body: &str| match search_page(Bytes::copy_from_slice(body.as_bytes())) {
        Err(Error::Decode(m)) => m,
        other => panic!("{body}: {other:?}"),
    };
    for (body, msg) in [
        (
            r#"{"results":"x"}"#,
            r#"results: expected a list, found a string ("x")"#,
        ),
        (
            r#"{"results":{"a":1}}"#,
            r#"results: expected a list, found an object ({"a":1})"#,
        ),
        (
            r#"{"results":7}"#,
            "results: expected a list, found a number (7)",
        ),
        (
            r#"{"results":[{},[1]]}"#,
            "results[1]: expected an object, found a list ([1])",
        ),
        (
            r#"{"results":[null]}"#,
            "results[0]: expected an object, found null",
        ),
        (
            r#"{"total":"many"}"#,
            r#"total: expected a number, found a string ("many")"#,
        ),
        (
            r#"{"total":true}"#,
            "total: expected a number, found a boolean (true)",
        ),
        (
            r#"{"took":[]}"#,
            "took: expected a number, found a list ([])",
        ),
        (
            r#"{"has_more":"yes"}"#,
            r#"has_more: expected a boolean, found a string ("yes")"#,
        ),
        (
            r#"{"results":[{"_id":5}]}"#,
            "results[0]._id: expected a string, found a number (5)",
        ),
        (
            r#"{"results":[{"sort":"1,a"}]}"#,
            r#"results[0].sort: expected a list, found a string ("1,a")"#,
        ),
        ("[]", "search page: expected an object, found a list"),
    ] {
        assert_eq!(err(body), msg, "{body}");
    }
    let long = format!(r#"{{"total":"{}"}}"#, "x".repeat(500));
    assert!(err(&long).len() < 100);
    // Lenient forms: null, missing, `{}` for a list, numeric strings.
    let d = search_page(Bytes::from_static(
        br#"{"results":[{"_id":null,"sort":{}}],"total":"12","took":null,"has_more":null}"#,
    ))
    .unwrap();
    assert_eq!(d.head.total, Some(12));
    assert_eq!((d.head.took, d.head.has_more), (None, None));
    assert_eq!(d.head.results[0].id, None);
    assert!(d.head.results[0].sort.is_empty());
}
