//! Client and emulator agree on every rule of `urlscan_rules`: for each field
//! of the body of every row of the client's endpoint table (`core::api`),
//! the
//! emulator's field of the same wire name accepts exactly the sample values
//! the client accepts (the value the client would send, after its
//! normalisation) and refuses those it refuses, except for the limits the
//! emulator keeps of its own where the service states none (free text over
//! `request_fields::TEXT_MAX_LEN`, incident numbers out of `incidents`' ranges):
//! there the client sends and the emulator refuses, as a service may. The
//! other way round, the client refuses more only where the emulator's field
//! takes any value (the service is known to) or where `client_guard` says.
use serde_json::{json, Map, Value};

use super::{channels, incidents, livescan, searches, subscriptions};
use crate::request_fields::{check, FieldType, RequestField, TEXT_MAX_LEN};
use urlscan_core::api;
use urlscan_core::fields::{build, Field};
use urlscan_rules as rules;

/// The emulator's tables by wire prefix.
type EmulatorTables = Vec<(&'static str, &'static [RequestField])>;
/// (row, client fields, emulator tables by wire prefix)
type Tables = Vec<(&'static str, &'static [Field], EmulatorTables)>;

/// The emulator's tables of the body of the row named `row`.
fn emulator_tables(row: &str) -> Option<EmulatorTables> {
    Some(match row {
        "scan" => vec![("", crate::routes::SCAN)],
        "set_visibility" => vec![("", crate::routes::VISIBILITY_CHANGE)],
        "saved_searches.create" | "saved_searches.update" => vec![("", searches::FIELDS)],
        "subscriptions.create" | "subscriptions.update" => vec![("", subscriptions::FIELDS)],
        "channels.create" | "channels.update" => vec![("", channels::FIELDS)],
        "incidents.create" | "incidents.update" => vec![("", incidents::FIELDS)],
        "livescan.task" | "livescan.scan" => {
            vec![("task.", livescan::TASK), ("scanner.", livescan::SCANNER)]
        }
        "livescan.store" => vec![("", livescan::STORE)],
        _ => return None,
    })
}

/// Every row of the client's table with a body, with the emulator's tables
/// of it: a new row with a body is compared as soon as it exists (and fails
/// until the emulator names its table above).
fn tables() -> Tables {
    api::call::all()
        .filter_map(|e| e.body.map(|(_, fields)| (e, fields)))
        .map(|(e, fields)| {
            let emulator = emulator_tables(e.name).unwrap_or_else(|| {
                panic!(
                    "{}: a row with a body the emulator names no table for",
                    e.name
                )
            });
            (e.name, fields, emulator)
        })
        .collect()
}

/// Values the client refuses before sending though the service's rule for
/// them is not known: a referer or user agent the scanner would send as an
/// HTTP header must be a valid header value (no CR, LF or control
/// characters), and a scan's tags must not be empty.
fn client_guard(what: &str, wire: &str, v: &Value) -> bool {
    let blank = |t: &Value| t.as_str().is_some_and(|s| s.trim().is_empty());
    match (what, wire) {
        ("scan", "referer" | "customagent") => v.as_str().is_some_and(|s| !rules::header_value(s)),
        ("scan", "tags") => v.as_array().is_some_and(|a| a.iter().any(blank)),
        _ => false,
    }
}

