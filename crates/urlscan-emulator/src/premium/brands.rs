//! Brands: the brands the scan content generator impersonates
//! (`/api/v1/pro/availableBrands`) and, per brand, the phishing pages found
//! among the scans the caller can search (`/api/v1/pro/brands`).
use std::collections::HashMap;
use std::sync::Arc;

use axum::response::Response;
use axum::routing::{get, MethodRouter};
use serde_json::{json, Value};

// The same tables the content generator draws phishing pages from, so the
// brand list and the verdicts of scans agree.
use super::super::answer::ok_json;
use super::super::content::words;
use super::super::state::AppState;
use super::common::{h64, hex_sha256, iso};
use super::entry::Entry;
use super::need;

pub(super) fn routes() -> Vec<(&'static str, MethodRouter<Arc<AppState>>)> {
    vec![
        ("/api/v1/pro/availableBrands", get(available)),
        ("/api/v1/pro/brands", get(brands)),
    ]
}

/// 2019-02-18, when the service's brand list started.
const EPOCH_MS: i64 = 1_550_448_000_000;
const DAY_MS: i64 = 86_400_000;

fn region(country: &str) -> &'static str {
    match country {
        "us" | "ca" | "br" | "mx" | "ar" | "cl" | "co" => "Americas",
        "jp" | "cn" | "in" | "sg" | "kr" | "hk" | "tw" | "id" | "th" | "vn" | "my" | "ph" => "Asia",
        "au" | "nz" => "Oceania",
        "za" | "ng" | "ke" | "eg" | "ma" => "Africa",
        _ => "Europe",
    }
}

fn asns(key: &str) -> Vec<&'static str> {
    match key {
        "paypal" => vec!["AS17012"],
        "microsoft" => vec!["AS8075"],
        "apple" => vec!["AS714", "AS6185"],
        "netflix" => vec!["AS2906"],
        "amazon" => vec!["AS16509", "AS14618"],
        "facebook" | "instagram" => vec!["AS32934"],
        "google" => vec!["AS15169"],
        _ => vec![],
    }
}

fn brand_doc(b: &words::Brand) -> Value {
    let created = EPOCH_MS + (h64(&format!("created:{}", b.key)) % 900) as i64 * DAY_MS;
    let updated = created + (h64(&format!("updated:{}", b.key)) % 500) as i64 * DAY_MS;
    let mut regions: Vec<&str> = b.country.iter().map(|c| region(c)).collect();
    regions.dedup();
    json!({
        "_id": &hex_sha256(format!("brand:{}", b.key).as_bytes())[..24],
        "name": b.name,
        "key": b.key,
        "vertical": b.vertical,
        "country": b.country,
        "region": regions,
        "keywords": b.keywords,
        "terms": {"domains": b.legit, "asns": asns(b.key)},
        "createdAt": iso(created),
        "updatedAt": iso(updated),
    })
}

async fn available(_: Entry<need::Premium>) -> Response {
    let kits: Vec<Value> = words::BRANDS
        .iter()
        .map(|b| {
            let mut d = brand_doc(b);
            if let Some(m) = d.as_object_mut() {
                m.remove("updatedAt");
            }
            d
        })
        .collect();
    ok_json(json!({ "kits": kits }))
}

/// Per brand with at least one detected page: the total and the latest hit,
/// brands with the most recent detection first.
async fn brands(req: Entry<need::Premium>) -> Response {
    // brand key -> (total, latest scan time, latest hit)
    let mut found: HashMap<String, (u64, i64, Value)> = HashMap::new();
    req.each_malicious_scan(|e| {
        let Some(brand) = e.doc.get("brand").and_then(Value::as_array) else {
            return;
        };
        for b in brand {
            let Some(key) = b.get("key").and_then(Value::as_str) else {
                continue;
            };
            let uuid = &e.spec.uuid;
            let slot = found.entry(key.to_string()).or_insert_with(|| {
                let hit = json!({
                    "task": {"time": iso(e.spec.time_ms), "uuid": uuid},
                    "brand": brand,
                    "_id": uuid,
                    "result": format!("{}/api/v1/result/{uuid}/", req.st.base_url),
                });
                (0, e.spec.time_ms, hit)
            });
            slot.0 += 1;
        }
    });
    let mut rows: Vec<(i64, Value)> = words::BRANDS
        .iter()
        .filter_map(|b| {
            let (total, t, hit) = found.remove(b.key)?;
            Some((
                t,
                json!({"hits": [hit], "total": total, "brand": brand_doc(b)}),
            ))
        })
        .collect();
    rows.sort_by_key(|(t, _)| std::cmp::Reverse(*t));
    let responses: Vec<Value> = rows.into_iter().map(|(_, v)| v).collect();
    ok_json(json!({ "responses": responses }))
}
