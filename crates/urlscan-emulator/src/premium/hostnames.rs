//! Hostname history (`GET /api/v1/hostname/{hostname}`) and the hostnames
//! datasource of saved searches.
//!
//! Records are derived from the scans the caller can search (the seeded
//! corpus and new scans), so they are deterministic and grow with new scans.
//! For every scan that saw a hostname, on the scan's day:
//! * `scan` (the page's own host) or `scan-link` (another host the page
//!   loaded from), `sub_id` = scan uuid, `data` = `{uuid, url, result}`;
//! * `pdns` `A#<ip>`, `NS#<server>` (two) and for some hosts `AAAA#<ip6>`;
//! * for https pages `scan-cert-subject` (`sub_id` = certificate issuer) and a
//!   `ct` record on the certificate's issue day (`sub_id` = serial, `data` =
//!   the certificate);
//! * registrable domains get one `zonefile` record from before the first scan.
//!
//! Records run newest `seen_on` first, then by source and `sub_id`; the
//! `pageState` names the last record of a page, so paging is stable while
//! scans are added.
use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::{Path, RawQuery};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, MethodRouter};
use serde_json::{json, Value};

use super::super::answer::{err, ok_json, validation, Params};
use super::super::datasources;
use super::super::premium_model::hostnames::{approx_apex, documents, str_at};
use super::super::query::Query;
use super::super::state::{lookup, AppState, Caller};
use super::common::{h64, iso};
use super::entry::Entry;
use super::need;

pub(super) fn routes() -> Vec<(&'static str, MethodRouter<Arc<AppState>>)> {
    vec![("/api/v1/hostname/{hostname}", get(history))]
}

const DAY_MS: i64 = 86_400_000;

/// One scan that saw the hostname.
struct Seen {
    t: i64,
    uuid: String,
    page: bool,
    url: String,
    ip: Option<String>,
    apex: Option<String>,
    /// (issuer, valid-from ISO, valid days) of the page's certificate.
    tls: Option<(String, String, i64)>,
}

fn sightings(st: &AppState, c: &Caller, host: &str, now: i64) -> Vec<Seen> {
    let store = st.store();
    let mut out = Vec::new();
    for e in store.by_time.values() {
        if !e.finished(now) || !e.searchable_by(c) {
            continue;
        }
        let page_host = str_at(&e.doc, "page.domain");
        let page = page_host.as_deref() == Some(host);
        let listed = e
            .doc
            .get("domain")
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|d| d.as_str() == Some(host)));
        if !page && !listed {
            continue;
        }
        let tls = match (
            str_at(&e.doc, "page.tlsIssuer"),
            str_at(&e.doc, "page.tlsValidFrom"),
        ) {
            (Some(i), Some(f)) if page => Some((
                i,
                f,
                lookup(&e.doc, "page.tlsValidDays")
                    .and_then(Value::as_i64)
                    .unwrap_or(90),
            )),
            _ => None,
        };
        out.push(Seen {
            t: e.spec.time_ms,
            uuid: e.spec.uuid.clone(),
            page,
            url: str_at(&e.doc, "page.url").unwrap_or_default(),
            ip: if page {
                str_at(&e.doc, "page.ip")
            } else {
                None
            },
            apex: if page {
                str_at(&e.doc, "page.apexDomain")
            } else {
                None
            },
            tls,
        });
    }
    out
}

fn day(ms: i64) -> String {
    chrono::DateTime::<chrono::Utc>::from_timestamp_millis(ms)
        .unwrap_or_default()
        .format("%Y-%m-%d")
        .to_string()
}

fn derived_ip(host: &str) -> String {
    let h = h64(&format!("ip:{host}"));
    const FIRST: &[u8] = &[23, 93, 104, 141, 151, 172, 185, 198, 203, 216];
    format!(
        "{}.{}.{}.{}",
        FIRST[(h % FIRST.len() as u64) as usize],
        (h >> 8) as u8,
        (h >> 16) as u8,
        ((h >> 24) as u8).max(1)
    )
}

