//! Scans served as a document given to the emulator (a real result a test
//! recorded, or one `testing.result` built) instead of generated content.
//!
//! The search hit and the index document are derived from the result by the
//! same rules the generator renders its own scans with (`Model::hit`,
//! `Model::index`): a test in this file derives them from generated results
//! and compares. What the document does not hold reads as empty; a planted
//! scan has no response bodies, and its screenshot and DOM are the ones
//! given, else the generator's of the scan's URL.

use serde_json::{json, Map, Value};

use super::helpers::{iso, push_unique};
use super::result::insert_hit_links;
use super::spec::{Planted, ScanSpec};
use super::urls::Target;

/// The facts of a scan a planted document states (`task`).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskFacts {
    pub uuid: String,
    pub url: String,
    pub time_ms: i64,
    pub visibility: String,
}

const VISIBILITIES: [&str; 3] = ["public", "unlisted", "private"];

/// The task facts of a planted document, or why it is not a result document.
pub fn task_facts(doc: &Value) -> Result<TaskFacts, String> {
    let Some(root) = doc.as_object() else {
        return Err(format!(
            "a result document is a JSON object, got {}",
            kind(doc)
        ));
    };
    let task = match root.get("task") {
        Some(Value::Object(t)) => t,
        Some(v) => return Err(format!("task must be an object, got {}", kind(v))),
        None => return Err("the document has no task (task.uuid, task.url, task.time)".into()),
    };
    let text = |k: &str| -> Result<&str, String> {
        match task.get(k) {
            Some(Value::String(s)) => Ok(s),
            Some(v) => Err(format!("task.{k} must be a string, got {}", kind(v))),
            None => Err(format!("task.{k} is missing")),
        }
    };
    let uuid = text("uuid")?;
    let parsed =
        uuid::Uuid::try_parse(uuid).map_err(|_| format!("task.uuid {uuid:?} is not a UUID"))?;
    let url = text("url")?;
    let ok_url = url::Url::parse(url)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some());
    if ok_url.is_none() {
        return Err(format!("task.url {url:?} is not an http(s) URL"));
    }
    let time = text("time")?;
    let time_ms = chrono::DateTime::parse_from_rfc3339(time)
        .map_err(|_| {
            format!("task.time {time:?} is not an ISO 8601 time (2025-01-31T12:00:00.000Z)")
        })?
        .timestamp_millis();
    let visibility = match task.get("visibility") {
        None | Some(Value::Null) => "public".to_string(),
        Some(Value::String(v)) if VISIBILITIES.contains(&v.as_str()) => v.clone(),
        Some(v) => {
            return Err(format!(
                "task.visibility must be one of public, unlisted, private, got {v}"
            ))
        }
    };
    Ok(TaskFacts {
        uuid: parsed.hyphenated().to_string(),
        url: url.to_string(),
        time_ms,
        visibility,
    })
}

/// `doc` with the submission's facts in its task: what a scripted
/// submission finishes as.
pub fn with_task(mut doc: Value, facts: &TaskFacts) -> Result<Value, String> {
    let Some(root) = doc.as_object_mut() else {
        return Err(format!(
            "a result document is a JSON object, got {}",
            kind(&doc)
        ));
    };
    let task = root.entry("task").or_insert_with(|| json!({}));
    let Some(task) = task.as_object_mut() else {
        return Err(format!("task must be an object, got {}", kind(task)));
    };
    task.insert("uuid".into(), json!(facts.uuid));
    task.insert("url".into(), json!(facts.url));
    task.insert("time".into(), json!(iso(facts.time_ms)));
    task.insert("visibility".into(), json!(facts.visibility));
    if let Some(host) = url::Url::parse(&facts.url)
        .ok()
        .and_then(|u| u.host_str().map(String::from))
    {
        task.insert("apexDomain".into(), json!(super::urls::apex_of(&host)));
        task.insert("domain".into(), json!(host));
    }
    Ok(doc)
}

/// A spec for a planted document: its facts, and the document.
pub fn spec_of(facts: &TaskFacts, planted: Planted) -> ScanSpec {
    ScanSpec {
        planted: Some(std::sync::Arc::new(planted)),
        ..ScanSpec::api(
            facts.uuid.clone(),
            facts.url.clone(),
            facts.time_ms,
            facts.visibility.clone(),
        )
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The links of the real service in a recorded document, served as the
/// emulator's own.
const SERVICE: &str = "https://urlscan.io";

/// The document as served: the scan's uuid and current visibility, and its
/// links on this server.
pub(super) fn result(p: &Planted, spec: &ScanSpec, base: &str) -> Value {
    let mut doc = p.doc.clone();
    if let Some(task) = doc.get_mut("task").and_then(Value::as_object_mut) {
        task.insert("uuid".into(), json!(spec.uuid));
        task.insert("visibility".into(), json!(spec.visibility));
        for k in ["reportURL", "screenshotURL", "domURL"] {
            if let Some(Value::String(link)) = task.get_mut(k) {
                if let Some(rest) = link.strip_prefix(SERVICE) {
                    *link = format!("{base}{rest}");
                }
            }
        }
    }
    doc
}

fn at<'a>(doc: &'a Value, path: &str) -> &'a Value {
    doc.pointer(path).unwrap_or(&Value::Null)
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| x.as_str().map(String::from))
        .collect()
}

