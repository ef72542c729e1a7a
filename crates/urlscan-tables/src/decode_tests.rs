//! The tests of `decode` (in a file of their own, beside it).
use super::*;
use crate::cells::*;
use crate::schema::{HOSTNAMES, RESULTS, SCANS};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, TimestampMicrosecondType};
use arrow_array::Array;
use chrono::DateTime;

fn table(schema: &'static Schema, cols: Option<&[&str]>, rows: &[&str]) -> Result<RecordBatch> {
    let cols: Option<Vec<String>> = cols.map(|c| c.iter().map(|s| s.to_string()).collect());
    let mut b = TableBuilder::new(schema, cols.as_deref())?;
    for (i, r) in rows.iter().enumerate() {
        b.append(r.as_bytes(), None, &Item("results", i))?;
    }
    b.finish()
}

fn err(schema: &'static Schema, cols: Option<&[&str]>, rows: &[&str]) -> String {
    table(schema, cols, rows).unwrap_err().to_string()
}

#[test]
fn values_are_read_as_the_models_read_them() {
    let rows = [
        r#"{"_id":"a","task":{"time":"2026-11-20T13:01:02.500Z","tags":["x","y"]},"page":{"domain":"d\u00e9.example","tlsValidDays":"90"},"stats":{"uniqIPs":3.0},"verdicts":{"malicious":true},"result":"https://h/api/v1/result/a/"}"#,
        r#"{"_id":"b","task":{"time":1700000000000,"tags":{}},"page":null,"verdicts":{}}"#,
        r#"{"task":{"uuid":"c","time":""}}"#,
    ];
    let b = table(&SCANS, None, &rows).unwrap();
    assert_eq!(b.num_rows(), 3);
    let s = |n: &str| b.column_by_name(n).unwrap().as_string::<i32>().clone();
    assert_eq!(s("uuid").value(0), "a");
    // The first present path wins: `_id`, else `task.uuid`.
    assert_eq!(s("uuid").value(2), "c");
    assert_eq!(s("domain").value(0), "dé.example");
    assert!(s("domain").is_null(1));
    assert_eq!(s("report").value(0), "https://h/result/a/");
    let t = b
        .column_by_name("time")
        .unwrap()
        .as_primitive::<TimestampMicrosecondType>();
    assert_eq!(t.value(0), 1_795_179_662_500_000);
    assert_eq!(t.value(1), 1_700_000_000_000_000);
    assert!(t.is_null(2));
    let i = |n: &str| {
        b.column_by_name(n)
            .unwrap()
            .as_primitive::<Int64Type>()
            .clone()
    };
    assert_eq!(i("tls_valid_days").value(0), 90);
    assert_eq!(i("uniq_ips").value(0), 3);
    let m = b.column_by_name("malicious").unwrap().as_boolean().clone();
    assert!(m.value(0) && m.is_null(1) && m.is_null(2));
    let tags = b.column_by_name("tags").unwrap().as_list::<i32>().clone();
    assert_eq!(tags.value(0).len(), 2);
    assert!(tags.is_valid(1) && tags.value(1).is_empty());
    assert!(tags.is_null(2));
}