fn derived_ip6(host: &str) -> String {
    let h = h64(&format!("ip6:{host}"));
    format!(
        "2606:4700:{:x}:{:x}::{:x}",
        (h >> 48) as u16,
        (h >> 32) as u16,
        (h & 0xffff) as u16
    )
}

fn name_servers(apex: &str) -> [&'static str; 2] {
    const SETS: &[[&str; 2]] = &[
        ["amy.ns.cloudflare.com", "bob.ns.cloudflare.com"],
        ["dns1.registrar-servers.com", "dns2.registrar-servers.com"],
        [
            "ns-cloud-a1.googledomains.com",
            "ns-cloud-a2.googledomains.com",
        ],
        ["ns1.digitalocean.com", "ns2.digitalocean.com"],
        ["ns-1024.awsdns-00.org", "ns-512.awsdns-00.net"],
        ["pdns1.ultradns.net", "pdns2.ultradns.net"],
        ["ns1.example.net", "ns2.example.net"],
    ];
    SETS[(h64(&format!("ns:{apex}")) % SETS.len() as u64) as usize]
}

struct Rec {
    first: i64,
    last: Option<i64>,
    data: Option<Value>,
}

type Key = (String, &'static str, String);

#[derive(Default)]
struct Records(BTreeMap<Key, Rec>);

impl Records {
    /// An observation at `t`; the record spans all observations of its key.
    fn add(&mut self, key: Key, t: i64, data: Option<Value>) {
        let last = Some(t);
        let r = self.0.entry(key).or_insert(Rec {
            first: t,
            last,
            data,
        });
        r.first = r.first.min(t);
        r.last = r.last.map(|l| l.max(t));
    }

    /// A single observation without an end.
    fn once(&mut self, key: Key, t: i64, data: Option<Value>) {
        let last = None;
        self.0.entry(key).or_insert(Rec {
            first: t,
            last,
            data,
        });
    }
}

fn order(k: &Key) -> (Reverse<&str>, &str, &str) {
    (Reverse(k.0.as_str()), k.1, k.2.as_str())
}

fn records(st: &AppState, c: &Caller, host: &str, now: i64) -> Vec<(Key, Rec)> {
    let seen = sightings(st, c, host, now);
    if seen.is_empty() {
        return vec![];
    }
    let apex = seen
        .iter()
        .find_map(|s| s.apex.clone())
        .unwrap_or_else(|| approx_apex(host));
    let [ns1, ns2] = name_servers(&apex);
    let v6 = h64(&format!("v6:{host}")) % 3 == 0;
    let mut r = Records::default();
    for s in &seen {
        let d = day(s.t);
        let result = format!("{}/api/v1/result/{}/", st.base_url, s.uuid);
        let data = json!({"uuid": s.uuid, "url": s.url, "result": result});
        let source = if s.page { "scan" } else { "scan-link" };
        r.add((d.clone(), source, s.uuid.clone()), s.t, Some(data));
        let ip = s.ip.clone().unwrap_or_else(|| derived_ip(host));
        r.add((d.clone(), "pdns", format!("A#{ip}")), s.t, None);
        r.add((d.clone(), "pdns", format!("NS#{ns1}")), s.t, None);
        r.add((d.clone(), "pdns", format!("NS#{ns2}")), s.t, None);
        if v6 {
            r.add(
                (d.clone(), "pdns", format!("AAAA#{}", derived_ip6(host))),
                s.t,
                None,
            );
        }
        if let Some((issuer, from, days)) = &s.tls {
            r.add(
                (d.clone(), "scan-cert-subject", issuer.clone()),
                s.t,
                Some(json!({"uuid": s.uuid, "issuer": issuer})),
            );
            let from_ms = chrono::DateTime::parse_from_rfc3339(from)
                .map(|t| t.timestamp_millis())
                .unwrap_or(s.t);
            let serial = &super::common::hex_sha256(format!("{host}|{from}").as_bytes())[..32];
            let cert = json!({
                "subject": host,
                "issuer": issuer,
                "serial": serial,
                "san": if host == apex { vec![host.to_string(), format!("www.{host}")] } else { vec![host.to_string(), apex.clone()] },
                "notBefore": iso(from_ms),
                "notAfter": iso(from_ms + days * DAY_MS),
            });
            r.once(
                (day(from_ms), "ct", serial.to_string()),
                from_ms,
                Some(cert),
            );
        }
    }
    if host == apex {
        let first = seen.iter().map(|s| s.t).min().unwrap_or(now);
        let t = first - (30 + (h64(&format!("zone:{host}")) % 300) as i64) * DAY_MS;
        r.once((day(t), "zonefile", String::new()), t, None);
    }
    let mut out: Vec<(Key, Rec)> = r.0.into_iter().collect();
    out.sort_by(|a, b| order(&a.0).cmp(&order(&b.0)));
    out
}

fn record_json(k: &Key, r: &Rec) -> Value {
    json!({
        "seen_on": k.0,
        "source": k.1,
        "sub_id": k.2,
        "first_seen": iso(r.first),
        "last_seen": r.last.map(iso),
        "data_type": r.data.as_ref().map(|_| "json"),
        "data": r.data,
    })
}

fn page_state(k: &Key) -> String {
    hex::encode(format!("hs1\n{}\n{}\n{}", k.0, k.1, k.2))
}

fn parse_page_state(s: &str) -> Option<(String, String, String)> {
    let text = String::from_utf8(hex::decode(s).ok()?).ok()?;
    let mut parts = text.splitn(4, '\n');
    if parts.next()? != "hs1" {
        return None;
    }
    let (a, b, c) = (parts.next()?, parts.next()?, parts.next()?);
    Some((a.to_string(), b.to_string(), c.to_string()))
}

fn valid_hostname(h: &str) -> bool {
    !h.is_empty()
        && h.len() <= urlscan_rules::HOSTNAME_MAX_LEN
        && h.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':'))
}