fn samples() -> Vec<Value> {
    let mut v: Vec<Value> = vec![
        json!(""),
        json!(" "),
        json!("x"),
        json!("abc"),
        json!("09:30"),
        json!("9:30"),
        json!("24:00"),
        json!("a@b.co"),
        json!("not-an-email"),
        json!("https://example.com/x"),
        json!("http://hooks.example.net:8080/in"),
        json!("example.com"),
        json!("login.example.com/path"),
        json!("1.2.3.4"),
        json!("localhost"),
        json!("javascript:alert(1)"),
        json!("data:text/html,x"),
        json!("file:///etc/passwd"),
        json!("mailto:a@b.co"),
        json!("https:///path"),
        json!("http://"),
        json!("ftp://x.de/"),
        json!("https://exa mple.com/"),
        json!("https://example.com/\r\nX: y"),
        json!("/a?b=c"),
        json!("/"),
        json!("no-slash"),
        json!("/<x>"),
        json!("pro.tag"),
        json!("pro."),
        json!("de"),
        json!("DE"),
        json!("deu"),
        json!("x".repeat(TEXT_MAX_LEN)),
        json!("x".repeat(TEXT_MAX_LEN + 1)),
        json!(format!("/{}", "a".repeat(rules::EXTRA_PATH_MAX - 1))),
        json!(format!("/{}", "a".repeat(rules::EXTRA_PATH_MAX))),
        json!(format!("https://a.com/{}", "x".repeat(rules::URL_MAX_LEN))),
        json!(true),
        json!(false),
        json!(1.5),
        json!({}),
        json!({"X-A": "b"}),
        json!({"X A": "b"}),
        json!({"X-A": 1}),
        json!({"X-A": "a\r\nb"}),
        json!([]),
        json!([1]),
        json!(["x"]),
        json!(["a@b.co"]),
        json!(["a@b.co", "nope"]),
        json!(["de", "US"]),
        json!(["deu"]),
        json!(["pro.x", "team.y"]),
        json!(["x".repeat(TEXT_MAX_LEN + 1)]),
        json!(vec!["t"; rules::MAX_TAGS]),
        json!(vec!["t"; rules::MAX_TAGS + 1]),
        json!(["a\r\nb"]),
        json!([""]),
        json!(["t", " "]),
        json!("Mozilla/5.0 (X11; Linux x86_64)"),
        json!("a\tb"),
        json!("a\u{7f}b"),
    ];
    for n in [
        -1,
        0,
        1,
        9,
        10,
        11,
        59,
        60,
        61,
        rules::SEARCH_SIZE_MAX,
        rules::SEARCH_SIZE_MAX + 1,
        rules::LIVESCAN_MS_MAX,
        rules::LIVESCAN_MS_MAX + 1,
        600_000,
        incidents::INTERVAL_MAX,
        incidents::INTERVAL_MAX + 1,
        incidents::DELAY_MAX,
        incidents::DELAY_MAX + 1,
        i64::MAX,
    ] {
        v.push(json!(n));
    }
    let enums: &[&[&str]] = &[
        rules::VISIBILITIES,
        rules::SAVED_SEARCH_DATASOURCES,
        rules::FREQUENCIES,
        rules::WEEK_DAYS,
        rules::SEARCH_PERMISSIONS,
        rules::TLP,
        rules::CHANNEL_TYPES,
        rules::SCAN_INTERVAL_MODES,
        rules::WATCHED_ATTRIBUTES,
        rules::INCIDENT_CREATION_MODES,
        rules::WATCH_KEYS,
        rules::LIVESCAN_ENABLE_FEATURES,
        rules::LIVESCAN_DISABLE_FEATURES,
    ];
    for e in enums {
        for s in *e {
            v.push(json!(s));
            v.push(json!([s]));
            v.push(json!(s.to_ascii_uppercase()));
        }
        v.push(json!(e.to_vec()));
    }
    v
}

/// A value past a limit the emulator keeps of its own (see the module docs):
/// free text (`Str`, `Text`, `Strs` fields) over `TEXT_MAX_LEN`, or a number
/// of an incident out of its range. Every other refusal must be the client's too.
fn beyond_own_limits(what: &str, f: &RequestField, v: &Value) -> bool {
    let long = |v: &Value| v.as_str().is_some_and(|s| s.chars().count() > TEXT_MAX_LEN);
    match f.ty {
        FieldType::Str | FieldType::Text => long(v),
        FieldType::Strs => v.as_array().is_some_and(|a| a.iter().any(long)),
        FieldType::Int(min, max) if what.starts_with("incidents.") => {
            v.as_i64().is_some_and(|n| n < min || n > max)
        }
        _ => false,
    }
}

/// The emulator's verdict on one field: accepted, and the value it keeps.
fn emulator_accepts(f: &RequestField, v: &Value) -> bool {
    let obj = Map::from_iter([(f.name.to_string(), v.clone())]);
    check(&obj, "w", std::slice::from_ref(f), &[], false).is_ok()
}