fn len_of(v: &Value) -> usize {
    v.as_array().map_or(0, Vec::len)
}

fn sum_of(list: &Value, key: &str) -> u64 {
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| x.get(key).and_then(Value::as_u64))
        .sum()
}

/// The search hit, with site-relative links when `base` is "".
pub(super) fn hit(p: &Planted, spec: &ScanSpec, base: &str) -> Value {
    let doc = &p.doc;
    let uuid = &spec.uuid;
    let mut task = match doc.get("task") {
        Some(Value::Object(t)) => t.clone(),
        _ => Map::new(),
    };
    for k in [
        "options",
        "userAgent",
        "reportURL",
        "screenshotURL",
        "domURL",
    ] {
        task.shift_remove(k);
    }
    task.insert("uuid".into(), json!(uuid));
    task.insert("visibility".into(), json!(spec.visibility));
    // What the result's stats state, else what its lists and requests count
    // (`Model::hit` counts the same things).
    let stats = at(doc, "/stats");
    let stat = |k: &str, derived: u64| stats.get(k).cloned().unwrap_or(json!(derived));
    let resources = at(doc, "/stats/resourceStats");
    let mut m = Map::new();
    m.insert("usertags".into(), json!([]));
    m.insert("meta".into(), json!([]));
    m.insert("task".into(), Value::Object(task));
    m.insert(
        "stats".into(),
        json!({
            "uniqIPs": stat("uniqIPs", len_of(at(doc, "/lists/ips")) as u64),
            "consoleMsgs": len_of(at(doc, "/data/console")),
            "uniqCountries": stat("uniqCountries", len_of(at(doc, "/lists/countries")) as u64),
            "dataLength": stat("dataLength", sum_of(resources, "size")),
            "encodedDataLength": stat("encodedDataLength", sum_of(resources, "encodedSize")),
            "requests": stat("requests", len_of(at(doc, "/data/requests")) as u64),
        }),
    );
    m.insert(
        "page".into(),
        doc.get("page").cloned().unwrap_or_else(|| json!({})),
    );
    let loaded = at(doc, "/data/timing/loadEventFired")
        .as_str()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map_or(spec.time_ms, |t| t.timestamp_millis());
    insert_hit_links(&mut m, uuid, spec.time_ms, loaded, base);
    m.insert(
        "verdicts".into(),
        json!({
            "score": at(doc, "/verdicts/overall/score"),
            "malicious": at(doc, "/verdicts/overall/malicious"),
        }),
    );
    if let Some(brands) = at(doc, "/verdicts/urlscan/brands")
        .as_array()
        .filter(|b| !b.is_empty())
    {
        m.insert("brand".into(), Value::Array(brands.clone()));
    }
    m.insert(
        "labels".into(),
        doc.get("labels").cloned().unwrap_or_else(|| json!([])),
    );
    if let Some(v) = doc.get("visible") {
        m.insert("visible".into(), v.clone());
    }
    Value::Object(m)
}

/// The index document: the hit's fields and the flat fields searches match.
pub(super) fn index(p: &Planted, spec: &ScanSpec) -> Value {
    let doc = &p.doc;
    let mut v = hit(p, spec, "");
    let ips = strings(at(doc, "/lists/ips"));
    // An AS name per address, in the order the lists name the addresses.
    let mut asnnames = Vec::new();
    let ip_stats = at(doc, "/stats/ipStats")
        .as_array()
        .cloned()
        .unwrap_or_default();
    for ip in &ips {
        let name = ip_stats
            .iter()
            .find(|s| s.get("ip").and_then(Value::as_str) == Some(ip))
            .and_then(|s| s.pointer("/asn/description"))
            .and_then(Value::as_str);
        if let Some(n) = name {
            push_unique(&mut asnnames, n);
        }
    }
    let mut filenames = Vec::new();
    for r in at(doc, "/data/requests").as_array().into_iter().flatten() {
        if let Some(url) = r.pointer("/request/request/url").and_then(Value::as_str) {
            if let Some(f) = Target::parse(url).path().rsplit('/').next() {
                push_unique(&mut filenames, f);
            }
        }
    }
    let asns: Vec<String> = strings(at(doc, "/lists/asns"))
        .into_iter()
        .map(|a| {
            if a.starts_with("AS") {
                a
            } else {
                format!("AS{a}")
            }
        })
        .collect();
    if let Value::Object(m) = &mut v {
        m.shift_remove("usertags");
        m.shift_remove("meta");
        m.insert("domain".into(), json!(strings(at(doc, "/lists/domains"))));
        m.insert("ip".into(), json!(ips));
        m.insert("hash".into(), json!(strings(at(doc, "/lists/hashes"))));
        m.insert("asn".into(), json!(asns));
        m.insert("asnname".into(), json!(asnnames));
        m.insert(
            "country".into(),
            json!(strings(at(doc, "/lists/countries"))),
        );
        m.insert("server".into(), json!(strings(at(doc, "/lists/servers"))));
        m.insert("filename".into(), json!(filenames));
        m.insert("date".into(), json!(iso(spec.time_ms)));
        m.insert("hostname".into(), at(doc, "/page/domain").clone());
    }
    v
}