async fn history(
    Path(hostname): Path<String>,
    RawQuery(raw): RawQuery,
    req: Entry<need::PremiumWrite>,
) -> Response {
    let host = hostname.trim().trim_end_matches('.').to_ascii_lowercase();
    if !valid_hostname(&host) {
        return validation("\"hostname\" must be a valid hostname");
    }
    let params = Params::parse(raw);
    let get = |k: &str| params.get(k);
    let limit = match get("limit") {
        None => 1000,
        Some(s) => match s.trim().parse::<i64>() {
            Ok(n)
                if (urlscan_rules::HOSTNAME_LIMIT_MIN..=urlscan_rules::HOSTNAME_LIMIT_MAX)
                    .contains(&n) =>
            {
                n as usize
            }
            Ok(n) if n < 10 => return validation("\"limit\" must be greater than or equal to 10"),
            Ok(_) => return validation("\"limit\" must be less than or equal to 10000"),
            Err(_) => return validation("\"limit\" must be a number"),
        },
    };
    let after = match get("pageState").filter(|s| !s.is_empty()) {
        None => None,
        Some(s) => match parse_page_state(&s) {
            Some(k) => Some(k),
            None => {
                return err(
                    StatusCode::BAD_REQUEST,
                    "Invalid pageState",
                    Some("The pageState parameter must be a value from a previous response."),
                )
            }
        },
    };
    let all = records(&req.st, &req.caller, &host, req.now);
    let start = match &after {
        None => 0,
        Some((a, b, cc)) => {
            let k = (Reverse(a.as_str()), b.as_str(), cc.as_str());
            all.partition_point(|(rk, _)| order(rk) <= k)
        }
    };
    let page: Vec<&(Key, Rec)> = all[start..].iter().take(limit).collect();
    let results: Vec<Value> = page.iter().map(|(k, r)| record_json(k, r)).collect();
    // The service sends `pageState: null` on the last page (clients index it).
    let next = page
        .last()
        .filter(|_| start + page.len() < all.len())
        .map(|(k, _)| page_state(k));
    ok_json(json!({ "results": results, "pageState": next }))
}

/// The first `size` hits of a query over the hostnames data source.
pub(super) fn search_hits(st: &AppState, c: &Caller, query: &Query, size: usize) -> Vec<Value> {
    let now = st.now_ms();
    datasources::select(documents(st, c, now), query, now, size, None).0
}