#[test]
fn every_rule_is_the_same_on_both_sides() {
    let samples = samples();
    let mut compared = 0;
    for (what, client, emulator) in tables() {
        for field in client {
            let (prefix, table) = emulator
                .iter()
                .find(|(p, _)| field.wire.starts_with(p) && !field.wire[p.len()..].contains('.'))
                .unwrap_or_else(|| panic!("{what}: no emulator table for {}", field.wire));
            let wire = &field.wire[prefix.len()..];
            let ef = table
                .iter()
                .find(|f| f.name == wire)
                .unwrap_or_else(|| panic!("{what}: the emulator has no field {wire}"));
            for v in &samples {
                let opts = Map::from_iter([(field.name.to_string(), v.clone())]);
                let sent = build(what, std::slice::from_ref(field), &opts, false);
                match sent {
                    Ok(body) => {
                        // What the client sends, the emulator accepts.
                        let mut cur = &Value::Object(body);
                        for part in field.wire.split('.') {
                            cur = &cur[part];
                        }
                        assert!(
                            emulator_accepts(ef, cur) || beyond_own_limits(what, ef, cur),
                            "{what}.{wire}: the client sends {} but the emulator refuses it",
                            rules::shown(&cur.to_string(), 100)
                        );
                    }
                    Err(_) if matches!(ef.ty, FieldType::Any) => {}
                    Err(_) if client_guard(what, ef.name, v) => {}
                    Err(_) => assert!(
                        !emulator_accepts(ef, v),
                        "{what}.{wire}: the client refuses {} but the emulator accepts it",
                        rules::shown(&v.to_string(), 100)
                    ),
                }
                compared += 1;
            }
        }
    }
    assert!(compared > 5_000, "{compared}");
}

#[test]
fn required_fields_are_the_same_on_both_sides() {
    for (what, client, emulator) in tables() {
        for field in client {
            let (prefix, table) = emulator
                .iter()
                .find(|(p, _)| field.wire.starts_with(p))
                .expect("table");
            let ef = table
                .iter()
                .find(|f| f.name == &field.wire[prefix.len()..])
                .expect("field");
            assert_eq!(field.required, ef.required, "{what}.{}", field.wire);
        }
    }
}

/// The client's incident body of one field (`wire`), built from `args`.
fn client_incident_body(wire: &str, args: Value) -> Map<String, Value> {
    let field = api::incidents::FIELDS
        .iter()
        .find(|f| f.wire == wire)
        .unwrap();
    let args = args.as_object().unwrap();
    build("incident", std::slice::from_ref(field), args, false).unwrap()
}

#[test]
fn null_clears_extra_path_on_both_sides() {
    let body = client_incident_body("extraPath", json!({"extra_path": null}));
    assert_eq!(body.get("extraPath"), Some(&Value::Null));
    let ef = incidents::FIELDS
        .iter()
        .find(|f| f.name == "extraPath")
        .unwrap();
    let kept = check(&body, "incident", std::slice::from_ref(ef), &[], false).unwrap();
    assert_eq!(kept.get("extraPath"), Some(&Value::Null));
    // Other fields: None means "not given" on the client, absent on the emulator.
    let body = client_incident_body("scanInterval", json!({"scan_interval": null}));
    assert!(body.is_empty());
}

#[test]
fn channel_targets_are_the_same_on_both_sides() {
    let ep = api::call::find("channels.create").unwrap();
    let client = ep.check.expect("channels.create checks its targets");
    for (body, ok) in [
        (
            json!({"type": "webhook", "name": "n", "webhookURL": "https://h.example.com/"}),
            true,
        ),
        (
            json!({"name": "n", "webhookURL": "https://h.example.com/"}),
            true,
        ),
        (json!({"type": "webhook", "name": "n"}), false),
        (json!({"name": "n"}), false),
        (
            json!({"type": "email", "name": "n", "emailAddresses": ["a@b.co"]}),
            true,
        ),
        (
            json!({"type": "email", "name": "n", "emailAddresses": []}),
            false,
        ),
        (json!({"type": "email", "name": "n"}), false),
    ] {
        let m = body.as_object().unwrap();
        assert_eq!(client(m).is_ok(), ok, "client {body}");
        assert_eq!(channels::targets(m).is_ok(), ok, "emulator {body}");
    }
}
