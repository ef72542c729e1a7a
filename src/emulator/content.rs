// TEMPORARY compile stub; replaced by the real generator.
use serde_json::{json, Value};
#[derive(Clone, Debug)]
pub struct ScanSpec {
    pub uuid: String,
    pub url: String,
    pub time_ms: i64,
    pub visibility: String,
    pub country: Option<String>,
    pub tags: Vec<String>,
    pub method: String,
    pub source: String,
    pub user_agent: Option<String>,
    pub referer: Option<String>,
}
pub fn result_json(spec: &ScanSpec, base_url: &str) -> Value {
    json!({"task": {"uuid": spec.uuid, "url": spec.url, "time": super::ratelimit::iso_ms(spec.time_ms), "visibility": spec.visibility, "reportURL": format!("{base_url}/result/{}/", spec.uuid)}, "page": {"domain": "example.com", "url": spec.url}, "verdicts": {"overall": {"score": 0, "malicious": false}}, "lists": {"hashes": []}, "stats": {}, "data": {"requests": []}, "meta": {}})
}
pub fn search_hit(spec: &ScanSpec, base_url: &str) -> Value {
    json!({"task": {"uuid": spec.uuid, "url": spec.url, "time": super::ratelimit::iso_ms(spec.time_ms), "visibility": spec.visibility}, "page": {"domain": "example.com"}, "_id": spec.uuid, "sort": [spec.time_ms, spec.uuid], "result": format!("{base_url}/api/v1/result/{}/", spec.uuid)})
}
pub fn index_doc(spec: &ScanSpec) -> Value {
    json!({"task": {"url": spec.url}, "page": {"domain": "example.com"}, "domain": ["example.com"], "date": super::ratelimit::iso_ms(spec.time_ms), "hash": []})
}
pub fn screenshot_png(_spec: &ScanSpec) -> Vec<u8> {
    b"\x89PNG\r\n\x1a\n".to_vec()
}
pub fn dom(_spec: &ScanSpec) -> String {
    "<html></html>".into()
}
pub fn response_bodies(_spec: &ScanSpec) -> Vec<(String, String)> {
    vec![]
}
pub fn corpus(seed: u64, n: usize, now_ms: i64) -> Vec<ScanSpec> {
    (0..n)
        .map(|i| ScanSpec {
            uuid: format!("{:08x}-0000-4000-8000-{:012x}", seed, i),
            url: format!("https://site{i}.example.com/"),
            time_ms: now_ms - (i as i64) * 60_000,
            visibility: "public".into(),
            country: None,
            tags: vec![],
            method: "api".into(),
            source: "x".into(),
            user_agent: None,
            referer: None,
        })
        .collect()
}
