//! The tests of `fields` (in a file of their own, beside it).
use super::*;
use serde_json::json;

#[test]
fn a_misspelt_option_names_the_closest() {
    let names = ["webhook_url", "name", "email_addresses", "week_days"];
    assert_eq!(closest("webhook_ulr", &names), Some("webhook_url"));
    assert_eq!(closest("weekdays", &names), Some("week_days"));
    assert_eq!(closest("zzz", &names), None);
}

const FIELDS: &[Field] = &[
    req("name", "name", Kind::Text),
    f("utc_time", "utcTime", Kind::HhMm),
    f("week_days", "weekDays", Kind::EnumList(WEEK_DAYS)),
    f("email_addresses", "emailAddresses", Kind::Emails),
    f(
        "limit",
        "limit",
        Kind::Int(
            urlscan_rules::HOSTNAME_LIMIT_MIN,
            urlscan_rules::HOSTNAME_LIMIT_MAX,
        ),
    ),
    null_ok("extra_path", "extraPath", Kind::ExtraPath),
];

fn build_one(v: Value) -> Result<Map<String, Value>> {
    build("test", FIELDS, v.as_object().unwrap(), true)
}

#[test]
fn maps_and_checks() {
    let m = build_one(
        json!({"name": "n", "utc_time": "09:30", "week_days": ["Monday"], "extra_path": "/a?b=c"}),
    )
    .unwrap();
    assert_eq!(
        Value::Object(m),
        json!({"name": "n", "utcTime": "09:30", "weekDays": ["Monday"], "extraPath": "/a?b=c"})
    );
    for bad in [
        json!({}),
        json!({"name": "n", "nope": 1}),
        json!({"name": "n", "utc_time": "24:00"}),
        json!({"name": "n", "utc_time": "9:30"}),
        json!({"name": "n", "week_days": ["monday"]}),
        json!({"name": "n", "email_addresses": ["not-an-email"]}),
        json!({"name": "n", "limit": 9}),
        json!({"name": "n", "extra_path": "no-slash"}),
        json!({"name": "n", "extra_path": "/<script>"}),
        json!({"name": "n", "extra_path": format!("/{}", "a".repeat(2000))}),
    ] {
        assert!(
            matches!(build_one(bad.clone()), Err(Error::Validation(_))),
            "{bad}"
        );
    }
    assert!(build(
        "t",
        FIELDS,
        json!({"limit": 10}).as_object().unwrap(),
        false
    )
    .is_ok());
    // None: null for a nullable field, "not given" for the others.
    let m = build(
        "t",
        FIELDS,
        json!({"extra_path": null, "utc_time": null})
            .as_object()
            .unwrap(),
        false,
    )
    .unwrap();
    assert_eq!(Value::Object(m), json!({"extraPath": null}));
}