#[test]
fn wrong_types_name_their_path() {
    let ok = r#"{"page":{"asn":"AS1"}}"#;
    let e = err(&SCANS, None, &[ok, r#"{"page":{"asn":15169}}"#]);
    assert!(
        e.contains("results[1].page.asn: expected a string, found a number (15169)"),
        "{e}"
    );
    let e = err(&SCANS, None, &[r#"{"page":[1]}"#]);
    assert!(
        e.contains("results[0].page: expected an object, found a list"),
        "{e}"
    );
    let e = err(&SCANS, None, &[r#"{"task":{"tags":["a",1]}}"#]);
    assert!(
        e.contains("results[0].task.tags[1]: expected a string"),
        "{e}"
    );
    let e = err(&SCANS, None, &[r#"{"verdicts":{"malicious":0}}"#]);
    assert!(
        e.contains("results[0].verdicts.malicious: expected a boolean"),
        "{e}"
    );
    let e = err(&RESULTS, None, &[r#"{"data":{"requests":7}}"#]);
    assert!(
        e.contains("results[0].data.requests: expected a list"),
        "{e}"
    );
    let e = err(&HOSTNAMES, None, &[r#"{"seen_on":"soon"}"#]);
    assert!(e.contains("results[0].seen_on: expected a date"), "{e}");
}

#[test]
fn paths_outside_the_schema_take_the_type_of_their_first_values() {
    let rows = [
        r#"{"a":1,"b":1.5,"c":"x","d":true,"e":{"k":1},"f":null,"g":2}"#,
        r#"{"a":2,"b":2,"c":"y","d":false,"e":[1],"g":"z"}"#,
    ];
    let cols = ["a", "b", "c", "d", "e", "f", "g", ".a"];
    let b = table(&SCANS, Some(&cols), &rows).unwrap();
    let types: Vec<String> = b
        .schema()
        .fields()
        .iter()
        .map(|f| f.data_type().to_string())
        .collect();
    assert_eq!(
        types,
        ["Int64", "Float64", "Utf8", "Boolean", "Utf8", "Utf8", "Utf8", "Int64"]
    );
    let e = b.column_by_name("e").unwrap().as_string::<i32>().clone();
    assert_eq!((e.value(0), e.value(1)), (r#"{"k":1}"#, "[1]"));
    // Mixed values are kept as JSON text.
    let g = b.column_by_name("g").unwrap().as_string::<i32>().clone();
    assert_eq!((g.value(0), g.value(1)), ("2", "\"z\""));
    // Once decided (by the first batch), a type holds: a fraction in a whole-number column is an error.
    let mut bld = TableBuilder::new(&SCANS, Some(&["a".to_string()])).unwrap();
    bld.append(br#"{"a":1}"#, None, &Item("results", 0))
        .unwrap();
    bld.finish().unwrap();
    let e = bld
        .append(br#"{"a":1.5}"#, None, &Item("results", 1))
        .unwrap_err()
        .to_string();
    assert!(e.contains("results[1].a: expected a whole number"), "{e}");
    assert!(TableBuilder::new(&SCANS, Some(&["x".into(), "x".into()])).is_err());
}

#[test]
fn the_service_time_layout_reads_as_the_general_parser_reads_it() {
    let cases = [
        "\"2026-11-20T13:01:02.500Z\"",
        "\"1970-01-01T00:00:00.000Z\"",
        "\"1969-12-31T23:59:59.999Z\"",
        "\"2024-02-29T23:59:59.001Z\"",
        "\"0001-01-01T00:00:00.000Z\"",
        "\"9999-12-31T23:59:59.999Z\"",
    ];
    for c in cases {
        let general = DateTime::parse_from_rfc3339(c.trim_matches('"'))
            .unwrap()
            .timestamp_micros();
        assert_eq!(service_time(c.as_bytes()), Some(general), "{c}");
        assert_eq!(micros(c.as_bytes()), Some(Some(general)), "{c}");
    }
    // Not the layout, or not a time: the general rules decide.
    for c in [
        "\"2023-02-29T00:00:00.000Z\"",
        "\"2026-11-20T24:00:00.000Z\"",
        "\"2026-13-20T00:00:00.000Z\"",
        "\"2026-11-20T13:01:02.5Z\"",
        "\"2026-11-20T13:01:02.500+01:00\"",
        "\"2026-11-2xT13:01:02.500Z\"",
    ] {
        assert_eq!(service_time(c.as_bytes()), None, "{c}");
    }
    assert_eq!(
        micros(b"\"2026-11-20T13:01:02.500+01:00\""),
        Some(Some(1_795_176_062_500_000))
    );
    assert_eq!(micros(b"\"2023-02-29T00:00:00.000Z\""), None);
}

#[test]
fn members_found_with_the_page_read_as_a_scan_finds_them() {
    // A page as the service indents it: each hit's `page`, `task`, `stats` and
    // `verdicts` come with the hit's index (the page's scan); the rows are those
    // of a builder that scans them itself.
    let hits: Vec<serde_json::Value> = (0..5)
        .map(|i| {
            serde_json::json!({
                "_id": format!("u{i}"), "sort": [i, format!("u{i}")],
                "task": {"uuid": format!("u{i}"), "time": "2026-11-20T13:01:02.500Z", "tags": ["a", "b"], "visibility": "public"},
                "page": {"domain": format!("d{i}.example"), "asn": "AS1", "status": "200", "tlsValidDays": i, "x": {"y": 1}},
                "stats": {"uniqIPs": i}, "verdicts": {"malicious": i % 2 == 0, "overall": {"score": i}},
                "result": format!("https://h/api/v1/result/u{i}/"),
            })
        })
        .collect();
    let body = bytes::Bytes::from(
        serde_json::to_vec_pretty(&serde_json::json!({"results": hits, "total": 5})).unwrap(),
    );
    let head = urlscan_core::models::index::search_page(body.clone())
        .unwrap()
        .head;
    assert_eq!(head.hits.len(), 5);
    assert!(
        (0..5).all(|i| head.hits.parts(i).len() == 4),
        "task, page, stats, verdicts"
    );
    let mut with = TableBuilder::new(&SCANS, None).unwrap();
    let mut without = TableBuilder::new(&SCANS, None).unwrap();
    for (i, idx) in head.hits.iter().enumerate() {
        with.append_parts(&body, Some(idx), head.hits.parts(i), &Item("results", i))
            .unwrap();
        without
            .append(&body, Some(idx), &Item("results", i))
            .unwrap();
    }
    let (a, b) = (with.finish().unwrap(), without.finish().unwrap());
    assert_eq!(a, b);
    assert_eq!(
        a.column_by_name("domain")
            .unwrap()
            .as_string::<i32>()
            .value(3),
        "d3.example"
    );
}

#[test]
fn a_path_through_a_list_reads_each_element() {
    let rows = [
        r#"{"data":{"requests":[{"request":{"url":"https://a/","n":1}},{"request":{}},{"request":null},{"request":{"url":{"k":1}}},null]}}"#,
        r#"{"data":{"requests":{}}}"#,
        r#"{"data":{}}"#,
    ];
    let cols = ["data.requests[].request.url", "data.requests[]"];
    let b = table(&RESULTS, Some(&cols), &rows).unwrap();
    let urls = b.column(0).as_list::<i32>();
    let first = urls.value(0);
    let first = first.as_string::<i32>();
    assert_eq!(first.len(), 5);
    assert_eq!(first.value(0), "https://a/");
    assert!(first.is_null(1) && first.is_null(2) && first.is_null(4));
    assert_eq!(first.value(3), r#"{"k":1}"#);
    assert!(urls.is_valid(1) && urls.value(1).is_empty());
    assert!(urls.is_null(2));
    let whole = b.column(1).as_list::<i32>().value(0);
    assert_eq!(
        whole.as_string::<i32>().value(0),
        r#"{"request":{"url":"https://a/","n":1}}"#
    );
    let e = err(
        &RESULTS,
        Some(&cols[..1]),
        &[r#"{"data":{"requests":[{"request":{"url":"x"}},{"request":[1]}]}}"#],
    );
    assert!(
        e.contains("results[0].data.requests[1].request: expected an object, found a list"),
        "{e}"
    );
    let e = err(
        &RESULTS,
        Some(&cols[..1]),
        &[r#"{"data":{"requests":"x"}}"#],
    );
    assert!(
        e.contains("results[0].data.requests: expected a list"),
        "{e}"
    );
    for bad in ["[]", "a[]b", "a[].b[].c", "a[].", "a..b[]"] {
        assert!(
            TableBuilder::new(&RESULTS, Some(&[bad.to_string()])).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn an_empty_batch_has_every_column() {
    let b = table(&RESULTS, None, &[]).unwrap();
    assert_eq!(b.num_rows(), 0);
    assert_eq!(b.num_columns(), RESULTS.columns.len());
    assert_eq!(b.schema().metadata()["urlscan_rs.schema"], "RESULTS");
}

#[test]
fn escaped_keys_and_duplicate_keys_read_as_json_loads_does() {
    let b = table(
        &SCANS,
        Some(&["domain", "uuid"]),
        &[r#"{"page":{"dom\u0061in":"a","domain":"b"},"_id":"x","_id":"y"}"#],
    )
    .unwrap();
    let s = |n: &str| {
        b.column_by_name(n)
            .unwrap()
            .as_string::<i32>()
            .value(0)
            .to_string()
    };
    assert_eq!((s("domain"), s("uuid")), ("b".to_string(), "y".to_string()));
}