/// The certificates the document lists (`lists.certificates`).
pub(super) fn certificates(p: &Planted) -> Vec<Value> {
    at(&p.doc, "/lists/certificates")
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::super::{corpus, index_doc, result_json, search_hit, ScanSpec};
    use super::*;

    fn planted_of(spec: &ScanSpec) -> Planted {
        Planted {
            doc: result_json(spec, SERVICE),
            screenshot: None,
            dom: None,
        }
    }

    /// `indexedAt` is compared apart: `Model::hit` adds the load time
    /// truncated where the document holds it rounded (1 ms apart at most).
    fn without_indexed_at(mut v: Value) -> Value {
        v.as_object_mut().map(|m| m.shift_remove("indexedAt"));
        v
    }

    #[test]
    fn hits_and_index_documents_derived_from_results_are_the_generators() {
        let specs = corpus(7, 400, 1_750_000_000_000);
        let mut loaded = 0;
        for spec in &specs {
            let p = planted_of(spec);
            let derived = hit(&p, spec, "https://emu.example");
            let made = search_hit(spec, "https://emu.example");
            assert_eq!(
                without_indexed_at(derived.clone()),
                without_indexed_at(made.clone()),
                "hit of {}",
                spec.url
            );
            let at = |v: &Value| {
                chrono::DateTime::parse_from_rfc3339(v["indexedAt"].as_str().unwrap_or(""))
                    .map(|t| t.timestamp_millis())
                    .unwrap_or(0)
            };
            // A failed page's document holds no timing: indexed after its task.
            if p.doc.pointer("/data/timing/loadEventFired").is_some() {
                assert!((at(&derived) - at(&made)).abs() <= 1, "{}", spec.url);
                loaded += 1;
                // A failed page's generated index keeps the lists its result
                // empties; a loaded one's agrees field by field.
                assert_eq!(
                    without_indexed_at(index(&p, spec)),
                    without_indexed_at(index_doc(spec)),
                    "index of {}",
                    spec.url
                );
            }
        }
        assert!(loaded > 300, "{loaded} loaded pages of 400");
    }

    #[test]
    fn a_planted_document_is_served_with_this_servers_links_and_its_visibility() {
        let spec = &corpus(3, 1, 1_750_000_000_000)[0];
        let facts = task_facts(&result_json(spec, SERVICE)).expect("a generated result");
        let mut s = spec_of(&facts, planted_of(spec));
        s.visibility = "unlisted".into();
        let doc = result_json(&s, "http://127.0.0.1:1");
        assert_eq!(doc["task"]["visibility"], "unlisted");
        let report = doc["task"]["reportURL"].as_str().unwrap_or("");
        assert!(report.starts_with("http://127.0.0.1:1/result/"), "{report}");
    }

    #[test]
    fn what_is_not_a_result_document_is_said() {
        let cases = [
            (json!([]), "JSON object"),
            (json!({}), "no task"),
            (json!({"task": []}), "task must be an object"),
            (json!({"task": {"uuid": 5}}), "task.uuid must be a string"),
            (json!({"task": {"uuid": "x"}}), "not a UUID"),
            (
                json!({"task": {"uuid": "0a0b0c0d-0000-4000-8000-000000000000", "url": "ftp://x"}}),
                "not an http(s) URL",
            ),
            (
                json!({"task": {"uuid": "0a0b0c0d-0000-4000-8000-000000000000", "url": "https://x.example/", "time": "yesterday"}}),
                "not an ISO 8601 time",
            ),
            (
                json!({"task": {"uuid": "0a0b0c0d-0000-4000-8000-000000000000", "url": "https://x.example/",
                    "time": "2025-01-31T12:00:00.000Z", "visibility": "secret"}}),
                "task.visibility must be one of",
            ),
        ];
        for (doc, said) in cases {
            let e = task_facts(&doc).expect_err("refused");
            assert!(e.contains(said), "{e} / {said}");
        }
        let ok = json!({"task": {"uuid": "0A0B0C0D-0000-4000-8000-000000000000",
            "url": "https://x.example/", "time": "2025-01-31T12:00:00.000Z"}});
        let f = task_facts(&ok).expect("a minimal document");
        assert_eq!(f.uuid, "0a0b0c0d-0000-4000-8000-000000000000");
        assert_eq!(f.visibility, "public");
    }
}
